"""The study: from an inventory (and series) to a whole consolidation plan."""

from __future__ import annotations

from vsizer.study.core import (
    ConsolidationPlan,
    ConsolidationStudy,
    host_power_w,
    plan,
    resolve_host,
)

__all__ = [
    "ConsolidationPlan",
    "ConsolidationStudy",
    "host_power_w",
    "plan",
    "resolve_host",
]
