"""The greedy placement kernel compiled with numba (optional: ``pip install vsizer[fast]``).

:func:`vsizer.placement.heuristics.greedy_assign` places VMs one by one, each
on the accepting host whose key (highest normalized load after placement) is
lowest (``balanced``) or highest (``best_fit``), ties to the lowest host
index. Its numpy paths pay a few numpy calls per VM (about 37 µs each at
fleet scale). :func:`assign` is the same loop compiled: one pass over the
VMs, a plain scan of the hosts per VM, and the same float arithmetic as the
numpy plain scan (step = demand x inv, key = max over dimensions of
norm + step, loads summed per host in placement order; no fastmath), so it
makes exactly the same choices and leaves bit-for-bit the same loads.

Without numba the module still imports: :func:`get` returns None and the
numpy paths run unchanged. A small plan does not load numba at all
(:func:`for_pass`, :data:`NUMPY_BUDGET_US`). Compiled functions are cached on disk
(``cache=True``): the JIT compile (a few seconds) is paid once per machine.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from vsizer.placement._numba import compile_in
from vsizer.placement.problem import EPS

__all__ = ["BLOCK", "SUPER", "assign", "available", "get", "survives_one"]

#: Hosts per block of the compiled kernel (measured: fastest at fleet scale).
BLOCK = 16

#: Blocks per super-block: the bounds of a super-block (its blocks' bounds
#: merged) let a VM skip 16 blocks at once (issue 25: a pool of 200,000 VMs on
#: 12,900 hosts placed 1.7x faster than with blocks alone). 0: one level.
SUPER = 16

#: A small plan is placed by numpy's kernels and never loads numba (issue 25: a
#: fixed start under one second): importing numba (with the scipy.linalg it
#: loads) and the compiled kernel's cache costs about 0.6 CPU s, numpy about
#: 15 µs per VM placed plus 1 µs per 32 hosts scanned (measured: 15 µs a VM on
#: 20 hosts, 41 µs on 1,000; docs/performance.md). The passes of a process go to numpy until
#: their estimated cost (:func:`numpy_cost`), added up, would pass this
#: budget (half the load); from then on, and for any pass once the kernel is
#: loaded, the compiled kernel runs. Both make the same choices and the same
#: loads bit for bit, so the budget decides the time, never the result.
NUMPY_BUDGET_US = 300_000

#: Estimated cost of one N+1 scenario besides its VMs (:func:`numpy_cost`).
SCENARIO_US = 60

_COMPILED: Callable[..., Any] | None = None
_TRIED = False
_SPENT_US = 0


def assign(
    order: np.ndarray,
    demand: np.ndarray,
    loads: np.ndarray,
    norm: np.ndarray,
    inv: np.ndarray,
    groups: np.ndarray,
    gstart: np.ndarray,
    gcount: np.ndarray,
    ghosts: np.ndarray,
    allowed: np.ndarray,
    pins: np.ndarray,
    balanced: bool,
    stop_at_unplaced: bool,
    block: int,
    sup: int = 0,
) -> np.ndarray:  # pragma: no cover - run compiled (its Python twin is tested too)
    """Host per VM of ``order`` (-1: none accepts it); updates ``loads``,
    ``norm`` and the hosts of each anti-affinity group (``gstart``, ``gcount``,
    ``ghosts``: the arrays of a :class:`~vsizer.placement.occupancy.GroupHosts`)
    in place. ``pins``: pinned host per VM, -1 free, or
    empty: none (a pin beyond the hosts accepts nothing). ``norm`` = loads x inv.

    ``block`` > 0: hosts in blocks of that many, with per-block bounds on
    the normalized loads (see :mod:`vsizer.placement.blocked`); a block is
    scanned only when its bound can beat or tie the best host found so far.
    0: every host is scanned. Both give the same host. ``sup`` > 0 (with
    blocks): blocks in super-blocks of that many, bounded alike (the same host
    again: every bound is a true bound of the keys below it)."""
    if block > 0 and not _exact_bounds(order, demand, norm, inv, allowed):
        block = 0
    size, lo, hi, low, high, ssize, slo, shi, slow, shigh = _tree(norm, allowed, block, sup)
    banned = np.zeros(norm.shape[0], dtype=np.bool_)
    return _assign_in(order, demand, loads, norm, inv, groups, gstart, gcount, ghosts,
                      banned, allowed, pins, balanced, stop_at_unplaced, block, size, lo,
                      hi, low, high, ssize, slo, shi, slow, shigh)


def _tree(
    norm: np.ndarray, allowed: np.ndarray, block: int, sup: int
) -> tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray, int, np.ndarray,
           np.ndarray, np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """Block size, block bounds (``lo``, ``hi``, scratch ``low``, ``high``),
    super-block size and super-block bounds of :func:`assign`."""
    n_hosts, n_dims = norm.shape
    size = block if block > 0 else max(n_hosts, 1)
    n_blocks = (n_hosts + size - 1) // size
    lo = np.full((n_blocks, n_dims), np.inf)
    hi = np.full((n_blocks, n_dims), -np.inf)
    for b in range(n_blocks):
        _bounds(b, size, norm, allowed, lo, hi)
    ssize = sup if block > 0 and sup > 0 else max(n_blocks, 1)
    n_super = (n_blocks + ssize - 1) // ssize
    slo = np.full((n_super, n_dims), np.inf)
    shi = np.full((n_super, n_dims), -np.inf)
    for s in range(n_super):
        _merge(s, ssize, lo, hi, slo, shi)
    return (size, lo, hi, np.empty(n_blocks), np.empty(n_blocks), ssize, slo, shi,
            np.empty(n_super), np.empty(n_super))


def _rebound(
    h: int, size: int, ssize: int, norm: np.ndarray, allowed: np.ndarray,
    lo: np.ndarray, hi: np.ndarray, slo: np.ndarray, shi: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """The bounds of host ``h``'s block and super-block, after ``h`` changed."""
    _bounds(h // size, size, norm, allowed, lo, hi)
    _merge(h // size // ssize, ssize, lo, hi, slo, shi)


def _assign_in(
    order: np.ndarray, demand: np.ndarray, loads: np.ndarray, norm: np.ndarray,
    inv: np.ndarray, groups: np.ndarray, gstart: np.ndarray, gcount: np.ndarray,
    ghosts: np.ndarray, banned: np.ndarray, allowed: np.ndarray,
    pins: np.ndarray, balanced: bool, stop_at_unplaced: bool, block: int, size: int,
    lo: np.ndarray, hi: np.ndarray, low: np.ndarray, high: np.ndarray, ssize: int,
    slo: np.ndarray, shi: np.ndarray, slow: np.ndarray, shigh: np.ndarray,
) -> np.ndarray:  # pragma: no cover - compiled
    """:func:`assign` with its bounds made (:func:`_tree`); keeps them up to date.
    ``banned``: all False, a scratch of one flag per host (the hosts holding the
    placed VM's group are flagged during its scan, then cleared)."""
    n_hosts, n_dims = norm.shape
    n = order.shape[0]
    out = np.full(n, -1, dtype=np.int64)
    limit = 1.0 + EPS
    step = np.empty(n_dims)
    for i in range(n):
        v = order[i]
        for d in range(n_dims):
            step[d] = demand[v, d] * inv[d]
        g = groups[v]
        if g >= 0:
            _ban(gstart, gcount, ghosts, g, banned, True)
        pin = pins[v] if pins.shape[0] > 0 else -1
        if pin >= 0:
            best = -1
            if pin < n_hosts:
                best, _ = _scan(pin, pin + 1, norm, step, allowed, banned,
                                balanced, -1, 0.0, limit)
        elif block > 0:
            best = _pick_super(norm, step, allowed, banned, balanced, limit,
                               size, lo, hi, low, high, ssize, slo, shi, slow, shigh)
        else:
            best, _ = _scan(0, n_hosts, norm, step, allowed, banned, balanced,
                            -1, 0.0, limit)
        if g >= 0:
            _ban(gstart, gcount, ghosts, g, banned, False)
        if best < 0:
            if stop_at_unplaced:
                break
            continue
        out[i] = best
        for d in range(n_dims):
            norm[best, d] = norm[best, d] + step[d]
            loads[best, d] += demand[v, d]
        if g >= 0:
            _add(gstart, gcount, ghosts, g, best)
        _rebound(best, size, ssize, norm, allowed, lo, hi, slo, shi)
    return out


def _merge(
    s: int, ssize: int, lo: np.ndarray, hi: np.ndarray, slo: np.ndarray,
    shi: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """Bounds of super-block ``s``: its blocks' bounds merged."""
    n_blocks, n_dims = lo.shape
    for d in range(n_dims):
        slo[s, d] = np.inf
        shi[s, d] = -np.inf
    for b in range(s * ssize, min((s + 1) * ssize, n_blocks)):
        for d in range(n_dims):
            if lo[b, d] < slo[s, d]:
                slo[s, d] = lo[b, d]
            if hi[b, d] > shi[s, d]:
                shi[s, d] = hi[b, d]


def _exact_bounds(
    order: np.ndarray, demand: np.ndarray, norm: np.ndarray, inv: np.ndarray,
    allowed: np.ndarray,
) -> bool:  # pragma: no cover - compiled
    """Whether block bounds are exact: no NaN load on an allowed host and
    every step finite (else ``assign`` scans every host)."""
    for h in range(norm.shape[0]):
        if allowed[h]:
            for d in range(norm.shape[1]):
                if norm[h, d] != norm[h, d]:
                    return False
    for i in range(order.shape[0]):
        for d in range(norm.shape[1]):
            x = demand[order[i], d] * inv[d]
            if not (x > -np.inf and x < np.inf):
                return False
    return True


def _bounds(
    b: int, size: int, norm: np.ndarray, allowed: np.ndarray, lo: np.ndarray,
    hi: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """Lowest and highest normalized load per dimension over the allowed hosts of block ``b``."""
    n_hosts, n_dims = norm.shape
    for d in range(n_dims):
        lo[b, d] = np.inf
        hi[b, d] = -np.inf
    for h in range(b * size, min((b + 1) * size, n_hosts)):
        if allowed[h]:
            for d in range(n_dims):
                x = norm[h, d]
                if x < lo[b, d]:
                    lo[b, d] = x
                if x > hi[b, d]:
                    hi[b, d] = x


def _key(norm: np.ndarray, h: int, step: np.ndarray) -> float:  # pragma: no cover
    """max_d (norm[h, d] + step[d]); NaN propagates, as in numpy's max."""
    key = norm[h, 0] + step[0]
    for d in range(1, norm.shape[1]):
        x = norm[h, d] + step[d]
        if x > key or x != x:
            key = x
    return key


def _scan(
    first: int, last: int, norm: np.ndarray, step: np.ndarray, allowed: np.ndarray,
    banned: np.ndarray, balanced: bool, best: int, best_key: float,
    limit: float,
) -> tuple[int, float]:  # pragma: no cover - compiled
    """The best of (``best``, ``best_key``) and the accepting hosts in
    [first, last) (``allowed`` and not ``banned``); a host wins a tie only with a
    lower index."""
    for h in range(first, last):
        if not allowed[h] or banned[h]:
            continue
        key = _key(norm, h, step)
        if not key <= limit:
            continue
        if _wins(h, key, best, best_key, balanced):
            best, best_key = h, key
    return best, best_key


def _wins(h: int, key: float, best: int, best_key: float, balanced: bool
          ) -> bool:  # pragma: no cover - compiled
    """Whether host ``h`` with ``key`` beats (``best``, ``best_key``): the first host
    found; then the lower key when ``balanced``, else the higher, the lower index on
    ties."""
    if best < 0:
        return True
    if key == best_key:
        return h < best
    return key < best_key if balanced else key > best_key


def _scan_exact(
    first: int, last: int, norm: np.ndarray, step: np.ndarray, allowed: np.ndarray,
    banned: np.ndarray, balanced: bool, best: int, best_key: float,
    limit: float,
) -> tuple[int, float]:  # pragma: no cover - compiled
    """:func:`_scan` where no load of an allowed host is NaN and every step is
    finite (the blocks' condition, :func:`_exact_bounds`): the same host, with
    the key's maximum taken without NaN tests and a host left as soon as one
    dimension is over the limit (the key only grows over the dimensions)."""
    n_dims = norm.shape[1]
    for h in range(first, last):
        if not allowed[h] or banned[h]:
            continue
        key = norm[h, 0] + step[0]
        d = 1
        while key <= limit and d < n_dims:
            x = norm[h, d] + step[d]
            if x > key:
                key = x
            d += 1
        if not key <= limit:
            continue
        if _wins(h, key, best, best_key, balanced):
            best, best_key = h, key
    return best, best_key


def _keys(
    lo: np.ndarray, hi: np.ndarray, step: np.ndarray, first: int, last: int,
    low: np.ndarray, high: np.ndarray, limit: float, balanced: bool,
) -> int:  # pragma: no cover - compiled
    """``low``/``high`` (no host below has a lower/higher key) of the groups
    [first, last) from their bounds; the most promising group that can accept
    (-1: none)."""
    best = -1
    for b in range(first, last):
        lk = lo[b, 0] + step[0]
        hk = hi[b, 0] + step[0]
        for d in range(1, lo.shape[1]):
            lk = max(lk, lo[b, d] + step[d])
            hk = max(hk, hi[b, d] + step[d])
        low[b], high[b] = lk, hk
        if lk <= limit and (
            best < 0 or (lk < low[best] if balanced else hk > high[best])
        ):
            best = b
    return best


def _beaten(
    b: int, start: int, low: np.ndarray, high: np.ndarray, limit: float,
    balanced: bool, best: int, best_key: float,
) -> bool:  # pragma: no cover - compiled
    """Whether no host of group ``b`` (first host ``start``) can accept or beat
    or win a tie with the best host so far."""
    if not low[b] <= limit:
        return True
    if best < 0:
        return False
    bound = low[b] if balanced else high[b]
    if (bound > best_key) if balanced else (bound < best_key):
        return True
    return bound == best_key and start > best


def _pick_blocks(
    first: int, last: int, norm: np.ndarray, step: np.ndarray, allowed: np.ndarray,
    banned: np.ndarray, balanced: bool, limit: float, size: int,
    lo: np.ndarray, hi: np.ndarray, low: np.ndarray, high: np.ndarray,
    best: int, best_key: float,
) -> tuple[int, float]:  # pragma: no cover - compiled
    """The best of (``best``, ``best_key``) and the hosts of blocks [first,
    last), the most promising block scanned first, then the blocks whose bound
    can beat or tie the best found so far (blocks are used only where their
    bounds are exact: :func:`_scan_exact`)."""
    n_hosts = norm.shape[0]
    top = _keys(lo, hi, step, first, last, low, high, limit, balanced)
    if top < 0:
        return best, best_key
    if not _beaten(top, top * size, low, high, limit, balanced, best, best_key):
        best, best_key = _scan_exact(
            top * size, min((top + 1) * size, n_hosts), norm, step, allowed, banned,
            balanced, best, best_key, limit)
    for b in range(first, last):
        if b == top or _beaten(b, b * size, low, high, limit, balanced, best, best_key):
            continue
        best, best_key = _scan_exact(
            b * size, min((b + 1) * size, n_hosts), norm, step, allowed, banned,
            balanced, best, best_key, limit)
    return best, best_key


def _pick_super(
    norm: np.ndarray, step: np.ndarray, allowed: np.ndarray, banned: np.ndarray,
    balanced: bool, limit: float, size: int, lo: np.ndarray, hi: np.ndarray,
    low: np.ndarray, high: np.ndarray, ssize: int, slo: np.ndarray, shi: np.ndarray,
    slow: np.ndarray, shigh: np.ndarray,
) -> int:  # pragma: no cover - compiled
    """The host the plain scan would choose: super-blocks, then their blocks,
    then their hosts, each visited only when its bound can beat or tie the best
    host found so far (the most promising super-block first)."""
    n_blocks = lo.shape[0]
    n_super = slo.shape[0]
    top = _keys(slo, shi, step, 0, n_super, slow, shigh, limit, balanced)
    if top < 0:
        return -1
    best, best_key = _pick_blocks(
        top * ssize, min((top + 1) * ssize, n_blocks), norm, step, allowed, banned,
        balanced, limit, size, lo, hi, low, high, -1, 0.0)
    for s in range(n_super):
        if s == top or _beaten(s, s * ssize * size, slow, shigh, limit, balanced,
                               best, best_key):
            continue
        best, best_key = _pick_blocks(
            s * ssize, min((s + 1) * ssize, n_blocks), norm, step, allowed, banned,
            balanced, limit, size, lo, hi, low, high, best, best_key)
    return best


def survives_one(
    base_loads: np.ndarray,
    gstart: np.ndarray,
    base_count: np.ndarray,
    base_hosts: np.ndarray,
    members: np.ndarray,
    starts: np.ndarray,
    rank: np.ndarray,
    demand: np.ndarray,
    inv: np.ndarray,
    groups: np.ndarray,
    block: int,
    sup: int = 0,
) -> int:  # pragma: no cover - compiled
    """The first host whose failure leaves a VM without a survivor (-1: none):
    each host's VMs (``members[starts[h]:starts[h + 1]]``), by ``rank``, placed
    balanced on the others as :func:`assign` places them from ``base_loads``
    and the groups' hosts (``gstart``, ``base_count``, ``base_hosts``); the
    touched rows and groups are restored after each host."""
    n_hosts = base_loads.shape[0]
    loads = base_loads.copy()
    norm = base_loads * inv
    gcount = base_count.copy()
    ghosts = base_hosts.copy()
    banned = np.zeros(n_hosts, dtype=np.bool_)
    allowed = np.ones(n_hosts, dtype=np.bool_)
    no_pins = np.zeros(0, dtype=np.int64)
    if block > 0 and not _exact_bounds(members, demand, norm, inv, allowed):
        block = 0
    # the bounds are made once and kept up to date: host f out, then back with
    # the rows its VMs touched (not rebuilt per host: hosts² at a million servers)
    size, lo, hi, low, high, ssize, slo, shi, slow, shigh = _tree(norm, allowed, block, sup)
    for f in range(n_hosts):
        displaced = members[starts[f]:starts[f + 1]]
        displaced = displaced[np.argsort(rank[displaced], kind="mergesort")]
        allowed[f] = False
        for v in displaced:
            if groups[v] >= 0:
                _drop(gstart, gcount, ghosts, groups[v], f)
        _rebound(f, size, ssize, norm, allowed, lo, hi, slo, shi)
        out = _assign_in(displaced, demand, loads, norm, inv, groups, gstart, gcount,
                         ghosts, banned, allowed, no_pins, True, True, block, size, lo,
                         hi, low, high, ssize, slo, shi, slow, shigh)
        allowed[f] = True
        _rebound(f, size, ssize, norm, allowed, lo, hi, slo, shi)
        for i in range(out.shape[0]):
            h = out[i]
            if h < 0:
                return f
            loads[h, :] = base_loads[h, :]
            norm[h, :] = base_loads[h, :] * inv
            if groups[displaced[i]] >= 0:
                _drop(gstart, gcount, ghosts, groups[displaced[i]], h)
            _rebound(h, size, ssize, norm, allowed, lo, hi, slo, shi)
        for v in displaced:
            if groups[v] >= 0:
                _add(gstart, gcount, ghosts, groups[v], f)
    return -1


def _ban(
    gstart: np.ndarray, gcount: np.ndarray, ghosts: np.ndarray, g: int,
    banned: np.ndarray, value: bool,
) -> None:  # pragma: no cover - compiled
    """Set ``banned`` to ``value`` at the hosts holding group ``g``."""
    s = gstart[g]
    for k in range(gcount[g]):
        banned[ghosts[s + k]] = value


def _add(
    gstart: np.ndarray, gcount: np.ndarray, ghosts: np.ndarray, g: int, h: int
) -> None:  # pragma: no cover - compiled
    """Host ``h`` holds group ``g`` (once)."""
    s = gstart[g]
    for k in range(gcount[g]):
        if ghosts[s + k] == h:
            return
    ghosts[s + gcount[g]] = h
    gcount[g] += 1


def _drop(
    gstart: np.ndarray, gcount: np.ndarray, ghosts: np.ndarray, g: int, h: int
) -> None:  # pragma: no cover - compiled
    """Host ``h`` no longer holds group ``g``."""
    s = gstart[g]
    k = 0
    while k < gcount[g]:
        if ghosts[s + k] == h:
            gcount[g] -= 1
            ghosts[s + k] = ghosts[s + gcount[g]]
            ghosts[s + gcount[g]] = -1
        else:
            k += 1


def get() -> Callable[..., Any] | None:
    """The compiled :func:`assign`, or None without numba (compiled on first use)."""
    global _COMPILED, _TRIED
    if not _TRIED:
        _TRIED = True
        if compile_in(globals(), ("_exact_bounds", "_bounds", "_merge", "_key", "_scan",
                                  "_wins", "_scan_exact", "_keys", "_beaten", "_pick_blocks", "_pick_super",
                                  "_tree", "_rebound", "_ban", "_add", "_drop", "_assign_in",
                                  "assign",
                                  "survives_one")):
            _COMPILED = assign
    return _COMPILED


def numpy_cost(n_vms: int, n_hosts: int, scenarios: int = 0) -> int:
    """Estimated CPU µs of numpy's kernels placing ``n_vms`` VMs on ``n_hosts``
    hosts in one pass, plus ``scenarios`` N+1 scenarios' overhead."""
    return n_vms * (15 + n_hosts // 32) + scenarios * SCENARIO_US


def for_pass(cost_us: int, *, spend: bool = True) -> Callable[..., Any] | None:
    """The compiled :func:`assign` for work of ``cost_us`` (:func:`numpy_cost`),
    or None: numpy's kernels do it (numba not installed, or the kernel not
    loaded yet and the work within :data:`NUMPY_BUDGET_US` with what numpy did
    before; ``spend``: that work is counted)."""
    global _SPENT_US
    if not _TRIED and _SPENT_US + cost_us <= NUMPY_BUDGET_US:
        if spend:
            _SPENT_US += cost_us
        return None
    return get()


def available() -> bool:
    """Whether numba is installed (the compiled kernel can be used)."""
    return get() is not None
