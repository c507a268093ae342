"""plotly.js figure dicts of the HTML plan report, one function per chart.

Each function takes the plan dict (``docs/plan-schema.md``) and a label
function ``t(key, **fields)`` and returns ``{"data": [...], "layout": {...}}``
for :meth:`vsizer.reporting._html_page.Page.chart`, or ``None`` when the plan
has nothing to draw. User strings (host ids, VM names) pass through
:func:`~vsizer.reporting._html_page.chart_text`. Plain dicts keep the report
independent of the plotly Python API and its validation cost.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from vsizer.reporting._html_page import chart_text, fmt_num
from vsizer.reporting._plan_view import (
    failover_scenarios,
    host_rows,
    series_times,
    vm_shares,
)

__all__ = [
    "failover_chart",
    "heatmap_chart",
    "placement_chart",
    "power_chart",
    "prediction_chart",
    "stack_chart",
]

Label = Callable[..., str]

#: Qualitative colours (ColorBrewer Set2/Paired-like), cycled over VMs.
_PALETTE = (
    "#4e79a7",
    "#f28e2b",
    "#59a14f",
    "#76b7b2",
    "#edc948",
    "#b07aa1",
    "#ff9da7",
    "#9c755f",
    "#86bcb6",
    "#e15759",
    "#8cd17d",
    "#bab0ac",
)
_CEILING_COLOUR = "#b42318"
_FULL_COLOUR = "#1f2933"
_FONT = {"family": "system-ui, 'Hiragino Sans', 'Noto Sans CJK JP', Meiryo, sans-serif"}


def _layout(**extra: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "margin": {"l": 60, "r": 20, "t": 40, "b": 60},
        "font": _FONT,
        "legend": {"orientation": "h", "y": -0.2},
        "plot_bgcolor": "#ffffff",
    }
    base.update(extra)
    return base


def _hline(y: float, colour: str, text: str, yref: str = "y") -> tuple[dict, dict]:
    """A dashed horizontal line across the plot and its label."""
    shape = {
        "type": "line",
        "xref": "paper",
        "x0": 0,
        "x1": 1,
        "yref": yref,
        "y0": y,
        "y1": y,
        "line": {"color": colour, "width": 1.5, "dash": "dash"},
    }
    note = {
        "xref": "paper",
        "x": 1,
        "xanchor": "right",
        "yref": yref,
        "y": y,
        "yanchor": "bottom",
        "text": text,
        "showarrow": False,
        "font": {"color": colour, "size": 11},
    }
    return shape, note


def power_chart(plan: Mapping[str, Any], t: Label) -> dict[str, Any]:
    """Before/after bars: power [W] and, when priced, annual cost."""
    power = plan["power"]
    cats = [t("before"), t("after")]
    data: list[dict[str, Any]] = [
        {
            "type": "bar",
            "x": cats,
            "y": [power["before_w"], power["after_w"]],
            "marker": {"color": ["#9fb3c8", "#1f4e79"]},
            "name": f"{t('power_w')} [W]",
            "text": [
                f"{fmt_num(power['before_w'])} W",
                f"{fmt_num(power['after_w'])} W",
            ],
            "textposition": "auto",
            "xaxis": "x",
            "yaxis": "y",
        }
    ]
    layout = _layout(
        showlegend=False,
        xaxis={"domain": [0, 0.45]},
        yaxis={"title": {"text": f"{t('power_w')} [W]"}, "rangemode": "tozero"},
    )
    cost_before, cost_after = (
        power.get("annual_cost_before"),
        power.get("annual_cost_after"),
    )
    if cost_before is not None or cost_after is not None:
        cur = chart_text(power.get("currency"))
        data.append(
            {
                "type": "bar",
                "x": cats,
                "y": [cost_before, cost_after],
                "marker": {"color": ["#9fb3c8", "#1b7f3b"]},
                "name": f"{t('annual_cost')} [{cur}]",
                "text": [fmt_num(cost_before), fmt_num(cost_after)],
                "textposition": "auto",
                "xaxis": "x2",
                "yaxis": "y2",
            }
        )
        layout["xaxis2"] = {"domain": [0.55, 1], "anchor": "y2"}
        layout["yaxis2"] = {
            "title": {"text": f"{t('annual_cost')} [{cur}]"},
            "anchor": "x2",
            "rangemode": "tozero",
        }
    return {"data": data, "layout": layout}


def _by_cpu_share(
    hosts: list[tuple[Mapping, float, Mapping]],
    shares: Mapping[str, Mapping[str, float]],
) -> list[list[Any]]:
    """Per host, its VMs from the largest CPU share down."""
    return [
        sorted(
            host.get("vms", []), key=lambda v: -shares.get(str(v), {}).get("cpu", 0.0)
        )
        for _, _, host in hosts
    ]


def _cpu_scale(
    hosts: list[tuple[Mapping, float, Mapping]],
    ordered: list[list[Any]],
    shares: Mapping[str, Mapping[str, float]],
) -> list[float]:
    """Per host, the factor that makes its CPU segments add up to its utilization.

    Sized on curves, a host holds VMs whose peaks do not coincide: its CPU
    segments are scaled so they add up to the host's planned utilization.
    Sized on peaks the factor is 1.
    """
    scale = []
    for (_, _, host), vms in zip(hosts, ordered, strict=True):
        total = sum(shares.get(str(v), {}).get("cpu", 0.0) for v in vms)
        util = (host.get("util") or {}).get("cpu")
        curved = bool((host.get("curves") or {}).get("cpu"))
        scale.append(util / total if curved and total and util is not None else 1.0)
    return scale


def _reserve_bar(x: list[str], fraction: float, name: str) -> dict[str, Any]:
    """The hypervisor memory reserve of every host, the bottom memory segment."""
    return {
        "type": "bar",
        "x": x,
        "y": [fraction] * len(x),
        "name": name,
        "marker": {"color": "#d9e2ec"},
        "hovertemplate": "%{x}: %{y:.1%}<extra></extra>",
        "showlegend": False,
        "xaxis": "x2",
        "yaxis": "y2",
    }


def _vm_bars(
    x: list[str],
    ordered: list[list[Any]],
    shares: Mapping[str, Mapping[str, float]],
    dim: str,
    scale: list[float],
    axis: str,
) -> list[dict[str, Any]]:
    """Trace ``k``: the ``k``-th largest VM of every host, its share of ``dim``."""
    bars = []
    for k in range(max((len(vms) for vms in ordered), default=0)):
        names = [vms[k] if k < len(vms) else None for vms in ordered]
        bars.append(
            {
                "type": "bar",
                "x": x,
                "y": [
                    _share(shares, n, dim, f if dim == "cpu" else 1.0)
                    for n, f in zip(names, scale, strict=True)
                ],
                "text": [chart_text(n) if n is not None else "" for n in names],
                "textposition": "inside",
                "insidetextanchor": "middle",
                "hovertemplate": "%{x}: %{text} %{y:.1%}<extra></extra>",
                "marker": {
                    "color": _PALETTE[k % len(_PALETTE)],
                    "line": {"color": "#ffffff", "width": 0.5},
                },
                "showlegend": False,
                "xaxis": f"x{axis}",
                "yaxis": f"y{axis}",
            }
        )
    return bars


def _limit_lines(
    ceilings: list[float], t: Label, yrefs: tuple[str, ...]
) -> tuple[list[dict], list[dict]]:
    """Shapes and annotations: every ceiling and 100 %, on each of ``yrefs``."""
    shapes, notes = [], []
    for yref in yrefs:
        for c in ceilings:
            s, n = _hline(c, _CEILING_COLOUR, f"{t('ceiling')} {c:.0%}", yref)
            shapes.append(s)
            notes.append(n)
        s, n = _hline(1.0, _FULL_COLOUR, "100 %", yref)
        shapes.append(s)
        notes.append(n)
    return shapes, notes


def _placement_layout(
    t: Label, shapes: list[dict], notes: list[dict]
) -> dict[str, Any]:
    """Two stacked panels (CPU over memory) sharing the host categories."""
    return _layout(
        barmode="stack",
        grid={
            "rows": 2,
            "columns": 1,
            "pattern": "independent",
            "roworder": "top to bottom",
        },
        yaxis={
            "title": {"text": t("util_cpu")},
            "tickformat": ".0%",
            "range": [0, 1.1],
        },
        yaxis2={
            "title": {"text": t("util_mem")},
            "tickformat": ".0%",
            "range": [0, 1.1],
        },
        xaxis={"type": "category"},
        xaxis2={"type": "category", "title": {"text": t("host_id")}},
        shapes=shapes,
        annotations=notes,
        uniformtext={"minsize": 8, "mode": "hide"},
    )


def placement_chart(plan: Mapping[str, Any], t: Label) -> dict[str, Any] | None:
    """Host x VM view: per host, its VMs stacked by share of CPU and of memory.

    Trace ``k`` holds the ``k``-th largest VM (by CPU share) of every host, so
    the trace count is the largest VM count of a host, not the VM count.
    The memory panel adds the hypervisor reserve as its own segment, so each
    bar reaches the host's planned utilization.
    """
    hosts = list(host_rows(plan))
    if not hosts:
        return None
    shares = vm_shares(plan)
    mem_cap = (plan["host_model"].get("capacity") or {}).get("mem")
    reserve = plan["parameters"].get("host_memory_reserve_gib") or 0.0
    x = [chart_text(host["id"]) for _, _, host in hosts]
    ordered = _by_cpu_share(hosts, shares)
    scale = _cpu_scale(hosts, ordered, shares)
    data = _vm_bars(x, ordered, shares, "cpu", scale, "")
    if mem_cap:
        data.append(_reserve_bar(x, reserve / mem_cap, t("host_memory_reserve_gib")))
    data.extend(_vm_bars(x, ordered, shares, "mem", scale, "2"))
    ceilings = sorted({c for _, c, _ in hosts if c is not None})
    shapes, notes = _limit_lines(ceilings, t, ("y", "y2"))
    return {"data": data, "layout": _placement_layout(t, shapes, notes)}


def _share(
    shares: Mapping[str, Mapping[str, float]], name: Any, dim: str, factor: float
) -> float | None:
    if name is None:
        return None
    value = shares.get(str(name), {}).get(dim)
    return None if value is None else round(value * factor, 6)


def _curves(plan: Mapping[str, Any], dim: str) -> tuple[list[str], list[list[float]]]:
    ids, rows = [], []
    for _, _, host in host_rows(plan):
        curve = (host.get("curves") or {}).get(dim)
        if curve:
            ids.append(chart_text(host["id"]))
            rows.append(list(curve))
    return ids, rows


def heatmap_chart(plan: Mapping[str, Any], t: Label, dim: str) -> dict[str, Any] | None:
    """Host x time heatmap of utilization in ``dim``; ``None`` without curves.

    Colours: white at 0, blue up to the (lowest) ceiling, orange to 100 %,
    dark red above 100 %.
    """
    ids, rows = _curves(plan, dim)
    if not rows:
        return None
    width = max(len(r) for r in rows)
    times = series_times(plan, width)
    ceiling = min(c for _, c, _ in host_rows(plan))
    top = max(1.0, max(max(r) for r in rows if r))
    stops = [
        [0.0, "#ffffff"],
        [ceiling / top, "#4e79a7"],
        [min(1.0, 0.999 / top), "#f28e2b"],
        [1.0, "#7f0000" if top > 1.0 else "#f28e2b"],
    ]
    label = t(f"util_{dim}")
    return {
        "data": [
            {
                "type": "heatmap",
                "z": rows,
                "x": times,
                "y": ids,
                "zmin": 0.0,
                "zmax": top,
                "colorscale": stops,
                "colorbar": {"tickformat": ".0%", "title": {"text": label}},
                "hovertemplate": "%{y} %{x}: %{z:.1%}<extra></extra>",
            }
        ],
        "layout": _layout(
            title={"text": label},
            xaxis={"title": {"text": t("axis_time")}},
            yaxis={"type": "category", "autorange": "reversed"},
            margin={"l": 90, "r": 20, "t": 40, "b": 60},
        ),
    }


def _stack_traces(
    plan: Mapping[str, Any], t: Label, dim: str, hosts: list[tuple[float, Mapping]]
) -> tuple[list[dict[str, Any]], list[int]]:
    """Every host's stacked curves (only the first host's visible) and their owners."""
    data: list[dict[str, Any]] = []
    owner: list[int] = []
    for h, (_, host) in enumerate(hosts):
        entries = host["stack"][dim]
        times = series_times(plan, max(len(e.get("values") or ()) for e in entries))
        for k, entry in enumerate(entries):
            name = entry.get("vm")
            text = t("stack_other") if name == "(other)" else chart_text(name)
            data.append(
                {
                    "type": "scatter",
                    "mode": "lines",
                    "stackgroup": "one",
                    "x": times,
                    "y": list(entry.get("values") or ()),
                    "name": text,
                    "line": {"width": 0.5, "color": _PALETTE[k % len(_PALETTE)]},
                    "hovertemplate": f"{text} %{{x}}: %{{y:.1%}}<extra></extra>",
                    "visible": h == 0,
                }
            )
            owner.append(h)
    return data, owner


def _ceiling_lines(ceiling: float, t: Label) -> dict[str, Any]:
    """Layout ``shapes`` and ``annotations`` of a host's ceiling and of 100 %."""
    c_shape, c_note = _hline(ceiling, _CEILING_COLOUR, f"{t('ceiling')} {ceiling:.0%}")
    f_shape, f_note = _hline(1.0, _FULL_COLOUR, "100 %")
    return {"shapes": [c_shape, f_shape], "annotations": [c_note, f_note]}


