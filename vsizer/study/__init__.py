"""The study: from an inventory (and series) to a whole consolidation plan."""

from __future__ import annotations

from typing import TYPE_CHECKING

from vsizer._lazy import lazy_getattr

if TYPE_CHECKING:
    from vsizer.study.choice import plan  # core.plan + choice + TCO
    from vsizer.study.consolidation import ConsolidationPlan
    from vsizer.study.core import ConsolidationStudy, with_predictions
    from vsizer.study.economics import Economics, PoolPower, TargetCheck
    from vsizer.study.hosts import resolve_host
    from vsizer.study.results import PoolResult, SeriesInfo

#: Loaded on first use (:mod:`vsizer._lazy`): importing ``vsizer.study.config``
#: (the CLI's rule flags) does not load the whole study.
__getattr__ = lazy_getattr(__name__, {
    "plan": "vsizer.study.choice",
    "ConsolidationStudy": "vsizer.study.core",
    "with_predictions": "vsizer.study.core",
    "Economics": "vsizer.study.economics",
    "PoolPower": "vsizer.study.economics",
    "TargetCheck": "vsizer.study.economics",
    "resolve_host": "vsizer.study.hosts",
    "ConsolidationPlan": "vsizer.study.consolidation",
    "PoolResult": "vsizer.study.results",
    "SeriesInfo": "vsizer.study.results",
})

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
