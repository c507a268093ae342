"""Free hosts of a feasible placement on curves by the breakout search, on a counted
work budget: the last stage of the default plan on curves.

From a feasible placement on H hosts, the least-loaded host that carries no pinned VM
(and lies after every host that does) is removed and its VMs are spread, largest peak
first, where each adds the least overflow (load above the limit, allowed here). The
breakout search of :mod:`vsizer.placement._breakout` (best single-VM moves and two-VM
swaps on the weighted overflow; P. Morris, "The breakout method for escaping from
local minima," AAAI 1993) then drives the overflow to zero: a feasible placement on
H - 1 hosts, and the next host is removed. How long that takes varies a lot with the
host removed, so :data:`RACE` removals (the least-loaded hosts) are searched side by
side, :data:`SLICE` iterations each in turn, and the first to reach zero wins (a
portfolio of runs, as in C. P. Gomes and B. Selman, "Algorithm portfolios,"
Artificial Intelligence 126, 2001). A removal whose search goes :data:`STALL`
iterations without lowering its least overflow seen is given up and the next
least-loaded host joins the race; the search stops at ``floor`` hosts, after
:data:`TRIES` removals given up at one count, or when the budget is spent.

Only dimensions that can bind are scored as curves: a dimension whose every VM curve
is constant over time (memory and vCPUs in most traces) is one *slot* (a scalar per
VM and per host) instead of one per step, so a CPU-only trace with constant memory
costs the same as CPU alone.

Demand is scored in integer units: ``ceil(demand / usable x UNIT)``, a host fits when
its units are at most ``UNIT + TOLERANCE`` at every slot. Rounding up makes that test
stricter than the float test of :mod:`vsizer.placement.series_fit` (within ``1 + 1e-6``
of the usable load) and the result is checked again in floats before it is returned.

Deterministic: the budget counts *slot evaluations* (one slot of one host scored for
one candidate, as the search counts them), not seconds, and the host draws come from
a seeded ``numpy.random.default_rng``; the same inputs give the same placement. With
numba (the ``fast`` and ``solver`` extras) the search is compiled; without it the same
Python function runs (the same placement for the same budget, much slower), on a
default budget :data:`PYTHON_SHARE` times smaller.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from vsizer.placement import _breakout
from vsizer.placement.improve_state import LIM

#: Integer units of one host's usable load, per slot.
UNIT = 1_000_000_000
#: Units above ``UNIT`` a host may carry (the float test's 1e-6, rounded down).
TOLERANCE = 1_000
#: Slot evaluations the whole reduction may spend on a pool of up to :data:`BUDGET_VMS`
#: VMs (about 40 CPU s of compiled search on the 2-core machine of
#: ``benchmarks/cloudsim_planetlab.py``); see :func:`work_budget` above it.
WORK_BUDGET = 40_000_000_000
#: Pools above this many VMs get ``WORK_BUDGET x sqrt(VMs / BUDGET_VMS)``: an iteration
#: costs about VMs x slots, so a fixed budget would shrink the search with the pool.
BUDGET_VMS = 2_000
#: Without numba the default budget is this many times smaller: the Python twin makes
#: the same choices some 500 times slower, so the plan stays within a minute of CPU.
PYTHON_SHARE = 500
#: Uniform draws the search picks overloaded hosts with (used cyclically).
RANDOM_DRAWS = 4096
#: Iterations in a row that lower a try's least overflow seen by nothing before the
#: host it removed is given up (and the next least-loaded one is tried instead).
STALL = 10_000
#: Hosts tried as the one to remove, least loaded first, before a count is given up.
TRIES = 8
#: Tries searched side by side, :data:`SLICE` iterations each in turn: how long a
#: removal takes varies a lot with the host removed (on PlanetLab 2011-03-03 at 45
#: hosts, five tries stalled after 6,700-8,400 iterations each before the sixth
#: succeeded in 2,980), so a try that would succeed soon does not wait for the others
#: to stall.
RACE = 4
#: The weight smoothing of each try in turn (every this many local minima the breakout
#: weights are halved towards one; :data:`vsizer.placement._breakout.SMOOTH`): the tries
#: of a race differ in it as well as in the host removed. Measured alone, 20 reached 44
#: hosts on PlanetLab 2011-03-03 (CloudSim setting) where 50, 100 and 200 stopped at 45,
#: and 200 reached 59 hosts on the 5,000-VM pool of ``benchmarks/bench_curve_fleet.py``
#: where 20 stopped at 61 (its overflow left near zero: weights halved often cannot grow
#: enough to move it); both alternating, 59 there and the PlanetLab table of
#: docs/performance.md.
SMOOTHS = (20, 200)
#: Iterations a try runs before the next one's turn.
SLICE = 1_000


@dataclass(frozen=True)
class Reduction:
    """The placement after the search (hosts renumbered in order) and its counters."""

    assignment: npt.NDArray[np.int64]
    n_hosts: int
    freed: int
    iterations: int
    evaluations: int


def work_budget(n_vms: int) -> int:
    """The default budget [slot evaluations] for a pool of ``n_vms`` VMs:
    :data:`WORK_BUDGET`, times sqrt(n_vms / :data:`BUDGET_VMS`) above that size."""
    return int(WORK_BUDGET * max(1.0, (n_vms / BUDGET_VMS) ** 0.5))


def slots_of(curves: npt.NDArray[np.floating], usable: npt.NDArray[np.float64]
             ) -> npt.NDArray[np.int64]:
    """(V, S) integer demand per slot: the steps of every dimension that varies over
    time, one value of each dimension that is constant for every VM."""
    parts = []
    for d in range(curves.shape[2]):
        col = curves[:, :, d]
        flat = bool((col == col[:, :1]).all())
        part = col[:, :1] if flat else col
        parts.append(np.ceil(part.astype(np.float64) / usable[d] * UNIT - 1e-3))
    q = np.concatenate(parts, axis=1)
    return np.asarray(np.clip(q, 0, None), dtype=np.int64)


def reduce_hosts(
    curves: npt.NDArray[np.floating],
    max_load: npt.NDArray[np.float64],
    assignment: npt.NDArray[np.int64],
    n_hosts: int,
    *,
    groups: npt.NDArray[np.int64],
    pins: npt.NDArray[np.int64],
    base_load: npt.NDArray[np.float64],
    floor: int = 1,
    work: int | None = None,
    seed: int = 0,
) -> Reduction:
    """Free hosts of the feasible ``assignment`` (module docstring), every step must fit.

    Parameters
        curves (n_vms, n_steps, n_dims); max_load (n_dims,) = capacity x ceiling;
        groups: anti-affinity ids (-1 none); pins: host per VM (-1 free);
        base_load (n_dims,) on every host; floor: stop at this many hosts;
        work: slot evaluations the search may spend (None: :func:`work_budget`,
        over :data:`PYTHON_SHARE` without numba);
        seed of the host draws.
    Returns
        :class:`Reduction`; the input placement when no host was freed.
    """
    usable = np.asarray(max_load, dtype=np.float64) - np.asarray(base_load, np.float64)
    q = slots_of(curves, usable)
    compiled = _breakout.get()
    if work is None:  # the uncompiled twin does the same work some 500 times slower
        work = work_budget(q.shape[0]) // (1 if compiled else PYTHON_SHARE)
    cap = UNIT + TOLERANCE
    assign = np.asarray(assignment, dtype=np.int64).copy()
    movable = pins < 0
    protected = int(pins.max()) + 1 if (~movable).any() else 0
    _, group = np.unique(groups, return_inverse=True)
    group = np.where(groups >= 0, group.reshape(-1) - int((groups < 0).any()), -1)
    group = group.astype(np.int64)
    alive = np.ones(n_hosts, dtype=bool)
    rng = np.random.default_rng(seed)
    ctx = _Context(compiled or _breakout.run, q, cap, movable, group,
                   rng.random(RANDOM_DRAWS), work)
    freed = 0
    while int(alive.sum()) > max(floor, 1) and ctx.evals < work:
        won = _race(ctx, assign, alive, protected)
        if won is None:
            break
        h, assign = won
        alive[h] = False
        freed += 1
    if not freed or not _fits(curves, max_load, base_load, assign, alive):
        return Reduction(np.asarray(assignment, dtype=np.int64).copy(), n_hosts, 0,
                         ctx.iterations, ctx.evals)
    new_index = np.cumsum(alive) - 1
    return Reduction(new_index[assign].astype(np.int64), int(alive.sum()), freed,
                     ctx.iterations, ctx.evals)


@dataclass
class _Context:
    """What every try of a reduction shares, and the work done so far."""

    kernel: Any
    q: npt.NDArray[np.int64]
    cap: int
    movable: npt.NDArray[np.bool_]
    group: npt.NDArray[np.int64]
    rand: npt.NDArray[np.float64]
    work: int
    smooths: tuple[int, ...] = SMOOTHS
    evals: int = 0
    iterations: int = 0


@dataclass
class _Try:
    """One host removed and the breakout search's state on the others (resumable)."""

    host: int
    live: npt.NDArray[np.int64]
    assign: npt.NDArray[np.int64]
    gcount: npt.NDArray[np.int64]
    weight: npt.NDArray[np.int64]
    stats: npt.NDArray[np.int64]
    best: npt.NDArray[np.int64]
    smooth: int

    @classmethod
    def start(cls, ctx: _Context, trial: npt.NDArray[np.int64], h: int,
              live: npt.NDArray[np.int64], smooth: int,
              loads: npt.NDArray[np.int64] | None = None) -> _Try:
        """The search's state with ``trial`` (``h``'s VMs spread on ``live``);
        ``loads``: the hosts' loads under ``trial`` by host index when known (as
        :func:`_spread` leaves them), else summed here."""
        local = np.full(int(max(trial.max(), live.max(), h)) + 1, -1, dtype=np.int64)
        local[live] = np.arange(live.size)
        la = local[trial]
        group = ctx.group
        gcount = np.zeros((max(int(group.max(initial=-1)) + 1, 1), live.size), np.int64)
        np.add.at(gcount, (group[group >= 0], la[group >= 0]), 1)
        if loads is None:
            loads = np.zeros((live.size, ctx.q.shape[1]), dtype=np.int64)
            np.add.at(loads, la, ctx.q)
        else:
            loads = loads[live]  # the same integer sums
        stats = np.zeros(5, dtype=np.int64)
        stats[_breakout.LEAST] = int(np.clip(loads - ctx.cap, 0, None).sum())
        return cls(h, live, la, gcount, np.ones(loads.shape, np.int64), stats, la.copy(),
                   smooth)

    @property
    def done(self) -> bool:
        return bool(self.stats[_breakout.LEAST] == 0)

    @property
    def stalled(self) -> bool:
        s = self.stats
        return bool(s[_breakout.ITERATIONS] - s[_breakout.LAST] >= STALL)

    def run(self, ctx: _Context, iterations: int) -> None:
        """Go on for at most ``iterations`` (fewer when the budget ends first)."""
        s = self.stats
        its, evals = int(s[_breakout.ITERATIONS]), int(s[_breakout.EVALS])
        ctx.kernel(ctx.q, self.assign, ctx.cap, ctx.movable, ctx.group, self.gcount,
                   self.weight, ctx.rand, s, self.best, iterations,
                   evals + ctx.work - ctx.evals, STALL, _breakout.CANDIDATES, self.smooth)
        ctx.iterations += int(s[_breakout.ITERATIONS]) - its
        ctx.evals += int(s[_breakout.EVALS]) - evals


