"""One module per chapter (serving, training_at_scale, ...): the analyses its notebooks run, the
data files it owns (``DATA_FILES``, validated with the rest of data/), the corpus figures and the
paper tables. A theme module may import ``analysis.data``, ``analysis.models`` and the figure
helper ``analysis.plot``; not another theme, the audit or the book.
"""
