"""Placement on demand curves: a host accepts a VM when the summed demand stays
under the limit at every step (or at the chosen quantile of steps), per dimension.

Peaks that do not coincide can share a host: two VMs that each peak at 0.5 at
different hours fit on one host at ceiling 0.6 where their peak sum (1.0) does not.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

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
    return {"series": series.tolist(), "peak_sum": peak_sum.tolist()}


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
    norm = demand.astype(np.float32) * inv.astype(np.float32)  # (V, T, D)
    vpeak = step_stat(
        norm, None
    )  # (V, D) true peaks (bound is valid for any quantile)
    vmean = norm.mean(axis=1, dtype=np.float64)
    vpeak_t = norm.argmax(axis=1)  # (V, D) step of each VM's peak
    order = np.argsort(-vpeak.max(axis=1), kind="stable")
    pinned = pins >= 0
    order = np.concatenate([order[pinned[order]], order[~pinned[order]]])
    lim = 1.0 + 1e-6
    # The cheap bounds only filter candidates for the exact check, so they allow
    # for float32 round-off rather than wrongly discard a host that fits exactly.
    prune = 1.0 + 1e-4
    opened = max(int(pins.max()) + 1 if pinned.any() else 0, n_hosts or 0)
    cap = max(min(n, 64), opened, 1)  # host slots; doubled when full
    loads = np.empty((cap, t, d), dtype=np.float32)
    peak = np.empty((cap, d), dtype=np.float64)
    mean = np.empty((cap, d), dtype=np.float64)
    peak_t = np.zeros((cap, d), dtype=np.int64)  # step of each host's peak
    dims = np.arange(d)
    base_n = (base * inv).astype(np.float32)
    occupied: list[set[int]] = [set() for _ in range(opened)]
    loads[:opened] = base_n
    peak[:opened] = base_n
    mean[:opened] = base_n
    hosts = opened
    out = np.full(n, -1, dtype=np.int64)
    for v in order:
        g = int(groups[v])
        chosen = int(pins[v])
        if chosen < 0 and hosts:
            if spread:
                perm = np.argsort(peak[:hosts].max(axis=1), kind="stable")
                hp, hm, ht = peak[perm], mean[perm], peak_t[perm]
            else:  # index order: views, no copies
                perm = np.arange(hosts)
                hp, hm, ht = peak[:hosts], mean[:hosts], peak_t[:hosts]
            sure = (hp + vpeak[v] <= lim).all(axis=1)
            possible = np.ones(len(perm), dtype=bool)
            if quantile is None:
                # The mean is a necessary bound only when every step must fit
                # (with a quantile the steps left out may carry the mean over).
                possible &= (hm + vmean[v] <= prune).all(axis=1)
                # Necessary at every step, so in particular at the host's own
                # peak step and at the VM's peak step: cheap gathers, no scan.
                rows = perm[:, None]
                at_host_peak = loads[rows, ht, dims] + norm[v][ht, dims]
                at_vm_peak = loads[rows, vpeak_t[v][None, :], dims] + vpeak[v]
                possible &= (at_host_peak <= prune).all(axis=1)
                possible &= (at_vm_peak <= prune).all(axis=1)
            if g >= 0:
                free = np.array([g not in occupied[h] for h in perm.tolist()])
                sure &= free
                possible &= free
            first_sure = int(np.argmax(sure)) if sure.any() else hosts
            cand = np.flatnonzero(possible[:first_sure] & ~sure[:first_sure])
            for i in range(0, len(cand), CHUNK):
                idx = perm[cand[i : i + CHUNK]]
                stat = step_stat(loads[idx] + norm[v], quantile)  # (c, D)
                ok = np.flatnonzero((stat <= lim).all(axis=1))
                if ok.size:
                    chosen = int(idx[ok[0]])
                    break
            if chosen < 0 and first_sure < hosts:
                chosen = int(perm[first_sure])
        if chosen < 0:
            if n_hosts is not None:
                return None, n_hosts
            if hosts == cap:
                cap *= 2
                loads = np.concatenate([loads, np.empty_like(loads)])
                peak = np.concatenate([peak, np.empty_like(peak)])
                mean = np.concatenate([mean, np.empty_like(mean)])
                peak_t = np.concatenate([peak_t, np.zeros_like(peak_t)])
            chosen = hosts
            hosts += 1
            loads[chosen] = base_n
            occupied.append(set())
        loads[chosen] += norm[v]
        peak_t[chosen] = loads[chosen].argmax(axis=0)
        peak[chosen] = loads[chosen][peak_t[chosen], dims]
        mean[chosen] = loads[chosen].mean(axis=0, dtype=np.float64)
        if g >= 0:
            occupied[chosen].add(g)
        out[v] = chosen
    return out, hosts


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


def failover_on_curves(
    demand: npt.NDArray[np.floating],
    assignment: npt.NDArray[np.int64],
    n_hosts: int,
    capacity: npt.NDArray[np.float64],
    *,
    failures: int = 1,
    failover_limit: float | npt.NDArray[np.float64] = 1.0,
    groups: npt.NDArray[np.int64] | None = None,
    base_load: npt.NDArray[np.float64] | None = None,
    quantile: float | None = None,
    report_dims: npt.NDArray[np.bool_] | None = None,
    stop_at_first_failure: bool = False,
    on_scenario: Callable[[], None] | None = None,
    hints: dict[tuple[int, ...], dict[int, int]] | None = None,
) -> list[dict[str, Any]]:
    """For every set of ``failures`` hosts, re-place their VMs on the survivors using the curves.

    Each displaced VM (largest peak first) goes to the survivor with the lowest
    current peak on which the curve stays within ``failover_limit`` x capacity
    at every step (or at the ``quantile`` of steps); if none can take it, to the
    survivor where the resulting peak is lowest, and the scenario records it as
    forced. Anti-affinity groups are kept where possible. The input placement is
    not modified. ``hints`` ({failed host tuple: {vm index: survivor index}})
    gives known re-placements (e.g. the moves of a check on per-VM peaks, which
    hold on curves that never exceed those peaks): a scenario where the greedy
    re-placement forces a VM takes the hinted moves instead when they keep every
    survivor within the limit.

    Returns one row per scenario: ``failed`` (host indices), ``moves`` ({vm index:
    host index}), ``unplaced_within_limit`` (VM indices forced over the limit),
    ``worst_host``, ``worst_step``, ``worst_dim`` (index), ``worst_util``
    (highest utilization of any survivor at any step over ``report_dims``,
    default all), ``steps_over_100`` (survivor-steps above 100 % on those
    dimensions) and ``survivor_peak`` ({host index: per-dimension peak
    utilization} for the survivors that received VMs).
    """
    import itertools

    n, t, d = demand.shape
    groups = np.full(n, -1, dtype=np.int64) if groups is None else groups
    base = np.zeros(d) if base_load is None else np.asarray(base_load, dtype=float)
    limit = np.broadcast_to(np.asarray(failover_limit, dtype=float), (d,))
    shown = np.ones(d, dtype=bool) if report_dims is None else report_dims
    norm = (demand / capacity).astype(np.float32)  # utilization units
    host_load = np.zeros((n_hosts, t, d), dtype=np.float32)
    np.add.at(host_load, assignment, norm)
    host_load += (base / capacity).astype(np.float32)
    scale = (1.0 / limit).astype(np.float32)  # to units of the failover limit
    ctx = _Failover(norm, assignment, groups, scale, quantile)
    rows: list[dict[str, Any]] = []
    for failed in itertools.combinations(range(n_hosts), failures):
        survivors = [h for h in range(n_hosts) if h not in failed]
        displaced = np.flatnonzero(np.isin(assignment, failed))
        if not survivors:
            rows.append(_no_survivor_row(failed, displaced))
        else:
            loads, moves, forced = ctx.greedy(host_load, survivors, displaced)
            hint = (hints or {}).get(tuple(failed))
            if forced and hint is not None:
                hinted = ctx.apply(host_load, survivors, hint)
                if hinted is not None:
                    loads, moves, forced = hinted, dict(hint), []
            rows.append(_scenario_row(failed, survivors, loads, moves, forced, shown))
        if on_scenario is not None:
            on_scenario()
        if stop_at_first_failure and rows[-1]["unplaced_within_limit"]:
            break
    return rows


class _Failover:
    """Re-placement of displaced VMs on survivors, shared by every scenario."""

    def __init__(
        self,
        norm: npt.NDArray[np.float32],
        assignment: npt.NDArray[np.int64],
        groups: npt.NDArray[np.int64],
        scale: npt.NDArray[np.float32],
        quantile: float | None,
    ) -> None:
        self.norm, self.assignment, self.groups = norm, assignment, groups
        self.scale, self.quantile = scale, quantile
        self.vpeak = (norm * scale).max(axis=1).max(axis=1)

    def greedy(
        self,
        host_load: npt.NDArray[np.float32],
        survivors: list[int],
        displaced: npt.NDArray[np.int64],
    ) -> tuple[npt.NDArray[np.float32], dict[int, int], list[int]]:
        """Largest displaced VM first, onto the least-peaked survivor that holds it."""
        norm, scale, groups, lim = self.norm, self.scale, self.groups, 1.0 + 1e-6
        loads = host_load[survivors].copy()  # (S, T, D)
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
        self,
        host_load: npt.NDArray[np.float32],
        survivors: list[int],
        moves: dict[int, int],
    ) -> npt.NDArray[np.float32] | None:
        """Survivor loads after the given moves, or None if one breaks the limit."""
        loads = host_load[survivors].copy()
        slot = {h: i for i, h in enumerate(survivors)}
        for v, h in moves.items():
            if h not in slot:
                return None
            loads[slot[h]] += self.norm[v]
        stat = step_stat(loads * self.scale, self.quantile)  # (S, D)
        return loads if bool((stat <= 1.0 + 1e-6).all()) else None


def _no_survivor_row(
    failed: tuple[int, ...], displaced: npt.NDArray[np.int64]
) -> dict[str, Any]:
    return {
        "failed": list(failed),
        "moves": {},
        "unplaced_within_limit": displaced.tolist(),
        "worst_host": None,
        "worst_step": None,
        "worst_dim": None,
        "worst_util": float("inf"),
        "steps_over_100": 0,
        "survivor_peak": {},
    }


def _scenario_row(
    failed: tuple[int, ...],
    survivors: list[int],
    loads: npt.NDArray[np.float32],
    moves: dict[int, int],
    forced: list[int],
    shown: npt.NDArray[np.bool_],
) -> dict[str, Any]:
    view = np.where(shown, loads, -np.inf)
    flat = int(np.argmax(view))
    s_idx, step, dim = np.unravel_index(flat, loads.shape)
    received = sorted({s for s in moves.values()})
    peak_of = loads.max(axis=1)  # (S, D)
    return {
        "failed": list(failed),
        "moves": moves,
        "unplaced_within_limit": forced,
        "worst_host": survivors[int(s_idx)],
        "worst_step": int(step),
        "worst_dim": int(dim),
        "worst_util": float(loads[s_idx, step, dim]),
        "steps_over_100": int((loads[:, :, shown] > 1 + 1e-6).any(axis=2).sum()),
        "survivor_peak": {
            h: peak_of[survivors.index(h)].astype(float).tolist() for h in received
        },
    }


__all__ = [
    "failover_on_curves",
    "first_fit_series",
    "fit_curves",
    "hosts_needed_peak_sum",
    "replay",
    "series_lower_bounds",
]
