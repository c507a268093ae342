"""Neighbourhood of the large-neighbourhood search that empties one host.

The target's VMs all leave it; on each partner host only the
:data:`FREE_PER_HOST` VMs busiest where the target is busy may move, the
others stay where they are and leave the partner a *room* curve (capacity
minus their load, per step and dimension). CP-SAT places the freed VMs on the
partners within their rooms (:class:`~vsizer.placement.cpsat_model.BinModel`
with ``room``), rows on the critical steps first, then row generation as in
:mod:`vsizer.placement.lns`. A sub-problem of a few dozen VMs instead of every
VM of the partners: CP-SAT solves it where the whole re-placement of eight
hosts (300+ VMs) is out of its reach in a second.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from vsizer.placement.cpsat_model import BinModel

#: VMs of each partner host that may move: the first count, then the next ones while
#: the sub-problem is proven infeasible.
FREE_PER_HOST = (8, 16)
#: Busiest steps of the target (and tightest steps of the sub-problem) in the first model.
CRIT_STEPS = 24
#: Steps added per partner and dimension that is over, per row-generation round.
ADD_STEPS = 4
#: Row-generation rounds.
ROUNDS = 10


@dataclass
class Emptied:
    """A move that empties the target, and the work it took."""

    move: tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]] | None
    work: float
    solves: int
    infeasible: bool = False  # proven: no placement of the freed VMs in the rooms


def empty_host(
    cp_model: Any, q: npt.NDArray[np.int32], assign: npt.NDArray[np.int64],
    loads: npt.NDArray[np.int64], flat: npt.NDArray[np.bool_], pins: npt.NDArray[np.int64],
    groups: npt.NDArray[np.int64], chosen: list[int], *, scale: int, work: float,
    wall_left: Callable[[], float],
) -> Emptied:
    """Move every VM of ``chosen[0]`` onto ``chosen[1:]`` (see the module docstring)
    within ``work`` seconds of CP-SAT deterministic time."""
    tv = np.flatnonzero(assign == chosen[0])
    if (pins[tv] >= 0).any():
        return Emptied(None, 0.0, 0)
    tl = q[tv].sum(axis=0, dtype=np.int64)  # (T, D) target load
    crit = np.argsort(-tl.max(axis=1), kind="stable")[:CRIT_STEPS]
    done = Emptied(None, 0.0, 0)
    for free in FREE_PER_HOST:
        res = _sub_problem(cp_model, q, assign, loads, flat, pins, groups, chosen, crit, free,
                           scale=scale, work=work - done.work, wall_left=wall_left)
        done = Emptied(res.move, done.work + res.work, done.solves + res.solves,
                       res.infeasible)
        if not res.infeasible:
            break
    return done


def _sub_problem(
    cp_model: Any, q: npt.NDArray[np.int32], assign: npt.NDArray[np.int64],
    loads: npt.NDArray[np.int64], flat: npt.NDArray[np.bool_], pins: npt.NDArray[np.int64],
    groups: npt.NDArray[np.int64], chosen: list[int], crit: npt.NDArray[np.int64],
    free: int, *, scale: int, work: float, wall_left: Callable[[], float],
) -> Emptied:
    """The sub-problem with ``free`` VMs of each partner (those busiest at ``crit``)."""
    target, partners = chosen[0], chosen[1:]
    pv = [np.flatnonzero(assign == target)]
    for j in partners:
        vj = np.flatnonzero((assign == j) & (pins < 0))
        score = q[vj][:, crit, :].sum(axis=(1, 2), dtype=np.int64)
        pv.append(vj[np.argsort(-score, kind="stable")[:free]])
    vms = np.concatenate(pv)
    host_of = {h: i for i, h in enumerate(partners)}
    qs = q[vms]
    room = scale - loads[partners].copy()
    for i, v in enumerate(vms.tolist()):
        if assign[v] != target:
            room[host_of[int(assign[v])]] += qs[i]
    if (qs.sum(axis=0, dtype=np.int64) > room.sum(axis=0)).any():
        return Emptied(None, 0.0, 0, True)  # not enough room at some step
    slack = room.sum(axis=0) - qs.sum(axis=0, dtype=np.int64)  # (T, D)
    steps = set(np.argsort(slack.min(axis=1), kind="stable")[:CRIT_STEPS].tolist())
    steps |= set(crit.tolist())
    forbid = _forbidden(groups, assign, vms, partners)
    hint = _hint(qs, room, assign[vms], host_of)
    return _solve(cp_model, qs, room, steps, flat, vms, partners, forbid, hint, groups[vms],
                  scale=scale, work=work, wall_left=wall_left)


def _forbidden(
    groups: npt.NDArray[np.int64], assign: npt.NDArray[np.int64], vms: npt.NDArray[np.int64],
    partners: list[int],
) -> npt.NDArray[np.bool_]:
    """(n, k) VM may not go to partner (a VM of its anti-affinity group stays there)."""
    stay = np.ones(assign.shape[0], dtype=bool)
    stay[vms] = False
    forbid = np.zeros((vms.size, len(partners)), dtype=bool)
    for i, v in enumerate(vms.tolist()):
        g = int(groups[v])
        if g >= 0:
            others = np.flatnonzero(stay & (groups == g))
            forbid[i] = np.isin(partners, assign[others])
    return forbid


def _hint(
    qs: npt.NDArray[np.int32], room: npt.NDArray[np.int64], where: npt.NDArray[np.int64],
    host_of: dict[int, int],
) -> npt.NDArray[np.int64]:
    """Partners' VMs where they are; the target's best-fit (most room left, worst step)."""
    left = room.copy()
    local = np.full(qs.shape[0], -1, dtype=np.int64)
    for i, h in enumerate(where.tolist()):
        if h in host_of:
            local[i] = host_of[h]
            left[local[i]] -= qs[i]
    for i in np.flatnonzero(local < 0).tolist():
        fit = (left - qs[i][None]).min(axis=(1, 2))
        local[i] = int(np.argmax(fit))
        left[local[i]] -= qs[i]
    return local


def _solve(
    cp_model: Any, qs: npt.NDArray[np.int32], room: npt.NDArray[np.int64], steps: set[int],
    flat: npt.NDArray[np.bool_], vms: npt.NDArray[np.int64], partners: list[int],
    forbid: npt.NDArray[np.bool_], hint: npt.NDArray[np.int64],
    groups: npt.NDArray[np.int64], *, scale: int, work: float,
    wall_left: Callable[[], float],
) -> Emptied:
    """Row generation on the sub-problem; the move when it holds on every step."""
    k, spent, solves = len(partners), 0.0, 0
    no_pin = np.full(vms.size, -1, dtype=np.int64)
    for _ in range(ROUNDS):
        left = wall_left()
        if left <= 0 or spent >= work - 0.01:
            break
        bm = BinModel.build(cp_model, qs, sorted(steps), flat, k, scale=scale,
                            groups=groups, pins=no_pin, room=room)
        for i, j in zip(*np.nonzero(forbid), strict=True):
            bm.model.proto.variables[int(bm.x[i, j])].domain[1] = 0
        bm.hint(hint)
        cp = cp_model.CpSolver()
        cp.parameters.num_workers = 1
        cp.parameters.random_seed = 0
        cp.parameters.max_deterministic_time = work - spent
        cp.parameters.max_time_in_seconds = max(left, 0.01)
        result = cp.solve(bm.model)
        solves += 1
        spent += cp.deterministic_time
        if result == cp_model.INFEASIBLE:  # a relaxation: infeasible on every step too
            return Emptied(None, spent, solves, True)
        if result not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            break
        local = bm.assignment(cp)
        over = -room.copy()
        np.add.at(over, local, qs)
        if not (over > 0).any():
            return Emptied((vms, np.asarray(partners, dtype=np.int64)[local]), spent, solves)
        for j, d in zip(*np.nonzero((over > 0).any(axis=1)), strict=True):
            worst = np.argsort(-over[j, :, d], kind="stable")[:ADD_STEPS]
            steps.update(int(s) for s in worst if over[j, s, d] > 0)
        hint = local
    return Emptied(None, spent, solves)
