"""The package's folders are its pipeline, and imports point down (analysis/__init__.py).

| layer  | may import                                                       |
|--------|------------------------------------------------------------------|
| data   | nothing else of the package                                      |
| models | data                                                             |
| plot   | data, models (the figure style and files; nothing of the book)   |
| themes | data, models, plot                                               |
| audit  | data, models                                                     |
| book   | anything; imported only by the command line and the notebooks    |

The rules are written here, independently of the code; the import graph comes from an AST walk
(analysis.book.imports), which the synthetic cases below check can see each kind of import.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from analysis.book.imports import imports, module_name

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "analysis"
LAYERS = ("data", "models", "plot", "themes", "audit", "book")
ALLOWED = {
    "data": {"data"},
    "models": {"data", "models"},
    "plot": {"data", "models", "plot"},
    "themes": {"data", "models", "plot"},
    "audit": {"data", "models", "audit"},
    "book": set(LAYERS),
}
# what the formulas of the models layer must not touch (file I/O)
IO_NAMES = {"open", "Path", "read_csv", "read_yaml", "read_text", "write_text", "read_bytes", "write_bytes",
            "to_csv", "savefig", "mkdir", "unlink"}
IO_MODULES = {"os", "pathlib", "io", "shutil", "analysis.data.paths", "analysis.data.tables"}


def layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS else None


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PKG.rglob("*.py")) if "__pycache__" not in p.parts}


def edges(module: str, source: str, is_package: bool) -> set[str]:
    """The modules `module` imports, without its own ancestors (which Python imports anyway)."""
    pkg = module if is_package else module.rpartition(".")[0]
    ancestors = {".".join(module.split(".")[:i]) for i in range(1, module.count(".") + 1)}
    return imports(source, pkg) - ancestors - {module}


def violations(module: str, imported: set[str]) -> list[str]:
    """The imports of `module` that the layer table forbids."""
    src = layer(module)
    out = []
    for target in sorted(imported):
        dst = layer(target)
        if dst is None:
            continue  # the package root
        if src is None:  # analysis/__init__.py and __main__.py: only the command line
            if module != "analysis.__main__" or target not in ("analysis.book", "analysis.book.cli"):
                out.append(f"{module} imports {target}")
            continue
        if src == "themes" and dst == "themes":
            pkg = "analysis.themes"
            if target != pkg and module != pkg:
                out.append(f"{module} imports another theme, {target}")
            continue
        if dst in ALLOWED[src]:
            continue
        out.append(f"{module} ({src}) imports {target} ({dst})")
    return out


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return {m: edges(m, p.read_text(encoding="utf-8"), p.name == "__init__.py") for m, p in modules().items()}


def test_the_folders_are_the_layers():
    top = sorted(p.name for p in PKG.glob("*.py"))
    assert top == ["__init__.py", "__main__.py"], f"modules outside the layer folders: {top}"
    for name in LAYERS:
        init = PKG / name / "__init__.py"
        assert init.is_file(), f"analysis/{name}/ is not a package"
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
        assert doc and "import" in doc, f"analysis/{name}/__init__.py must say what it holds and may import"


def test_imports_follow_the_layer_table(graph):
    found = [v for m, imported in graph.items() for v in violations(m, imported)]
    assert not found, "\n".join(found)


def test_only_the_cli_imports_the_book(graph):
    users = {m for m, imported in graph.items() for t in imported if layer(t) == "book" and layer(m) != "book"}
    assert users <= {"analysis.__main__"}, users


def test_the_figure_helper_loads_without_the_book():
    """Issue 37: a notebook or theme that draws a figure imports no module of the book (no Sphinx extension,
    no pybtex, no publishing code), and the mathtext rule comes with the figure helper itself."""
    code = ("import sys, analysis.plot.figures as f, matplotlib.text as t; "
            "print(sorted(m for m in sys.modules if m.startswith(('analysis.book', 'pybtex', 'sphinx')))); "
            "print(t.Text.set_text is f._set_text_literal_dollars)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120).stdout.split("\n")
    assert out[0] == "[]", out[0]
    assert out[1] == "True"


def test_no_import_circles(graph):
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(m: str, stack: list[str]) -> None:
        state[m] = 1
        for t in sorted(graph.get(m, ())):
            if state.get(t) == 1:
                cycles.append(stack[stack.index(t):] + [t])
            elif t not in state:
                visit(t, stack + [t])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    assert not cycles, "import circles: " + "; ".join(" -> ".join(c) for c in cycles)


def test_models_do_no_file_io():
    for path in sorted((PKG / "models").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Name | ast.Attribute):
                name = node.id if isinstance(node, ast.Name) else node.attr
                assert name not in IO_NAMES, f"{path.relative_to(ROOT)}:{node.lineno}: file I/O ({name})"
        bad = imports(path.read_text(encoding="utf-8"), "analysis.models") & IO_MODULES
        plain = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names} & IO_MODULES
        plain |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module in IO_MODULES}
        assert not (bad | plain), f"{path.relative_to(ROOT)} imports {sorted(bad | plain)}"


# functions of the package allowed over the limit (none since issue 35 split the intake; a function that has
# since shrunk is refused here too, so the list cannot go stale)
LONG_FUNCTIONS_ALLOWED: dict[str, set[str]] = {}
MAX_FUNCTION_LINES = 60


def test_no_function_is_over_60_lines():
    """Issue 37: a function a reader can hold at once (its signature, docstring and body; nested ones count
    within their parent and again on their own)."""
    long, still_long = [], set()
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                n = (node.end_lineno or node.lineno) - node.lineno + 1
                if n <= MAX_FUNCTION_LINES:
                    continue
                if node.name in LONG_FUNCTIONS_ALLOWED.get(rel, set()):
                    still_long.add((rel, node.name))
                else:
                    long.append(f"{rel}:{node.lineno} {node.name}: {n} lines")
    assert not long, long
    allowed = {(f, n) for f, names in LONG_FUNCTIONS_ALLOWED.items() for n in names}
    assert still_long == allowed, f"no longer over {MAX_FUNCTION_LINES} lines: drop from the allow-list: " \
                                  f"{sorted(allowed - still_long)}"


def test_no_module_is_over_500_lines():
    long = {str(p.relative_to(ROOT)): n for p in PKG.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 500}
    assert not long, long


# --- the checker itself can fail ------------------------------------------------------------------

@pytest.mark.parametrize(("module", "source", "expected"), [
    ("analysis.data.hardware", "from analysis import models\n", "analysis.models"),
    ("analysis.data.hardware", "def f():\n    from analysis.themes import serving\n", "analysis.themes.serving"),
    ("analysis.models.compute", "import analysis.audit.registry\n", "analysis.audit.registry"),
    ("analysis.audit.serving", "from analysis.book.runner import execute\n", "analysis.book.runner"),
    ("analysis.themes.nas", "from analysis.themes.sustainability import load_epoch\n", "another theme"),
    ("analysis.themes.nas", "from ..book import build\n", "analysis.book.build"),
    ("analysis.themes.nas", "from analysis.book import facts\n", "analysis.book.facts"),
    ("analysis.plot.figures", "def f():\n    from analysis.book import publish\n", "analysis.book.publish"),
    ("analysis.plot.figures", "from analysis.themes import nas\n", "analysis.themes.nas"),
    ("analysis.audit.nas", "from analysis.plot import figures\n", "analysis.plot.figures"),
])
def test_a_forbidden_import_is_reported(module, source, expected):
    found = violations(module, edges(module, source, False))
    assert any(expected in v for v in found), found


@pytest.mark.parametrize(("module", "source"), [
    ("analysis.themes.nas", "from analysis.plot import figures\nfrom analysis import models\n"),
    ("analysis.plot.figures", "from analysis.data.paths import figures_dir\nfrom analysis.models import base\n"),
    ("analysis.audit.nas", "from analysis.audit.registry import check\nfrom analysis.data import hardware\n"),
    ("analysis.book.build", "from analysis.themes import serving\n"),
])
def test_an_allowed_import_passes(module, source):
    assert violations(module, edges(module, source, False)) == []


def test_no_notebook_defines_a_function_the_package_has_by_name():
    """Issue 37: a helper the notebooks need lives once in the package, tested (facts.glue and facts.plain,
    markup.df_table), not copied into notebooks; a notebook's own function has a name of its own."""
    import re

    package: set[str] = set()
    for path in (ROOT / "analysis").rglob("*.py"):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                package.add(node.name)
    copied = []
    for nb in sorted((ROOT / "analysis" / "notebooks").glob("*.md")):
        cells = re.findall(r"```\{code-cell\}[^\n]*\n(.*?)```", nb.read_text(encoding="utf-8"), re.S)
        code = "\n".join(line for line in "\n".join(cells).splitlines() if not line.startswith(":"))
        copied += [f"{nb.name}: {n.name}" for n in ast.parse(code).body
                   if isinstance(n, ast.FunctionDef) and (n.name in package or n.name in ("glue", "_v"))]
    assert not copied, copied
