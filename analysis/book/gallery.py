"""The "Figures" page: every registered figure with downloads, its licence and a citation block.

The citation (plain text and BibTeX) names the authors, the book's title, version and year (from
CITATION.cff), the figure's id, title and caption, its permalink (the configured BOOK_URL plus the
figure's anchor; "local build" without one) and the licence (analysis/book/publish.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from analysis.book import publish
from analysis.book.figures import registry, thumbnail
from analysis.data.markup import md_text
from analysis.data.paths import ROOT, STAGE


def chapter_titles() -> dict[str, str]:
    themes = yaml.safe_load((ROOT / "data" / "themes.yml").read_text(encoding="utf-8"))["themes"]
    titles = {t["chapter"]: t["title"] for t in themes}
    titles.update({"methods": "Methods: hardware-cost models", "corpus": "How this review was made",
                   "claims": "Do the numbers add up?", "synthesis": "Synthesis"})
    return titles


def permalink(entry: dict[str, Any], meta: dict[str, Any]) -> str:
    """The figure's address in the published book, or "local build (...)" without a configured URL."""
    if not meta["url"]:
        return f"{publish.LOCAL} (no published URL configured)"
    return f"{meta['url']}reference/figures.html#gallery-{entry['id']}"


def _sentence(text: object) -> str:
    t = " ".join(str(text).split())
    return t if not t or t[-1] in ".!?" else t + "."


def cite_text(entry: dict[str, Any], meta: dict[str, Any]) -> str:
    """The citation as one line of plain text (shown in a code block, to copy as it is)."""
    return _fence_safe(
        f"{meta['authors']} ({meta['year']}). Figure {entry['id']}: {_sentence(entry['title'])} "
        f"{_sentence(entry['caption'])} In: {meta['title']}, version {meta['version']}. "
        f"{permalink(entry, meta)}. Licence: {meta['licence']}."
    )


def _fence_safe(text: object) -> str:
    """Text for a line inside a fenced code block: one line, no backtick that could close it."""
    return " ".join(str(text).split()).replace("`", "'")


def cite_bibtex(entry: dict[str, Any], meta: dict[str, Any]) -> str:
    """The same citation as a BibTeX entry (LaTeX specials escaped, safe inside a code fence)."""
    bib = publish.bib_text
    fid = entry["id"]
    lines = [
        f"@misc{{fig{fid.replace('-', '')},",
        f"  author = {{{{{bib(meta['authors'])}}}}},",
        f"  title = {{{{Figure {fid}: {bib(entry['title'])}}}}},",
        f"  howpublished = {{Figure {fid} in: {bib(meta['title'])}, version {bib(meta['version'])}}},",
        f"  year = {{{meta['year']}}},",
        f"  version = {{{bib(meta['version'])}}},",
    ]
    if meta["url"]:
        lines.append(f"  url = {{{permalink(entry, meta)}}},")
    lines += [f"  note = {{{publish.bib_note(_sentence(entry['caption']), meta)}}},", "}"]
    return "\n".join(("  " if line.startswith("  ") else "") + _fence_safe(line) for line in lines)


def write_page(path: Path, figures_dir: Path | None = None) -> None:
    """Write the gallery page (MyST markdown) for the figures in `figures_dir`."""
    folder = figures_dir or STAGE / "figures"
    entries = registry(folder)
    for e in entries:  # figures.save makes the thumbnails; make any that are missing
        if not (folder / "thumbs" / f"{e['id']}.png").exists():
            thumbnail(folder / f"{e['id']}.png", folder / "thumbs" / f"{e['id']}.png")
    meta = publish.book_meta()
    titles = chapter_titles()
    lines = ["# Figures", "",
             "Every figure in the book, grouped by chapter, with its files and how to cite it. "
             "The figures are regenerated on every build from the notebooks named below; "
             "the talk versions (16:9, large type, with a footer naming the sources, the licence, the book's "
             "address and the figure id) come from `make figures STYLE=talk`. "
             f"Every figure is licensed under [{meta['licence']}]({meta['licence_url']}): reuse it, in a talk "
             "too, with the citation given under it.", ""]
    if not entries:
        lines.append("No figures have been built yet.")
    by_chapter: dict[str, list[dict[str, Any]]] = {}
    for e in entries:
        by_chapter.setdefault(e["chapter"], []).append(e)
    for chapter in sorted(by_chapter, key=lambda c: titles.get(c, c)):
        lines += [f"## {md_text(titles.get(chapter, chapter))}", ""]
        for e in by_chapter[chapter]:
            fid = e["id"]
            papers = ", ".join(f"{{cite:t}}`{k}`" for k in e["sources"]) or "none"
            lines += [
                f"(gallery-{fid})=", f"### {md_text(e['title'])}", "",
                f"```{{image}} ../figures/thumbs/{fid}.png", f":alt: {_fence_safe(e['alt'])}", ":width: 360px",
                ":loading: lazy", "```", "",
                md_text(e["caption"]), "",
                f"**Id** `{fid}` · **Files** {{download}}`SVG <../figures/{fid}.svg>` · "
                f"{{download}}`PNG <../figures/{fid}.png>` · {{download}}`PDF <../figures/{fid}.pdf>` · "
                f"**Made by** {md_text(e['notebook'])}", "",
                f"**Papers** {papers}"
                + (f" · **Other sources** {md_text(e['source_note'])}" if e["source_note"] else ""), "",
                f"**Licence** [{meta['licence']}]({meta['licence_url']}), attribution as in the citation below", "",
                "````{dropdown} Cite this figure", "```text", cite_text(e, meta), "```", "",
                "```bibtex", cite_bibtex(e, meta), "```",
                "````", "",
            ]
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "\n".join(lines) + "\n"
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")
