"""Render a PlanResult as the JSON document of docs/plan-schema.md.

Deterministic: keys in a fixed order, floats rounded to 6 decimals, no
timestamps or timings, names in input order.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from vsizer._jsonable import jsonable as _r
from vsizer._jsonable import jsonable_column
from vsizer._version import __version__
from vsizer.catalogs.hosts_before import before_summary
from vsizer.quality import below_threshold
from vsizer.study._growth_doc import growth_section
from vsizer.study._pools import CURVE_POINTS, pool_doc
from vsizer.study.carbon import plan_carbon
from vsizer.study.config import Rules
from vsizer.study.design_advice import design_advice_doc
from vsizer.study.economics import Economics, TargetCheck
from vsizer.study.migration_doc import migration_doc
from vsizer.study.ranking import choice_doc
from vsizer.study.rightsizing import rightsizing_doc
from vsizer.study.tco import tco_doc

if TYPE_CHECKING:
    from vsizer.study.plan_result import PlanResult

SCHEMA_VERSION = "2"

#: Server fields exported, in order.
SERVER_FIELDS = (
    "name",
    "pool",
    "group",
    "rank",
    "load_rank",
    "model",
    "cpu_name",
    "sockets",
    "cores_per_socket",
    "vcpus",
    "cpu_mhz",
    "cpu_score_per_core",
    "score_source",
    "cpu_capacity",
    "cpu_avg_util",
    "cpu_peak_util",
    "cpu_avg_demand",
    "cpu_peak_demand",
    "mem_gib",
    "vm_mem_gib",
    "disk_iops",
    "disk_mb_s",
    "net_mbps",
    "power_w",
    "power_source",
    "rack_u",
    "host",
)

def plan_to_json(plan: PlanResult) -> str:
    """The plan document as ``json.dumps(doc, ensure_ascii=False, indent=2)`` and a
    newline would write it (:func:`vsizer._jsonable.write_json` streams it to a file)."""
    return json.dumps(plan_to_dict(plan), ensure_ascii=False, indent=2) + "\n"


def plan_to_dict(plan: PlanResult, *, detail: bool = True) -> dict[str, Any]:
    """The plan document: every section of ``plan`` formatted, keys in schema order.

    Only formats: the numbers are the plan's (``plan.economics`` for power,
    cost, space and targets), rounded by :mod:`vsizer._jsonable`. The
    ``predictions`` section comes last, when the plan holds predictions.
    ``detail=False``: the per-server lists (``servers``, ``quality.servers``,
    ``rightsizing.vms``) are left empty: a large plan's are in its detail file
    (:mod:`vsizer.study.detail`).
    """
    pools = _pools_section(plan)
    quality = plan.quality.to_dict(
        plan.servers["name"].astype(str).tolist(), rows=detail
    )
    before = before_summary(plan.before) if plan.before is not None else None
    inputs = _inputs_section(plan)
    if before is not None and plan.baseline is not None:  # today's estate
        before.update(plan.baseline.to_dict())
        if plan.baseline.used:  # --vcpu-per-core today: the limit each pool used
            inputs["vcpu_per_core_today"] = plan.baseline.used_doc()
    doc: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "vsizer_version": __version__,
        "inputs": inputs,
        "parameters": _parameters_section(plan.rules),
        "host_model": _host_model_section(plan),
        "summary": _summary_section(plan, pools, before, quality),
        "demand": {
            "capacity_unit": plan.capacity_unit,
            "totals": _totals(plan.servers),
            "by_pool": _by(plan.servers, "pool"),
            "by_group": _by(plan.servers, "group"),
        },
        "servers": _servers_section(plan.servers) if detail else [],
        "excluded": [
            {"name": str(r["name"]), "reason": str(r["reason"])}
            for r in plan.inventory.excluded.to_dict("records")
        ],
        "pools": pools,
        "rightsizing": rightsizing_doc(plan.rightsizing, rows=detail),
        "before": before,
        "power": _power_section(plan.economics, plan.rules),
        "space": _space_section(plan.economics),
        "targets": [_target(t) for t in plan.economics.targets],
        "quality": quality,
        "series": _series_section(plan),
        "warnings": [w.to_dict() for w in plan.warnings],
    }
    if plan.storage is not None:  # only when the inventory gives disk capacity
        doc["storage"] = plan.storage.to_dict()
    doc.update(design_advice_doc(plan))  # storage_choice, hardware_advice
    if plan.growth is not None:
        doc["growth"] = growth_section(plan.growth)
    if plan.tco is not None:
        doc["tco"] = tco_doc(plan.tco)
    if plan.choice is not None:
        doc["choice"] = choice_doc(plan.choice)
    migration = migration_doc(plan)  # readiness, hygiene, what waves needs
    if migration is not None:
        doc["migration"] = migration
    carbon, notes = plan_carbon(doc, plan.rules.grid_gco2_kwh, plan.rules.grid_region)
    if carbon is not None:  # only when a grid is given (--grid-gco2-kwh or --grid-region)
        doc["carbon"] = carbon
    doc["warnings"] += notes
    doc["summary"]["warnings"] += len(notes)
    if plan.predictions is not None:
        doc["predictions"] = plan.predictions
    return doc


def _servers_section(servers: pd.DataFrame) -> list[dict[str, Any]]:
    """One record per server, the fields of :data:`SERVER_FIELDS` (column-wise)."""
    n = len(servers)
    cols = [
        jsonable_column(servers[f]) if f in servers else [None] * n for f in SERVER_FIELDS
    ]
    return [dict(zip(SERVER_FIELDS, row, strict=True)) for row in zip(*cols, strict=True)]


def _pools_section(plan: PlanResult) -> list[dict[str, Any]]:
    servers = plan.servers
    index = plan.series.aligned.index if plan.series is not None else None
    out = []
    for pr in plan.pools:
        idx = np.flatnonzero((servers["pool"] == pr.name).to_numpy())
        out.append(pool_doc(plan, pr, idx, index))
    return out


def _inputs_section(plan: PlanResult) -> dict[str, Any]:
    meta = plan.inventory.metadata
    doc: dict[str, Any] = {
        "inventory": Path(plan.inventory.source).name,
        "source_format": plan.inventory.source_format,
    }
    # how the inventory was read, when there was a choice
    if plan.inventory.source_format == "table" and meta.get("sheet") is not None:
        doc["sheet"] = str(meta["sheet"])
    if meta.get("decimal_comma"):
        doc["decimal_comma"] = [str(h) for h in meta["decimal_comma"]]
    doc["host_catalog"] = plan.host_catalog
    doc["host_model"] = plan.host.model
    return doc


def _parameters_section(rules: Rules) -> dict[str, Any]:
    return {
        "ceiling": _r(rules.ceiling),
        "failures": rules.failures,
        "min_hosts": rules.min_hosts,
        "failover_limit": _r(rules.failover_limit),
        "vcpu_per_core": _r(rules.vcpu_per_core),
        "host_memory_reserve_gib": _r(rules.host_memory_reserve_gib),
        "vm_memory_overhead_mib": _r(rules.vm_memory_overhead_mib),
        "vm_memory_overhead_model": (
            "constant"
            if rules.vm_memory_overhead_mib is not None
            else "ESXi 6.5 Table 6-1 (vSphere Resource Management)"
        ),
        "cpu_basis": rules.cpu_basis,
        "assume_util": _r(rules.assume_util),
        "min_confidence": _r(rules.min_confidence),
        "price_kwh": _r(rules.price_kwh),
        "currency": rules.currency,
        "pue": _r(rules.pue),
        "years": rules.years,
        "platform": list(rules.platform),
        "hyperthreading": rules.hyperthreading,
        "targets": {k: _r(v) for k, v in rules.targets.items()},
        "pools": {
            k: {kk: _r(vv) for kk, vv in asdict(v).items() if vv is not None}
            for k, v in rules.pools.items()
        },
    }


def _host_model_section(plan: PlanResult) -> dict[str, Any]:
    host = plan.host
    return {
        "model": host.model,
        "cpu_name": host.cpu_name,
        "sockets": host.sockets,
        "cores_per_socket": host.cores_per_socket,
        "threads_per_core": host.threads_per_core,
        "cpu_mhz": _r(host.cpu_mhz),
        "cpu_score_per_core": _r(host.cpu_score_per_core),
        "cpu_score_basis": host.cpu_score_basis,
        "mem_gib": _r(host.mem_gib),
        "power_idle_w": _r(host.power_idle_w),
        "power_max_w": _r(host.power_max_w),
        "power_basis": host.power_basis,
        "power_curve_w": [_r(w) for w in host.power_curve_w]
        if host.power_curve_w
        else None,
        "rack_u": _r(host.rack_u),
        "price": _r(host.price),
        "price_date": host.price_date,
        "price_currency": host.price_currency,
        "support_per_year": _r(host.support_per_year),
        "capacity": {d: _r(v) for d, v in plan.host_capacity.items()},
        "capacity_unit": plan.capacity_unit,
        "source": host.source,
    }


def _summary_section(
    plan: PlanResult,
    pools: list[dict[str, Any]],
    before: dict[str, Any] | None,
    quality: dict[str, Any],
) -> dict[str, Any]:
    n_servers, n_hosts = len(plan.servers), plan.economics.hosts
    lower_bound = sum(p["lower_bound"]["hosts"] for p in pools)
    min_confidence = plan.rules.min_confidence
    return {
        "servers": n_servers,
        "excluded": len(plan.inventory.excluded),
        "hosts_before": None if before is None else before["hosts_count"],
        "hosts": n_hosts,
        "pools": len(pools),
        "consolidation_ratio": _r(plan.economics.consolidation_ratio),
        "survives_failover": all(p["failover"]["survives"] for p in pools),
        "worst_survivor_util": _r(
            max(
                (p["failover"]["worst_survivor_util"] or 0.0 for p in pools),
                default=0.0,
            )
        ),
        "lower_bound": lower_bound,
        "gap": n_hosts - lower_bound,
        "capacity_unit": plan.capacity_unit,
        "confidence": quality["confidence"],
        "confidence_threshold": _r(min_confidence),
        "low_confidence": bool(n_servers)
        and below_threshold(quality["confidence"], min_confidence),
        "warnings": len(plan.warnings),
    }


def _power_section(e: Economics, rules: Rules) -> dict[str, Any]:
    return {
        "before_w": _r(e.before_w),
        "after_w": _r(e.after_w),
        "annual_kwh_before": _r(e.annual_kwh_before),
        "annual_kwh_after": _r(e.annual_kwh_after),
        "annual_cost_before": _r(e.annual_cost_before),
        "annual_cost_after": _r(e.annual_cost_after),
        "annual_saving": _r(e.annual_saving),
        "saving_over_years": _r(e.saving_over_years),
        "years": rules.years,
        "currency": rules.currency,
        "price_kwh": _r(rules.price_kwh),
        "pue": _r(rules.pue),
        "servers_power_from": dict(e.servers_power_from),
    }


def _space_section(e: Economics) -> dict[str, Any]:
    return {
        "rack_u_before": _r(e.rack_u_before),
        "rack_u_after": _r(e.rack_u_after),
        "racks_before": e.racks_before,
        "racks_after": e.racks_after,
        "rack_size_u": e.rack_size_u,
    }


def _target(t: TargetCheck) -> dict[str, Any]:
    return {
        "name": t.name,
        "target": _r(t.target),
        "actual": _r(t.actual),
        "met": t.met,
        "description": t.description,
    }


def _totals(df: pd.DataFrame) -> dict[str, Any]:
    def col_sum(c: str) -> Any:
        if c not in df or df[c].notna().sum() == 0:
            return None
        return _r(df[c].astype(float).sum())

    return {
        "capacity": col_sum("cpu_capacity"),
        "average": col_sum("cpu_avg_demand"),
        "peak": col_sum("cpu_peak_demand"),
        "mem_gib": col_sum("mem_gib"),
        "vcpus": _r(int(df["vcpus"].astype(float).fillna(0).sum())),
        "disk_iops": col_sum("disk_iops"),
        "disk_mb_s": col_sum("disk_mb_s"),
        "net_mbps": col_sum("net_mbps"),
    }


def _by(df: pd.DataFrame, key: str) -> list[dict[str, Any]]:
    out = []
    keys = df[key].astype("object").where(df[key].notna(), "(none)")
    for value in pd.unique(keys):
        part = df[(keys == value).to_numpy()]
        out.append({"name": str(value), "servers": len(part), **_totals(part)})
    return out


def _series_section(plan: PlanResult) -> dict[str, Any] | None:
    info = plan.series
    if info is None:
        return None
    a = info.aligned
    rules = plan.rules
    kinds: dict[str, int] = {}
    for issue in info.quality.issues:
        kinds[issue["kind"]] = kinds.get(issue["kind"], 0) + int(issue["count"])
    n = a.n_steps
    stride = max(1, -(-n // CURVE_POINTS))
    return {
        "source": Path(info.source).name,
        "format": info.source_format,
        "step_seconds": int(a.step.total_seconds()),
        "start": a.index[0].strftime("%Y-%m-%dT%H:%M:%SZ") if n else None,
        "end": a.index[-1].strftime("%Y-%m-%dT%H:%M:%SZ") if n else None,
        "steps": n,
        "stride": stride,
        "percentile": rules.percentile,
        "resample": rules.resample,
        "gap_fill": rules.gap_fill,
        "mem_basis": rules.mem_basis,
        "solver": rules.solver,
        "servers": len(a.servers),
        "matched": info.matched,
        "inventory_only": len(info.inventory_only),
        "series_only": len(info.series_only),
        "overlap": a.report.get("overlap"),
        "gaps": {k: int(v) for k, v in sorted(a.report.get("gaps", {}).items())},
        "demand": info.demand_report,
        "quality_issues": dict(sorted(kinds.items())),
        "quality_notes": list(info.quality.notes),
    }
