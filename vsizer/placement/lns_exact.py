"""What ``--solver cp-sat`` runs on curves: the full model on small pools, the search
that frees hosts (:func:`~vsizer.placement.lns.solve_lns`), then the overflow search at
one host fewer (:func:`~vsizer.placement.lns_overflow.reduce_hosts`).

Work budget (CP-SAT deterministic time, so the plan does not depend on the machine):
the search that frees hosts gets :data:`FREE_SHARE` of
:data:`~vsizer.placement.lns.WORK_SHARE` of the time left after the full model and
stops early when no neighbourhood frees one; the overflow search gets
:data:`OVERFLOW_SHARE` of that time plus what the first left. Its descents are counted
in moves, not in CP-SAT time (about a third of its wall time on a PlanetLab day). The plan's ``solver.overflow`` says how far the overflow search
got: the target count it last tried, the overflow left there (host-steps of load above
the usable load, 0 when it reached the count) and the counts it reached.
"""

from __future__ import annotations

import copy
import hashlib
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from vsizer.placement.cpsat import _cp_model, solve_curves
from vsizer.placement.cpsat_model import flat_dims, memory_guard, over_limit, too_large
from vsizer.placement.lns import (
    ADD_STEPS,
    FULL_FREE_HOSTS,
    FULL_MODEL,
    HOST_STEPS,
    MAX_HOSTS,
    SCALE,
    SUB_ROUNDS,
    TOP_STEPS,
    WORK_SHARE,
    LnsResult,
    _compact,
    solve_lns,
    to_units,
)
from vsizer.placement.lns_empty import ADD_STEPS as EMPTY_ADD
from vsizer.placement.lns_empty import CRIT_STEPS as EMPTY_STEPS
from vsizer.placement.lns_empty import FREE_PER_HOST as EMPTY_FREE
from vsizer.placement.lns_empty import ROUNDS as EMPTY_ROUNDS
from vsizer.placement.lns_overflow import reduce_hosts

#: Share of the work budget given to the search that frees hosts (the rest, and what it
#: leaves, goes to the overflow search at one host fewer).
FREE_SHARE = 0.25
#: Share of the time left given to the overflow search as deterministic time, beyond what
#: the search that frees hosts leaves (PlanetLab 2011-04-12, see
#: :mod:`vsizer.placement.lns_overflow`: the overflow left falls with the work given).
OVERFLOW_SHARE = 0.2
#: Share of ``time_limit`` given to the compiled breakout search at one host fewer
#: (:mod:`vsizer.placement._breakout`, counted work, not the clock) when numba is
#: installed; it replaces the CP-SAT sub-problems of the overflow search.
BREAKOUT_SHARE = 0.7


#: The last searches' results by a digest of their inputs: a plan sizes an N+k pool,
#: then the same pool without failover for its count reason, which is the same search
#: (the packing at the ceiling from the same start) and is not run twice.
_DONE: OrderedDict[bytes, LnsResult] = OrderedDict()
#: Results kept.
MEMO = 4


def forget() -> None:
    """Drop the remembered results (a test of determinism runs a search twice)."""
    _DONE.clear()


def _digest(*arrays: npt.NDArray[Any], **scalars: float) -> bytes:
    """A digest of the arrays (dtype, shape, bytes) and the scalars."""
    h = hashlib.blake2b(digest_size=20)
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(repr((a.dtype.str, a.shape)).encode())
        h.update(a.tobytes())
    h.update(repr(sorted(scalars.items())).encode())
    return h.digest()


def solve_exact(
    curves: npt.NDArray[np.floating],
    max_load: npt.NDArray[np.float64],
    *,
    base_load: npt.NDArray[np.float64],
    groups: npt.NDArray[np.int64],
    pins: npt.NDArray[np.int64],
    start: npt.NDArray[np.int64],
    bound: int,
    time_limit: float = 30.0,
    clock: Callable[[], float] = time.perf_counter,
) -> LnsResult:
    """What ``--solver cp-sat`` runs: never more hosts than ``start``, within ``time_limit``
    wall-clock seconds (model building included).

    A small pool (VMs x hosts of ``start`` up to :data:`FULL_MODEL`) is first
    solved with the full model of :func:`~vsizer.placement.cpsat.solve_curves`
    on half the time, whose proven bound may raise ``bound``; the search of
    :func:`~vsizer.placement.lns.solve_lns` then goes on from the best placement
    in the time left on :data:`FREE_SHARE` of the work budget, and when it stops
    above the bound the overflow search
    (:func:`~vsizer.placement.lns_overflow.reduce_hosts`) on the rest.

    Memory: the search's estimate (its integer demand and loads, and its largest
    sub-problem model) above :data:`~vsizer.placement.cpsat_model.MAX_MODEL_BYTES`
    is refused before anything is built, and OR-Tools running out of memory is
    turned into the same kind of one-line :class:`~vsizer.errors.ConfigError`.

    The last :data:`MEMO` results are remembered by a digest of the inputs (with the
    default ``clock``): the same search asked again returns a copy without running.
    """
    key = None
    if clock is time.perf_counter:  # a test's clock is never memoized
        key = _digest(curves, max_load, base_load, groups, pins, start, bound=bound,
                      time_limit=float(time_limit))
        if key in _DONE:
            return copy.deepcopy(_DONE[key])
    t0 = clock()
    n_start = int(start.max()) + 1 if start.size else 0
    what = f"the search of {start.size:,} VMs on {n_start:,} hosts"
    need = over_limit(curves.size + 2 * n_start * int(np.prod(curves.shape[1:])),
                      _largest_model(curves, start))
    if need:
        raise too_large(what, need)
    with memory_guard(what):
        res = _solve_exact(curves, max_load, base_load=base_load, groups=groups, pins=pins,
                           start=start, bound=bound, time_limit=time_limit, clock=clock,
                           t0=t0)
    if key is not None:
        _DONE[key] = copy.deepcopy(res)
        while len(_DONE) > MEMO:
            _DONE.popitem(last=False)
    return res


