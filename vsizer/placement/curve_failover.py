"""Failover scenarios on demand curves: the displaced VMs re-placed on the
survivors so that their summed curves stay within the failover limit.

The curve path of :func:`vsizer.placement.failover.check`. Each displaced VM
(largest peak first) goes to the survivor with the lowest current peak on which
the curve stays within the failover limit x capacity at every step (or at the
chosen quantile of steps); if none can take it, to the survivor where the
resulting peak is lowest, and the scenario records it as unplaced. Anti-affinity
groups are kept where possible. Known re-placements (``hints``: {failed host
index tuple: {vm index: survivor index}}, e.g. the moves of a check on per-VM
peaks, which hold on curves that never exceed those peaks) replace a greedy
re-placement that leaves a VM unplaced when they keep every survivor within the
limit.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from vsizer.placement.failover_report import Scenario
from vsizer.placement.problem import UTIL_DIMS
from vsizer.placement.result import Placement
from vsizer.placement.series_fit import step_stat

#: Known re-placements: {failed host indices: {vm index: survivor index}}.
Hints = dict[tuple[int, ...], dict[int, int]]


def host_curves(
    curves: npt.NDArray[np.floating],
    assignment: npt.NDArray[np.int64],
    n_hosts: int,
    base_load: npt.NDArray[np.float64],
    capacity: npt.NDArray[np.float64],
) -> npt.NDArray[np.float32]:
    """Utilization curve (fraction of capacity) per host, shape (n_hosts, n_steps, n_dims)."""
    _, t, d = curves.shape
    out = np.zeros((n_hosts, t, d), dtype=np.float32)
    np.add.at(out, assignment, curves.astype(np.float32))
    out += base_load.astype(np.float32)
    out /= capacity.astype(np.float32)
    return out


class CurveReplacer:
    """Re-placement of displaced VMs on survivors, shared by every scenario."""

    def __init__(
        self,
        placement: Placement,
        curves: npt.NDArray[np.floating],
        quantile: float | None = None,
        hints: Hints | None = None,
    ) -> None:
        p = placement.problem
        self.problem, self.n_hosts = p, placement.n_hosts
        self.assignment, self.groups = placement.assignment, p.anti_affinity
        self.quantile, self.hints = quantile, hints or {}
        d = curves.shape[2]
        limit = np.broadcast_to(np.asarray(p.failover_limit, dtype=float), (d,))
        self.shown = np.array([dim in UTIL_DIMS for dim in p.dims])
        self.norm = (curves / p.capacity).astype(np.float32)  # utilization units
        self.host_load = np.zeros((self.n_hosts, curves.shape[1], d), dtype=np.float32)
        np.add.at(self.host_load, self.assignment, self.norm)
        base = np.asarray(p.base_load, dtype=float)
        self.host_load += (base / p.capacity).astype(np.float32)
        self.scale = (1.0 / limit).astype(np.float32)  # to units of the failover limit
        self.vpeak = (self.norm * self.scale).max(axis=1).max(axis=1)

    def scenario(self, failed: tuple[int, ...]) -> Scenario:
        """Hosts ``failed`` down: their VMs re-placed (greedy, or the hint if it holds)."""
        survivors = [h for h in range(self.n_hosts) if h not in failed]
        displaced = np.flatnonzero(np.isin(self.assignment, failed))
        if not survivors:
            return self._no_survivor(failed, displaced)
        loads, moves, forced = self.greedy(survivors, displaced)
        hint = self.hints.get(tuple(failed))
        if forced and hint is not None:
            hinted = self.apply(survivors, hint)
            if hinted is not None:
                loads, moves, forced = hinted, dict(hint), []
        return self._scenario(failed, survivors, loads, moves, forced)

    def greedy(
        self, survivors: list[int], displaced: npt.NDArray[np.int64]
    ) -> tuple[npt.NDArray[np.float32], dict[int, int], list[int]]:
        """Largest displaced VM first, onto the least-peaked survivor that holds it."""
        norm, scale, groups, lim = self.norm, self.scale, self.groups, 1.0 + 1e-6
        loads = self.host_load[survivors].copy()  # (S, T, D)
        occupied = [set(groups[self.assignment == h].tolist()) - {-1} for h in survivors]
        displaced = displaced[np.argsort(-self.vpeak[displaced], kind="stable")]
        moves: dict[int, int] = {}
        forced: list[int] = []
        peaks = (loads * scale).max(axis=(1, 2))  # kept current: one host changes per move
        for v in displaced:
            g = int(groups[v])
            order = np.argsort(peaks, kind="stable")
            allowed = [i for i in order if g < 0 or g not in occupied[i]] or list(order)
            chosen = -1
            for i in allowed:
                trial = (loads[i] + norm[v]) * scale
                if (step_stat(trial, self.quantile) <= lim).all():
                    chosen = int(i)
                    break
            if chosen < 0:
                forced.append(int(v))
                chosen = int(
                    min(
                        allowed,
                        key=lambda i: float(((loads[i] + norm[v]) * scale).max()),
                    )
                )
            loads[chosen] += norm[v]
            peaks[chosen] = (loads[chosen] * scale).max()
            if g >= 0:
                occupied[chosen].add(g)
            moves[int(v)] = survivors[chosen]
        return loads, moves, forced

    def apply(
        self, survivors: list[int], moves: dict[int, int]
    ) -> npt.NDArray[np.float32] | None:
        """Survivor loads after the given moves, or None if one breaks the limit."""
        loads = self.host_load[survivors].copy()
        slot = {h: i for i, h in enumerate(survivors)}
        for v, h in moves.items():
            if h not in slot:
                return None
            loads[slot[h]] += self.norm[v]
        stat = step_stat(loads * self.scale, self.quantile)  # (S, D)
        return loads if bool((stat <= 1.0 + 1e-6).all()) else None

    def _no_survivor(
        self, failed: tuple[int, ...], displaced: npt.NDArray[np.int64]
    ) -> Scenario:
        p = self.problem
        return Scenario(
            failed=[p.host_id(f) for f in failed],
            moves=[],
            unplaced=[p.vm_names[v] for v in displaced.tolist()],
            worst_host=None,
            worst_util=float("inf"),
            worst_dimension="",
            survivor_util={},
            worst_step=None,
            steps_over_100=0,
        )

    def _scenario(
        self,
        failed: tuple[int, ...],
        survivors: list[int],
        loads: npt.NDArray[np.float32],
        moves: dict[int, int],
        forced: list[int],
    ) -> Scenario:
        p, shown = self.problem, self.shown
        view = np.where(shown, loads, -np.inf)
        s_idx, step, dim = np.unravel_index(int(np.argmax(view)), loads.shape)
        peak_of = loads.max(axis=1)  # (S, D)
        util_idx = np.flatnonzero(shown).tolist()
        return Scenario(
            failed=[p.host_id(f) for f in failed],
            moves=[{"vm": p.vm_names[v], "to": p.host_id(h)} for v, h in moves.items()],
            unplaced=[p.vm_names[v] for v in forced],
            worst_host=p.host_id(survivors[int(s_idx)]),
            worst_util=float(loads[s_idx, step, dim]),
            worst_dimension=p.dims[int(dim)],
            survivor_util={
                p.host_id(h): {
                    p.dims[i]: float(peak_of[survivors.index(h)][i]) for i in util_idx
                }
                for h in sorted(set(moves.values()))
            },
            worst_step=int(step),
            steps_over_100=int((loads[:, :, shown] > 1 + 1e-6).any(axis=2).sum()),
        )
