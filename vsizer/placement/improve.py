"""Improve a placement on demand curves after construction: empty hosts by local search.

Construction (first-fit decreasing on the curves, :mod:`vsizer.placement.series_fit`)
leaves the last hosts partly filled. This module empties hosts:

* **Host elimination.** The hosts are tried from the least loaded (area of the
  load curve); each VM of the host goes (largest peak first) to the host where
  it fits best — the tightest peak after the move. A VM that fits nowhere is
  placed by an **ejection chain** of depth one: a VM ``u`` of a target host
  ``g`` is moved to a third host so that the VM fits on ``g``. The host is
  removed when all its VMs have moved; otherwise every move is undone.
* **Close and repair** (:mod:`vsizer.placement.repair`, every step must fit): the
  least-loaded host is closed, its VMs go where they overflow least, and a tabu
  search of single-VM moves, with breakout weights on the host-steps still over,
  removes the overflow within a fixed number of iterations; repeated while it
  succeeds.
* **Ruin and recreate.** A fixed number of rounds: one of the three least-loaded
  hosts and a few hosts whose residual (free) curves are correlated with its
  load — free when it is busy — lose all (the former) or a share (the others)
  of their VMs; the VMs are re-inserted, largest first, best fit, on every host
  but the first, which takes back only what fits nowhere else. The round is
  kept when the load is no less concentrated (sum of squared load areas) and
  every step still fits; after a kept round, elimination is tried again.

Deterministic: a seeded ``numpy.random.default_rng`` and a fixed round budget,
no wall-clock cut-off. Anytime: the result is the best feasible placement seen
(the construction's when nothing was emptied). Every step (or the quantile of
steps), every dimension (flat ones — memory, vCPU — included), anti-affinity
groups and pinned VMs hold as in :func:`~vsizer.placement.series_fit.fit_curves`;
hosts that carry a pinned VM, and every host before them, keep their index.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from vsizer._validation import Interval, OrNone, validate_params
from vsizer.placement.improve_state import LIM, State, targets
from vsizer.placement.repair import close_one
from vsizer.placement.series_fit import step_stat


@dataclass(frozen=True)
class Improvement:
    """The improved placement and what the search did."""

    assignment: npt.NDArray[np.int64]
    n_hosts: int
    start_hosts: int
    eliminated: int
    repaired: int
    rounds: int
    accepted: int


def _eject(state: State, v: int, h: int, movable: npt.NDArray[np.bool_]) -> bool:
    """Place ``v`` (now on ``h``) by moving one VM ``u`` of a host ``g`` elsewhere."""
    g_v = int(state.groups[v])
    hosts = targets(state, h)
    order = hosts[np.argsort(state.area()[hosts], kind="stable")]
    for g in order.tolist():
        us = state.members(g)
        us = us[movable[us]]
        if not us.size:
            continue
        if g_v >= 0:  # v's group may sit on g only as the ejected VM's
            on_g = state.gcount[g].get(g_v, 0)
            us = us[(on_g - (state.groups[us] == g_v)) == 0]
            if not us.size:
                continue
        trial = state.loads[g][None] - state.norm[us] + state.norm[v]
        ok = (step_stat(trial, state.quantile) <= LIM).all(axis=1)
        for u in us[ok][np.argsort(state.vpeak[us[ok]], kind="stable")].tolist():
            state.move(u, h)  # park u, put v on g, find u a third host
            state.move(v, g)
            third = state.best_fit(u, targets(state, h, g))
            if third >= 0:
                state.move(u, third)
                return True
            state.move(v, h)
            state.move(u, g)
    return False


def _eliminate(state: State, h: int, movable: npt.NDArray[np.bool_]) -> bool:
    """Empty host ``h`` (every move undone when one VM cannot leave)."""
    log: list[tuple[int, int]] = []  # (vm, host before) in move order
    vms = state.members(h)
    for v in vms[np.argsort(-state.vpeak[vms], kind="stable")].tolist():
        before = state.assign.copy()
        to = state.best_fit(v, targets(state, h))
        if to >= 0:
            state.move(v, to)
        elif not _eject(state, v, h, movable):
            for u in np.flatnonzero(state.assign != before).tolist():
                state.move(u, int(before[u]))
            for u, frm in reversed(log):
                state.move(u, frm)
            return False
        changed = np.flatnonzero(state.assign != before)
        log.extend((int(u), int(before[u])) for u in changed)
    state.alive[h] = False
    return True


def _eliminate_all(
    state: State, movable: npt.NDArray[np.bool_], protected: int, floor: int
) -> int:
    """Empty hosts, least loaded first, until none can be emptied or ``floor`` is reached."""
    done = 0
    failed: set[int] = set()
    while int(state.alive.sum()) > floor:
        live = np.flatnonzero(state.alive)
        live = live[live >= protected]
        order = [h for h in live[np.argsort(state.area()[live], kind="stable")].tolist()
                 if h not in failed]
        hosts_vms = [state.members(h) for h in order]
        order = [h for h, m in zip(order, hosts_vms, strict=True) if movable[m].all()]
        for h in order:
            if _eliminate(state, h, movable):
                done += 1
                failed.clear()
                break
            failed.add(h)
        else:
            return done
    return done


def _ruin_recreate(
    state: State,
    rng: np.random.Generator,
    movable: npt.NDArray[np.bool_],
    protected: int,
) -> bool:
    """One round; True when kept (the moves are undone otherwise)."""
    live = np.flatnonzero(state.alive)
    cand = live[live >= protected]
    if cand.size < 1 or live.size < 2:
        return False
    area = state.area()
    k = min(3, cand.size)
    h = int(cand[np.argsort(area[cand], kind="stable")][int(rng.integers(k))])
    others = live[live != h]
    free = np.clip(1.0 - state.loads[others], 0.0, None)  # (O, T, D)
    score = (free * state.loads[h]).sum(axis=(1, 2))
    top = others[np.argsort(-score, kind="stable")][: max(2, min(6, others.size))]
    picked = rng.choice(top, size=min(int(rng.integers(1, 4)), top.size), replace=False)
    share = float(rng.uniform(0.2, 0.6))
    removed = [int(v) for v in state.members(h) if movable[v]]
    for g in picked.tolist():
        vs = state.members(g)
        vs = vs[movable[vs]]
        take = rng.random(vs.size) < share
        removed.extend(int(v) for v in vs[take])
    if not removed:
        return False
    before_assign, before_obj = state.assign.copy(), float((area**2).sum())
    rem = np.asarray(removed, dtype=np.int64)
    noise = 1.0 + 0.1 * rng.random(rem.size)
    for v in rem.tolist():
        state.move(v, h)  # everything parked on h while re-inserted
    dest = targets(state, h)
    for v in rem[np.argsort(-state.vpeak[rem] * noise, kind="stable")].tolist():
        to = state.best_fit(v, dest)
        if to >= 0:
            state.move(v, to)
    if state.fits(h) and float((state.area() ** 2).sum()) >= before_obj * (1 - 1e-12):
        return True
    for u in np.flatnonzero(state.assign != before_assign).tolist():
        state.move(u, int(before_assign[u]))
    return False


@validate_params(
    {
        "quantile": OrNone(Interval(float, 0.0, 1.0, closed="right")),
        "rounds": Interval(int, 0, None),
        "floor": Interval(int, 0, None),
        "seed": Interval(int, 0, None),
        "repair": Interval(int, 0, None),
    },
    where="improve_placement",
)
def improve_placement(
    demand: npt.NDArray[np.floating],
    max_load: npt.NDArray[np.float64],
    assignment: npt.NDArray[np.int64],
    n_hosts: int,
    *,
    quantile: float | None = None,
    groups: npt.NDArray[np.int64] | None = None,
    base_load: npt.NDArray[np.float64] | None = None,
    pins: npt.NDArray[np.int64] | None = None,
    floor: int = 0,
    rounds: int = 100,
    repair: int = 2000,
    seed: int = 0,
) -> Improvement:
    """Empty hosts of a feasible placement on curves by local search.

    Synopsis
        From ``assignment`` on ``n_hosts`` hosts (feasible: every host within
        ``max_load`` at every step, or the ``quantile`` of steps), eliminate
        hosts, then ``rounds`` rounds of ruin and recreate, each followed by
        elimination when kept; stop at ``floor`` hosts (a lower bound).
    Parameters
        demand (n_vms, n_steps, n_dims); max_load (n_dims,) = capacity x ceiling;
        groups: anti-affinity ids (-1 none); base_load (n_dims,) on every host;
        pins: host index per VM (-1 free) — pinned VMs never move and hosts up
        to the last pinned one are never removed; seed of the random choices.
    Returns
        :class:`Improvement`: the assignment with hosts renumbered in order
        (removed hosts closed up), its host count, and counters. The input
        placement when no host could be emptied.
    """
    n = demand.shape[0]
    groups = np.full(n, -1, dtype=np.int64) if groups is None else np.asarray(groups)
    pins = np.full(n, -1, dtype=np.int64) if pins is None else np.asarray(pins)
    inv = 1.0 / np.asarray(max_load, dtype=np.float64)
    base = np.zeros(demand.shape[2]) if base_load is None else np.asarray(base_load) * inv
    norm = np.asarray(demand, dtype=np.float64) * inv
    state = State(norm, np.asarray(assignment, dtype=np.int64), n_hosts, base, groups, quantile)
    movable = pins < 0
    protected = int(pins.max()) + 1 if (~movable).any() else 0
    rng = np.random.default_rng(seed)
    eliminated = _eliminate_all(state, movable, protected, floor)
    # The placement the last elimination pass ended on: a round kept with every VM
    # back where it was cannot empty a host that pass could not (its moves are
    # undone on failure), so the pass is not repeated (30 VMs one per host spent
    # a minute on 100 futile passes).
    settled = state.assign.copy()
    closed = _close_hosts(state, movable, protected, floor, rng, repair)
    accepted = used = 0
    for used in range(1, rounds + 1):
        if int(state.alive.sum()) <= floor:
            used -= 1
            break
        if _ruin_recreate(state, rng, movable, protected):
            accepted += 1
            if not np.array_equal(state.assign, settled):
                eliminated += _eliminate_all(state, movable, protected, floor)
                settled = state.assign.copy()
    alive = int(state.alive.sum())
    if alive >= n_hosts or not _feasible(state):
        return Improvement(np.asarray(assignment, dtype=np.int64).copy(), n_hosts,
                           n_hosts, 0, 0, used, accepted)
    new_index = np.cumsum(state.alive) - 1
    return Improvement(
        new_index[state.assign].astype(np.int64), alive, n_hosts, eliminated, closed,
        used, accepted,
    )


def _close_hosts(
    state: State,
    movable: npt.NDArray[np.bool_],
    protected: int,
    floor: int,
    rng: np.random.Generator,
    iterations: int,
) -> int:
    """Close the least-loaded host and repair (:func:`~vsizer.placement.repair.close_one`)
    until a repair fails or ``floor`` is reached; the hosts closed."""
    if state.quantile is not None or iterations == 0:
        return 0
    closed = 0
    while int(state.alive.sum()) > floor:
        live = np.flatnonzero(state.alive)
        live = live[live >= protected]
        live = np.array([h for h in live.tolist() if movable[state.members(h)].all()],
                        dtype=np.int64)
        if not live.size:
            break
        h = int(live[int(np.argmin(state.area()[live]))])
        if not close_one(state, h, movable, rng, iterations):
            break
        closed += 1
    return closed


def _feasible(state: State) -> bool:
    """Recompute the loads from scratch and check every live host (guards round-off)."""
    if not state.alive[state.assign].all():
        return False
    loads = np.broadcast_to(state.base, state.loads.shape).copy()
    np.add.at(loads, state.assign, state.norm)
    live = np.flatnonzero(state.alive)
    return bool((step_stat(loads[live], state.quantile) <= LIM).all())
