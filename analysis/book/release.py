"""Versions of the book: `make release VERSION=x.y.z` and the generated "What changed" page (issue 35).

A release keeps, in ``data/releases/<version>/``, the numbers of the build it was made from (``numbers.csv``:
every glued fact's key, value, range, unit and the pages that paste it; from the build's
``outputs/numbers.csv``) and the citekeys of its papers (``papers.txt``); it bumps ``version`` and
``date-released`` in CITATION.cff and snapshots every bibliography label (``data/releases/published-labels.csv``,
:func:`analysis.book.bibliography.write_published_labels`) so that no published label changes later, except
through a recorded row of ``data/releases/label-changes.csv`` (old label, new label, date, reason, source; the
release stamps its version into the rows it first prints: ``released_in``). A release is refused while a
printed label differs from its published one without such a row.

The "What changed" page compares the current build's numbers and papers with the newest kept release (so
between releases it shows what an unreleased update has changed so far); a build that is that release itself
(nothing added, nothing moved, no unreleased label change) is compared as the release, with the one before it.
It lists the papers added (and removed), the recorded label changes that release had not printed (was -> now,
why), and every glued finding whose value moved, old -> new, with the chapter that pastes it.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import math
import re
from pathlib import Path

from analysis.data.paths import DATA, ROOT, DataError

RELEASES = DATA / "releases"
CITATION = ROOT / "CITATION.cff"
KEPT = ["key", "citekey", "quantity", "value", "low", "high", "unit", "pages"]
VERSION = re.compile(r"^\d+\.\d+\.\d+$")


def _version_key(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in v.split("."))


def releases(folder: Path | None = None) -> list[str]:
    """The kept releases' versions, oldest first."""
    folder = folder or RELEASES
    if not folder.is_dir():
        return []
    found = [p.name for p in folder.iterdir() if p.is_dir() and VERSION.match(p.name) and (p / "numbers.csv").is_file()]
    return sorted(found, key=_version_key)


def citation_version(path: Path | None = None) -> str:
    m = re.search(r'^version:\s*"?([^"\n]+)"?\s*$', (path or CITATION).read_text(encoding="utf-8"), flags=re.M)
    return m.group(1).strip() if m else ""


def read_numbers(path: Path) -> dict[str, dict[str, str]]:
    """key -> row of a numbers.csv (rows without a key, the notes of an extreme, left out)."""
    with path.open(encoding="utf-8", newline="") as fh:
        return {r["key"]: r for r in csv.DictReader(fh) if r.get("key")}


def _same(a: str, b: str) -> bool:
    if a == b:
        return True
    try:
        x, y = float(a), float(b)
    except ValueError:
        return False
    return math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12)


def _shown(r: dict[str, str]) -> str:
    def num(s: str) -> str:
        try:
            return f"{float(s):.4g}"
        except ValueError:
            return s

    value = num(r["value"]) if r.get("value") else f"{num(r.get('low', ''))}–{num(r.get('high', ''))}"
    return f"{value} {r.get('unit', '')}".strip()


def _same_meaning(old: dict[str, dict[str, str]], new: dict[str, dict[str, str]]) -> list[tuple[str, str]]:
    """Pairs (old key, new key) of a finding whose key changed but not its meaning: a key only one side has,
    matched by citekey, quantity and unit when exactly one key on each side has them (a key also holds the
    assumptions' wording, which an analysis may reword)."""
    def meaning(r: dict[str, str]) -> tuple[str, str, str]:
        return r.get("citekey", ""), r.get("quantity", ""), r.get("unit", "")

    gone = [k for k in old if k not in new]
    came = [k for k in new if k not in old]
    out = []
    for k in gone:
        twins = [n for n in came if meaning(new[n]) == meaning(old[k])]
        if len(twins) == 1 and sum(meaning(old[g]) == meaning(old[k]) for g in gone) == 1:
            out.append((k, twins[0]))
    return out


