"""The "Figures" page: every registered figure with downloads and a citation block."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from analysis.book.figures import registry, thumbnail
from analysis.data.markup import md_text
from analysis.data.paths import ROOT, STAGE


def _book_meta() -> dict[str, Any]:
    cfg = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    return {
        "title": cfg.get("title", ""),
        "url": (cfg.get("html") or {}).get("baseurl", ""),
        "version": (cfg.get("sphinx", {}).get("config", {}) or {}).get("version", ""),
    }


def chapter_titles() -> dict[str, str]:
    themes = yaml.safe_load((ROOT / "data" / "themes.yml").read_text(encoding="utf-8"))["themes"]
    titles = {t["chapter"]: t["title"] for t in themes}
    titles.update({"methods": "Methods: hardware-cost models", "corpus": "How this review was made",
                   "claims": "Do the numbers add up?", "synthesis": "Synthesis"})
    return titles


def cite_text(entry: dict[str, Any], meta: dict[str, Any]) -> str:
    """The citation as MyST text (every part from a file is escaped)."""
    return md_text(f"{meta['title']}, figure {entry['id']} ({entry['title']}), version {meta['version']}. "
                   f"{meta['url']}reference/figures.html#gallery-{entry['id']}")


def _fence_safe(text: object) -> str:
    """Text for a line inside a fenced code block: one line, no backtick that could close it."""
    return " ".join(str(text).split()).replace("`", "'")


def cite_bibtex(entry: dict[str, Any], meta: dict[str, Any]) -> str:
    entry = {k: _fence_safe(v) if isinstance(v, str) else v for k, v in entry.items()}
    meta = {k: _fence_safe(v) for k, v in meta.items()}
    key = "fig" + entry["id"].replace("-", "")
    return "\n".join([
        f"@misc{{{key},",
        f"  title = {{{{{entry['title']}}}}},",
        f"  howpublished = {{Figure {entry['id']} in: {meta['title']}}},",
        f"  note = {{Version {meta['version']}}},",
        f"  url = {{{meta['url']}reference/figures.html#gallery-{entry['id']}}}",
        "}",
    ])


def write_page(path: Path, figures_dir: Path | None = None) -> None:
    """Write the gallery page (MyST markdown) for the figures in `figures_dir`."""
    folder = figures_dir or STAGE / "figures"
    entries = registry(folder)
    for e in entries:  # figures.save makes the thumbnails; make any that are missing
        if not (folder / "thumbs" / f"{e['id']}.png").exists():
            thumbnail(folder / f"{e['id']}.png", folder / "thumbs" / f"{e['id']}.png")
    meta = _book_meta()
    titles = chapter_titles()
    lines = ["# Figures", "",
             "Every figure in the book, grouped by chapter, with its files and how to cite it. "
             "The figures are regenerated on every build from the notebooks named below; "
             "the talk versions (16:9, large type) come from `make figures STYLE=talk`.", ""]
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
                "````{dropdown} Cite this figure", cite_text(e, meta), "", "```bibtex", cite_bibtex(e, meta), "```",
                "````", "",
            ]
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "\n".join(lines) + "\n"
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")
