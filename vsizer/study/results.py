"""The value objects of a plan: what :class:`~vsizer.study.core.ConsolidationStudy`
found, economics included; :mod:`vsizer.study.serialize` only formats them."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from vsizer.catalogs.model import HostModel
from vsizer.inventory import Inventory
from vsizer.models.growth import Growth
from vsizer.placement.problem import PlacementProblem
from vsizer.placement.sizing import PoolSizing
from vsizer.quality import PlanWarning, QualityReport
from vsizer.series.align import AlignedSeries
from vsizer.series.model import SeriesQuality
from vsizer.study import frames
from vsizer.study.baseline import Baseline
from vsizer.study.config import Rules
from vsizer.study.count_reason import CountReason
from vsizer.study.economics import Economics
from vsizer.study.ranking import Choice  # issue 16 (tco)
from vsizer.study.rightsizing import RightSizing
from vsizer.study.serialize import plan_to_dict, plan_to_json
from vsizer.study.storage import StorageReport
from vsizer.study.tco import Tco  # issue 16 (tco)


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


@dataclass(frozen=True)
class ConsolidationPlan:
    """Everything a plan found, economics included.

    ``to_dict()`` / ``to_json()`` render it as the document ``vsizer plan -o
    plan.json`` writes (:func:`vsizer.study.serialize.plan_to_dict`).
    """

    inventory: Inventory
    host: HostModel
    host_catalog: str
    rules: Rules
    servers: pd.DataFrame
    capacity_unit: str
    host_capacity: dict[str, float]
    pools: list[PoolResult]
    quality: QualityReport
    #: Power, energy, cost, rack space and target checks (:mod:`vsizer.study.economics`).
    economics: Economics
    warnings: list[PlanWarning] = field(default_factory=list)
    series: SeriesInfo | None = None
    #: The source hosts with power_w and rack_u (virtualized sources), else None.
    before: pd.DataFrame | None = None
    #: issue 23: today's clusters, the ratios of ``vcpu_per_core = "today"`` and
    #: the comparison with today (:mod:`vsizer.study.baseline`); None without
    #: hosts before.
    baseline: Baseline | None = None
    #: The ``predictions`` section (:func:`vsizer.study.predict.predict_plan`) when
    #: asked (``vsizer.plan(..., predict=True)`` or a profile), else None.
    predictions: dict[str, Any] | None = None
    #: Right-sizing recommendations (:mod:`vsizer.study.rightsizing`).
    rightsizing: RightSizing | None = None
    #: Storage per pool (:mod:`vsizer.study.storage`); None without disk capacity.
    storage: StorageReport | None = None
    #: The growth study (:func:`vsizer.study.growth.with_growth`) when the rules
    #: state a growth, else None.
    growth: Growth | None = None
    #: issue 16 (tco): total cost of ownership (:mod:`vsizer.study.tco`) when any
    #: cost beyond energy is given or the host model was chosen; else None.
    tco: Tco | None = None
    #: issue 16 (tco): the host-model choice of ``--host-model auto``
    #: (:mod:`vsizer.study.choice`); this plan is the winner's.
    choice: Choice | None = None

    def to_dict(self, *, detail: bool = True) -> dict[str, Any]:
        """The plan document (``docs/plan-schema.md``); ``detail=False``: without
        the per-server lists (:func:`~vsizer.study.serialize.plan_to_dict`)."""
        return plan_to_dict(self, detail=detail)

    # -- notebooks (issue 27) ------------------------------------------------------
    @functools.cached_property
    def _doc(self) -> dict[str, Any]:
        return plan_to_dict(self)

    @property
    def hosts(self) -> pd.DataFrame:
        """One row per planned host (:func:`vsizer.study.frames.hosts_frame`)."""
        return frames.hosts_frame(self._doc)

    @property
    def placement(self) -> pd.DataFrame:
        """One row per VM: pool and host (:func:`vsizer.study.frames.placement_frame`)."""
        return frames.placement_frame(self._doc)

    @property
    def pools_frame(self) -> pd.DataFrame:
        """One row per pool (``pools`` keeps the study's pool objects)."""
        return frames.pools_frame(self._doc)

    @property
    def warnings_frame(self) -> pd.DataFrame:
        """One row per warning (``warnings`` keeps the warning objects)."""
        return frames.warnings_frame(self._doc)

    def __repr__(self) -> str:
        s = self._doc["summary"]
        return (
            f"<ConsolidationPlan {s['servers']} servers -> {s['hosts']} hosts of "
            f"{self.host.model!r}, {s['pools']} pools, survives failover: "
            f"{s['survives_failover']}, {s['warnings']} warnings>"
        )

    def to_json(self) -> str:
        """The plan document as the JSON text ``vsizer plan -o plan.json`` writes."""
        return plan_to_json(self)
