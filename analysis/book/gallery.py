"""The "Figures" page: every registered figure with downloads, its licence and a citation block.

Chapters come in the book's order (``_toc.yml``). Each figure is shown 640 px wide (a WebP, ``figures/
gallery/<id>.webp``, light enough for the page, made by the notebook that draws the figure, or here when it is
missing or older than the figure's PNG) and links to its full-size PNG; its
talk version (16:9, large type, attribution footer: ``figures/talk/<id>-talk.*``) and its PDF are offered
for download next to the book's files where they have been made (``make figures``, ``make publish``:
analysis/book/figure_files.py; staged by analysis/book/build.py).

The citation (plain text and BibTeX) names the authors, the book's title, version and year (from
CITATION.cff), the figure's id, title and caption, its permalink (the configured BOOK_URL plus the
figure's anchor; "local build" without one) and the licence (analysis/book/publish.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from analysis.book import publish
from analysis.data.markup import md_text
from analysis.data.paths import ROOT, STAGE
from analysis.plot.figures import GALLERY_WIDTH_PX, gallery_image, registry  # noqa: F401 (re-exported)

# A figure drawn from more papers than this (the claims ledger's figures) names how many and links its
# metadata file with the list, rather than citing each: at ten times the corpus the cited lists alone
# made this page 4.4 MB (bench/book_scale.py). Each paper is still cited in the chapter that shows it.
MAX_CITED_SOURCES = 12


def chapter_order() -> list[str]:
    """The chapters' ids (``chapters/<id>`` in ``_toc.yml``) in the order the book shows them."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    order: list[str] = []

    def walk(items: list[dict[str, Any]]) -> None:
        for item in items:
            f = str(item.get("file", ""))
            if f.startswith("chapters/"):
                order.append(f.removeprefix("chapters/"))
            for key in ("parts", "chapters", "sections"):
                walk(item.get(key) or [])

    walk([toc])
    return order


def chapter_titles() -> dict[str, str]:
    """Each chapter's title as the book's navigation shows it: the first heading of chapters/<id>.md
    (for a theme without its chapter file yet, the theme's title from data/themes.yml)."""
    from analysis.data import papers

    th = papers.themes()
    titles = dict(zip(th["chapter"], th["title"], strict=True))
    for md in sorted((ROOT / "chapters").glob("*.md")):
        for line in md.read_text(encoding="utf-8").splitlines():
            if line.startswith("# "):
                titles[md.stem] = line[2:].strip()
                break
    return titles


def permalink(entry: dict[str, Any], meta: dict[str, Any]) -> str:
    """The figure's address in the published book, or "local build (...)" without a configured URL."""
    if not meta["url"]:
        return f"{publish.LOCAL} (no published URL configured)"
    return f"{meta['url']}reference/figures.html#gallery-{entry['id']}"


def _sentence(text: object) -> str:
    t = " ".join(str(text).split())
    return t if not t or t[-1] in ".!?" else t + "."


def paper_list(entry: dict[str, Any]) -> str:
    """The papers a figure draws on: cited one by one, or counted with a link to the figure's metadata."""
    keys = entry["sources"]
    if not keys:
        return "none"
    if len(keys) <= MAX_CITED_SOURCES:
        return ", ".join(f"{{cite:t}}`{k}`" for k in keys)
    return (f"{len(keys)} papers of the corpus, listed by citekey in the figure's metadata "
            f"({{download}}`JSON <../figures/{entry['id']}.json>`)")


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
    lines = publish.bibtex_misc(
        f"fig{fid.replace('-', '')}", title=f"Figure {fid}: {bib(entry['title'])}", meta=meta,
        howpublished=f"Figure {fid} in: {bib(meta['title'])}, version {bib(meta['version'])}",
        url=permalink(entry, meta) if meta["url"] else "", note=publish.bib_note(_sentence(entry["caption"]), meta))
    return "\n".join(("  " if line.startswith("  ") else "") + _fence_safe(line) for line in lines)


def write_page(path: Path, figures_dir: Path | None = None) -> None:
    """Write the gallery page (MyST markdown) for the figures in `figures_dir`.

    Talk versions are linked where ``<figures_dir>/talk/<id>-talk.png`` exists (the HTML build stages them).
    """
    folder = figures_dir or STAGE / "figures"
    entries = registry(folder)
    for e in entries:
        src, img = folder / f"{e['id']}.png", folder / "gallery" / f"{e['id']}.webp"
        if not img.exists() or img.stat().st_mtime < src.stat().st_mtime:
            gallery_image(src, img)
    meta = publish.book_meta()
    titles = chapter_titles()
    rank = {c: i for i, c in enumerate(chapter_order())}
    lines = ["# Figures", "",
             "Every figure in the book, grouped by chapter in the book's order, with its files and how to cite "
             "it. Select a figure to open it full size. The figures are regenerated on every build from the "
             "notebooks named below. Each also comes in a talk version for slides (16:9, large type, with a "
             "footer naming the sources, the licence, the book's address and the figure id) and as a PDF, "
             "made from the same drawing on request (`make figures`; the published book has them all). "
             f"Every figure is licensed under [{meta['licence']}]({meta['licence_url']}): reuse it, in a talk "
             "too, with the citation given under it.", ""]
    if not entries:
        lines.append("No figures have been built yet.")
    by_chapter: dict[str, list[dict[str, Any]]] = {}
    for e in entries:
        by_chapter.setdefault(e["chapter"], []).append(e)
    for chapter in sorted(by_chapter, key=lambda c: (rank.get(c, len(rank)), titles.get(c, c))):
        lines += [f"## {md_text(titles.get(chapter, chapter))}", ""]
        for e in by_chapter[chapter]:
            fid = e["id"]
            papers = paper_list(e)
            talk = folder / "talk"
            talk_files = " · ".join(f"{{download}}`{ext.upper()} <../figures/talk/{fid}-talk.{ext}>`"
                                    for ext in ("png", "svg", "pdf") if (talk / f"{fid}-talk.{ext}").exists())
            lines += [
                f"(gallery-{fid})=", f"### {md_text(e['title'])}", "",
                # the image links to the full-size PNG (a download link whose `download` attribute
                # analysis/book/reader.py drops, so the browser opens it)
                "```{container} gallery-figure", f"[![{md_text(e['alt'])}](../figures/gallery/{fid}.webp)]"
                f"(../figures/{fid}.png)", "```", "",
                md_text(e["caption"]), "",
                f"**Id** `{fid}` · **Files** {{download}}`SVG <../figures/{fid}.svg>` · "
                f"{{download}}`PNG <../figures/{fid}.png>`"
                # the PDF is made on request (make figures, make publish: analysis/book/figure_files.py)
                + (f" · {{download}}`PDF <../figures/{fid}.pdf>`" if (folder / f"{fid}.pdf").exists() else "")
                + (f" · **Talk version** {talk_files}" if talk_files else "")
                + f" · **Made by** {md_text(e['notebook'])}", "",
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
