"""The Excel workbook of a plan.

:func:`write_plan_xlsx` renders the plan dict of ``docs/plan-schema.md``
(schema "1" or "2") into ten sheets (summary, servers, demand, hosts, placement, failover, power,
quality, excluded, warnings) with labels in English or Japanese. Every sheet
has a frozen header row, an autofilter, fitted column widths and number formats
(``0.0%`` for utilizations and fractions, ``#,##0`` for W, kWh and money with
the currency in the header, ``0.00`` for ratios). The hosts and power sheets
carry native Excel bar charts. A plan with time-series curves adds a sheet of
host CPU utilization per step with a native line chart and the step replay; a
plan with predictions adds a predictions sheet.

Every string from the plan passes through
:func:`~vsizer.reporting.safe.excel_safe` and is stored as text, so the
workbook holds no formula at all.

The file is reproducible: the same plan and language give the same bytes.
openpyxl stamps the save time into ``docProps/core.xml`` and the zip entries,
so :func:`write_plan_xlsx` rewrites both with :data:`FIXED_TIMESTAMP`.
"""

from __future__ import annotations

import io
import json
import os
import zipfile
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from openpyxl import Workbook
from openpyxl.xml.functions import tostring

from vsizer.reporting import _xlsx_sheets as sheets
from vsizer.reporting._carbon_report import CARBON_SHEET_KEY, carbon_sheet
from vsizer.reporting._explain import bottleneck, bound_kinds, explain_sheet
from vsizer.reporting._explain import has_sheet as has_explain_sheet
from vsizer.reporting._ja_text import target_text
from vsizer.reporting._migration_report import MIGRATION_SHEET_KEY, migration_sheet
from vsizer.reporting._plan_view import check_plan, lower_bound_hosts, predictions
from vsizer.reporting._today import excel_items as today_items
from vsizer.reporting._today import excel_section as today_section
from vsizer.reporting._xlsx import (
    DEC1,
    DEC2,
    INT,
    PCT,
    RATIO,
    Figure,
    Fmt,
    SheetWriter,
    ordered_dimensions,
)
from vsizer.reporting._xlsx_failover import failover_sheet
from vsizer.reporting._xlsx_growth import GROWTH_SHEET_KEY, growth_sheet
from vsizer.reporting._xlsx_print import cost_formulas, print_setup
from vsizer.reporting.choice_report import choice_sheet, has_choice
from vsizer.reporting.design_advice import design_advice_sheet
from vsizer.reporting.labels import check_lang, label, with_unit
from vsizer.reporting.storage import storage_sheet
from vsizer.reporting.target_report import has_target, target_sheet

__all__ = [
    "FIXED_TIMESTAMP",
    "OPTIONAL_SHEET_KEYS",
    "SHEET_KEYS",
    "plan_workbook",
    "reproducible_bytes",
    "write_plan_xlsx",
]

#: Creation/modification time written into every workbook, and the time of its
#: zip entries: the earliest a zip file can record, so no real date is implied.
FIXED_TIMESTAMP = datetime(1980, 1, 1, 0, 0, 0)

#: Label keys of the sheets every workbook has, in workbook order; a plan with
#: time-series curves adds ``sheet_curves``, one with predictions
#: ``sheet_predictions`` (:data:`OPTIONAL_SHEET_KEYS`, in that order).
SHEET_KEYS: tuple[str, ...] = (
    "sheet_summary",
    "sheet_servers",
    "sheet_demand",
    "sheet_hosts",
    "sheet_placement",
    "sheet_failover",
    "sheet_power",
    "sheet_quality",
    "sheet_excluded",
    "sheet_warnings",
)

#: Sheets written only when the plan has their content.
OPTIONAL_SHEET_KEYS: tuple[str, ...] = (
    "sheet_curves", "sheet_predictions", "sheet_explain", "sheet_storage"
)


