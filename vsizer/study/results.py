"""The value objects of one plan's parts: a pool sized and placed
(:class:`PoolResult`) and the series the plan used (:class:`SeriesInfo`). The
whole plan is :class:`~vsizer.study.plan_result.PlanResult`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from vsizer.placement.problem import PlacementProblem
from vsizer.placement.sizing import Placed, PoolSizing
from vsizer.series.align import AlignedSeries
from vsizer.series.model import SeriesQuality
from vsizer.study.count_reason import CountReason


@dataclass
class PoolResult:
    """One pool sized and placed, on peak figures or on demand curves
    (``sizing.on_curves``; then ``vm_curves`` holds the pool's demand)."""

    name: str
    ceiling: float
    failures: int
    min_hosts: int
    sizing: PoolSizing  # scalar or curve sizing (curve fields set: sizing.on_curves)
    problem: PlacementProblem | None = None
    vm_curves: np.ndarray | None = None  # (n_vms, T, D) demand, pool order
    #: Why the pool has its host count (:mod:`vsizer.study.count_reason`).
    count_reason: CountReason | None = None
    #: Scalar sizing: the greedy placements it made, reused by the count
    #: reason's sizings that place alike, then dropped (None).
    placed: Placed | None = field(default=None, repr=False, compare=False)


@dataclass
class SeriesInfo:
    """What the plan's time series were and how they were used."""

    source: str
    source_format: str
    aligned: AlignedSeries
    demand_report: dict[str, Any]
    matched: int
    series_only: list[str]
    inventory_only: list[str]
    quality: SeriesQuality
    #: (inventory name, series name) pairs matched ignoring case or domain suffix.
    loose: list[tuple[str, str]] = field(default_factory=list)
    #: Inventory (average, peak) CPU utilization of servers with series [fraction].
    inventory_util: dict[str, tuple[float, float]] = field(default_factory=dict)
    #: Per server, plan order: demand as without series (series.coverage.scalar_demand).
    scalar_demand: np.ndarray | None = None
    #: Per server, plan order: True when it has no CPU curve (placed flat).
    cpu_flat: np.ndarray | None = None
