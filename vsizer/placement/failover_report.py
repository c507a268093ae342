"""What an N+k failover check found: one :class:`Scenario` per set of failed hosts,
summed up in one :class:`FailoverReport` (for placements on scalar demand and on
demand curves alike)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

#: Most failure scenarios a plan document lists per pool: C(hosts, k) grows
#: fast (N+8 on 20 hosts: 125,970 scenarios, 54 MB of JSON). Beyond it the
#: failed ones and then those with the highest worst-survivor utilization are
#: listed, in the order they were checked, and the plan warns.
MAX_LISTED_SCENARIOS = 200


@dataclass(frozen=True)
class Scenario:
    """One set of failed hosts and how their VMs were re-placed on the survivors.

    Attributes
    ----------
    failed : list of str
        Host ids of the failed hosts.
    moves : list of dict
        ``{"vm": name, "to": host id}`` per re-placed VM, in placement order.
    unplaced : list of str
        VMs that fit on no survivor within the failover limit (on curves: placed
        over the limit where the resulting peak is lowest).
    worst_host : str or None
        The survivor with the highest utilization (None: no survivor).
    worst_util : float
        Its utilization (fraction of capacity; inf with no survivor).
    worst_dimension : str
        The dimension of ``worst_util`` ("" when unknown).
    survivor_util : dict
        ``{host id: {dimension: utilization}}`` of the survivors that received
        VMs (on curves: their peak over the steps).
    worst_step : int, optional
        On curves: the step index of ``worst_util`` (None otherwise).
    steps_over_100 : int, optional
        On curves: survivor-steps above 100 % (None otherwise).
    """

    failed: list[str]
    moves: list[dict[str, str]]
    unplaced: list[str]
    worst_host: str | None
    worst_util: float
    worst_dimension: str
    survivor_util: dict[str, dict[str, float]]
    worst_step: int | None = None
    steps_over_100: int | None = None


@dataclass(frozen=True)
class FailoverReport:
    """Outcome of :func:`vsizer.placement.failover.check` for one pool.

    Attributes
    ----------
    failures : int
        Hosts failing at once (k).
    survives : bool
        Every displaced VM of every scenario found a survivor within the limit.
    scenarios : int
        Number of k-host failure sets, C(n, k).
    worst_survivor_util : float
        Highest utilization of any survivor in any scenario over the reported
        dimensions (with k = 0: the highest normal utilization).
    worst_dimension : str
        Its dimension.
    worst_scenario : dict or None
        ``{"failed": host ids, "host": worst host}`` of that scenario.
    detail : list of Scenario
        Every scenario checked, in order.
    """

    failures: int
    survives: bool
    scenarios: int
    worst_survivor_util: float
    worst_dimension: str
    worst_scenario: dict[str, Any] | None
    detail: list[Scenario] = field(default_factory=list)

    @property
    def exhaustive(self) -> bool:
        """Every failure set was checked, or one failed (the answer is known either
        way); False when the budget (``max_scenarios``) cut the enumeration."""
        return len(self.detail) >= self.scenarios or not self.survives

    @property
    def failed_scenarios(self) -> list[Scenario]:
        return [s for s in self.detail if s.unplaced]


def scenario_count(n_hosts: int, failures: int) -> int:
    """Number of k-host failure sets: C(n, k)."""
    return math.comb(n_hosts, failures) if 0 < failures <= n_hosts else 0


def summarize(failures: int, detail: list[Scenario], scenarios: int) -> FailoverReport:
    """The report of the scenarios checked: survival and the worst survivor."""
    worst, dim, where = -1.0, "", None
    for sc in detail:
        if sc.worst_util > worst:
            worst, dim = sc.worst_util, sc.worst_dimension
            where = {"failed": sc.failed, "host": sc.worst_host}
    survives = not any(sc.unplaced for sc in detail)
    return FailoverReport(failures, survives, scenarios, worst, dim, where, detail)


def worst_cell(
    util: npt.NDArray[np.floating], dims: list[str]
) -> tuple[float, str, int | None]:
    """Highest value of a (hosts, dims) table, its dimension and row (first on ties)."""
    if util.size == 0:
        return 0.0, "", None
    flat = int(np.argmax(util))
    row, col = divmod(flat, util.shape[1])
    return float(util[row, col]), dims[col], row
