#!/usr/bin/env bash
# Cross-check the project's cost models against llm-analysis and codecarbon.
# Creates the peers' own venv (outside the project) if it is missing, then runs crosscheck.py,
# which prints the table and writes results.csv beside this script.
# Usage: bash bench/peers/run.sh            (PEER_VENV=/other/path to move the venv;
#                                            PEERS_STRICT=1 to exit 1 on a same-convention miss)
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
VENV="${PEER_VENV:-/work/peervenv}"
PY="$VENV/bin/python"
if [ ! -x "$PY" ]; then
  python3.11 -m venv "$VENV"
fi
if ! "$PY" -c "import llm_analysis, codecarbon, pandas, yaml" >/dev/null 2>&1; then
  "$VENV/bin/pip" install --quiet "llm-analysis==0.2.2" "codecarbon==3.3.2" pandas pyyaml
fi
cd "$HERE"
PYTHONDONTWRITEBYTECODE=1 "$PY" "$HERE/crosscheck.py" 2> >(grep -v "^None of PyTorch" >&2)
