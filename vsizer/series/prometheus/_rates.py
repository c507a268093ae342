"""One server's node_exporter scrapes -> rows of (time, metric, value).

The rows step of :func:`vsizer.series.prometheus.scrape.read_node_exporter`:
gauges (memory) at every scrape, rates of counters (CPU idle seconds, disk
operations and bytes, network bytes) between consecutive scrapes, stamped with
the later one. An interval across a restart (boot time changed, a counter went
down) gets no rates.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from vsizer.series.model import SeriesQuality
from vsizer.series.prometheus._exposition import LabelKey, Samples, Scrape

__all__ = ["ServerRows", "server_rows"]

_BYTES_PER_GIB = 2.0**30
_NS = 1_000_000_000

#: Rates summed over devices: metric, the two counter families, which device
#: exclusion applies ("disk" or "net"), and the scale to the metric's unit.
_DEVICE_RATES: tuple[tuple[str, tuple[str, str], str, float], ...] = (
    (
        "disk_iops",
        ("node_disk_reads_completed_total", "node_disk_writes_completed_total"),
        "disk",
        1.0,
    ),
    (
        "disk_mb_s",
        ("node_disk_read_bytes_total", "node_disk_written_bytes_total"),
        "disk",
        1e-6,
    ),
    (
        "net_mbps",
        ("node_network_receive_bytes_total", "node_network_transmit_bytes_total"),
        "net",
        8e-6,
    ),
)


@dataclass
class ServerRows:
    """Rows of one server and what was summed to make them."""

    rows: list[tuple[int, str, float]] = field(default_factory=list)
    cpus: int = 0
    devices: dict[str, set[str]] = field(
        default_factory=lambda: {"disk": set(), "net": set()}
    )

    def info(self) -> dict[str, Any]:
        """``cpus``, ``disk_devices`` and ``net_devices`` for the metadata."""
        return {
            "cpus": self.cpus,
            "disk_devices": sorted(d for d in self.devices["disk"] if d),
            "net_devices": sorted(d for d in self.devices["net"] if d),
        }


@dataclass
class _Interval:
    """The rates of one interval between two scrapes."""

    got: dict[str, float | None] = field(default_factory=dict)
    reset: bool = False  # a counter went down
    clipped: bool = False  # cpu_util outside [0, 1]


def server_rows(
    name: str,
    group: list[Scrape],
    wanted: list[str],
    exclude: dict[str, re.Pattern[str]],
    quality: SeriesQuality,
) -> ServerRows:
    """Rows of one server's scrapes (sorted by time); *exclude*: ``disk``, ``net``."""
    out = ServerRows()
    _memory_rows(name, group, wanted, out, quality)
    _rate_rows(name, group, wanted, exclude, out, quality)
    return out


def _memory_rows(
    name: str,
    group: list[Scrape],
    wanted: list[str],
    out: ServerRows,
    quality: SeriesQuality,
) -> None:
    """mem_capacity_gib and mem_used_gib at every scrape with MemTotal."""
    fallback_mem = 0
    for sc in group:
        s = sc.samples
        total = _scalar(s, "node_memory_MemTotal_bytes")
        if total is None:
            continue
        if "mem_capacity_gib" in wanted:
            out.rows.append((sc.time_ns, "mem_capacity_gib", total / _BYTES_PER_GIB))
        if "mem_used_gib" in wanted:
            avail = _scalar(s, "node_memory_MemAvailable_bytes")
            if avail is None:
                parts = [
                    _scalar(s, f"node_memory_{k}_bytes")
                    for k in ("MemFree", "Buffers", "Cached", "SReclaimable")
                ]
                if parts[0] is None:
                    continue
                avail = sum(p for p in parts if p is not None)
                fallback_mem += 1
            out.rows.append(
                (sc.time_ns, "mem_used_gib", max(total - avail, 0.0) / _BYTES_PER_GIB)
            )
    if fallback_mem:
        quality.note(
            f"{name}: no node_memory_MemAvailable_bytes in {fallback_mem} of "
            f"{len(group)} scrapes; used memory there = MemTotal - (MemFree + "
            "Buffers + Cached + SReclaimable)."
        )


