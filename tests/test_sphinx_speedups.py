"""The book's Sphinx extension that memoises pybtex plugin look-ups."""

from __future__ import annotations

import pybtex.plugin
import pytest

from analysis.book import sphinx_speedups


def test_lookups_are_memoised_and_still_correct(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(pybtex.plugin, "_load_entry_point", pybtex.plugin._load_entry_point)
    plain = pybtex.plugin.find_plugin("pybtex.style.formatting", "plain")
    sphinx_speedups.setup(None)
    sphinx_speedups.setup(None)  # a second setup does not wrap the cache again
    lookup = pybtex.plugin._load_entry_point
    assert not hasattr(lookup.__wrapped__, "cache_info")
    assert pybtex.plugin.find_plugin("pybtex.style.formatting", "plain") is plain
    assert pybtex.plugin.find_plugin("pybtex.style.formatting", "plain") is plain
    assert lookup.cache_info().hits >= 1
    with pytest.raises(pybtex.plugin.PluginNotFound):
        pybtex.plugin.find_plugin("pybtex.style.formatting", "no-such-style")


def test_from_latex_and_stem_are_memoised_with_the_same_results():
    # expected values computed independently of the cache: latexcodec and the Porter stemmer directly
    import codecs

    import latexcodec  # noqa: F401
    import snowballstemmer
    from pybtex.backends.plaintext import Backend
    from pybtex.richtext import Text
    from sphinx.search.en import SearchEnglish

    sphinx_speedups.setup(None)
    latex = r"Schr{\"o}dinger and {NVIDIA} H100"
    first = Text.from_latex(latex)
    assert Text.from_latex(latex) is first
    assert first.render(Backend()) == codecs.decode(latex, "ulatex").replace("{", "").replace("}", "")
    lang = SearchEnglish({})
    porter = snowballstemmer.stemmer("porter")
    for word in ["accelerators", "Accelerators", "serving", "quantization"]:
        assert lang.stem(word) == lang.stem(word) == porter.stemWord(word.lower())


def test_a_dollar_sign_in_the_bibliography_is_shown_as_a_dollar_sign():
    """Issue 36: references.bib writes "$" as LaTeX's \\$ (usable in LaTeX); the page shows "$", where pybtex's
    own reader would print "\\$" (as it did for "$100K or 100 Days")."""
    from pybtex.backends.plaintext import Backend
    from pybtex.richtext import Text

    from analysis.book.bibliography import latex_escape

    sphinx_speedups.setup(None)
    assert Text.from_latex(latex_escape("$100K or 100 Days & more")).render(Backend()) == "$100K or 100 Days & more"
