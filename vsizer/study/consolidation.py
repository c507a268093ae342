"""The plan :func:`vsizer.plan` returns: the plan's values
(:class:`~vsizer.study.plan_result.PlanResult`) with the methods that render its
document (:mod:`vsizer.study.serialize`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from vsizer.study.plan_result import PlanResult
from vsizer.study.serialize import plan_to_dict, plan_to_json


@dataclass(frozen=True)
class ConsolidationPlan(PlanResult):
    """Everything a plan found, economics included (the fields of
    :class:`~vsizer.study.plan_result.PlanResult`).

    ``to_dict()`` / ``to_json()`` render it as the document ``vsizer plan -o
    plan.json`` writes (:func:`vsizer.study.serialize.plan_to_dict`).
    """

    def to_dict(self) -> dict[str, Any]:
        """The plan document (``docs/plan-schema.md``)."""
        return plan_to_dict(self)

    def to_json(self) -> str:
        """The plan document as the JSON text ``vsizer plan -o plan.json`` writes."""
        return plan_to_json(self)