def _host_picker(
    hosts: list[tuple[float, Mapping]], owner: list[int], t: Label
) -> dict[str, Any]:
    """The drop-down that shows one host's curves, title and lines at a time."""
    buttons = [
        {
            "label": chart_text(host["id"]),
            "method": "update",
            "args": [
                {"visible": [o == h for o in owner]},
                {
                    "title.text": f"{t('host_id')} {chart_text(host['id'])}",
                    **_ceiling_lines(ceiling, t),
                },
            ],
        }
        for h, (ceiling, host) in enumerate(hosts)
    ]
    return {
        "buttons": buttons,
        "direction": "down",
        "x": 0,
        "xanchor": "left",
        "y": 1.18,
        "yanchor": "top",
        "showactive": True,
    }


def stack_chart(
    plan: Mapping[str, Any], t: Label, dim: str = "cpu"
) -> dict[str, Any] | None:
    """Per-host stacked demand curves with ceiling and 100 % lines.

    One host is shown at a time; a drop-down picks the host. ``None`` when
    no host has a ``stack``.
    """
    hosts = [
        (ceiling, host)
        for _, ceiling, host in host_rows(plan)
        if (host.get("stack") or {}).get(dim)
    ]
    if not hosts:
        return None
    data, owner = _stack_traces(plan, t, dim, hosts)
    first_ceiling, first = hosts[0]
    layout = _layout(
        title={"text": f"{t('host_id')} {chart_text(first['id'])}"},
        xaxis={"title": {"text": t("axis_time")}},
        yaxis={
            "title": {"text": t(f"util_{dim}")},
            "tickformat": ".0%",
            "rangemode": "tozero",
        },
        updatemenus=[_host_picker(hosts, owner, t)],
        margin={"l": 60, "r": 20, "t": 70, "b": 60},
        **_ceiling_lines(first_ceiling, t),
    )
    return {"data": data, "layout": layout}


