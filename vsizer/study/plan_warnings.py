"""Every warning of a plan, in a fixed order."""

from __future__ import annotations

from typing import Any

import pandas as pd

from vsizer.quality import PlanWarning, QualityReport, assumption_warnings
from vsizer.study.config import Rules
from vsizer.study.results import SeriesInfo


def plan_warnings(
    quality: QualityReport,
    servers: pd.DataFrame,
    series: SeriesInfo | None,
    rules: Rules,
) -> list[PlanWarning]:
    """Every warning of a plan, in a fixed order: low confidence first, then the
    study's and readers' own warnings, every value assumed or estimated
    (:func:`~vsizer.quality.assumption_warnings`), then what the series readers
    clipped, dropped or guessed."""
    names = servers["name"].astype(str).tolist()
    out: list[PlanWarning] = []
    confidence = quality.confidence(names)
    if names and confidence < rules.min_confidence:
        out.append(
            PlanWarning(
                "low_confidence",
                f"Low data confidence: {confidence:.0%}, below {rules.min_confidence:.0%}. "
                "This plan rests on values that were not read from the inputs (see "
                "the other warnings); add the missing columns or utilization series "
                "to firm it up, or set the threshold with --min-confidence.",
            )
        )
    out.extend(quality.warnings)
    out.extend(assumption_warnings(quality, names))
    if series is not None:
        out.extend(_series_warnings(series))
    return out


def _series_warnings(series: SeriesInfo) -> list[PlanWarning]:
    """One warning per kind of series issue (clipped, dropped, gap, ...) with its
    servers and total count, and one per reader note."""
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for issue in series.quality.issues:
        by_kind.setdefault(str(issue["kind"]), []).append(issue)
    out = []
    for kind, issues in by_kind.items():
        who = list(dict.fromkeys(str(i["server"]) for i in issues))
        total = sum(int(i["count"]) for i in issues)
        details = list(dict.fromkeys(str(i["detail"]) for i in issues))
        shown = "; ".join(details[:3]) + (
            f"; and {len(details) - 3} other kinds" if len(details) > 3 else ""
        )
        out.append(
            PlanWarning(
                f"series_{kind}",
                f"series: {kind}: {total} point(s) in {len(who)} "
                f"series ({shown}).",
                tuple(who),
            )
        )
    for note in series.quality.notes:
        out.append(PlanWarning("series_note", f"series: {note}"))
    return out
