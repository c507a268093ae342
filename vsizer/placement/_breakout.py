"""Breakout local search for the overflow at a fixed host count, compiled with numba
(``pip install vsizer[solver]`` or ``vsizer[fast]``).

:mod:`vsizer.placement.lns_overflow` removes a host from a feasible placement and
spreads its VMs on the others, regardless of the limit; this search then drives the
*overflow* (load above the usable load, summed over hosts and slots) to zero. A slot is
a step of a dimension that varies over time, or one value of a flat dimension.

Each iteration takes an overloaded host ``a`` (drawn with probability proportional to
its overflow, from a random stream given by the caller), and as *candidates* the
``candidates`` other hosts with the least load at ``a``'s slots over (a granular
neighbourhood: P. Toth and D. Vigo, "The granular tabu search and its application to
the vehicle-routing problem," INFORMS J. Computing 15(4), 2003; the hosts with no room
where ``a`` needs it are not scored), and makes the best of:

* a *move*: one VM of ``a`` with load where ``a`` is over, to a candidate host;
* a *swap* (only when no move lowers the objective): one of the :data:`SWAP_VMS`
  VMs of ``a`` busiest at its slots over, exchanged with any VM of a candidate host.
  A swap escapes where no single move helps (11 on a host of 10 from 6 + 5, a host of
  8 from 4 + 4: swap the 6 and a 4).

Both are scored exactly on every slot, as the change of the *weighted* overflow
``sum_h sum_s w[h, s] max(0, load[h, s] - cap)``. When neither lowers it, the
weight of every host-slot still over grows by one and nothing moves: the breakout
method (P. Morris, "The breakout method for escaping from local minima", AAAI 1993),
as in guided local search. A host that stays over at the same slots becomes
expensive there, and the search moves its load to where other hosts have room.
Every :data:`SMOOTH` local minima the weights are halved towards one, as additive
clause-weighting SAT searches periodically decrease theirs (J. Thornton, D. N. Pham,
S. Bain, V. Ferreira Jr., "Additive versus multiplicative clause weighting for SAT",
AAAI 2004; F. Hutter, D. A. D. Tompkins, H. H. Hoos, "Scaling and probabilistic
smoothing", CP 2002): weights piled up at old minima stop steering the search, and on
PlanetLab 2011-03-09 zero overflow came after 18,157 iterations instead of not within
100,000.
:mod:`vsizer.placement.repair` does the same with single moves only. Swaps are what
made the difference here: measured on PlanetLab days with 1,000 MHz VMs on hosts of
8 x 1,000 MHz (``benchmarks/bench_lns.py``), moves only left 7,730 MHz x steps on
2011-03-09 after 10,000 iterations, moves and swaps 240.

A move's change only grows slot by slot (every term is at least zero), so its scoring
stops, :data:`CHUNK` slots at a time, once it cannot beat the best move so far: the
same choice, and the work counted stays that of scoring every slot.

Candidate swaps are pruned exactly: the weighted change at ``a``'s slots over, less
the partner host's whole weighted overflow, is a lower bound of the change, and a
pair whose bound cannot beat the best so far is not scored on every slot.

Everything is integer arithmetic and the first best wins ties (lowest VM, then host
index), so the compiled function and its Python twin (run uncompiled in the tests)
make the same choices. The work done is counted in *slot evaluations* (one slot of
one host scored for one candidate): a deterministic budget, like CP-SAT's
deterministic time; :data:`EVALS_PER_SECOND` converts it to seconds on the machine
it was measured on.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from vsizer.placement._numba import compile_in

__all__ = ["CANDIDATES", "EVALS_PER_SECOND", "SMOOTH", "STALL", "SWAP_VMS", "available", "get", "run"]

#: VMs of the chosen overloaded host tried in swaps: the busiest at its slots over.
SWAP_VMS = 16
#: Hosts scored as the destination of a move or the partner of a swap: those with the
#: least load at the overloaded host's slots over. Measured on PlanetLab 2011-03-03 in
#: the CloudSim setting (1,052 VMs, from first-fit decreasing's largest-first spread
#: at 44 hosts): every host (43) did not reach zero overflow in 60 CPU s (0.0009 of a
#: host-step left); 24 reached it in 34.9 s, 16 in 21.9 s, 8 in 21.6 s; 4 did not in
#: 60 s. Each iteration costs some (hosts / candidates) times less.
CANDIDATES = 16
#: Slots a move is scored on between checks that it can still beat the best move (its
#: change only grows slot by slot: the rest is skipped, the choice is the same).
CHUNK = 32
#: Slot evaluations per second of work (measured on PlanetLab 2011-04-12 and 2011-03-09
#: with ``benchmarks/bench_lns.py``, 2-core Debian 12 VM).
EVALS_PER_SECOND = 2.0e9
#: Iterations in a row that lower the least overflow seen by nothing before the search
#: gives a host count up (on 2011-03-03, smoothing every 20, the least overflow at 18
#: hosts fell after a gap of 122,000 iterations; without smoothing, 2011-03-09 fell
#: after gaps of up to 40,000).
STALL = 50_000
#: Every this many local minima, every weight w becomes 1 + (w - 1) // 2 (smoothing).
#: Measured from the same start as the plan's (benchmarks/bench_lns.py's coarse
#: setting): iterations to zero overflow at one host fewer on 2011-04-12 / 03-06 /
#: 04-03 / 03-09, then the overflow left on 2011-03-03 after 60,000 [MHz x steps].
#: Without smoothing, 2011-03-09 still had 430 left after 100,000 iterations. Every
#: 1,000: 600 / 4,075 / 5,094 / 19,837, 8,330. Every 200: 600 / 2,657 / 3,776 / 24,110,
#: 7,240. Every 50: 509 / 3,078 / 3,213 / 9,517, 7,240. Every 20: 683 / 1,946 / 1,978 /
#: 18,157, 3,840. Every 10: 2011-04-12 and 04-03 stay 10 MHz x steps short after 100,000.
SMOOTH = 20

#: Fields of the ``stats`` array: iterations made, least total overflow seen, slot
#: evaluations, weight increases (local minima), the iteration that last lowered the
#: least overflow.
ITERATIONS, LEAST, EVALS, BUMPS, LAST = 0, 1, 2, 3, 4

_COMPILED: Callable[..., Any] | None = None
_TRIED = False


def run(
    q: np.ndarray, assign: np.ndarray, cap: int, movable: np.ndarray, group: np.ndarray,
    gcount: np.ndarray, weight: np.ndarray, rand: np.ndarray, stats: np.ndarray,
    best: np.ndarray, iters: int, max_evals: int, stall: int,
    candidates: int = CANDIDATES, smooth: int = SMOOTH,
) -> None:  # pragma: no cover - run compiled (its Python twin is tested too)
    """At most ``iters`` iterations, or until ``stats[EVALS]`` reaches ``max_evals``,
    the overflow is zero, or ``stall`` iterations in a row lower the least overflow
    seen by nothing; every array is updated in place, so a call goes on where the last
    stopped.

    ``q`` (V, S) int64 demand per slot; ``assign`` (V,) host of each VM in
    0..H-1 (the current state); ``cap`` the usable load per slot; ``movable`` (V,);
    ``group`` (V,) anti-affinity group in 0..G-1 or -1; ``gcount`` (G, H) VMs of each
    group per host; ``weight`` (H, S) breakout weights (start at 1); ``rand`` uniform
    draws in [0, 1), used cyclically by iteration; ``stats`` (5,) int64 (see
    :data:`ITERATIONS`; ``stats[LEAST]`` starts at the overflow of ``assign``);
    ``best`` (V,) receives the placement of the least overflow seen; ``candidates``
    hosts are scored per iteration (every other host when it is at least H - 1)."""
    n_hosts = weight.shape[0]
    n_vms, n_slots = q.shape
    loads = np.zeros((n_hosts, n_slots), dtype=np.int64)
    for v in range(n_vms):
        loads[assign[v]] += q[v]
    over = np.zeros(n_hosts, dtype=np.int64)
    total = 0
    for h in range(n_hosts):
        over[h] = _host_over(loads[h], cap)
        total += over[h]
    members = np.empty(n_vms, dtype=np.int64)
    partners = np.empty(n_vms, dtype=np.int64)
    cand = np.empty(n_hosts, dtype=np.int64)
    is_cand = np.zeros(n_hosts, dtype=np.bool_)
    end = stats[ITERATIONS] + iters
    while (stats[ITERATIONS] < end and stats[EVALS] < max_evals and total > 0
           and stats[ITERATIONS] - stats[LAST] < stall):
        stats[ITERATIONS] += 1
        a = _pick_host(over, total, rand[stats[ITERATIONS] % rand.shape[0]])
        nc = _candidates(loads, a, cap, cand, is_cand, candidates, stats)
        n = 0
        m = 0
        for v in range(n_vms):
            if movable[v]:
                if assign[v] == a:
                    members[n] = v
                    n += 1
                elif is_cand[assign[v]]:
                    partners[m] = v
                    m += 1
        bd, bv, bb = _best_move(q, loads, weight, group, gcount, members, n, a, cap,
                                cand[:nc])
        stats[EVALS] += n * nc * n_slots + n_vms
        bw = -1
        if bd >= 0:
            bd, bv, bb, bw = _best_swap(q, loads, weight, over, assign, group, gcount,
                                        members, n, partners[:m], a, cap, stats)
        bc = -1
        if bd >= 0:
            bv, bb, bw, bc = _eject(q, loads, over, assign, movable, group, gcount,
                                    members, n, a, cap, cand[:nc], stats)
            bd = -1 if bc >= 0 else 0
        if bd >= 0:  # a local minimum: the steps still over weigh more
            _bump(loads, over, weight, cap, stats, smooth)
            continue
        _move(q, loads, assign, group, gcount, bv, a, bb)
        if bc >= 0:  # an ejection: w goes on to c
            _move(q, loads, assign, group, gcount, bw, bb, bc)
        elif bw >= 0:  # a swap: w comes to a
            _move(q, loads, assign, group, gcount, bw, bb, a)
        total += _recount(loads, over, cap, a, bb, bc)
        if total < stats[LEAST]:
            stats[LEAST], stats[LAST] = total, stats[ITERATIONS]
            best[:] = assign


def _bump(
    loads: np.ndarray, over: np.ndarray, weight: np.ndarray, cap: int, stats: np.ndarray,
    smooth: int,
) -> None:  # pragma: no cover - compiled
    """A local minimum: every host-slot over weighs one more; every ``smooth``
    minima the weights are halved towards one (old minima forgotten, order kept)."""
    n_hosts, n_slots = loads.shape
    stats[BUMPS] += 1
    for h in range(n_hosts):
        if over[h] > 0:
            for s in range(n_slots):
                if loads[h, s] > cap:
                    weight[h, s] += 1
    if stats[BUMPS] % smooth == 0:
        for h in range(n_hosts):
            for s in range(n_slots):
                weight[h, s] = 1 + (weight[h, s] - 1) // 2


def _recount(
    loads: np.ndarray, over: np.ndarray, cap: int, a: int, b: int, c: int,
) -> int:  # pragma: no cover - compiled
    """Update the overflow of hosts ``a``, ``b`` and ``c`` (-1: none) after a change;
    returns the change of the total."""
    change = 0
    for h in (a, b, c):
        if h >= 0:
            o = _host_over(loads[h], cap)
            change += o - over[h]
            over[h] = o
    return change


def _host_over(row: np.ndarray, cap: int) -> int:  # pragma: no cover - compiled
    """Load above ``cap`` summed over the slots of one host."""
    o = 0
    for s in range(row.shape[0]):
        if row[s] > cap:
            o += row[s] - cap
    return o


def _pick_host(over: np.ndarray, total: int, r: float) -> int:  # pragma: no cover
    """The overloaded host at the cumulative share ``r`` of the total overflow."""
    x = r * total
    acc = 0
    a = -1
    for h in range(over.shape[0]):
        if over[h] > 0:
            acc += over[h]
            a = h
            if acc > x:
                break
    return a


def _candidates(
    loads: np.ndarray, a: int, cap: int, cand: np.ndarray, is_cand: np.ndarray,
    k: int, stats: np.ndarray,
) -> int:  # pragma: no cover - compiled
    """Fill ``cand[:n]`` with the ``k`` hosts other than ``a`` with the least load
    summed over ``a``'s slots over (lowest index on ties; every other host when
    ``k`` >= H - 1) and mark them in ``is_cand``; returns n."""
    n_hosts, n_slots = loads.shape
    score = np.zeros(n_hosts, dtype=np.int64)
    for s in range(n_slots):
        if loads[a, s] > cap:
            for h in range(n_hosts):
                score[h] += loads[h, s]
            stats[EVALS] += n_hosts
    score[a] = np.iinfo(np.int64).max
    order = np.argsort(score, kind="mergesort")
    n = min(k, n_hosts - 1)
    is_cand[:] = False
    for i in range(n):
        cand[i] = order[i]
        is_cand[order[i]] = True
    if n == n_hosts - 1:  # every host: scored in index order, as without candidates
        cand[:n] = np.sort(cand[:n])
    return n


def _best_move(
    q: np.ndarray, loads: np.ndarray, weight: np.ndarray, group: np.ndarray,
    gcount: np.ndarray, members: np.ndarray, n: int, a: int, cap: int,
    cand: np.ndarray,
) -> tuple[int, int, int]:  # pragma: no cover - compiled
    """The move off ``a`` to a host of ``cand`` that lowers the weighted overflow
    most: (change, VM, host); change >= 0 when none lowers it."""
    bd, bv, bb = 0, -1, -1
    n_slots = q.shape[1]
    for i in range(n):
        v = members[i]
        gain = 0
        for s in range(q.shape[1]):
            y = loads[a, s] - cap
            if y > 0:
                x = y - q[v, s]
                gain += weight[a, s] * (y - (x if x > 0 else 0))
        if gain <= 0:
            continue
        g = group[v]
        for b in cand:
            if g >= 0 and gcount[g, b] > 0:
                continue
            d = -gain
            s0 = 0
            while s0 < n_slots and d < bd:  # each term is >= 0: stop once d >= bd
                s1 = min(s0 + CHUNK, n_slots)
                for s in range(s0, s1):  # branch-free, so that it vectorizes
                    y = loads[b, s] - cap
                    d += weight[b, s] * (max(y + q[v, s], 0) - max(y, 0))
                s0 = s1
            if d < bd:
                bd, bv, bb = d, v, b
    return bd, bv, bb


def _busiest(
    q: np.ndarray, members: np.ndarray, n: int, hot: np.ndarray, nh: int,
) -> np.ndarray:  # pragma: no cover - compiled
    """The :data:`SWAP_VMS` VMs of ``members[:n]`` with the most load at ``a``'s slots
    over (``hot[:nh]``), busiest first, ties to the lower position; none without load
    there."""
    score = np.zeros(n, dtype=np.int64)
    for i in range(n):
        for j in range(nh):
            score[i] += q[members[i], hot[j]]
    k = min(SWAP_VMS, n)
    out = np.empty(k, dtype=np.int64)
    m = 0
    for _ in range(k):
        top = -1
        for i in range(n):
            if score[i] > 0 and (top < 0 or score[i] > score[top]):
                top = i
        if top < 0:
            break
        out[m] = members[top]
        m += 1
        score[top] = 0
    return out[:m]


def _best_swap(
    q: np.ndarray, loads: np.ndarray, weight: np.ndarray, over: np.ndarray,
    assign: np.ndarray, group: np.ndarray, gcount: np.ndarray, members: np.ndarray,
    n: int, partners: np.ndarray, a: int, cap: int, stats: np.ndarray,
) -> tuple[int, int, int, int]:  # pragma: no cover - compiled
    """The swap of a busy VM of ``a`` with a VM of ``partners`` (the movable VMs of
    the candidate hosts, in index order) that lowers the weighted overflow most:
    (change, VM of a, its new host, VM coming to a)."""
    n_hosts, n_slots = loads.shape
    hot = np.empty(n_slots, dtype=np.int64)
    nh = 0
    for s in range(n_slots):
        if loads[a, s] > cap:
            hot[nh] = s
            nh += 1
    wover = np.zeros(n_hosts, dtype=np.int64)
    stats[EVALS] += n_slots
    for h in range(n_hosts):
        if over[h] > 0:
            stats[EVALS] += n_slots
            for s in range(n_slots):
                if loads[h, s] > cap:
                    wover[h] += weight[h, s] * (loads[h, s] - cap)
    bd, bv, bb, bw = 0, -1, -1, -1
    for v in _busiest(q, members, n, hot, nh):
        gv = group[v]
        for w in partners:
            b = assign[w]
            gw = group[w]
            if (gv >= 0 and gv != gw and gcount[gv, b] > 0) or (
                    gw >= 0 and gw != gv and gcount[gw, a] > 0):
                continue
            hot_change = 0  # a's slots over exactly
            for j in range(nh):
                s = hot[j]
                x = loads[a, s] - cap + q[w, s] - q[v, s]
                hot_change += weight[a, s] * (max(x, 0) - (loads[a, s] - cap))
            stats[EVALS] += nh + 1
            if hot_change - wover[b] >= bd:  # b at its best
                continue
            if wover[b] == 0:  # the rest only adds: scored while it can beat bd
                d = _swap_rest(q, loads, weight, a, b, v, w, cap, hot_change, bd, stats)
            else:
                stats[EVALS] += n_slots
                d = _swap_change(q, loads, weight, a, b, v, w, cap)
            if d < bd:
                bd, bv, bb, bw = d, v, b, w
    return bd, bv, bb, bw


def _swap_rest(
    q: np.ndarray, loads: np.ndarray, weight: np.ndarray, a: int, b: int, v: int, w: int,
    cap: int, hot_change: int, bd: int, stats: np.ndarray,
) -> int:  # pragma: no cover - compiled
    """The swap's change when ``b`` is nowhere over: ``hot_change`` (``a``'s slots over)
    plus terms that are all >= 0 (``a``'s other slots, every slot of ``b``), added
    :data:`CHUNK` slots at a time while the sum is below ``bd``; exact when below it."""
    n_slots = q.shape[1]
    d = hot_change
    s0 = 0
    while s0 < n_slots and d < bd:
        s1 = min(s0 + CHUNK, n_slots)
        for s in range(s0, s1):  # branch-free, so that it vectorizes
            dq = q[w, s] - q[v, s]
            ya = loads[a, s] - cap
            yb = loads[b, s] - cap
            d += weight[a, s] * max(ya + dq, 0) * (ya <= 0) + weight[b, s] * max(yb - dq, 0)
        s0 = s1
    stats[EVALS] += s0
    return d


def _swap_change(
    q: np.ndarray, loads: np.ndarray, weight: np.ndarray, a: int, b: int, v: int, w: int,
    cap: int,
) -> int:  # pragma: no cover - compiled
    """Change of the weighted overflow of ``a`` and ``b`` when ``v`` (on a) and ``w``
    (on b) trade places."""
    d = 0
    for s in range(q.shape[1]):  # branch-free, so that it vectorizes
        dq = q[w, s] - q[v, s]
        ya = loads[a, s] - cap
        yb = loads[b, s] - cap
        d += weight[a, s] * (max(ya + dq, 0) - max(ya, 0))
        d += weight[b, s] * (max(yb - dq, 0) - max(yb, 0))
    return d


def _eject(
    q: np.ndarray, loads: np.ndarray, over: np.ndarray, assign: np.ndarray,
    movable: np.ndarray, group: np.ndarray, gcount: np.ndarray, members: np.ndarray,
    n: int, a: int, cap: int, cand: np.ndarray, stats: np.ndarray,
) -> tuple[int, int, int, int]:  # pragma: no cover - compiled
    """The first ejection chain off ``a`` that lowers the overflow without weights:
    a VM ``v`` of ``a`` with load at a slot where ``a`` is over moves to a candidate
    host ``b`` with no overflow, and a VM ``w`` of ``b`` whose load covers what ``v``
    takes ``b`` over moves to a host ``c`` (neither ``a`` nor ``b``) where it fits
    whole: ``a`` is less over, ``b`` and ``c`` stay within ``cap``. Returns
    (v, b, w, c), or -1s when there is none. A near-zero overflow that the weights
    cannot shift (a move adds more to its host than it takes off ``a``) ends this way."""
    n_hosts, n_slots = loads.shape
    n_vms = q.shape[0]
    first = np.zeros(n_hosts + 1, dtype=np.int64)  # VMs by host (counting sort)
    for w in range(n_vms):
        first[assign[w] + 1] += 1
    for h in range(n_hosts):
        first[h + 1] += first[h]
    on = np.empty(n_vms, dtype=np.int64)
    fill = first[:n_hosts].copy()
    for w in range(n_vms):
        on[fill[assign[w]]] = w
        fill[assign[w]] += 1
    stats[EVALS] += n_vms
    ex = np.empty(n_slots, dtype=np.int64)
    hot = np.empty(n_slots, dtype=np.int64)
    for i in range(n):
        v = members[i]
        useful = False
        for s in range(n_slots):
            if loads[a, s] > cap and q[v, s] > 0:
                useful = True
                break
        if not useful:
            continue
        g = group[v]
        for b in cand:
            if over[b] > 0 or (g >= 0 and gcount[g, b] > 0):
                continue
            nx = 0
            for s in range(n_slots):
                e = loads[b, s] + q[v, s] - cap
                if e > 0:
                    ex[nx] = e
                    hot[nx] = s
                    nx += 1
            stats[EVALS] += n_slots
            if nx == 0:
                continue
            for k in range(first[b], first[b + 1]):
                w = on[k]
                if not movable[w]:
                    continue
                j = 0
                while j < nx and q[w, hot[j]] >= ex[j]:
                    j += 1
                stats[EVALS] += j + 1
                if j < nx:
                    continue
                c = _fits_whole(q, loads, over, group, gcount, w, a, b, cap, stats)
                if c >= 0:
                    return v, b, w, c
    return -1, -1, -1, -1


def _fits_whole(
    q: np.ndarray, loads: np.ndarray, over: np.ndarray, group: np.ndarray,
    gcount: np.ndarray, w: int, a: int, b: int, cap: int, stats: np.ndarray,
) -> int:  # pragma: no cover - compiled
    """The first host other than ``a`` and ``b``, not over, where ``w`` fits at every
    slot; -1 when none."""
    gw = group[w]
    for c in range(loads.shape[0]):
        if c in (a, b) or over[c] > 0 or (gw >= 0 and gcount[gw, c] > 0):
            continue
        s = 0
        while s < loads.shape[1] and loads[c, s] + q[w, s] <= cap:
            s += 1
        stats[EVALS] += s + 1
        if s == loads.shape[1]:
            return c
    return -1


def _move(
    q: np.ndarray, loads: np.ndarray, assign: np.ndarray, group: np.ndarray,
    gcount: np.ndarray, v: int, a: int, b: int,
) -> None:  # pragma: no cover - compiled
    """Move ``v`` from host ``a`` to host ``b``."""
    loads[a] -= q[v]
    loads[b] += q[v]
    assign[v] = b
    if group[v] >= 0:
        gcount[group[v], a] -= 1
        gcount[group[v], b] += 1


def get() -> Callable[..., Any] | None:
    """The compiled :func:`run`, or None without numba (compiled on first use)."""
    global _COMPILED, _TRIED
    if not _TRIED:
        _TRIED = True
        if compile_in(globals(), ("_bump", "_recount", "_host_over", "_pick_host", "_candidates", "_best_move",
                                  "_busiest", "_best_swap", "_swap_rest", "_swap_change", "_eject",
                                  "_fits_whole", "_move",
                                  "run")):
            _COMPILED = run
    return _COMPILED


def available() -> bool:
    """Whether numba is installed (the compiled search can be used)."""
    return get() is not None