def moved(old: dict[str, dict[str, str]], new: dict[str, dict[str, str]]) -> list[tuple[str, str, str, str]]:
    """(key, old value, new value, pages) of every finding in both whose value or range changed (a finding
    whose key was reworded is followed: :func:`_same_meaning`)."""
    pairs = [(k, k) for k in sorted(old.keys() & new.keys())] + _same_meaning(old, new)
    out = []
    for ko, kn in sorted(pairs, key=lambda p: p[1]):
        a, b = old[ko], new[kn]
        if not all(_same(a.get(c, ""), b.get(c, "")) for c in ("value", "low", "high")):
            out.append((kn, _shown(a), _shown(b), b.get("pages", "") or a.get("pages", "")))
    return out


def _cell(text: str) -> str:
    from analysis.data.markup import md_text

    return md_text(text)


def _chapters(pages: str) -> str:
    names = [Path(p).stem for p in pages.split(";") if p.strip()]
    return ", ".join(f"{{doc}}`{n} <../chapters/{n}>`" if (ROOT / "chapters" / f"{n}.md").is_file() else _cell(n)
                     for n in dict.fromkeys(names))


def relabelled(since: str | None, folder: Path | None = None) -> list[dict[str, str]]:
    """The recorded changes of published bibliography labels (data/releases/label-changes.csv, beside the
    snapshot in `folder`) that a build compared with release `since` shows: those not yet released and those
    first released after `since`, in the order they happened."""
    from analysis.book import bibliography

    df = bibliography.label_changes((folder or RELEASES) / bibliography.PUBLISHED_LABELS.name)
    rows = []
    for _, r in df.iterrows():
        rel = r["released_in"]
        if rel is None or rel != rel or since is None or _version_key(str(rel)) > _version_key(since):
            rows.append({str(k): "" if v is None or v != v else str(v) for k, v in r.items()})
    return rows


def changes_markdown(old_numbers: dict[str, dict[str, str]], new_numbers: dict[str, dict[str, str]],
                     old_papers: list[str], new_papers: list[str], since: str, current: str,
                     labels: list[dict[str, str]] | None = None) -> str:
    """The body of the "What changed" page (MyST); `labels` are the recorded label changes to list
    (:func:`relabelled`)."""
    added = sorted(set(new_papers) - set(old_papers))
    removed = sorted(set(old_papers) - set(new_papers))
    lines = [f"Compared with release {since}; this build's CITATION.cff names version {current}.", ""]
    lines += [f"**Papers added ({len(added)}).** "
              + (", ".join(f"{{cite:t}}`{k}`" for k in added) if added else "none") + ".", ""]
    if removed:
        lines += [f"**Papers removed ({len(removed)}).** " + ", ".join(_cell(k) for k in removed) + ".", ""]
    labels = labels or []
    lines += [f"**Bibliography labels changed ({len(labels)}).** A published author–year label changes only "
              "through a recorded correction (`data/releases/label-changes.csv`); a citation of the old label "
              "names the entry below." + ("" if labels else " None."), ""]
    if labels:
        lines += ["| entry (citekey) | was | now | why | recorded | source |", "|---|---|---|---|---|---|"]
        lines += [f"| {_cell(r['citekey'])} | {_cell(r['old_label'])} | {_cell(r['new_label'])} | "
                  f"{_cell(r['reason'])} | {_cell(r['date'])} | {_cell(r['source'])} |" for r in labels]
        lines += [""]
    rows = moved(old_numbers, new_numbers)
    lines += [f"**Findings whose value moved ({len(rows)}).** Every glued number of the book, by its fact key, "
              "whose value or range differs from the release's; new and retired keys are not listed.", ""]
    if rows:
        lines += ["| finding (fact key) | was | now | chapter |", "|---|---|---|---|"]
        lines += [f"| {_cell(k)} | {_cell(a)} | {_cell(b)} | {_chapters(p)} |" for k, a, b, p in rows]
    return "\n".join(lines) + "\n"


