"""Close one host more: place its VMs on the others regardless of the limit, then
repair the overflow by a tabu search of single-VM moves with breakout weights.

The overflow of a host is the sum over steps and dimensions of its load above
the limit (units of max load), each host-step weighted; the placement is
feasible when the unweighted total is zero. Each iteration takes an overloaded
host (seeded choice) and moves one of its VMs to the host where the weighted
overflow drops most (or rises least), never back to a host it left in the last
``tenure`` iterations. At a local minimum (no move lowers it) the weight of every
host-step still over the limit grows by one (the breakout method of Morris, AAAI
1993, as in guided local search): a host that stays over at the same steps
becomes expensive there, and the search moves its load to where other hosts have
room. A fixed number of iterations, no wall-clock cut-off. Every step must fit
(with a quantile the overflow is not a sum over steps; the caller skips the
repair there).

The moves are scored in single precision (a copy of the curves); whether the
placement fits is decided on the double-precision loads of the state.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from vsizer.placement.improve_state import LIM, State, targets


def _over(loads: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Overflow per leading index: load above the limit summed over steps and dimensions."""
    return np.asarray(np.clip(loads - LIM, 0.0, None).sum(axis=(-2, -1)), dtype=np.float64)


def _weighted(
    above: npt.NDArray[np.float32], weight: npt.NDArray[np.float32]
) -> npt.NDArray[np.float32]:
    """Sum over the last two axes of ``max(above, 0) x weight`` (``above`` is consumed)."""
    np.maximum(above, 0.0, out=above)
    above *= weight
    return np.asarray(above.sum(axis=(-2, -1)))


def _spread(state: State, h: int, live: npt.NDArray[np.int64]) -> bool:
    """Put every VM of ``h`` (largest peak first) where it overflows least;
    False when an anti-affinity group leaves a VM no host."""
    vms = state.members(h)
    for v in vms[np.argsort(-state.vpeak[vms], kind="stable")].tolist():
        ok = live[state.allowed(v, live)]
        if not ok.size:
            return False
        cost = _over(state.loads[ok] + state.norm[v]) - _over(state.loads[ok])
        state.move(v, int(ok[int(np.argmin(cost))]))
    return True


def close_one(
    state: State,
    h: int,
    movable: npt.NDArray[np.bool_],
    rng: np.random.Generator,
    iterations: int,
    tenure: int = 7,
) -> bool:
    """Empty host ``h`` into the others and repair; False (state unchanged) on failure."""
    before = state.assign.copy()
    state.alive[h] = False
    live = targets(state)
    if not _spread(state, h, live):
        return _undo(state, before, h)
    norm32 = state.norm.astype(np.float32)
    tabu = np.full((state.norm.shape[0], state.loads.shape[0]), -1, dtype=np.int64)
    weight = np.ones((live.size,) + state.loads.shape[1:2] + (1,), dtype=np.float32)
    grouped = state.groups >= 0
    for it in range(iterations):
        loads = state.loads[live]
        if not (loads > LIM).any():
            return True
        raw = np.maximum(loads - LIM, 0.0).astype(np.float32)  # (H, T, D), > 0 as loads
        over = (raw * weight).sum(axis=(1, 2))
        ia = int(rng.choice(np.flatnonzero(over > 0)))
        a = int(live[ia])
        us = state.members(a)
        us = us[movable[us]]
        if not us.size:
            continue
        du = norm32[us]  # (U, T, D)
        slack = (loads - LIM).astype(np.float32)
        gain = over[ia] - _weighted(slack[ia][None] - du, weight[ia])
        rise = _weighted(slack[None] + du[:, None], weight[None]) - over[None]
        net = rise - gain[:, None]  # (U, H)
        net[:, ia] = np.inf
        net[tabu[np.ix_(us, live)] >= it] = np.inf
        for k in np.flatnonzero(grouped[us]).tolist():
            net[k, ~state.allowed(int(us[k]), live)] = np.inf
        net += np.float32(1e-6) * rng.random(net.shape, dtype=np.float32)
        i, j = divmod(int(np.argmin(net)), net.shape[1])
        if not np.isfinite(net[i, j]):
            continue
        if net[i, j] >= 0:  # local minimum: weigh the host-steps still over (breakout)
            weight += (raw > 0).any(axis=2, keepdims=True)
        tabu[int(us[i]), a] = it + tenure
        state.move(int(us[i]), int(live[j]))
    return _undo(state, before, h)


def _undo(state: State, before: npt.NDArray[np.int64], h: int) -> bool:
    state.alive[h] = True
    for u in np.flatnonzero(state.assign != before).tolist():
        state.move(u, int(before[u]))
    return False
