"""Per-pool sections of the plan document: one renderer for a pool sized on
scalar demand and on demand curves (the curve parts only when present)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from vsizer._jsonable import jsonable as _r
from vsizer.placement.failover import FailoverReport, Scenario
from vsizer.placement.failover_report import MAX_LISTED_SCENARIOS
from vsizer.placement.problem import UTIL_DIMS
from vsizer.study.count_reason import count_reason_doc

if TYPE_CHECKING:
    from vsizer.placement.sizing import PoolSizing
    from vsizer.study.economics import PoolPower
    from vsizer.study.plan_result import PlanResult
    from vsizer.study.results import PoolResult

#: Most points kept per curve in the JSON (max over blocks of steps beyond that).
CURVE_POINTS = 500
#: VMs shown by name in a host's stacked curve; the rest are summed as "(other)".
STACK_TOP = 8


def pool_doc(
    plan: PlanResult,
    pr: PoolResult,
    idx: np.ndarray,
    index: pd.DatetimeIndex | None,
) -> dict[str, Any]:
    """The JSON section of one pool.

    ``idx`` are the pool's servers (plan order); ``index`` the plan's series
    time steps (needed when the pool was sized on curves).
    """
    s = pr.sizing
    power = plan.economics.pool(pr.name)
    hosts = _curve_hosts(pr, power) if s.on_curves else _peak_hosts(s, power)
    doc = _pool_head(pr, len(idx), s.n_hosts)
    doc.update(
        {
            "lower_bound": {
                "hosts": s.lower_bound,
                "detail": dict(s.lower_bound_detail),
                "series": s.series_bound,
                "peak_sum": s.peak_sum_bound,
            },
            "gap": s.gap,
            "binding_dimension": s.binding_dimension,
            "strategy": s.strategy,
            "solver": s.solver,
            "count_reason": count_reason_doc(pr.count_reason),
        }
    )
    if s.on_curves:
        from vsizer.series.coverage import series_coverage

        assert plan.series is not None
        names = list(s.placement.problem.vm_names)
        doc["series_coverage"] = series_coverage(names, set(plan.series.inventory_only))
    doc["hosts"] = hosts
    doc["failover"] = _failover(s.failover, index)
    doc["replay"] = _replay(s, index) if s.on_curves else None
    return doc


def _pool_head(pr: PoolResult, n_servers: int, n_hosts: int) -> dict[str, Any]:
    return {
        "name": pr.name,
        "servers": n_servers,
        "redundant": pr.failures > 0,
        "failures": pr.failures,
        "ceiling": _r(pr.ceiling),
        "min_hosts": pr.min_hosts,
        "host_count": n_hosts,
    }


def _peak_hosts(s: PoolSizing, power: PoolPower) -> list[dict[str, Any]]:
    """Hosts of a pool sized on per-server peak (or average) figures."""
    pl = s.placement
    prob = pl.problem
    loads = pl.host_loads() if pl.n_hosts else np.zeros((0, len(prob.dims)))
    util = loads / prob.capacity if pl.n_hosts else loads
    avg_util, watts = power.avg_cpu_util, power.watts
    names = prob.vm_names
    # The VMs of every host from one sort (not one scan of all VMs per host).
    by_host = np.argsort(pl.assignment, kind="stable")
    cuts = np.searchsorted(pl.assignment[by_host], np.arange(pl.n_hosts + 1)).tolist()
    order = by_host.tolist()
    hosts = [
        {
            "id": prob.host_id(h),
            "vms": [names[v] for v in order[cuts[h] : cuts[h + 1]]],
            "util": {d: _r(util[h, i]) for i, d in enumerate(prob.dims)},
            "demand": {d: _r(loads[h, i]) for i, d in enumerate(prob.dims)},
            "avg_cpu_util": _r(avg_util[h]),
            "power_w": _r(watts[h]),
        }
        for h in range(pl.n_hosts)
    ]
    return hosts


def _curve_hosts(pr: PoolResult, power: PoolPower) -> list[dict[str, Any]]:
    """Hosts of a pool placed on demand curves, with their curves."""
    from vsizer.series.demand import downsample_max

    s = pr.sizing
    assert s.host_curves is not None and pr.vm_curves is not None
    prob = s.placement.problem
    dims = list(prob.dims)
    shown = [i for i, d in enumerate(dims) if d in UTIL_DIMS]
    names = list(prob.vm_names)
    n_hosts, hc = s.n_hosts, s.host_curves  # (H, T, D) utilization
    util = hc.max(axis=1) if n_hosts else np.zeros((0, len(dims)))
    cpu_i = dims.index("cpu")
    avg_util, watts = power.avg_cpu_util, power.watts
    vm_cpu = pr.vm_curves[:, :, cpu_i] / prob.capacity[cpu_i]  # (V, T) host fraction
    hosts = []
    for h in range(n_hosts):
        members = np.flatnonzero(s.assignment == h)
        curves_h, _ = downsample_max(hc[h], CURVE_POINTS)
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
                "stack": {"cpu": _cpu_stack(vm_cpu, members, names)},
            }
        )
    return hosts


def _cpu_stack(
    vm_cpu: np.ndarray, members: np.ndarray, names: list[str]
) -> list[dict[str, Any]]:
    """A host's CPU curve per VM: the STACK_TOP largest peaks by name, the rest summed."""
    from vsizer.series.demand import downsample_max

    stack: list[dict[str, Any]] = []
    if not members.size:
        return stack
    peaks = vm_cpu[members].max(axis=1)
    top = members[np.argsort(-peaks, kind="stable")[:STACK_TOP]]
    rest = np.setdiff1d(members, top)
    for v in top.tolist():
        vals, _ = downsample_max(vm_cpu[v][:, None], CURVE_POINTS)
        stack.append({"vm": names[v], "values": _curve(vals[:, 0])})
    if rest.size:
        vals, _ = downsample_max(vm_cpu[rest].sum(axis=0)[:, None], CURVE_POINTS)
        stack.append({"vm": "(other)", "values": _curve(vals[:, 0])})
    return stack


