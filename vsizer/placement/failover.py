"""N+k failover check: can every k-host failure be absorbed by the survivors?

For each set of k failed hosts, the VMs they ran are re-placed on the
surviving hosts, honouring anti-affinity, within the failover limit (100 % of
capacity by default). On scalar demand: largest first, each onto the survivor
with the most headroom, as an HA restart would. On demand curves (``curves``
given): see :mod:`vsizer.placement.curve_failover`. The check never mutates its
input. Both give one :class:`FailoverReport` of :class:`Scenario` rows.
"""

from __future__ import annotations

import functools
import itertools
import math
import weakref
from collections.abc import Callable, Iterator

import numpy as np
import numpy.typing as npt

from vsizer.placement import _kernel, occupancy
from vsizer.placement.curve_failover import CurveReplacer, Hints, host_curves
from vsizer.placement.failover_report import (
    FailoverReport,
    Scenario,
    scenario_count,
    summarize,
    worst_cell,
)
from vsizer.placement.heuristics import greedy_assign, size_order
from vsizer.placement.occupancy import GroupHosts
from vsizer.placement.problem import UTIL_DIMS, PlacementProblem
from vsizer.placement.result import Placement

__all__ = ["FailoverReport", "Scenario", "check", "scenario_count", "survives"]


def check(
    placement: Placement,
    curves: npt.NDArray[np.floating] | None = None,
    failures: int | None = None,
    *,
    quantile: float | None = None,
    hints: Hints | None = None,
    on_scenario: Callable[[], None] | None = None,
    stop_at_first_failure: bool = False,
) -> FailoverReport:
    """Check that every ``failures``-host failure leaves a valid placement.

    Parameters
    ----------
    placement : Placement
        A feasible placement; not modified.
    curves : ndarray, shape (n_vms, n_steps, n_dims), optional
        Demand curves of the VMs (dimensions in ``placement.problem.dims``):
        the survivors must hold the summed curves, not the summed peaks.
        None: the problem's scalar ``demand``.
    failures : int, optional
        Hosts failing at once (k); default ``placement.problem.failures``.
    quantile : float, optional
        On curves: share of steps that must fit (None: every step).
    hints : dict, optional
        On curves: known re-placements ({failed host indices: {vm index:
        survivor index}}), taken where the greedy one leaves a VM unplaced and
        they hold.
    on_scenario : callable, optional
        Called after each scenario (progress reporting).
    stop_at_first_failure : bool
        Return as soon as one scenario fails (used while sizing).

    Returns
    -------
    FailoverReport
        ``survives`` is True when in every scenario every displaced VM found a
        survivor within the failover limit. ``worst_survivor_util`` is the
        highest utilization of any survivor in any scenario over the
        dimensions of :data:`~vsizer.placement.problem.UTIL_DIMS` (with k = 0:
        the highest normal utilization, on curves the highest step).
    """
    p = placement.problem
    k = p.failures if failures is None else failures
    n = placement.n_hosts
    if k == 0 or p.n_vms == 0:
        # On curves the pool's k is reported even when nothing fails (as before).
        return _normal_operation(placement, curves, 0 if curves is None else k)
    if k >= n and curves is None:
        return FailoverReport(k, False, 0, math.inf, "", None)
    replacer: _PeakReplacer | CurveReplacer = (
        _PeakReplacer(placement)
        if curves is None
        else CurveReplacer(placement, curves, quantile, hints)
    )
    detail: list[Scenario] = []
    for failed in failure_sets(placement, k):
        scenario = replacer.scenario(failed)
        detail.append(scenario)
        if on_scenario is not None:
            on_scenario()
        if scenario.unplaced and stop_at_first_failure:
            break
    if not detail:
        # On curves k >= n hosts is not short-cut: k = n is one scenario without
        # survivors, k > n none, reported as normal operation (as it always was).
        return _normal_operation(placement, curves, k)
    return summarize(k, detail, scenario_count(n, k))


