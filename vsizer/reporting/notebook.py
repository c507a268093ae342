"""The plan in a notebook (issue 27): :class:`Plan` is the
:class:`~vsizer.study.ConsolidationPlan` that ``vsizer.plan()`` returns, with
a short ``repr``, an HTML view (the management summary of the HTML report)
and :meth:`Plan.write` for every output format.

    plan = vsizer.plan("servers.xlsx", host_model="auto")
    plan                     # the management summary, in Jupyter
    plan.hosts, plan.placement, plan.pools_frame, plan.warnings_frame   # DataFrames
    plan.write("report.html"); plan.write("plan.xlsx", lang="ja")
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

from vsizer.errors import ConfigError
from vsizer.reporting._html_management import MGMT_CSS, management_html
from vsizer.reporting.labels import check_lang, label
from vsizer.study import ConsolidationPlan
from vsizer.study import plan as study_plan

__all__ = ["FORMATS", "Plan", "plan"]

#: Output formats of :meth:`Plan.write`, by file suffix.
FORMATS = (".json", ".xlsx", ".html", ".htm")


@dataclasses.dataclass(frozen=True, repr=False, eq=False)
class Plan(ConsolidationPlan):
    """A :class:`~vsizer.study.ConsolidationPlan` with notebook display and
    :meth:`write`."""

    def _repr_html_(self, lang: str = "en") -> str:
        def t(key: str, **kw: Any) -> str:
            return label(key, lang, **kw)

        return (f"<style>{MGMT_CSS}</style><h3>{t('mgmt_title')}</h3>"
                f"{management_html(self._doc, t)}")

    def write(self, path: str | os.PathLike[str], *, lang: str = "en") -> Path:
        """Write the plan to ``path``: ``.json`` (the plan document), ``.xlsx``
        (the workbook) or ``.html`` (the report), in ``lang``; returns the path.

        Raises
        ------
        vsizer.errors.ConfigError
            Another suffix, or ``lang`` is not ``"en"`` or ``"ja"``.
        """
        target = Path(path)
        suffix = target.suffix.lower()
        check_lang(lang, "Plan.write")
        if suffix not in FORMATS:
            raise ConfigError(
                f"{target.name}: unsupported output format '{target.suffix}'; use "
                ".json, .xlsx or .html.")
        if suffix == ".json":
            from vsizer._atomic import atomic_write

            with atomic_write(target, "w", encoding="utf-8") as fh:
                fh.write(self.to_json())
        elif suffix == ".xlsx":
            from vsizer.reporting.excel import write_plan_xlsx

            write_plan_xlsx(self._doc, target, lang=lang)
        else:
            from vsizer.reporting.html import write_plan_html

            write_plan_html(self._doc, target, lang=lang)
        return target


def plan(*args: Any, **kwargs: Any) -> Plan:
    """:func:`vsizer.study.plan`, returning a :class:`Plan` (same arguments)."""
    result = study_plan(*args, **kwargs)
    fields = {f.name: getattr(result, f.name) for f in dataclasses.fields(result)}
    return Plan(**fields)
