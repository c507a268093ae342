"""Render a ConsolidationPlan as the JSON document of docs/plan-schema.md.

Deterministic: keys in a fixed order, floats rounded to 6 decimals, no
timestamps or timings, names in input order.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from vsizer import __version__
from vsizer._jsonable import jsonable as _r
from vsizer.catalogs.hosts_before import before_summary
from vsizer.study import economics as cost
from vsizer.study._pools import CURVE_POINTS, pool_doc
from vsizer.study.config import TARGETS

if TYPE_CHECKING:
    from vsizer.study import ConsolidationPlan

SCHEMA_VERSION = "2"

#: Server fields exported, in order.
SERVER_FIELDS = (
    "name",
    "pool",
    "group",
    "rank",
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

TARGET_TEXT = {
    "host_ratio": "hosts / servers at most {t:g}",
    "rack_ratio": "rack units after / before at most {t:g}",
    "power_ratio": "power after / before at most {t:g}",
    "consolidation_ratio": "servers per host at least {t:g}",
}


def plan_to_json(plan: ConsolidationPlan) -> str:
    return json.dumps(plan_to_dict(plan), ensure_ascii=False, indent=2) + "\n"


def plan_to_dict(plan: ConsolidationPlan) -> dict[str, Any]:

    rules, host, servers = plan.rules, plan.host, plan.servers
    inv = plan.inventory
    n_servers = len(servers)

    pools_out: list[dict[str, Any]] = []
    host_power_total = 0.0
    index = plan.series.aligned.index if plan.series is not None else None
    for pr in plan.pools:
        idx = np.flatnonzero((servers["pool"] == pr.name).to_numpy())
        doc, watts_sum = pool_doc(plan, pr, idx, index)
        host_power_total += watts_sum
        pools_out.append(doc)

    n_hosts = sum(p["host_count"] for p in pools_out)
    lb = sum(p["lower_bound"]["hosts"] for p in pools_out)
    worst = max(
        (p["failover"]["worst_survivor_util"] or 0.0 for p in pools_out), default=0.0
    )
    survives = all(p["failover"]["survives"] for p in pools_out)

    # Power, cost, space
    # servers that are VMs with no known host: nothing physical before
    hosts_before = plan.before
    vms_already = bool(inv.metadata.get("from_series")) or (
        bool(inv.metadata.get("virtualized")) and hosts_before is None
    )
    before = before_summary(hosts_before) if hosts_before is not None else None
    before_w = float(servers["power_w"].astype(float).fillna(0).sum())
    if hosts_before is not None:  # a virtualized source: before = its hosts
        before_w = float(hosts_before["power_w"].sum())
    after_w = host_power_total
    price, pue, years = rules.price_kwh, rules.pue, rules.years
    kwh_before = cost.annual_energy_kwh(before_w, pue)
    kwh_after = cost.annual_energy_kwh(after_w, pue)
    cost_before: float | None
    cost_after: float | None
    saving: float | None
    saving_years: float | None
    if price is not None:
        cost_before = cost.annual_cost(before_w, price, pue)
        cost_after = cost.annual_cost(after_w, price, pue)
        saving = cost_before - cost_after
        saving_years = cost.saving_over_years(saving, years)
    else:
        cost_before = cost_after = saving = saving_years = None
    if vms_already:  # servers from series are VMs: nothing physical before
        cost_before = saving = saving_years = None
    sources = servers["power_source"].value_counts()
    rack_before = float(servers["rack_u"].astype(float).fillna(0).sum())
    if hosts_before is not None:
        rack_before = float(hosts_before["rack_u"].sum())
    rack_after = n_hosts * float(host.rack_u)
    size_u = rules.rack_size_u

    # For a virtualized source the machines before are its hosts, not its VMs.
    n_before = before["hosts_count"] if before is not None else n_servers
    actual = {
        "host_ratio": n_hosts / n_before if n_before else None,
        "rack_ratio": rack_after / rack_before if rack_before else None,
        "power_ratio": after_w / before_w if before_w else None,
        "consolidation_ratio": n_servers / n_hosts if n_hosts else None,
    }
    targets = []
    for name in TARGETS:
        if name not in rules.targets:
            continue
        t = rules.targets[name]
        a = actual[name]
        met = (
            None if a is None else (a >= t if name == "consolidation_ratio" else a <= t)
        )
        targets.append(
            {
                "name": name,
                "target": _r(t),
                "actual": _r(a),
                "met": met,
                "description": TARGET_TEXT[name].format(t=t),
            }
        )

    planned = servers["name"].astype(str).tolist()
    quality = plan.quality.to_dict(planned)
    unit = plan.capacity_unit
    return {
        "schema_version": SCHEMA_VERSION,
        "vsizer_version": __version__,
        "inputs": {
            "inventory": Path(inv.source).name,
            "source_format": inv.source_format,
            "host_catalog": plan.host_catalog,
            "host_model": host.model,
        },
        "parameters": {
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
            "price_kwh": _r(price),
            "currency": rules.currency,
            "pue": _r(pue),
            "years": years,
            "platform": list(rules.platform),
            "hyperthreading": rules.hyperthreading,
            "targets": {k: _r(v) for k, v in rules.targets.items()},
            "pools": {
                k: {kk: _r(vv) for kk, vv in asdict(v).items() if vv is not None}
                for k, v in rules.pools.items()
            },
        },
        "host_model": {
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
            "power_curve_w": [_r(w) for w in host.power_curve_w]
            if host.power_curve_w
            else None,
            "rack_u": _r(host.rack_u),
            "price": _r(host.price),
            "capacity": {d: _r(v) for d, v in plan.host_capacity.items()},
            "capacity_unit": unit,
            "source": host.source,
        },
        "summary": {
            "servers": n_servers,
            "excluded": len(inv.excluded),
            "hosts_before": None if before is None else before["hosts_count"],
            "hosts": n_hosts,
            "pools": len(pools_out),
            "consolidation_ratio": _r(actual["consolidation_ratio"]),
            "survives_failover": survives,
            "worst_survivor_util": _r(worst),
            "lower_bound": lb,
            "gap": n_hosts - lb,
            "capacity_unit": unit,
            "confidence": quality["confidence"],
            "confidence_threshold": _r(rules.min_confidence),
            "low_confidence": bool(n_servers)
            and quality["confidence"] < rules.min_confidence,
            "warnings": len(plan.warnings),
        },
        "demand": {
            "capacity_unit": unit,
            "totals": _totals(servers),
            "by_pool": _by(servers, "pool"),
            "by_group": _by(servers, "group"),
        },
        "servers": [
            {f: _r(row.get(f)) for f in SERVER_FIELDS}
            for row in servers.to_dict("records")
        ],
        "excluded": [
            {"name": str(r["name"]), "reason": str(r["reason"])}
            for r in inv.excluded.to_dict("records")
        ],
        "pools": pools_out,
        "before": before,
        "power": {
            "before_w": None if vms_already else _r(before_w),
            "after_w": _r(after_w),
            "annual_kwh_before": None if vms_already else _r(kwh_before),
            "annual_kwh_after": _r(kwh_after),
            "annual_cost_before": _r(cost_before),
            "annual_cost_after": _r(cost_after),
            "annual_saving": _r(saving),
            "saving_over_years": _r(saving_years),
            "years": years,
            "currency": rules.currency,
            "price_kwh": _r(price),
            "pue": _r(pue),
            "servers_power_from": {
                k: int(sources.get(k, 0)) for k in ("inventory", "catalog", "assumed")
            },
        },
        "space": {
            "rack_u_before": _r(rack_before),
            "rack_u_after": _r(rack_after),
            "racks_before": math.ceil(rack_before / size_u - 1e-9)
            if rack_before
            else 0,
            "racks_after": math.ceil(rack_after / size_u - 1e-9) if rack_after else 0,
            "rack_size_u": size_u,
        },
        "targets": targets,
        "quality": quality,
        "series": _series_section(plan),
        "warnings": [w.to_dict() for w in plan.warnings],
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


def _series_section(plan: ConsolidationPlan) -> dict[str, Any] | None:
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
