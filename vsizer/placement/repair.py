"""Close one host more: place its VMs on the others regardless of the limit, then
repair the overflow by a tabu search of single-VM moves.

The overflow of a host is the sum over steps and dimensions of its load above
the limit (units of max load); the placement is feasible when the total is zero.
Each iteration takes an overloaded host (seeded choice) and moves one of its
VMs to the host where the total overflow drops most (or rises least), never
back to a host it left in the last ``tenure`` iterations; a fixed number of
iterations, no wall-clock cut-off. Every step must fit (with a quantile the
overflow is not a sum over steps; the caller skips the repair there).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from vsizer.placement.improve_state import LIM, State, targets


def _over(
    loads: npt.NDArray[np.float64], weight: npt.NDArray[np.float64] | None = None
) -> npt.NDArray[np.float64]:
    """Overflow per leading index: load above the limit summed over steps and
    dimensions, each step weighted (``weight`` shape (T, 1); None: 1)."""
    above = np.clip(loads - LIM, 0.0, None)
    if weight is not None:
        above = above * weight
    return np.asarray(above.sum(axis=(-2, -1)), dtype=np.float64)


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
    vms = state.members(h)
    for v in vms[np.argsort(-state.vpeak[vms], kind="stable")].tolist():
        ok = live[state.allowed(v, live)]
        if not ok.size:
            return _undo(state, before, h)
        cost = _over(state.loads[ok] + state.norm[v]) - _over(state.loads[ok])
        state.move(v, int(ok[int(np.argmin(cost))]))
    tabu: dict[tuple[int, int], int] = {}
    weight = np.ones((state.loads.shape[1], 1))
    for it in range(iterations):
        raw = np.clip(state.loads[live] - LIM, 0.0, None)  # (H, T, D)
        if not (raw > 0).any():
            return True
        over = (raw * weight).sum(axis=(1, 2))
        a = int(live[rng.choice(np.flatnonzero(over > 0))])
        us = state.members(a)
        us = us[movable[us]]
        if not us.size:
            continue
        gain = over[live == a][0] - _over(state.loads[a][None] - state.norm[us], weight)
        rise = _over(state.loads[live][None] + state.norm[us][:, None], weight) - over[None]
        net = rise - gain[:, None]
        net[:, live == a] = np.inf
        for k, u in enumerate(us.tolist()):
            bad = ~state.allowed(u, live)
            for m, b in enumerate(live.tolist()):
                if tabu.get((u, b), -1) >= it:
                    bad[m] = True
            net[k, bad] = np.inf
        net += 1e-9 * rng.random(net.shape)
        flat = int(np.argmin(net))
        i, j = divmod(flat, net.shape[1])
        if not np.isfinite(net[i, j]):
            continue
        if net[i, j] >= 0:  # local minimum: weigh the steps still over (breakout)
            weight += np.asarray((raw > 0).any(axis=(0, 2)), dtype=float)[:, None]
        u = int(us[i])
        tabu[(u, a)] = it + tenure
        state.move(u, int(live[j]))
    return _undo(state, before, h)


def _undo(state: State, before: npt.NDArray[np.int64], h: int) -> bool:
    state.alive[h] = True
    for u in np.flatnonzero(state.assign != before).tolist():
        state.move(u, int(before[u]))
    return False
