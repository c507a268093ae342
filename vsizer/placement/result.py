"""The output of every placement strategy."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from vsizer.placement.problem import PlacementProblem


@dataclass(frozen=True, eq=False)
class Placement:
    """An assignment of the problem's VMs to ``n_hosts`` hosts.

    Attributes
    ----------
    problem : PlacementProblem
    n_hosts : int
    assignment : ndarray of int, shape (n_vms,)
        Host index per VM; -1 means unplaced (status 'infeasible').
    status : str
        'feasible' (every VM placed within the limits) or 'infeasible'.
    strategy : str
        Name of the strategy in ``STRATEGIES``.
    parameters : dict
        The strategy's parameters.
    solve_time_s : float
        Wall time [s]; kept out of JSON so plans stay byte-identical.
    """

    problem: PlacementProblem
    n_hosts: int
    assignment: npt.NDArray[np.int64]
    status: str
    strategy: str
    parameters: dict[str, Any] = field(default_factory=dict)
    solve_time_s: float = 0.0

    @property
    def feasible(self) -> bool:
        return self.status == "feasible"

    def host_loads(self) -> npt.NDArray[np.float64]:
        """Load per host and dimension, base load included, shape (n_hosts, n_dims)."""
        p = self.problem
        n = self.n_hosts
        placed = self.assignment >= 0
        # Per dimension, each host's base load and then its VMs' demand, added in
        # VM order: the sums (and roundings) of np.add.at on the tiled base load,
        # by bincount, which adds its weights in their order, without add.at's
        # per-element cost.
        hosts = np.concatenate([np.arange(n), self.assignment[placed]])
        demand = p.demand[placed]
        columns = [np.bincount(hosts, np.concatenate([np.full(n, p.base_load[d]),
                                                      demand[:, d]]), minlength=n)
                   for d in range(len(p.dims))]
        return np.column_stack(columns) if columns else np.zeros((n, 0))

    def host_utilization(self) -> npt.NDArray[np.float64]:
        """Load / capacity per host and dimension [fraction]."""
        return self.host_loads() / self.problem.capacity

    def vms_on(self, host: int) -> list[str]:
        names = self.problem.vm_names
        return [names[v] for v in np.flatnonzero(self.assignment == host)]
