"""The placement problem of one resource pool: the only input of every strategy."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from vsizer.errors import InfeasiblePlacementError

#: Dimensions a host has, in this order. ``vcpu`` is a count limit (no ceiling);
#: the others are utilizations that the ceiling applies to.
DIMENSIONS: tuple[str, ...] = (
    "cpu",
    "mem",
    "vcpu",
    "disk_iops",
    "disk_mb_s",
    "net_mbps",
)

#: Dimensions checked only where the host model and the servers give a figure
#: (I/O); cpu, mem and vcpu are always checked.
IO_DIMS: tuple[str, ...] = ("disk_iops", "disk_mb_s", "net_mbps")

#: Dimensions whose utilization is reported (survivor utilization after a
#: failure, worst host, replayed curves): all but ``vcpu``, whose vCPU:core
#: ratio is a density limit, not a utilization.
UTIL_DIMS: tuple[str, ...] = tuple(d for d in DIMENSIONS if d != "vcpu")

#: Relative tolerance when comparing a load with its limit (float round-off).
EPS = 1e-9


@dataclass(frozen=True, eq=False)
class PlacementProblem:
    """VMs of one pool to be placed on identical hosts.

    Attributes
    ----------
    pool : str
        Pool name; host ids are ``f"{pool}-{i:02d}"`` with i from 1.
    vm_names : tuple of str
        VM names, in input order.
    dims : tuple of str
        Active dimensions, a subset of :data:`DIMENSIONS` in that order.
    demand : ndarray, shape (n_vms, n_dims)
        What each VM needs, in each dimension's unit.
    capacity : ndarray, shape (n_dims,)
        What one host has, in the same units.
    base_load : ndarray, shape (n_dims,)
        Load a host carries before any VM (hypervisor memory reserve).
    limit : ndarray, shape (n_dims,)
        Normal-operation limit as a fraction of capacity (the ceiling; 1 for vcpu).
    failover_limit : ndarray, shape (n_dims,)
        Limit on survivors after a failure, fraction of capacity (default 1).
    failures : int
        Host failures to tolerate (k).
    min_hosts : int
        Minimum number of hosts in the pool.
    anti_affinity : ndarray of int, shape (n_vms,)
        Group id per VM; VMs of one group never share a host. -1 = no group.
    pins : ndarray of int, shape (n_vms,)
        Host index (0-based) a VM must start on; -1 = free.
    failover_budget : int
        Work of one failover check in host-scenarios (scenarios x hosts x k):
        beyond it the check takes ``failover_budget // (hosts x k)`` scenarios, those failing
        the most loaded hosts first (:func:`vsizer.placement.failover.check`).
    restart_priority : ndarray of int, shape (n_vms,)
        Order in which a failed host's VMs are restarted: lower first, largest
        first within one value (default all 0: largest first).
    """

    pool: str
    vm_names: tuple[str, ...]
    dims: tuple[str, ...]
    demand: npt.NDArray[np.float64]
    capacity: npt.NDArray[np.float64]
    base_load: npt.NDArray[np.float64]
    limit: npt.NDArray[np.float64]
    failover_limit: npt.NDArray[np.float64]
    failures: int = 1
    min_hosts: int = 3
    anti_affinity: npt.NDArray[np.int64] = field(
        default_factory=lambda: np.zeros(0, dtype=np.int64)
    )
    pins: npt.NDArray[np.int64] = field(
        default_factory=lambda: np.zeros(0, dtype=np.int64)
    )
    failover_budget: int = 5_000_000
    restart_priority: npt.NDArray[np.int64] = field(
        default_factory=lambda: np.zeros(0, dtype=np.int64)
    )

    def __post_init__(self) -> None:
        n, d = self.demand.shape
        if len(self.vm_names) != n or len(self.dims) != d:
            raise ValueError("demand shape does not match vm_names x dims")
        if self.anti_affinity.size == 0:
            object.__setattr__(self, "anti_affinity", np.full(n, -1, dtype=np.int64))
        if self.pins.size == 0:
            object.__setattr__(self, "pins", np.full(n, -1, dtype=np.int64))
        if self.restart_priority.size == 0:
            object.__setattr__(self, "restart_priority", np.zeros(n, dtype=np.int64))
        for name in ("capacity", "base_load", "limit", "failover_limit"):
            if getattr(self, name).shape != (d,):
                raise ValueError(f"{name} must have shape ({d},)")
        if (self.capacity <= 0).any():
            bad = [self.dims[i] for i in np.flatnonzero(self.capacity <= 0)]
            raise InfeasiblePlacementError(
                f"pool '{self.pool}': the host model has no capacity in {', '.join(bad)}"
            )

    @property
    def n_vms(self) -> int:
        return len(self.vm_names)

    def host_id(self, index: int) -> str:
        return f"{self.pool}-{index + 1:02d}"

    def usable(self, failover: bool = False) -> npt.NDArray[np.float64]:
        """Load a host may carry for VMs (after its base load), per dimension."""
        lim = self.failover_limit if failover else self.limit
        return self.capacity * lim - self.base_load

    def check_each_vm_fits(self) -> None:
        """Raise if a VM exceeds one empty host at the ceiling (no plan can hold it)."""
        usable = self.usable()
        over = self.demand > usable * (1 + EPS)
        if not over.any():
            return
        lines = []
        for v, d in zip(*np.nonzero(over), strict=True):
            dim = self.dims[d]
            lines.append(
                f"pool '{self.pool}': VM '{self.vm_names[v]}' needs {self.demand[v, d]:.6g} "
                f"{dim} but one host offers {usable[d]:.6g} at its limit "
                f"({self.limit[d]:.0%} of {self.capacity[d]:.6g}, less base load "
                f"{self.base_load[d]:.6g}) [capacity constraint on '{dim}']"
            )
        raise InfeasiblePlacementError("\n".join(lines))
