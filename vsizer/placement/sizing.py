"""Size a pool: the fewest hosts whose placement holds at the ceiling and survives k failures."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from vsizer.errors import InfeasiblePlacementError
from vsizer.placement import failover
from vsizer.placement.failover_report import FailoverReport
from vsizer.placement.heuristics import STRATEGIES
from vsizer.placement.problem import EPS, PlacementProblem
from vsizer.placement.result import Placement


@dataclass(frozen=True, eq=False)
class PoolSizing:
    """How one pool was sized: by :func:`size_pool` (scalar demand) or
    :func:`~vsizer.placement.curve_sizing.size_pool_on_curves` (demand curves).

    Attributes
    ----------
    placement : Placement
        The chosen placement (``strategy`` names how it was found).
    failover : FailoverReport
        The full N+k check of that placement (on the curves when sized on them).
    lower_bound : int
        Fewest hosts any placement needs; ``lower_bound_detail`` per reason
        (dimensions, failover, anti_affinity, min_hosts, pinning).
    binding_dimension : str
        The dimension with the highest total demand per usable host load.
    attempts : int
        Placements tried.
    notes : tuple of str
        Remarks for the plan's warnings (curves: e.g. cp-sat not used).
    series_bound, peak_sum_bound : dict, optional
        Curves: per-dimension bound from the busiest step (None with a
        percentile), and from the sum of per-VM peaks (for comparison).
    replay : dict, optional
        Curves: per host, steps over the ceiling and over 100 %
        (:func:`~vsizer.placement.series_fit.replay`).
    host_curves : ndarray, shape (n_hosts, n_steps, n_dims), optional
        Curves: utilization (fraction of capacity) per host and step.
    solver : dict, optional
        Curves with ``solver="cp-sat"``: the solver's status, bound and gap.
    bound_lp : str, optional
        Curves, the plan above the other bounds: "ran" when the configuration LP
        was sought, "off" when the pool has more VMs than it was allowed (or it was
        not allowed at all); None otherwise (no gap, a percentile, no scipy).

    The curve fields are None when sized on scalar demand.
    """

    placement: Placement
    failover: FailoverReport
    lower_bound: int
    lower_bound_detail: dict[str, int]
    binding_dimension: str
    attempts: int
    notes: tuple[str, ...] = ()
    series_bound: dict[str, int] | None = None
    peak_sum_bound: dict[str, int] | None = None
    replay: dict[str, list[int]] | None = None
    host_curves: npt.NDArray[np.float32] | None = None
    solver: dict[str, Any] | None = None
    bound_lp: str | None = None

    @property
    def n_hosts(self) -> int:
        return self.placement.n_hosts

    @property
    def assignment(self) -> npt.NDArray[np.int64]:
        return self.placement.assignment

    @property
    def strategy(self) -> str:
        return self.placement.strategy

    @property
    def survives(self) -> bool:
        return self.failover.survives

    @property
    def on_curves(self) -> bool:
        return self.host_curves is not None

    @property
    def gap(self) -> int:
        return self.placement.n_hosts - self.lower_bound


def lower_bound(problem: PlacementProblem) -> tuple[int, dict[str, int], str]:
    """A lower bound on the pool's host count, per reason, and the binding dimension.

    Per dimension d: ceil(sum of demand / usable load per host at the ceiling).
    Failover: with k hosts down the survivors must hold everything within the
    failover limit, so n >= ceil(sum / usable at the failover limit) + k.
    Anti-affinity: a group of s VMs needs s distinct hosts, s + k with failures.
    And the pool minimum. Every bound is valid for any placement (not only ours).
    """
    p = problem
    detail: dict[str, int] = {}
    total = p.demand.sum(axis=0)
    ratio = total / p.usable()
    for d, dim in enumerate(p.dims):
        detail[dim] = math.ceil(ratio[d] - EPS) if p.n_vms else 0
    binding = p.dims[int(np.argmax(ratio))] if p.n_vms else p.dims[0]
    if p.failures > 0 and p.n_vms:
        fo_ratio = total / p.usable(failover=True)
        detail["failover"] = math.ceil(float(fo_ratio.max()) - EPS) + p.failures
    else:
        detail["failover"] = 0
    groups = p.anti_affinity[p.anti_affinity >= 0]
    largest = int(np.bincount(groups).max()) if groups.size else 0
    detail["anti_affinity"] = largest + p.failures if largest else 0
    detail["min_hosts"] = p.min_hosts if p.n_vms else 0
    pinned = p.pins[p.pins >= 0]
    detail["pinning"] = int(pinned.max()) + 1 if pinned.size else 0
    return max(detail.values()), detail, binding


#: Outcomes of :func:`_try` by host count, shared by the sizings of problems
#: that differ only in ``min_hosts`` (which no try reads).
Tries = dict[int, tuple[Placement, FailoverReport | None] | None]

#: Greedy placements of :func:`_try` by (strategy, host count), None when
#: infeasible. Shared by the sizings of problems that place alike (the same
#: demand, capacity, limit, base load, anti-affinity and pins: they differ at
#: most in ``failures``, ``min_hosts``, the failover limit or budget, which no
#: greedy placement reads), e.g. a pool and the same pool with failures = 0
#: (:mod:`vsizer.study.count_reason`): each count is placed once, same result.
Placed = dict[tuple[str, int], Placement | None]


#: The strategy whose placement on more hosts is its placement on fewer, when that
#: one fits (:func:`_best_fit`).
_BEST_FIT = "best-fit-decreasing"
#: The host count under which :data:`Placed` keeps the best-fit placement on as many
#: hosts as it opens.
_OPEN = -1


def _best_fit(
    problem: PlacementProblem, n: int, placed: Placed
) -> Placement | None:
    """Best-fit decreasing on ``n`` hosts, from one placement on as many hosts as it
    opens (kept in ``placed``), when no VM is pinned.

    Best fit puts a VM on an empty host only when no other host accepts it: an
    empty host's load after the VM is at most any other host's (loads never fall
    below the base load), ties go to the lowest index, and an empty host has no
    anti-affinity conflict. So on ``n + 1`` hosts best fit places the VMs exactly
    as on ``n`` hosts up to the first VM that fits nowhere on ``n``; the placement
    on ``n`` hosts fits iff it opens at most ``n``, and then it is the same
    placement. The first count tried is placed as before; when a VM fits nowhere,
    the count plus the VMs left over (each fits an empty host alone:
    :meth:`~PlacementProblem.check_each_vm_fits`) is placed once, and every other
    count is read from it: the same answers as placing each count, one or two
    placements per pool instead of one per count tried."""
    open_ = placed.get((_BEST_FIT, _OPEN))
    if open_ is None:
        first = STRATEGIES[_BEST_FIT](problem, n, stop_at_unplaced=True)
        left = int((first.assignment < 0).sum())
        open_ = first if not left else STRATEGIES[_BEST_FIT](
            problem, n + left, stop_at_unplaced=True
        )
        assert open_.feasible  # every VM fits an empty host alone
        placed[_BEST_FIT, _OPEN] = open_
    used = int(open_.assignment.max()) + 1 if problem.n_vms else 0
    if n < used:
        return None
    return dataclasses.replace(open_, problem=problem, n_hosts=n)


def _place(name: str, problem: PlacementProblem, n: int, placed: Placed) -> Placement | None:
    """Strategy ``name``'s placement of ``problem`` on ``n`` hosts when every VM
    fits (the placement stops at the first VM that fits nowhere), else None;
    from ``placed`` when it holds it (and kept there)."""
    if name == _BEST_FIT and not (problem.pins >= 0).any():
        return _best_fit(problem, n, placed)
    if (name, n) not in placed:
        placement = STRATEGIES[name](problem, n, stop_at_unplaced=True)
        placed[name, n] = placement if placement.feasible else None
    found = placed[name, n]
    if found is None or found.problem is problem:
        return found
    return dataclasses.replace(found, problem=problem)


def _try(
    problem: PlacementProblem, n: int, on_scenario: Callable[[], None] | None,
    tries: Tries | None, placed: Placed,
) -> tuple[Placement, FailoverReport | None] | None:
    """The first strategy's placement on ``n`` hosts that holds and survives,
    with its failover report (None when :func:`~vsizer.placement.failover.survives`
    answered: the report is made for the chosen placement only); None: none.
    ``placed``: see :data:`Placed`."""
    if tries is not None:
        if n not in tries:
            tries[n] = _try(problem, n, on_scenario, None, placed)
        found = tries[n]
        if found is None or found[0].problem is problem:
            return found
        return dataclasses.replace(found[0], problem=problem), found[1]
    for name in STRATEGIES:
        placement = _place(name, problem, n, placed)
        if placement is None:
            continue
        fast = failover.survives(placement)
        if fast is True:
            return placement, None  # the report: of the chosen placement only
        if fast is None:
            report = failover.check(
                placement, stop_at_first_failure=True, on_scenario=on_scenario
            )
            if report.survives:
                return placement, report
    return None


def size_pool(
    problem: PlacementProblem,
    *,
    on_scenario: Callable[[], None] | None = None,
    tries: Tries | None = None,
    placed: Placed | None = None,
) -> PoolSizing:
    """Grow the pool from its lower bound until placement and failover both hold.

    Host counts are tried from the lower bound upward (1, 2, 4, ... steps, then
    a binary search back down to the smallest count that worked), each with
    every strategy of ``STRATEGIES`` in turn: balanced first (spreads load, so
    survivors have headroom), best-fit second (packs tighter when balanced
    cannot fit). The first count where a strategy's placement holds at the
    ceiling and passes every k-failure scenario is the answer.

    With the compiled kernel (numba), the N+1 check of each try only answers
    whether the placement survives (:func:`~vsizer.placement.failover.survives`,
    the same answer); the full report is made for the chosen placement.

    ``tries`` (optional, updated): the outcome per host count of a sizing of
    a problem that differs from ``problem`` at most in ``min_hosts``; no try
    reads ``min_hosts`` (only the lower bound and the search's upper end do),
    so the counts found there are reused, not placed again: same result.
    ``placed`` (optional, updated): the greedy placements of a problem that
    places alike (:data:`Placed`), reused by strategy and host count.

    Raises
    ------
    InfeasiblePlacementError
        A VM is larger than one host at the ceiling, or no host count up to
        one host per VM plus k spares works (anti-affinity/pinning conflicts).
    """
    problem.check_each_vm_fits()
    placed = {} if placed is None else placed
    lb, detail, binding = lower_bound(problem)
    if problem.n_vms == 0:
        empty = Placement(problem, 0, np.zeros(0, dtype=np.int64), "feasible", "none")
        return PoolSizing(empty, failover.check(empty), 0, detail, binding, 0)
    upper = max(lb, problem.n_vms + problem.failures + problem.min_hosts)
    attempts = 0
    best: tuple[int, Placement, FailoverReport | None] | None = None
    last_fail = lb - 1
    n, step = lb, 1
    while n <= upper:
        attempts += 1
        found = _try(problem, n, on_scenario, tries, placed)
        if found:
            best = (n, *found)
            break
        last_fail = n
        n += step
        if attempts >= 3:
            step *= 2
    if best is None:
        n = upper
        attempts += 1
        found = _try(problem, n, on_scenario, tries, placed)
        if not found:
            raise InfeasiblePlacementError(
                f"pool '{problem.pool}': no placement of {problem.n_vms} VMs survives "
                f"{problem.failures} host failure(s) even with {upper} hosts "
                "[anti-affinity or pinning constraints conflict]"
            )
        best = (n, *found)
    lo, hi = last_fail, best[0]
    while hi - lo > 1:
        mid = (lo + hi) // 2
        attempts += 1
        found = _try(problem, mid, on_scenario, tries, placed)
        if found:
            hi, best = mid, (mid, *found)
        else:
            lo = mid
    # The check that accepted it ran every scenario (it stops only at a failure),
    # or the compiled check answered and the full report is made now.
    _, placement, full = best
    if full is None:
        full = failover.check(placement, on_scenario=on_scenario)
    return PoolSizing(placement, full, lb, detail, binding, attempts)