def _race(
    ctx: _Context, assign: npt.NDArray[np.int64], alive: npt.NDArray[np.bool_],
    protected: int,
) -> tuple[int, npt.NDArray[np.int64]] | None:
    """Free one host of the feasible ``assign``: up to :data:`RACE` tries (each a host
    removed, least loaded first, and its VMs spread) searched in turn, :data:`SLICE`
    iterations at a time; a try that stalls (:data:`STALL`) makes room for the next
    host, up to :data:`TRIES` hosts. Returns (host freed, placement) of the first try
    to reach zero overflow, or None when every try stalled or the budget ran out."""
    q, n_hosts = ctx.q, alive.size
    tried: list[int] = []
    racing: list[_Try] = []
    base: npt.NDArray[np.int64] | None = None  # the hosts' loads under ``assign``
    while ctx.evals < ctx.work:
        while len(racing) < RACE and len(tried) < TRIES:
            h = _least_loaded(q, assign, alive, ctx.movable, protected, tried)
            if h < 0:
                break
            tried.append(h)
            live = np.flatnonzero(alive & (np.arange(n_hosts) != h))
            if base is None:
                base = np.zeros((n_hosts, q.shape[1]), dtype=np.int64)
                np.add.at(base, assign, q)
            loads = base.copy()
            trial = _spread(q, assign, h, live, ctx.group, ctx.cap, loads)
            if trial is not None:
                smooth = ctx.smooths[(len(tried) - 1) % len(ctx.smooths)]
                racing.append(_Try.start(ctx, trial, h, live, smooth, loads))
        if not racing:
            return None
        for t in racing:
            t.run(ctx, SLICE)
            if t.done:
                return t.host, t.live[t.best]
            if ctx.evals >= ctx.work:
                break
        racing = [t for t in racing if not t.stalled]
    return None


