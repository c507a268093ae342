"""The host-model choice and total cost (``choice`` and ``tco`` sections of the
plan document, :mod:`vsizer.study.choice`) in the three reports: terminal
lines, an Excel sheet and an HTML section with a stacked bar chart of the
cost of each candidate by kind.

Only plans that carry a ``choice`` or a ``tco`` section show it
(:func:`has_choice`). Every user string is escaped (HTML, via
:mod:`vsizer.reporting._html_page`), stored as text (Excel, via
:class:`~vsizer.reporting._xlsx.SheetWriter`), or printed as plain text.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from vsizer.reporting._html_page import Page, chart_text, esc, fmt_num, table
from vsizer.reporting.labels import label, with_unit

if TYPE_CHECKING:  # openpyxl is loaded only when a workbook is written
    from vsizer.reporting._xlsx import SheetWriter

#: Number format of money in the sheet (``vsizer.reporting._xlsx.INT``).
INT = "#,##0"

__all__ = ["choice_section", "choice_sheet", "has_choice", "print_choice"]

#: Cost parts of a candidate row and their labels, in stacking order.
PARTS: tuple[tuple[str, str], ...] = (
    ("capex", "tco_capex"),
    ("support", "tco_support"),
    ("licences", "tco_licences"),
    ("energy_cost", "tco_energy"),
    ("rack_cost", "tco_rack"),
)

_COLOURS = ("#1f4e79", "#5b9bd5", "#c55a11", "#1b7f3b", "#7f7f7f")

Label = Callable[..., str]


def has_choice(plan: Mapping[str, Any]) -> bool:
    """The plan carries a host-model choice or a total cost."""
    return bool(plan.get("choice") or plan.get("tco"))


def candidate_rows(plan: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The candidates of ``choice``; for a plan with only ``tco``, its one row."""
    if plan.get("choice"):
        return list(plan["choice"]["candidates"])
    tco = plan["tco"]
    parts = tco["parts"]
    return [
        {
            "rank": 1,
            "model": plan["inputs"].get("host_model"),
            "hosts": tco["hosts"],
            "survives": plan["summary"].get("survives_failover"),
            "capex": parts["capex"],
            "support": parts["support"],
            "licences": parts["licences"],
            "energy_cost": parts["energy"],
            "rack_cost": parts["rack"],
            "tco": tco["total"],
            "known_tco": tco["known_total"],
            "missing": tco["missing"],
            "error": None,
        }
    ]


def _currency(plan: Mapping[str, Any]) -> str:
    section = plan.get("choice") or plan.get("tco") or {}
    return str(section.get("currency") or "")


def _years(plan: Mapping[str, Any]) -> Any:
    section = plan.get("choice") or plan.get("tco") or {}
    return section.get("years")


def _yes_no(value: Any, t: Label) -> str:
    return "—" if value is None else t("yes" if value else "no")


# -- terminal ---------------------------------------------------------------------
def print_choice(plan: Mapping[str, Any], console: Console, lang: str = "en") -> None:
    """The chosen model and why, and the ranking (plain text, no markup)."""
    if not has_choice(plan):
        return

    def t(key: str, **kw: Any) -> str:
        return label(key, lang, **kw)

    cur = _currency(plan)
    if plan.get("choice"):
        ch = plan["choice"]
        console.print(Text(f"{t('choice_winner')}: {ch['winner']}", style="bold"))
        console.print(Text(f"{t('criterion')}: {ch['criterion']}"))
        console.print(Text(f"{t('choice_why')}: {ch['why']}"))
    tab = Table(title=t("section_choice"), title_justify="left")
    for head in (t("choice_rank"), t("model"), t("hosts"), t("survives_failover"),
                 with_unit(t("tco"), cur), with_unit(t("tco_known"), cur)):
        tab.add_column(head)
    for r in candidate_rows(plan):
        tab.add_row(
            str(r["rank"]), Text(str(r["model"])),
            "—" if r["hosts"] is None else str(r["hosts"]),
            _yes_no(r["survives"], t) if r["error"] is None else t("choice_error"),
            fmt_num(r["tco"]), fmt_num(r["known_tco"]),
        )
    console.print(tab)


