"""Publishing: the book's citation (CITATION.cff), its one configured URL, licences, sharing metadata.

The published URL is configured once, as ``BOOK_URL`` (docs/publishing.md). make hands
its raw text to Python as ``$ANALYSIS_BOOK_URL`` (no shell sees it); run directly, Python reads
``$BOOK_URL``. Cite blocks, canonical links, Open Graph URLs, the sitemap, the published copy of
CITATION.cff and the talk figures' footers derive from it. Without it a build is a *local build*:
cite blocks say so and no page names a host. A placeholder host (example.org) is refused.

Also here: a small Sphinx extension that gives a page's Open Graph card the thumbnail of the first
figure on it. (The CI cache check is in :mod:`analysis.book.ci_cache`.)
"""

from __future__ import annotations

import copy
import json
import os
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

from analysis.data.paths import ROOT

CITATION = ROOT / "CITATION.cff"
# The Citation File Format 1.2.0 schema (CC BY 4.0, citation-file-format.github.io), copied from
# the cffconvert 2.0.0 wheel (cffconvert/schemas/1.2.0/schema.json)
CFF_SCHEMA = ROOT / "tests" / "fixtures" / "cff-schema-1.2.0.json"
LOCAL = "local build"
# SPDX id -> (name shown in cite blocks and figure footers, licence deed)
LICENCES = {
    "CC-BY-4.0": ("CC BY 4.0", "https://creativecommons.org/licenses/by/4.0/"),
    "MIT": ("MIT", "https://opensource.org/license/mit"),
}
LICENCE_FILES = {"CC-BY-4.0": "LICENSE-CC-BY-4.0", "MIT": "LICENSE"}
# names reserved for examples and tests (RFC 2606, RFC 6761): never the address of a real book
PLACEHOLDER_DOMAINS = ("example.org", "example.com", "example.net", "example.edu", "localhost")
PLACEHOLDER_TLDS = ("example", "invalid", "test", "localhost", "local")
_URL_TEXT = re.compile(r"^[A-Za-z0-9._~/%:-]+$")
URL_HELP = "e.g. make publish BOOK_URL=https://<owner>.github.io/<repository>/"


class PublishError(ValueError):
    """A configured URL or the citation file is unusable; the message says why."""


# --- the one URL ---------------------------------------------------------------------------------

def configured_url() -> str:
    """The raw text of the configured URL ("" if none)."""
    if "ANALYSIS_BOOK_URL" in os.environ:  # set (maybe empty) by make from BOOK_URL
        return os.environ["ANALYSIS_BOOK_URL"]
    return os.environ.get("BOOK_URL", "")


def check_url(raw: str, *, required: bool = False) -> str:
    """The published URL, normalised to ``https://host/path/``; "" for a local build.

    Refuses anything but a plain https address of a real host: no placeholder (example.org,
    localhost, .test ...), no query, fragment, user or character outside ``A-Za-z0-9._~/%:-``
    (the URL is pasted into HTML, BibTeX, YAML, MyST and SVG as it is).
    """
    if raw == "":
        if required:
            raise PublishError(f"BOOK_URL is not set: publishing needs the address the book is served at ({URL_HELP})")
        return ""
    shown = raw if len(raw) <= 80 else raw[:77] + "..."
    if len(raw) > 200 or not _URL_TEXT.match(raw):
        raise PublishError(f"BOOK_URL {shown!r}: use only letters, digits and . _ ~ / % : - ({URL_HELP})")
    parts = urlsplit(raw)
    if parts.scheme != "https" or not parts.hostname:
        raise PublishError(f"BOOK_URL {shown!r}: expected an https:// address ({URL_HELP})")
    try:
        port = parts.port  # a port outside 0-65535 raises
    except ValueError:
        raise PublishError(f"BOOK_URL {shown!r}: the port is not a number from 1 to 65535 ({URL_HELP})") from None
    if port == 0:
        raise PublishError(f"BOOK_URL {shown!r}: the port is not a number from 1 to 65535 ({URL_HELP})")
    if any(seg in (".", "..") for seg in parts.path.split("/")):
        raise PublishError(f"BOOK_URL {shown!r}: a path with '.' or '..' segments ({URL_HELP})")
    # checked after normalisation: "example.org." is the host example.org
    host = parts.hostname.lower().removesuffix(".")
    labels = host.split(".")
    if "" in labels:
        raise PublishError(f"BOOK_URL {shown!r}: {parts.hostname} is not a host name ({URL_HELP})")
    if (len(labels) < 2 or labels[-1] in PLACEHOLDER_TLDS or labels[-1].isdigit()
            or any(host == d or host.endswith("." + d) for d in PLACEHOLDER_DOMAINS)):
        raise PublishError(f"BOOK_URL {shown!r}: {host} is a placeholder, not the address of a published book "
                           f"({URL_HELP})")
    path = parts.path if parts.path.endswith("/") else parts.path + "/"
    return f"https://{host}{f':{port}' if port else ''}{path}"


