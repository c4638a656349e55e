"""Sphinx extension for the book's build: cache pybtex's plugin look-ups.

sphinxcontrib-bibtex asks pybtex for its style plugins once per citation, and pybtex
answers by scanning the entry points of every installed distribution each time. With
about 1,450 citations that scan was a third of the HTML build's time (cProfile of
``jupyter-book build``). The plugin classes cannot change during a build, so the
look-up is memoised; a name that is not found still raises (exceptions are not cached).
"""

from __future__ import annotations

import functools
from typing import Any


def setup(app: Any) -> dict[str, Any]:
    import pybtex.plugin

    lookup = pybtex.plugin._load_entry_point
    if not hasattr(lookup, "cache_info"):
        pybtex.plugin._load_entry_point = functools.lru_cache(maxsize=None)(lookup)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