def failure_sets(placement: Placement, k: int) -> Iterator[tuple[int, ...]]:
    """The k-host failure sets a check enumerates, each sorted.

    Every one of the C(n, k) sets while C(n, k) x n is within the problem's
    ``failover_budget`` (a scenario visits every survivor); beyond it, the
    first ``failover_budget // n`` sets in the order of the hosts by load,
    heaviest first (the most loaded host with each other, and so on), so the
    work stays bounded and the hardest failures are among those checked. The
    report's ``exhaustive`` says which it was.
    """
    n = placement.n_hosts
    limit = scenario_limit(n, k, placement.problem.failover_budget)
    if scenario_count(n, k) <= limit:
        yield from itertools.combinations(range(n), k)
        return
    order = np.argsort(-_host_weight(placement), kind="stable").tolist()
    for failed in itertools.islice(itertools.combinations(order, k), limit):
        yield tuple(sorted(int(h) for h in failed))


def scenario_limit(n_hosts: int, failures: int, budget: int) -> int:
    """Most scenarios a check may run within ``budget`` host-scenarios: each
    scenario visits the ``n_hosts`` hosts once per failed host."""
    return max(1, budget // max(n_hosts * failures, 1))


def _host_weight(placement: Placement) -> npt.NDArray[np.float64]:
    """Each host's load as its largest share of capacity over the dimensions."""
    p = placement.problem
    if placement.n_hosts == 0:
        return np.zeros(0)
    return (placement.host_loads() / p.capacity).max(axis=1)


#: Largest pool the compiled N+1 check runs on (its work grows as hosts²; a
#: fleet of 200,000 servers has pools of a few thousand hosts).
_KERNEL_MAX_HOSTS = 20_000


def survives(placement: Placement) -> bool | None:
    """Whether :func:`check` of ``placement`` on scalar demand would report
    ``survives``, found by the compiled kernel without building the scenarios
    (None: numba not installed, or a small plan's check, which numpy's kernels
    do, :func:`~vsizer.placement._kernel.for_pass`, or k is not 1, or nothing to
    check: call :func:`check`). Same re-placements as :func:`check`, so the same answer."""
    p = placement.problem
    if (
        p.failures != 1 or p.n_vms == 0 or placement.n_hosts <= 1
        # the compiled check visits n x n host pairs: beyond the budget,
        # check() takes the heaviest scenarios instead
        or placement.n_hosts > _KERNEL_MAX_HOSTS
        # a small plan's check: numpy's (check() counts its passes)
        or _kernel.for_pass(_kernel.numpy_cost(p.n_vms, placement.n_hosts,
                                               placement.n_hosts), spend=False) is None
    ):
        return None
    r = _PeakReplacer(placement)
    c = np.ascontiguousarray
    first = _kernel.survives_one(
        c(r.base_loads, dtype=np.float64), *r.base_occ.arrays(),
        c(r.members, dtype=np.int64),
        c(r.starts, dtype=np.int64), r.rank, c(p.demand, dtype=np.float64),
        c(1.0 / r.max_load, dtype=np.float64), c(p.anti_affinity, dtype=np.int64),
        _kernel.BLOCK, _kernel.SUPER,
    )
    return bool(first < 0)


def _normal_operation(
    placement: Placement, curves: npt.NDArray[np.floating] | None, failures: int
) -> FailoverReport:
    """No failure: the highest utilization in normal operation."""
    p, n = placement.problem, placement.n_hosts
    util_idx = [i for i, d in enumerate(p.dims) if d in UTIL_DIMS]
    if curves is None:
        loads = placement.host_loads()
        util = loads[:, util_idx] / p.capacity[util_idx] if n else np.zeros((0, 1))
    else:
        hc = host_curves(curves, placement.assignment, n, p.base_load, p.capacity)
        util = hc.max(axis=1)[:, util_idx] if n else np.zeros((0, len(util_idx)))
    worst, dim, _ = worst_cell(util, [p.dims[i] for i in util_idx])
    return FailoverReport(failures, True, 0, worst, dim, None)


#: The restart rank of each problem alive (:func:`_restart_rank`).
_RANKS: weakref.WeakKeyDictionary[PlacementProblem, npt.NDArray[np.int64]] = (
    weakref.WeakKeyDictionary())


def _restart_rank(p: PlacementProblem) -> npt.NDArray[np.int64]:
    """Each VM's place in the restart order: higher restart priority first
    (issue 28), largest first within one. Made once per problem (every sizing
    try checks the same problem's VMs; its arrays are never changed in place)."""
    rank = _RANKS.get(p)
    if rank is None:
        order_all = size_order(p.demand, p.usable(failover=True))
        order_all = order_all[np.argsort(p.restart_priority[order_all], kind="stable")]
        rank = np.empty(p.n_vms, dtype=np.int64)
        rank[order_all] = np.arange(p.n_vms)
        _RANKS[p] = rank
    return rank


class _PeakReplacer:
    """Re-placement on scalar demand (an HA restart), shared by every scenario."""

    def __init__(self, placement: Placement) -> None:
        p = placement.problem
        self.placement, self.problem = placement, p
        self.util_idx = [i for i, d in enumerate(p.dims) if d in UTIL_DIMS]
        self.base_loads = placement.host_loads()
        self.max_load = p.capacity * p.failover_limit
        self.rank = _restart_rank(p)
        self.base_occ = occupancy.placed(
            occupancy.for_problem(p), placement.assignment, p.anti_affinity)
        # The VMs of each host once (ascending), not a scan of all VMs per scenario.
        a = placement.assignment
        self.members = np.argsort(a, kind="stable")
        self.starts = np.searchsorted(a[self.members], np.arange(placement.n_hosts + 1))
        self.util_dims = [p.dims[i] for i in self.util_idx]

    @functools.cached_property
    def host_ids(self) -> list[str]:
        """Each host's id (the scenarios name them; the compiled check does not)."""
        return [self.problem.host_id(h) for h in range(self.placement.n_hosts)]

    def _occupancy(
        self, displaced: npt.NDArray[np.int64], failed: npt.NDArray[np.int64]
    ) -> tuple[npt.NDArray[np.int64], GroupHosts]:
        """The anti-affinity groups of the ``displaced`` VMs renumbered 0..m-1 (-1
        none) and the hosts holding those m groups alone (the ``failed`` hosts
        left out): the same choices as with every group, without copying every
        group's hosts per scenario."""
        g = self.problem.anti_affinity[displaced]
        grouped = g >= 0
        local = np.full(len(displaced), -1, dtype=np.int64)
        if not grouped.any():
            return local, GroupHosts.empty(np.zeros(1, dtype=np.int64))
        used, local[grouped] = np.unique(g[grouped], return_inverse=True)
        return local, self.base_occ.subset(used, failed)

    def _displaced(self, failed: tuple[int, ...]) -> npt.NDArray[np.int64]:
        """The VMs of the ``failed`` hosts, ascending."""
        parts = [self.members[self.starts[f] : self.starts[f + 1]] for f in failed]
        return parts[0] if len(parts) == 1 else np.sort(np.concatenate(parts))

    def scenario(self, failed: tuple[int, ...]) -> Scenario:
        """Hosts ``failed`` down: their VMs, largest first, onto the survivors."""
        p, util_idx = self.problem, self.util_idx
        failed_arr = np.array(failed)
        allowed = np.ones(self.placement.n_hosts, dtype=bool)
        allowed[failed_arr] = False
        displaced = self._displaced(failed)
        displaced = displaced[np.argsort(self.rank[displaced], kind="stable")]
        loads = self.base_loads.copy()
        groups, occ = self._occupancy(displaced, failed_arr)
        chosen = greedy_assign(
            np.arange(len(displaced)), p.demand[displaced], loads, self.max_load,
            groups, occ, allowed, None, "balanced",
        )
        pairs = list(zip(displaced.tolist(), chosen.tolist(), strict=True))
        surv = np.flatnonzero(allowed)
        util = loads[surv][:, util_idx] / p.capacity[util_idx]
        worst, wdim, wrow = worst_cell(util, self.util_dims)
        ids, names = self.host_ids, p.vm_names
        took = sorted({h for _, h in pairs if h >= 0})
        took_util = (loads[took][:, util_idx] / p.capacity[util_idx]).tolist()
        return Scenario(
            failed=[ids[f] for f in failed],
            moves=[{"vm": names[v], "to": ids[h]} for v, h in pairs if h >= 0],
            unplaced=[names[v] for v, h in pairs if h < 0],
            worst_host=ids[int(surv[wrow])] if wrow is not None else None,
            worst_util=worst,
            worst_dimension=wdim,
            survivor_util={
                ids[h]: dict(zip(self.util_dims, row, strict=True))
                for h, row in zip(took, took_util, strict=True)
            },
        )
