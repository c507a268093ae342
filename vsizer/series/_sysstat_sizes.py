"""Server sizes a sysstat file gives: CPU count and memory total.

Private to :mod:`vsizer.series.sysstat`; the collector keeps what the parsers
read (banner CPU counts, restarts, a memory total per ``sar -r`` row) and
:func:`server_sizes` turns it into ``metadata['machines']``, which sizes a
server without an inventory row (:mod:`vsizer.series.as_inventory`).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from vsizer.series.model import SeriesQuality

__all__ = ["mem_total_kib", "server_sizes", "used_without_cache"]

_KIB = 1024
_GIB = 2**30
_CPU_COUNT_RE = re.compile(r"\((\d+)\s*CPU\)")
_COUNT_FROM = "the sysstat file's CPU count: sar banner '(N CPU)', LINUX RESTART"


def mem_total_kib(values: Mapping[str, float]) -> float | None:
    """The memory total [KiB] of a ``sar -r`` row, None when it cannot be told.

    sar(1) (sysstat, S. Godard, https://sysstat.github.io/man/man1/sar.html):
    ``%memused`` is kbmemused as a share of the total memory, so the total is
    kbmemused x 100 / %memused. As %memused is rounded to two decimals, the sum of
    fields that gives the same total within that rounding is taken instead:
    kbmemfree + kbmemused (older sysstat: used = total - free), + kbbuffers +
    kbcached (+ kbslab) (current sysstat, pr_stats.c: used = total - free -
    buffers - cache - slab), or kbmemused + kbavail.
    """
    used, pct = values.get("mem_used_kib"), values.get("mem_used_pct")
    if used is None or pct is None or not 0 < pct <= 100:
        return None
    implied = used * 100.0 / pct
    tolerance = implied * max(0.0005, 0.0051 / pct)
    candidates = []
    if "mem_free_kib" in values:
        total = used + values["mem_free_kib"]
        candidates.append(total)
        for part in ("mem_buffers_kib", "mem_cached_kib", "mem_slab_kib"):
            if part in values:
                total += values[part]
                candidates.append(total)
    if "mem_avail_kib" in values:
        candidates.append(used + values["mem_avail_kib"])
    close = [c for c in candidates if abs(c - implied) <= tolerance]
    return min(close, key=lambda c: abs(c - implied)) if close else implied


def used_without_cache(values: Mapping[str, float], total: float) -> float | None:
    """kbmemused less kbbuffers and kbcached where the row counts the page cache
    as used (kbmemfree + kbmemused = the total: sysstat before the change to
    used = total - free - buffers - cache - slab), else None.

    The page cache is memory the kernel gives back on demand; current sysstat
    leaves it out of kbmemused, so older files are read the same way.
    """
    free, used = values.get("mem_free_kib"), values.get("mem_used_kib")
    cache = values.get("mem_buffers_kib", 0.0) + values.get("mem_cached_kib", 0.0)
    if free is None or used is None or cache <= 0:
        return None
    if abs(free + used - total) > 1e-9 * total:
        return None
    return max(used - cache, 0.0)


def server_sizes(
    hosts: list[str],
    names: dict[str, str],
    cpu_count: Mapping[str, int],
    restarts: list[tuple[str, Any, str]],
    mem_total: Mapping[str, list[float]],
    quality: SeriesQuality,
    cpu_ids: Mapping[tuple[str, Any], set[str]] | None = None,
    cpu_hosts: frozenset[str] = frozenset(),
) -> dict[str, dict[str, Any]]:
    """Each server's size as the file gives it: CPU count (banner, ``LINUX
    RESTART`` lines, sadf -j number-of-cpus; the largest when they differ) and
    memory total [GiB] (the median of :func:`mem_total_kib` over the ``sar -r``
    rows). Without a count (``sadf -d`` prints no banner), the CPUs listed in
    per-CPU rows (``-P ALL``; *cpu_ids*: (host, time) -> CPU numbers); with neither,
    a host of *cpu_hosts* (those with CPU rows) gets a ``cpu_count_unknown`` issue.
    Keyed by server name; ``metadata['machines']`` of the series."""
    counts: dict[str, set[int]] = defaultdict(set)
    for host, n in cpu_count.items():
        counts[host].add(int(n))
    for host, _, text in restarts:
        m = _CPU_COUNT_RE.search(text)
        if m:
            counts[host].add(int(m.group(1)))
    listed: dict[str, set[str]] = defaultdict(set)
    for (host, _), ids in (cpu_ids or {}).items():
        listed[host] |= ids
    out: dict[str, dict[str, Any]] = {}
    for host in hosts:
        entry: dict[str, Any] = {}
        if counts.get(host):
            # Linux's CPUs: as many cores (at --vm-cpu-mhz) and vCPUs as a VM
            entry["cpu_count"] = entry["vcpus"] = max(counts[host])
            entry["cpu_count_from"] = _COUNT_FROM
            if len(counts[host]) > 1:
                quality.add(
                    names[host], "cpu_count", len(counts[host]),
                    "CPU count changes across restarts ("
                    + ", ".join(str(c) for c in sorted(counts[host]))
                    + f"): {max(counts[host])} taken",
                )  # fmt: skip
        elif listed.get(host):
            entry["cpu_count"] = entry["vcpus"] = len(listed[host])
            entry["cpu_count_from"] = "the CPUs listed in the per-CPU rows (-P ALL)"
        elif host in cpu_hosts:
            quality.add(
                names[host], "cpu_count_unknown", 1,
                "the file gives no CPU count (a banner without '(N CPU)', as older "
                "sysstat (7.x) prints, and no per-CPU rows): without an inventory row "
                "the server is planned as 1 core; give its CPUs in an inventory",
            )  # fmt: skip
        totals = sorted(mem_total.get(host, []))
        if totals:
            median = totals[len(totals) // 2]
            entry["mem_gib"] = round(median * _KIB / _GIB, 3)
            entry["mem_gib_from"] = "sar -r (kbmemused x 100 / %memused)"
        if entry:
            out[names[host]] = entry
    return out
