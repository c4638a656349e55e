"""`python -m analysis ...`: the one command-line entry; the commands are in analysis/book/cli.py."""

import sys

from analysis.book.cli import main

if __name__ == "__main__":
    sys.exit(main())
