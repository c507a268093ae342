"""Collecting sysstat values per host and time, then the tidy series.

Private to :mod:`vsizer.series.sysstat`, which documents the forms and the
metrics. The parsers of :mod:`vsizer.series._sysstat_parse` hand every row of a
recognized activity to :meth:`Collector.feed`; :meth:`Collector.result` turns
what was collected into a :class:`~vsizer.series.model.SeriesSet`.
"""

from __future__ import annotations

import math
import os
import re
from collections import Counter, defaultdict
from collections.abc import Mapping
from datetime import datetime, timedelta, tzinfo
from pathlib import Path
from typing import Any

from vsizer.errors import SeriesError
from vsizer.series._native import (
    Problems,
    Rows,
    iso,
    median_interval,
    plural,
    shown,
    tidy,
    to_utc,
)
from vsizer.series._sysstat_fields import (
    is_zero,
    physical_interfaces,
    read_number,
    whole_disks,
)
from vsizer.series._sysstat_sizes import (
    mem_total_kib,
    server_sizes,
    used_without_cache,
)
from vsizer.series.model import SeriesQuality, SeriesSet

__all__ = ["VARIABLE_MAP", "Collector"]

#: sysstat field names (``sar``/``sadf -d`` headers and ``sadf -j`` keys) -> the
#: quantity they hold. Only these fields are read; the rest are left aside.
VARIABLE_MAP: dict[str, str] = {
    # CPU: the all-CPU row only
    "%idle": "cpu_idle_pct",
    "idle": "cpu_idle_pct",
    "%iowait": "cpu_iowait_pct",  # counted as busy; reported (iowait_busy)
    "iowait": "cpu_iowait_pct",
    # memory
    "kbmemused": "mem_used_kib",
    "memused": "mem_used_kib",
    "%memused": "mem_used_pct",
    "memused-percent": "mem_used_pct",
    # the memory total (machines metadata, not a series): see mem_total_kib
    "kbmemfree": "mem_free_kib",
    "memfree": "mem_free_kib",
    "kbavail": "mem_avail_kib",
    "avail": "mem_avail_kib",
    "kbbuffers": "mem_buffers_kib",
    "buffers": "mem_buffers_kib",
    "kbcached": "mem_cached_kib",
    "cached": "mem_cached_kib",
    "kbslab": "mem_slab_kib",
    "slab": "mem_slab_kib",
    # I/O totals (sar -b) and block devices (sar -d)
    "tps": "tps",
    "bread/s": "read_sectors_s",
    "bread": "read_sectors_s",
    "bwrtn/s": "write_sectors_s",
    "bwrtn": "write_sectors_s",
    "rd_sec/s": "read_sectors_s",
    "rd_sec": "read_sectors_s",
    "wr_sec/s": "write_sectors_s",
    "wr_sec": "write_sectors_s",
    "rkB/s": "read_kib_s",
    "rkB": "read_kib_s",
    "wkB/s": "write_kib_s",
    "wkB": "write_kib_s",
    # network interfaces (sar -n DEV)
    "rxkB/s": "rx_kib_s",
    "rxkB": "rx_kib_s",
    "txkB/s": "tx_kib_s",
    "txkB": "tx_kib_s",
    "rxbyt/s": "rx_bytes_s",
    "txbyt/s": "tx_bytes_s",
}

_KEYS = {"CPU": "cpu", "DEV": "dev", "IFACE": "net"}
_SECTOR_BYTES = 512
_KIB = 1024
_GIB = 2**30

_IOWAIT_NOTED_PCT = 5.0  # %iowait from which cpu_util's reading is reported
_CPU_COUNT_RE = re.compile(r"\((\d+)\s*CPU\)")


# --------------------------------------------------------------- collecting


