"""The command line, `python -m analysis COMMAND ...` (analysis/__main__.py calls :func:`main`).

  validate                      check every file in data/ against its schema
  ingest [--seeds DIR]          read the seed files: record→paper map and near-duplicate report in _build/corpus/
  update [--seeds DIR] [--review DIR]
                                (make corpus) ingest, then write the update to review: new records, exact and
                                near duplicates, scaffold paper rows (suggested citekey and theme) and
                                candidate claims, all unreviewed, in _build/corpus/; never writes data/
  accept [--review DIR] [--seeds DIR]
                                (make accept) merge the rows marked review=accept into data/papers.csv and
                                data/claims.csv, after validating the merged tables like any data
  identify [--seeds DIR] [--review DIR] [--limit N]
                                look the new abstracts up in arXiv's API (the arxiv package): proposed ID,
                                title, authors, year and similarity, printed and written to
                                _build/corpus/identify.csv (never data/); offline it says so and exits 0
  params NOTEBOOK               list a notebook's parameters (type, default, unit, range, source)
  run NOTEBOOK [-p NAME VALUE] [--pairs "NAME=VALUE ..."]
                                run one notebook with overrides into runs/<date>-<notebook>/
  run --from-env                the same, notebook and pairs from $ANALYSIS_RUN_NOTEBOOK and
                                $ANALYSIS_RUN_PARAMS (what `make run NB=… PARAMS=…` passes: data, never shell)
  execute SRC.md OUT.ipynb      (build) execute a notebook into the book's build folder
          [--figures DIR] [--outputs DIR] [--deps FILE]
  figures [--style talk|book|all]
                                the figures' files made from their kept drawings (no notebook runs): talk
                                versions into _build/talk-figures/, book PDFs beside the SVGs; only what is
                                out of date, one process per core
  html                          (build) stage and build the HTML strictly
  bib                           (build) write references.bib from data/papers.csv
  labels [--fresh]              snapshot every bibliography label as published (data/releases/published-labels.csv),
                                refusing a changed label without a row of data/releases/label-changes.csv;
                                --fresh: assign the suffixes anew (a deliberate relabelling before a release)
  release [--version x.y.z]     (make release VERSION=x.y.z) keep the build's numbers in data/releases/<version>/,
                                bump CITATION.cff, snapshot the labels
  rename-citekey OLD NEW [--review DIR]
                                rename a citekey everywhere: data/*.csv (claim ids too), the review files
  url [--require] [--stamp F]   check the published URL ($ANALYSIS_BOOK_URL from make, else $BOOK_URL);
                                --require: refuse a build without one (make publish); --stamp: record it in F
  citation                      check CITATION.cff (CFF 1.2.0 schema, title/authors/licences) and print it
  cache save|restore            (build) save: record, per executed notebook, a digest of its inputs (make book
                                runs it); restore (CI, after restoring _build from a cache): mark up to date
                                the notebooks whose recorded inputs equal this checkout's; make re-runs the rest
  pdf                           build the one-page HTML and print it to _build/pdf/book.pdf (Debian's chromium)
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from analysis.data.paths import BUILD, ROOT, STAGE, DataError

# One function per command; each imports only what its command needs (a no-op make book calls this command
# line twice, url --stamp and cache save, each in well under a second: no pandas, pandera or runner for those).
Command = Callable[[argparse.Namespace], "int | None"]


def data_owners() -> list[Any]:
    """The packages whose modules declare the data files they own (DATA_FILES): the themes and
    the audit. Validation (analysis.data) cannot import them itself."""
    import analysis.audit
    import analysis.themes

    return [analysis.themes, analysis.audit]


# --- the data and the corpus ----------------------------------------------------------------------

def cmd_validate(args: argparse.Namespace) -> None:
    from analysis.data import validate

    for line in validate.validate_all(data_owners()):
        print(line)


def cmd_ingest(args: argparse.Namespace) -> None:
    from analysis.data import corpus

    for line in corpus.ingest(args.seeds, args.out):
        print(line)


def cmd_update(args: argparse.Namespace) -> None:
    from analysis.data import corpus, intake
    from analysis.models import baselines

    # the keyword classifier of the book suggests each candidate's baseline class
    for line in corpus.ingest(args.seeds, args.review) + intake.update(args.seeds, review=args.review,
                                                                       classify_baseline=baselines.classify):
        print(line)


def cmd_accept(args: argparse.Namespace) -> None:
    from analysis.data import intake, validate

    validate.use_owners(data_owners())  # the merged copy is validated in this process, theme files included

    for line in intake.accept(args.review, seeds=args.seeds):
        print(line)


def cmd_identify(args: argparse.Namespace) -> int:
    return _identify(args.seeds, args.review, args.limit)


def cmd_seeds(args: argparse.Namespace) -> None:
    from analysis.data import corpus
    from analysis.data.paths import write_if_changed

    write_if_changed(args.stamp, corpus.seeds_listing())


# --- the notebooks ---------------------------------------------------------------------------------

def cmd_params(args: argparse.Namespace) -> None:
    from analysis.book import parameters

    name = os.environ.get("ANALYSIS_RUN_NOTEBOOK", "") if args.from_env else args.notebook
    if not name:
        raise parameters.ParameterError("name the notebook: make params NB=<name>")
    md = parameters.notebook_path(name)
    print(f"{'name':<26} {'type':<6} {'default':<14} {'unit':<18} {'range':<34} source")
    for prm in parameters.parameters(md).values():
        print(f"{prm.name:<26} {prm.type:<6} {prm.default!s:<14} {prm.unit:<18} {prm.range:<34} {prm.source}")


def cmd_run(args: argparse.Namespace) -> None:
    import datetime as dt

    from analysis.book import runner

    name, pairs = args.notebook, args.pairs
    if args.from_env:
        name = os.environ.get("ANALYSIS_RUN_NOTEBOOK", "")
        pairs = os.environ.get("ANALYSIS_RUN_PARAMS", "")
    if not name:
        raise runner.ParameterError("name the notebook: make run NB=<name> (make params NB=<name> lists "
                                    "its parameters)")
    md = runner.notebook_path(name)
    overrides = runner.parse_pairs(pairs)
    for key, value in args.param:
        if key in overrides:
            raise runner.ParameterError(f"parameter {key!r} is given twice")
        overrides[key] = value
    overrides = runner.check_overrides(md, overrides)
    stamp = dt.datetime.now().strftime("%Y-%m-%dT%H%M%S")
    out = args.out or ROOT / "runs" / f"{stamp}-{md.stem}"
    out = runner.run_into(md, out, overrides, next_free=args.out is None)
    print(f"wrote {out}")


def cmd_execute(args: argparse.Namespace) -> None:
    from analysis.book import runner

    started = time.monotonic()
    runner.execute(args.src, args.out, figures=args.figures, outputs=args.outputs,
                   deps=args.deps or BUILD / "deps" / f"{args.src.stem}.d")
    print(f"executed {args.src} -> {args.out} ({time.monotonic() - started:.1f} s)")


# --- the build and publishing ----------------------------------------------------------------------

def cmd_figures(args: argparse.Namespace) -> None:
    from analysis.book import figure_files, publish
    from analysis.book.build import TALK

    style = os.environ.get("ANALYSIS_FIGURE_STYLE", "") if args.style_from_env else args.style
    if args.check:
        figure_files.check_style(style)
        return
    # the talk footers name the book's URL: checked here, handed on normalised
    url = publish.book_url()
    started = time.monotonic()
    done = figure_files.render(style, args.figures, args.out or TALK, url, args.jobs or None)
    if done and args.figures.resolve() == (STAGE / "figures").resolve():
        # the book's gallery links the new files: the next make book builds the HTML again
        (BUILD / "figure-files").parent.mkdir(parents=True, exist_ok=True)
        (BUILD / "figure-files").write_text("\n".join(done) + "\n", encoding="utf-8")
    print(f"figures ({style}): made the files of {len(done)} figure(s) in {time.monotonic() - started:.1f} s"
          + ("" if done else " (all were up to date)"))


def cmd_html(args: argparse.Namespace) -> int:
    from analysis.book import build

    return build.build_html()


def cmd_bib(args: argparse.Namespace) -> None:
    from analysis.book import bibliography

    bibliography.write_bib(ROOT / "references.bib")


def cmd_labels(args: argparse.Namespace) -> None:
    from analysis.book import bibliography

    n = bibliography.write_published_labels(fresh=args.fresh)
    print(f"{n} bibliography labels written to {bibliography.PUBLISHED_LABELS}")


def cmd_release(args: argparse.Namespace) -> None:
    from analysis.book import release

    version = args.version or os.environ.get("ANALYSIS_RELEASE_VERSION", "")
    for line in release.release(version, STAGE / "outputs" / "numbers.csv"):
        print(line)


def cmd_rename_citekey(args: argparse.Namespace) -> None:
    from analysis.data import intake

    for line in intake.rename_citekey(args.old, args.new, review=args.review):
        print(line)


def cmd_url(args: argparse.Namespace) -> None:
    from analysis.book import publish

    url = publish.book_url(required=args.require)
    if args.stamp:
        publish.stamp(args.stamp, url)
    print(f"BOOK_URL: {url} (published build)" if url else
          "BOOK_URL not set: a local build (cite blocks say 'local build'; no canonical links, no sitemap)")


def cmd_citation(args: argparse.Namespace) -> int:
    from analysis.book import publish

    problems = publish.check_citation()
    if problems:
        for line in problems:
            print(f"error: {line}", file=sys.stderr)
        return 2
    print(f"CITATION.cff is valid (CFF 1.2.0): {publish.cite_book_text(publish.book_meta(url=''))}")
    return 0


def cmd_cache(args: argparse.Namespace) -> None:
    from analysis.book import ci_cache

    print(ci_cache.cache_save() if args.action == "save" else ci_cache.cache_restore())


def cmd_pdf(args: argparse.Namespace) -> int:
    from analysis.book import pdf

    return pdf.make_pdf()


# --- the parser ------------------------------------------------------------------------------------

def _command(sub: Any, name: str, func: Command) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = sub.add_parser(name)
    parser.set_defaults(func=func)
    return parser


def _data_commands(sub: Any) -> None:
    _command(sub, "validate", cmd_validate)
    g = _command(sub, "ingest", cmd_ingest)
    g.add_argument("--seeds", type=Path, default=None)
    g.add_argument("--out", type=Path, default=BUILD / "corpus")
    for name, func in (("update", cmd_update), ("accept", cmd_accept), ("identify", cmd_identify)):
        cmd = _command(sub, name, func)  # the corpus update: a seed folder and the review folder
        cmd.add_argument("--seeds", type=Path, default=None)
        cmd.add_argument("--review", type=Path, default=BUILD / "corpus")
        if name == "identify":
            cmd.add_argument("--limit", type=int, default=20, help="look up at most this many new papers")
    sd = _command(sub, "seeds", cmd_seeds)
    sd.add_argument("--stamp", type=Path, required=True, help="write the seed folder's listing here if it changed")


def _notebook_commands(sub: Any) -> None:
    p = _command(sub, "params", cmd_params)
    p.add_argument("notebook", nargs="?")
    p.add_argument("--from-env", action="store_true", help="the notebook from $ANALYSIS_RUN_NOTEBOOK")
    r = _command(sub, "run", cmd_run)
    r.add_argument("notebook", nargs="?")
    r.add_argument("-p", "--param", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"))
    r.add_argument("--pairs", default="", help='overrides as one text: NAME=VALUE pairs separated by spaces')
    r.add_argument("--from-env", action="store_true",
                   help="notebook and pairs from $ANALYSIS_RUN_NOTEBOOK and $ANALYSIS_RUN_PARAMS")
    r.add_argument("--out", type=Path, default=None, help="output folder (default runs/<timestamp>-<notebook>)")
    e = _command(sub, "execute", cmd_execute)
    e.add_argument("src", type=Path)
    e.add_argument("out", type=Path)
    e.add_argument("--figures", type=Path, default=STAGE / "figures")
    e.add_argument("--outputs", type=Path, default=STAGE / "outputs")
    e.add_argument("--deps", type=Path, default=None, help="make rule of the data files read "
                   "(default _build/deps/<notebook>.d)")


def _build_commands(sub: Any) -> None:
    f = _command(sub, "figures", cmd_figures)
    f.add_argument("--style", default="talk")
    f.add_argument("--style-from-env", action="store_true", help="the style from $ANALYSIS_FIGURE_STYLE")
    f.add_argument("--out", type=Path, default=None, help="the talk versions' folder (default _build/talk-figures)")
    f.add_argument("--figures", type=Path, default=STAGE / "figures", help="the book's figures and their registry")
    f.add_argument("--jobs", type=int, default=0)
    f.add_argument("--check", action="store_true", help="only check the style (before any notebook runs)")
    _command(sub, "html", cmd_html)
    _command(sub, "bib", cmd_bib)
    lb = _command(sub, "labels", cmd_labels)
    lb.add_argument("--fresh", action="store_true",
                    help="assign the suffixes anew (after corrections of years or authors, before a release)")
    rl = _command(sub, "release", cmd_release)
    rl.add_argument("--version", default=None, help="x.y.z (default: $ANALYSIS_RELEASE_VERSION)")
    rk = _command(sub, "rename-citekey", cmd_rename_citekey)
    rk.add_argument("old")
    rk.add_argument("new")
    rk.add_argument("--review", type=Path, default=None, help="the review folder (default _build/corpus)")
    u = _command(sub, "url", cmd_url)
    u.add_argument("--require", action="store_true", help="refuse when no URL is configured (publishing)")
    u.add_argument("--stamp", type=Path, default=None, help="write the URL to this file if it changed")
    _command(sub, "citation", cmd_citation)
    c = _command(sub, "cache", cmd_cache)
    c.add_argument("action", choices=["save", "restore"])
    _command(sub, "pdf", cmd_pdf)


def parser() -> argparse.ArgumentParser:
    """The command line: one sub-command per command, each calling its ``cmd_*`` function."""
    ap = argparse.ArgumentParser(prog="python -m analysis", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    _data_commands(sub)
    _notebook_commands(sub)
    _build_commands(sub)
    return ap


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(sys.argv[1:] if argv is None else argv)
    from analysis.book import interrupt

    interrupt.install()
    try:
        return args.func(args) or 0
    except Exception as exc:
        loaded = sys.modules.get("analysis.book.runner")  # its errors can only come from it once it is loaded
        # (runner.ParameterError is a ValueError)
        if not isinstance(exc, (DataError, ValueError, *((loaded.NotebookError,) if loaded else ()))):
            raise
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:
        why = interrupt.reason or (f"received {exc}" if str(exc) else "received SIGINT")
        print(f"interrupted: {why}; python -m analysis {args.cmd} stopped and cleaned up", file=sys.stderr)
        return 130


def _identify(seeds: Path | None, review: Path, limit: int) -> int:
    """`identify`: proposals for the seed papers that data/papers.csv lacks (never written to data/)."""
    from analysis.data import corpus, identify, intake
    from analysis.data.paths import DATA

    _, table = intake.read_table(DATA / "papers.csv")
    known = {r["fingerprint"] for r in table}
    new = [p for p in corpus.load_corpus(seeds) if p.fingerprint not in known]
    if not new:
        print("identify: every seed paper has a row in data/papers.csv; nothing to look up")
        return 0
    if not identify.online():
        print(f"identify: offline ({identify.API_HOST} cannot be reached); {len(new)} new paper(s) not looked "
              "up. Run it again with a network, or identify them by hand (docs/adding-papers.md).")
        return 0
    rows = []
    try:
        for p in new[:limit]:
            prop = identify.lookup(p.text)
            rows.append(identify.proposal_row(p.source_records, p.fingerprint, prop))
            r = rows[-1]
            print(f"{p.source_records}  \"{corpus.first_words(p.text)}\"  -> {r['verdict']}"
                  + (f": arXiv {r['arxiv_id']}{r['version']} ({r['year']}) {r['title']!r}, similarity {r['similarity']}"
                     if r["arxiv_id"] else ""))
    except OSError as exc:  # the connection dropped part-way (requests' errors are OSErrors)
        print(f"identify: the arXiv API stopped answering ({exc}); {len(rows)} paper(s) looked up")
    intake.write_table(review / intake.IDENTIFY_FILE, identify.COLUMNS, rows)
    print(f"proposals (not data: check each on its arXiv page): {review / intake.IDENTIFY_FILE}; "
          "`make corpus` copies the matches into the scaffold rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
