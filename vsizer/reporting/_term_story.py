"""The default terminal summary (issue 27): the plan's story on one screen --
decision, before -> after, savings, per pool, risks with the top warnings --
at most about 60 lines at 80 columns. The full tables are behind ``--detail``
(:func:`vsizer.reporting.terminal.print_summary`). User strings are printed as
plain text (``Text``), never as rich markup.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from vsizer.reporting._carbon_report import print_carbon
from vsizer.reporting._explain import bottleneck
from vsizer.reporting._migration_report import print_migration
from vsizer.reporting._story import story
from vsizer.reporting.labels import LABELS

__all__ = ["MAX_POOLS", "print_story"]

Label = Callable[..., str]

#: Pools listed on the default screen; the rest are counted (all are in --detail).
MAX_POOLS = 8

_STYLE = {True: "green", False: "bold red", None: ""}


def _before_after(rows: list[tuple[str, str, str, str]], L: Label) -> Table:
    tab = Table(show_edge=False, box=None, pad_edge=False, padding=(0, 1))
    tab.add_column(L("mgmt_item"), overflow="fold", ratio=3)
    for key in ("mgmt_before", "mgmt_after", "mgmt_change"):
        tab.add_column(L(key), justify="right", no_wrap=True)
    for k, b, a, c in rows:
        tab.add_row(k, b, Text(a, style="bold"), c)
    return tab


def _pools(plan: Mapping[str, Any], L: Label) -> Table:
    tab = Table(title=L("section_pools"), title_justify="left", show_lines=False)
    tab.add_column(L("pool"), overflow="fold", max_width=16)
    tab.add_column(L("servers"), justify="right", no_wrap=True)
    tab.add_column(L("hosts"), justify="right", no_wrap=True)
    tab.add_column(L("term_failures"), justify="right", no_wrap=True)
    tab.add_column(L("survives"), no_wrap=True)
    tab.add_column(L("term_why"), overflow="fold", ratio=1)
    pools = plan["pools"]
    for p in pools[:MAX_POOLS]:
        ok = (p.get("failover") or {}).get("survives")
        tab.add_row(
            Text(str(p["name"])), str(p["servers"]), str(p["host_count"]),
            str(p["failures"]),
            Text(L("yes") if ok else L("no"), style=_STYLE[bool(ok)]),
            Text(bottleneck(p, L, lambda d: L(f"dim_{d}") if f"dim_{d}" in LABELS else d)),
        )
    if len(pools) > MAX_POOLS:
        tab.caption = L("term_more_pools", n=len(pools) - MAX_POOLS)
        tab.caption_justify = "left"
    return tab


def print_story(plan: Mapping[str, Any], console: Console, L: Label) -> None:
    """Print the one-screen summary of ``plan`` in the language of ``L``."""
    st = story(plan, L)
    console.print(Text(L("workbook_title"), style="bold"))
    console.print(Text(f"{L('mgmt_decision')}: {st.decision}",
                       style="bold green" if st.go else "bold red"))
    choice = plan.get("choice")
    if isinstance(choice, Mapping) and choice.get("winner"):
        n = len(choice.get("candidates") or ())
        console.print(Text(L("term_choice", model=choice["winner"], n=n or "—")))
    console.print()
    console.print(_before_after(st.before_after, L))
    console.print(Text(f"{L('mgmt_savings')}: {st.savings}"))
    print_carbon(plan, console, L)  # one line, with a grid intensity only
    print_migration(plan, console, L)  # readiness and hygiene, RVTools plans only
    console.print()
    console.print(_pools(plan, L))
    console.print(Text(L("mgmt_risks"), style="bold"))
    for state, text in st.risks:
        console.print(Text(f"- {text}", style=_STYLE[state]))
    console.print(Text(f"- {st.warnings_head}", style="yellow" if st.warning_count else ""))
    for code, msg in st.top:
        console.print(Text(f"  - {msg} [{code}]"))
    if st.warning_count > len(st.top):
        console.print(Text(f"  {L('mgmt_more_warnings', n=st.warning_count - len(st.top))}"))
    console.print(Text(L("term_detail_hint"), style="dim"))