def book_url(*, required: bool = False) -> str:
    """The configured published URL, checked and normalised ("" for a local build)."""
    return check_url(configured_url(), required=required)


def short_url(url: str) -> str:
    """The URL as printed on a slide (no scheme, no trailing slash), or "local build"."""
    return url.removeprefix("https://").rstrip("/") if url else LOCAL


def stamp(path: Path, url: str) -> bool:
    """Write the URL to `path` if it differs from what is there (make rebuilds the HTML then)."""
    from analysis.data.paths import write_if_changed

    return write_if_changed(path, (url or LOCAL) + "\n")


# --- the citation ---------------------------------------------------------------------------------

def citation(path: Path = CITATION) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise PublishError(f"{path}: not a YAML mapping")
    return data


def _licence_ids(cff: dict[str, Any]) -> list[str]:
    lic = cff.get("license", [])
    return [lic] if isinstance(lic, str) else list(lic)


def _author_name(author: dict[str, Any]) -> str:
    if author.get("name"):
        return str(author["name"])
    return " ".join(str(author[k]) for k in ("given-names", "name-particle", "family-names") if author.get(k))


def book_meta(url: str | None = None, path: Path = CITATION) -> dict[str, str]:
    """Title, authors, version, date, year, licence (text and figures) and URL of the book."""
    cff = citation(path)
    lic = _licence_ids(cff)[0]
    return {
        "title": str(cff["title"]),
        "authors": "; ".join(_author_name(a) for a in cff["authors"]),
        "version": str(cff["version"]),
        "date": str(cff["date-released"]),
        "year": str(cff["date-released"])[:4],
        "licence": LICENCES[lic][0],
        "licence_url": LICENCES[lic][1],
        "url": book_url() if url is None else url,
    }


def check_citation(path: Path = CITATION) -> list[str]:
    """Problems of the citation file: the CFF 1.2.0 schema, then what the book relies on."""
    import jsonschema

    try:
        cff = citation(path)
    except (OSError, yaml.YAMLError, PublishError) as exc:
        return [f"{path.name}: {exc}"]
    schema = json.loads(CFF_SCHEMA.read_text(encoding="utf-8"))
    validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    problems = [f"{path.name}: {'/'.join(str(p) for p in e.absolute_path) or '(top)'}: {e.message}"
                for e in sorted(validator.iter_errors(cff), key=lambda e: list(map(str, e.absolute_path)))]
    if problems:
        return problems
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    if cff["title"] != config.get("title"):
        problems.append(f"{path.name}: title differs from _config.yml's title {config.get('title')!r}")
    names = [_author_name(a) for a in cff["authors"]]
    if names != [config.get("author")]:
        problems.append(f"{path.name}: authors {names} differ from _config.yml's author {config.get('author')!r}")
    for key in ("version", "date-released", "license"):
        if key not in cff:
            problems.append(f"{path.name}: {key}: missing")
    ids = _licence_ids(cff)
    if not ids or ids[0] != "CC-BY-4.0":
        problems.append(f"{path.name}: license: the first licence (text and figures) must be CC-BY-4.0, got {ids}")
    problems += [f"{path.name}: license {i}: no licence file {LICENCE_FILES.get(i, '?')}" for i in ids
                 if i not in LICENCE_FILES or not (ROOT / LICENCE_FILES[i]).is_file()]
    if "url" in cff:
        problems.append(f"{path.name}: url: the published URL is configured once, as BOOK_URL "
                        "(docs/publishing.md), not here")
    return problems


def bib_text(text: object) -> str:
    """Text for a braced BibTeX value: one line, LaTeX specials escaped, braces balanced."""
    from analysis.data.papers import LATEX_SPECIALS

    return "".join(LATEX_SPECIALS.get(ch, ch) for ch in " ".join(str(text).split()))


def cite_book_text(meta: dict[str, str]) -> str:
    where = meta["url"] or f"{LOCAL} (no published URL configured)"
    return (f"{meta['authors']} ({meta['year']}). {meta['title']}. Version {meta['version']}. {where}. "
            f"Licence: {meta['licence']}.")


