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

Scale. A scenario touches only the failed hosts and the survivors that receive
a VM: the hosts' loads, peaks, worst cells and steps over 100 % are computed
once for the pool, and a scenario keeps its own copy only of the hosts it
changes (an overlay), so one scenario costs about (displaced VMs x hosts tried)
curve checks instead of a copy of every survivor's curves. The survivors are
tried in the order of one sort of the pool (lowest peak, then index) merged
with the changed hosts — the order a full sort per VM would give. The VMs'
curves are never copied whole: each is divided by the capacity when it is
needed, with the same float32 rounding.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np
import numpy.typing as npt

from vsizer.placement.failover_report import Scenario
from vsizer.placement.problem import UTIL_DIMS
from vsizer.placement.result import Placement
from vsizer.placement.series_fit import step_stat

#: Known re-placements: {failed host indices: {vm index: survivor index}}.
Hints = dict[tuple[int, ...], dict[int, int]]

#: VMs whose curves are converted at once (bounds the temporary memory).
VM_CHUNK = 4096

#: A load at most this (units of the failover limit) holds.
_LIM = 1.0 + 1e-6


def host_curves(
    curves: npt.NDArray[np.floating],
    assignment: npt.NDArray[np.int64],
    n_hosts: int,
    base_load: npt.NDArray[np.float64],
    capacity: npt.NDArray[np.float64],
) -> npt.NDArray[np.float32]:
    """Utilization curve (fraction of capacity) per host, shape (n_hosts, n_steps, n_dims)."""
    n, t, d = curves.shape
    out = np.zeros((n_hosts, t, d), dtype=np.float32)
    for i in range(0, n, VM_CHUNK):  # in VM order: the same sums as one np.add.at
        np.add.at(out, assignment[i : i + VM_CHUNK],
                  curves[i : i + VM_CHUNK].astype(np.float32, copy=False))
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
        self.curves, self.capacity = curves, p.capacity
        d = curves.shape[2]
        limit = np.broadcast_to(np.asarray(p.failover_limit, dtype=float), (d,))
        self.shown = np.array([dim in UTIL_DIMS for dim in p.dims])
        self.scale = (1.0 / limit).astype(np.float32)  # to units of the failover limit
        self.host_load = np.zeros((self.n_hosts, curves.shape[1], d), dtype=np.float32)
        self.vpeak = np.zeros(curves.shape[0], dtype=np.float32)
        for i in range(0, curves.shape[0], VM_CHUNK):
            norm = self._norm(slice(i, i + VM_CHUNK))
            np.add.at(self.host_load, self.assignment[i : i + VM_CHUNK], norm)
            self.vpeak[i : i + VM_CHUNK] = (norm * self.scale).max(axis=1).max(axis=1)
        base = np.asarray(p.base_load, dtype=float)
        self.host_load += (base / p.capacity).astype(np.float32)
        self._pool_summaries()

    def _norm(self, v: int | slice) -> npt.NDArray[np.float32]:
        """VM curve(s) in utilization units (fraction of capacity), float32."""
        return np.asarray((self.curves[v] / self.capacity).astype(np.float32))

    def _pool_summaries(self) -> None:
        """Per host: peak (failover units), worst shown cell, steps over 100 %, fits,
        members and anti-affinity groups; the hosts sorted by peak."""
        n = self.n_hosts
        self.hpeak = np.zeros(n, dtype=np.float32)
        self.hmax = np.full(n, -np.inf, dtype=np.float32)
        self.hcell = np.zeros(n, dtype=np.int64)
        self.hover = np.zeros(n, dtype=np.int64)
        self.hfits = np.ones(n, dtype=bool)
        for i in range(0, n, 256):
            self._summarize(np.arange(i, min(i + 256, n)), self.host_load[i : i + 256])
        self.order_list: list[int] = np.argsort(self.hpeak, kind="stable").tolist()
        by_host = np.argsort(self.assignment, kind="stable")
        starts = np.searchsorted(self.assignment[by_host], np.arange(n + 1))
        self.members = [by_host[starts[h] : starts[h + 1]] for h in range(n)]
        self.occupied: list[set[int]] = [set() for _ in range(n)]
        for v in np.flatnonzero(self.groups >= 0).tolist():
            self.occupied[int(self.assignment[v])].add(int(self.groups[v]))

    def _summarize(self, hosts: npt.NDArray[np.int64], loads: npt.NDArray[np.float32]) -> None:
        """Fill the per-host summaries of ``hosts`` from their ``loads`` (H, T, D)."""
        if not len(hosts):
            return
        self.hpeak[hosts] = (loads * self.scale).max(axis=(1, 2))
        view = np.where(self.shown, loads, -np.inf).reshape(len(hosts), -1)
        self.hcell[hosts] = view.argmax(axis=1)
        self.hmax[hosts] = view[np.arange(len(hosts)), self.hcell[hosts]]
        self.hover[hosts] = (loads[:, :, self.shown] > 1 + 1e-6).any(axis=2).sum(axis=1)
        stat = step_stat(loads * self.scale, self.quantile)  # (H, D)
        self.hfits[hosts] = (stat <= _LIM).all(axis=1)

    def scenario(self, failed: tuple[int, ...]) -> Scenario:
        """Hosts ``failed`` down: their VMs re-placed (greedy, or the hint if it holds)."""
        gone = set(failed)
        displaced = np.sort(np.concatenate(
            [self.members[f] for f in failed] or [np.zeros(0, dtype=np.int64)]
        ))
        if len(gone) >= self.n_hosts:
            return self._no_survivor(failed, displaced)
        loads, moves, forced = self.greedy(gone, displaced)
        hint = self.hints.get(tuple(failed))
        if forced and hint is not None:
            hinted = self.apply(gone, hint)
            if hinted is not None:
                loads, moves, forced = hinted, dict(hint), []
        return self._scenario(failed, gone, loads, moves, forced)

    def _candidates(
        self, gone: set[int], changed: dict[int, float]
    ) -> Iterator[int]:
        """Survivors by (current peak, index): the pool's order merged with ``changed``."""
        extra = sorted((pk, h) for h, pk in changed.items())
        j = 0
        for h in self.order_list:
            if h in gone or h in changed:
                continue
            key = (float(self.hpeak[h]), h)
            while j < len(extra) and extra[j] < key:
                yield extra[j][1]
                j += 1
            yield h
        for _, h in extra[j:]:
            yield h

    def greedy(
        self, gone: set[int], displaced: npt.NDArray[np.int64]
    ) -> tuple[dict[int, npt.NDArray[np.float32]], dict[int, int], list[int]]:
        """Displaced VMs by restart priority, largest first within one, each onto the
        least-peaked survivor that holds it.

        Returns the loads of the survivors that changed, the moves and the VMs
        placed over the limit."""
        scale, groups = self.scale, self.groups
        loads: dict[int, npt.NDArray[np.float32]] = {}
        peaks: dict[int, float] = {}
        added: dict[int, set[int]] = {}
        # restart priority first (issue 28), then largest peak first
        prio = self.problem.restart_priority[displaced]
        displaced = displaced[np.lexsort((-self.vpeak[displaced], prio))]
        moves: dict[int, int] = {}
        forced: list[int] = []
        for v in displaced.tolist():
            g, norm = int(groups[v]), self._norm(v)

            def free(h: int, g: int = g) -> bool:
                return g < 0 or (g not in self.occupied[h] and g not in added.get(h, ()))

            allowed = free if any(free(h) for h in self._candidates(gone, peaks)) else None
            chosen = self._first_fit(gone, peaks, loads, norm, allowed)
            if chosen < 0:
                forced.append(v)
                chosen = self._least_over(gone, peaks, loads, norm, allowed)
            loads[chosen] = (loads[chosen] if chosen in loads else self.host_load[chosen]) + norm
            peaks[chosen] = float((loads[chosen] * scale).max())
            if g >= 0:
                added.setdefault(chosen, set()).add(g)
            moves[v] = chosen
        return loads, moves, forced

    def _first_fit(
        self,
        gone: set[int],
        peaks: dict[int, float],
        loads: dict[int, npt.NDArray[np.float32]],
        norm: npt.NDArray[np.float32],
        free: Callable[[int], bool] | None,
    ) -> int:
        """The first allowed survivor (``free``; None: any) in peak order that holds
        the VM within the limit, else -1."""
        for h in self._candidates(gone, peaks):
            if free is not None and not free(h):
                continue
            base = loads[h] if h in loads else self.host_load[h]
            if (step_stat((base + norm) * self.scale, self.quantile) <= _LIM).all():
                return h
        return -1

    def _least_over(
        self,
        gone: set[int],
        peaks: dict[int, float],
        loads: dict[int, npt.NDArray[np.float32]],
        norm: npt.NDArray[np.float32],
        free: Callable[[int], bool] | None,
    ) -> int:
        """The allowed survivor (``free``; None: any) where the VM's added curve gives
        the lowest peak; the first in survivor order among equals."""
        order = [h for h in self._candidates(gone, peaks) if free is None or free(h)]
        best, best_h = np.inf, order[0]
        for i in range(0, len(order), 256):
            idx = order[i : i + 256]
            block = np.stack([loads[h] if h in loads else self.host_load[h] for h in idx])
            vals = ((block + norm) * self.scale).max(axis=(1, 2))
            k = int(np.argmin(vals))
            if float(vals[k]) < best:
                best, best_h = float(vals[k]), idx[k]
        return best_h

    def apply(
        self, gone: set[int], moves: dict[int, int]
    ) -> dict[int, npt.NDArray[np.float32]] | None:
        """Loads of the survivors changed by the given moves, or None if one breaks
        the limit (the unchanged survivors must hold too)."""
        loads: dict[int, npt.NDArray[np.float32]] = {}
        for v, h in moves.items():
            if h in gone or not 0 <= h < self.n_hosts:
                return None
            loads[h] = (loads[h] if h in loads else self.host_load[h]) + self._norm(v)
        unchanged = np.ones(self.n_hosts, dtype=bool)
        unchanged[list(gone | set(loads))] = False
        if not self.hfits[unchanged].all():
            return None
        for cur in loads.values():
            if not (step_stat(cur * self.scale, self.quantile) <= _LIM).all():
                return None
        return loads

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
        gone: set[int],
        loads: dict[int, npt.NDArray[np.float32]],
        moves: dict[int, int],
        forced: list[int],
    ) -> Scenario:
        p, shown = self.problem, self.shown
        vals, over = self.hmax.copy(), int(self.hover.sum())
        cells = {}
        for f in gone:
            vals[f] = -np.inf
            over -= int(self.hover[f])
        for h, cur in loads.items():
            view = np.where(shown, cur, -np.inf).ravel()
            cells[h] = int(view.argmax())
            vals[h] = view[cells[h]]
            over += int((cur[:, shown] > 1 + 1e-6).any(axis=1).sum()) - int(self.hover[h])
        worst = int(np.argmax(vals))  # first survivor of the highest cell
        cell = cells.get(worst, int(self.hcell[worst]))
        step, dim = divmod(cell, len(p.dims))
        util_idx = np.flatnonzero(shown).tolist()
        return Scenario(
            failed=[p.host_id(f) for f in failed],
            moves=[{"vm": p.vm_names[v], "to": p.host_id(h)} for v, h in moves.items()],
            unplaced=[p.vm_names[v] for v in forced],
            worst_host=p.host_id(worst),
            worst_util=float(vals[worst]),
            worst_dimension=p.dims[dim],
            survivor_util={
                p.host_id(h): {
                    p.dims[i]: float(peak[i]) for i in util_idx
                }
                for h in sorted(set(moves.values()))
                for peak in [self._host_peaks(h, loads)]
            },
            worst_step=int(step),
            steps_over_100=over,
        )

    def _host_peaks(
        self, h: int, loads: dict[int, npt.NDArray[np.float32]]
    ) -> npt.NDArray[np.float32]:
        cur = loads[h] if h in loads else self.host_load[h]
        return np.asarray(cur.max(axis=0))
