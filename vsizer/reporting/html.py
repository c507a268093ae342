"""The HTML report of a plan: one self-contained file worth forwarding.

:func:`write_plan_html` renders the plan dict of ``docs/plan-schema.md``
(schema "1" or "2") into one HTML file with the charting library (plotly.js)
embedded, so it opens without network access. Sections:

1. summary cards (servers -> hosts, consolidation ratio, racks, power and
   annual cost before/after, saving over N years, failover, targets met),
   the pools and the targets;
2. power and cost before/after (chart and table);
3. placement: per host its VMs stacked by share of CPU and memory, with the
   ceiling and 100 % lines, and the host table;
4. host utilization over time (host x time heatmap, CPU and memory);
5. per-host stacked demand curves with the ceiling and 100 % lines, and the
   step-by-step replay -- sections 4 and 5 need the time-series curves of a
   schema "2" plan and otherwise say the plan was sized on peak/average
   figures;
6. failover scenarios: which hosts fail, where their VMs go, the worst
   survivor and step;
7. predicted performance per VM when the plan has ``predictions``;
8. the data-quality report; 9. inputs, parameters and host model;
10. warnings and excluded servers.

Labels are English or Japanese (``lang``). Every user string is escaped
(:mod:`vsizer.reporting._html_page`). The same plan and language give the
same bytes.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from typing import Any

from vsizer.reporting import _html_charts as charts
from vsizer.reporting._carbon_report import carbon_html
from vsizer.reporting._explain import explain_html
from vsizer.reporting._html_growth import growth_html
from vsizer.reporting._html_management import MGMT_CSS
from vsizer.reporting._html_page import Page, esc, fmt_num, fmt_pct, table
from vsizer.reporting._html_summary import (
    card,
    dimension_label,
    summary_section,
    verdict,
)
from vsizer.reporting._migration_report import migration_html
from vsizer.reporting._plan_view import (
    check_plan,
    failover_scenarios,
    host_rows,
    predictions,
    replay,
    scenario_count,
)
from vsizer.reporting._plan_view import warnings as plan_warnings
from vsizer.reporting._today import html_section as today_html
from vsizer.reporting.choice_report import choice_section, has_choice
from vsizer.reporting.design_advice import design_advice_html
from vsizer.reporting.labels import LABELS, check_lang, label, with_unit
from vsizer.reporting.storage import storage_section
from vsizer.reporting.target_report import target_html

__all__ = ["OPTIONAL_SECTION_KEYS", "SECTION_KEYS", "plan_html", "write_plan_html"]

#: Anchors of the report's sections, in page order.
SECTION_KEYS: tuple[str, ...] = (
    "summary",
    "explain",
    "power",
    "placement",
    "heatmap",
    "curves",
    "failover",
    "storage",
    "predictions",
    "quality",
    "inputs",
    "warnings",
)

#: Sections shown only when the plan document has the key of the same name.
OPTIONAL_SECTION_KEYS: tuple[str, ...] = ("storage",)

Label = Callable[..., str]


def _power(page: Page, plan: Mapping[str, Any], t: Label) -> str:
    power, space = plan["power"], plan["space"]
    cur = power.get("currency") or ""
    rows = [
        [with_unit(t("power_w"), "W"), power["before_w"], power["after_w"]],
        [
            with_unit(t("annual_kwh"), "kWh"),
            power["annual_kwh_before"],
            power["annual_kwh_after"],
        ],
        [
            with_unit(t("annual_cost"), cur),
            power.get("annual_cost_before"),
            power.get("annual_cost_after"),
        ],
        [with_unit(t("rack_u"), "U"), space["rack_u_before"], space["rack_u_after"]],
        [t("racks"), space["racks_before"], space["racks_after"]],
    ]
    body = table(
        [t("item"), t("before"), t("after")],
        [[r[0], fmt_num(r[1]), fmt_num(r[2])] for r in rows],
        numeric=(1, 2),
    )
    details = table(
        [t("item"), t("value")],
        [
            [with_unit(t("annual_saving"), cur), fmt_num(power.get("annual_saving"))],
            [
                with_unit(t("saving_over_years", years=power.get("years")), cur),
                fmt_num(power.get("saving_over_years")),
            ],
            [
                with_unit(t("price_kwh"), f"{cur}/kWh"),
                fmt_num(power.get("price_kwh"), 2),
            ],
            [t("pue"), fmt_num(power.get("pue"), 2)],
            *[
                [t(f"power_from_{k}"), v]
                for k, v in (power.get("servers_power_from") or {}).items()
                if f"power_from_{k}" in LABELS
            ],
        ],
        numeric=(1,),
    )
    chart = page.chart(charts.power_chart(plan, t), height=340)
    return chart + body + details + today_html(plan, t)  # today's clusters


def _placement(page: Page, plan: Mapping[str, Any], t: Label) -> str:
    fig = charts.placement_chart(plan, t)
    n_hosts = sum(1 for _ in host_rows(plan))
    chart = page.chart(fig, height=640) if fig else ""
    rows, classes = [], []
    for pool, ceiling, host in host_rows(plan):
        util = host.get("util") or {}
        over = any(
            (u or 0.0) > (1.0 if d == "vcpu" else ceiling) + 1e-9
            for d, u in util.items()
        )
        classes.append("bad" if over else "")
        rows.append(
            [
                pool["name"],
                host["id"],
                len(host.get("vms", [])),
                fmt_pct(util.get("cpu")),
                fmt_pct(util.get("mem")),
                fmt_pct(util.get("vcpu")),
                fmt_num(host.get("power_w")),
                ", ".join(map(str, host.get("vms", []))),
            ]
        )
    host_table = table(
        [
            t("pool"),
            t("host_id"),
            t("vm_count"),
            t("util_cpu"),
            t("util_mem"),
            t("util_vcpu"),
            with_unit(t("power_w"), "W"),
            t("vm"),
        ],
        rows,
        numeric=(2, 3, 4, 5, 6),
        row_classes=classes,
    )
    note = f'<p class="note">{esc(t("placement_note", hosts=n_hosts))}</p>'
    if any((h.get("curves") or {}).get("cpu") for _, _, h in host_rows(plan)):
        note += f'<p class="note">{esc(t("placement_note_series"))}</p>'
    return note + chart + host_table


def _no_series(t: Label) -> str:
    return f'<p class="note">{esc(t("no_series"))}</p>'


def _heatmap(page: Page, plan: Mapping[str, Any], t: Label) -> str:
    parts = []
    n_hosts = sum(1 for _ in host_rows(plan))
    for dim in ("cpu", "mem"):
        fig = charts.heatmap_chart(plan, t, dim)
        if fig:
            parts.append(page.chart(fig, height=min(900, 120 + 22 * n_hosts)))
    if not parts:
        return _no_series(t)
    series = plan.get("series") or {}
    info = t(
        "series_info",
        source=series.get("source", "—"),
        steps=series.get("steps", "—"),
        step=series.get("step_seconds", "—"),
        stride=series.get("stride", 1),
    )
    return f'<p class="note">{esc(info)}</p>' + "".join(parts)


def _curves(page: Page, plan: Mapping[str, Any], t: Label) -> str:
    fig = charts.stack_chart(plan, t, "cpu")
    if fig is None:
        return _no_series(t)
    out = page.chart(fig, height=420)
    rows = []
    for pool in plan["pools"]:
        rep = replay(pool)
        if rep is None:
            continue
        for h in rep.get("hosts") or ():
            dim = h.get("worst_dimension")
            rows.append(
                [
                    pool["name"],
                    h.get("id"),
                    h.get("steps_over_ceiling"),
                    h.get("steps_over_100"),
                    fmt_pct(h.get("worst_util")),
                    dimension_label(t, dim),
                    h.get("worst_step"),
                ]
            )
    if rows:
        out += f"<h3>{esc(t('section_replay'))}</h3>" + table(
            [
                t("pool"),
                t("host_id"),
                t("steps_over_ceiling"),
                t("steps_over_100"),
                t("worst_util"),
                t("worst_dimension"),
                t("worst_step"),
            ],
            rows,
            numeric=(2, 3, 4),
        )
    return out


def _moves(row: Mapping[str, Any]) -> str:
    return ", ".join(f"{m.get('vm')} → {m.get('to')}" for m in row["moves"])


def _failover(page: Page, plan: Mapping[str, Any], t: Label) -> str:
    per_pool = table(
        [
            t("pool"),
            t("failures"),
            t("scenarios"),
            t("survives"),
            t("worst_survivor_util"),
            t("worst_dimension"),
        ],
        [
            [
                p["name"],
                (p.get("failover") or {}).get("failures", p["failures"]),
                scenario_count(p),
                verdict(t, (p.get("failover") or {}).get("survives"), "yes", "no"),
                fmt_pct((p.get("failover") or {}).get("worst_survivor_util")),
                (p.get("failover") or {}).get("worst_dimension"),
            ]
            for p in plan["pools"]
        ],
        numeric=(1, 2, 4),
        raw=(3,),
    )
    fig = charts.failover_chart(plan, t)
    rows, classes = [], []
    for pool in plan["pools"]:
        for row in failover_scenarios(pool):
            util = row["worst_util"]
            classes.append(
                "bad" if row["unplaced"] or (util is not None and util > 1.0) else ""
            )
            rows.append(
                [
                    pool["name"],
                    ", ".join(map(str, row["failed"])),
                    _moves(row),
                    ", ".join(map(str, row["unplaced"])),
                    row["worst_host"],
                    row["worst_dimension"],
                    fmt_pct(util),
                    row["worst_step"],
                    row["steps_over_100"],
                ]
            )
    if not rows:
        return per_pool + f'<p class="note">{esc(t("no_failover"))}</p>'
    scen = table(
        [
            t("pool"),
            t("failed_hosts"),
            t("moves_to"),
            t("unplaced"),
            t("worst_host"),
            t("worst_dimension"),
            t("worst_util"),
            t("worst_step"),
            t("steps_over_100"),
        ],
        rows,
        numeric=(6, 8),
        row_classes=classes,
    )
    return per_pool + (page.chart(fig, height=360) if fig else "") + scen


#: Preferred numeric prediction to chart, first found wins.
_PREDICTION_KEYS = (
    "relative_cpu",
    "relative_performance",
    "relative",
    "performance_ratio",
    "throughput_ratio",
    "slowdown",
)


def _cell(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return "—" if value is None else str(value)
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, (list, tuple)):
        return ", ".join(map(str, value))
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return str(value)


def _generic_table(rows: list[Mapping[str, Any]]) -> tuple[str, list[str]]:
    keys = list(dict.fromkeys(k for r in rows for k in r))
    numeric = [
        i
        for i, k in enumerate(keys)
        if all(isinstance(r.get(k), (int, float)) or r.get(k) is None for r in rows)
    ]
    body = table(keys, [[_cell(r.get(k)) for k in keys] for r in rows], numeric=numeric)
    return body, keys


def _predictions(page: Page, plan: Mapping[str, Any], t: Label) -> str:
    pred = predictions(plan)
    if pred is None:
        return f'<p class="note">{esc(t("no_predictions"))}</p>'
    out = ""
    vms = [r for r in pred.get("vms") or () if isinstance(r, Mapping)]
    if vms:
        body, keys = _generic_table(vms)
        name_key = next((k for k in ("vm", "name", "server") if k in keys), keys[0])
        numeric = [k for k in keys if any(isinstance(r.get(k), float) for r in vms)]
        key = next((k for k in _PREDICTION_KEYS if k in numeric), None)
        if key is None:
            key = next((k for k in numeric if "perf" in k or "relative" in k), None)
        fig = charts.prediction_chart(vms, key, name_key, key) if key else None
        if fig:
            out += page.chart(fig, height=min(900, 100 + 18 * len(vms)))
        out += f"<h3>{esc(t('vm'))}</h3>" + body
    hosts = [r for r in pred.get("hosts") or () if isinstance(r, Mapping)]
    if hosts:
        out += f"<h3>{esc(t('host_id'))}</h3>" + _generic_table(hosts)[0]
    notes = [str(a) for a in pred.get("assumptions") or ()]
    notes += [_warning_text(w) for w in pred.get("warnings") or ()]
    if notes:
        out += "<ul>" + "".join(f"<li>{esc(n)}</li>" for n in notes) + "</ul>"
    return out


def _warning_text(w: Any) -> str:
    """A prediction warning (``{scope, name, model, reason}`` or text) as one line."""
    if isinstance(w, Mapping):
        where = " ".join(str(w[k]) for k in ("scope", "name") if w.get(k))
        model = f" [{w['model']}]" if w.get("model") else ""
        return f"{where}{model}: {w.get('reason', '')}"
    return str(w)


def _quality(page: Page, plan: Mapping[str, Any], t: Label) -> str:
    q = plan["quality"]

    def fields(items: Any) -> str:
        return ", ".join(t(f) if f in LABELS else str(f) for f in items or ())

    head = f'<div class="cards">{card(t("confidence"), fmt_pct(q.get("confidence")), fields(q.get("key_fields")))}</div>'
    notes = "".join(f"<li>{esc(n)}</li>" for n in q.get("notes") or ())
    rows = [
        [
            s.get("name"),
            fmt_pct(s.get("confidence")),
            fields(s.get("given")),
            fields(s.get("derived")),
            fields(s.get("assumed")),
            fields(s.get("missing")),
            "; ".join(f"{k}: {v}" for k, v in (s.get("notes") or {}).items()),
        ]
        for s in q.get("servers") or ()
    ]
    return (
        head
        + (f"<ul>{notes}</ul>" if notes else "")
        + table(
            [
                t("name"),
                t("confidence"),
                t("given"),
                t("derived"),
                t("assumed"),
                t("missing"),
                t("notes"),
            ],
            rows,
            numeric=(1,),
        )
    )


def _kv(t: Label, mapping: Mapping[str, Any]) -> str:
    rows = []
    for key, value in mapping.items():
        if isinstance(value, float) and key in (
            "ceiling",
            "failover_limit",
            "assume_util",
        ):
            shown = fmt_pct(value)
        else:
            shown = _cell(value)
        rows.append([t(key) if key in LABELS else key, shown, key])
    return table([t("item"), t("value"), t("key")], rows)


def _inputs(page: Page, plan: Mapping[str, Any], t: Label) -> str:
    hm = {k: v for k, v in plan["host_model"].items()}
    series = plan.get("series")
    out = (
        f"<h3>{esc(t('section_inputs'))}</h3>"
        + _kv(
            t,
            {
                **plan["inputs"],
                "vsizer_version": plan.get("vsizer_version"),
                "schema_version": plan["schema_version"],
            },
        )
        + f"<h3>{esc(t('section_parameters'))}</h3>"
        + _kv(t, plan["parameters"])
        + f"<h3>{esc(t('section_host_model'))}</h3>"
        + _kv(t, hm)
    )
    if isinstance(series, Mapping):
        out += f"<h3>{esc(t('section_series'))}</h3>" + _kv(t, series)
    return out


def _warnings(page: Page, plan: Mapping[str, Any], t: Label) -> str:
    rows = plan_warnings(plan)
    out = (
        table(
            [t("warning_code"), t("warning_servers"), t("warning_message")],
            [
                [
                    w["code"],
                    _server_list(w["servers"]),
                    w["message"],
                ]
                for w in rows
            ],
        )
        if rows
        else f'<p class="note">{esc(t("no_warnings"))}</p>'
    )
    if plan["excluded"]:
        out += f"<h3>{esc(t('sheet_excluded'))}</h3>" + table(
            [t("name"), t("reason")],
            [[e.get("name"), e.get("reason")] for e in plan["excluded"]],
        )
    return out


def _server_list(names: list[str], shown: int = 10) -> str:
    """'a, b, c' for up to ``shown`` names, then '(+N more)'; '—' for none."""
    if not names:
        return "—"
    text = ", ".join(names[:shown])
    return text + (f" (+{len(names) - shown})" if len(names) > shown else "")


_SECTIONS: dict[str, tuple[str, Callable[[Page, Mapping[str, Any], Label], str]]] = {
    "summary": ("sheet_summary", lambda page, plan, t: summary_section(plan, t)),
    "explain": ("section_explain", lambda page, plan, t: explain_html(plan, t)),
    "power": ("section_power", _power),
    "placement": ("section_placement", _placement),
    "heatmap": ("section_heatmap", _heatmap),
    "curves": ("section_curves", _curves),
    "failover": ("section_failover", _failover),
    "storage": ("section_storage", storage_section),
    "predictions": ("section_predictions", _predictions),
    "quality": ("sheet_quality", _quality),
    "inputs": ("section_inputs_parameters", _inputs),
    "warnings": ("sheet_warnings", _warnings),
}

#: Sections shown only when the plan has them (a non-empty body): key ->
#: (the section they follow, title label, builder).
OPTIONAL_SECTIONS: dict[
    str, tuple[str, str, Callable[[Page, Mapping[str, Any], Label], str]]
] = {
    "growth": ("power", "section_growth", growth_html),
    "design_advice": ("failover", "section_design_advice", design_advice_html),
    "choice": ("predictions", "section_choice", lambda page, plan, t: (
        choice_section(page, plan, t) if has_choice(plan) else "")),
    "target": ("summary", "section_target", target_html),  # plan --target
    "migration": ("failover", "section_migration", migration_html),
    "carbon": ("power", "section_carbon", carbon_html),
}


def plan_html(plan: Mapping[str, Any], *, lang: str = "en") -> str:
    """The HTML report of ``plan`` as text.

    Parameters
    ----------
    plan : dict
        A plan as described in ``docs/plan-schema.md`` (schema "1" or "2").
    lang : {"en", "ja"}, default "en"
        Language of titles, labels and notes.

    Returns
    -------
    str
        A complete HTML document with plotly.js embedded.

    Raises
    ------
    vsizer.errors.ConfigError
        ``lang`` is not ``"en"`` or ``"ja"``, or the ``plotly`` package (the
        ``report`` extra) is missing.
    vsizer.errors.InputError
        ``plan`` is not a dict, misses a top-level key or has another
        ``schema_version``; every problem is listed.
    """
    check_lang(lang, "write_plan_html")
    check_plan(plan)

    def t(key: str, **fields: Any) -> str:
        return label(key, lang, **fields)

    inputs = plan["inputs"]
    page = Page(
        title=t("report_title"),
        lang=lang,
        subtitle=t(
            "report_subtitle",
            inventory=inputs.get("inventory", "—"),
            host=inputs.get("host_model", "—"),
            version=plan.get("vsizer_version", ""),
        ),
        css=MGMT_CSS,
    )
    for key in SECTION_KEYS:
        if key in OPTIONAL_SECTION_KEYS and not plan.get(key):
            continue  # e.g. storage: only when the inventory gives disk capacity
        title_key, build = _SECTIONS[key]
        page.section(key, t(title_key), build(page, plan, t))
        for extra, (after, extra_title, extra_build) in OPTIONAL_SECTIONS.items():
            body = extra_build(page, plan, t) if after == key else ""
            if body:
                page.section(extra, t(extra_title), body)
    return page.render()


def write_plan_html(
    plan: Mapping[str, Any], path: str | os.PathLike[str], *, lang: str = "en"
) -> None:
    """Write the HTML report of ``plan`` to ``path`` (UTF-8).

    Parameters
    ----------
    plan : dict
        A plan as described in ``docs/plan-schema.md`` (schema "1" or "2").
    path : str or os.PathLike
        Target ``.html`` file; overwritten if it exists.
    lang : {"en", "ja"}, default "en"
        Language of titles, labels and notes.

    Raises
    ------
    vsizer.errors.ConfigError
        See :func:`plan_html`.
    vsizer.errors.InputError
        See :func:`plan_html`.
    """
    from vsizer._atomic import atomic_write

    text = plan_html(plan, lang=lang)
    with atomic_write(path, "w", encoding="utf-8") as fh:
        fh.write(text)
