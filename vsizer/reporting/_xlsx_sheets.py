"""The detail sheets of the plan workbook, one function per sheet.

Each function takes a :class:`~vsizer.reporting._xlsx.SheetWriter` on an empty
worksheet and the plan dict of ``docs/plan-schema.md``, writes its tables and
calls :meth:`SheetWriter.finish`. The summary sheet lives in
:mod:`vsizer.reporting.excel`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from openpyxl.chart import BarChart, LineChart, Reference
from openpyxl.utils import get_column_letter

from vsizer.reporting._plan_view import (
    host_rows,
    predictions,
    replay,
    series_times,
)
from vsizer.reporting._plan_view import warnings as plan_warnings
from vsizer.reporting._xlsx import (
    DEC1,
    DEC2,
    INT,
    PCT,
    RATIO,
    Figure,
    SheetWriter,
    TableRange,
    ordered_dimensions,
)
from vsizer.reporting.labels import LABELS, with_unit

__all__ = [
    "curves_sheet",
    "demand_sheet",
    "excluded_sheet",
    "hosts_sheet",
    "placement_sheet",
    "power_sheet",
    "predictions_sheet",
    "quality_sheet",
    "servers_sheet",
    "warnings_sheet",
]

#: Unit of each host dimension (``cpu`` takes the plan's capacity unit).
_DIM_UNITS = {
    "mem": "GiB",
    "vcpu": "vCPU",
    "disk_iops": "IOPS",
    "disk_mb_s": "MB/s",
    "net_mbps": "Mbit/s",
}


def join(items: Iterable[Any] | None) -> str:
    """Comma-separated text of a list of names (empty for ``None``)."""
    return ", ".join(str(item) for item in items or ())


def _extra_keys(records: Iterable[Mapping[str, Any]], known: set[str]) -> list[str]:
    """Keys of ``records`` not in ``known``, in first-seen order."""
    return list(dict.fromkeys(k for r in records for k in r if k not in known))


def _cell(value: Any) -> Any:
    """A list or dict value as text; scalars unchanged."""
    if isinstance(value, (list, tuple)):
        return join(value)
    if isinstance(value, dict):
        return "; ".join(f"{k}: {v}" for k, v in value.items())
    return value


def capacity_unit(plan: Mapping[str, Any]) -> str:
    """The CPU capacity unit of the plan (``SPECrate2017_int_base``, ``MHz``)."""
    return str(plan["demand"].get("capacity_unit") or plan["summary"]["capacity_unit"])


def dimension_unit(plan: Mapping[str, Any], dim: str) -> str | None:
    """Unit of host dimension ``dim``; ``None`` when unknown."""
    return capacity_unit(plan) if dim == "cpu" else _DIM_UNITS.get(dim)


def _style_chart(chart: BarChart, title: str) -> None:
    chart.title = title
    chart.legend.position = "b"
    # openpyxl >= 3.1 leaves axes deleted unless told otherwise
    chart.x_axis.delete = False
    chart.y_axis.delete = False


# -- servers --------------------------------------------------------------------------
def servers_sheet(w: SheetWriter, plan: Mapping[str, Any]) -> None:
    """One row per migrated server with every field of ``plan["servers"]``."""
    unit = capacity_unit(plan)
    # (plan key, unit, number format, translate enum value)
    columns: list[tuple[str, str | None, str | None, bool]] = [
        ("name", None, None, False),
        ("pool", None, None, False),
        ("group", None, None, False),
        ("rank", None, None, False),
        ("model", None, None, False),
        ("cpu_name", None, None, False),
        ("sockets", None, INT, False),
        ("cores_per_socket", None, INT, False),
        ("vcpus", None, INT, False),
        ("cpu_mhz", "MHz", INT, False),
        ("cpu_score_per_core", None, DEC2, False),
        ("score_source", None, None, True),
        ("cpu_capacity", unit, DEC1, False),
        ("cpu_avg_util", None, PCT, False),
        ("cpu_peak_util", None, PCT, False),
        ("cpu_avg_demand", unit, DEC1, False),
        ("cpu_peak_demand", unit, DEC1, False),
        ("mem_gib", "GiB", DEC1, False),
        ("vm_mem_gib", "GiB", DEC1, False),
        ("disk_iops", "IOPS", INT, False),
        ("net_mbps", "Mbit/s", DEC1, False),
        ("power_w", "W", INT, False),
        ("power_source", None, None, True),
        ("rack_u", "U", DEC1, False),
        ("host", None, None, False),
    ]
    present = {key for server in plan["servers"] for key in server}
    if "disk_mb_s" in present:  # written by vsizer.study.serialize, not in schema "1"
        at = [key for key, *_ in columns].index("net_mbps")
        columns.insert(at, ("disk_mb_s", "MB/s", DEC1, False))
    known = {key for key, *_ in columns}
    # keys a later schema version adds: raw key as header, value as given
    columns += [(key, None, None, False) for key in _extra_keys(plan["servers"], known)]
    headers = [
        with_unit(w.t(key), u) if key in known else key for key, u, _, _ in columns
    ]
    rows = [
        [
            w.enum(server.get(key)) if translate
            else _rate(server.get(key)) if key in _RATES
            else _cell(server.get(key))
            for key, _, _, translate in columns
        ]
        for server in plan["servers"]
    ]
    w.table(headers, rows, [fmt for _, _, fmt, _ in columns], autofilter=True)
    w.finish(freeze_col=2)


#: I/O rates an inventory may not give (an RVTools export has none): unknown, "—".
_RATES = frozenset({"disk_iops", "disk_mb_s", "net_mbps"})


def _rate(value: Any) -> Any:
    """An I/O rate as shown: "—" when the inputs do not give it (never 0 or blank)."""
    return "—" if value is None else value


# -- demand ---------------------------------------------------------------------------
def demand_sheet(w: SheetWriter, plan: Mapping[str, Any]) -> None:
    """Demand totals, then by pool, then by group, in one filterable table."""
    demand = plan["demand"]
    unit = capacity_unit(plan)
    has_mb_s = "disk_mb_s" in demand["totals"]  # vsizer.study.serialize adds it
    headers = [
        w.t("scope"),
        w.t("scope_name"),
        w.t("servers"),
        with_unit(w.t("cpu_capacity"), unit),
        with_unit(w.t("cpu_avg_demand"), unit),
        with_unit(w.t("cpu_peak_demand"), unit),
        with_unit(w.t("mem_gib"), "GiB"),
        w.t("vcpus"),
        with_unit(w.t("disk_iops"), "IOPS"),
        *([with_unit(w.t("disk_mb_s"), "MB/s")] if has_mb_s else []),
        with_unit(w.t("net_mbps"), "Mbit/s"),
    ]
    formats = [None, None, INT, DEC1, DEC1, DEC1, DEC1, INT, INT]
    formats += [DEC1] * (2 if has_mb_s else 1)

    def row(scope: str, name: str | None, servers: Any, d: Mapping[str, Any]) -> list:
        return [
            w.t(scope),
            name,
            servers,
            d.get("capacity"),
            d.get("average"),
            d.get("peak"),
            d.get("mem_gib"),
            d.get("vcpus"),
            _rate(d.get("disk_iops")),
            *([_rate(d.get("disk_mb_s"))] if has_mb_s else []),
            _rate(d.get("net_mbps")),
        ]

    rows = [row("scope_total", None, plan["summary"]["servers"], demand["totals"])]
    rows += [row("scope_pool", p["name"], p["servers"], p) for p in demand["by_pool"]]
    rows += [row("scope_group", g["name"], g["servers"], g) for g in demand["by_group"]]
    w.table(headers, rows, formats, autofilter=True)
    w.finish()


# -- hosts ----------------------------------------------------------------------------
def hosts_sheet(w: SheetWriter, plan: Mapping[str, Any]) -> None:
    """One row per host across pools, and a clustered bar chart of utilization."""
    default = plan["parameters"]["ceiling"]
    # vsizer.study.serialize writes a per-pool "ceiling" when [pools.<name>] overrides it
    hosts = [
        (pool["name"], pool.get("ceiling", default), host)
        for pool in plan["pools"]
        for host in pool["hosts"]
    ]
    dims = ordered_dimensions(d for *_, host in hosts for d in host.get("util", {}))
    util_headers = [
        w.t(f"util_{d}") if f"util_{d}" in LABELS else w.t("util_dim", dim=d)
        for d in dims
    ]
    headers = [
        w.t("pool"),
        w.t("host_id"),
        w.t("vm_count"),
        *util_headers,
        w.t("avg_cpu_util"),
        with_unit(w.t("power_w"), "W"),
        w.t("ceiling"),
    ]
    formats = [None, None, INT, *([PCT] * len(dims)), PCT, INT, PCT]
    rows = [
        [
            pool,
            host["id"],
            len(host.get("vms", [])),
            *(host.get("util", {}).get(d) for d in dims),
            host.get("avg_cpu_util"),
            host.get("power_w"),
            ceiling,
        ]
        for pool, ceiling, host in hosts
    ]
    rng = w.table(headers, rows, formats, autofilter=True)
    w.finish()
    if hosts:
        series_cols = [4 + dims.index(d) for d in ("cpu", "mem") if d in dims]
        ceilings = sorted({c for _, c, _ in hosts if c is not None})
        _host_util_chart(
            w, rng, series_cols, ceiling_col=rng.last_col, ceilings=ceilings
        )


def _host_util_chart(
    w: SheetWriter,
    rng: TableRange,
    series_cols: list[int],
    *,
    ceiling_col: int,
    ceilings: list[float],
) -> None:
    """Clustered columns of CPU and memory utilization per host, ceiling as a line."""
    ws = w.ws
    chart = BarChart()
    chart.type = "col"
    chart.grouping = "clustered"
    if not ceilings:
        ceiling = "—"
    elif ceilings[0] == ceilings[-1]:
        ceiling = f"{ceilings[0]:.0%}"
    else:  # pools with their own ceiling: show the range
        ceiling = f"{ceilings[0]:.0%}–{ceilings[-1]:.0%}"
    _style_chart(chart, w.t("chart_host_util", ceiling=ceiling))
    for col in series_cols:
        data = Reference(ws, min_col=col, min_row=rng.header_row, max_row=rng.last_row)
        chart.add_data(data, titles_from_data=True)
    cats = Reference(ws, min_col=2, min_row=rng.first_row, max_row=rng.last_row)
    chart.set_categories(cats)
    chart.y_axis.title = w.t("axis_util")
    chart.y_axis.number_format = "0%"
    chart.y_axis.scaling.min = 0.0
    chart.x_axis.title = w.t("host_id")

    line = LineChart()
    data = Reference(
        ws, min_col=ceiling_col, min_row=rng.header_row, max_row=rng.last_row
    )
    line.add_data(data, titles_from_data=True)
    line.set_categories(cats)
    line.series[0].marker.symbol = "none"
    line.series[0].graphicalProperties.line.solidFill = "C00000"
    line.series[0].graphicalProperties.line.dashStyle = "dash"
    chart += line

    n_hosts = rng.last_row - rng.header_row
    chart.width = min(max(16.0, 1.4 * n_hosts), 40.0)
    chart.height = 9.0
    ws.add_chart(chart, f"{get_column_letter(rng.last_col + 2)}2")


# -- placement ------------------------------------------------------------------------
def placement_sheet(w: SheetWriter, plan: Mapping[str, Any]) -> None:
    """One row per VM: pool, host, VM."""
    rows = [
        [pool["name"], host["id"], vm]
        for pool in plan["pools"]
        for host in pool["hosts"]
        for vm in host.get("vms", [])
    ]
    w.table([w.t("pool"), w.t("host_id"), w.t("vm")], rows, autofilter=True)
    w.finish()


# -- power ----------------------------------------------------------------------------
def _change(before: float | None, after: float | None) -> tuple[Any, Any]:
    if before is None or after is None:
        return None, None
    # rounded like the plan's own floats (6 decimals), to avoid 0.1+0.2 noise
    diff = round(after - before, 6)
    return diff, (round(diff / before, 6) if before else None)


_POWER_DETAILS: tuple[Figure, ...] = (
    ("annual_saving", "power.annual_saving", INT, "{currency}"),
    ("saving_over_years", "power.saving_over_years", INT, "{currency}"),
    ("price_kwh", "power.price_kwh", DEC2, "{currency}/kWh"),
    ("pue", "power.pue", RATIO, None),
    ("years", "power.years", INT, None),
    ("power_from_inventory", "power.servers_power_from.inventory", INT, None),
    ("power_from_catalog", "power.servers_power_from.catalog", INT, None),
    ("power_from_assumed", "power.servers_power_from.assumed", INT, None),
)


def power_sheet(w: SheetWriter, plan: Mapping[str, Any]) -> None:
    """Before/after power, energy and cost, the saving, and two bar charts."""
    power = plan["power"]
    cur = power["currency"]
    lines = [
        ("power_w", "W", power["before_w"], power["after_w"]),
        ("annual_kwh", "kWh", power["annual_kwh_before"], power["annual_kwh_after"]),
        ("annual_cost", cur, power["annual_cost_before"], power["annual_cost_after"]),
    ]
    rows = [
        [with_unit(w.t(key), unit), before, after, *_change(before, after)]
        for key, unit, before, after in lines
    ]
    rng = w.table(
        [w.t("item"), w.t("before"), w.t("after"), w.t("change"), w.t("change_pct")],
        rows,
        [None, INT, INT, INT, PCT],
        autofilter=True,
    )
    w.title(w.t("section_power_details"))
    w.items(w.figure_rows(plan, _POWER_DETAILS, currency=cur, years=power["years"]))
    w.finish()
    anchor_col = get_column_letter(rng.last_col + 2)
    for row, key, unit, anchor_row in (
        (rng.first_row, "chart_power", "W", 2),
        (rng.first_row + 2, "chart_cost", cur, 20),
    ):
        title = with_unit(w.t(key), unit)
        _before_after_chart(w, rng, row, title, f"{anchor_col}{anchor_row}")


def _before_after_chart(
    w: SheetWriter, rng: TableRange, row: int, title: str, anchor: str
) -> None:
    """A bar chart of one before/after row of the power table."""
    ws = w.ws
    chart = BarChart()
    chart.type = "col"
    chart.grouping = "clustered"
    _style_chart(chart, title)
    data = Reference(ws, min_col=1, max_col=3, min_row=row, max_row=row)
    chart.add_data(data, from_rows=True, titles_from_data=True)
    chart.set_categories(Reference(ws, min_col=2, max_col=3, min_row=rng.header_row))
    chart.y_axis.number_format = INT
    chart.y_axis.scaling.min = 0.0
    chart.legend = None
    chart.width = 12.0
    chart.height = 8.0
    ws.add_chart(chart, anchor)


# -- quality --------------------------------------------------------------------------
def quality_sheet(w: SheetWriter, plan: Mapping[str, Any]) -> None:
    """Overall confidence and notes, then per server field provenance."""
    quality = plan["quality"]
    overall = w.figure_rows(plan, (("confidence", "quality.confidence", PCT, None),))
    key_fields = join(w.field(f) for f in quality.get("key_fields", []))
    overall.append((w.t("key_fields"), key_fields, None, "quality.key_fields"))
    overall += [
        (w.t("note"), note, None, f"quality.notes[{i}]")
        for i, note in enumerate(quality.get("notes", []))
    ]
    w.items(overall)

    def fields(items: Iterable[str] | None) -> str:
        return join(w.field(f) for f in items or ())

    rows = [
        [
            s["name"],
            s.get("confidence"),
            fields(s.get("given")),
            fields(s.get("derived")),
            fields(s.get("assumed")),
            fields(s.get("missing")),
            "; ".join(f"{w.field(k)}: {v}" for k, v in (s.get("notes") or {}).items()),
        ]
        for s in quality.get("servers", [])
    ]
    w.section(
        w.t("section_quality_servers"),
        [
            w.t("name"),
            w.t("confidence"),
            w.t("given"),
            w.t("derived"),
            w.t("assumed"),
            w.t("missing"),
            w.t("notes"),
        ],
        rows,
        [None, PCT, None, None, None, None, None],
        autofilter=True,
    )
    w.finish()


# -- excluded, warnings ---------------------------------------------------------------
def excluded_sheet(w: SheetWriter, plan: Mapping[str, Any]) -> None:
    """Servers left out of the plan, with the reason."""
    rows = [[e["name"], e.get("reason")] for e in plan["excluded"]]
    w.table([w.t("name"), w.t("reason")], rows, autofilter=True)
    w.finish()


def warnings_sheet(w: SheetWriter, plan: Mapping[str, Any]) -> None:
    """Numbered warnings of the plan: code, server count, message, servers."""
    rows = [
        [i, x["code"], len(x["servers"]), x["message"], ", ".join(x["servers"])]
        for i, x in enumerate(plan_warnings(plan), start=1)
    ]
    if not rows:
        rows = [[None, None, None, w.t("no_warnings"), None]]
    w.table(
        [
            w.t("number"),
            w.t("warning_code"),
            w.t("servers"),
            w.t("warning_message"),
            w.t("warning_servers"),
        ],
        rows,
        [INT, None, INT, None, None],
        autofilter=True,
    )
    w.finish()


# -- curves (schema "2" with series) ----------------------------------------------------
def curves_sheet(w: SheetWriter, plan: Mapping[str, Any]) -> None:
    """CPU utilization of every host at every sampled step, a line chart of it,
    then the replay of every step per host."""
    hosts = [
        (ceiling, host)
        for _, ceiling, host in host_rows(plan)
        if (host.get("curves") or {}).get("cpu")
    ]
    width = max(len(host["curves"]["cpu"]) for _, host in hosts)
    times = series_times(plan, width)
    headers = [w.t("axis_time"), *(str(host["id"]) for _, host in hosts)]
    rows = [
        [times[i], *(_at(host["curves"]["cpu"], i) for _, host in hosts)]
        for i in range(width)
    ]
    rng = w.table(headers, rows, [None, *([PCT] * len(hosts))], autofilter=True)
    replay_rows = []
    for pool in plan["pools"]:
        rep = replay(pool) or {}
        for h in rep.get("hosts") or ():
            dim = h.get("worst_dimension")
            replay_rows.append(
                [
                    pool["name"],
                    h.get("id"),
                    h.get("steps_over_ceiling"),
                    h.get("steps_over_100"),
                    h.get("worst_util"),
                    w.dim(dim) if dim else None,
                    h.get("worst_step"),
                ]
            )
    if replay_rows:
        w.section(
            w.t("section_replay"),
            [
                w.t("pool"),
                w.t("host_id"),
                w.t("steps_over_ceiling"),
                w.t("steps_over_100"),
                w.t("worst_util"),
                w.t("worst_dimension"),
                w.t("worst_step"),
            ],
            replay_rows,
            [None, None, INT, INT, PCT, None, None],
        )
    w.finish(freeze_col=2)
    chart = LineChart()
    chart.title = w.t("util_cpu")
    chart.legend.position = "b"
    chart.x_axis.delete = False
    chart.y_axis.delete = False
    chart.y_axis.number_format = "0%"
    chart.y_axis.scaling.min = 0.0
    chart.y_axis.title = w.t("axis_util")
    chart.x_axis.title = w.t("axis_time")
    for col in range(2, rng.last_col + 1):
        data = Reference(
            w.ws, min_col=col, min_row=rng.header_row, max_row=rng.last_row
        )
        chart.add_data(data, titles_from_data=True)
    chart.set_categories(
        Reference(w.ws, min_col=1, min_row=rng.first_row, max_row=rng.last_row)
    )
    for series in chart.series:
        series.marker.symbol = "none"
        series.smooth = False
    chart.width, chart.height = 24.0, 10.0
    w.ws.add_chart(chart, f"{get_column_letter(rng.last_col + 2)}2")


def _at(values: list[Any], i: int) -> Any:
    return values[i] if i < len(values) else None


def has_curves(plan: Mapping[str, Any]) -> bool:
    """Whether any host of ``plan`` has a CPU curve (schema "2" with series)."""
    return any((host.get("curves") or {}).get("cpu") for _, _, host in host_rows(plan))


# -- predictions ------------------------------------------------------------------------
def predictions_sheet(w: SheetWriter, plan: Mapping[str, Any]) -> None:
    """Predicted performance per VM, per host, and the prediction warnings."""
    pred = predictions(plan) or {}
    first = True
    for key, title in (("vms", "vm"), ("hosts", "host_id")):
        rows = [r for r in pred.get(key) or () if isinstance(r, Mapping)]
        if not rows:
            continue
        keys = list(dict.fromkeys(k for r in rows for k in r))
        table_rows = [[_cell(r.get(k)) for k in keys] for r in rows]
        formats = [
            DEC2 if any(isinstance(r.get(k), float) for r in rows) else None
            for k in keys
        ]
        if not first:
            w.title(w.t(title))
        w.table(keys, table_rows, formats, autofilter=first)
        first = False
    notes = [str(a) for a in pred.get("assumptions") or ()]
    for item in pred.get("warnings") or ():
        if isinstance(item, Mapping):
            notes.append(
                f"{item.get('scope', '')} {item.get('name', '')} "
                f"[{item.get('model', '')}]: {item.get('reason', '')}"
            )
        else:
            notes.append(str(item))
    if notes:
        if not first:
            w.title(w.t("notes"))
        w.table([w.t("number"), w.t("note")], [[i, n] for i, n in enumerate(notes, 1)])
    w.finish()
