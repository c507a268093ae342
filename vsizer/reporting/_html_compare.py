"""The HTML report of a what-if comparison (:func:`vsizer.study.compare.compare`).

One self-contained page: the recommendation line with its criterion, the
scenarios side by side (one column each: hosts, racks, power, cost, worst
failover, predicted performance), and bar charts of hosts, power after,
annual cost after and worst survivor utilization. Built with the same escaped
building blocks as the plan report (:mod:`vsizer.reporting._html_page`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any

from vsizer.errors import InputError
from vsizer.reporting._html_page import Page, chart_text, esc, fmt_num, fmt_pct, table
from vsizer.reporting.labels import check_lang, label, with_unit

__all__ = ["compare_html", "write_compare_html"]

Label = Callable[..., str]

#: Rows of the side-by-side table: (label key, entry key, formatter, unit).
_ROWS: tuple[tuple[str, str, str, str | None], ...] = (
    ("description", "description", "text", None),
    ("host_model", "host_model", "text", None),
    ("host_cores", "host_cores", "int", None),
    ("mem_gib", "host_mem_gib", "int", "GiB"),
    ("ceiling", "ceiling", "pct", None),
    ("failures", "failures", "int", None),
    ("servers", "servers", "int", None),
    ("hosts", "hosts", "int", None),
    ("lower_bound", "lower_bound", "int", None),
    ("consolidation_ratio", "consolidation_ratio", "ratio", None),
    ("racks_after", "racks_after", "int", None),
    ("rack_u_after", "rack_u_after", "dec1", "U"),
    ("power_after_w", "power_after_w", "int", "W"),
    ("annual_kwh_after", "annual_kwh_after", "int", "kWh"),
    ("annual_cost_after", "annual_cost_after", "int", "{currency}"),
    ("annual_saving", "annual_saving", "int", "{currency}"),
    ("saving_over_years", "saving_over_years", "int", "{currency}"),
    ("hosts_cost", "hosts_cost", "int", "{currency}"),
    ("total_cost_over_years", "total_cost_over_years", "int", "{currency}"),
    ("survives_failover", "survives_failover", "bool", None),
    ("worst_survivor_util", "worst_survivor_util", "pct", None),
    ("targets_met", "targets_met", "targets", None),
    ("predicted_performance", "predicted_performance", "pred", None),
)


def _value(t: Label, entry: Mapping[str, Any], key: str, kind: str) -> str:
    value = entry.get(key)
    if kind == "text":
        return "" if value is None else str(value)
    if kind == "pct":
        return fmt_pct(value)
    if kind == "ratio":
        return fmt_num(value, 2)
    if kind == "dec1":
        return fmt_num(value, 1)
    if kind == "bool":
        return "—" if value is None else t("yes" if value else "no")
    if kind == "targets":
        n = entry.get("targets_evaluated") or 0
        return f"{value} / {n}" if n else "—"
    if kind == "pred":
        if not isinstance(value, Mapping):
            return "—"
        return t(
            "pred_summary",
            metric=value.get("metric"),
            mean=fmt_num(value.get("mean"), 3),
            min=fmt_num(value.get("min"), 3),
        )
    return fmt_num(value)


def _check(doc: Any) -> None:
    if not isinstance(doc, Mapping) or not isinstance(doc.get("scenarios"), list):
        raise InputError(
            "comparison: expected the dict of vsizer.study.compare.compare with a "
            "'scenarios' list (see docs/report.md)."
        )


def _recommendation(t: Label, rec: Mapping[str, Any], entries: list) -> str:
    if not rec.get("scenario"):
        return f'<p class="rec">{esc(t("no_recommendation"))}</p>'
    crit = rec.get("criterion")
    best = next(e for e in entries if e["name"] == rec["scenario"])
    cur = best.get("currency") or ""
    if crit == "total_cost_over_years":
        text = t(
            "rec_total_cost",
            name=rec["scenario"],
            years=best.get("years"),
            value=fmt_num(rec.get("value")),
            currency=cur,
        )
    else:
        text = t(
            "rec_hosts",
            name=rec["scenario"],
            hosts=rec.get("value"),
            power=fmt_num(best.get("power_after_w")),
        )
    if rec.get("runner_up"):
        text += " " + t(
            "rec_runner_up",
            name=rec["runner_up"],
            value=fmt_num(rec.get("runner_up_value")),
        )
    out = f'<p class="rec">{esc(text)}</p>'
    for ex in rec.get("excluded") or ():
        out += f'<p class="note">{esc(ex.get("scenario"))}: {esc(ex.get("reason"))}</p>'
    return out


_SCENARIO_COLOURS = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#b07aa1")


def _bars(entries: list[Mapping[str, Any]], t: Label) -> dict[str, Any]:
    """Four panels (hosts, power, cost, worst failover), one colour per scenario."""
    panels = (
        ("hosts", None),
        ("power_after_w", "W"),
        ("annual_cost_after", entries[0].get("currency")),
        ("worst_survivor_util", None),
    )
    data: list[dict[str, Any]] = []
    layout: dict[str, Any] = {
        "grid": {"rows": 2, "columns": 2, "pattern": "independent"},
        "legend": {"orientation": "h", "y": 1.12},
        "margin": {"l": 70, "r": 20, "t": 60, "b": 30},
        "barmode": "group",
    }
    for i, (key, unit) in enumerate(panels, start=1):
        suffix = "" if i == 1 else str(i)
        for j, e in enumerate(entries):
            data.append(
                {
                    "type": "bar",
                    "name": chart_text(e["name"]),
                    "legendgroup": f"s{j}",
                    "showlegend": i == 1,
                    "x": [t(key)],
                    "y": [e.get(key)],
                    "marker": {"color": _SCENARIO_COLOURS[j % len(_SCENARIO_COLOURS)]},
                    "xaxis": f"x{suffix}",
                    "yaxis": f"y{suffix}",
                    "hovertemplate": "%{fullData.name}: %{y}<extra></extra>",
                }
            )
        title = with_unit(t(key), chart_text(unit) if unit else None)
        layout[f"yaxis{suffix}"] = {
            "title": {"text": title},
            "rangemode": "tozero",
            **({"tickformat": ".0%"} if key == "worst_survivor_util" else {}),
        }
        layout[f"xaxis{suffix}"] = {"type": "category", "showticklabels": False}
    return {"data": data, "layout": layout}


def compare_html(doc: Mapping[str, Any], *, lang: str = "en") -> str:
    """The HTML comparison report of ``doc`` as text.

    Parameters
    ----------
    doc : dict
        The result of :func:`vsizer.study.compare.compare`.
    lang : {"en", "ja"}, default "en"
        Language of titles and labels.

    Raises
    ------
    vsizer.errors.ConfigError
        ``lang`` is not ``"en"`` or ``"ja"``; plotly is missing.
    vsizer.errors.InputError
        ``doc`` is not a comparison document.
    """
    check_lang(lang, "write_compare_html")
    _check(doc)

    def t(key: str, **fields: Any) -> str:
        return label(key, lang, **fields)

    entries = list(doc["scenarios"])
    page = Page(
        title=t("compare_title"),
        lang=lang,
        subtitle=t(
            "compare_subtitle",
            inventory=doc.get("inventory", "—"),
            n=len(entries),
            version=doc.get("vsizer_version", ""),
        ),
    )
    rec = doc.get("recommendation") or {}
    page.section(
        "recommendation", t("recommendation"), _recommendation(t, rec, entries)
    )
    rows = []
    for key, field, kind, unit in _ROWS:
        cur = entries[0].get("currency") if entries else ""
        unit_text = unit.format(currency=cur) if unit else None
        rows.append(
            [
                with_unit(
                    t(key, years=entries[0].get("years") if entries else ""), unit_text
                )
            ]
            + [_value(t, e, field, kind) for e in entries]
        )
    side = table(
        [t("item"), *[str(e["name"]) for e in entries]],
        rows,
        numeric=range(1, len(entries) + 1),
        cls="full",
    )
    page.section("scenarios", t("section_scenarios"), side)
    if entries:
        page.section(
            "charts",
            t("section_compare_charts"),
            page.chart(_bars(entries, t), height=620),
        )
    return page.render()


def write_compare_html(
    doc: Mapping[str, Any], path: str | os.PathLike[str], *, lang: str = "en"
) -> None:
    """Write the HTML comparison report of ``doc`` to ``path`` (UTF-8).

    See :func:`compare_html` for parameters and errors.
    """
    from vsizer._atomic import atomic_write

    text = compare_html(doc, lang=lang)
    with atomic_write(path, "w", encoding="utf-8") as fh:
        fh.write(text)
