"""The plan's ``carbon`` section (issue 30) in the terminal, Excel and HTML:
one line before/after, then its figures with their keys in the plan JSON."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from rich.console import Console
from rich.text import Text

from vsizer.reporting._html_page import Page, esc, table
from vsizer.reporting._xlsx import SheetWriter

CARBON_SHEET_KEY = "sheet_carbon"

#: (label key, field of the section, number format).
_FIELDS: tuple[tuple[str, str, str | None], ...] = (
    ("carbon_grid", "grid_gco2_kwh", "#,##0.0"),
    ("carbon_source", "grid_source", None),
    ("carbon_kwh_before", "annual_kwh_before", "#,##0"),
    ("carbon_kwh_after", "annual_kwh_after", "#,##0"),
    ("carbon_op_before", "operational_kgco2e_before", "#,##0"),
    ("carbon_op_after", "operational_kgco2e_after", "#,##0"),
    ("carbon_op_saving", "operational_saving_kgco2e", "#,##0"),
    ("carbon_new_hosts", "new_hosts", "#,##0"),
    ("carbon_embodied_host", "embodied_kgco2e_per_host", "#,##0"),
    ("carbon_embodied", "embodied_kgco2e", "#,##0"),
    ("carbon_years", "years", "0"),
    ("carbon_embodied_year", "embodied_kgco2e_per_year", "#,##0"),
    ("carbon_net", "net_saving_kgco2e_per_year", "#,##0"),
    ("carbon_payback", "payback_year", "0"),
    ("carbon_embodied_source", "embodied_source", None),
    ("carbon_sunk", "sunk", None),
)


def _kg(x: Any) -> str:
    return "—" if x is None else f"{x:,.0f}"


def carbon_line(cb: Mapping[str, Any], L: Callable[..., str]) -> str:
    """Before -> after per year, embodied, net and payback, in one line."""
    where = f"{cb['grid_region']}, " if cb.get("grid_region") else ""
    return L("carbon_line", grid=f"{where}{cb['grid_gco2_kwh']:g}",
             before=_kg(cb["operational_kgco2e_before"]),
             after=_kg(cb["operational_kgco2e_after"]), embodied=_kg(cb["embodied_kgco2e"]),
             years=cb["years"], net=_kg(cb["net_saving_kgco2e_per_year"]),
             payback="—" if cb["payback_year"] is None else cb["payback_year"])


def print_carbon(plan: Mapping[str, Any], console: Console, L: Callable[..., str]) -> None:
    """One line (nothing without the section)."""
    if plan.get("carbon"):
        console.print(Text(carbon_line(plan["carbon"], L)))


def carbon_sheet(w: SheetWriter, plan: Mapping[str, Any]) -> None:
    """The line, then one row per figure with its key in the plan JSON."""
    cb = plan["carbon"]
    w.items([(w.t("section_carbon"), carbon_line(cb, w.t), None, "carbon"),
             *[(w.t(k), cb.get(f), fmt, f"carbon.{f}") for k, f, fmt in _FIELDS]])


def carbon_html(page: Page, plan: Mapping[str, Any], t: Callable[..., str]) -> str:
    """The section's body (empty without a ``carbon`` section)."""
    cb = plan.get("carbon")
    if not cb:
        return ""
    rows = [[t(k), "—" if cb.get(f) is None else
             (f"{cb[f]:,.1f}" if isinstance(cb[f], float) else cb[f])] for k, f, _ in _FIELDS]
    return f"<p>{esc(carbon_line(cb, t))}</p>" + table([t("item"), t("value")], rows)
