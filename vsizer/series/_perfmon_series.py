"""Performance Monitor counter columns -> the rows of the tidy series, per host.

Private to :mod:`vsizer.series.perfmon`, which documents the rules: the
``_Total`` instance of a counter, else the sum (or mean for processors) over
its instances; PhysicalDisk before LogicalDisk(_Total); Network Interface
before Network Adapter; memory from Available MBytes and the server's size,
else from Committed Bytes.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from vsizer.series._native import Rows
from vsizer.series._perfmon_counters import Column
from vsizer.series.model import SeriesQuality

__all__ = ["host_series", "usable_columns"]

_VIRTUAL_NIC_RE = re.compile(r"loopback|isatap|teredo|6to4|pseudo", re.IGNORECASE)
_GIB = 2**30


def host_series(
    name: str,
    columns: list[Column],
    times: list[Any],
    out: Rows,
    quality: SeriesQuality,
    metadata: dict[str, Any],
    capacity_gib: float | None,
) -> None:
    by_role: dict[str, list[Column]] = defaultdict(list)
    for c in columns:
        by_role[c.role or ""].append(c)
    counters: dict[str, list[str]] = metadata["counters"]

    def emit(
        metric: str, values: np.ndarray, used: list[Column], scale: float
    ) -> None:
        for ts, v in zip(times, values * scale, strict=True):
            if not math.isnan(v):
                out.add(name, ts, metric, float(v))
        counters.setdefault(metric, []).extend(c.header for c in used)

    # CPU: the _Total instance, else the mean over the logical processors
    for role in ("cpu_pct", "cpu_info_pct"):
        total = _total(by_role.get(role, []))
        if total:
            emit("cpu_util", total[0].values, total, 0.01)
            break
    else:
        cpus = [c for c in by_role.get("cpu_pct", []) if c.instance.isdigit()]
        if cpus:
            # a row where one processor is blank has no mean (NaN, left out)
            mean = np.vstack([c.values for c in cpus]).mean(axis=0)
            emit("cpu_util", mean, cpus, 0.01)
            quality.note(
                f"{name}: no Processor(_Total) counter; cpu_util is the mean of "
                f"{len(cpus)} Processor(n) instances."
            )
        else:
            _cpu_from_idle(name, by_role.get("process_cpu_pct", []), emit, quality)
    # Disk: PhysicalDisk, else LogicalDisk(_Total)
    for prefix in ("disk", "ldisk"):
        iops = _summed(by_role, f"{prefix}_transfers_s", whole_only=prefix == "ldisk")
        rate = _summed(by_role, f"{prefix}_bytes_s", whole_only=prefix == "ldisk")
        if rate is None:
            read = _summed(
                by_role, f"{prefix}_read_bytes_s", whole_only=prefix == "ldisk"
            )
            write = _summed(
                by_role, f"{prefix}_write_bytes_s", whole_only=prefix == "ldisk"
            )
            if read is not None and write is not None:
                rate = (read[0] + write[0], read[1] + write[1])
        if iops is None and rate is None:
            continue
        if iops is not None:
            emit("disk_iops", iops[0], iops[1], 1.0)
        if rate is not None:
            emit("disk_mb_s", rate[0], rate[1], 1e-6)
        if prefix == "ldisk":
            quality.note(
                f"{name}: no PhysicalDisk counters; disk metrics come from "
                "LogicalDisk(_Total) (I/O per volume)."
            )
        break
    # Network: Network Interface, else Network Adapter (newer Windows)
    for prefix in ("net", "nic"):
        traffic = _summed(by_role, f"{prefix}_bytes_s", nics=True)
        if traffic is None:
            rx = _summed(by_role, f"{prefix}_rx_bytes_s", nics=True)
            tx = _summed(by_role, f"{prefix}_tx_bytes_s", nics=True)
            if rx is not None and tx is not None:
                traffic = (rx[0] + tx[0], rx[1] + tx[1])
        if traffic is not None:
            emit("net_mbps", traffic[0], traffic[1], 8e-6)
            break
    _memory(name, by_role, emit, quality, metadata, times, capacity_gib)


def _memory(
    name: str,
    by_role: Mapping[str, list[Column]],
    emit: Any,
    quality: SeriesQuality,
    metadata: dict[str, Any],
    times: list[Any],
    capacity_gib: float | None,
) -> None:
    available: tuple[np.ndarray, list[Column]] | None = None
    for role, scale in (
        ("mem_available_mib", 2**20),
        ("mem_available_kib", 2**10),
        ("mem_available_bytes", 1),
    ):
        if by_role.get(role):
            col = by_role[role][0]
            available = (col.values * scale / _GIB, [col])
            break
    committed = by_role.get("mem_committed_bytes", [])
    if available is not None and capacity_gib is not None:
        used = capacity_gib - available[0]
        emit("mem_used_gib", used, available[1], 1.0)
        emit("mem_util", used / capacity_gib, available[1], 1.0)
        return
    if committed:
        emit("mem_used_gib", committed[0].values, committed[:1], 1 / _GIB)
        quality.note(
            f"{name}: mem_used_gib is Memory\\Committed Bytes, the commit charge "
            "(memory reserved by processes, in RAM or the page file)."
        )
    if available is not None:
        keep = ~np.isnan(available[0])
        metadata.setdefault("mem_available_gib", {})[name] = pd.DataFrame(
            {
                "timestamp": pd.to_datetime(
                    pd.Series(times)[keep].reset_index(drop=True), utc=True
                ).astype("datetime64[ns, UTC]"),
                "value": available[0][keep],
            }
        )
        quality.note(
            f"{name}: Memory\\Available MBytes needs the server's memory size to "
            "give mem_used_gib, and a Performance Monitor log does not hold it; "
            "the available memory is kept in the series metadata "
            "(mem_available_gib)."
        )


def usable_columns(used: list[Column]) -> list[Column]:
    """The columns a host's series come from: all but Process(...) % Processor
    Time, which is per process and per core, save Process(Idle) and
    Process(_Total) of a host that logs no Processor counter (their ratio gives
    its CPU use, :func:`_cpu_from_idle`)."""
    usable = [c for c in used if c.role != "process_cpu_pct"]
    return usable + _idle_and_total(used, usable)


def _idle_and_total(used: list[Column], usable: list[Column]) -> list[Column]:
    with_cpu = {c.host for c in usable if c.role in ("cpu_pct", "cpu_info_pct")}
    out: list[Column] = []
    for host in dict.fromkeys(c.host for c in used):
        if host in with_cpu:
            continue
        procs = [c for c in used if c.host == host and c.role == "process_cpu_pct"]
        pair = [
            next((c for c in procs if c.instance.casefold() == inst), None)
            for inst in ("idle", "_total")
        ]
        if pair[0] is not None and pair[1] is not None:
            out += [pair[0], pair[1]]
    return out


def _cpu_from_idle(
    name: str, procs: list[Column], emit: Any, quality: SeriesQuality
) -> None:
    """cpu_util = 1 - Process(Idle) / Process(_Total) % Processor Time.

    Process\\% Processor Time is relative to one processor, so it reaches 100 %
    x the logical processors; _Total includes the Idle process, so the ratio is
    the idle share of all processors (Microsoft Learn, "Process object" counters,
    https://learn.microsoft.com/en-us/previous-versions/windows/it-pro/windows-server-2003/cc780836(v=ws.10)).
    """
    idle = next((c for c in procs if c.instance.casefold() == "idle"), None)
    total = next((c for c in procs if c.instance.casefold() == "_total"), None)
    if idle is None or total is None:
        return
    with np.errstate(divide="ignore", invalid="ignore"):
        busy = np.where(total.values > 0, 1.0 - idle.values / total.values, np.nan)
    emit("cpu_util", np.clip(busy, 0.0, 1.0), [idle, total], 1.0)
    peak = np.nanmax(total.values) if np.isfinite(total.values).any() else math.nan
    quality.add(
        name,
        "cpu_from_processes",
        int(np.isfinite(busy).sum()),
        "no Processor counter: cpu_util = 1 - Process(Idle) / Process(_Total) "
        f"% Processor Time (both per processor; _Total up to {peak:.0f} %, about "
        f"{round(peak / 100)} logical processors)",
    )


def _total(columns: list[Column]) -> list[Column]:
    return [c for c in columns if c.instance.casefold() == "_total"][:1]


def _summed(
    by_role: Mapping[str, list[Column]],
    role: str,
    *,
    whole_only: bool = False,
    nics: bool = False,
) -> tuple[np.ndarray, list[Column]] | None:
    """The _Total column of a role, else the sum over its instances (None: none).

    A row where every instance is blank stays NaN; otherwise blanks count as
    absent instances (a NIC that went away), not as 0 of a present one.
    """
    columns = by_role.get(role, [])
    if not columns:
        return None
    total = _total(columns)
    if total:
        return total[0].values, total
    if whole_only:
        return None
    parts = [c for c in columns if not (nics and _VIRTUAL_NIC_RE.search(c.instance))]
    if not parts:
        return None
    stack = np.vstack([c.values for c in parts])
    summed = np.where(np.isnan(stack).all(axis=0), np.nan, np.nansum(stack, axis=0))
    return summed, parts