def failover_chart(plan: Mapping[str, Any], t: Label) -> dict[str, Any] | None:
    """Worst survivor utilization per failure scenario, 100 % line; red = over."""
    xs, ys, colours, texts = [], [], [], []
    for pool in plan["pools"]:
        for row in failover_scenarios(pool):
            label = ", ".join(chart_text(h) for h in row["failed"])
            util = row["worst_util"]
            bad = bool(row["unplaced"]) or (util is not None and util > 1.0)
            xs.append(label)
            ys.append(util)
            colours.append(_CEILING_COLOUR if bad else "#4e79a7")
            worst = chart_text(row["worst_host"]) if row["worst_host"] else "—"
            texts.append(f"{t('worst_host')}: {worst}")
    if not xs:
        return None
    shape, note = _hline(1.0, _FULL_COLOUR, "100 %")
    return {
        "data": [
            {
                "type": "bar",
                "x": xs,
                "y": ys,
                "marker": {"color": colours},
                "text": texts,
                "hovertemplate": "%{x}: %{y:.1%}<br>%{text}<extra></extra>",
            }
        ],
        "layout": _layout(
            showlegend=False,
            xaxis={"type": "category", "title": {"text": t("failed_hosts")}},
            yaxis={
                "title": {"text": t("worst_util")},
                "tickformat": ".0%",
                "rangemode": "tozero",
            },
            shapes=[shape],
            annotations=[note],
        ),
    }


