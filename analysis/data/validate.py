"""Validate every file in data/ (schemas and cross-file references).

The core files are listed in CHECKS. A module of a theme or of the audit that owns another
data file declares it with a module-level ``DATA_FILES = {"name.csv": loader}``, where the
loader validates the file and returns a one-line description; the command line passes those
packages to :func:`all_checks` (this layer imports nothing above it). Every file in data/ must
be covered by one of the two.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from types import ModuleType

from analysis.data import paths
from analysis.data.paths import DATA, DataError


def _hardware() -> str:
    from analysis.data import hardware

    return f"{len(hardware.load())} accelerators"


def _themes() -> str:
    from analysis.data import papers

    return f"{len(papers.themes())} themes"


def _papers() -> str:
    from analysis.data import corpus, papers

    df = papers.load()
    rows = list(zip(df["citekey"], df["fingerprint"], df["source_records"], strict=True))
    # the paper table and the seed files agree: one clear message, before any notebook runs
    return f"{len(df)} papers; {corpus.check_coverage(rows)}"


def _assumptions() -> str:
    from analysis.data import assumptions

    assumptions.check_price_rule()
    return f"{len(assumptions.load())} assumptions"


def _claims() -> str:
    from analysis.data import claims

    return f"{len(claims.load())} claims; {claims.check_evidence()}"


def _outside() -> str:
    from analysis.data import outside

    df = outside.load()
    return f"{len(df)} works outside the corpus (coverage gaps; not counted as papers)"


def _second_coding() -> str:
    from analysis.data import second_coding

    return f"{len(second_coding.load_second())} claims coded a second time, blind"


def _coding_review() -> str:
    from analysis.data import second_coding

    df = second_coding.load_review()
    open_ = int(df["decision"].isna().sum())
    return (f"{len(df)} field codings compared; {int((df['decision'] != 'agreed').sum())} disagreements, "
            f"{open_} not yet resolved")


CHECKS: dict[str, Callable[[], str]] = {
    "themes.yml": _themes,
    "hardware.csv": _hardware,
    "assumptions.yml": _assumptions,
    "papers.csv": _papers,
    "claims.csv": _claims,
    "outside-corpus.csv": _outside,
    "claims-second-coding.csv": _second_coding,
    "claims-coding-review.csv": _coding_review,
}

IGNORED = {"README.md"}


def declares_data_files(source: str) -> bool:
    """Whether a module's source assigns ``DATA_FILES`` at its top level (read, not run)."""
    for node in ast.parse(source).body:
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        if any(isinstance(t, ast.Name) and t.id == "DATA_FILES" for t in targets):
            return True
    return False


def data_owners(packages: Iterable[ModuleType]) -> Iterator[ModuleType]:
    """The modules of `packages` that declare ``DATA_FILES``, found by reading their source: only those are
    imported, so validation never imports a module that draws figures (matplotlib) for nothing."""
    for pkg in packages:
        for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
            path = Path(pkg.__path__[0]) / f"{info.name}.py"
            if info.name.startswith("_") or not path.is_file():
                continue
            if declares_data_files(path.read_text(encoding="utf-8")):
                yield importlib.import_module(f"{pkg.__name__}.{info.name}")


def all_checks(packages: Iterable[ModuleType] = ()) -> dict[str, Callable[[], str]]:
    """CHECKS plus the DATA_FILES that the modules of `packages` declare."""
    out = dict(CHECKS)
    for mod in data_owners(packages):
        for name, fn in mod.DATA_FILES.items():
            if name in out:
                raise ValueError(f"data/{name} is declared twice ({mod.__name__})")
            out[name] = fn
    return out


# The packages whose modules own data files (the themes, the audit): this layer cannot import them, so the
# layer that can (the command line, analysis.book.cli) hands them over once, for the validations that run
# inside the data layer (make accept's check of the merged copy, validate_folder).
_OWNERS: list[ModuleType] = []


def use_owners(packages: Iterable[ModuleType]) -> None:
    """Register the packages whose modules declare DATA_FILES (see :func:`validate_folder`)."""
    _OWNERS[:] = list(packages)


def import_loaders(packages: Iterable[ModuleType]) -> None:
    """Import every module validation reads data with (the core loaders, the owners of data files in
    `packages`), so that none is first imported while :func:`analysis.data.paths.data_folder` moves DATA."""
    all_checks(packages)
    for name in ("assumptions", "claims", "corpus", "hardware", "outside", "papers", "second_coding"):
        importlib.import_module(f"analysis.data.{name}")


