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
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from vsizer.engines import Engine
from vsizer.errors import InfeasiblePlacementError
from vsizer.placement import _breakout, config_lp, failover
from vsizer.placement.breakout_reduce import reduce_hosts
from vsizer.placement.curve_failover import Hints, host_curves
from vsizer.placement.improve import improve_placement
from vsizer.placement.problem import EPS, PlacementProblem
from vsizer.placement.result import Placement
from vsizer.placement.series_fit import (
    count_bound,
    fit_curves,
    replay,
    series_lower_bounds,
    step_stat,
)
from vsizer.placement.sizing import PoolSizing, size_pool
from vsizer.placement.sizing import lower_bound as peak_lower_bound

#: Largest first-fit placement (hosts x slots: steps of each dimension that varies over
#: time, one of each constant one) the local search of :mod:`vsizer.placement.improve`
#: runs on; its cost grows with it. The breakout search of
#: :mod:`vsizer.placement.breakout_reduce`, on a counted work budget, runs at any size.
IMPROVE_MAX_HOST_STEPS = 20_000

#: A placement found: (strategy, host index per VM, host count).
Candidate = tuple[str, npt.NDArray[np.int64], int]


def curve_lower_bounds(
    problem: PlacementProblem, curves: npt.NDArray[np.floating], quantile: float | None
) -> tuple[int, dict[str, int], dict[str, int] | None, dict[str, int], str]:
    """Lower bound on hosts for placement on curves, with its parts.

    Per dimension, ``series`` = ceil(max over steps of summed demand / usable
    load per host) — at the busiest step everything must fit, so no placement
    on the curves does with fewer. With k failures, the survivors must hold the
    busiest step within the failover limit: ceil(max_t sum / usable at the
    failover limit) + k. ``l2``: the L2 bin-packing bound of Martello and Toth
    (1990) at every step, which counts items above half a host one host each
    (:func:`~vsizer.placement.series_fit.step_l2_bound`), best dimension. Anti-affinity, pinning and the pool minimum as in the
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
        # Martello-Toth L2 per step (items above half a host), best over dimensions
        detail["l2"] = max(bounds["l2"], default=0)
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
    engine: Engine | None = None,
    search_work: int | None = None,
    bound_lp_vms: int = config_lp.MAX_VMS,
) -> PoolSizing:
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
    search_work : int, optional
        Slot evaluations of :mod:`vsizer.placement.breakout_reduce` (None: its
        ``work_budget`` for the pool's size); counted work, not time.
    bound_lp_vms : int
        Largest pool, in VMs, whose configuration-LP bound (:func:`configuration_lp`)
        is tried when the count is above the lower bound (the ``--bound-lp-vms``
        rule; 0: never, as in sizings whose bound nobody reads, such as the count
        reason's relaxed ones).

    Returns
    -------
    PoolSizing, with its curve fields set.

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
    p, fit = problem, _CurveFit(problem, curves, quantile)
    fit.check_each_vm_fits()
    lb, detail, series_lb, peak_sum, binding = curve_lower_bounds(p, curves, quantile)
    bounds: dict[str, Any] = {"series_bound": series_lb, "peak_sum_bound": peak_sum}
    if curves.shape[0] == 0:
        return fit.empty(detail, binding, bounds)
    start = _starting_candidates(fit, lb, solver, time_limit, detail, search_work)
    lb = start.lower_bound  # cp-sat's proven bound may raise it
    (strategy, assignment, n_hosts), attempts = fit.grow(start.candidates, lb, start.spares)
    hints: Hints | None = None
    if n_hosts > lb:
        peak = peak_candidate(p, curves, scalar_demand, n_hosts)
        if peak is not None:
            strategy, assignment, n_hosts, hints = peak
    bound_lp = None
    if quantile is None and n_hosts > lb:  # a gap: the configuration LP may close it
        found, bound_lp = configuration_lp(p, curves, assignment, lb, n_hosts, detail,
                                           max_vms=bound_lp_vms)
        lb = max(lb, found)
    placement = fit.placement(strategy, assignment, n_hosts)
    report = failover.check(
        placement, curves, quantile=quantile, hints=hints, on_scenario=on_scenario
    )
    if start.solver is not None:
        start.solver["used"] = strategy in ("cp-sat", "cp-sat+spares")
    return PoolSizing(
        placement, report, lb, detail, binding, attempts, tuple(start.notes), **bounds,
        replay=replay(curves, assignment, n_hosts, p.capacity, p.limit, base_load=p.base_load),
        host_curves=fit.host_curves(placement), solver=start.solver, bound_lp=bound_lp,
    )


def configuration_lp(
    problem: PlacementProblem, curves: npt.NDArray[np.floating],
    assignment: npt.NDArray[np.int64], lb: int, n_hosts: int, detail: dict[str, int],
    max_vms: int = config_lp.MAX_VMS,
) -> tuple[int, str | None]:
    """The configuration-LP bound (:mod:`vsizer.placement.config_lp`) of a pool of at
    most ``max_vms`` VMs (default ``config_lp.MAX_VMS``) with scipy installed, seeded with the placement's
    hosts; recorded in ``detail["configuration_lp"]`` and returned when above ``lb``,
    else ``lb``. A bound on packing at the ceiling (anti-affinity in, pins and failover
    out), so valid for the pool whatever its failover rule. With it, whether the
    column generation ran ("ran"), was not run because the pool has more than
    ``max_vms`` VMs ("off"; 0: never), or None without scipy."""
    res = config_lp.configuration_lp_bound(  # None above max_vms VMs or without scipy
        curves, problem.usable(), groups=problem.anti_affinity,
        max_load=problem.capacity * problem.limit, start=assignment, floor=lb,
        target=n_hosts, max_vms=max_vms,
    )
    ran = {"too-large": "off", "no-scipy": None}.get(res.status, "ran")
    if res.bound is None or res.bound <= lb:
        return lb, ran
    detail["configuration_lp"] = res.bound
    return res.bound, ran


def _packing_floor(detail: dict[str, int]) -> int:
    """The lower bound without its failover part: no packing at the ceiling goes below."""
    return max((v for k, v in detail.items() if k != "failover"), default=0)


@dataclass(frozen=True, eq=False)
class _CurveFit:
    """One pool's curves and rules: placements on n hosts and their failover test."""

    problem: PlacementProblem
    curves: npt.NDArray[np.floating]
    quantile: float | None

    @property
    def max_load(self) -> npt.NDArray[np.float64]:
        return self.problem.capacity * self.problem.limit

    @property
    def common(self) -> dict[str, Any]:
        p = self.problem
        return {
            "quantile": self.quantile,
            "groups": p.anti_affinity,
            "base_load": p.base_load,
            "pins": p.pins,
        }

    def check_each_vm_fits(self) -> None:
        """Each VM alone must fit: its own curve's statistic (peak, or the quantile)."""
        # the statistic of the float32 curves, then widened: the same values as
        # widening first (max and the "higher" quantile pick an element), half the memory
        stat = np.asarray(step_stat(self.curves, self.quantile), dtype=np.float64)
        dataclasses.replace(self.problem, demand=stat).check_each_vm_fits()

    def empty(self, detail: dict[str, int], binding: str, bounds: dict[str, Any]
              ) -> PoolSizing:
        """The sizing of a pool without VMs."""
        empty = self.placement("none", np.zeros(0, dtype=np.int64), 0)
        return PoolSizing(
            empty, failover.check(empty, self.curves), 0, detail, binding, 0, **bounds,
            replay={"over_ceiling": [], "over_100": []}, host_curves=self.host_curves(empty),
        )

    def placement(self, strategy: str, assignment: npt.NDArray[np.int64], n: int) -> Placement:
        return Placement(self.problem, n, assignment, "feasible", strategy)

    def host_curves(self, placement: Placement) -> npt.NDArray[np.float32]:
        p = self.problem
        return host_curves(
            self.curves, placement.assignment, placement.n_hosts, p.base_load, p.capacity
        )

    def first_fit(self) -> tuple[npt.NDArray[np.int64], int]:
        """First-fit decreasing, opening hosts as needed."""
        assign, n = fit_curves(self.curves, self.max_load, **self.common)
        assert assign is not None
        return assign, n

    def survives(self, assign: npt.NDArray[np.int64], n: int) -> bool:
        """Every k-host failure absorbed on the curves (stops at the first that is not)."""
        if self.problem.failures == 0:
            return True
        report = failover.check(
            self.placement("", assign, n), self.curves, quantile=self.quantile,
            stop_at_first_failure=True,
        )
        return report.survives

    def improve(
        self, assign: npt.NDArray[np.int64], n: int, floor: int
    ) -> Candidate | None:
        """The placement after local search (:mod:`vsizer.placement.improve`) when it
        needs fewer hosts; the repair's iterations scale down with long series."""
        p = self.problem
        steps = int(np.prod(self.curves.shape[1:]))
        res = improve_placement(
            self.curves, self.max_load, assign, n, quantile=self.quantile,
            groups=p.anti_affinity, base_load=p.base_load, pins=p.pins,
            floor=max(floor, 1), repair=max(50, 2000 * 576 // max(steps, 1)),
        )
        if res.n_hosts >= n:
            return None
        return ("first-fit-decreasing+improve", res.assignment, res.n_hosts)

    def slots(self) -> int:
        """Slots per host: the steps of each dimension that varies over time, one for
        each dimension constant for every VM (a scalar per VM)."""
        c = self.curves
        flat = [bool((c[:, :, d] == c[:, :1, d]).all()) for d in range(c.shape[2])]
        return sum(1 if f else c.shape[1] for f in flat)

    def breakout(self, start: Candidate, floor: int, work: int | None) -> Candidate | None:
        """``start`` with hosts freed by the breakout search
        (:mod:`vsizer.placement.breakout_reduce`) down to ``floor``, when it frees one;
        every step must fit, so None with a quantile."""
        if self.quantile is not None:
            return None
        p = self.problem
        res = reduce_hosts(
            self.curves, self.max_load, start[1], start[2], groups=p.anti_affinity,
            pins=p.pins, base_load=p.base_load, floor=max(floor, 1), work=work,
        )
        if res.n_hosts >= start[2]:
            return None
        return (f"{start[0]}+breakout", res.assignment, res.n_hosts)

    def grow(
        self, candidates: list[Candidate], lb: int, spares: list[Candidate] | None = None
    ) -> tuple[Candidate, int]:
        """The smallest candidate (``spares`` candidates included) at or above ``lb``
        that survives, else the first count from there up whose spread or packed
        placement (or a ``spares`` candidate of that count) does; with attempts."""
        attempts = 0
        for name, assign, n in sorted(candidates + (spares or []), key=lambda c: c[2]):
            attempts += 1
            if n >= lb and self.survives(assign, n):
                return (name, assign, n), attempts
        p = self.problem
        upper = max(lb, p.n_vms + p.failures + p.min_hosts)
        for n in range(max(lb, min(c[2] for c in candidates)), upper + 1):
            for strategy, spread in (("spread", True), ("packed", False)):
                attempts += 1
                assign_n, _ = fit_curves(
                    self.curves, self.max_load, n_hosts=n, spread=spread, **self.common
                )
                if assign_n is not None and self.survives(assign_n, n):
                    return (strategy, assign_n, n), attempts
            for cand in [c for c in spares or [] if c[2] == n]:
                attempts += 1
                if self.survives(cand[1], n):
                    return cand, attempts
        raise InfeasiblePlacementError(
            f"pool '{p.pool}': no placement of {p.n_vms} VMs on their curves survives "
            f"{p.failures} host failure(s) even with {upper} hosts "
            "[anti-affinity or pinning constraints conflict]"
        )


@dataclass
class _Start:
    """The placements to try first (cp-sat's, first-fit's) and what they taught."""

    candidates: list[Candidate]
    lower_bound: int
    solver: dict[str, Any] | None
    notes: list[str]
    spares: list[Candidate] = dataclasses.field(default_factory=list)


def _starting_candidates(
    fit: _CurveFit, lb: int, solver: str, time_limit: float, detail: dict[str, int],
    work: int | None = None,
) -> _Start:
    """First-fit decreasing, and with ``solver="cp-sat"`` the exact ceiling placement
    (its proven bound raises the lower bound); first-fit's improved by local search
    (:mod:`vsizer.placement.improve` while small, then the breakout search on ``work``
    slot evaluations) down to the bound without failover (``detail`` less its failover
    part, or the count of VMs a host holds in a flat dimension when that is higher:
    :func:`~vsizer.placement.series_fit.count_bound`), with k spares when k > 0."""
    p = fit.problem
    # no packing at the ceiling goes below: nor the search, which stops there
    floor = max(_packing_floor(detail), count_bound(fit.curves, p.usable()))
    ffd, n_ffd = fit.first_fit()
    start = _Start([], lb, None, [])
    improved = None
    # the compiled breakout search starts from first-fit: measured on the seven
    # PlanetLab days of benchmarks/cloudsim_planetlab.py, 325 hosts in all in 45-49 CPU s
    # a day against 327 in 45-62 CPU s after improve.py's search
    small = n_ffd * int(np.prod(fit.curves.shape[1:])) <= IMPROVE_MAX_HOST_STEPS
    if floor < n_ffd and small and not (fit.quantile is None and _breakout.available()):
        improved = fit.improve(ffd, n_ffd, floor)
    if floor < n_ffd:  # no search when first-fit is at the floor already
        freed = fit.breakout(improved or ("first-fit-decreasing", ffd, n_ffd), floor, work)
        improved = freed or improved
    if solver == "cp-sat":
        from vsizer.placement.lns_exact import solve_exact

        if fit.quantile is not None:
            start.notes.append(
                "cp-sat places on every step; with a percentile below 100 % the "
                "heuristic is used."
            )
        else:  # the search starts from the best heuristic placement
            begin = improved[1] if improved is not None else ffd
            # The packing at the ceiling, against its own bound (``floor``: without the
            # failover part); with k > 0 it also comes with k empty spares, which take
            # any k failed hosts' VMs whole.
            res = solve_exact(
                fit.curves, fit.max_load, base_load=p.base_load, groups=p.anti_affinity,
                pins=p.pins, start=begin, bound=max(floor if p.failures else lb, 1),
                time_limit=time_limit,
            )
            start.solver = res.info()
            start.lower_bound = max(lb, res.bound)
            start.candidates.append(("cp-sat", res.assignment, res.n_hosts))
            if p.failures > 0:
                start.spares.append(("cp-sat+spares", res.assignment,
                                     res.n_hosts + p.failures))
    start.candidates.append(("first-fit-decreasing", ffd, n_ffd))
    if improved is not None:
        start.candidates.append(improved)
        if p.failures > 0:  # the improved packing plus k empty spares, tried in grow's turn
            start.spares.append((f"{improved[0]}+spares", improved[1], improved[2] + p.failures))
    return start


def peak_candidate(
    problem: PlacementProblem,
    curves: npt.NDArray[np.floating],
    scalar_demand: npt.NDArray[np.floating] | None,
    n_curves: int,
) -> tuple[str, npt.NDArray[np.int64], int, Hints] | None:
    """The pool sized on per-VM peaks, when that needs fewer than ``n_curves`` hosts.

    Two demand sets are sized with :func:`~vsizer.placement.sizing.size_pool`:
    the larger of ``scalar_demand`` and each curve's peak (with every series at
    or below its inventory peak this is exactly the plan without series), and
    the curves' peaks alone. A placement that holds every VM at a demand no
    step of its curve exceeds holds on the curves at every step, and its
    failover re-placements hold too; they are returned as hints for
    :func:`~vsizer.placement.failover.check` on the curves. Returns
    ``(strategy, assignment, n_hosts, hints)`` of the smaller one, or None.
    """
    peaks = np.asarray(curves.max(axis=1), dtype=np.float64)  # exact: max, then widen
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