#: Key figures of the summary sheet.
_KEY_FIGURES: tuple[Figure, ...] = (
    ("servers", "summary.servers", INT, None),
    ("excluded", "summary.excluded", INT, None),
    ("hosts", "summary.hosts", INT, None),
    ("consolidation_ratio", "summary.consolidation_ratio", RATIO, None),
    ("pools", "summary.pools", INT, None),
    ("survives_failover", "summary.survives_failover", None, None),
    ("worst_survivor_util", "summary.worst_survivor_util", PCT, None),
    ("lower_bound", "summary.lower_bound", INT, None),
    ("gap", "summary.gap", INT, None),
    ("power_before_w", "power.before_w", INT, "W"),
    ("power_after_w", "power.after_w", INT, "W"),
    ("annual_cost_before", "power.annual_cost_before", INT, "{currency}"),
    ("annual_cost_after", "power.annual_cost_after", INT, "{currency}"),
    ("annual_saving", "power.annual_saving", INT, "{currency}"),
    ("saving_over_years", "power.saving_over_years", INT, "{currency}"),
    ("rack_u_before", "space.rack_u_before", DEC1, "U"),
    ("rack_u_after", "space.rack_u_after", DEC1, "U"),
    ("racks_before", "space.racks_before", INT, None),
    ("racks_after", "space.racks_after", INT, None),
    ("rack_size_u", "space.rack_size_u", INT, "U"),
    ("confidence", "summary.confidence", PCT, None),
    ("low_confidence_flag", "summary.low_confidence", None, None),
    ("sheet_warnings", "summary.warnings", INT, None),
    ("capacity_unit", "summary.capacity_unit", None, None),
)

#: Parameters used; ``vm_memory_overhead_model`` and ``assume_util`` are written
#: by vsizer.study.serialize beyond schema "1". Targets have their own table.
_PARAMETERS: tuple[Figure, ...] = (
    ("ceiling", "parameters.ceiling", PCT, None),
    ("failures", "parameters.failures", INT, None),
    ("min_hosts", "parameters.min_hosts", INT, None),
    ("failover_limit", "parameters.failover_limit", PCT, None),
    ("vcpu_per_core", "parameters.vcpu_per_core", RATIO, None),
    ("host_memory_reserve_gib", "parameters.host_memory_reserve_gib", DEC1, "GiB"),
    ("vm_memory_overhead_mib", "parameters.vm_memory_overhead_mib", INT, "MiB"),
    ("vm_memory_overhead_model", "parameters.vm_memory_overhead_model", None, None),
    ("cpu_basis", "parameters.cpu_basis", None, None),
    ("assume_util", "parameters.assume_util", PCT, None),
    ("price_kwh", "parameters.price_kwh", DEC2, "{currency}/kWh"),
    ("currency", "parameters.currency", None, None),
    ("pue", "parameters.pue", RATIO, None),
    ("years", "parameters.years", INT, None),
)

_INPUTS: tuple[Figure, ...] = (
    ("inventory", "inputs.inventory", None, None),
    ("source_format", "inputs.source_format", None, None),
    ("sheet", "inputs.sheet", None, None),
    ("host_catalog", "inputs.host_catalog", None, None),
    ("host_model", "inputs.host_model", None, None),
    ("vsizer_version", "vsizer_version", None, None),
    ("schema_version", "schema_version", None, None),
)

#: Enumerated values translated on the summary.
_ENUMS = ("parameters.cpu_basis", "inputs.source_format", "inputs.host_catalog")

_HOST_MODEL: tuple[Figure, ...] = (
    ("model", "host_model.model", None, None),
    ("cpu_name", "host_model.cpu_name", None, None),
    ("sockets", "host_model.sockets", INT, None),
    ("cores_per_socket", "host_model.cores_per_socket", INT, None),
    ("threads_per_core", "host_model.threads_per_core", INT, None),
    ("cpu_mhz", "host_model.cpu_mhz", INT, "MHz"),
    ("cpu_score_per_core", "host_model.cpu_score_per_core", DEC2, None),
    ("cpu_score_basis", "host_model.cpu_score_basis", None, None),
    ("mem_gib", "host_model.mem_gib", DEC1, "GiB"),
    ("power_idle_w", "host_model.power_idle_w", INT, "W"),
    ("power_max_w", "host_model.power_max_w", INT, "W"),
    ("power_basis", "host_model.power_basis", None, None),
    ("rack_u", "host_model.rack_u", DEC1, "U"),
    ("price", "host_model.price", INT, "{currency}"),
)


