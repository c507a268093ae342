"""N+k failover check: can every k-host failure be absorbed by the survivors?

For each set of k failed hosts, the VMs they ran are re-placed on the
surviving hosts (largest first, each onto the survivor with the most headroom,
as an HA restart would), honouring anti-affinity, within the failover limit
(100 % of capacity by default). The check never mutates its input.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from vsizer.placement.heuristics import greedy_assign, size_order
from vsizer.placement.result import Placement

#: Dimensions whose utilization is reported as "survivor utilization"
#: (the vCPU:core ratio is a density limit, not a utilization).
UTIL_DIMS = ("cpu", "mem", "disk_iops", "disk_mb_s", "net_mbps")


@dataclass
class Scenario:
    failed: list[str]
    moves: list[dict[str, str]]
    unplaced: list[str]
    worst_host: str | None
    worst_util: float
    survivor_util: dict[str, dict[str, float]]
    worst_dimension: str = ""


@dataclass
class FailoverReport:
    """Outcome of :func:`check` for one pool."""

    failures: int
    survives: bool
    scenarios: int
    worst_survivor_util: float
    worst_dimension: str
    worst_scenario: dict[str, Any] | None
    detail: list[Scenario] = field(default_factory=list)

    @property
    def failed_scenarios(self) -> list[Scenario]:
        return [s for s in self.detail if s.unplaced]


def scenario_count(n_hosts: int, failures: int) -> int:
    """Number of k-host failure sets: C(n, k)."""
    return math.comb(n_hosts, failures) if 0 < failures <= n_hosts else 0


def check(
    placement: Placement,
    failures: int | None = None,
    *,
    on_scenario: Callable[[], None] | None = None,
    stop_at_first_failure: bool = False,
) -> FailoverReport:
    """Check that every ``failures``-host failure leaves a valid placement.

    Parameters
    ----------
    placement : Placement
        A feasible placement; not modified.
    failures : int, optional
        Hosts failing at once (k); default ``placement.problem.failures``.
    on_scenario : callable, optional
        Called after each scenario (progress reporting).
    stop_at_first_failure : bool
        Return as soon as one scenario fails (used while sizing).

    Returns
    -------
    FailoverReport
        ``survives`` is True when in every scenario every displaced VM found a
        survivor within the failover limit. ``worst_survivor_util`` is the
        highest utilization of any survivor in any scenario over the
        dimensions of :data:`UTIL_DIMS` (with k = 0: the highest normal
        utilization).
    """
    p = placement.problem
    k = p.failures if failures is None else failures
    n = placement.n_hosts
    util_idx = [i for i, d in enumerate(p.dims) if d in UTIL_DIMS]
    base_loads = placement.host_loads()

    if k == 0 or p.n_vms == 0:
        util = base_loads[:, util_idx] / p.capacity[util_idx] if n else np.zeros((0, 1))
        worst, wdim, whost = _worst(util, [p.dims[i] for i in util_idx])
        return FailoverReport(0, True, 0, worst, wdim, None)
    if k >= n:
        return FailoverReport(k, False, 0, math.inf, "", None)

    max_load = p.capacity * p.failover_limit
    order_all = size_order(p.demand, p.usable(failover=True))
    rank = np.empty(p.n_vms, dtype=np.int64)
    rank[order_all] = np.arange(p.n_vms)
    n_groups = max(int(p.anti_affinity.max()) + 1, 1)
    base_occ = np.zeros((n, n_groups), dtype=bool)
    grouped = p.anti_affinity >= 0
    base_occ[placement.assignment[grouped], p.anti_affinity[grouped]] = True

    detail: list[Scenario] = []
    survives = True
    worst_all, worst_dim, worst_scn = -1.0, "", None
    for failed in itertools.combinations(range(n), k):
        failed_arr = np.array(failed)
        allowed = np.ones(n, dtype=bool)
        allowed[failed_arr] = False
        displaced = np.flatnonzero(np.isin(placement.assignment, failed_arr))
        displaced = displaced[np.argsort(rank[displaced], kind="stable")]
        loads = base_loads.copy()
        occ = base_occ.copy()
        occ[failed_arr] = False
        chosen = greedy_assign(
            displaced,
            p.demand,
            loads,
            max_load,
            p.anti_affinity,
            occ,
            allowed,
            None,
            "balanced",
        )
        unplaced = [
            p.vm_names[v] for v, h in zip(displaced, chosen, strict=True) if h < 0
        ]
        moves = [
            {"vm": p.vm_names[v], "to": p.host_id(int(h))}
            for v, h in zip(displaced, chosen, strict=True)
            if h >= 0
        ]
        surv = np.flatnonzero(allowed)
        util = loads[surv][:, util_idx] / p.capacity[util_idx]
        worst, wdim, wrow = _worst(util, [p.dims[i] for i in util_idx])
        received = sorted({int(h) for h in chosen if h >= 0})
        scenario = Scenario(
            failed=[p.host_id(int(f)) for f in failed],
            moves=moves,
            unplaced=unplaced,
            worst_host=p.host_id(int(surv[wrow])) if wrow is not None else None,
            worst_util=worst,
            worst_dimension=wdim,
            survivor_util={
                p.host_id(h): {
                    p.dims[i]: float(loads[h, i] / p.capacity[i]) for i in util_idx
                }
                for h in received
            },
        )
        detail.append(scenario)
        if unplaced:
            survives = False
        if worst > worst_all:
            worst_all, worst_dim = worst, wdim
            worst_scn = {"failed": scenario.failed, "host": scenario.worst_host}
        if on_scenario is not None:
            on_scenario()
        if unplaced and stop_at_first_failure:
            break
    return FailoverReport(
        failures=k,
        survives=survives,
        scenarios=scenario_count(n, k),
        worst_survivor_util=worst_all,
        worst_dimension=worst_dim,
        worst_scenario=worst_scn,
        detail=detail,
    )


def _worst(util: np.ndarray, dims: list[str]) -> tuple[float, str, int | None]:
    if util.size == 0:
        return 0.0, "", None
    flat = int(np.argmax(util))
    row, col = divmod(flat, util.shape[1])
    return float(util[row, col]), dims[col], row
