"""Every warning of a plan, in a fixed order."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import pandas as pd

from vsizer.catalogs.model import HostModel
from vsizer.placement.failover_report import MAX_LISTED_SCENARIOS
from vsizer.quality import (
    PlanWarning,
    QualityReport,
    assumption_warnings,
    below_threshold,
)
from vsizer.study.config import Rules
from vsizer.study.results import PoolResult, SeriesInfo


def plan_warnings(
    quality: QualityReport,
    servers: pd.DataFrame,
    series: SeriesInfo | None,
    rules: Rules,
    host: HostModel | None = None,
    pools: Sequence[PoolResult] = (),
) -> list[PlanWarning]:
    """Every warning of a plan, in a fixed order: low confidence first, then the
    study's and readers' own warnings, the host's power when it is an estimate
    (:func:`host_power_note`), every value assumed or estimated
    (:func:`~vsizer.quality.assumption_warnings`), then what the series readers
    clipped, dropped or guessed, then the pools whose solver the wall clock stopped
    (:func:`solver_warnings`)."""
    names = servers["name"].astype(str).tolist()
    out: list[PlanWarning] = []
    confidence = quality.confidence(names)
    if names and below_threshold(confidence, rules.min_confidence):
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
    note = host_power_note(host) if host is not None else None
    if note is not None:
        out.append(PlanWarning("host_power_estimated", note))
    out.extend(assumption_warnings(quality, names))
    if series is not None:
        out.extend(_series_warnings(series))
    out.extend(solver_warnings(pools, rules))
    out.extend(failover_budget_warnings(pools, rules))
    return out


def failover_budget_warnings(
    pools: Sequence[PoolResult], rules: Rules
) -> list[PlanWarning]:
    """One ``failover_sampled`` warning per pool whose N+k check stopped at
    ``--failover-budget`` instead of checking every failure set."""
    out = []
    for pr in pools:
        fo = pr.sizing.failover
        if len(fo.detail) > MAX_LISTED_SCENARIOS:
            out.append(
                PlanWarning(
                    "failover_scenarios_listed",
                    f"Pool {pr.name}: {len(fo.detail):,} failure scenarios checked; "
                    f"the plan lists {MAX_LISTED_SCENARIOS:,} of them (those that "
                    "failed, then the highest worst-survivor utilization).",
                )
            )
        if fo.exhaustive:
            continue
        out.append(
            PlanWarning(
                "failover_sampled",
                f"Pool {pr.name}: N+{fo.failures} checked on {len(fo.detail):,} of "
                f"{fo.scenarios:,} failure scenarios, those failing the most loaded "
                "hosts first; every one checked was survived, the others were not "
                "checked. Raise --failover-budget (now "
                f"{rules.failover_budget:,} host-scenarios) for a complete check.",
            )
        )
    return out


def solver_warnings(pools: Sequence[PoolResult], rules: Rules) -> list[PlanWarning]:
    """One ``solver_time_limit`` warning per pool whose ``--solver cp-sat`` search
    ``--time-limit`` stopped before its own budgets ran out: that plan depends on the
    machine's speed and load, every other is reproducible byte for byte."""
    out = []
    for pr in pools:
        info = pr.sizing.solver
        if not isinstance(info, dict) or info.get("stopped_by") != "time_limit":
            continue
        out.append(PlanWarning(
            "solver_time_limit",
            f"Pool {pr.name}: --time-limit ({rules.time_limit:g} s) stopped the cp-sat "
            f"search before its own work budget ran out, at {info.get('hosts')} hosts "
            f"against a lower bound of {info.get('bound')}; the plan depends on how fast "
            "this machine ran, and another run may differ. For a plan that is the same "
            "on every run, plan again on a less busy machine, or use --solver heuristic.",
        ))
    return out


def host_power_note(host: HostModel) -> str | None:
    """The warning of a host whose catalog power is estimated (``power_basis``),
    with the catalog's reason; None when measured, published or the user's."""
    if host.power_basis != "estimated":
        return None
    found = re.search(r"power assumed[^;]*", host.source)
    why = f" ({found.group(0)})" if found else ""
    return (
        f"Host power of '{host.model}' is estimated, not measured: idle "
        f"{host.power_idle_w:.4g} W, full load {host.power_max_w:.4g} W{why}. The "
        "plan's watts, energy, cost and power target rest on it; put the model's "
        "measured figures (e.g. its SPECpower_ssj2008 result) in a host catalog "
        "with power_basis 'measured' and pass it with --hosts."
    )


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
