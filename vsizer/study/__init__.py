"""The study: from an inventory (and series) to a whole consolidation plan."""

from __future__ import annotations

from vsizer.study.choice import plan  # issue 16 (tco): core.plan + auto choice + TCO
from vsizer.study.core import ConsolidationStudy, with_predictions
from vsizer.study.economics import Economics, PoolPower, TargetCheck
from vsizer.study.hosts import resolve_host
from vsizer.study.results import ConsolidationPlan, PoolResult, SeriesInfo

__all__ = [
    "ConsolidationPlan",
    "ConsolidationStudy",
    "Economics",
    "PoolPower",
    "PoolResult",
    "SeriesInfo",
    "TargetCheck",
    "plan",
    "resolve_host",
    "with_predictions",
]
