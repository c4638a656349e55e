"""Analysis package for the executable review of ML hardware and compute-efficiency research.

Its folders are the pipeline, seeds → data → models → figures → analyses → book; imports point
down (tests/test_layout.py enforces it):

    data/     paths, CSV/YAML readers, schemas, loaders of data/ and the seed files, validation
    models/   the cost models: pure formulas (FLOPs, MFU, memory, roofline, cost, energy, carbon)
    plot/     the figure style, palette and figure files (nothing of the book)
    themes/   one module per chapter: the analyses its notebooks run
    audit/    the claims audit: registry, tolerances and verdicts; the checks, one module per theme
    book/     executing notebooks, staging and building the HTML, figure files, gallery, bibliography,
              Sphinx extensions and the command line (``python -m analysis``)
"""

__version__ = "0.1.0"
