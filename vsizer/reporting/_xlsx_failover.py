"""The failover sheet of the plan workbook (schema "1" or "2").

Per pool its result, then one row per failure scenario: the failed hosts,
where each of their VMs goes, the VMs left without a place, the worst
survivor and, for plans checked on time series, the worst step and how many
steps exceed 100 %; last the scenarios that leave VMs without a place.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from vsizer.reporting._plan_view import failover_scenarios, scenario_count
from vsizer.reporting._xlsx import INT, PCT, SheetWriter
from vsizer.reporting._xlsx_sheets import join

__all__ = ["failover_sheet"]

#: A failure scenario row of :func:`failover_scenarios` with its pool's name.
Scenario = tuple[str, Mapping[str, Any]]


def _pool_results(w: SheetWriter, pools: list[Mapping[str, Any]]) -> None:
    """The first table: one row per pool."""
    per_pool = []
    for pool in pools:
        fo = pool["failover"]
        worst = fo.get("worst_scenario") or {}
        per_pool.append(
            [
                pool["name"],
                fo["failures"],
                w.yes_no(fo["survives"]),
                scenario_count(pool),
                fo["worst_survivor_util"],
                w.dim(fo["worst_dimension"]) if fo.get("worst_dimension") else None,
                join(worst.get("failed")) or None,
                worst.get("host"),
            ]
        )
    keys = ("pool", "failures", "survives", "scenarios", "worst_survivor_util")
    w.table(
        [
            *(w.t(k) for k in keys),
            w.t("worst_dimension"),
            w.t("worst_failed"),
            w.t("worst_host"),
        ],
        per_pool,
        [None, INT, None, INT, PCT, None, None, None],
    )


def _scenario_rows(
    w: SheetWriter, rows: Sequence[Scenario], with_steps: bool
) -> list[list[Any]]:
    return [
        [
            name,
            join(row["failed"]),
            row["worst_host"],
            w.dim(row["worst_dimension"]) if row["worst_dimension"] else None,
            row["worst_util"],
            len(row["moves"]),
            join(f"{m.get('vm')} → {m.get('to')}" for m in row["moves"]),
            len(row["unplaced"]),
            join(row["unplaced"]),
            *([row["worst_step"], row["steps_over_100"]] if with_steps else []),
        ]
        for name, row in rows
    ]


def _scenarios(w: SheetWriter, rows: Sequence[Scenario]) -> None:
    """The scenario section; worst step and steps over 100 % when on curves."""
    with_steps = any(row["worst_step"] is not None for _, row in rows)
    keys = ("pool", "failed_hosts", "worst_host", "worst_dimension", "worst_util")
    headers = [
        *(w.t(k) for k in keys),
        *(w.t(k) for k in ("moves", "moves_to", "unplaced_count", "unplaced")),
    ]
    formats: list[str | None] = [None, None, None, None, PCT, INT, None, INT, None]
    if with_steps:
        headers += [w.t("worst_step"), w.t("steps_over_100")]
        formats += [None, INT]
    w.section(
        w.t("section_failover_scenarios"),
        headers,
        _scenario_rows(w, rows, with_steps),
        formats,
        autofilter=True,
    )


def _failed(w: SheetWriter, rows: Sequence[Scenario]) -> None:
    """The scenarios that leave VMs without a place."""
    failed = [
        [name, join(row["failed"]), len(row["unplaced"]), join(row["unplaced"])]
        for name, row in rows
        if row["unplaced"]
    ]
    w.section(
        w.t("section_failed_scenarios"),
        [w.t("pool"), w.t("failed_hosts"), w.t("unplaced_count"), w.t("unplaced")],
        failed,
        [None, None, INT, None],
    )


def failover_sheet(w: SheetWriter, plan: Mapping[str, Any]) -> None:
    """Per pool result, then one row per failure scenario (module docstring)."""
    pools = plan["pools"]
    _pool_results(w, pools)
    rows = [(pool["name"], row) for pool in pools for row in failover_scenarios(pool)]
    _scenarios(w, rows)
    _failed(w, rows)
    w.finish()