def write_changes(book: Path, folder: Path | None = None) -> Path:
    """Write ``outputs/changes.md`` of the staged book (after ``outputs/numbers.csv``): this build against the
    newest kept release; when this build is that release itself (nothing added, nothing moved), that release
    against the one before it."""
    from analysis.data import papers

    folder = folder or RELEASES
    out = book / "outputs" / "changes.md"
    kept = releases(folder)
    current = citation_version()
    now_numbers = read_numbers(book / "outputs" / "numbers.csv")
    now_papers = list(papers.load()["citekey"])
    text = (f"This build is release {current}, the first kept in `data/releases/`: nothing earlier to compare "
            "with.\n" if kept else "No release is kept in `data/releases/` yet: nothing to compare with.\n")
    for since in reversed(kept):
        base = folder / since
        listed = base / "papers.txt"
        old_papers = listed.read_text(encoding="utf-8").split() if listed.is_file() else []
        old_numbers = read_numbers(base / "numbers.csv")
        labels = relabelled(since, folder)
        unchanged = (set(old_papers) == set(now_papers) and not moved(old_numbers, now_numbers)
                     and all(r["released_in"] for r in labels))
        if unchanged and since == current:
            now_numbers, now_papers = old_numbers, old_papers  # this build is the release: show its own changes
            continue
        text = changes_markdown(old_numbers, now_numbers, old_papers, now_papers, since, current, labels)
        break
    out.parent.mkdir(parents=True, exist_ok=True)
    if not out.is_file() or out.read_text(encoding="utf-8") != text:
        out.write_text(text, encoding="utf-8")
    return out


def keep(version: str, numbers: Path, folder: Path | None = None) -> Path:
    """Keep this build's numbers and paper list as release `version` (the columns of :data:`KEPT`)."""
    from analysis.data import papers

    target = (folder or RELEASES) / version
    target.mkdir(parents=True, exist_ok=True)
    with numbers.open(encoding="utf-8", newline="") as fh:
        rows = [r for r in csv.DictReader(fh) if r.get("key")]
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=KEPT, lineterminator="\n", extrasaction="ignore")
    w.writeheader()
    w.writerows(rows)
    (target / "numbers.csv").write_text(buf.getvalue(), encoding="utf-8")
    (target / "papers.txt").write_text("\n".join(sorted(papers.load()["citekey"])) + "\n", encoding="utf-8")
    return target


def bump_citation(version: str, date: dt.date, path: Path | None = None) -> None:
    path = path or CITATION
    text = path.read_text(encoding="utf-8")
    text = re.sub(r'^version:.*$', f'version: "{version}"', text, count=1, flags=re.M)
    text = re.sub(r'^date-released:.*$', f'date-released: "{date.isoformat()}"', text, count=1, flags=re.M)
    path.write_text(text, encoding="utf-8")


def stamp_label_changes(version: str, folder: Path | None = None) -> int:
    """Fill the empty ``released_in`` of data/releases/label-changes.csv (in `folder`) with `version`, the release
    that first prints those labels; returns how many rows were stamped."""
    from analysis.book import bibliography
    from analysis.data import review_files

    path = (folder or RELEASES) / bibliography.LABEL_CHANGES
    header, rows = review_files.read_table(path)
    stamped = 0
    for r in rows:
        if not r.get("released_in"):
            r["released_in"] = version
            stamped += 1
    if stamped:
        review_files.write_table(path, header, rows)
    return stamped


def release(version: str, numbers: Path, date: dt.date | None = None) -> list[str]:
    """`make release VERSION=x.y.z`: keep the numbers, bump CITATION.cff, snapshot the labels."""
    from analysis.book import bibliography

    if not VERSION.match(version or ""):
        raise DataError(f"VERSION={version!r}: expected x.y.z (e.g. 1.1.0)")
    kept = releases()
    if kept and _version_key(version) <= _version_key(kept[-1]):
        raise DataError(f"VERSION={version}: not newer than the last kept release {kept[-1]}")
    if not numbers.is_file():
        raise DataError(f"{numbers}: no numbers of a build to keep (run `make book` first)")
    problems = bibliography.unexplained_labels(bibliography.labels_now())
    if problems:
        raise DataError("a published bibliography label changed without a recorded reason:\n" + "\n".join(problems))
    target = keep(version, numbers)
    bump_citation(version, date or dt.date.today())
    n = bibliography.write_published_labels()
    stamp_label_changes(version)
    return [f"release {version}: numbers kept in {target.relative_to(ROOT)}, CITATION.cff bumped, "
            f"{n} bibliography labels snapshot in {bibliography.PUBLISHED_LABELS.relative_to(ROOT)}",
            "next: `make book` (the What changed page compares with the previous release), then commit"]
