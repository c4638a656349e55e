#!/usr/bin/env bash
# Build-time benchmark, run in a temporary copy of the checkout: the checkout's _build (and so its
# last good HTML) is never touched. Rows, in this order (seconds each):
#   cold     make book with an empty _build (the venv present: linked in)
#   figures  make figures, right after the build (the talk figures and publication files, on request)
#   noop     make book again with nothing changed
#   touch    make book after touching one notebook (which notebooks re-ran)
#   data     make book after touching one data file (how many notebooks re-ran, against the .d records)
#   test     make test, the book built
#   quick    .venv/bin/python -m pytest -q -n auto --dist loadgroup -m "not slow" (the quick inner loop), the book built
#   naive    the same sources built by `jupyter-book build` with execute_notebooks: force
# and beside them the bars: cold <= 60% of naive; no-op <= 5 s; touch re-runs exactly one notebook;
# make test <= 600 s.
#
# Usage (from anywhere; takes long with every row):
#   bash bench/build.sh [--rows cold,noop,touch] [--notebook corpus-overview] [--data serving-models.csv]
#   make bench [ROWS=cold,noop,touch]
# Rows that need a built book run after an untimed `make book` in the copy when `cold` is not among them.
# make passes ROWS as data in $BENCH_ROWS (never expanded by make or a shell); --rows wins over it.
#
# It holds the checkout's build lock (.build.lock, as `make book` does) only while it copies the
# checkout: tracked and untracked-not-ignored files (`git ls-files -co --exclude-standard`, time
# stamps kept, so make sees the venv up to date) and references.bib. The copy gets .venv, ../shared
# (the seeds are read from ../shared/seeds, the tests read ../shared/docs and tools) and tests/vendor
# (axe-core) as links, like the `scratch` fixture of tests/conftest.py. The only file it writes in the
# checkout is the table, _build/bench/build.txt.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
KNOWN=(cold figures noop touch data test quick naive)
NB=corpus-overview
DATAFILE=serving-models.csv
ROWS_TEXT=${BENCH_ROWS:-}
NAME_RE='^[A-Za-z0-9][A-Za-z0-9._-]*$'

usage() { sed -n '2,20s/^# \{0,1\}//p' "$0" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --rows) [ $# -ge 2 ] || usage; ROWS_TEXT=$2; shift 2 ;;
    --rows=*) ROWS_TEXT=${1#--rows=}; shift ;;
    --notebook) [ $# -ge 2 ] || usage; NB=$2; shift 2 ;;
    --data) [ $# -ge 2 ] || usage; DATAFILE=$2; shift 2 ;;
    -h|--help) usage ;;
    *) echo "bench: unknown argument: $1" >&2; usage ;;
  esac
done

# the rows asked for, each checked against the known names (the text is only split, never run)
declare -A WANT=()
if [ -z "${ROWS_TEXT//[[:space:],]/}" ]; then
  for r in "${KNOWN[@]}"; do WANT[$r]=1; done
else
  IFS=$', \t\n' read -r -d '' -a asked <<<"$ROWS_TEXT" || true
  for r in "${asked[@]}"; do
    [ -n "$r" ] || continue
    ok=0
    for k in "${KNOWN[@]}"; do [ "$r" = "$k" ] && ok=1; done
    if [ "$ok" = 0 ]; then
      printf 'bench: unknown row %q; the rows are: %s\n' "$r" "${KNOWN[*]}" >&2
      exit 2
    fi
    WANT[$r]=1
  done
fi
want() { [ -n "${WANT[$1]:-}" ]; }
if ! [[ $NB =~ $NAME_RE ]] || [ ! -f "$ROOT/analysis/notebooks/$NB.md" ]; then
  printf 'bench: no notebook analysis/notebooks/%q.md\n' "$NB" >&2; exit 2
fi
if ! [[ $DATAFILE =~ $NAME_RE ]] || [ ! -f "$ROOT/data/$DATAFILE" ]; then
  printf 'bench: no data file data/%q\n' "$DATAFILE" >&2; exit 2
fi
[ -x "$ROOT/.venv/bin/python" ] || { echo "bench: no venv in $ROOT/.venv: run make venv first" >&2; exit 2; }

# the inner builds run as a person's would, not as part of an outer `make bench`
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
CORES=$(getconf _NPROCESSORS_ONLN 2>/dev/null || "$ROOT/.venv/bin/python" -c 'import os; print(os.cpu_count())')

