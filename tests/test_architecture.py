"""The shape of the code (docs/architecture.md): layers, cycles, complexity, sizes.

The import contracts live in ``pyproject.toml`` (``[tool.importlinter]``) so
``make lint`` (``lint-imports``) and this test read one table.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from collections import deque
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "vsizer"

#: Modules aim under this many lines (one module per concept, cut by concept
#: rather than by a line count); a module above it fails.
MAX_MODULE_LINES = 1000

#: Modules allowed past MAX_MODULE_LINES, each with the reason.
LONG_MODULES: dict[str, str] = {
}


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _module_names() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name)."""
    out = {}
    for path in _modules():
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def import_graph() -> dict[str, set[str]]:
    """Module -> the vsizer modules it imports, from every import statement of
    its AST: run-time, under ``if TYPE_CHECKING:`` and inside functions. An
    import names the most specific module it reaches (``from vsizer.a import b``
    is ``vsizer.a.b`` when that is a module, else ``vsizer.a``), as import-linter
    counts it."""
    modules = _module_names()

    def known(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        found: set[str | None] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(known(a.name) for a in node.names if a.name.split(".")[0] == "vsizer")
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package[: len(package) - node.level + 1]
                    source = ".".join(base + ([node.module] if node.module else []))
                else:
                    source = node.module or ""
                if source.split(".")[0] != "vsizer":
                    continue
                for alias in node.names:
                    full = f"{source}.{alias.name}"
                    found.add(full if full in modules else known(source))
        graph[name] = {m for m in found if m is not None and m != name}
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle (a path back to its start) in each strongly connected group of
    modules that import each other, in name order."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.add(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(group)
    return [_cycle_through(graph, group) for group in sorted(groups, key=min)]


def _cycle_through(graph: dict[str, set[str]], group: set[str]) -> list[str]:
    """The shortest path from the group's first module back to itself."""
    start = min(group)
    before: dict[str, str] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for child in sorted(graph[node] & group):
            if child == start:
                path = [node]
                while path[-1] != start:
                    path.append(before[path[-1]])
                return [start, *reversed(path[:-1]), start] if node != start else [start, start]
            if child not in before:
                before[child] = node
                queue.append(child)
    raise AssertionError(f"no cycle through {start}")


def _layers() -> list[tuple[set[str], bool]]:
    """The layers of pyproject's contract, highest first: (packages, independent)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    out = []
    for layer in config["tool"]["importlinter"]["contracts"][0]["layers"]:
        sep = "|" if "|" in layer else ":"
        out.append(({m.strip() for m in layer.split(sep)}, sep == "|"))
    return out


def _package_of(module: str) -> str:
    return ".".join(module.split(".")[:2])


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


def test_no_import_cycle() -> None:
    """No two modules import each other, directly or round a circle, counting
    every import statement (type-checking imports and imports inside functions
    too, which ``lint-imports`` does not see)."""
    cycles = import_cycles(import_graph())
    assert [" -> ".join(c) for c in cycles] == []


def test_the_cycle_finder_names_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e2"}, "e2": {"e"}}
    assert import_cycles(graph) == [["a", "b", "c", "a"], ["e", "e2", "e"]]


def test_no_import_goes_up_a_layer() -> None:
    """Every import of every module (type-checking ones included) goes to its
    own package, a lower layer, or (layers of ``a : b``) a sibling; the package
    root ``vsizer`` (the library front) and ``__main__`` sit above every layer."""
    rank: dict[str, tuple[int, bool]] = {}
    for i, (packages, independent) in enumerate(_layers()):
        for package in packages:
            rank[package] = (i, independent)
    top = {"vsizer": (-1, False), "vsizer.__main__": (-1, False)}
    up = []
    for module, imported in sorted(import_graph().items()):
        a = module if module in top else _package_of(module)
        for target in sorted(imported):
            b = target if target in top else _package_of(target)
            if a == b:
                continue
            (ra, independent), (rb, _) = {**rank, **top}[a], {**rank, **top}[b]
            if rb < ra or (rb == ra and independent):
                up.append(f"{module} -> {target}")
    assert up == []


def test_contracts_cover_every_top_level_module() -> None:
    """A new top-level module must be placed in a layer (or a package)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    layers = config["tool"]["importlinter"]["contracts"][0]["layers"]
    named = {m.strip() for layer in layers for m in layer.replace("|", ":").split(":")}
    top = {
        f"vsizer.{p.stem if p.is_file() else p.name}"
        for p in PACKAGE.iterdir()
        if (p.suffix == ".py" and p.stem not in ("__init__", "__main__"))
        or (p.is_dir() and (p / "__init__.py").exists())
    }
    assert sorted(top - named) == []


def test_no_function_is_too_complex() -> None:
    """Cyclomatic complexity at most ``[tool.ruff.lint.mccabe] max-complexity``
    (20) in every function: ``ruff check --select C901`` as ``make lint`` runs it."""
    pytest.importorskip("ruff")
    run = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--select", "C901", "--output-format",
         "concise", "vsizer"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]



def test_no_module_is_too_long() -> None:
    sizes = {
        p.relative_to(ROOT).as_posix(): len(p.read_text(encoding="utf-8").splitlines())
        for p in _modules()
    }
    long = {k: n for k, n in sizes.items() if n > MAX_MODULE_LINES}
    assert {k: n for k, n in long.items() if k not in LONG_MODULES} == {}
    assert sorted(k for k in LONG_MODULES if sizes.get(k, 0) <= MAX_MODULE_LINES) == []
