"""The pieces of the reader's side that need no browser (tests/test_browser.py checks the built book)."""

from __future__ import annotations

from analysis.book import gallery
from analysis.book.reader import name_citations
from analysis.themes.paper_table import audit_summary, explorer_options, explorer_table


def test_textual_citation_links_are_named_with_their_authors():
    html = ('<span class="bibtex-citation" id="id1">Huang <em>et al.</em> [<a class="reference internal" '
            'href="b.html#id82" title="Y. Huang, B. Yuan. Locret.">2024a</a>]</span>')
    out = name_citations(html)
    assert '<a aria-label="Huang et al. 2024a" class="reference internal"' in out
    assert out.endswith(">2024a</a>]</span>")


def test_two_citations_in_one_span_and_parenthetical_ones():
    two = ('<span class="bibtex-citation" id="x">Fu [<a href="b#1">2024</a>], O&#39;Neil and Li '
           '[<a href="b#2">2023</a>]</span>')
    out = name_citations(two)
    assert 'aria-label="Fu 2024"' in out and 'aria-label="O&#x27;Neil and Li 2023"' in out
    # a parenthetical citation's link already holds the authors: unchanged
    par = '<span class="bibtex-citation" id="y">[<a href="b#3">Liao <em>et al.</em>, 2024</a>]</span>'
    assert name_citations(par) == par


def test_audit_cells_count_the_verdicts():
    text = "consistent (gk-01); inconsistent (gk-02); rules: 2 consistent, 1 plausible only under an assumption"
    assert audit_summary(text) == "3 consistent, 1 inconsistent, 1 plausible only under an assumption"
    assert audit_summary("rules: 1 consistent") == "1 consistent"
    assert audit_summary("something else") is None


def test_explorer_columns_and_options():
    table = explorer_table()
    assert list(table.columns) == ["title", "year", "theme", "system", "hardware", "headline"]
    assert table["title"].str.contains('class="paper-key" href="../chapters/bibliography.html#bibkey-').all()
    options = explorer_options()
    assert options["text_in_header_can_be_selected"] is False  # the whole heading sorts
    assert "Theme" in str(options["drawCallback"]) or "theme" in str(options["drawCallback"])


def test_gallery_chapters_follow_the_table_of_contents():
    order = gallery.chapter_order()
    assert order[0] == "corpus" and order.index("gpu-kernels") < order.index("methods") < order.index("bibliography")
    titles = gallery.chapter_titles()
    assert titles["methods"] == "Methods: hardware-cost models"
