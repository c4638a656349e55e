"""Moved: the figure helper is :mod:`analysis.plot.figures` (issue 37), its talk footer
:mod:`analysis.book.footer`. This alias lets code written before the move (``from analysis.book import
figures``) run unchanged while the branches that still use it are merged; remove it after.

A package rather than a module file, so that git sees ``analysis/book/figures.py`` as renamed to
``analysis/plot/figures.py`` and carries a branch's edits of the old file over to the new one.
"""

import sys

from analysis.book import footer  # noqa: F401  (registers the talk footer, as importing the old module gave)
from analysis.plot import figures

sys.modules[__name__] = figures
