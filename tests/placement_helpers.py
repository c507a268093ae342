"""Builders for small placement problems used by several test modules."""

from __future__ import annotations

import numpy as np

from vsizer.placement.problem import PlacementProblem


def problem(
    demand: list[list[float]],
    capacity: list[float],
    *,
    dims: tuple[str, ...] | None = None,
    ceiling: float = 0.6,
    failures: int = 1,
    min_hosts: int = 3,
    base: list[float] | None = None,
    groups: list[int] | None = None,
    pins: list[int] | None = None,
) -> PlacementProblem:
    d = np.asarray(demand, dtype=float)
    n_dims = d.shape[1]
    dims = dims or ("cpu", "mem", "disk_iops", "net_mbps")[:n_dims]
    limit = np.array([1.0 if x == "vcpu" else ceiling for x in dims])
    return PlacementProblem(
        pool="p",
        vm_names=tuple(f"vm{i}" for i in range(len(d))),
        dims=dims,
        demand=d,
        capacity=np.asarray(capacity, dtype=float),
        base_load=np.asarray(base or [0.0] * n_dims, dtype=float),
        limit=limit,
        failover_limit=np.ones(n_dims),
        failures=failures,
        min_hosts=min_hosts,
        anti_affinity=np.asarray(
            groups if groups is not None else [-1] * len(d), dtype=np.int64
        ),
        pins=np.asarray(pins if pins is not None else [-1] * len(d), dtype=np.int64),
    )
