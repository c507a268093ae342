"""The value object of a whole plan: what
:class:`~vsizer.study.core.ConsolidationStudy` found, economics included. It does
not know its document (:mod:`vsizer.study.serialize` formats it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from vsizer.catalogs.model import HostModel
from vsizer.inventory import Inventory
from vsizer.models.growth import Growth
from vsizer.quality import PlanWarning, QualityReport
from vsizer.study.baseline import Baseline
from vsizer.study.config import Rules
from vsizer.study.economics import Economics
from vsizer.study.ranking import Choice
from vsizer.study.results import PoolResult, SeriesInfo
from vsizer.study.rightsizing import RightSizing
from vsizer.study.storage import StorageReport
from vsizer.study.tco import Tco


@dataclass(frozen=True)
class PlanResult:
    """Everything a plan found, economics included: values only.
    :func:`vsizer.study.serialize.plan_to_dict` formats them as the plan
    document; :class:`~vsizer.study.consolidation.ConsolidationPlan` adds
    ``to_dict()`` and ``to_json()``.
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
    #: Today's clusters, the ratios of ``vcpu_per_core = "today"`` and
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
    #: Total cost of ownership (:mod:`vsizer.study.tco`) when any
    #: cost beyond energy is given or the host model was chosen; else None.
    tco: Tco | None = None
    #: The host-model choice of ``--host-model auto``
    #: (:mod:`vsizer.study.choice`); this plan is the winner's.
    choice: Choice | None = None
