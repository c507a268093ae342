"""The working state of the local search on curves (:mod:`vsizer.placement.improve`):
host loads in units of max load, anti-affinity counts per host, single-VM moves."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from vsizer.placement.series_fit import step_stat

#: A load at most this (units of max_load) fits — as in series_fit.
LIM = 1.0 + 1e-6


class State:
    """Loads of the live hosts (units of max load), anti-affinity counts, moves."""

    def __init__(
        self,
        norm: npt.NDArray[np.float64],
        assign: npt.NDArray[np.int64],
        n_hosts: int,
        base: npt.NDArray[np.float64],
        groups: npt.NDArray[np.int64],
        quantile: float | None,
    ) -> None:
        self.norm, self.quantile, self.groups = norm, quantile, groups
        self.base = base
        self.assign = assign.copy()
        self.loads = np.zeros((n_hosts,) + norm.shape[1:], dtype=np.float64)
        self.loads += base
        np.add.at(self.loads, self.assign, norm)
        self.alive = np.ones(n_hosts, dtype=bool)
        self.gcount: list[dict[int, int]] = [{} for _ in range(n_hosts)]
        for v, g in enumerate(groups.tolist()):
            if g >= 0:
                c = self.gcount[int(self.assign[v])]
                c[g] = c.get(g, 0) + 1
        self.vpeak = norm.max(axis=1).max(axis=1)
        self.varea = norm.sum(axis=(1, 2))

    def area(self) -> npt.NDArray[np.float64]:
        return np.asarray(self.loads.sum(axis=(1, 2)), dtype=np.float64)

    def members(self, h: int) -> npt.NDArray[np.int64]:
        return np.flatnonzero(self.assign == h)

    def move(self, v: int, to: int) -> None:
        frm, g = int(self.assign[v]), int(self.groups[v])
        self.loads[frm] -= self.norm[v]
        self.loads[to] += self.norm[v]
        self.assign[v] = to
        if g >= 0:
            self.gcount[frm][g] -= 1
            self.gcount[to][g] = self.gcount[to].get(g, 0) + 1

    def allowed(self, v: int, hosts: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
        g = int(self.groups[v])
        if g < 0:
            return np.ones(len(hosts), dtype=bool)
        return np.array([self.gcount[h].get(g, 0) == 0 for h in hosts.tolist()], dtype=bool)

    def best_fit(self, v: int, hosts: npt.NDArray[np.int64]) -> int:
        """The host of ``hosts`` where ``v`` fits with the tightest peak after, else -1."""
        hosts = hosts[self.allowed(v, hosts)]
        if not hosts.size:
            return -1
        trial = self.loads[hosts] + self.norm[v]  # (H, T, D)
        stat = step_stat(trial, self.quantile)  # (H, D)
        ok = (stat <= LIM).all(axis=1)
        if not ok.any():
            return -1
        tight = np.where(ok, stat.max(axis=1), -np.inf)
        return int(hosts[int(np.argmax(tight))])

    def fits(self, h: int) -> bool:
        return bool((step_stat(self.loads[h], self.quantile) <= LIM).all())


def targets(state: State, *exclude: int) -> npt.NDArray[np.int64]:
    mask = state.alive.copy()
    for h in exclude:
        mask[h] = False
    return np.flatnonzero(mask)