def _text(value: Any) -> Any:
    """A list or dict parameter (added by a later schema) as compact JSON text."""
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return value


_TARGET_RESULT = {True: "met", False: "not_met", None: "not_evaluated"}


def _target_format(name: str, value: Any) -> str | None:
    """Number format of a target, guessed from its name: utilization or ratio."""
    if "util" in name or "fraction" in name:
        return PCT
    if "ratio" in name:
        return RATIO
    if isinstance(value, (int, float)) and float(value).is_integer():
        return INT
    return DEC2


def _head_rows(
    plan: Mapping[str, Any], t: Callable[..., str]
) -> list[tuple[str, Any, str | None, str]]:
    """Servers -> hosts; for a virtualized source hosts before -> after, and
    today's ratio, the rule that decided and the count at today's ratio."""
    s = plan["summary"]
    servers_to_hosts = f"{s['servers']} → {s['hosts']}"
    head: list[tuple[str, Any, str | None, str]] = [
        (t("servers_to_hosts"), servers_to_hosts, None, "summary.servers, .hosts")
    ]
    if s.get("hosts_before") is not None:  # a virtualized source
        head.append(
            (
                t("hosts_before_to_after"),
                f"{s['hosts_before']} → {s['hosts']}",
                None,
                "summary.hosts_before, .hosts",
            )
        )
    return head + today_items(plan, t)  # today's estate


def _summary_sheet(w: SheetWriter, plan: Mapping[str, Any]) -> None:
    """Key figures, pools, targets, parameters, inputs and host model."""
    t = w.t
    fields = {"currency": plan["power"]["currency"], "years": plan["power"]["years"]}
    w.items(
        _head_rows(plan, t) + w.figure_rows(plan, _KEY_FIGURES, **fields),
        autofilter=True,
    )
    today_section(w, plan)  # today's clusters
    design_advice_sheet(w, plan)  # storage choice, hardware advice

    pools = [
        [
            p["name"],
            p["servers"],
            p["host_count"],
            lower_bound_hosts(p),
            p["gap"],
            bound_kinds(p, w.t, w.dim),
            bottleneck(p, w.t, w.dim),
            p["strategy"],
            w.yes_no(p["redundant"]),
            p["failures"],
            p["min_hosts"],
        ]
        for p in plan["pools"]
    ]
    pool_keys = ["pool", "servers", "hosts", "lower_bound", "gap", "bound_from"]
    pool_keys += ["binding_dimension", "strategy", "redundant", "failures", "min_hosts"]
    w.section(
        t("section_pools"),
        [t(key) for key in pool_keys],
        pools,
        [None, INT, INT, INT, INT, None, None, None, None, INT, INT],
    )

    targets = [
        [
            tg["name"],
            target_text(tg, t),
            Fmt(tg["target"], _target_format(tg["name"], tg["target"])),
            Fmt(tg.get("actual"), _target_format(tg["name"], tg["target"])),
            t(_TARGET_RESULT[tg.get("met")]),
        ]
        for tg in plan["targets"]
    ]
    target_keys = ["target_name", "description", "target", "actual", "result"]
    w.section(t("section_targets"), [t(key) for key in target_keys], targets)

    params = plan["parameters"]
    rows = w.figure_rows(plan, _PARAMETERS, enums=_ENUMS, **fields)
    if params.get("pools"):  # vsizer.study.serialize: per-pool overrides of the rules
        rows.append((t("pool_rules"), _text(params["pools"]), None, "parameters.pools"))
    # keys a later schema adds: raw key, value as text
    known = {path.split(".", 1)[1] for _, path, _, _ in _PARAMETERS}
    rows += [
        (key, _text(value), None, f"parameters.{key}")
        for key, value in params.items()
        if key not in known and key not in ("targets", "pools")
    ]
    w.title(t("section_parameters"))
    w.items(rows)

    w.title(t("section_inputs"))
    inputs = w.figure_rows(plan, _INPUTS, enums=_ENUMS, **fields)
    inputs += [  # keys a later schema adds (inputs.vcpu_per_core_today)
        (key, _text(value), None, f"inputs.{key}")
        for key, value in plan["inputs"].items()
        if f"inputs.{key}" not in {path for _, path, _, _ in _INPUTS}
    ]
    w.items(inputs)

    w.title(t("section_host_model"))
    w.items(_host_model_rows(w, plan, fields))
    w.finish()


