"""Per-pool sections of the plan document (peak sizing and curve sizing)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from vsizer._jsonable import jsonable as _r

if TYPE_CHECKING:
    from vsizer.study import ConsolidationPlan

#: Most points kept per curve in the JSON (max over blocks of steps beyond that).
CURVE_POINTS = 500
#: VMs shown by name in a host's stacked curve; the rest are summed as "(other)".
STACK_TOP = 8


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
    s = pr.sizing
    pl = s.placement
    prob = pl.problem
    loads = pl.host_loads() if pl.n_hosts else np.zeros((0, len(prob.dims)))
    util = loads / prob.capacity if pl.n_hosts else loads
    power = plan.economics.pool(pr.name)
    avg_util, watts = power.avg_cpu_util, power.watts
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
    power = plan.economics.pool(pr.name)
    avg_util, watts = power.avg_cpu_util, power.watts
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


def _curve(values: np.ndarray) -> list[float]:
    """A curve for the JSON: 4 decimals (0.01 % of capacity) keeps files small."""
    return [round(float(v), 4) + 0.0 for v in values]


