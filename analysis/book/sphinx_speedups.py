"""Sphinx extension for the book's build: memoise three pure look-ups that dominate the HTML build.

Profiled with cProfile on ``jupyter-book build`` of the staged book (58 pages, about 1,350
citations; ``bench/sphinx-profile.md``):

- sphinxcontrib-bibtex asks pybtex for its style plugins once per citation, and pybtex answers
  by scanning the entry points of every installed distribution each time (a third of the
  build before this cache);
- pybtex's ``Text.from_latex`` decodes the same author names, titles and venues about 21,700
  times (each decode runs latexcodec's tokenizer);
- Sphinx's search indexer stems about 41,000 words with the Porter stemmer, memoised by Sphinx
  only within one page, so common words are stemmed again on every page;
- each ``{numref}`` unpickles the whole doctree of the page it points to (a notebook page with
  its outputs: about 0.1 s each, 66 of them) only to read the target's number and caption.

Each is a pure function of its argument during a build (a plugin class, a rich-text tree that
pybtex never changes after construction, a stem, a doctree that is only read), so memoising
changes no output byte (``tests/test_sphinx_speedups.py``; the built HTML was compared byte for
byte with and without); a name that is not found still raises (exceptions are not cached). The
numref doctrees are kept only while the page's pickled doctree is the same object, so a page read
again is unpickled again. One change is not a cache: the memoised ``from_latex`` reads LaTeX's ``\\$`` as a
dollar sign, which pybtex leaves as two characters (a title such as "$100K or 100 Days").
"""

from __future__ import annotations

import functools
from typing import Any


def _memoise_from_latex() -> None:
    from pybtex.richtext import Text

    parse = Text.__dict__["from_latex"].__func__
    if not hasattr(parse, "cache_info"):
        # pybtex's LaTeX reader decodes \& \% \# \_ but leaves \$ as two characters: references.bib writes a
        # dollar sign as LaTeX's \$ (the file stays usable in LaTeX), and the page shows "$" (issue 36)
        def from_latex(cls: Any, latex: str) -> Any:
            return parse(cls, latex.replace("\\$", "$"))

        from_latex.__wrapped__ = parse  # type: ignore[attr-defined]
        Text.from_latex = classmethod(functools.lru_cache(maxsize=None)(from_latex))  # type: ignore[assignment,arg-type]


def _memoise_stem() -> None:
    from sphinx.search.en import SearchEnglish

    if not hasattr(SearchEnglish.stem, "cache_info"):
        # keyed by (the language object, word): one object per build, so one cache per build
        SearchEnglish.stem = functools.lru_cache(maxsize=None)(SearchEnglish.stem)  # type: ignore[method-assign]


class _ReadOnlyDoctrees:
    """The build environment, except that ``get_doctree`` returns a shared, cached doctree.

    Only for callers that read the doctree (numref resolution): the cached tree is never handed to
    code that transforms it.
    """

    def __init__(self, env: Any, cache: dict[str, tuple[bytes, Any]]) -> None:
        self._env = env
        self._cache = cache

    def __getattr__(self, name: str) -> Any:
        return getattr(self._env, name)

    def get_doctree(self, docname: str) -> Any:
        pickled = self._env._pickled_doctree_cache.get(docname)
        hit = self._cache.get(docname)
        if hit is not None and pickled is not None and hit[0] is pickled:
            return hit[1]
        doctree = self._env.get_doctree(docname)
        self._cache[docname] = (self._env._pickled_doctree_cache.get(docname), doctree)
        return doctree


def _memoise_numref_doctrees() -> None:
    from sphinx.domains.std import StandardDomain

    if getattr(StandardDomain._resolve_numref_xref, "_book_memoised", False):
        return
    original = StandardDomain._resolve_numref_xref
    caches: dict[int, tuple[Any, dict[str, tuple[bytes, Any]]]] = {}

    def _resolve_numref_xref(self: Any, env: Any, *args: Any, **kwargs: Any) -> Any:
        entry = caches.get(id(env))
        if entry is None or entry[0] is not env:  # one cache per build environment
            entry = caches[id(env)] = (env, {})
        return original(self, _ReadOnlyDoctrees(env, entry[1]), *args, **kwargs)  # type: ignore[arg-type]

    _resolve_numref_xref._book_memoised = True  # type: ignore[attr-defined]
    StandardDomain._resolve_numref_xref = _resolve_numref_xref  # type: ignore[method-assign]


def memoise_plugins() -> None:
    """Memoise pybtex's plugin look-up (also used outside Sphinx: the figures' citation labels)."""
    import pybtex.plugin

    lookup = pybtex.plugin._load_entry_point
    if not hasattr(lookup, "cache_info"):
        pybtex.plugin._load_entry_point = functools.lru_cache(maxsize=None)(lookup)


def setup(app: Any) -> dict[str, Any]:
    memoise_plugins()
    _memoise_from_latex()
    _memoise_stem()
    _memoise_numref_doctrees()
    return {"parallel_read_safe": True, "parallel_write_safe": True}