def prediction_chart(
    rows: Sequence[Mapping[str, Any]], key: str, name_key: str, title: str
) -> dict[str, Any] | None:
    """Horizontal bars of the numeric prediction ``key`` per VM, with error bars
    where the rows carry ``{key}_interval`` = [low, high]."""
    kept = [
        r for r in rows
        if isinstance(r.get(key), (int, float)) and not isinstance(r.get(key), bool)
    ]
    pairs = [(chart_text(r.get(name_key)), r.get(key)) for r in kept]
    if not pairs:
        return None
    bars: dict[str, Any] = {
        "type": "bar",
        "orientation": "h",
        "y": [p[0] for p in pairs],
        "x": [p[1] for p in pairs],
        "marker": {"color": "#4e79a7"},
        "hovertemplate": "%{y}: %{x:.3g}<extra></extra>",
    }
    bands: list[Any] = [r.get(f"{key}_interval") for r in kept]
    if all(isinstance(b, (list, tuple)) and len(b) == 2 for b in bands):
        bars["error_x"] = {
            "type": "data", "symmetric": False,
            "array": [round(b[1] - r[key], 6) for b, r in zip(bands, kept, strict=True)],
            "arrayminus": [round(r[key] - b[0], 6) for b, r in zip(bands, kept, strict=True)],
        }
    return {
        "data": [bars],
        "layout": _layout(
            showlegend=False,
            xaxis={"title": {"text": title}, "rangemode": "tozero"},
            yaxis={"type": "category", "autorange": "reversed"},
            margin={"l": 140, "r": 20, "t": 20, "b": 50},
        ),
    }
