"""Placement on demand curves: a host accepts a VM when the summed demand stays
under the limit at every step (or at the chosen quantile of steps), per dimension.

Peaks that do not coincide can share a host: two VMs that each peak at 0.5 at
different hours fit on one host at ceiling 0.6 where their peak sum (1.0) does not.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from vsizer.placement.problem import EPS

#: Hosts checked at once in the full series test (bounds memory to chunk x T x D).
CHUNK = 32


def series_lower_bounds(
    demand: npt.NDArray[np.floating], usable: npt.NDArray[np.float64]
) -> dict[str, list[int]]:
    """Lower bounds on hosts from curves, per dimension.

    ``series``: ceil(max over steps of summed demand / usable per host) — valid for
    any placement on the curves (at the busiest step everything must fit).
    ``peak_sum``: ceil(sum of per-VM peaks / usable) — what peak-based sizing needs
    at least; the difference between the two is what coinciding-peak-aware
    placement can save.

    ``demand`` has shape (n_vms, n_steps, n_dims); ``usable`` (n_dims,).
    """
    total = demand.sum(axis=0, dtype=np.float64)  # (T, D)
    series = np.ceil(total.max(axis=0) / usable - EPS).astype(int)
    peaks = demand.max(axis=1).sum(axis=0, dtype=np.float64)
    peak_sum = np.ceil(peaks / usable - EPS).astype(int)
    l2 = [
        max(int(series[d]), step_l2_bound(demand[:, :, d], float(usable[d])))
        for d in range(demand.shape[2])
    ]
    return {"series": series.tolist(), "peak_sum": peak_sum.tolist(), "l2": l2}


def l2_bound(items: npt.NDArray[np.floating], capacity: float) -> int:
    """Martello and Toth's L2 lower bound for one bin-packing instance.

    S. Martello, P. Toth, *Knapsack Problems: Algorithms and Computer
    Implementations*, Wiley 1990, ch. 8.3.1: for 0 <= a <= C/2, J1 = items
    above C - a, J2 = items in (C/2, C - a], J3 = items in [a, C/2];
    L(a) = |J1| + |J2| + max(0, ceil((sum J3 - (|J2| C - sum J2)) / C)), and
    L2 = max over a, reached at a = 0 or at an item size in [0, C/2].
    """
    w = np.sort(np.asarray(items, dtype=np.float64))
    w = w[w > 0]
    if not w.size or capacity <= 0:
        return 0
    cum = np.concatenate([[0.0], np.cumsum(w)])
    half = np.searchsorted(w, capacity / 2, side="right")  # w[:half] <= C/2
    alphas = np.concatenate([[0.0], np.unique(w[:half])])
    lo3 = np.searchsorted(w, alphas, side="left")  # first item >= a
    hi2 = np.searchsorted(w, capacity - alphas + capacity * EPS, side="right")  # <= C-a
    n1 = w.size - hi2
    n2 = hi2 - half
    sum2 = cum[hi2] - cum[half]
    sum3 = cum[half] - cum[lo3]
    rest = np.ceil((sum3 - (n2 * capacity - sum2)) / capacity - EPS)
    return int((n1 + n2 + np.maximum(0.0, rest)).max())


def step_l2_bound(demand: npt.NDArray[np.floating], capacity: float) -> int:
    """Max over steps of :func:`l2_bound` (demand (n_vms, n_steps), one dimension).

    Only steps with an item above half a host can beat the sum bound there
    (without one, L2 = ceil(sum / C)), so only those are computed, and each
    distinct step once: curves flat over most of a long grid (servers at their
    inventory peak) repeat one step hundreds of thousands of times.
    """
    big = np.flatnonzero((demand > capacity / 2 * (1 + EPS)).any(axis=0))
    if not big.size:
        return 0
    cols = np.asarray(demand[:, big], dtype=np.float64)
    runs = np.concatenate(([True], (cols[:, 1:] != cols[:, :-1]).any(axis=0)))
    steps = np.unique(cols[:, runs].T, axis=0)  # runs of equal steps first: no sort
    return max(l2_bound(step, capacity) for step in steps)


def count_bound(demand: npt.NDArray[np.floating], usable: npt.NDArray[np.float64]) -> int:
    """Hosts needed by the count of VMs a host can hold in a flat dimension.

    In a dimension constant over time for every VM (memory in most traces) the demand
    is one scalar per VM, and no host holds more VMs than the ``k`` smallest of them
    that fit together (sum within the usable load, tolerance ``1e-6``): at least
    ceil(n / k) hosts. Equal items are where it beats the sum bound: 1,052 VMs of
    1 GiB on 28.8 GiB usable hold 28 a host, 38 hosts where the sum gives 37.
    0 without a flat dimension. ``demand`` (n_vms, n_steps, n_dims).
    """
    n = demand.shape[0]
    best = 0
    for d in range(demand.shape[2] if n else 0):
        col = demand[:, :, d]
        if not bool((col == col[:, :1]).all()):
            continue
        sizes = np.sort(np.asarray(col[:, 0], dtype=np.float64))
        k = int(np.searchsorted(np.cumsum(sizes), usable[d] * (1.0 + 1e-6), side="right"))
        best = max(best, math.ceil(n / max(k, 1)))
    return best


def step_stat(
    loads: npt.NDArray[np.floating], quantile: float | None
) -> npt.NDArray[np.floating]:
    """Max (quantile None) or quantile over the step axis (axis -2)."""
    if quantile is None:
        return loads.max(axis=-2)
    return np.quantile(loads, quantile, axis=-2, method="higher")


def first_fit_series(
    demand: npt.NDArray[np.floating],
    max_load: npt.NDArray[np.float64],
    *,
    quantile: float | None = None,
    groups: npt.NDArray[np.int64] | None = None,
    base_load: npt.NDArray[np.float64] | None = None,
) -> tuple[npt.NDArray[np.int64], int]:
    """First-fit decreasing on curves, opening hosts as needed.

    Synopsis
        Pack VMs onto the fewest hosts so that at every step (or the ``quantile``
        of steps) each host's summed demand stays within ``max_load``.
    Parameters
        demand (n_vms, n_steps, n_dims); max_load (n_dims,) = capacity x ceiling;
        quantile None (every step) or e.g. 0.95; groups: anti-affinity ids (-1
        none); base_load (n_dims,) carried by every host.
    Algorithm
        VMs by decreasing normalized peak. For each VM, hosts are tried in order:
        a host whose peak plus the VM's peak fits is accepted at once (cheap
        bound); a host is skipped when the limit is already broken at the
        host's own peak step, at the VM's peak step, or on average (necessary
        conditions, O(hosts x dims)); the others get the full series check,
        CHUNK hosts at a time. No host fits -> open a new one.
    Returns
        (host index per VM, number of hosts).
    """
    out, hosts = fit_curves(
        demand, max_load, quantile=quantile, groups=groups, base_load=base_load
    )
    assert out is not None
    return out, hosts


def fit_curves(
    demand: npt.NDArray[np.floating],
    max_load: npt.NDArray[np.float64],
    *,
    quantile: float | None = None,
    groups: npt.NDArray[np.int64] | None = None,
    base_load: npt.NDArray[np.float64] | None = None,
    n_hosts: int | None = None,
    spread: bool = False,
    pins: npt.NDArray[np.int64] | None = None,
) -> tuple[npt.NDArray[np.int64] | None, int]:
    """Place VMs on their curves: first fit (open hosts as needed) or onto a fixed count.

    ``n_hosts`` None opens hosts as needed (first-fit decreasing, see
    :func:`first_fit_series`); an int places onto exactly that many hosts and
    returns ``(None, n_hosts)`` when some VM fits nowhere. ``spread`` tries hosts
    in increasing order of their current peak (balanced: leaves headroom on every
    host for failover) instead of in index order (packed). ``pins`` (host index
    per VM, -1 free) places those VMs first, on their host, unconditionally.
    """
    n, t, d = demand.shape
    base = np.zeros(d) if base_load is None else np.asarray(base_load, dtype=float)
    groups = np.full(n, -1, dtype=np.int64) if groups is None else groups
    pins = np.full(n, -1, dtype=np.int64) if pins is None else pins
    inv = 1.0 / max_load
    vms = _VmCurves.of(demand, inv)
    order = np.argsort(-vms.peak.max(axis=1), kind="stable")
    pinned = pins >= 0
    order = np.concatenate([order[pinned[order]], order[~pinned[order]]])
    opened = max(int(pins.max()) + 1 if pinned.any() else 0, n_hosts or 0)
    cap = max(min(n, 64), opened, 1)  # host slots; doubled when full
    hosts = _OpenHosts.start(opened, cap, t, d, (base * inv).astype(np.float32))
    out = np.full(n, -1, dtype=np.int64)
    for v in order:
        g = int(groups[v])
        chosen = int(pins[v])
        if chosen < 0 and hosts.count:
            chosen = hosts.first_fit(vms, int(v), g, spread, quantile)
        if chosen < 0:
            if n_hosts is not None:
                return None, n_hosts
            chosen = hosts.open_one()
        hosts.add(chosen, vms.norm[v], g)
        out[v] = chosen
    return out, hosts.count


#: A load at most this (units of max_load) fits: float32 round-off of an exact fit.
_LIM = 1.0 + 1e-6
#: The cheap bounds only filter candidates for the exact check, so they allow for
#: float32 round-off rather than wrongly discard a host that fits exactly.
_PRUNE = 1.0 + 1e-4


@dataclass(frozen=True)
class _VmCurves:
    """VM curves in units of one host's max load, and their cheap summaries."""

    norm: npt.NDArray[np.float32]  # (V, T, D)
    peak: npt.NDArray[np.float32]  # (V, D) true peaks (bound is valid for any quantile)
    mean: npt.NDArray[np.float64]  # (V, D)
    peak_t: npt.NDArray[np.int64]  # (V, D) step of each VM's peak

    @classmethod
    def of(cls, demand: npt.NDArray[np.floating], inv: npt.NDArray[np.float64]) -> _VmCurves:
        norm = demand.astype(np.float32) * inv.astype(np.float32)
        return cls(
            norm, step_stat(norm, None), norm.mean(axis=1, dtype=np.float64),
            norm.argmax(axis=1),
        )