def listed_scenarios(fo: FailoverReport) -> list[Scenario]:
    """The scenarios of ``fo`` the document lists (all up to the cap)."""
    detail = fo.detail
    if len(detail) <= MAX_LISTED_SCENARIOS:
        return detail
    ranked = sorted(
        range(len(detail)),
        key=lambda i: (not detail[i].unplaced, -detail[i].worst_util, i),
    )[:MAX_LISTED_SCENARIOS]
    return [detail[i] for i in sorted(ranked)]


def _failover(fo: FailoverReport, index: pd.DatetimeIndex | None) -> dict[str, Any]:
    listed = listed_scenarios(fo)
    extra = (
        {"scenarios_listed": {"listed": len(listed), "checked": len(fo.detail)}}
        if len(listed) < len(fo.detail)
        else {}
    )
    return {
        "failures": fo.failures,
        "survives": fo.survives,
        "scenario_count": fo.scenarios,
        "worst_survivor_util": _r(fo.worst_survivor_util),
        "worst_dimension": fo.worst_dimension,
        "worst_scenario": fo.worst_scenario,
        "failed_scenarios": [
            {"failed": sc.failed, "unplaced": sc.unplaced} for sc in fo.failed_scenarios
        ],
        "scenarios": [_scenario(sc, index) for sc in listed],
        **extra,
    }


def _scenario(sc: Scenario, index: pd.DatetimeIndex | None) -> dict[str, Any]:
    return {
        "failed": sc.failed,
        "moves": sc.moves,
        "unplaced": sc.unplaced,
        "worst_host": sc.worst_host,
        "worst_dimension": sc.worst_dimension or None,
        "worst_util": _r(sc.worst_util),
        "worst_step": _step(index, sc.worst_step),
        "steps_over_100": sc.steps_over_100,
        "survivor_util": {
            h: {d: _r(v) for d, v in u.items()} for h, u in sc.survivor_util.items()
        },
    }


def _replay(s: PoolSizing, index: pd.DatetimeIndex | None) -> dict[str, Any]:
    """The curves replayed on the placement: steps over the ceiling and over 100 %."""
    assert s.host_curves is not None and s.replay is not None
    hc, rep, prob = s.host_curves, s.replay, s.placement.problem
    dims = list(prob.dims)
    shown = [i for i, d in enumerate(dims) if d in UTIL_DIMS]
    hosts = []
    for h in range(s.n_hosts):
        sub = hc[h][:, shown]
        step, col = divmod(int(np.argmax(sub)), len(shown))
        hosts.append(
            {
                "id": prob.host_id(h),
                "steps_over_ceiling": int(rep["over_ceiling"][h]),
                "steps_over_100": int(rep["over_100"][h]),
                "worst_util": _r(sub[step, col]),
                "worst_dimension": dims[shown[col]],
                "worst_step": _step(index, step),
            }
        )
    return {
        "steps": int(hc.shape[1]),
        "steps_over_ceiling": int(sum(rep["over_ceiling"])),
        "steps_over_100": int(sum(rep["over_100"])),
        "hosts": hosts,
    }


def _step(index: pd.DatetimeIndex | None, step: int | None) -> str | None:
    """ISO time of a step of the series (None without a step)."""
    from vsizer.series.demand import step_label

    if step is None:
        return None
    assert index is not None
    return step_label(index, step)


def _curve(values: np.ndarray) -> list[float]:
    """A curve for the JSON: 4 decimals (0.01 % of capacity) keeps files small."""
    return [round(float(v), 4) + 0.0 for v in values]
