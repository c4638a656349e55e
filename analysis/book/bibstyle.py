"""Sphinx extension: author–year labels that are unique, the same in the text and the bibliography.

sphinxcontrib-bibtex's ``author_year`` reference style prints "Zhong et al. [2024]" from the
author and ``year`` fields, so two papers by the same first author in the same year get the same
label, and the bibliography page (pybtex's ``plain`` style) numbers its entries "[51]". This
module registers two plugins:

- ``author_year_suffix`` (referencing style): as ``author_year``, but the year is followed by the
  entry's ``yearsuffix`` field ("2024a") and an entry without authors is named by its ``key``
  field instead of its title;
- ``authoryear`` (pybtex formatting style): pybtex's ``plain`` entries with the same labels,
  "Zhong et al. 2024a", so the bibliography page uses the labels of the text.

The suffixes are computed by :func:`analysis.book.bibliography.year_suffixes` when references.bib is
written, with :func:`author_label_text` (the same rendering as here). The extension also adds
"Cited in" links under each bibliography entry to the pages that cite it: sphinxcontrib-bibtex
2.7 makes back-references only within one document.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import pybtex.plugin
import sphinxcontrib.bibtex.plugin
from pybtex.richtext import Text
from pybtex.style.formatting.plain import Style as PlainStyle
from pybtex.style.labels import BaseLabelStyle
from pybtex.style.template import field, first_of, optional, sentence, tag
from sphinxcontrib.bibtex.style.referencing import BaseReferenceStyle
from sphinxcontrib.bibtex.style.referencing.author_year import AuthorYearReferenceStyle
from sphinxcontrib.bibtex.style.referencing.basic_author_year import (
    BasicAuthorYearParentheticalReferenceStyle,
    BasicAuthorYearTextualReferenceStyle,
)
from sphinxcontrib.bibtex.style.referencing.extra_author import ExtraAuthorReferenceStyle
from sphinxcontrib.bibtex.style.referencing.extra_empty import ExtraEmptyReferenceStyle
from sphinxcontrib.bibtex.style.referencing.extra_label import ExtraLabelReferenceStyle
from sphinxcontrib.bibtex.style.template import join, join2, names, node, post_text, pre_text, reference

if TYPE_CHECKING:
    from pybtex.database import Entry, Person
    from pybtex.style.template import Node

ET_AL = " et al."


# --- the label, as plain text (used by the generator, the bibliography and the tests) ----------

@lru_cache(maxsize=1)
def _name_style() -> Any:
    return pybtex.plugin.find_plugin("pybtex.style.names", "last")()


@lru_cache(maxsize=1)
def _text_backend() -> Any:
    # one instance: render_as("text") looks the backend up among the installed packages' entry points
    # on every call, which made the labels of a 2,000-paper bibliography take minutes
    from pybtex.backends.plaintext import Backend

    return Backend()


def _family(person: Person) -> str:
    return _name_style().format(person, True).format().render(_text_backend())


def _latex_text(value: str) -> str:
    return Text.from_latex(value).render(_text_backend())


def label_from_persons(persons: Sequence[Person], key: str | None) -> str:
    """"A", "A and B", "A et al." (three or more), or the `key` text when there is no author."""
    fam = [_family(p) for p in persons[:2]]  # a label names at most two people
    if not fam:
        return _latex_text(key) if key else ""
    if len(persons) == 1:
        return fam[0]
    if len(persons) == 2:
        return f"{fam[0]} and {fam[1]}"
    return fam[0] + ET_AL


def author_label_text(authors: str | None, key: str | None) -> str:
    """:func:`label_from_persons` for a BibTeX author string (as written to references.bib)."""
    from pybtex.bibtex.utils import split_name_list
    from pybtex.database import Person

    persons = [Person(s) for s in split_name_list(authors)] if authors else []
    return label_from_persons(persons, key)


def entry_label(entry: Entry) -> str:
    """The whole label of a parsed entry: "Zhong et al. 2024a"."""
    author = label_from_persons(entry.persons.get("author", []), entry.fields.get("key"))
    year = entry.fields.get("year", "n.d.") + entry.fields.get("yearsuffix", "")
    return f"{author} {year}"


# --- in-text references -------------------------------------------------------------------

@node
def label_year(children, data):
    """The year with its suffix: 2024a."""
    assert not children
    return join[first_of[optional[field("year")], "n.d."], optional[field("yearsuffix", raw=True)]].format_data(data)


@node
def label_author(children, data, **kwargs):
    """The authors; else the `key` field (an entry without confirmed authors); else the title."""
    assert not children
    return first_of[
        optional[names("author", **kwargs)],
        optional[field("key")],
        tag("em")[field("title")],
    ].format_data(data)


def _author(style: Any, full: bool) -> Node:
    p = style.person
    return label_author(sep=p.sep, sep2=p.sep2, last_sep=p.last_sep, other=None if full else p.other)


@dataclass
class _Parenthetical(BasicAuthorYearParentheticalReferenceStyle):
    def inner(self, role_name: str) -> Node:
        return join2(sep1=self.pre_text_sep, sep2=self.post_text_sep)[
            pre_text,
            reference[join(sep=self.author_year_sep)[_author(self, "s" in role_name), label_year]],
            post_text,
        ]


@dataclass
class _Textual(BasicAuthorYearTextualReferenceStyle):
    def inner(self, role_name: str) -> Node:
        return join(sep=self.text_reference_sep)[
            _author(self, "s" in role_name),
            join[
                self.bracket.left,
                join2(sep1=self.pre_text_sep, sep2=self.post_text_sep)[pre_text, reference[label_year], post_text],
                self.bracket.right,
            ],
        ]


@dataclass
class _Year(BaseReferenceStyle):
    bracket: Any = None

    def role_names(self) -> Iterable[str]:
        return ["year", "yearpar"]

    def outer(self, role_name: str, children: list) -> Node:
        return self.bracket.outer(children, brackets="par" in role_name, capfirst=False)

    def inner(self, role_name: str) -> Node:
        return reference[label_year]


@dataclass
class AuthorYearSuffixReferenceStyle(AuthorYearReferenceStyle):
    """``author_year`` with year suffixes and `key` for entries without authors."""

    def __post_init__(self) -> None:
        self.styles.extend([
            _Parenthetical(bracket=self.bracket_parenthetical, person=self.person,
                           author_year_sep=self.author_year_sep, pre_text_sep=self.pre_text_sep,
                           post_text_sep=self.post_text_sep),
            _Textual(bracket=self.bracket_textual, person=self.person,
                     text_reference_sep=self.text_reference_sep, pre_text_sep=self.pre_text_sep,
                     post_text_sep=self.post_text_sep),
            ExtraAuthorReferenceStyle(bracket=self.bracket_author, person=self.person),
            ExtraLabelReferenceStyle(bracket=self.bracket_label),
            _Year(bracket=self.bracket_year),
            ExtraEmptyReferenceStyle(),
        ])
        # skip AuthorYearReferenceStyle.__post_init__ (it would add the stock styles)
        super(AuthorYearReferenceStyle, self).__post_init__()


# --- the bibliography page ----------------------------------------------------------------------

class AuthorYearLabelStyle(BaseLabelStyle):
    def format_labels(self, sorted_entries):
        for entry in sorted_entries:
            yield entry_label(entry)


class AuthorYearStyle(PlainStyle):
    """pybtex's plain entries, labelled "Zhong et al. 2024a" as in the text.

    The arXiv link is printed once: `url` is left out when it is the eprint's abstract page.
    """

    default_label_style = AuthorYearLabelStyle

    def format_web_refs(self, e):
        if e.fields.get("eprint") and e.fields.get("url", "").startswith("https://arxiv.org/abs/"):
            return sentence[optional[self.format_eprint(e)], optional[self.format_doi(e)]]
        return super().format_web_refs(e)


def sorting_key(entry: Entry) -> tuple:
    """The bibliography's order (pybtex's author_year_title), used to assign year suffixes."""
    from pybtex.style.sorting.author_year_title import SortingStyle

    return SortingStyle().sorting_key(entry)


# --- back-links from the bibliography to the citing pages ----------------------------------------

def _add_backlinks(app: Any, doctree: Any, docname: str) -> None:
    from docutils import nodes

    domain = app.env.get_domain("cite")
    ids = {c.citation_id: c.key for c in domain.citations if c.bibliography_key.docname == docname}
    if not ids:
        return
    citing: dict[str, list[str]] = {}
    for ref in domain.citation_refs:
        for target in ref.targets:
            docs = citing.setdefault(target.key, [])
            if ref.docname not in docs and ref.docname != docname:
                docs.append(ref.docname)
    order = {d: i for i, d in enumerate(_flatten_toc(app.env, app.config.root_doc))}
    for cit in list(doctree.findall(nodes.citation)):
        key = next((ids[i] for i in cit["ids"] if i in ids), None)
        docs = citing.get(key or "", [])
        if not docs:
            continue
        para = nodes.paragraph(classes=["bib-cited-in"])
        para += nodes.Text("Cited in: ")
        for n, doc in enumerate(sorted(docs, key=lambda d: order.get(d, 10**6))):
            if n:
                para += nodes.Text(", ")
            title = app.env.titles[doc].astext() if doc in app.env.titles else doc
            uri = app.builder.get_relative_uri(docname, doc)
            para += nodes.reference("", title, internal=True, refuri=uri)
        para += nodes.Text(".")
        cit += para


def _flatten_toc(env: Any, doc: str, seen: set | None = None) -> list[str]:
    seen = set() if seen is None else seen
    out = [doc]
    seen.add(doc)
    for child in env.toctree_includes.get(doc, []):
        if child not in seen:
            out += _flatten_toc(env, child, seen)
    return out


def setup(app: Any) -> dict[str, Any]:
    pybtex.plugin.register_plugin("pybtex.style.formatting", "authoryear", AuthorYearStyle, force=True)
    pybtex.plugin.register_plugin("pybtex.style.labels", "authoryear", AuthorYearLabelStyle, force=True)
    sphinxcontrib.bibtex.plugin.register_plugin("sphinxcontrib.bibtex.style.referencing", "author_year_suffix",
                                                AuthorYearSuffixReferenceStyle, force=True)
    app.connect("doctree-resolved", _add_backlinks)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
