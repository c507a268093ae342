"""Overflow-minimizing large-neighbourhood search at a fixed host count ("fix H - 1,
minimize violations").

The search of :mod:`vsizer.placement.lns` accepts a sub-problem only when it frees
a whole host; with items of at most 1/8 of a host that means re-placing the VMs of
8-12 hosts exactly, which it does not reach in its budget. This search works at the
*target* count instead: from a feasible plan of H hosts, one host is removed and its
VMs are put where they add the least overflow (load above the host's usable load,
allowed here), then the overflow is driven down. With numba installed (the ``solver``
and ``fast`` extras) that is the compiled breakout search of
:mod:`vsizer.placement._breakout` (best single-VM moves and two-VM swaps on the
weighted overflow, every step scored; :meth:`_Search.breakout`), on its own counted
work budget; it reached the lower bound on PlanetLab 2011-03-06, 2011-03-09, 2011-04-03
and 2011-04-12 (coarse setting) in 7-18 s where the CP-SAT sub-problems below stopped
above it after 60 s. Without numba the search below runs:

* *Removing a host*: of the :data:`REMOVE_TRIES` least-loaded hosts without a
  pinned VM (mean over steps of the busiest dimension), the one whose VMs, spread
  one at a time (largest peak first) onto the host where each adds the least
  overflow (anti-affinity respected), leave the least total overflow.
* *Descent*: best single-VM moves off overloaded hosts (the one move that lowers the
  total overflow most, scored on every host at every step) while one lowers it, at
  most :data:`DESCENT` moves, and again (at most :data:`DESCENT_AFTER`) after each
  sub-problem that lowers the overflow; fixed counts, no clock.
* *Swaps* (:meth:`_Search.polish`): when :data:`PATIENCE` sub-problems in a row
  lower nothing, and once when the budget ends, the best exchange of two VMs (one of
  the :data:`SWAP_VMS` busiest of an overloaded host at its steps over, against every
  VM of another host, scored on every step), each followed by single moves, at most
  :data:`SWAPS`; the sub-problems go on while the swaps help. A swap escapes where
  no single move lowers the overflow (11 on a host of 10 from 6 + 5, a host of 8 from
  4 + 4: swap the 6 and a 4).
* *Neighbourhood*: an overloaded host (seeded draw, weighted by its overflow) and
  1-3 partners whose room (usable load minus load, per step) covers most of its
  overflow where it is over, less their own overflow (seeded draw among the best).
  On each of these 2-4 hosts the :data:`FREE_PER_HOST` VMs busiest at the steps
  where the hosts are over are freed; the others stay and leave a *room* curve.
* *Sub-problem*: CP-SAT re-places the freed VMs on the same hosts minimizing the
  summed overflow, ``o[h, t, d] >= sum_v q[v, t, d] x[v, h] - room[h, t, d]``,
  ``o >= 0`` (integer units of :func:`~vsizer.placement.lns.to_units`), with a row
  on every step where the freed VMs together exceed some host's room (the other
  steps cannot overflow, so no row generation is needed), the current assignment
  (and its overflow) as a complete hint, so a sub-solve is never worse than the
  current placement.
* *Breakout* (Morris, AAAI 1993, as :mod:`vsizer.placement.repair` does for single
  moves): the overflow of host h at step t counts ``w[h, t]`` times in the
  sub-problem's objective; every sub-problem that does not lower the total overflow
  adds one to the weight of its hosts' steps that are still over, so the search moves
  load away from where it stays stuck.
* *Acceptance*: a sub-problem's move is kept when the weighted overflow of its hosts
  (every step, replayed) does not increase; the plain total may then rise for a while
  (the least one seen is what the search reports). Zero overflow is a feasible plan of
  H - 1 hosts, and the search goes on from it towards H - 2, down to the lower bound;
  the feasible plan is only ever replaced by a feasible plan with fewer hosts.

Deterministic: a seeded generator, one CP-SAT worker with a fixed seed and a
deterministic-time limit per solve, a fixed budget of deterministic time and of
sub-problems without progress, a fixed number of descent moves. The wall clock
(``wall_left``) only cuts the search short as a safety net, and the caller reports it
when it does.

Tuning measured on PlanetLab 2011-04-12 (coarse, 19 -> 18 hosts): the descent takes
the spread's overflow from 7.78 to 1.73 host-steps; sub-problems with unit weights then
lower it little (1.64 on 15 s of deterministic time with 16 VMs freed per host and 0.3 s
per solve; 24 VMs and 0.5 s, 10 and 0.2 s, 30 VMs on two hosts, or 3-6 hosts with 10 VMs
each did no better); the tabu search with breakout weights of
:mod:`vsizer.placement.repair` run for 20,000 iterations instead of 2,000 from the same
start did not reach 18 hosts either. A short descent after each sub-problem that lowers
the overflow, and breakout weights in the sub-problems, take it to 1.28 host-steps on
7.5 s, 0.73 on 15 s, 0.29 on 35 s (0.3 s per solve); more, shorter solves do better on
15 s: 0.44 at 0.15 s per solve (26 s of wall time), 0.32 at 0.08 s (35 s of wall time:
model building and descents weigh more), hence :data:`SUB_WORK` = 0.1. The swaps, with
:data:`PATIENCE` = 40 (was 150 without them), took the overflow left at 60 s from
3,930 to 980 MHz x steps on 2011-04-12 and from 5,010 to 2,030 on 2011-03-06; at 120 s
2011-04-12 stops on its own (no improvement) at 740, a local optimum of moves and swaps.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from vsizer.placement import _breakout
from vsizer.placement.cpsat_model import BinModel
from vsizer.placement.lns_empty import _forbidden

#: Deterministic time of CP-SAT per solve of a sub-problem [s].
SUB_WORK = 0.1
#: VMs of each chosen host freed in a sub-problem (busiest where the hosts are over).
FREE_PER_HOST = 16
#: Hosts of a neighbourhood, drawn from these sizes (seeded).
SIZES = (2, 2, 3, 3, 4)
#: Partners drawn among this many best candidates beyond the number needed.
SPREAD = 3
#: Least-loaded hosts tried as the one to remove.
REMOVE_TRIES = 3
#: Sub-problems in a row that lower the total overflow by nothing before a target count
#: is given up.
PATIENCE = 40
#: Largest start (hosts x steps x dimensions) searched: a best move is scored on every
#: host at every step for each VM of an overloaded host.
MAX_HOST_STEPS = 100_000
#: Single-VM moves (best first) before the sub-problems.
DESCENT = 1000
#: Single-VM moves after each sub-problem that lowers the overflow.
DESCENT_AFTER = 200
#: Best two-VM swaps (each scored against every VM on another host) when the
#: sub-problems stall, before giving a target count up.
SWAPS = 30
#: VMs of an overloaded host tried in swaps: the busiest at its steps over.
SWAP_VMS = 16
#: Work of the compiled breakout search between looks at the wall clock [s].
LOOK = 0.25
#: Uniform draws the breakout search picks its overloaded hosts with (used cyclically).
RANDOM_DRAWS = 4096


@dataclass
class Reduced:
    """The best feasible placement found, and how far the last target count got."""

    assign: npt.NDArray[np.int64]  # host of each VM (indices of the start, some unused)
    n_hosts: int
    overflow: int  # total overflow left at the last target count tried (units); 0: none tried
    target: int  # that target count (0: none tried)
    rounds: int = 0
    solves: int = 0
    work: float = 0.0
    reached: int = 0  # target counts reached (hosts freed)
    search: str = "cp-sat"  # "breakout" (compiled) or "cp-sat" (sub-problems)
    budget: float = 0.0  # the work budget the search had [s]


def total_overflow(loads: npt.NDArray[np.int64], scale: int) -> int:
    """Load above ``scale`` summed over hosts, steps and dimensions."""
    return int(np.clip(loads - scale, 0, None).sum())


def host_overflow(loads: npt.NDArray[np.int64], scale: int) -> npt.NDArray[np.int64]:
    """Per host (leading index): load above ``scale`` summed over steps and dimensions."""
    return np.asarray(np.clip(loads - scale, 0, None).sum(axis=(-2, -1)), dtype=np.int64)


def reduce_hosts(
    cp_model: Any, q: npt.NDArray[np.int32], assign: npt.NDArray[np.int64], *,
    flat: npt.NDArray[np.bool_], pins: npt.NDArray[np.int64],
    groups: npt.NDArray[np.int64], bound: int, scale: int, work: float, seed: int = 0,
    wall_left: Callable[[], float], breakout: float = 0.0,
) -> Reduced:
    """Lower the host count of the feasible ``assign`` one at a time (module docstring)
    within ``work`` seconds of CP-SAT deterministic time, or, when ``breakout`` > 0 and
    numba is installed, with the compiled breakout search of
    :mod:`vsizer.placement._breakout` on ``breakout`` seconds of its counted work."""
    best = assign.copy()
    n_best = len(set(best.tolist()))
    out = Reduced(best, n_best, 0, 0)
    if n_best * int(np.prod(q.shape[1:])) > MAX_HOST_STEPS:
        return out
    rng = np.random.default_rng(seed)
    compiled = _breakout.get() if breakout > 0 else None
    budget = breakout if compiled is not None else work
    out.search, out.budget = ("breakout" if compiled is not None else "cp-sat"), budget
    while n_best > bound and out.work < budget and wall_left() > 0:
        search = _Search.start(q, best, flat, pins, groups, scale)
        if search is None:
            break
        out.target = n_best - 1
        search.descend(DESCENT, wall_left)
        if compiled is not None:
            search.breakout(compiled, rng, out, budget, wall_left)
        else:
            search.run(cp_model, rng, out, work, wall_left)
        out.overflow = search.least
        if search.total > 0:
            break
        best, n_best = search.assign.copy(), n_best - 1
        out.assign, out.n_hosts, out.reached = best, n_best, out.reached + 1
    return out


@dataclass
class _Search:
    """The infeasible placement on the target count being repaired."""

    q: npt.NDArray[np.int32]
    assign: npt.NDArray[np.int64]
    loads: npt.NDArray[np.int64]  # (H, T, D), the removed host's row stays zero
    live: npt.NDArray[np.int64]  # hosts of the target count
    flat: npt.NDArray[np.bool_]
    pins: npt.NDArray[np.int64]
    groups: npt.NDArray[np.int64]
    scale: int
    total: int
    least: int = 0  # the least total overflow seen
    weight: npt.NDArray[np.int64] = field(default_factory=lambda: np.ones((0, 0), np.int64))

    @classmethod
    def start(
        cls, q: npt.NDArray[np.int32], assign: npt.NDArray[np.int64],
        flat: npt.NDArray[np.bool_], pins: npt.NDArray[np.int64],
        groups: npt.NDArray[np.int64], scale: int,
    ) -> _Search | None:
        """The best of :data:`REMOVE_TRIES` removals, or None when no host can go."""
        n = int(assign.max()) + 1
        loads = np.zeros((n,) + q.shape[1:], dtype=np.int64)
        np.add.at(loads, assign, q)
        used = np.flatnonzero(np.bincount(assign, minlength=n) > 0)
        pinned = set(pins[pins >= 0].tolist())
        busy = loads[used].max(axis=2).mean(axis=1)
        order = [int(used[i]) for i in np.argsort(busy, kind="stable")
                 if int(used[i]) not in pinned]
        best: _Search | None = None
        for h in order[:REMOVE_TRIES]:
            live = used[used != h]
            s = cls(q, assign.copy(), loads.copy(), live, flat, pins, groups, scale, 0)
            if s._spread(h) and (best is None or s.total < best.total):
                best = s
        return best

    def descend(self, iterations: int, wall_left: Callable[[], float]) -> int:
        """Best single-VM moves off overloaded hosts while one lowers the total overflow,
        at most ``iterations``; the number made."""
        for it in range(iterations):
            if self.total == 0 or wall_left() <= 0 or not self._best_move():
                return it
        return iterations

    def polish(self, swaps: int, wall_left: Callable[[], float]) -> bool:
        """Best swaps of two VMs, each followed by single moves, at most ``swaps``;
        True when the total overflow fell."""
        before = self.total
        for _ in range(swaps):
            if self.total == 0 or wall_left() <= 0 or not self._best_swap():
                break
            self.descend(DESCENT_AFTER, wall_left)
        return self.total < before

    def _best_move(self) -> bool:
        """The single move that lowers the total overflow most; False when none."""
        live = self.live
        loads = self.loads[live]
        over = host_overflow(loads, self.scale)
        best = (0, -1, -1, -1)
        for ia in np.flatnonzero(over > 0).tolist():
            a = int(live[ia])
            us = np.flatnonzero(self.assign == a)
            us = us[self.pins[us] < 0]
            du = self.q[us].astype(np.int64)  # (U, T, D)
            gain = over[ia] - host_overflow(loads[ia][None] - du, self.scale)  # (U,)
            rise = host_overflow(loads[None] + du[:, None], self.scale) - over[None]  # (U, H)
            net = rise - gain[:, None]
            net[:, ia] = np.iinfo(np.int64).max
            i, j = divmod(int(np.argmin(net)), net.shape[1])
            if net[i, j] < best[0] and self._allowed(int(us[i]), int(live[j])):
                best = (int(net[i, j]), int(us[i]), int(live[j]), -1)
        if best[1] < 0:
            return False
        _, v, to, _ = best
        frm = int(self.assign[v])
        self.loads[frm] -= self.q[v]
        self.loads[to] += self.q[v]
        self.assign[v] = to
        self.total = total_overflow(self.loads[self.live], self.scale)
        return True

    def _best_swap(self) -> bool:
        """The swap of two VMs (one on an overloaded host) that lowers the total
        overflow most, when no single move does; False when none."""
        live = self.live
        over = host_overflow(self.loads, self.scale)  # every host (rows off live stay 0)
        free = self.pins < 0
        on_live = np.isin(self.assign, live) & free
        best = (0, -1, -1)
        for a in live[over[live] > 0].tolist():
            us = np.flatnonzero((self.assign == a) & free)
            # Only a VM with load where a is over can lower a's overflow: the busiest there.
            hot = (self.loads[a] > self.scale)[None]
            at_hot = (self.q[us].astype(np.int64) * hot).sum(axis=(1, 2))
            top = np.argsort(-at_hot, kind="stable")[:SWAP_VMS]
            us = us[top][at_hot[top] > 0]
            bs = np.flatnonzero(on_live & (self.assign != a))
            if not us.size or not bs.size:
                continue
            gb = self.assign[bs]
            qb = self.q[bs].astype(np.int64)  # (B, T, D)
            rest_g = self.loads[gb] - qb  # the partner hosts without b
            base = over[a] + over[gb]
            for u in us.tolist():
                qu = self.q[u].astype(np.int64)
                after = host_overflow(self.loads[a] - qu + qb, self.scale) + host_overflow(
                    rest_g + qu, self.scale)
                net = after - base
                for i in np.argsort(net, kind="stable")[:4].tolist():
                    if net[i] >= best[0]:
                        break
                    b = int(bs[i])
                    if self._allowed(u, int(gb[i])) and self._allowed(b, a):
                        best = (int(net[i]), u, b)
                        break
        if best[1] < 0:
            return False
        _, u, b = best
        a, g = int(self.assign[u]), int(self.assign[b])
        self.loads[a] += self.q[b].astype(np.int64) - self.q[u]
        self.loads[g] += self.q[u].astype(np.int64) - self.q[b]
        self.assign[u], self.assign[b] = g, a
        self.total = total_overflow(self.loads[self.live], self.scale)
        return True

    def _allowed(self, v: int, to: int) -> bool:
        g = int(self.groups[v])
        if g < 0:
            return True
        others = (self.groups == g) & (np.arange(self.q.shape[0]) != v)
        return bool(to not in set(self.assign[others].tolist()))

    def _spread(self, h: int) -> bool:
        """Put every VM of ``h`` (largest peak first) where it adds the least overflow;
        False when an anti-affinity group leaves a VM no host."""
        vms = np.flatnonzero(self.assign == h)
        peak = self.q[vms].max(axis=(1, 2))
        for v in vms[np.argsort(-peak, kind="stable")].tolist():
            ok = self.live
            g = int(self.groups[v])
            if g >= 0:
                ok = ok[~np.isin(ok, self.assign[(self.groups == g)
                                                 & (np.arange(self.q.shape[0]) != v)])]
            if not ok.size:
                return False
            cur = self.loads[ok]
            cost = host_overflow(cur + self.q[v][None], self.scale) - host_overflow(
                cur, self.scale)
            to = int(ok[int(np.argmin(cost))])
            self.loads[h] -= self.q[v]
            self.loads[to] += self.q[v]
            self.assign[v] = to
        self.total = total_overflow(self.loads[self.live], self.scale)
        return True

    def run(
        self, cp_model: Any, rng: np.random.Generator, out: Reduced, work: float,
        wall_left: Callable[[], float],
    ) -> None:
        """Sub-problems until zero overflow, :data:`PATIENCE` without progress (then
        :meth:`polish`, and on while it helps), or the budget ends (then :meth:`polish`
        once: swaps are counted, not timed)."""
        idle = 0
        self.least = self.total
        self.weight = np.ones(self.loads.shape[:2], dtype=np.int64)
        polished = False
        while self.total > 0 and out.work < work and wall_left() > 0:
            if idle >= PATIENCE:  # stalled: swaps, then the sub-problems again if they help
                polished = True
                if not self.polish(SWAPS, wall_left):
                    break
                idle = 0
                self.least = min(self.least, self.total)
                continue
            chosen = self._neighbourhood(rng)
            out.rounds += 1
            before = self.total
            self._solve(cp_model, chosen, out, work, wall_left)
            if self.total < before:
                self.descend(DESCENT_AFTER, wall_left)
            else:  # breakout: the chosen hosts' steps still over weigh more
                sel = np.asarray(chosen, dtype=np.int64)
                self.weight[sel] += (self.loads[sel] > self.scale).any(axis=2)
            idle = 0 if self.total < before else idle + 1
            self.least = min(self.least, self.total)
        if self.total > 0 and not polished and wall_left() > 0:  # the budget ended first
            self.polish(SWAPS, wall_left)
            self.least = min(self.least, self.total)

    def breakout(
        self, compiled: Callable[..., Any], rng: np.random.Generator, out: Reduced,
        work: float, wall_left: Callable[[], float],
    ) -> None:
        """The compiled breakout search (:mod:`vsizer.placement._breakout`) on the live
        hosts until zero overflow or ``work`` seconds of its counted work (out.work),
        :data:`LOOK` seconds of its work between looks at the wall clock; the state becomes
        the least overflow seen."""
        slots = np.concatenate([self.q[:, :1, d] if self.flat[d] else self.q[:, :, d]
                                for d in range(self.q.shape[2])], axis=1).astype(np.int64)
        local = np.full(self.loads.shape[0], -1, dtype=np.int64)
        local[self.live] = np.arange(self.live.size)
        assign = local[self.assign]
        ids, group = np.unique(self.groups, return_inverse=True)
        group = np.where(self.groups >= 0, group - int((ids < 0).any()), -1).astype(np.int64)
        gcount = np.zeros((max(int(group.max(initial=-1)) + 1, 1), self.live.size), np.int64)
        np.add.at(gcount, (group[group >= 0], assign[group >= 0]), 1)
        loads = np.zeros((self.live.size, slots.shape[1]), dtype=np.int64)
        np.add.at(loads, assign, slots)
        stats = np.zeros(5, dtype=np.int64)
        stats[_breakout.LEAST] = total_overflow(loads[:, :, None], self.scale)
        weight = np.ones(loads.shape, dtype=np.int64)
        rand, best = rng.random(RANDOM_DRAWS), assign.copy()
        per_second = _breakout.EVALS_PER_SECOND
        while (stats[_breakout.LEAST] > 0 and out.work < work and wall_left() > 0
               and stats[_breakout.ITERATIONS] - stats[_breakout.LAST] < _breakout.STALL):
            limit = stats[_breakout.EVALS] + int(min(work - out.work, LOOK) * per_second) + 1
            evals, its = int(stats[_breakout.EVALS]), int(stats[_breakout.ITERATIONS])
            compiled(slots, assign, self.scale, self.pins < 0, group, gcount, weight, rand,
                     stats, best, _breakout.STALL, limit, _breakout.STALL)
            out.work += (int(stats[_breakout.EVALS]) - evals) / per_second
            out.rounds += int(stats[_breakout.ITERATIONS]) - its
        self.assign = self.live[best]
        self.loads = np.zeros_like(self.loads)
        np.add.at(self.loads, self.assign, self.q)
        self.total = total_overflow(self.loads[self.live], self.scale)
        self.least = self.total

    def _neighbourhood(self, rng: np.random.Generator) -> list[int]:
        """An overloaded host and partners with room where it is over (module docstring)."""
        over = host_overflow(self.loads[self.live], self.scale)
        cand = np.flatnonzero(over > 0)
        weight = over[cand].astype(np.float64)
        o = int(self.live[int(cand[int(rng.choice(cand.size, p=weight / weight.sum()))])])
        k = int(SIZES[int(rng.integers(len(SIZES)))])
        excess = np.clip(self.loads[o] - self.scale, 0, None)  # (T, D)
        others = self.live[self.live != o]
        room = np.clip(self.scale - self.loads[others], 0, None)  # (H', T, D)
        score = np.minimum(room, excess[None]).sum(axis=(1, 2))
        score = score - host_overflow(self.loads[others], self.scale)
        top = np.argsort(-score, kind="stable")[: k - 1 + SPREAD]
        pick = rng.choice(top.size, size=min(k - 1, top.size), replace=False)
        return [o] + sorted(int(others[top[i]]) for i in pick)

    def _free(self, chosen: list[int]) -> npt.NDArray[np.int64]:
        """The VMs of ``chosen`` that may move: on each host the :data:`FREE_PER_HOST`
        busiest where the chosen hosts are over (unpinned)."""
        excess = np.clip(self.loads[chosen] - self.scale, 0, None).sum(axis=0)  # (T, D)
        parts = []
        for h in chosen:
            vh = np.flatnonzero((self.assign == h) & (self.pins < 0))
            score = (self.q[vh].astype(np.int64) * (excess[None] > 0)).sum(axis=(1, 2))
            score = score * self.scale + self.q[vh].sum(axis=(1, 2), dtype=np.int64)
            parts.append(vh[np.argsort(-score, kind="stable")[:FREE_PER_HOST]])
        return np.sort(np.concatenate(parts))

    def _solve(
        self, cp_model: Any, chosen: list[int], out: Reduced, work: float,
        wall_left: Callable[[], float],
    ) -> None:
        """Re-place the freed VMs of ``chosen`` for the least overflow; the move is kept
        when the chosen hosts' overflow on every step does not grow."""
        vms = self._free(chosen)
        q = self.q[vms]
        pos = {h: j for j, h in enumerate(chosen)}
        local0 = np.array([pos[int(h)] for h in self.assign[vms].tolist()], dtype=np.int64)
        room = np.full((len(chosen),) + q.shape[1:], self.scale, dtype=np.int64)
        room -= self.loads[chosen]
        np.add.at(room, local0, q)
        w = self.weight[chosen]
        before = _weighted(self.loads[chosen] - self.scale, w)
        left = wall_left()
        if left <= 0 or out.work >= work:
            return
        sub = _SoftModel.build(cp_model, q, room, self.flat, self.groups[vms], local0, w,
                               scale=self.scale)
        sub.forbid(_forbidden(self.groups, self.assign, vms, chosen))
        local = sub.solve(cp_model, min(SUB_WORK, work - out.work), left, out)
        if local is None or np.array_equal(local, local0):
            return
        loads = self.scale - room
        np.add.at(loads, local, q)
        if _weighted(loads - self.scale, w) <= before:
            self.assign[vms] = np.asarray(chosen, dtype=np.int64)[local]
            self.loads[chosen] = loads
            self.total = total_overflow(self.loads[self.live], self.scale)