TMP=$(mktemp -d "${TMPDIR:-/tmp}/bench-build.XXXXXX")
trap 'rm -rf -- "$TMP"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
COPY=$TMP/main
LOG=$TMP/log
mkdir -p "$COPY" "$LOG"

# --- the copy, under the build lock ------------------------------------------------------------
copy_checkout() {
  cd "$ROOT"
  git ls-files -co --exclude-standard -z >"$LOG/listed"
  # files only (as the scratch fixture): not a tracked file deleted here, nor a link to a folder
  # (a .venv link is no folder to .gitignore's `.venv/`); the copy gets its own links below
  while IFS= read -r -d '' f; do
    case $f in .venv | .venv/* | _build | _build/* | tests/vendor | tests/vendor/*) continue ;; esac
    if [ -f "$f" ]; then printf '%s\0' "$f"; fi
  done <"$LOG/listed" >"$LOG/files"
  if [ -f references.bib ]; then printf 'references.bib\0' >>"$LOG/files"; fi
  tar -cf - --null -T "$LOG/files" | tar -xf - -C "$COPY"
}
LOCK=$ROOT/.build.lock
exec 9>>"$LOCK"
if ! flock -n 9; then
  echo "bench: another build of this checkout holds .build.lock; waiting for it to finish" >&2
  flock 9
fi
copy_checkout
flock -u 9
exec 9>&-
cd "$COPY"
export PYTHONPATH=$COPY

# -n: never through an existing link into the folder it names
ln -sn "$ROOT/.venv" .venv
SEEDS_AT=${SEEDS_DIR:-../shared/seeds}
case $SEEDS_AT in /*) ;; *) SEEDS_AT=$ROOT/$SEEDS_AT ;; esac
if [ -d "$SEEDS_AT" ]; then
  ln -sn "$(cd "$SEEDS_AT/.." && pwd)" "$TMP/shared"
else
  echo "bench: no seed folder at $SEEDS_AT: the build in the copy will stop at validation" >&2
fi
if [ -d "$ROOT/tests/vendor" ]; then ln -sn "$ROOT/tests/vendor" tests/vendor; fi

# --- timing ------------------------------------------------------------------------------------
declare -A SECS=() NOTE=() FAILED=() RAN=()
# timed ROW CMD...: runs CMD in the copy, its output in $LOG/ROW.out; seconds in SECS[ROW]
timed() {
  local row=$1 t0 t1
  shift
  echo "bench: $row: $*" >&2
  t0=$(date +%s%N)
  if ! "$@" >"$LOG/$row.out" 2>&1; then
    FAILED[$row]=1
    echo "bench: $row FAILED: $*" >&2
    tail -20 "$LOG/$row.out" >&2
  fi
  t1=$(date +%s%N)
  SECS[$row]=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", (b-a)/1e9}')
}
executed() { grep '^executed ' "$LOG/$1.out" | awk '{print $2}' | xargs -r -n1 basename | sed 's/\.md$//' || true; }
book() { make --no-print-directory book; }

needs_book=0
for r in figures noop touch data test quick naive; do want "$r" && needs_book=1; done
if want cold; then
  rm -rf _build
  timed cold book
elif [ "$needs_book" = 1 ]; then
  echo "bench: building the book in the copy first (not timed)" >&2
  timed warmup book
  if [ -n "${FAILED[warmup]:-}" ]; then echo "bench: the book does not build; no row is measured" >&2; exit 1; fi
fi
if want figures; then timed figures make --no-print-directory figures; fi
if want noop; then timed noop book; fi
if want touch; then
  touch "analysis/notebooks/$NB.md"
  timed touch book
  mapfile -t ran < <(executed touch)
  RAN[touch]=${#ran[@]}
  NOTE[touch]="re-ran ${#ran[@]} notebook(s): ${ran[*]:-none}"
fi
if want data; then
  readers=$(grep -l -E -- " data/${DATAFILE//./\\.}( |$)" _build/deps/*.d 2>/dev/null | wc -l || true)
  touch "data/$DATAFILE"
  timed data book
  mapfile -t ran < <(executed data)
  NOTE[data]="re-ran ${#ran[@]} notebook(s); the .d records list ${readers} reader(s) of data/$DATAFILE"
fi
if want test; then timed test make --no-print-directory test; fi
if want quick; then timed quick .venv/bin/python -m pytest -q -n auto --dist loadgroup -m "not slow"; fi

if want naive; then
  # one folder with the book sources and the notebooks as MyST .md files, executed by Jupyter Book
  # itself (serially, every time)
  naive_run() {
    local dir=$TMP/naive
    mkdir -p "$dir/notebooks" "$dir/reference"
    cp -r _config.yml _toc.yml intro.md chapters _static _templates references.bib "$dir"/
    cp -r _build/book/_mathjax "$dir"/
    cp analysis/notebooks/*.md "$dir/notebooks/"
    cp _build/book/reference/figures.md "$dir/reference/"
    sed -i 's/execute_notebooks: "off"/execute_notebooks: force\n  timeout: 900/' "$dir/_config.yml"
    grep -rl '\.ipynb::' "$dir/chapters" | xargs -r sed -i 's/\.ipynb::/.md::/g'
    PYTHONPATH=$COPY ANALYSIS_FIGURES_DIR=$dir/figures ANALYSIS_OUTPUTS_DIR=$dir/outputs \
      .venv/bin/jupyter-book build "$dir" --builder html
    [ -f "$dir/_build/html/index.html" ]
  }
  timed naive naive_run
  failed_nb=$(grep -c "Executing notebook failed" "$LOG/naive.out" || true)
  if [ "$failed_nb" != 0 ] || [ -n "${FAILED[naive]:-}" ]; then
    FAILED[naive]=1
    NOTE[naive]="$failed_nb notebook(s) did not run: the baseline is not comparable"
  else
    NOTE[naive]="every notebook ran"
  fi
fi

# --- the table ---------------------------------------------------------------------------------
le() { awk -v a="$1" -v b="$2" 'BEGIN{exit !(a <= b)}'; }
bar() {  # the bar of a row: "met", "NOT met" or why it is not judged
  case $1 in
    cold)
      if [ -z "${SECS[naive]:-}" ] || [ -n "${FAILED[naive]:-}" ]; then echo "<= 60% of naive: needs the naive row"
      else
        local limit; limit=$(awk -v b="${SECS[naive]}" 'BEGIN{printf "%.1f", 0.6*b}')
        local pct; pct=$(awk -v a="${SECS[cold]}" -v b="${SECS[naive]}" 'BEGIN{printf "%.0f", 100*a/b}')
        if le "${SECS[cold]}" "$limit"; then echo "<= 60% of naive: met ($pct%)"; else echo "<= 60% of naive: NOT met ($pct%)"; fi
      fi ;;
    noop) if le "${SECS[noop]}" 5; then echo "<= 5 s: met"; else echo "<= 5 s: NOT met"; fi ;;
    touch) if [ "${RAN[touch]}" = 1 ]; then echo "exactly one notebook: met"; else echo "exactly one notebook: NOT met"; fi ;;
    test) if le "${SECS[test]}" 600; then echo "<= 600 s: met"; else echo "<= 600 s: NOT met"; fi ;;
    *) echo "" ;;
  esac
}
declare -A LABEL=(
  [cold]="cold make book (empty _build)" [figures]="make figures (after the build)"
  [noop]="no-op make book" [touch]="touch $NB.md" [data]="touch data/$DATAFILE"
  [test]="make test (book built)" [quick]="pytest -m \"not slow\"" [naive]="naive jupyter-book, force execute"
)
mkdir -p "$ROOT/_build/bench"
{
  printf '%-36s %9s  %-34s %s\n' "row" "seconds" "bar" "notes"
  for r in "${KNOWN[@]}"; do
    want "$r" || continue
    note=${NOTE[$r]:-}
    if [ -n "${FAILED[$r]:-}" ]; then note="FAILED (see the output above)${note:+; $note}"; fi
    printf '%-36s %9s  %-34s %s\n' "${LABEL[$r]}" "${SECS[$r]}" "$(bar "$r")" "$note"
  done
  printf 'cores: %s (getconf _NPROCESSORS_ONLN); notebooks: %s; commit %s; %s\n' "$CORES" \
    "$(find analysis/notebooks -maxdepth 1 -name '*.md' | wc -l)" \
    "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')" "$(date -u +%Y-%m-%dT%H:%MZ)"
} | tee "$ROOT/_build/bench/build.txt"
if [ "${#FAILED[@]}" -gt 0 ]; then exit 1; fi
