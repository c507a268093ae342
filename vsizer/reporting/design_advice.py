"""The design advice of a plan (``storage_choice`` and ``hardware_advice``,
:mod:`vsizer.study.design_advice`) in the three reports: terminal lines, a
titled table on the Excel summary sheet, an HTML section.

Plans without these sections (written before issue 28) show nothing. User
strings are escaped (HTML), stored as text (Excel) or printed as plain text.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.text import Text

from vsizer.reporting._html_page import Page, table

if TYPE_CHECKING:  # openpyxl is loaded only when a workbook is written
    from vsizer.reporting._xlsx import SheetWriter

__all__ = ["advice_rows", "design_advice_html", "design_advice_sheet", "print_design_advice"]

Label = Callable[..., str]


def storage_line(doc: Mapping[str, Any]) -> str:
    """The storage choice in one line: each pool's eligible types, best first."""
    parts = []
    for p in doc["pools"]:
        text = f"{p['pool']} ({p['hosts']} hosts): " + " > ".join(p["order"])
        if p["excluded"]:
            text += ", not " + ", ".join(e["type"] for e in p["excluded"]) + " (not shared)"
        parts.append(text)
    return (f"{' | '.join(parts)} — ranked by {doc['ranked_by']}; "
            f"{' and '.join(doc['not_ranked'])} not ranked")


def advice_rows(plan: Mapping[str, Any], t: Label) -> list[list[str]]:
    """One row per line: item, status, message, source (storage choice first)."""
    rows: list[list[str]] = []
    sc = plan.get("storage_choice")
    if sc:
        rows.append([t("advice_storage_choice"), sc["pools"][0]["choice"] if sc["pools"]
                     else "—", storage_line(sc), sc["source"]])
    for a in plan.get("hardware_advice") or ():
        rows.append([t(f"advice_{a['code']}"), t(f"advice_{a['status']}"), a["message"],
                     a["source"]])
    return rows


def print_design_advice(plan: Mapping[str, Any], console: Console, t: Label) -> None:
    """Terminal: the storage choice in one line, then the counted advice lines."""
    rows = advice_rows(plan, t)
    if not rows:
        return
    console.print(Text(f"{t('section_design_advice')} ({len(rows)})", style="bold"))
    for item, status, message, source in rows:
        console.print(Text(f"  {item} [{status}]: {message} (source: {source})"))


def design_advice_sheet(w: SheetWriter, plan: Mapping[str, Any]) -> None:
    """Excel: a titled table (item, status, advice, source) on the current sheet."""
    rows = advice_rows(plan, w.t)
    if rows:
        w.section(f"{w.t('section_design_advice')} ({len(rows)})",
                  [w.t(k) for k in ("advice_item", "advice_status", "advice_message",
                                    "advice_source")], rows)


def design_advice_html(page: Page, plan: Mapping[str, Any], t: Label) -> str:
    """HTML: the same table (empty string when the plan has no advice)."""
    rows = advice_rows(plan, t)
    if not rows:
        return ""
    return table([t(k) for k in ("advice_item", "advice_status", "advice_message",
                                 "advice_source")], rows)
