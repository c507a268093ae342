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

from vsizer import __version__, cost
from vsizer.catalogs.hosts_before import before_summary
from vsizer.config import TARGETS

if TYPE_CHECKING:
    from vsizer.study import ConsolidationPlan

SCHEMA_VERSION = "2"

#: Most points kept per curve in the JSON (max over blocks of steps beyond that).
CURVE_POINTS = 500
#: VMs shown by name in a host's stacked curve; the rest are summed as "(other)".
STACK_TOP = 8

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


def _r(x: Any) -> Any:
    """JSON-safe scalar: numpy -> python, floats rounded to 6 decimals, NaN -> None."""
    if x is None or x is pd.NA:
        return None
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        if math.isnan(x):
            return None
        if math.isinf(x):
            return None
        v = round(float(x), 6)
        return 0.0 if v == 0 else v
    return str(x) if not isinstance(x, (str, list, dict)) else x


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
        if pr.curve is not None:
            pool_doc, watts_sum = _curve_pool(plan, pr, idx, index)
        else:
            pool_doc, watts_sum = _peak_pool(plan, pr, idx)
        host_power_total += watts_sum
        pools_out.append(pool_doc)

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


def _pool_head(pr: Any, n_servers: int, n_hosts: int) -> dict[str, Any]:
    return {
        "name": pr.name,
        "servers": n_servers,
        "redundant": pr.failures > 0,
        "failures": pr.failures,
        "ceiling": _r(pr.ceiling),
        "min_hosts": pr.min_hosts,
        "host_count": n_hosts,
    }


def _peak_pool(
    plan: ConsolidationPlan, pr: Any, idx: np.ndarray
) -> tuple[dict[str, Any], float]:
    """A pool sized on per-server peak (or average) figures."""
    from vsizer.study import host_power_w

    s = pr.sizing
    pl = s.placement
    prob = pl.problem
    servers = plan.servers
    loads = pl.host_loads() if pl.n_hosts else np.zeros((0, len(prob.dims)))
    util = loads / prob.capacity if pl.n_hosts else loads
    avg_demand = servers["cpu_avg_demand"].astype(float).fillna(0).to_numpy()[idx]
    avg_load = np.zeros(pl.n_hosts)
    np.add.at(avg_load, pl.assignment, avg_demand)
    avg_util = avg_load / plan.host_capacity["cpu"]
    watts = host_power_w(plan.host, avg_util) if pl.n_hosts else np.zeros(0)
    hosts = [
        {
            "id": prob.host_id(h),
            "vms": pl.vms_on(h),
            "util": {d: _r(util[h, i]) for i, d in enumerate(prob.dims)},
            "demand": {d: _r(loads[h, i]) for i, d in enumerate(prob.dims)},
            "avg_cpu_util": _r(avg_util[h]),
            "power_w": _r(watts[h]),
        }
        for h in range(pl.n_hosts)
    ]
    fo = s.failover
    doc = _pool_head(pr, len(idx), pl.n_hosts)
    doc.update(
        {
            "lower_bound": {
                "hosts": s.lower_bound,
                "detail": dict(s.lower_bound_detail),
                "series": None,
                "peak_sum": None,
            },
            "gap": s.gap,
            "binding_dimension": s.binding_dimension,
            "strategy": pl.strategy,
            "solver": None,
            "hosts": hosts,
            "failover": {
                "failures": fo.failures,
                "survives": fo.survives,
                "scenario_count": fo.scenarios,
                "worst_survivor_util": _r(fo.worst_survivor_util),
                "worst_dimension": fo.worst_dimension,
                "worst_scenario": fo.worst_scenario,
                "failed_scenarios": [
                    {"failed": sc.failed, "unplaced": sc.unplaced}
                    for sc in fo.failed_scenarios
                ],
                "scenarios": [
                    {
                        "failed": sc.failed,
                        "moves": sc.moves,
                        "unplaced": sc.unplaced,
                        "worst_host": sc.worst_host,
                        "worst_dimension": sc.worst_dimension or None,
                        "worst_util": _r(sc.worst_util),
                        "worst_step": None,
                        "steps_over_100": None,
                        "survivor_util": {
                            h: {d: _r(v) for d, v in u.items()}
                            for h, u in sc.survivor_util.items()
                        },
                    }
                    for sc in fo.detail
                ],
            },
            "replay": None,
        }
    )
    return doc, float(watts.sum())


