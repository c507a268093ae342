"""Size a pool on demand curves: fewest hosts whose curves hold at the ceiling and
survive every k-host failure, re-placed on the curves.

The counterpart of :func:`vsizer.placement.sizing.size_pool` for plans given time
series. Same rules (ceiling, N+k, minimum hosts, anti-affinity, pinning), but a
host's load is a curve: VMs whose peaks do not coincide share a host.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from vsizer.errors import InfeasiblePlacementError
from vsizer.placement.problem import EPS, PlacementProblem
from vsizer.placement.series_fit import (
    failover_on_curves,
    fit_curves,
    replay,
    series_lower_bounds,
    step_stat,
)
from vsizer.placement.sizing import PoolSizing, size_pool
from vsizer.placement.sizing import lower_bound as peak_lower_bound

#: Dimensions whose utilization is reported (vCPU is a density limit).
UTIL_DIMS = ("cpu", "mem", "disk_iops", "disk_mb_s", "net_mbps")


@dataclass
class CurveSizing:
    """Result of :func:`size_pool_on_curves`."""

    assignment: npt.NDArray[np.int64]
    n_hosts: int
    strategy: str
    lower_bound: int
    lower_bound_detail: dict[str, int]
    series_bound: dict[str, int] | None
    peak_sum_bound: dict[str, int]
    binding_dimension: str
    failover_rows: list[dict[str, Any]]
    replay: dict[str, Any]
    host_curves: npt.NDArray[np.float32]  # (H, T, D) utilization (fraction of capacity)
    solver: dict[str, Any] | None = None
    attempts: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def gap(self) -> int:
        return self.n_hosts - self.lower_bound

    @property
    def survives(self) -> bool:
        return not any(r["unplaced_within_limit"] for r in self.failover_rows)


def curve_lower_bounds(
    problem: PlacementProblem, curves: npt.NDArray[np.floating], quantile: float | None
) -> tuple[int, dict[str, int], dict[str, int] | None, dict[str, int], str]:
    """Lower bound on hosts for placement on curves, with its parts.

    Per dimension, ``series`` = ceil(max over steps of summed demand / usable
    load per host) — at the busiest step everything must fit, so no placement
    on the curves does with fewer. With k failures, the survivors must hold the
    busiest step within the failover limit: ceil(max_t sum / usable at the
    failover limit) + k. Anti-affinity, pinning and the pool minimum as in the
    peak-based bound. ``peak_sum`` (sum of per-VM peaks) is what peak-based
    sizing needs and is reported for comparison, not as a bound. With a
    percentile below 100 % the per-step bounds do not hold (a host may exceed
    on some steps), so only the structural parts count.
    """
    p = problem
    usable = p.usable()
    bounds = series_lower_bounds(curves, usable)
    peak_sum = {d: int(b) for d, b in zip(p.dims, bounds["peak_sum"], strict=True)}
    _, detail_peak, _ = peak_lower_bound(p)
    detail: dict[str, int] = {
        k: detail_peak[k] for k in ("anti_affinity", "min_hosts", "pinning")
    }
    total = curves.sum(axis=0, dtype=np.float64).max(axis=0)  # (D,)
    ratio = total / usable
    binding = p.dims[int(np.argmax(ratio))] if p.n_vms else p.dims[0]
    series: dict[str, int] | None = None
    if quantile is None:
        series = {d: int(b) for d, b in zip(p.dims, bounds["series"], strict=True)}
        detail.update(series)
        if p.failures > 0 and p.n_vms:
            fo = total / p.usable(failover=True)
            detail["failover"] = math.ceil(float(fo.max()) - EPS) + p.failures
        else:
            detail["failover"] = 0
    lb = max(detail.values()) if p.n_vms else 0
    return lb, detail, series, peak_sum, binding


def size_pool_on_curves(
    problem: PlacementProblem,
    curves: npt.NDArray[np.floating],
    *,
    quantile: float | None = None,
    solver: str = "heuristic",
    time_limit: float = 30.0,
    on_scenario: Callable[[], None] | None = None,
    scalar_demand: npt.NDArray[np.floating] | None = None,
) -> CurveSizing:
    """Grow the pool from its lower bound until the curves fit and every failure is survived.

    Parameters
    ----------
    problem : PlacementProblem
        The pool (capacities, ceiling, failures, anti-affinity, pins); its
        ``demand`` is not used here.
    curves : ndarray, shape (n_vms, n_steps, n_dims)
        Demand of every VM at every step, dimensions in ``problem.dims``.
    quantile : float, optional
        Share of steps that must fit (None: every step).
    solver : {"heuristic", "cp-sat"}
        "cp-sat" first solves the ceiling placement exactly (OR-Tools, within
        ``time_limit`` seconds) and keeps it when it also survives failover.
    on_scenario : callable, optional
        Progress: called once per failure scenario of the final check.
    scalar_demand : ndarray, shape (n_vms, n_dims), optional
        Each VM's demand as a plan without series would size it (its inventory
        peak); see :func:`peak_candidate`.

    Algorithm
    ---------
    First-fit decreasing on the curves gives a count. With no failures and no
    structural bound above it, that placement is the answer. Otherwise, from
    max(lower bound, that count) upward: place on exactly n hosts, spread first
    (lowest peak first, leaving headroom on every host), packed second; the
    first n whose placement survives every k-host failure on the curves wins.
    When that count is above the lower bound, the pool is also sized on
    per-VM peaks (:func:`peak_candidate`); that placement is kept when it needs
    fewer hosts, so curves never give more hosts than peaks would.

    Raises
    ------
    InfeasiblePlacementError
        No count up to one host per VM plus k spares and the minimum works.
    """
    p = problem
    # Each VM alone must fit: its own curve's statistic (peak, or the quantile).
    stat = np.asarray(
        step_stat(np.asarray(curves, dtype=np.float64), quantile), dtype=np.float64
    )
    dataclasses.replace(p, demand=stat).check_each_vm_fits()
    lb, detail, series_lb, peak_sum, binding = curve_lower_bounds(p, curves, quantile)
    n_vms, t, d = curves.shape
    util_mask = np.array([dim in UTIL_DIMS for dim in p.dims])
    max_load = p.capacity * p.limit
    fo_limit = p.failover_limit
    notes: list[str] = []
    if n_vms == 0:
        empty = np.zeros(0, dtype=np.int64)
        return CurveSizing(
            empty, 0, "none", 0, detail, series_lb, peak_sum, binding, [],
            {"over_ceiling": [], "over_100": []},
            np.zeros((0, t, d), dtype=np.float32),
        )
    common: dict[str, Any] = {
        "quantile": quantile,
        "groups": p.anti_affinity,
        "base_load": p.base_load,
        "pins": p.pins,
    }
    solver_info: dict[str, Any] | None = None
    candidates: list[tuple[str, npt.NDArray[np.int64], int]] = []
    ffd, n_ffd = fit_curves(curves, max_load, **common)
    assert ffd is not None
    if solver == "cp-sat":
        from vsizer.placement.cpsat import solve_curves

        if quantile is not None:
            notes.append(
                "cp-sat places on every step; with a percentile below 100 % the "
                "heuristic is used."
            )
        else:
            res = solve_curves(
                curves,
                max_load,
                base_load=p.base_load,
                groups=p.anti_affinity,
                pins=p.pins,
                hint=ffd,
                n_max=n_ffd,
                min_hosts=max(lb, 1),
                time_limit=time_limit,
            )
            solver_info = res.info(max(lb, 0))
            lb = max(lb, res.best_bound)
            candidates.append(("cp-sat", res.assignment, res.n_hosts))
    candidates.append(("first-fit-decreasing", ffd, n_ffd))
    attempts = 0
    chosen: tuple[str, npt.NDArray[np.int64], int] | None = None

    def survives(assign: npt.NDArray[np.int64], n: int) -> bool:
        if p.failures == 0:
            return True
        rows = failover_on_curves(
            curves, assign, n, p.capacity,
            failures=p.failures, failover_limit=fo_limit, groups=p.anti_affinity,
            base_load=p.base_load, quantile=quantile, report_dims=util_mask,
            stop_at_first_failure=True,
        )
        return not any(r["unplaced_within_limit"] for r in rows)

    for name, assign, n in sorted(candidates, key=lambda c: c[2]):
        attempts += 1
        if n >= lb and survives(assign, n):
            chosen = (name, assign, n)
            break
    start = max(lb, min(c[2] for c in candidates))
    upper = max(lb, n_vms + p.failures + p.min_hosts)
    n = start
    while chosen is None and n <= upper:
        for strategy, spread in (("spread", True), ("packed", False)):
            attempts += 1
            assign_n, _ = fit_curves(curves, max_load, n_hosts=n, spread=spread, **common)
            if assign_n is not None and survives(assign_n, n):
                chosen = (strategy, assign_n, n)
                break
        n += 1
    if chosen is None:
        raise InfeasiblePlacementError(
            f"pool '{p.pool}': no placement of {n_vms} VMs on their curves survives "
            f"{p.failures} host failure(s) even with {upper} hosts "
            "[anti-affinity or pinning constraints conflict]"
        )
    strategy, assignment, n_hosts = chosen
    hints: dict[tuple[int, ...], dict[int, int]] | None = None
    if n_hosts > lb:
        peak = peak_candidate(p, curves, scalar_demand, n_hosts)
        if peak is not None:
            strategy, assignment, n_hosts, hints = peak
    rows = (
        failover_on_curves(
            curves, assignment, n_hosts, p.capacity,
            failures=p.failures, failover_limit=fo_limit, groups=p.anti_affinity,
            base_load=p.base_load, quantile=quantile, report_dims=util_mask,
            on_scenario=on_scenario, hints=hints,
        )
        if p.failures > 0
        else []
    )
    host_curves = np.zeros((n_hosts, t, d), dtype=np.float32)
    np.add.at(host_curves, assignment, curves.astype(np.float32))
    host_curves += p.base_load.astype(np.float32)
    host_curves /= p.capacity.astype(np.float32)
    rep = replay(
        curves, assignment, n_hosts, p.capacity, p.limit, base_load=p.base_load
    )
    if solver_info is not None:
        solver_info["used"] = strategy == "cp-sat"
    return CurveSizing(
        assignment=assignment,
        n_hosts=n_hosts,
        strategy=strategy,
        lower_bound=lb,
        lower_bound_detail=detail,
        series_bound=series_lb,
        peak_sum_bound=peak_sum,
        binding_dimension=binding,
        failover_rows=rows,
        replay=rep,
        host_curves=host_curves,
        solver=solver_info,
        attempts=attempts,
        notes=notes,
    )


def peak_candidate(
    problem: PlacementProblem,
    curves: npt.NDArray[np.floating],
    scalar_demand: npt.NDArray[np.floating] | None,
    n_curves: int,
) -> tuple[str, npt.NDArray[np.int64], int, dict[tuple[int, ...], dict[int, int]]] | None:
    """The pool sized on per-VM peaks, when that needs fewer than ``n_curves`` hosts.

    Two demand sets are sized with :func:`~vsizer.placement.sizing.size_pool`:
    the larger of ``scalar_demand`` and each curve's peak (with every series at
    or below its inventory peak this is exactly the plan without series), and
    the curves' peaks alone. A placement that holds every VM at a demand no
    step of its curve exceeds holds on the curves at every step, and its
    failover re-placements hold too; they are returned as hints for
    :func:`~vsizer.placement.series_fit.failover_on_curves`. Returns
    ``(strategy, assignment, n_hosts, hints)`` of the smaller one, or None.
    """
    peaks = np.asarray(curves, dtype=np.float64).max(axis=1)
    options = []
    if scalar_demand is not None:
        options.append(np.fmax(np.asarray(scalar_demand, dtype=np.float64), peaks))
    if not options or not np.array_equal(options[0], peaks):
        options.append(peaks)
    best: PoolSizing | None = None
    for demand in options:
        try:
            sizing = size_pool(dataclasses.replace(problem, demand=demand))
        except InfeasiblePlacementError:
            continue
        n = sizing.placement.n_hosts
        if sizing.failover.survives and n < (best.placement.n_hosts if best else n_curves):
            best = sizing
    if best is None:
        return None
    pl = best.placement
    vm = {name: i for i, name in enumerate(problem.vm_names)}
    host = {problem.host_id(h): h for h in range(pl.n_hosts)}
    hints = {
        tuple(host[f] for f in sc.failed): {vm[m["vm"]]: host[m["to"]] for m in sc.moves}
        for sc in best.failover.detail
    }
    return f"peaks:{pl.strategy}", pl.assignment.astype(np.int64), pl.n_hosts, hints