def validate_folder(folder: Path, packages: Iterable[ModuleType] | None = None, *, seeds: Path | None = None,
                    pending: Path | None = None) -> list[str]:
    """Validate the data folder `folder` (a staged copy of data/) in this process, as ``python -m analysis
    validate`` with ``ANALYSIS_DATA_DIR=folder`` would: the core files and those the modules of `packages`
    (default: the registered ones, :func:`use_owners`) declare, against the seed folder `seeds`; the papers
    whose fingerprints the file `pending` lists may still lack their row. Raises DataError naming `folder`'s
    file, row and column."""
    owners = list(_OWNERS if packages is None else packages)
    if not owners:
        raise ValueError("validate_folder: no packages that own data files were given or registered "
                         "(analysis.book.cli registers the themes and the audit: validate.use_owners)")
    import_loaders(owners)
    env = {"SEEDS_DIR": str(seeds)} if seeds else {}
    if pending:
        env["ANALYSIS_PENDING_FINGERPRINTS"] = str(pending)
    with paths.data_folder(folder, **env):
        return list(validate_all(owners))


def validate_all(packages: Iterable[ModuleType] = ()) -> Iterator[str]:
    """Validate every data file (the core ones and those the modules of `packages` declare); raise
    DataError on the first bad one or an unvalidated file."""
    checks = all_checks(packages)
    if (DATA / ".accept-journal.json").exists():
        raise DataError(f"{DATA / '.accept-journal.json'}: a make accept stopped half-way; run `make accept` "
                        "again: it puts data/ back as it was before, then stops")
    for name, fn in checks.items():
        if not (DATA / name).exists():
            raise DataError(f"{DATA / name}: required data file is missing")
        yield f"ok  data/{name}: {fn()}"
    extra = sorted(p.name for p in DATA.iterdir() if p.is_file() and p.name not in checks and p.name not in IGNORED)
    if extra:
        raise DataError(f"{DATA}: no validation declared for {', '.join(extra)} (add it to DATA_FILES)")
    yield f"ok  {cross_checks(sorted(n for n in checks if n.endswith('.csv')), set(CHECKS))}"


_LINK = re.compile(r"^(?:https?://|10\.\d{4,9}/)[^\s{}\[\]()<>\"'\\^`|]+$")
"""A URL or DOI as the book writes it into BibTeX, Markdown links and HTML attributes, unescaped."""


def cross_checks(names: list[str], core: set[str]) -> str:
    """Every citekey of every data table names a paper of data/papers.csv or a work of data/outside-corpus.csv,
    no theme table is a header without rows, and every link (a ``url``, ``doi`` or ``*_url`` column) has none of
    the characters that would end a BibTeX field or a Markdown link early: refused here, naming file, row and
    column, rather than by Sphinx (an unknown bibliography key) or a notebook (an empty table) a minute later."""
    import pandas as pd

    from analysis.data import outside, papers
    from analysis.data.paths import data_file
    from analysis.data.tables import fail_rows

    known = set(papers.load()["citekey"]) | set(outside.load()["citekey"])
    n_keys = 0
    for name in names:
        path = data_file(name)
        raw = pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8")
        if raw.empty and name not in core:
            raise DataError(f"{path}: the table has a header but no rows (its chapter needs them)")
        for col in [c for c in raw.columns if c in ("url", "doi") or c.endswith("_url")]:
            links = raw[col].map(lambda v: [u.strip() for u in v.split(" ; ") if u.strip()])
            fail_rows(path, raw, links.map(lambda us: any(not _LINK.match(u) for u in us)), col,
                      "a link with a space, a brace, a quote, a bracket or a parenthesis (it would break the "
                      "bibliography or a Markdown link); several links are separated by ' ; '")
        for col in [c for c in raw.columns if c == "citekey" or c.endswith("_citekey")]:
            keys = raw[col].map(lambda v: [k.strip() for k in v.split(";") if k.strip()])
            n_keys += int(keys.map(len).sum())
            fail_rows(path, raw, keys.map(lambda ks: any(k not in known for k in ks)), col,
                      "unknown citekey (not in data/papers.csv or data/outside-corpus.csv)")
    return f"cross-file: {n_keys} citekeys in {len(names)} tables name known papers or works"
