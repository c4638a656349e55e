"""The data layer: where things live (paths), the CSV and YAML readers that refuse bad input with
file, row and column (tables), the pandera schemas, the loaders of data/ (hardware, assumptions,
papers, claims, and the works outside the corpus in outside), the reading of the seed files
(corpus), validation of every data file, and the escaping of data text for Markdown and HTML
(markup). It imports nothing else of the package.
"""