def _curve_pool(
    plan: ConsolidationPlan, pr: Any, idx: np.ndarray, index: pd.DatetimeIndex | None
) -> tuple[dict[str, Any], float]:
    """A pool placed on demand curves."""
    from vsizer.series.coverage import series_coverage
    from vsizer.series.demand import downsample_max, step_label
    from vsizer.study import host_power_w

    assert index is not None and pr.problem is not None and pr.vm_curves is not None
    assert plan.series is not None
    c, prob = pr.curve, pr.problem
    dims = list(prob.dims)
    shown = [i for i, d in enumerate(dims) if d != "vcpu"]
    names = list(prob.vm_names)
    n_hosts = c.n_hosts
    hc = c.host_curves  # (H, T, D) utilization
    util = hc.max(axis=1) if n_hosts else np.zeros((0, len(dims)))
    cpu_i = dims.index("cpu")
    avg_util = _curve_avg_cpu(plan, pr, idx) if n_hosts else np.zeros(0)
    watts = host_power_w(plan.host, avg_util) if n_hosts else np.zeros(0)
    vm_cpu = pr.vm_curves[:, :, cpu_i] / prob.capacity[cpu_i]  # (V, T) host fraction
    hosts = []
    for h in range(n_hosts):
        members = np.flatnonzero(c.assignment == h)
        curves_h, stride = downsample_max(hc[h], CURVE_POINTS)
        stack = []
        if members.size:
            peaks = vm_cpu[members].max(axis=1)
            top = members[np.argsort(-peaks, kind="stable")[:STACK_TOP]]
            rest = np.setdiff1d(members, top)
            for v in top.tolist():
                vals, _ = downsample_max(vm_cpu[v][:, None], CURVE_POINTS)
                stack.append({"vm": names[v], "values": _curve(vals[:, 0])})
            if rest.size:
                vals, _ = downsample_max(vm_cpu[rest].sum(axis=0)[:, None], CURVE_POINTS)
                stack.append({"vm": "(other)", "values": _curve(vals[:, 0])})
        hosts.append(
            {
                "id": prob.host_id(h),
                "vms": [names[v] for v in members.tolist()],
                "util": {d: _r(util[h, i]) for i, d in enumerate(dims)},
                "demand": {
                    d: _r(util[h, i] * prob.capacity[i]) for i, d in enumerate(dims)
                },
                "avg_cpu_util": _r(avg_util[h]),
                "power_w": _r(watts[h]),
                "curves": {dims[i]: _curve(curves_h[:, i]) for i in shown},
                "stack": {"cpu": stack},
            }
        )
    rows = []
    worst_all, worst_dim, worst_scn = -1.0, "", None
    for r in c.failover_rows:
        wd = dims[r["worst_dim"]] if r["worst_dim"] is not None else None
        row = {
            "failed": [prob.host_id(f) for f in r["failed"]],
            "moves": [
                {"vm": names[v], "to": prob.host_id(h)} for v, h in r["moves"].items()
            ],
            "unplaced": [names[v] for v in r["unplaced_within_limit"]],
            "worst_host": prob.host_id(r["worst_host"])
            if r["worst_host"] is not None
            else None,
            "worst_dimension": wd,
            "worst_util": _r(r["worst_util"]),
            "worst_step": step_label(index, r["worst_step"]),
            "steps_over_100": r["steps_over_100"],
            "survivor_util": {
                prob.host_id(h): {dims[i]: _r(u[i]) for i in shown}
                for h, u in r["survivor_peak"].items()
            },
        }
        rows.append(row)
        if r["worst_util"] > worst_all:
            worst_all, worst_dim = r["worst_util"], wd or ""
            worst_scn = {"failed": row["failed"], "host": row["worst_host"]}
    if not c.failover_rows:
        sub = util[:, shown] if n_hosts else np.zeros((0, len(shown)))
        if sub.size:
            flat = int(np.argmax(sub))
            worst_all = float(sub.reshape(-1)[flat])
            worst_dim = dims[shown[flat % len(shown)]]
        else:
            worst_all = 0.0
    rep = c.replay
    replay_hosts = []
    for h in range(n_hosts):
        sub = hc[h][:, shown]
        flat = int(np.argmax(sub))
        step, col = divmod(flat, len(shown))
        replay_hosts.append(
            {
                "id": prob.host_id(h),
                "steps_over_ceiling": int(rep["over_ceiling"][h]),
                "steps_over_100": int(rep["over_100"][h]),
                "worst_util": _r(sub[step, col]),
                "worst_dimension": dims[shown[col]],
                "worst_step": step_label(index, step),
            }
        )
    doc = _pool_head(pr, len(idx), n_hosts)
    doc.update(
        {
            "lower_bound": {
                "hosts": c.lower_bound,
                "detail": dict(c.lower_bound_detail),
                "series": c.series_bound,
                "peak_sum": c.peak_sum_bound,
            },
            "gap": c.gap,
            "binding_dimension": c.binding_dimension,
            "strategy": c.strategy,
            "solver": c.solver,
            "series_coverage": series_coverage(names, set(plan.series.inventory_only)),
            "hosts": hosts,
            "failover": {
                "failures": pr.failures,
                "survives": c.survives,
                "scenario_count": len(c.failover_rows),
                "worst_survivor_util": _r(worst_all),
                "worst_dimension": worst_dim,
                "worst_scenario": worst_scn,
                "failed_scenarios": [
                    {"failed": r["failed"], "unplaced": r["unplaced"]}
                    for r in rows
                    if r["unplaced"]
                ],
                "scenarios": rows,
            },
            "replay": {
                "steps": int(hc.shape[1]),
                "steps_over_ceiling": int(sum(rep["over_ceiling"])),
                "steps_over_100": int(sum(rep["over_100"])),
                "hosts": replay_hosts,
            },
        }
    )
    return doc, float(watts.sum())


def _curve_avg_cpu(plan: ConsolidationPlan, pr: Any, idx: np.ndarray) -> np.ndarray:
    """Average CPU utilization per host; a VM without a CPU series counts at its
    inventory average, as in a plan without series (it is placed at its peak)."""
    from vsizer.series.coverage import host_avg_cpu

    c, cpu_i = pr.curve, list(pr.problem.dims).index("cpu")
    host_mean = c.host_curves[:, :, cpu_i].mean(axis=1)
    flat = plan.series.cpu_flat if plan.series is not None else None
    if flat is None:
        return np.asarray(host_mean)
    avg = plan.servers["cpu_avg_demand"].astype(float).to_numpy()[idx]
    return host_avg_cpu(
        host_mean, c.assignment, pr.vm_curves[:, :, cpu_i].mean(axis=1, dtype=np.float64),
        avg, flat[idx], float(pr.problem.capacity[cpu_i]),
    )


def _curve(values: np.ndarray) -> list[float]:
    """A curve for the JSON: 4 decimals (0.01 % of capacity) keeps files small."""
    return [round(float(v), 4) + 0.0 for v in values]


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
