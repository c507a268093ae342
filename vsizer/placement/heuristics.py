"""Greedy placement strategies on a fixed number of hosts.

Both strategies share one kernel, :func:`greedy_assign`, which the failover
check reuses to re-place displaced VMs on survivors.
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from vsizer.placement import _kernel, occupancy
from vsizer.placement.blocked import MIN_HOSTS, BlockedHosts, assign_blocked
from vsizer.placement.occupancy import GroupHosts
from vsizer.placement.problem import EPS, PlacementProblem
from vsizer.placement.result import Placement

RULES = ("balanced", "best_fit")


def size_order(
    demand: npt.NDArray[np.float64], usable: npt.NDArray[np.float64]
) -> npt.NDArray[np.int64]:
    """VM indices by decreasing size on their binding dimension (stable: ties keep input order)."""
    size = (demand / usable).max(axis=1) if demand.size else np.zeros(len(demand))
    return np.argsort(-size, kind="stable")


#: Shortest run of identical, unconstrained VMs placed by the run kernel.
RUN_MIN = 4


def greedy_assign(
    order: npt.NDArray[np.int64],
    demand: npt.NDArray[np.float64],
    loads: npt.NDArray[np.float64],
    max_load: npt.NDArray[np.float64],
    groups: npt.NDArray[np.int64],
    occupied: GroupHosts,
    allowed: npt.NDArray[np.bool_],
    pins: npt.NDArray[np.int64] | None,
    rule: str,
    *,
    runs: bool = True,
    blocked: bool = True,
    compiled: bool = True,
    stop_at_unplaced: bool = False,
) -> npt.NDArray[np.int64]:
    """Assign the VMs in ``order`` one by one; updates ``loads`` and ``occupied``
    (the hosts holding each anti-affinity group) in place.

    A host accepts a VM when, in every dimension, its load plus the VM's demand
    stays within ``max_load`` (capacity x limit), the host is ``allowed``, it
    holds no VM of the same anti-affinity group, and it is the VM's pinned host
    if any. Among accepting hosts, ``balanced`` takes the one whose highest
    normalized load after placement is lowest (spreads load, leaving headroom
    for failover); ``best_fit`` takes the one where it is highest (packs
    tightly). Ties go to the lowest host index, so results are deterministic.

    A run of at least :data:`RUN_MIN` consecutive VMs with the same demand and
    no group or pin (a fleet of identical servers) is placed by
    :func:`_assign_run`, which gives the same hosts in O(run x log hosts)
    instead of O(run x hosts); ``runs=False`` places every VM one by one.
    With :data:`~vsizer.placement.blocked.MIN_HOSTS` hosts or more, the other
    VMs are placed by :func:`~vsizer.placement.blocked.assign_blocked`, which
    gives the same hosts while evaluating only the blocks of hosts whose
    bounds can win; ``blocked=False`` scans every host for every VM (the
    reference). ``stop_at_unplaced`` stops at the first VM no host accepts
    (the rest stay -1: enough to know the placement is infeasible).

    With numba installed (``vsizer[fast]``) and ``compiled`` (the default),
    every VM is placed by the compiled plain scan of
    :mod:`vsizer.placement._kernel` instead: the same hosts and the same
    loads, bit for bit, without numpy calls per VM (``runs`` and ``blocked``
    then do not apply); except in a small plan, whose passes stay on numpy
    until the kernel would pay for its load (:data:`~vsizer.placement._kernel.NUMPY_BUDGET_US`).

    Returns the host index per VM of ``order`` (-1 when no host accepts it).
    """
    if compiled and _kernel.for_pass(_kernel.numpy_cost(len(order), len(loads))):
        return _assign_compiled(
            order, demand, loads, max_load, groups, occupied, allowed, pins, rule,
            blocked, stop_at_unplaced,
        )
    inv = 1.0 / max_load
    norm = loads * inv  # normalized loads, kept in step with ``loads``
    out = np.full(len(order), -1, dtype=np.int64)
    bounds = (
        _run_bounds(order, demand, groups, pins) if runs else [(0, len(order), False)]
    )
    state = None
    if blocked and len(loads) >= MIN_HOSTS:
        state = BlockedHosts(norm, allowed)
        norm = state.norm[: len(loads)]  # inf where not allowed: never chosen
    for i, j, run in bounds:
        if run:
            out[i:j] = _assign_run(
                int(order[i]), j - i, demand, loads, norm, inv, allowed, rule
            )
            if state is not None:
                state.rebound()
        elif state is not None:
            out[i:j] = assign_blocked(
                order[i:j], demand, loads, inv, groups, occupied, state, pins, rule,
                stop_at_unplaced,
            )
        else:
            out[i:j] = _assign_each(
                order[i:j], demand, loads, norm, inv, groups, occupied, allowed,
                pins, rule, stop_at_unplaced,
            )
        if stop_at_unplaced and (out[i:j] < 0).any():
            break
    return out


_NO_PINS = np.zeros(0, dtype=np.int64)


def _assign_compiled(
    order: npt.NDArray[np.int64],
    demand: npt.NDArray[np.float64],
    loads: npt.NDArray[np.float64],
    max_load: npt.NDArray[np.float64],
    groups: npt.NDArray[np.int64],
    occupied: GroupHosts,
    allowed: npt.NDArray[np.bool_],
    pins: npt.NDArray[np.int64] | None,
    rule: str,
    blocked: bool,
    stop_at_unplaced: bool,
) -> npt.NDArray[np.int64]:
    """:func:`greedy_assign` by the compiled kernel (read-only inputs made
    contiguous, of the kernel's dtypes, so numba compiles one signature)."""
    kernel = _kernel.get()
    assert kernel is not None
    inv = 1.0 / max_load
    c = np.ascontiguousarray
    return kernel(
        c(order, dtype=np.int64), c(demand, dtype=np.float64), loads, loads * inv,
        c(inv, dtype=np.float64), c(groups, dtype=np.int64), *occupied.arrays(),
        c(allowed, dtype=np.bool_),
        _NO_PINS if pins is None else c(pins, dtype=np.int64),
        rule == "balanced", stop_at_unplaced, _kernel.BLOCK if blocked else 0,
        _kernel.SUPER,
    )


def _run_bounds(
    order: npt.NDArray[np.int64],
    demand: npt.NDArray[np.float64],
    groups: npt.NDArray[np.int64],
    pins: npt.NDArray[np.int64] | None,
) -> list[tuple[int, int, bool]]:
    """[start, end) slices of ``order`` and whether each is a run: maximal runs
    of at least :data:`RUN_MIN` identical free VMs (same demand row, no group,
    no pin), the VMs between two runs in one slice."""
    n = len(order)
    if n == 0:
        return []
    free = groups[order] < 0
    if pins is not None:
        free &= pins[order] < 0
    rows = demand[order]
    same = np.zeros(n, dtype=bool)
    same[1:] = np.all(rows[1:] == rows[:-1], axis=1) & free[1:] & free[:-1]
    starts = np.flatnonzero(~same)
    ends = np.append(starts[1:], n)
    out: list[tuple[int, int, bool]] = []
    for i, j in zip(starts.tolist(), ends.tolist(), strict=True):
        run = j - i >= RUN_MIN
        if not run and out and not out[-1][2]:
            out[-1] = (out[-1][0], j, False)
        else:
            out.append((i, j, run))
    return out


def _assign_each(
    order: npt.NDArray[np.int64],
    demand: npt.NDArray[np.float64],
    loads: npt.NDArray[np.float64],
    norm: npt.NDArray[np.float64],
    inv: npt.NDArray[np.float64],
    groups: npt.NDArray[np.int64],
    occupied: GroupHosts,
    allowed: npt.NDArray[np.bool_],
    pins: npt.NDArray[np.int64] | None,
    rule: str,
    stop_at_unplaced: bool = False,
) -> npt.NDArray[np.int64]:
    """The one-by-one kernel of :func:`greedy_assign` (the plain scan)."""
    hosts = np.arange(loads.shape[0])
    out = np.full(len(order), -1, dtype=np.int64)
    limit = 1.0 + EPS
    for i, v in enumerate(order):
        new = norm + demand[v] * inv
        peak = new.max(axis=1)
        fits = (peak <= limit) & allowed
        g = groups[v]
        if g >= 0:
            fits[occupied.of(g)] = False
        if pins is not None and pins[v] >= 0:
            fits &= hosts == pins[v]
        if not fits.any():
            if stop_at_unplaced:
                break
            continue
        if rule == "balanced":
            h = int(np.argmin(np.where(fits, peak, np.inf)))
        else:
            h = int(np.argmax(np.where(fits, peak, -np.inf)))
        out[i] = h
        norm[h] = new[h]
        loads[h] += demand[v]
        if g >= 0:
            occupied.mark(h, int(g))
    return out


def _assign_run(
    v: int,
    count: int,
    demand: npt.NDArray[np.float64],
    loads: npt.NDArray[np.float64],
    norm: npt.NDArray[np.float64],
    inv: npt.NDArray[np.float64],
    allowed: npt.NDArray[np.bool_],
    rule: str,
) -> npt.NDArray[np.int64]:
    """Place ``count`` copies of VM ``v`` (no group, no pin) exactly as
    :func:`_assign_each` would, without recomputing every host per copy.

    Between copies only the chosen host's load changes, so the peak after
    placement is kept per host (``inf``/``-inf`` once a host cannot take a
    copy, which stays so: loads only grow) and only the chosen host's entry is
    recomputed; ``argmin``/``argmax`` pick the first best host, as before.
    """
    step = demand[v] * inv
    limit = 1.0 + EPS
    peak = (norm + step).max(axis=1)
    ok = allowed & (peak <= limit)
    balanced = rule == "balanced"
    closed = np.inf if balanced else -np.inf
    key = np.where(ok, peak, closed)
    pick = np.argmin if balanced else np.argmax
    out = np.full(count, -1, dtype=np.int64)
    for k in range(count):
        h = int(pick(key))
        if key[h] == closed:
            break
        out[k] = h
        norm[h] = norm[h] + step
        loads[h] += demand[v]
        after = (norm[h] + step).max()
        key[h] = after if after <= limit else closed
    return out


#: The placement order of each problem alive (:func:`placement_order`).
_ORDERS: weakref.WeakKeyDictionary[PlacementProblem, npt.NDArray[np.int64]] = (
    weakref.WeakKeyDictionary())


def placement_order(problem: PlacementProblem) -> npt.NDArray[np.int64]:
    """The VMs in the order the greedy strategies place them: pinned VMs first
    (they have a single admissible host), each part by :func:`size_order`.
    Made once per problem (a sizing places one problem on many host counts;
    a problem's arrays are never changed in place); not to be changed."""
    order = _ORDERS.get(problem)
    if order is None:
        order = size_order(problem.demand, problem.usable())
        order = np.concatenate(
            [order[problem.pins[order] >= 0], order[problem.pins[order] < 0]]
        )
        _ORDERS[problem] = order
    return order


def _strategy(rule: str) -> Callable[..., Placement]:
    def place(
        problem: PlacementProblem, n_hosts: int, *, stop_at_unplaced: bool = False
    ) -> Placement:
        start = time.perf_counter()
        order = placement_order(problem)
        loads = np.tile(problem.base_load, (n_hosts, 1))
        chosen = greedy_assign(
            order,
            problem.demand,
            loads,
            problem.capacity * problem.limit,
            problem.anti_affinity,
            occupancy.for_problem(problem),
            np.ones(n_hosts, dtype=bool),
            problem.pins,
            rule,
            stop_at_unplaced=stop_at_unplaced,
        )
        assignment = np.full(problem.n_vms, -1, dtype=np.int64)
        assignment[order] = chosen
        status = "feasible" if (assignment >= 0).all() else "infeasible"
        return Placement(
            problem=problem,
            n_hosts=n_hosts,
            assignment=assignment,
            status=status,
            strategy=f"{rule}-decreasing",
            parameters={"order": "decreasing size on binding dimension", "rule": rule},
            solve_time_s=time.perf_counter() - start,
        )

    place.__name__ = f"{rule}_decreasing"
    return place


balanced_decreasing = _strategy("balanced")
balanced_decreasing.__doc__ = """Balanced (worst-fit) decreasing on a fixed host count.

Synopsis
    Spread VMs over ``n_hosts`` identical hosts so that every host keeps
    headroom, which is what lets the survivors absorb a failed host.
Requirements
    Demands and capacities in one unit per dimension (see PlacementProblem).
Parameters
    problem, n_hosts. No tunables.
Algorithm
    Sort VMs by decreasing demand on their binding dimension (largest
    demand/usable ratio), pinned VMs first; put each on the admissible host
    whose highest normalized load after placement is lowest.
References
    E. G. Coffman Jr., M. R. Garey, D. S. Johnson, "Approximation algorithms for
    bin packing: a survey," in Approximation Algorithms for NP-Hard Problems,
    PWS, 1996, pp. 46-93 (worst-fit decreasing).
"""

best_fit_decreasing = _strategy("best_fit")
best_fit_decreasing.__doc__ = """Best-fit decreasing on a fixed host count.

Synopsis
    Pack VMs tightly; used when balanced placement cannot fit ``n_hosts``.
Requirements
    As balanced_decreasing.
Parameters
    problem, n_hosts. No tunables.
Algorithm
    Same order as balanced_decreasing; put each VM on the admissible host whose
    highest normalized load after placement is highest (the tightest fit).
References
    D. S. Johnson, "Near-optimal bin packing algorithms," PhD thesis, MIT, 1973
    (best-fit decreasing, 11/9 OPT + 1 bound for one dimension).
"""

#: Placement strategies by name; each maps (problem, n_hosts) -> Placement
#: (keyword ``stop_at_unplaced=True``: stop at the first VM that fits nowhere,
#: when only feasibility matters).
STRATEGIES: dict[str, Callable[..., Placement]] = {
    "balanced-decreasing": balanced_decreasing,
    "best-fit-decreasing": best_fit_decreasing,
}
