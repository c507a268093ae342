"""Inventories a plan cannot rest on: no server at all, every server excluded,
and every server idle.

A plan of zero servers (zero hosts, "survives failover") would look like an
answer while it is none, so :func:`require_servers` makes it an error that says
why the list is empty. A list whose CPU utilization is 0 % everywhere can be
planned, on memory and vCPUs, but :func:`warn_zero_utilization` says so.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from vsizer.errors import InventoryError
from vsizer.inventory.model import Inventory
from vsizer.quality import QualityReport

__all__ = ["exclusion_summary", "require_servers", "warn_zero_utilization"]

_ROW_SUFFIX = re.compile(r"\s*\((?:row|rows) [^)]*\)$")


def exclusion_summary(reasons: list[str]) -> str:
    """``["powered off", "migrate = no (row 3)", "powered off"]`` ->
    ``"2 powered off, 1 migrate = no"`` (most frequent first, then in order
    of first appearance; the row of each server is dropped)."""
    counts: dict[str, int] = {}
    for reason in reasons:
        key = _ROW_SUFFIX.sub("", str(reason)) or "no reason given"
        counts[key] = counts.get(key, 0) + 1
    ordered = sorted(counts.items(), key=lambda kv: -kv[1])  # stable on ties
    return ", ".join(f"{n} {key}" for key, n in ordered)


def require_servers(inventory: Inventory) -> None:
    """Raise :class:`InventoryError` when ``inventory`` has no server to plan.

    Messages: ``servers.csv: no servers to plan (header only)`` for a file
    without data rows, ``servers.csv: all 5 servers are excluded: 3 powered
    off, 2 migrate = no`` when every server read is excluded.
    """
    if len(inventory.servers):
        return
    file = Path(inventory.source).name or inventory.source
    excluded = inventory.excluded
    if len(excluded):
        n = len(excluded)
        reasons = excluded["reason"].astype(str).tolist()
        what = "the only server is" if n == 1 else f"all {n} servers are"
        hint = (
            " (--include-powered-off plans powered-off VMs)"
            if any("powered off" in r for r in reasons) else ""
        )
        raise InventoryError(
            f"{file}: {what} excluded: {exclusion_summary(reasons)}; "
            f"nothing to plan{hint}"
        )
    meta = inventory.metadata
    rows = int(meta.get("data_rows", meta.get("n_rows", 0)) or 0)
    why = "header only" if rows == 0 else (
        "1 row, not a server" if rows == 1 else f"{rows} rows, none of them a server"
    )
    raise InventoryError(f"no servers to plan in {file} ({why})")


def warn_zero_utilization(servers: pd.DataFrame, quality: QualityReport) -> None:
    """Warn when every server's CPU utilization (peak and average) is 0."""
    cols = [c for c in ("cpu_peak_util", "cpu_avg_util") if c in servers]
    if not len(servers) or not cols:
        return
    values = pd.concat([servers[c] for c in cols]).astype("Float64").dropna()
    if len(values) and bool((values == 0).all()):
        quality.warn(
            "zero_utilization",
            "every server's CPU utilization is 0 %: the CPU dimension sizes "
            "nothing and the plan rests on memory and vCPUs alone; check the "
            "utilization columns (or give utilization series with --series).",
        )