def _host_model_rows(
    w: SheetWriter, plan: Mapping[str, Any], fields: Mapping[str, Any]
) -> list[tuple[str, Any, str | None, str]]:
    """Item rows describing the host model, capacity per dimension included."""
    hm = plan["host_model"]
    rows = w.figure_rows(plan, _HOST_MODEL, **fields)
    if hm.get("power_curve_w"):
        curve = ", ".join(f"{p:g}" for p in hm["power_curve_w"])
        rows.append(
            (with_unit("SPECpower", "W"), curve, None, "host_model.power_curve_w")
        )
    for dim in ordered_dimensions(hm.get("capacity", {})):
        text = f"{w.t('capacity')}: {w.dim(dim)}"
        unit = sheets.dimension_unit(plan, dim)
        path = f"host_model.capacity.{dim}"
        rows.append((with_unit(text, unit), hm["capacity"][dim], DEC1, path))
    tail: tuple[Figure, ...] = (
        ("capacity_unit", "host_model.capacity_unit", None, None),
        ("source", "host_model.source", None, None),
    )
    rows += w.figure_rows(plan, tail, **fields)
    return rows


_SHEETS: dict[str, Callable[[SheetWriter, Mapping[str, Any]], None]] = {
    "sheet_summary": _summary_sheet,
    "sheet_servers": sheets.servers_sheet,
    "sheet_demand": sheets.demand_sheet,
    "sheet_hosts": sheets.hosts_sheet,
    "sheet_placement": sheets.placement_sheet,
    "sheet_failover": failover_sheet,
    "sheet_power": sheets.power_sheet,
    "sheet_quality": sheets.quality_sheet,
    "sheet_excluded": sheets.excluded_sheet,
    "sheet_warnings": sheets.warnings_sheet,
}


