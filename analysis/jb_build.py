"""`jupyter-book build` with Sphinx's parallel jobs (the CLI has no -j option).

Usage: python -m analysis.jb_build JOBS <jupyter-book build arguments...>
All extensions the book uses declare themselves parallel-read safe.
"""

from __future__ import annotations

import functools
import sys


def main(argv: list[str]) -> int:
    import jupyter_book.cli.main as cli
    import jupyter_book.sphinx as jbs

    jobs = int(argv[0])
    cli.build_sphinx = functools.partial(jbs.build_sphinx, jobs=jobs)  # type: ignore[attr-defined]
    try:
        cli.main(["build", *argv[1:]], standalone_mode=True)
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