# -- Excel ------------------------------------------------------------------------
def choice_sheet(w: SheetWriter, plan: Mapping[str, Any]) -> None:
    """The choice sheet: winner and criterion, ranking table, licences."""
    cur = _currency(plan)
    if plan.get("choice"):
        ch = plan["choice"]
        w.items([
            (w.t("choice_winner"), ch["winner"], None, "choice.winner"),
            (w.t("criterion"), ch["criterion"], None, "choice.criterion"),
            (w.t("choice_why"), ch["why"], None, "choice.why"),
            (w.t("years"), ch["years"], INT, "choice.years"),
        ])
    heads = [w.t("choice_rank"), w.t("model"), w.t("hosts"), w.t("survives_failover")]
    heads += [with_unit(w.t(key), cur) for _, key in PARTS]
    heads += [with_unit(w.t("tco"), cur), w.t("tco_missing"), w.t("choice_error")]
    rows = [
        [r["rank"], r["model"], r["hosts"], w.yes_no(r["survives"])]
        + [r[part] for part, _ in PARTS]
        + [r["tco"], ", ".join(r["missing"]), r["error"]]
        for r in candidate_rows(plan)
    ]
    fmts = [INT, None, INT, None] + [INT] * len(PARTS) + [INT, None, None]
    w.section(w.t("section_choice"), heads, rows, fmts, autofilter=True)
    lines = (plan.get("tco") or {}).get("licences") or []
    if lines:
        w.section(
            w.t("tco_licences"),
            [w.t("licence_name"), w.t("licence_unit"), w.t("licence_per_host"),
             w.t("licence_count"), with_unit(w.t("price"), cur),
             with_unit(w.t("licence_cost"), cur), w.t("source")],
            [[x["name"], x["unit"], x["per_host"], x["count"], x["price"], x["cost"],
              x["source"]] for x in lines],
            [None, None, INT, INT, INT, INT, None],
        )


# -- HTML -------------------------------------------------------------------------
def tco_chart(plan: Mapping[str, Any], t: Label) -> dict[str, Any]:
    """Stacked bars: each candidate's cost over the years by kind."""
    rows = [r for r in candidate_rows(plan) if r["error"] is None]
    models = [chart_text(r["model"]) for r in rows]
    data = [
        {
            "type": "bar",
            "name": t(key),
            "x": models,
            "y": [r[part] for r in rows],
            "marker": {"color": colour},
        }
        for (part, key), colour in zip(PARTS, _COLOURS, strict=True)
        if any(r[part] is not None for r in rows)
    ]
    cur = chart_text(_currency(plan))
    layout = {
        "barmode": "stack",
        "title": {"text": chart_text(t("chart_tco", years=_years(plan)))},
        "yaxis": {"title": {"text": f"[{cur}]"}, "rangemode": "tozero"},
        "margin": {"l": 70, "r": 20, "t": 50, "b": 120},
        "legend": {"orientation": "h", "y": -0.35},
        "plot_bgcolor": "#ffffff",
    }
    return {"data": data, "layout": layout}


def choice_section(page: Page, plan: Mapping[str, Any], t: Label) -> str:
    """The HTML section: winner and why, the stacked chart, the ranking table."""
    cur = _currency(plan)
    head = ""
    if plan.get("choice"):
        ch = plan["choice"]
        head = (
            f"<p><strong>{esc(t('choice_winner'))}: {esc(ch['winner'])}</strong></p>"
            f"<p>{esc(t('criterion'))}: {esc(ch['criterion'])}</p>"
            f"<p>{esc(t('choice_why'))}: {esc(ch['why'])}</p>"
        )
    heads = [t("choice_rank"), t("model"), t("hosts"), t("survives_failover")]
    heads += [with_unit(t(key), cur) for _, key in PARTS]
    heads += [with_unit(t("tco"), cur), t("tco_missing"), t("choice_error")]
    rows = [
        [r["rank"], r["model"], r["hosts"],
         _yes_no(r["survives"], t) if r["error"] is None else "—"]
        + [fmt_num(r[part]) for part, _ in PARTS]
        + [fmt_num(r["tco"]), ", ".join(r["missing"]), r["error"] or ""]
        for r in candidate_rows(plan)
    ]
    body = table(heads, rows, numeric=range(4, 4 + len(PARTS) + 1))
    tco = plan.get("tco") or {}
    notes = ""
    if tco:
        notes = (
            f"<p>{esc(t('tco_missing'))}: {esc(', '.join(tco['missing']) or '—')}; "
            f"{esc(t('tco_not_counted'))}: {esc(', '.join(tco['not_counted']) or '—')}."
            f" {esc(tco['criterion'])}</p>"
        )
    return head + page.chart(tco_chart(plan, t), height=420) + body + notes