def _largest_model(curves: npt.NDArray[np.floating], start: npt.NDArray[np.int64]) -> int:
    """Terms of the largest sub-problem model the search may build: the
    :data:`FULL_FREE_HOSTS` fullest hosts re-placed whole, or a host emptied into
    :data:`MAX_HOSTS` - 1 partners, every row-generation round's steps added."""
    if start.size == 0:
        return 0
    n_steps, n_dims = curves.shape[1:]
    flat = flat_dims(curves)
    per_host = np.sort(np.bincount(start))[::-1]
    whole = int(per_host[:FULL_FREE_HOSTS].sum())
    k_whole = min(FULL_FREE_HOSTS, per_host.size)
    steps_whole = TOP_STEPS + (HOST_STEPS + SUB_ROUNDS * ADD_STEPS) * k_whole
    k_empty = min(MAX_HOSTS, per_host.size) - 1
    emptied = int(per_host[0]) + k_empty * max(EMPTY_FREE)
    steps_empty = EMPTY_STEPS + EMPTY_ROUNDS * EMPTY_ADD * max(k_empty, 1)
    terms = 0
    for n, k, steps in ((whole, k_whole, steps_whole), (emptied, k_empty, steps_empty)):
        rows = min(steps, n_steps) * int((~flat).sum()) + int(flat.sum())
        terms = max(terms, n * k * (rows + 3))
    return terms


def _solve_exact(
    curves: npt.NDArray[np.floating],
    max_load: npt.NDArray[np.float64],
    *,
    base_load: npt.NDArray[np.float64],
    groups: npt.NDArray[np.int64],
    pins: npt.NDArray[np.int64],
    start: npt.NDArray[np.int64],
    bound: int,
    time_limit: float,
    clock: Callable[[], float],
    t0: float,
) -> LnsResult:
    """:func:`solve_exact` once its size is checked (``t0``: when it was called)."""
    n_start = int(start.max()) + 1 if start.size else 0
    best, solves = start, 0
    if n_start > bound and start.size * n_start <= FULL_MODEL:
        half = 0.5 * float(time_limit)
        full = solve_curves(
            curves, max_load, base_load=base_load, groups=groups, pins=pins, hint=start,
            n_max=n_start, min_hosts=max(bound, 1), time_limit=WORK_SHARE * half,
            deadline=t0 + half, clock=clock,
        )
        bound, best, solves = max(bound, full.best_bound), full.assignment, full.rounds
    left = max(float(time_limit) - (clock() - t0), 0.0)
    budget = WORK_SHARE * left
    extra = OVERFLOW_SHARE * left
    res = solve_lns(
        curves, max_load, base_load=base_load, groups=groups, pins=pins, start=best,
        bound=bound, time_limit=left, work=FREE_SHARE * budget, clock=clock,
    )
    if res.n_hosts > res.bound and res.stopped_by != "time_limit":
        _overflow(res, curves, max_load, base_load, groups, pins, FREE_SHARE * budget + extra,
                  lambda: float(time_limit) - (clock() - t0),
                  breakout=BREAKOUT_SHARE * float(time_limit))
    res.start_hosts, res.solves = n_start, res.solves + solves
    if res.n_hosts < n_start and res.n_hosts > res.bound:
        res.status = "improved"
    return res


def _overflow(
    res: LnsResult, curves: npt.NDArray[np.floating], max_load: npt.NDArray[np.float64],
    base_load: npt.NDArray[np.float64], groups: npt.NDArray[np.int64],
    pins: npt.NDArray[np.int64], budget: float, wall_left: Callable[[], float],
    breakout: float = 0.0,
) -> None:
    """Go on from ``res`` with the overflow search at one host fewer
    (:func:`~vsizer.placement.lns_overflow.reduce_hosts`) on the work ``res`` left of
    ``budget`` (counted from the start of the search that frees hosts); ``res``
    updated in place."""
    q = to_units(curves, max_load, base_load)
    red = reduce_hosts(
        _cp_model(), q, res.assignment, flat=flat_dims(q), pins=pins, groups=groups,
        bound=res.bound, scale=SCALE, work=budget - res.work, wall_left=wall_left,
        breakout=breakout,
    )
    res.rounds, res.solves, res.work = (res.rounds + red.rounds, res.solves + red.solves,
                                        res.work + red.work)
    res.overflow = {"target": red.target, "left": red.overflow / SCALE,
                    "reached": red.reached, "search": red.search}
    if red.reached and _compactable_to(red.assign, pins):
        res.assignment = _compact(red.assign, pins)
        res.n_hosts = red.n_hosts
        res.freed += red.reached
        res.status = "optimal" if res.n_hosts <= res.bound else "improved"
        if res.n_hosts <= res.bound:
            res.stopped_by = "optimal"
    if wall_left() <= 0 and res.stopped_by != "optimal":
        res.stopped_by = "time_limit"
    elif res.stopped_by != "optimal":
        res.stopped_by = ("work_budget" if red.work >= red.budget - 0.01
                          else "no_improvement")


def _compactable_to(assign: npt.NDArray[np.int64], pins: npt.NDArray[np.int64]) -> bool:
    """Whether ``assign`` can be numbered 0..n-1 with pinned hosts kept."""
    pinned = pins[pins >= 0]
    return pinned.size == 0 or int(pinned.max()) < len(set(assign.tolist()))