def plan_workbook(plan: Mapping[str, Any], *, lang: str = "en") -> Workbook:
    """Build the workbook of ``plan`` in memory.

    Parameters
    ----------
    plan : dict
        A plan as described in ``docs/plan-schema.md`` (``schema_version`` "1" or "2").
    lang : {"en", "ja"}, default "en"
        Language of sheet names, headers, labels and translated values.

    Returns
    -------
    openpyxl.Workbook
        The workbook, sheets in :data:`SHEET_KEYS` order.

    Raises
    ------
    vsizer.errors.ConfigError
        A ``ValueError``: ``lang`` is not ``"en"`` or ``"ja"``.
    vsizer.errors.InputError
        ``plan`` is not a dict, misses a top-level key or has another
        ``schema_version``; every problem is listed.
    """
    check_lang(lang, "write_plan_xlsx")
    check_plan(plan)
    wb = Workbook()
    wb.remove(wb.active)
    for key in SHEET_KEYS:
        ws = wb.create_sheet(label(key, lang))
        _SHEETS[key](SheetWriter(ws, lang), plan)
    # sheets of what the plan has: time-series curves, predictions
    if sheets.has_curves(plan):
        ws = wb.create_sheet(label("sheet_curves", lang))
        sheets.curves_sheet(SheetWriter(ws, lang), plan)
    if predictions(plan) is not None:
        ws = wb.create_sheet(label("sheet_predictions", lang))
        sheets.predictions_sheet(SheetWriter(ws, lang), plan)
    if has_explain_sheet(plan):
        ws = wb.create_sheet(label("sheet_explain", lang))
        explain_sheet(SheetWriter(ws, lang), plan)
    if plan.get("storage"):  # inventories with disk capacity (vsizer.study.storage)
        storage_sheet(SheetWriter(wb.create_sheet(label("sheet_storage", lang)), lang), plan)
    if plan.get("growth"):
        ws = wb.create_sheet(label(GROWTH_SHEET_KEY, lang))
        growth_sheet(SheetWriter(ws, lang), plan)
    if plan.get("migration"):  # readiness and hygiene (RVTools exports)
        migration_sheet(SheetWriter(wb.create_sheet(label(MIGRATION_SHEET_KEY, lang)), lang),
                        plan)
    if plan.get("carbon"):  # carbon, when a grid is given
        carbon_sheet(SheetWriter(wb.create_sheet(label(CARBON_SHEET_KEY, lang)), lang), plan)
    if has_choice(plan):  # the host-model choice and TCO
        ws = wb.create_sheet(label("sheet_choice", lang))
        choice_sheet(SheetWriter(ws, lang), plan)
    if has_target(plan):  # plan --target
        target_sheet(SheetWriter(wb.create_sheet(label("sheet_target", lang)), lang), plan)
    cost_formulas(wb.worksheets[0])  # the price and PUE cells drive the cost
    for i, ws in enumerate(wb.worksheets):
        print_setup(ws, one_page=i == 0)
    props = wb.properties
    props.title = label("workbook_title", lang)
    props.creator = f"vsizer {plan.get('vsizer_version') or ''}".strip()
    props.language = lang
    props.created = FIXED_TIMESTAMP
    props.modified = FIXED_TIMESTAMP
    return wb


def reproducible_bytes(wb: Workbook) -> bytes:
    """Save ``wb`` and rewrite the parts openpyxl stamps with the current time."""
    wb.properties.created = FIXED_TIMESTAMP
    raw = io.BytesIO()
    wb.save(raw)  # sets wb.properties.modified to now
    wb.properties.modified = FIXED_TIMESTAMP
    core = tostring(wb.properties.to_tree())
    out = io.BytesIO()
    with (
        zipfile.ZipFile(raw) as src,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst,
    ):
        for info in src.infolist():
            data = core if info.filename == "docProps/core.xml" else src.read(info)
            entry = zipfile.ZipInfo(info.filename, FIXED_TIMESTAMP.timetuple()[:6])
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = info.external_attr
            entry.create_system = info.create_system
            dst.writestr(entry, data)
    return out.getvalue()


def write_plan_xlsx(
    plan: Mapping[str, Any], path: str | os.PathLike[str], *, lang: str = "en"
) -> None:
    """Write the Excel workbook of ``plan`` to ``path``.

    Parameters
    ----------
    plan : dict
        A plan as described in ``docs/plan-schema.md`` (``schema_version`` "1" or "2").
    path : str or os.PathLike
        Target ``.xlsx`` file; overwritten if it exists.
    lang : {"en", "ja"}, default "en"
        Language of sheet names, headers, labels and translated values.

    Raises
    ------
    vsizer.errors.ConfigError
        A ``ValueError``: ``lang`` is not ``"en"`` or ``"ja"``.
    vsizer.errors.InputError
        ``plan`` does not follow the schema at the top level.

    Notes
    -----
    The output is byte-for-byte reproducible for the same plan, language and
    openpyxl/zlib versions: the document properties and zip entries carry
    :data:`FIXED_TIMESTAMP` instead of the time of writing.

    Examples
    --------
    >>> import json
    >>> plan = json.load(open("plan.json", encoding="utf-8"))  # doctest: +SKIP
    >>> write_plan_xlsx(plan, "plan.xlsx", lang="ja")  # doctest: +SKIP
    """
    from vsizer._atomic import atomic_write

    data = reproducible_bytes(plan_workbook(plan, lang=lang))
    with atomic_write(path) as fh:
        fh.write(data)