def _weighted(excess: npt.NDArray[np.int64], weight: npt.NDArray[np.int64]) -> int:
    """Sum of ``max(excess, 0)`` (k, T, D) weighted per host and step (k, T)."""
    return int((np.clip(excess, 0, None) * weight[:, :, None]).sum())


@dataclass
class _SoftModel:
    """The sub-problem with soft capacity rows ``sum q x - o <= room`` on every step
    where the freed VMs could exceed a host's room; minimize ``sum o``."""

    bm: BinModel

    @classmethod
    def build(
        cls, cp_model: Any, q: npt.NDArray[np.int32], room: npt.NDArray[np.int64],
        flat: npt.NDArray[np.bool_], groups: npt.NDArray[np.int64],
        local0: npt.NDArray[np.int64], weight: npt.NDArray[np.int64], *, scale: int,
    ) -> _SoftModel:
        k = room.shape[0]
        no_pin = np.full(q.shape[0], -1, dtype=np.int64)
        bm = BinModel.build(cp_model, q, [], flat, k, scale=scale, groups=groups, pins=no_pin)
        bm.hint(local0)
        proto = bm.model.proto
        loads0 = np.zeros(room.shape, dtype=np.int64)
        np.add.at(loads0, local0, q)
        total = q.sum(axis=0, dtype=np.int64)  # (T, D)
        for d in range(q.shape[2]):
            steps = np.flatnonzero((total[None, :, d] > room[:, :, d]).any(axis=0))
            for s in (steps[:1] if flat[d] else steps).tolist():
                col = q[:, s, d].astype(np.int64)
                nz = np.flatnonzero(col)
                for j in range(k):
                    cap = int(room[j, s, d])
                    if int(col.sum()) <= cap:
                        continue
                    o = len(proto.variables)
                    top = int(col.sum()) - cap
                    proto.variables.add().domain.extend([0, top])
                    ct = proto.constraints.add().linear
                    ct.vars.extend(bm.x[nz, j].tolist() + [o])
                    ct.coeffs.extend(col[nz].tolist() + [-1])
                    ct.domain.extend([-top, cap])
                    proto.objective.vars.append(o)
                    proto.objective.coeffs.append(int(weight[j, s]))
                    proto.solution_hint.vars.append(o)
                    proto.solution_hint.values.append(max(int(loads0[j, s, d]) - cap, 0))
        return cls(bm)

    def forbid(self, no: npt.NDArray[np.bool_]) -> None:
        """x[v, j] = 0 where ``no[v, j]`` (a VM of v's anti-affinity group stays on j)."""
        for i, j in zip(*np.nonzero(no), strict=True):
            self.bm.model.proto.variables[int(self.bm.x[i, j])].domain[1] = 0

    def solve(
        self, cp_model: Any, work: float, left: float, out: Reduced
    ) -> npt.NDArray[np.int64] | None:
        """One CP-SAT solve (one worker, fixed seed, deterministic time); the VMs' host
        positions, or None."""
        cp = cp_model.CpSolver()
        cp.parameters.num_workers = 1
        cp.parameters.random_seed = 0
        cp.parameters.cp_model_presolve = False
        cp.parameters.max_deterministic_time = max(work, 0.01)
        cp.parameters.max_time_in_seconds = max(left, 0.01)
        result = cp.solve(self.bm.model)
        out.solves += 1
        out.work += cp.deterministic_time
        if result not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            return None
        return self.bm.assignment(cp)