class Collector:
    """Values per (host, UTC time) from any of the four forms, then the series."""

    def __init__(self, label: str, zone: tzinfo | None) -> None:
        self.label = label
        self.zone = zone
        self.problems = Problems(label)
        self.cpu: dict[tuple[str, datetime], float] = {}
        self.iowait: dict[tuple[str, datetime], float] = {}
        # (host, time) -> (sum of per-CPU %idle, CPUs), where no all-CPU row is
        self.cpu_each: dict[tuple[str, datetime], tuple[float, int]] = {}
        self.cpu_all: set[tuple[str, datetime]] = set()  # times with an all-CPU row
        self.cpu_ids: dict[tuple[str, datetime], set[str]] = defaultdict(set)
        self.cpu_zero: dict[tuple[str, datetime], set[str]] = defaultdict(set)
        self.mem: dict[tuple[str, datetime], tuple[float | None, float | None]] = {}
        self.mem_total_kib: dict[str, list[float]] = defaultdict(list)
        self.cache_out: Counter[str] = Counter()  # rows with the page cache taken out
        self.io: dict[tuple[str, datetime], tuple[float, float, float]] = {}
        self.dev: dict[tuple[str, datetime], dict[str, tuple[float, float]]] = (
            defaultdict(dict)
        )
        self.net: dict[tuple[str, datetime], dict[str, float]] = defaultdict(dict)
        self.restarts: list[tuple[str, datetime, str]] = []
        self.duplicates: dict[str, set[datetime]] = defaultdict(set)
        self.dropped: dict[str, list[datetime]] = defaultdict(list)
        self.ignored: Counter[str] = Counter()
        self.intervals: set[int] = set()
        self.hosts: list[str] = []
        self.release: dict[str, str] = {}
        self.cpu_count: dict[str, int] = {}
        self.local_times: dict[str, set[datetime]] = defaultdict(set)
        self.notes: list[str] = []
        self.guesses: list[tuple[str, str]] = []
        self.skipped: list[tuple[int, str]] = []  # (line, text) of comments, footers
        self.foreign: list[tuple[int, str]] = []  # other text between the tables
        self._utc_cache: dict[datetime, datetime] = {}
        self.human = 0  # values read with a sar -h unit (1.4G, 46.1%)
        # host -> (Mbit/s left out, names) of intervals with virtual interfaces
        self.net_out: dict[str, list[tuple[float, str]]] = defaultdict(list)

    # -- problems and values
    def bad(self, where: str, expected: str, got: Any) -> None:
        self.problems.bad(where, expected, got)

    def skip(self, line: int, text: str, foreign: bool = False) -> None:
        """A comment, a collector's footer line or (*foreign*) a wrapper script's
        text between the tables: not read, counted."""
        (self.foreign if foreign else self.skipped).append((line, text))

    def activity(self, names: list[str]) -> tuple[str | None, str | None]:
        """The activity a header describes and its key column, or (None, None)."""
        return _activity(names)

    def number(self, raw: Any, name: str, where: str) -> float | None:
        """A field as float, or None after recording the problem."""
        if isinstance(raw, (int, float)) and not isinstance(raw, bool):
            value = float(raw)
        else:
            try:
                value, human = read_number(raw, name)
            except ValueError:
                self.bad(where, f"a number for '{name}'", raw)
                return None
            self.human += human  # a value sar -h printed with a unit
        if not math.isfinite(value):
            self.bad(where, f"a finite number for '{name}'", raw)
            return None
        return value

    def host(self, name: str) -> None:
        if name not in self.hosts:
            self.hosts.append(name)

    # -- time
    def utc(self, local: datetime, offset: timedelta | None, host: str) -> datetime:
        """Naive UTC time of a naive time at ``offset`` (None: zone not written)."""
        if offset is not None:
            return local - offset
        self.local_times[host].add(local)
        if self.zone is None:
            return local
        hit = self._utc_cache.get(local)
        if hit is None:
            hit = self._utc_cache[local] = to_utc(local, self.zone)
        return hit

    # -- activities
    def feed(
        self,
        activity: str,
        host: str,
        ts: datetime,
        key: str | None,
        fields: Mapping[str, Any],
        where: str,
    ) -> None:
        """One row of an activity; ``fields`` maps sysstat names to raw values."""
        roles = {
            VARIABLE_MAP[n]: (n, v) for n, v in fields.items() if n in VARIABLE_MAP
        }
        k = (host, ts)
        if activity == "cpu":
            self._cpu(k, key, roles, fields, where)
            return
        values: dict[str, float] = {}
        for role, (name, raw) in roles.items():
            value = self.number(raw, name, where)
            if value is None:
                return
            values[role] = value
        if activity == "mem":
            if k in self.mem:
                self.duplicates[host].add(ts)
                return
            self.mem[k] = (values.get("mem_used_kib"), values.get("mem_used_pct"))
            total = mem_total_kib(values)
            if total is not None:
                self.mem_total_kib[host].append(total)
                used = used_without_cache(values, total)
                if used is not None:  # older sysstat counts the page cache as used
                    self.mem[k] = (used, used / total * 100.0)
                    self.cache_out[host] += 1
        elif activity == "io":
            if k in self.io:
                self.duplicates[host].add(ts)
                return
            self.io[k] = (
                values.get("tps", math.nan),
                values.get("read_sectors_s", math.nan),
                values.get("write_sectors_s", math.nan),
            )
        elif activity == "dev" and key is not None:
            if key in self.dev[k]:
                self.duplicates[host].add(ts)
                return
            if "read_kib_s" in values or "write_kib_s" in values:
                rate = (
                    values.get("read_kib_s", 0.0) + values.get("write_kib_s", 0.0)
                ) * _KIB
            else:
                rate = (
                    values.get("read_sectors_s", 0.0)
                    + values.get("write_sectors_s", 0.0)
                ) * _SECTOR_BYTES
            self.dev[k][key] = (values.get("tps", math.nan), rate)
        elif activity == "net" and key is not None:
            if key in self.net[k]:
                self.duplicates[host].add(ts)
                return
            if "rx_kib_s" in values or "tx_kib_s" in values:
                rate = (
                    values.get("rx_kib_s", 0.0) + values.get("tx_kib_s", 0.0)
                ) * _KIB
            else:
                rate = values.get("rx_bytes_s", 0.0) + values.get("tx_bytes_s", 0.0)
            self.net[k][key] = rate

    def _cpu(
        self,
        k: tuple[str, datetime],
        key: str | None,
        roles: dict[str, tuple[str, Any]],
        fields: Mapping[str, Any],
        where: str,
    ) -> None:
        cpu = "" if key is None else str(key).strip()
        others = [v for n, v in fields.items() if n not in _KEYS]
        if cpu not in ("-1", "all"):
            self.cpu_seen(k[0], k[1], cpu, others, roles.get("cpu_idle_pct", ("", None))[1])
            return
        self.cpu_all.add(k)
        # An offline CPU (older sysstat) or a lost sample prints all zeros.
        zero = all(is_zero(v) for v in others)
        if "cpu_idle_pct" not in roles:
            return
        name, raw = roles["cpu_idle_pct"]
        idle = self.number(raw, name, where)
        if idle is None:
            return
        if k in self.cpu:
            self.duplicates[k[0]].add(k[1])
        elif zero:
            self.dropped[k[0]].append(k[1])
        else:
            self.cpu[k] = idle
            if "cpu_iowait_pct" in roles:
                wait = self.number(roles["cpu_iowait_pct"][1], "%iowait", where)
                if wait is not None:
                    self.iowait[k] = wait

    def cpu_seen(
        self, host: str, ts: datetime, cpu: str, values: list[str], idle: Any = None
    ) -> None:
        """A per-CPU row: which CPUs are online (all-zero rows are not), and its
        %idle, for a table without the all-CPU row (``sar -P 0``)."""
        k = (host, ts)
        self.cpu_ids[k].add(cpu)
        if all(is_zero(v) for v in values):
            self.cpu_zero[k].add(cpu)
        elif idle is not None:
            try:
                value = read_number(idle, "%idle")[0]
            except ValueError:
                return  # per-CPU rows are not checked; the all-CPU row is
            total, n = self.cpu_each.get(k, (0.0, 0))
            self.cpu_each[k] = (total + value, n + 1)

    def restart(self, host: str, ts: datetime, text: str) -> None:
        self.host(host)
        m = _CPU_COUNT_RE.search(text)
        self.restarts.append((host, ts, f" ({m.group(1)} CPU)" if m else ""))

    # -- result
    def result(self, path: Path, variant: str, server: str | None) -> SeriesSet:
        quality = SeriesQuality()
        if server is not None and len(self.hosts) > 1:
            raise SeriesError(
                f"{self.label}: the file holds {len(self.hosts)} hosts "
                f"({', '.join(self.hosts)}); --server can only name a one-host file."
            )
        names = {h: (server if server is not None else h) for h in self.hosts}
        rows = Rows()
        disk_sources: set[str] = set()
        each = {k: v for k, v in self.cpu_each.items() if k not in self.cpu_all}
        keys = sorted(
            set(self.cpu) | set(each) | set(self.mem) | set(self.io) | set(self.dev)
            | set(self.net)
        )  # fmt: skip
        for k in keys:
            host, ts = k
            name = names.get(host, host)
            if k in self.cpu:
                rows.add(name, ts, "cpu_util", (100.0 - self.cpu[k]) / 100.0)
            elif k in each:
                idle_sum, n_cpus = each[k]
                rows.add(name, ts, "cpu_util", (100.0 - idle_sum / n_cpus) / 100.0)
            if k in self.mem:
                used_kib, pct = self.mem[k]
                if used_kib is not None:
                    rows.add(name, ts, "mem_used_gib", used_kib * _KIB / _GIB)
                if pct is not None:
                    rows.add(name, ts, "mem_util", pct / 100.0)
            if k in self.io and not any(math.isnan(v) for v in self.io[k]):
                tps, rd, wr = self.io[k]
                rows.add(name, ts, "disk_iops", tps)
                rows.add(name, ts, "disk_mb_s", (rd + wr) * _SECTOR_BYTES / 1e6)
                disk_sources.add("I/O totals (sar -b)")
            elif self.dev.get(k):
                devices = whole_disks(self.dev[k])
                tps_sum = sum(self.dev[k][d][0] for d in devices)
                if not math.isnan(tps_sum):
                    rows.add(name, ts, "disk_iops", tps_sum)
                rows.add(
                    name, ts, "disk_mb_s", sum(self.dev[k][d][1] for d in devices) / 1e6
                )
                disk_sources.add("sum over devices (sar -d)")
            if self.net.get(k):
                kept, out = physical_interfaces(self.net[k])
                rate = sum(self.net[k][i] for i in kept)
                rows.add(name, ts, "net_mbps", rate * 8 / 1e6)
                if out:  # bridges, veth, tunnels: their traffic crosses `kept` too
                    left = sum(self.net[k][i] for i in out) * 8 / 1e6
                    self.net_out[host].append((left, ", ".join(sorted(out))))
        self._quality(quality, names)
        self._per_cpu_only(quality, names, each)
        frame = tidy(rows, quality)
        machines = server_sizes(
            self.hosts, names, self.cpu_count, self.restarts, self.mem_total_kib,
            quality, self.cpu_ids, frozenset(h for h, _ in self.cpu_all),
        )  # fmt: skip
        metadata: dict[str, Any] = {
            "variant": variant,
            "hosts": list(self.hosts),
            "release": dict(self.release),
            "cpu_count": dict(self.cpu_count),
            "intervals_s": sorted(self.intervals),
            "median_interval_s": median_interval(frame),
            "timezone": self._timezone_text(),
            "disk_source": sorted(disk_sources),
            "ignored_records": dict(self.ignored),
            "skipped_lines": len(self.skipped) + len(self.foreign),
            "machines": machines,
            "restarts": [
                {"server": names.get(h, h), "time": iso(t), "detail": c.strip()}
                for h, t, c in self.restarts
            ],
        }
        for note in self.notes:
            quality.note(note)
        return SeriesSet(
            data=frame,
            quality=quality,
            source=os.fspath(path),
            source_format="sar",
            metadata=metadata,
        )

    def _timezone_text(self) -> str:
        if not self.local_times:
            return "written in the file (converted to UTC)"
        if self.zone is None:
            return "UTC (assumed: the file gives local times without a zone)"
        return f"{self.zone} (--tz)"

    def _quality(self, quality: SeriesQuality, names: dict[str, str]) -> None:
        for host in self.hosts:
            name = names[host]
            restarts = [(t, c) for h, t, c in self.restarts if h == host]
            if restarts:
                quality.add(
                    name,
                    "restart",
                    len(restarts),
                    "LINUX RESTART at "
                    + ", ".join(iso(t) + c for t, c in restarts)
                    + "; counters start again, nothing is joined across",
                )
            self._offline(quality, host, name)
            self._iowait(quality, host, name)
            if self.cache_out[host]:
                quality.add(
                    name, "page_cache", self.cache_out[host],
                    "kbmemused counts the page cache (kbbuffers + kbcached) as used "
                    "in this sysstat version; mem_used_gib and mem_util leave it out, "
                    "as current sysstat does (sar(1))",
                )  # fmt: skip
            if self.human:
                quality.add(
                    name, "human_units", self.human,
                    "values printed by sar -h with a unit and one decimal (1.4G, "
                    "46.1%) read in powers of 1024 bytes (sysstat cprintf_unit): "
                    "rounded to 2 to 4 significant digits",
                )  # fmt: skip
            if self.net_out.get(host):
                out = self.net_out[host]
                names_out = sorted({n for _, ns in out for n in ns.split(", ")})
                quality.add(
                    name, "virtual_interfaces", len(out),
                    f"{', '.join(names_out)} left out of net_mbps (bridges, their "
                    "ports, tunnels, VLANs: their traffic crosses a listed physical "
                    f"interface too); up to {max(v for v, _ in out):.6g} Mbit/s left out",
                )  # fmt: skip
            if self.dropped.get(host):
                times = self.dropped[host]
                quality.add(
                    name,
                    "dropped",
                    len(times),
                    "all-CPU rows with every field 0 (no sample) not read as 100 % "
                    f"busy: {', '.join(iso(t) for t in times[:5])}",
                )
            if self.duplicates.get(host):
                dups = sorted(self.duplicates[host])
                quality.add(
                    name,
                    "duplicate",
                    len(dups),
                    f"{plural(len(dups), 'time')} read twice, the first kept "
                    f"(first at {iso(dups[0])})",
                )
            if self.local_times.get(host) and self.zone is None:
                quality.add(
                    name,
                    "unit_guess",
                    len(self.local_times[host]),
                    "times without a time zone read as UTC; give --tz with the "
                    "host's zone",
                )
        for server_name, text in self.guesses:
            quality.add(server_name, "unit_guess", 1, text)
        for kind, lines, what, why in (
            ("skipped_lines", self.skipped, "comment or footer line", ""),
            ("foreign_lines", self.foreign, "line", " (not sar's: no time first)"),
        ):
            for host in self.hosts if lines else ():
                quality.add(
                    names[host],
                    kind,
                    len(lines),
                    f"{plural(len(lines), what)} of {self.label}{why} not read "
                    f"(first on line {lines[0][0]}: '{shown(lines[0][1])}')",
                )

    def _per_cpu_only(
        self,
        quality: SeriesQuality,
        names: dict[str, str],
        each: dict[tuple[str, datetime], tuple[float, int]],
    ) -> None:
        """Say where cpu_util is the mean of per-CPU rows (no all-CPU row)."""
        for host in self.hosts:
            mine = [n for (h, _), (_, n) in each.items() if h == host]
            if not mine:
                continue
            banner = self.cpu_count.get(host)
            short = sum(1 for n in mine if banner and n < banner)
            quality.add(
                names[host],
                "per_cpu_only",
                len(mine),
                "no all-CPU row (sar -P n): cpu_util is the mean of the per-CPU "
                f"rows, {min(mine)} to {max(mine)} CPUs"
                + (f" of the banner's {banner}" if banner else "")
                + (f"; {short} times list fewer CPUs than the banner" if short else ""),
            )

    def _iowait(self, quality: SeriesQuality, host: str, name: str) -> None:
        """Say how much %iowait cpu_util counts as busy, where it is 5 % or more.

        sar(1) (https://sysstat.github.io/man/man1/sar.html) defines %iowait as
        time the CPUs were idle with disk I/O outstanding; cpu_util = 100 - %idle
        counts it as busy, as the node_exporter and collector readers do.
        """
        waits = sorted((w, t) for (h, t), w in self.iowait.items() if h == host)
        if not waits or waits[-1][0] < _IOWAIT_NOTED_PCT:
            return
        peak, when = waits[-1]
        mean = sum(w for w, _ in waits) / len(waits)
        many = sum(1 for w, _ in waits if w >= _IOWAIT_NOTED_PCT)
        quality.add(
            name,
            "iowait_busy",
            many,
            f"cpu_util = 100 - %idle counts %iowait as busy; sar(1) counts it as "
            f"idle time with disk I/O outstanding: up to {peak:.2f} % (at "
            f"{iso(when)}), mean {mean:.2f} %, {many} of {len(waits)} samples at "
            f"{_IOWAIT_NOTED_PCT:g} % or more",
        )

    def _offline(self, quality: SeriesQuality, host: str, name: str) -> None:
        per_ts = {k[1]: ids for k, ids in self.cpu_ids.items() if k[0] == host and ids}
        if not per_ts:
            return
        every = set().union(*per_ts.values())
        missing: Counter[str] = Counter()
        intervals = 0
        for ts, ids in per_ts.items():
            absent = (every - ids) | self.cpu_zero.get((host, ts), set())
            if absent:
                intervals += 1
                missing.update(absent)
        if intervals:
            listed = ", ".join(
                f"CPU {c} x{n}" for c, n in sorted(missing.items(), key=_cpu_order)
            )
            quality.add(
                name,
                "offline",
                intervals,
                f"per-CPU rows absent or all zero (CPU offline or hot-plugged) in "
                f"{intervals} of {len(per_ts)} intervals: {listed}; cpu_util uses "
                "the all-CPU row",
            )


def _cpu_order(item: tuple[str, int]) -> tuple[int, str]:
    cpu = item[0]
    return (int(cpu), "") if cpu.lstrip("-").isdigit() else (1 << 30, cpu)


def _activity(names: list[str]) -> tuple[str | None, str | None]:
    """The activity a header describes and its key column, or (None, None)."""
    present = set(names)
    roles = {VARIABLE_MAP[n] for n in names if n in VARIABLE_MAP}
    if "CPU" in present and "cpu_idle_pct" in roles:
        return "cpu", "CPU"
    if "DEV" in present and "tps" in roles:
        return "dev", "DEV"
    if "IFACE" in present and roles & {"rx_kib_s", "rx_bytes_s"}:
        return "net", "IFACE"
    if roles & {"mem_used_kib", "mem_used_pct"}:
        return "mem", None
    if "tps" in roles and "read_sectors_s" in roles and not present & set(_KEYS):
        return "io", None
    return None, None
