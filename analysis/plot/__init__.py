"""The figures: the book's one style and palette, the mathtext dollar-sign rule, and saving a figure's
files with its registry entry (``figures``). A layer between the models and the themes: it may import
``analysis.data`` and ``analysis.models``; the themes, the notebooks and the book import it. It imports
nothing of the book (the talk footer's words, which need the bibliography and the book's URL, come from
``analysis.book.footer``).
"""
