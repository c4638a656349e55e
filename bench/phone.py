"""Time the phone renditions (analysis/plot/phone.py): for every kept drawing of a built book
(_build/book/figure-src/<id>.pickle), load it, lay it out for a phone, judge it and write its SVG to a
scratch folder, as `figures.save` does in each notebook. Prints the total and the slowest, and how many
are drawn and how many panned.

    .venv/bin/python bench/phone.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from analysis.plot import figures  # noqa: E402


def main() -> None:
    figures.use_style()
    kept = sorted((ROOT / "_build" / "book" / "figure-src").glob("*.pickle"))
    if not kept:
        sys.exit("no kept drawings: run `make book` first")
    times, drawn = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for path in kept:
            start = time.process_time()
            verdict = figures.write_phone(path.read_bytes(), Path(tmp), path.stem)
            times.append((time.process_time() - start, path.stem))
            drawn += verdict == "drawn"
    total = sum(t for t, _ in times)
    print(f"{len(kept)} figures: {drawn} phone renditions drawn, {len(kept) - drawn} panned; "
          f"CPU {total:.1f} s in all, {total / len(kept):.2f} s a figure")
    for t, name in sorted(times, reverse=True)[:5]:
        print(f"  {t:5.2f} s  {name}")


if __name__ == "__main__":
    main()
