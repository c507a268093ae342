"""The shape of the code (docs/architecture.md): layers, cycles, sizes.

The import contracts live in ``pyproject.toml`` (``[tool.importlinter]``) so
``make lint`` (``lint-imports``) and this test read one table.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "vsizer"

#: Longest function (lines, decorators excluded, docstring included).
MAX_FUNCTION_LINES = 80
#: Longest module.
MAX_MODULE_LINES = 600

#: Functions allowed past MAX_FUNCTION_LINES, each with the reason.
LONG_FUNCTIONS: dict[str, str] = {
}

#: Modules allowed past MAX_MODULE_LINES, each with the reason.
LONG_MODULES: dict[str, str] = {
}


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _function_lengths() -> dict[str, int]:
    out: dict[str, int] = {}
    for path in _modules():
        rel = path.relative_to(ROOT).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        stack: list[tuple[ast.AST, str]] = [(tree, "")]
        while stack:
            node, prefix = stack.pop()
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    name = f"{prefix}{child.name}"
                    if not isinstance(child, ast.ClassDef):
                        end = child.end_lineno or child.lineno
                        out[f"{rel}::{name}"] = end - child.lineno + 1
                    stack.append((child, name + "."))
                else:
                    stack.append((child, prefix))
    return out


def test_import_contracts_hold() -> None:
    """``lint-imports`` over the contracts of pyproject.toml: layers and no cycle."""
    pytest.importorskip("importlinter")
    run = subprocess.run(
        [sys.executable, "-c", "from importlinter.cli import lint_imports_command; lint_imports_command()",
         "--no-cache"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "0 broken" in run.stdout


def test_contracts_cover_every_top_level_module() -> None:
    """A new top-level module must be placed in a layer (or a package)."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    layers = config["tool"]["importlinter"]["contracts"][0]["layers"]
    named = {m.strip() for layer in layers for m in layer.split(":")}
    top = {
        f"vsizer.{p.stem if p.is_file() else p.name}"
        for p in PACKAGE.iterdir()
        if (p.suffix == ".py" and p.stem not in ("__init__", "__main__"))
        or (p.is_dir() and (p / "__init__.py").exists())
    }
    assert sorted(top - named) == []


def test_no_function_is_too_long() -> None:
    lengths = _function_lengths()
    long = {k: n for k, n in lengths.items() if n > MAX_FUNCTION_LINES}
    unexplained = {k: n for k, n in long.items() if k not in LONG_FUNCTIONS}
    assert unexplained == {}
    stale = sorted(k for k in LONG_FUNCTIONS if lengths.get(k, 0) <= MAX_FUNCTION_LINES)
    assert stale == [], "remove from LONG_FUNCTIONS: no longer long"


def test_no_module_is_too_long() -> None:
    sizes = {
        p.relative_to(ROOT).as_posix(): len(p.read_text(encoding="utf-8").splitlines())
        for p in _modules()
    }
    long = {k: n for k, n in sizes.items() if n > MAX_MODULE_LINES}
    assert {k: n for k, n in long.items() if k not in LONG_MODULES} == {}
    assert sorted(k for k in LONG_MODULES if sizes.get(k, 0) <= MAX_MODULE_LINES) == []
