"""The figures of the house (issue 26): files, lines, function sizes, the most
complex functions and the import cycles of a checkout's ``vsizer`` package.

    python scripts/house_figures.py [ROOT]        # ROOT: a checkout, default this one

Complexity is McCabe's, as ``ruff check --select C901`` measures it; import
cycles count every import statement (type-checking ones and those inside
functions included), as ``tests/test_architecture.py`` does.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

TOP = 12


def _modules(root: Path) -> dict[str, Path]:
    out = {}
    for path in sorted((root / "vsizer").rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    def known(dotted: str) -> str | None:
        while dotted and dotted not in modules:
            dotted = dotted.rpartition(".")[0]
        return dotted or None

    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found: set[str | None] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(known(a.name) for a in node.names if a.name.startswith("vsizer"))
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            source = ".".join(base + [node.module]) if node.module else ".".join(base)
            if source.split(".")[0] == "vsizer":
                for alias in node.names:
                    full = f"{source}.{alias.name}"
                    found.add(full if full in modules else known(source))
    return {m for m in found if m is not None and m != name}


def _cycle_groups(graph: dict[str, set[str]]) -> list[list[str]]:
    """Groups of modules that reach each other (strongly connected, size > 1)."""
    reach: dict[str, set[str]] = {}
    for start in graph:
        seen, todo = set(), [start]
        while todo:
            for nxt in graph[todo.pop()]:
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        reach[start] = seen
    groups = {frozenset(m for m in graph if m in reach[a] and a in reach[m]) | {a}
              for a in graph if a in reach[a]}
    return sorted((sorted(g) for g in groups if len(g) > 1), key=lambda g: g[0])


def _function_lines(paths: list[Path]) -> list[int]:
    out = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out.append((node.end_lineno or node.lineno) - node.lineno + 1)
    return out


def _complexity(root: Path) -> list[tuple[int, str]]:
    """(complexity, where) of every function above 5, most complex first."""
    run = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--isolated", "--select", "C901",
         "--config", "lint.mccabe.max-complexity=5", "--output-format", "concise",
         "vsizer"],
        cwd=root, capture_output=True, text=True, check=False,
    )
    pattern = re.compile(r"^(\S+?):(\d+):\d+: C901 `(.+?)` is too complex \((\d+) > 5\)")
    found = [(int(m[4]), f"{m[1]}:{m[2]} {m[3]}")
             for m in map(pattern.match, run.stdout.splitlines()) if m]
    return sorted(found, key=lambda x: (-x[0], x[1]))


def main() -> None:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parents[1]).resolve()
    modules = _modules(root)
    paths = list(modules.values())
    lines = {p: len(p.read_text(encoding="utf-8").splitlines()) for p in paths}
    functions = _function_lines(paths)
    complexity = _complexity(root)
    graph = {name: _imports(name, path, modules) for name, path in modules.items()}
    cycles = _cycle_groups(graph)
    print(f"house of {root}")
    print(f"python files in vsizer/: {len(paths)} ({sum(1 for p in paths if p.name.startswith('_') and p.name != '__init__.py')} private _*.py)")
    print(f"lines: {sum(lines.values())}; largest module {max(lines.values())}")
    for low, high in ((527, 600), (601, 1000), (1001, 10**9)):
        n = sum(1 for v in lines.values() if low <= v <= high)
        print(f"modules of {low}-{high if high < 10**9 else ''} lines: {n}")
    print(f"functions: {len(functions)}; exactly 80 lines: {functions.count(80)}; "
          f"75-80 lines: {sum(1 for n in functions if 75 <= n <= 80)}; "
          f"over 80 lines: {sum(1 for n in functions if n > 80)}")
    print(f"functions of complexity > 20: {sum(1 for c, _ in complexity if c > 20)}; "
          f"> 15: {sum(1 for c, _ in complexity if c > 15)}; "
          f"> 10: {sum(1 for c, _ in complexity if c > 10)}")
    print(f"most complex functions (McCabe, ruff C901), top {TOP}:")
    for c, where in complexity[:TOP]:
        print(f"  {c:3d}  {where}")
    print(f"import cycles (every import statement): {len(cycles)}")
    for group in cycles:
        print(f"  {len(group)} modules: {', '.join(group)}")


if __name__ == "__main__":
    main()
