"""The growth block of the terminal summary (when the plan has ``growth``)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from vsizer.reporting import _growth_view as view


def _cell(value: Any) -> Text:
    if value is None:
        return Text("—")
    if isinstance(value, float):
        return Text(f"{value:,.0f}")
    return Text(str(value))


def print_growth(plan: dict[str, Any], console: Console, L: Any) -> None:
    """A table of hosts needed per year end and per pool, and one summary line."""
    g = view.growth(plan)
    if g is None:
        return
    unit = (plan.get("demand") or {}).get("capacity_unit")
    headers = view.year_headers(g, L, unit)
    t = Table(title=L("section_growth"), title_justify="left")
    for i, h in enumerate(headers):
        t.add_column(Text(h), justify="left" if i == 0 else "right")
    for row in view.year_rows(g):
        t.add_row(*[_cell(v) for v in row])
    console.print(t)
    runs = Table(show_header=True)
    for h in (L("pool"), L("growth_plan_hosts"), L("growth_runs_out")):
        runs.add_column(Text(h))
    for row in view.pool_rows(g, L):
        runs.add_row(*[_cell(v) for v in row])
    console.print(runs)
    console.print(Text(view.summary_line(g, L)))
    for note in g.get("notes") or ():
        console.print(Text(str(note), style="yellow"))
