"""The corpus intake's modules stay readable: every function under 60 lines (issue 35)."""

from __future__ import annotations

import ast

import pytest
from conftest import ROOT

MODULES = ["intake", "acceptance", "review_files", "corpus", "classify", "claim_candidates", "identify", "text",
           "transaction"]
LIMIT = 60


@pytest.mark.parametrize("name", MODULES)
def test_every_function_is_under_sixty_lines(name: str):
    path = ROOT / "analysis" / "data" / f"{name}.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    long = [f"{node.name} ({node.end_lineno - node.lineno + 1} lines, from line {node.lineno})"
            for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and node.end_lineno is not None and node.end_lineno - node.lineno + 1 >= LIMIT]
    assert not long, f"analysis/data/{name}.py: functions of {LIMIT} lines or more: {long}"