@dataclass
class _OpenHosts:
    """The hosts opened so far: load curves and per-dimension peak, mean, peak step."""

    loads: npt.NDArray[np.float32]  # (slots, T, D)
    peak: npt.NDArray[np.float64]  # (slots, D)
    mean: npt.NDArray[np.float64]  # (slots, D)
    peak_t: npt.NDArray[np.int64]  # (slots, D) step of each host's peak
    occupied: list[set[int]]  # anti-affinity groups on each host
    count: int
    base: npt.NDArray[np.float32]  # (D,) base load of an empty host

    @classmethod
    def start(
        cls, opened: int, cap: int, t: int, d: int, base: npt.NDArray[np.float32]
    ) -> _OpenHosts:
        """``opened`` empty hosts (base load only), room for ``cap``."""
        hosts = cls(
            np.empty((cap, t, d), dtype=np.float32), np.empty((cap, d), dtype=np.float64),
            np.empty((cap, d), dtype=np.float64), np.zeros((cap, d), dtype=np.int64),
            [set() for _ in range(opened)], opened, base,
        )
        hosts.loads[:opened] = base
        hosts.peak[:opened] = base
        hosts.mean[:opened] = base
        return hosts

    def open_one(self) -> int:
        """Open a new empty host (doubling the slots when full); its index."""
        if self.count == len(self.loads):
            self.loads = np.concatenate([self.loads, np.empty_like(self.loads)])
            self.peak = np.concatenate([self.peak, np.empty_like(self.peak)])
            self.mean = np.concatenate([self.mean, np.empty_like(self.mean)])
            self.peak_t = np.concatenate([self.peak_t, np.zeros_like(self.peak_t)])
        h = self.count
        self.count += 1
        self.loads[h] = self.base
        self.occupied.append(set())
        return h

    def add(self, h: int, curve: npt.NDArray[np.float32], group: int) -> None:
        """Put a VM's curve on host ``h`` and refresh its summaries."""
        dims = np.arange(curve.shape[1])
        self.loads[h] += curve
        self.peak_t[h] = self.loads[h].argmax(axis=0)
        self.peak[h] = self.loads[h][self.peak_t[h], dims]
        self.mean[h] = self.loads[h].mean(axis=0, dtype=np.float64)
        if group >= 0:
            self.occupied[h].add(group)

    def first_fit(
        self, vms: _VmCurves, v: int, group: int, spread: bool, quantile: float | None
    ) -> int:
        """The first host (index or peak order) where VM ``v`` fits, else -1.

        A host whose peak plus the VM's peak fits is accepted at once; hosts
        before it are skipped when a necessary condition fails (at the host's
        own peak step, at the VM's peak step, on average), the rest get the
        full series check, CHUNK hosts at a time.
        """
        hosts, dims = self.count, np.arange(self.peak.shape[1])
        if spread:
            perm = np.argsort(self.peak[:hosts].max(axis=1), kind="stable")
            hp, hm, ht = self.peak[perm], self.mean[perm], self.peak_t[perm]
        else:  # index order: views, no copies
            perm = np.arange(hosts)
            hp, hm, ht = self.peak[:hosts], self.mean[:hosts], self.peak_t[:hosts]
        sure = (hp + vms.peak[v] <= _LIM).all(axis=1)
        possible = np.ones(len(perm), dtype=bool)
        if quantile is None:
            # The mean is a necessary bound only when every step must fit
            # (with a quantile the steps left out may carry the mean over).
            possible &= (hm + vms.mean[v] <= _PRUNE).all(axis=1)
            # Necessary at every step, so in particular at the host's own
            # peak step and at the VM's peak step: cheap gathers, no scan.
            rows = perm[:, None]
            at_host_peak = self.loads[rows, ht, dims] + vms.norm[v][ht, dims]
            at_vm_peak = self.loads[rows, vms.peak_t[v][None, :], dims] + vms.peak[v]
            possible &= (at_host_peak <= _PRUNE).all(axis=1)
            possible &= (at_vm_peak <= _PRUNE).all(axis=1)
        if group >= 0:
            free = np.array([group not in self.occupied[h] for h in perm.tolist()])
            sure &= free
            possible &= free
        first_sure = int(np.argmax(sure)) if sure.any() else hosts
        cand = np.flatnonzero(possible[:first_sure] & ~sure[:first_sure])
        for i in range(0, len(cand), CHUNK):
            idx = perm[cand[i : i + CHUNK]]
            stat = step_stat(self.loads[idx] + vms.norm[v], quantile)  # (c, D)
            ok = np.flatnonzero((stat <= _LIM).all(axis=1))
            if ok.size:
                return int(idx[ok[0]])
        return int(perm[first_sure]) if first_sure < hosts else -1


