"""Which modules of the `analysis` package a piece of code imports (an AST walk, no execution).

Used by the runner (a notebook is re-executed when a module it imports changes) and by
tests/test_layout.py (the layers import only downwards, and there are no import circles).
"""

from __future__ import annotations

import ast
from pathlib import Path

from analysis.data.paths import ROOT


def module_file(name: str) -> Path | None:
    """The file of module `name` ("analysis.data.hardware" → analysis/data/hardware.py, a
    package → its __init__.py), or None when `name` is not a module of this package."""
    parts = name.split(".")
    if parts[0] != "analysis":
        return None
    path = ROOT.joinpath(*parts)
    if path.with_suffix(".py").is_file():
        return path.with_suffix(".py")
    if (path / "__init__.py").is_file():
        return path / "__init__.py"
    return None


def module_name(path: Path) -> str:
    """analysis/data/hardware.py → "analysis.data.hardware"; analysis/data/__init__.py → "analysis.data"."""
    parts = list(path.resolve().relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _parse(source: str) -> ast.AST:
    try:
        return ast.parse(source)
    except SyntaxError:  # IPython magics or shell escapes: drop those lines and try again
        kept = "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())
        return ast.parse(kept)


def imports(source: str, package: str = "") -> set[str]:
    """Modules of this package that `source` imports (anywhere, including inside functions), with
    the packages whose __init__ each import runs. `package` resolves relative imports."""
    found: set[str] = set()
    for node in ast.walk(_parse(source)):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            found.add(base)
            found |= {f"{base}.{a.name}" for a in node.names}  # submodules; other names are dropped below
    with_parents = {".".join(n.split(".")[:i]) for n in found for i in range(1, n.count(".") + 2)}
    return {n for n in with_parents if module_file(n)}


def closure(names: set[str]) -> set[str]:
    """`names` and every module of this package they import, directly or through others."""
    todo, seen = set(names), set()
    while todo:
        name = todo.pop()
        seen.add(name)
        path = module_file(name)
        pkg = name if path and path.name == "__init__.py" else name.rpartition(".")[0]
        if path:
            todo |= imports(path.read_text(encoding="utf-8"), pkg) - seen
    return seen
