"""Issue 37: the README starts short (what the book is, the two commands) and links the rest; `make help` lists
the targets the Makefile documents."""

from __future__ import annotations

import re
import subprocess

from conftest import ROOT, make_env


def test_the_readme_is_short_and_opens_with_the_two_commands():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.encode()) < 8 * 1024
    first = text[: text.index("## Re-run")]
    assert "make book" in first and "make test" in first
    for link in re.findall(r"\]\((docs/[^)]+)\)", text):
        assert (ROOT / link).is_file(), link


def test_make_help_lists_every_documented_target():
    out = subprocess.run(["make", "--no-print-directory", "help"], cwd=ROOT, env=make_env(), capture_output=True,
                         text=True, timeout=60).stdout
    documented = re.findall(r"^## (make [a-z-]+)", (ROOT / "Makefile").read_text(encoding="utf-8"), re.M)
    assert {"make book", "make test", "make help"} <= set(documented)
    for target in documented:
        assert target in out
