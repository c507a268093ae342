"""The one-by-one greedy kernel on many hosts, with bounds per block of hosts.

:func:`vsizer.placement.heuristics.greedy_assign` puts each VM on the host
whose highest normalized load after placement (its *key*) is lowest
(``balanced``) or highest (``best_fit``) among the hosts that accept it, ties
to the lowest host index. A plain scan computes the key of every host for
every VM: O(VMs x hosts), quadratic in fleet size since hosts grow with VMs.

Here hosts are cut into blocks of :data:`BLOCK`; per block and dimension the
lowest and highest normalized load are kept. Rounding is monotone, so for a
VM adding ``s`` the key of every host of a block lies between
``max_d fl(lo[d] + s[d])`` and ``max_d fl(hi[d] + s[d])``: exact bounds on
the floats the plain scan compares. A VM first evaluates the most promising
block, then every block whose bound can still beat (or tie) what that block
gave, all at once; the winner is the plain scan's winner, bit for bit, since
keys are computed the same way and candidate hosts are compared in host-index
order. Only the chosen host's block is updated afterwards.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from vsizer.placement.occupancy import GroupHosts
from vsizer.placement.problem import EPS

#: Hosts per block.
BLOCK = 32
#: Fewest hosts for which :func:`assign_blocked` is used (below, the plain scan
#: is as fast).
MIN_HOSTS = 192


class BlockedHosts:
    """Normalized loads of the hosts padded to whole blocks, with per-block bounds.

    ``norm`` holds ``inf`` for the padding and for hosts not allowed: their
    key is ``inf``, so they never accept a VM and never lower a bound.
    """

    def __init__(self, norm: npt.NDArray[np.float64], allowed: npt.NDArray[np.bool_]) -> None:
        n_hosts, n_dims = norm.shape
        self.n_hosts = n_hosts
        self.n_blocks = -(-n_hosts // BLOCK)
        self.norm = np.full((self.n_blocks * BLOCK, n_dims), np.inf)
        self.norm[:n_hosts] = np.where(allowed[:, None], norm, np.inf)
        self.norm3 = self.norm.reshape(self.n_blocks, BLOCK, n_dims)
        self.lo = self.hi = self.norm3[:, 0]
        self.rebound()

    def rebound(self) -> None:
        """Every block's bounds from ``norm`` (after loads changed in many places)."""
        self.lo = self.norm3.min(axis=1)
        self.hi = np.where(np.isinf(self.norm3), -np.inf, self.norm3).max(axis=1)

    def add(self, h: int, step: npt.NDArray[np.float64], high: bool) -> None:
        """Host ``h`` takes a VM adding ``step``; its block's bounds follow
        (the upper one only when ``high``: best fit reads it, balanced not)."""
        self.norm[h] = self.norm[h] + step
        b = h // BLOCK
        self.lo[b] = self.norm3[b].min(axis=0)
        if high:
            np.maximum(self.hi[b], self.norm[h], out=self.hi[b])  # loads only grow

    def pick(
        self, step: npt.NDArray[np.float64], balanced: bool,
        banned: npt.NDArray[np.bool_] | None = None,
    ) -> int:
        """The host the plain scan would choose for a VM adding ``step`` (-1: none).

        ``banned`` (one flag per host) marks hosts refused for this VM
        (anti-affinity); they still count in the bounds, which stay valid.
        """
        limit = 1.0 + EPS
        low = (self.lo + step).max(axis=1)
        if balanced:
            first = int(low.argmin())
            if low[first] > limit:
                return -1
            peak = self._peak(first, step, banned, np.inf)
            best = float(peak.min())
            if best <= limit:
                cand = np.flatnonzero(low <= best)
                if len(cand) == 1:  # only the first block can hold the best
                    return first * BLOCK + int(peak.argmin())
            else:
                cand = np.flatnonzero(low <= limit)
            keys = self._peak(cand, step, banned, np.inf).ravel()
            i = int(keys.argmin())
            if keys[i] > limit:
                return -1
        else:
            high = np.where(low <= limit, (self.hi + step).max(axis=1), -np.inf)
            first = int(high.argmax())
            if low[first] > limit:
                return -1
            peak = self._peak(first, step, banned, -np.inf)
            peak[peak > limit] = -np.inf
            best = float(peak.max())
            cand = np.flatnonzero(high >= best) if best > -np.inf else np.flatnonzero(
                low <= limit
            )
            keys = self._peak(cand, step, banned, -np.inf).ravel()
            keys[keys > limit] = -np.inf
            i = int(keys.argmax())
            if keys[i] == -np.inf:
                return -1
        return int(cand[i // BLOCK]) * BLOCK + i % BLOCK

    def _peak(
        self, blocks: int | npt.NDArray[np.int64], step: npt.NDArray[np.float64],
        banned: npt.NDArray[np.bool_] | None, refused: float,
    ) -> npt.NDArray[np.float64]:
        """Keys of the hosts of ``blocks`` (``refused`` where banned)."""
        peak = (self.norm3[blocks] + step).max(axis=-1)
        if banned is not None:
            peak[banned.reshape(self.n_blocks, BLOCK)[blocks]] = refused
        return peak


def assign_blocked(
    order: npt.NDArray[np.int64],
    demand: npt.NDArray[np.float64],
    loads: npt.NDArray[np.float64],
    inv: npt.NDArray[np.float64],
    groups: npt.NDArray[np.int64],
    occupied: GroupHosts,
    state: BlockedHosts,
    pins: npt.NDArray[np.int64] | None,
    rule: str,
    stop_at_unplaced: bool = False,
) -> npt.NDArray[np.int64]:
    """The blocked twin of the one-by-one kernel: same hosts, same updates
    (``state.norm`` is the kernel's normalized loads). ``loads`` receive the
    demands at the end, per host in placement order (so bit for bit the sums
    of the one-by-one kernel)."""
    n = len(order)
    out = np.full(n, -1, dtype=np.int64)
    balanced = rule == "balanced"
    steps = demand[order] * inv
    group_of = groups[order].tolist()
    pin_of = pins[order].tolist() if pins is not None else [-1] * n
    for i in range(n):
        out[i] = _one(state, steps[i], group_of[i], pin_of[i], occupied, balanced)
        if stop_at_unplaced and out[i] < 0:
            break
    placed = out >= 0
    np.add.at(loads, out[placed], demand[order[placed]])  # in order: same sums
    return out


def _one(
    state: BlockedHosts, step: npt.NDArray[np.float64], g: int, pin: int,
    occupied: GroupHosts, balanced: bool,
) -> int:
    """Place one VM (group ``g``, pinned host ``pin``; -1: none); -1 if no host accepts it."""
    if pin >= 0:
        ok = (
            pin < state.n_hosts and float((state.norm[pin] + step).max()) <= 1.0 + EPS
            and not (g >= 0 and occupied.holds(pin, g))
        )
        h = pin if ok else -1
    else:
        banned = None
        if g >= 0:
            banned = np.zeros(state.n_blocks * BLOCK, dtype=bool)
            banned[occupied.of(g)] = True
        h = state.pick(step, balanced, banned)
    if h >= 0:
        state.add(h, step, not balanced)
        if g >= 0:
            occupied.mark(h, g)
    return h
