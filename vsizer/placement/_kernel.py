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
numpy paths run unchanged. Compiled functions are cached on disk
(``cache=True``): the JIT compile (a few seconds) is paid once per machine.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from vsizer.placement.problem import EPS

__all__ = ["assign", "get", "available"]

_COMPILED: Callable[..., Any] | None = None
_TRIED = False


def assign(
    order: np.ndarray,
    demand: np.ndarray,
    loads: np.ndarray,
    norm: np.ndarray,
    inv: np.ndarray,
    groups: np.ndarray,
    occupied: np.ndarray,
    allowed: np.ndarray,
    pins: np.ndarray,
    balanced: bool,
    stop_at_unplaced: bool,
) -> np.ndarray:  # pragma: no cover - run compiled (its Python twin is tested too)
    """Host per VM of ``order`` (-1: none accepts it); updates ``loads``,
    ``norm`` and ``occupied`` in place. ``pins``: pinned host per VM, -1 free
    (a pin beyond the hosts accepts nothing). ``norm`` = loads x inv."""
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
        pin = pins[v]
        first, last = 0, n_hosts
        if pin >= 0:
            first, last = (pin, pin + 1) if pin < n_hosts else (0, 0)
        best = -1
        best_key = 0.0
        for h in range(first, last):
            if not allowed[h] or (g >= 0 and occupied[h, g]):
                continue
            key = norm[h, 0] + step[0]
            for d in range(1, n_dims):
                x = norm[h, d] + step[d]
                if x > key or x != x:  # NaN propagates, as in numpy's max
                    key = x
            if not key <= limit:
                continue
            if best < 0 or (key < best_key if balanced else key > best_key):
                best, best_key = h, key
        if best < 0:
            if stop_at_unplaced:
                break
            continue
        out[i] = best
        for d in range(n_dims):
            norm[best, d] = norm[best, d] + step[d]
            loads[best, d] += demand[v, d]
        if g >= 0:
            occupied[best, g] = True
    return out


def get() -> Callable[..., Any] | None:
    """The compiled :func:`assign`, or None without numba (imported on first use)."""
    global _COMPILED, _TRIED
    if not _TRIED:
        _TRIED = True
        try:
            import numba
        except ImportError:
            return None
        _COMPILED = numba.njit(cache=True, nogil=True)(assign)
    return _COMPILED


def available() -> bool:
    """Whether numba is installed (the compiled kernel can be used)."""
    return get() is not None
