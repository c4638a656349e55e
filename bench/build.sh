#!/usr/bin/env bash
# Build-time benchmark. Prints, side by side:
#   cold      make book with an empty _build (venv present)
#   no-op     make book again with nothing changed
#   touch-1   make book after touching one notebook (and how many notebooks re-ran)
#   naive     the same sources built by `jupyter-book build` with execute_notebooks: force
# Usage: bash bench/build.sh [notebook-to-touch]   (from the project root; takes a few minutes)
# The table is also written to _build/bench.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
NB=${1:-corpus-overview}
PY=.venv/bin/python
make --no-print-directory venv >/dev/null
log=$(mktemp -d)

secs() { local t0 t1; t0=$(date +%s%N); "$@" >"$log/out" 2>&1 || { echo "FAILED: $*" >&2; tail -20 "$log/out" >&2; }; t1=$(date +%s%N); awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", (b-a)/1e9}'; }
pct() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.1f", 100*a/b}'; }

rm -rf _build
cold=$(secs make --no-print-directory book)
noop=$(secs make --no-print-directory book)
touch "analysis/notebooks/$NB.md"
one=$(secs make --no-print-directory book)
reran=$(grep -c '^executed ' "$log/out" || true)
which=$(grep '^executed ' "$log/out" | awk '{print $2}' | xargs -r -n1 basename | tr '\n' ' ')

# Naive baseline: one folder with the book sources and the notebooks as MyST .md files,
# executed by Jupyter Book itself (serially, every time).
naive=$(mktemp -d)
cp -r _config.yml _toc.yml intro.md chapters _static _templates references.bib "$naive"/
cp -r _build/book/_mathjax "$naive"/
mkdir -p "$naive/notebooks" "$naive/reference"
cp analysis/notebooks/*.md "$naive/notebooks/"
cp _build/book/reference/figures.md "$naive/reference/"
sed -i 's/execute_notebooks: "off"/execute_notebooks: force\n  timeout: 900/' "$naive/_config.yml"
grep -rl '\.ipynb::' "$naive/chapters" | xargs -r sed -i 's/\.ipynb::/.md::/g'
export PYTHONPATH="$PWD" ANALYSIS_FIGURES_DIR="$naive/figures" ANALYSIS_OUTPUTS_DIR="$naive/outputs"
naive_t=$(secs .venv/bin/jupyter-book build "$naive" --builder html)
failed_nb=$(grep -c "Executing notebook failed" "$log/out" || true)
naive_ok=$([ -f "$naive/_build/html/index.html" ] && [ "$failed_nb" = 0 ] && echo "ok, every notebook ran" \
  || echo "FAILED: $failed_nb notebook(s) did not run, the baseline is not comparable")

{
printf '\n%-34s %10s\n' "build" "seconds"
printf '%-34s %10.1f\n' "cold (empty _build)" "$cold"
printf '%-34s %10.1f   (%s%% of cold)\n' "no-op rebuild" "$noop" "$(pct "$noop" "$cold")"
printf '%-34s %10.1f   (re-executed %s notebook(s): %s)\n' "touch $NB.md" "$one" "$reran" "$which"
printf '%-34s %10.1f   (%s; cold is %s%% of it)\n' "naive jupyter-book, force execute" "$naive_t" "$naive_ok" \
  "$(pct "$cold" "$naive_t")"
printf 'notebooks: %s; cores: %s; %s\n' "$(ls analysis/notebooks/*.md | wc -l)" "$(nproc)" "$(date -u +%Y-%m-%dT%H:%MZ)"
ok() { awk -v a="$1" -v b="$2" -v f="$3" 'BEGIN{print (a <= f*b) ? "met" : "NOT met"}'; }
printf 'targets: no-op <= 10%% of cold: %s; only the touched notebook re-ran: %s; cold <= 60%% of naive: %s\n' \
  "$(ok "$noop" "$cold" 0.10)" "$([ "$reran" = 1 ] && echo met || echo 'NOT met')" "$(ok "$cold" "$naive_t" 0.60)"
} | tee _build/bench.txt
rm -rf "$naive" "$log"