def _least_loaded(
    q: npt.NDArray[np.int64], assign: npt.NDArray[np.int64], alive: npt.NDArray[np.bool_],
    movable: npt.NDArray[np.bool_], protected: int, tried: list[int],
) -> int:
    """The live host after ``protected``, without a pinned VM and not in ``tried``,
    with the least load (sum over slots), lowest index on ties; -1 when none."""
    n = alive.size
    load = np.bincount(assign, weights=q.sum(axis=1).astype(np.float64), minlength=n)
    pinned = np.bincount(assign, weights=(~movable).astype(np.float64), minlength=n) > 0
    ok = alive & ~pinned & (np.arange(n) >= protected)
    ok[tried] = False
    if not ok.any():
        return -1
    return int(np.flatnonzero(ok)[int(np.argmin(load[ok]))])


def _spread(
    q: npt.NDArray[np.int64], assign: npt.NDArray[np.int64], h: int,
    live: npt.NDArray[np.int64], group: npt.NDArray[np.int64], cap: int,
    loads: npt.NDArray[np.int64] | None = None,
) -> npt.NDArray[np.int64] | None:
    """``assign`` with each VM of ``h`` (largest peak first) on the live host where it
    adds the least overflow (lowest index on ties); None when an anti-affinity group
    leaves a VM no host. ``loads``: the hosts' loads under ``assign`` by host index
    (every host of ``assign`` and ``live``), made here when not given; a given one is
    updated in place, each VM added where it goes (``h``'s row keeps its VMs)."""
    out = assign.copy()
    if loads is None:
        size = max(int(assign.max()), int(live.max(initial=-1)), h) + 1
        loads = np.zeros((size, q.shape[1]), dtype=np.int64)
        np.add.at(loads, assign, q)
    vms = np.flatnonzero(assign == h)
    for v in vms[np.argsort(-q[vms].max(axis=1), kind="stable")].tolist():
        ok = live
        if group[v] >= 0:
            taken = out[(group == group[v]) & (np.arange(q.shape[0]) != v)]
            ok = live[~np.isin(live, taken)]
        if not ok.size:
            return None
        cur = loads[ok] - cap
        cost = (np.maximum(cur + q[v], 0) - np.maximum(cur, 0)).sum(axis=1)
        to = int(ok[int(np.argmin(cost))])
        loads[to] += q[v]
        out[v] = to
    return out


def _fits(
    curves: npt.NDArray[np.floating], max_load: npt.NDArray[np.float64],
    base_load: npt.NDArray[np.float64], assign: npt.NDArray[np.int64],
    alive: npt.NDArray[np.bool_],
) -> bool:
    """Every live host within the limit at every step, re-summed in floats, and no VM on
    a removed host."""
    if not alive[assign].all():
        return False
    inv = 1.0 / np.asarray(max_load, dtype=np.float64)
    loads = np.zeros((alive.size,) + curves.shape[1:], dtype=np.float64)
    loads += np.asarray(base_load, dtype=np.float64) * inv
    np.add.at(loads, assign, np.asarray(curves, dtype=np.float64) * inv)
    return bool((loads.max(axis=1) <= LIM).all())