def _rate_rows(
    name: str,
    group: list[Scrape],
    wanted: list[str],
    exclude: dict[str, re.Pattern[str]],
    out: ServerRows,
    quality: SeriesQuality,
) -> None:
    """Rates between consecutive scrapes; restarts, clipping and missing counters reported."""
    restarts: list[str] = []
    clipped = 0
    missing: dict[str, int] = {}
    for a, b in zip(group, group[1:], strict=False):
        boot_a = _scalar(a.samples, "node_boot_time_seconds")
        boot_b = _scalar(b.samples, "node_boot_time_seconds")
        if boot_a is not None and boot_b is not None and abs(boot_b - boot_a) > 1.0:
            restarts.append(f"{a.file} -> {b.file} (boot time changed)")
            continue
        interval = _interval(a, b, wanted, exclude, out)
        clipped += interval.clipped
        if interval.reset:
            restarts.append(f"{a.file} -> {b.file} (a counter went down)")
            continue
        for metric, value in interval.got.items():
            if value is None:
                missing[metric] = missing.get(metric, 0) + 1
            else:
                out.rows.append((b.time_ns, metric, value))
    if restarts:
        quality.add(
            name,
            "restart",
            len(restarts),
            "no rates for the intervals " + "; ".join(restarts),
        )
    if clipped:
        quality.add(name, "clipped", clipped, "cpu_util outside [0, 1] clipped")
    for metric, n in sorted(missing.items()):
        quality.note(
            f"{name}: no {metric} for {n} of {len(group) - 1} intervals (the counters "
            "are missing from one of the two scrapes, or every device is excluded)."
        )


def _interval(
    a: Scrape,
    b: Scrape,
    wanted: list[str],
    exclude: dict[str, re.Pattern[str]],
    out: ServerRows,
) -> _Interval:
    """The wanted rates between scrapes *a* and *b* (None: no counter in both)."""
    dt = (b.time_ns - a.time_ns) / _NS
    found = _Interval()
    if "cpu_util" in wanted:
        idle_a = _select(a.samples, "node_cpu_seconds_total", mode="idle")
        idle_b = _select(b.samples, "node_cpu_seconds_total", mode="idle")
        d, n, went_down = _delta(idle_a, idle_b)
        found.reset |= went_down
        if n:
            out.cpus = max(out.cpus, n)
            util = 1.0 - d / (dt * n)
            found.clipped = util < 0.0 or util > 1.0
            found.got["cpu_util"] = min(max(util, 0.0), 1.0)
        else:
            found.got["cpu_util"] = None
    for metric, families, kind, scale in _DEVICE_RATES:
        if metric not in wanted:
            continue
        total_delta, n_series = 0.0, 0
        for fam in families:
            sa = _devices(a.samples, fam, exclude[kind])
            sb = _devices(b.samples, fam, exclude[kind])
            d, n, went_down = _delta(sa, sb)
            found.reset |= went_down
            total_delta += d
            n_series += n
            out.devices[kind].update(dict(k).get("device", "") for k in set(sa) & set(sb))
        found.got[metric] = total_delta / dt * scale if n_series else None
    return found


def _scalar(samples: Samples, name: str) -> float | None:
    v = samples.get(name, {}).get(())
    return v if v is not None and math.isfinite(v) else None


def _select(samples: Samples, name: str, **match: str) -> dict[LabelKey, float]:
    return {
        k: v
        for k, v in samples.get(name, {}).items()
        if all(dict(k).get(lk) == lv for lk, lv in match.items())
    }


def _devices(
    samples: Samples, name: str, exclude: re.Pattern[str]
) -> dict[LabelKey, float]:
    return {
        k: v
        for k, v in samples.get(name, {}).items()
        if not exclude.search(dict(k).get("device", ""))
    }


def _delta(
    a: dict[LabelKey, float], b: dict[LabelKey, float]
) -> tuple[float, int, bool]:
    """Sum of increases over series in both scrapes, their count, and a reset flag."""
    total, n, down = 0.0, 0, False
    for key, vb in b.items():
        va = a.get(key)
        if va is None or not (math.isfinite(va) and math.isfinite(vb)):
            continue
        if vb < va:
            down = True
        total += vb - va
        n += 1
    return total, n, down
