"""The growth section of the HTML report (when the plan has ``growth``): the
hosts needed per year end as stacked bars per pool, with the plan's host count
as a dashed line, then the table per year, when each pool runs out, and the
purchases."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from vsizer.reporting import _growth_view as view
from vsizer.reporting._html_page import Page, chart_text, esc, fmt_num, table

Label = Callable[..., str]

#: Colours of the pools' bars, cycled; the plan's line is red like the ceilings.
_PALETTE = ("#1f4e79", "#4e79a7", "#76b7b2", "#59a14f", "#edc948", "#b07aa1")
_PLAN_COLOUR = "#b42318"
_FONT = {"family": "system-ui, 'Hiragino Sans', 'Noto Sans CJK JP', Meiryo, sans-serif"}


def growth_chart(g: Mapping[str, Any], t: Label) -> dict[str, Any]:
    """Stacked bars: hosts each pool needs at each year end; dashed: the plan's hosts."""
    years = [y.get("year") for y in g.get("years") or ()]
    x = [str(y) for y in years]
    data: list[dict[str, Any]] = []
    for i, pool in enumerate(view.pool_names(g)):
        data.append(
            {
                "type": "bar",
                "name": chart_text(pool),
                "x": x,
                "y": [(y.get("pools") or {}).get(pool) for y in g.get("years") or ()],
                "marker": {"color": _PALETTE[i % len(_PALETTE)]},
            }
        )
    owned = sum(int(n) for n in (g.get("plan_hosts") or {}).values())
    data.append(
        {
            "type": "scatter",
            "mode": "lines",
            "name": t("growth_plan_line", n=owned),
            "x": x,
            "y": [owned] * len(x),
            "line": {"color": _PLAN_COLOUR, "dash": "dash", "shape": "hv"},
        }
    )
    layout = {
        "annotations": _no_count_notes(g, x, t),
        "barmode": "stack",
        "margin": {"l": 60, "r": 20, "t": 40, "b": 60},
        "font": _FONT,
        "legend": {"orientation": "h", "y": -0.2},
        "plot_bgcolor": "#ffffff",
        "title": {"text": t("chart_growth")},
        "xaxis": {"title": {"text": t("growth_year")}, "type": "category"},
        "yaxis": {"title": {"text": t("growth_hosts")}, "rangemode": "tozero"},
    }
    return {"data": data, "layout": layout}


def _no_count_notes(g: Mapping[str, Any], x: list[str], t: Label) -> list[dict[str, Any]]:
    """'no count holds it' above the bars of a year where a pool has no count."""
    notes = []
    for label_x, y in zip(x, g.get("years") or (), strict=False):
        counts = list((y.get("pools") or {}).values())
        if any(n is None for n in counts):
            notes.append(
                {
                    "x": label_x,
                    "y": sum(n for n in counts if n is not None),
                    "yanchor": "bottom",
                    "text": t("growth_no_count"),
                    "showarrow": False,
                    "font": {"color": _PLAN_COLOUR, "size": 11},
                }
            )
    return notes


def growth_html(page: Page, plan: Mapping[str, Any], t: Label) -> str:
    """The section's body (empty when the plan has no growth)."""
    g = view.growth(plan)
    if g is None:
        return ""
    unit = (plan.get("demand") or {}).get("capacity_unit")
    headers = view.year_headers(g, t, unit)
    years = table(
        headers,
        [[fmt_num(v) for v in row] for row in view.year_rows(g)],
        numeric=range(len(headers)),
    )
    pools = table(
        [t("pool"), t("growth_plan_hosts"), t("growth_runs_out")],
        [[p, fmt_num(n), fmt_num(r)] for p, n, r in view.pool_rows(g, t)],
        numeric=(1, 2),
    )
    bought = table(
        [t("growth_year"), t("pool"), t("growth_hosts_added")],
        [[fmt_num(y), p, fmt_num(n)] for y, p, n in view.purchase_rows(g)],
        numeric=(0, 2),
    )
    mode = t(f"value_{g.get('size_for')}")
    notes = [t("growth_note"), *[str(n) for n in g.get("notes") or ()]]
    return (
        f"<p>{esc(view.summary_line(g, t))} {esc(t('growth_size_for'))}: {esc(mode)}.</p>"
        + page.chart(growth_chart(g, t), height=360)
        + years
        + f"<h3>{esc(t('growth_runs_out'))}</h3>"
        + pools
        + f"<h3>{esc(t('growth_purchases'))}</h3>"
        + bought
        + "<ul>"
        + "".join(f"<li>{esc(n)}</li>" for n in notes)
        + "</ul>"
    )
