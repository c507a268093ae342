"""Write the "Published figures" table of docs/models.md from tests/published_figures.py.

Runs every figure's command (``vsizer ... --json``), and replaces the text between
``<!-- figures:begin -->`` and ``<!-- figures:end -->`` with one row per figure:
figure, source, expected, computed, command and JSON key.

Usage: PYTHONPATH=. python scripts/make_figures_table.py
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from tests.published_figures import FIGURES, pick, within
from vsizer.cli import app

DOC = Path("docs/models.md")
BEGIN, END = "<!-- figures:begin -->", "<!-- figures:end -->"


def _fmt(v: float) -> str:
    return f"{v:.6g}"


def main() -> None:
    cache: dict[tuple[str, ...], dict] = {}
    lines = ["| figure | source | expected | computed | ok | command | JSON key |",
             "|---|---|---|---|---|---|---|"]
    for figure, source, expected, tol, command, path in FIGURES:
        key = tuple(command)
        if key not in cache:
            r = CliRunner().invoke(app, list(command), env={"COLUMNS": "250"})
            cache[key] = json.loads(r.stdout)
        value = float(pick(cache[key], path))
        shown = " ".join(a for a in command if a != "--json")
        tol_text = tol if isinstance(tol, str) else ("exact" if tol < 1e-6 else f"± {tol:g}")
        lines.append(f"| {figure} | {source} | {_fmt(expected)} ({tol_text}) | {_fmt(value)} | "
                     f"{'yes' if within(value, expected, tol) else 'NO'} | `vsizer {shown}` | `{path}` |")
    text = DOC.read_text(encoding="utf-8")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    DOC.write_text(head + BEGIN + "\n" + "\n".join(lines) + "\n" + END + tail, encoding="utf-8")
    print(f"wrote {len(FIGURES)} rows to {DOC}")


if __name__ == "__main__":
    main()