def replay(
    demand: npt.NDArray[np.floating],
    assignment: npt.NDArray[np.int64],
    n_hosts: int,
    capacity: npt.NDArray[np.float64],
    ceiling: npt.NDArray[np.float64],
    base_load: npt.NDArray[np.float64] | None = None,
) -> dict[str, list[int]]:
    """Replay the full curves on a placement: per host, steps over the ceiling and over 100 %.

    A step counts once per host if any dimension exceeds. Returns lists indexed by host.
    """
    _, t, d = demand.shape
    loads = np.zeros((n_hosts, t, d))
    np.add.at(loads, assignment, demand)
    if base_load is not None:
        loads += base_load
    util = loads / capacity
    over_ceiling = (util > ceiling * (1 + 1e-6)).any(axis=2).sum(axis=1)
    over_full = (util > 1 + 1e-6).any(axis=2).sum(axis=1)
    return {"over_ceiling": over_ceiling.tolist(), "over_100": over_full.tolist()}


def hosts_needed_peak_sum(
    demand: npt.NDArray[np.floating], max_load: npt.NDArray[np.float64]
) -> int:
    """Hosts that first-fit decreasing needs on per-VM peaks (the classic sizing)."""
    peaks = demand.max(axis=1)[:, None, :]  # one step holding each VM's peak
    _, hosts = first_fit_series(peaks, max_load)
    return hosts


__all__ = [
    "first_fit_series",
    "l2_bound",
    "step_l2_bound",
    "fit_curves",
    "hosts_needed_peak_sum",
    "replay",
    "series_lower_bounds",
]