def bibtex_misc(key: str, *, title: str, howpublished: str, url: str, note: str, meta: dict[str, str]) -> list[str]:
    """The lines of a BibTeX @misc entry for the book or one of its figures. Authors and title are
    double-braced (kept as written); `title` and `howpublished` must already be escaped (bib_text)."""
    lines = [
        f"@misc{{{key},",
        f"  author = {{{{{bib_text(meta['authors'])}}}}},",
        f"  title = {{{{{title}}}}},",
        f"  howpublished = {{{howpublished}}},",
        f"  year = {{{meta['year']}}},",
        f"  version = {{{bib_text(meta['version'])}}},",
    ]
    if url:
        lines.append(f"  url = {{{url}}},")
    return lines + [f"  note = {{{note}}},", "}"]


def cite_book_bibtex(meta: dict[str, str]) -> str:
    return "\n".join(bibtex_misc(
        f"mlhardwarereview{meta['year']}", title=bib_text(meta["title"]), meta=meta, url=meta["url"],
        howpublished=f"Executable book, version {bib_text(meta['version'])}", note=bib_note("", meta)))


def bib_note(text: str, meta: dict[str, str]) -> str:
    """A BibTeX note: `text` (escaped), the licence, and "local build" when there is no URL."""
    parts = [" ".join(text.split())] if text.strip() else []
    parts.append(f"Licence: {meta['licence']}")
    if not meta["url"]:
        parts.append(f"Unpublished {LOCAL} (no published URL)")
    return " ".join(bib_text(p if p.endswith((".", "!", "?")) else p + ".") for p in parts)


def intro_section(meta: dict[str, str]) -> str:
    """The landing page's "Cite this book" section (MyST), from CITATION.cff and the URL."""
    from analysis.data.markup import md_text

    return "\n".join([
        "", "## Cite this book", "",
        "```text", " ".join(cite_book_text(meta).replace("`", "'").split()), "```", "",
        "```bibtex", cite_book_bibtex(meta).replace("`", "'"), "```", "",
        f"The text and figures are licensed under [{meta['licence']}]({meta['licence_url']}) (attribution: "
        f"{md_text(meta['authors'])}), the code under the MIT licence; third-party data keep their own terms. "
        "Every figure has its own citation and download links on the {doc}`Figures <reference/figures>` page.",
        "",
    ])


def published_cff(url: str) -> str:
    """CITATION.cff as the published book serves it: with its URL when there is one."""
    text = CITATION.read_text(encoding="utf-8")
    return text + (f'url: "{url}"\n' if url else "")


def sphinx_config(config: dict[str, Any], url: str) -> dict[str, Any]:
    """The staged _config.yml: the URL (canonical links, og:url, sitemap) and version from CITATION.cff."""
    cfg = copy.deepcopy(config)
    cfg.setdefault("html", {})["baseurl"] = url
    sc = cfg.setdefault("sphinx", {}).setdefault("config", {})
    version = book_meta(url)["version"]
    sc["version"] = sc["release"] = version
    sc["ogp_site_url"] = url
    sc["ogp_site_name"] = book_meta(url)["title"]
    sc["html_extra_path"] = [*sc.get("html_extra_path", []), "_extra"]
    if url:  # a sitemap lists absolute addresses: only for a published build
        sc["extensions"] = [*sc.get("extensions", []), "sphinx_sitemap"]
        sc["sitemap_url_scheme"] = "{link}"  # no language or version folder in the addresses
        sc["sitemap_excludes"] = ["search.html", "genindex.html"]
    return cfg


# --- Sphinx: a figure on each page's sharing card -------------------------------------------------

def _og_image(app: Any, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    """A page showing a figure gets its thumbnail (staged as _extra/og/<id>.png) as og:image."""
    from docutils import nodes

    url = app.config.ogp_site_url
    if doctree is None or not url:
        return
    meta = context.get("meta") or {}
    if "og:image" in meta:
        return
    for node in doctree.findall(nodes.image):
        stem = Path(node.get("uri", "")).stem
        if (Path(app.srcdir) / "_extra" / "og" / f"{stem}.png").exists():
            meta["og:image"] = f"{url}og/{stem}.png"
            meta["og:image:alt"] = " ".join(str(node.get("alt", "")).split())
            context["meta"] = meta
            return


def setup(app: Any) -> dict[str, Any]:
    app.connect("html-page-context", _og_image, priority=400)  # before sphinxext.opengraph (500)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
