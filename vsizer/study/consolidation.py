"""The plan :func:`vsizer.plan` returns: the plan's values
(:class:`~vsizer.study.plan_result.PlanResult`) with the methods that render its
document (:mod:`vsizer.study.serialize`) and its tables for notebooks
(:mod:`vsizer.study.frames`)."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import pandas as pd

from vsizer.study import frames
from vsizer.study.plan_result import PlanResult
from vsizer.study.serialize import plan_to_dict, plan_to_json


@dataclass(frozen=True)
class ConsolidationPlan(PlanResult):
    """Everything a plan found, economics included (the fields of
    :class:`~vsizer.study.plan_result.PlanResult`).

    ``to_dict()`` / ``to_json()`` render it as the document ``vsizer plan -o
    plan.json`` writes (:func:`vsizer.study.serialize.plan_to_dict`).
    """

    def to_dict(self, *, detail: bool = True) -> dict[str, Any]:
        """The plan document (``docs/plan-schema.md``); ``detail=False``: without
        the per-server lists (:func:`~vsizer.study.serialize.plan_to_dict`)."""
        return plan_to_dict(self, detail=detail)

    def to_json(self) -> str:
        """The plan document as the JSON text ``vsizer plan -o plan.json`` writes."""
        return plan_to_json(self)

    # -- notebooks ---------------------------------------------------------------
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
