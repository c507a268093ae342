"""Prometheus series: node_exporter text scrapes and HTTP API ``query_range`` responses.

node_exporter scrapes
    Files holding the text exposition format of ``/metrics`` (format 0.0.4 [1]_),
    two or more per server. Counters become rates between consecutive scrapes
    of a server; gauges are read at every scrape. One way to take them::

        while sleep 300; do
          { echo "# scrape_time $(date -u +%Y-%m-%dT%H:%M:%SZ)"
            curl -s http://web01:9100/metrics; } > web01-$(date +%s).prom
        done

query_range responses
    The JSON of ``GET /api/v1/query_range`` [2]_ (``resultType: matrix``), one
    series per server, for a query that already yields one metric per server,
    e.g. ``1 - avg by (instance) (rate(node_cpu_seconds_total{mode="idle"}[5m]))``.

References
----------
.. [1] Prometheus authors, "Exposition formats," prometheus.io/docs/instrumenting/
   exposition_formats/ (text format 0.0.4).
.. [2] Prometheus authors, "HTTP API: Range queries," prometheus.io/docs/prometheus/
   latest/querying/api/ (response envelope, ``matrix`` result type, values as
   ``[<unix time>, "<sample value>"]``).
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from vsizer._textio import read_bytes
from vsizer.errors import ConfigError, SeriesError
from vsizer.series._tidy import (
    KIND_OF_METRIC,
    UNITS_EXPECTED,
    Problems,
    check_gaps,
    file_label,
    median_step_s,
    ratio_unit_by_values,
    tidy_frame,
    unit_factor,
    utc_ns,
)
from vsizer.series.model import METRICS, SeriesQuality, SeriesSet
from vsizer.units import canonical_unit

__all__ = [
    "DEFAULT_DISK_EXCLUDE",
    "DEFAULT_NET_EXCLUDE",
    "NODE_EXPORTER_METRICS",
    "VARIABLE_MAP",
    "read_node_exporter",
    "read_query_range",
]

#: Metrics read from node_exporter; the first four are rates of counters.
NODE_EXPORTER_METRICS: tuple[str, ...] = (
    "cpu_util",
    "disk_iops",
    "disk_mb_s",
    "net_mbps",
    "mem_used_gib",
    "mem_capacity_gib",
)
_RATES = ("cpu_util", "disk_iops", "disk_mb_s", "net_mbps")

#: node_exporter series -> the metric it feeds.
VARIABLE_MAP: dict[str, str] = {
    "node_cpu_seconds_total": "cpu_util",  # mode="idle", per cpu
    "node_disk_reads_completed_total": "disk_iops",
    "node_disk_writes_completed_total": "disk_iops",
    "node_disk_read_bytes_total": "disk_mb_s",
    "node_disk_written_bytes_total": "disk_mb_s",
    "node_network_receive_bytes_total": "net_mbps",
    "node_network_transmit_bytes_total": "net_mbps",
    "node_memory_MemTotal_bytes": "mem_capacity_gib",
    "node_memory_MemAvailable_bytes": "mem_used_gib",
    # Fallback for kernels without MemAvailable (< 3.14): free + buffers + cache.
    "node_memory_MemFree_bytes": "mem_used_gib",
    "node_memory_Buffers_bytes": "mem_used_gib",
    "node_memory_Cached_bytes": "mem_used_gib",
    "node_memory_SReclaimable_bytes": "mem_used_gib",
}
# Read for the server name, the scrape time and restarts.
_META = ("node_uname_info", "node_time_seconds", "node_boot_time_seconds")
_WANTED = frozenset(VARIABLE_MAP) | frozenset(_META)

#: Disks left out by default: partitions (node_exporter's own default
#: exclusion), and devices stacked on other disks (device-mapper, md RAID),
#: optical drives, RAM and loop devices -- counting them would count an I/O twice.
DEFAULT_DISK_EXCLUDE = (
    r"^(z?ram\d+|loop\d+|fd\d+|sr\d+|dm-\d+|md\d+"
    r"|(h|s|v|xv)d[a-z]+\d+|nvme\d+n\d+p\d+|mmcblk\d+p\d+)$"
)
#: Network devices left out by default: the loopback.
DEFAULT_NET_EXCLUDE = r"^lo$"

_SAMPLE_RE = re.compile(
    r"^(?P<name>[a-zA-Z_:][a-zA-Z0-9_:]*)"
    r"(?:\{(?P<labels>.*)\})?"
    r"\s+(?P<value>\S+)(?:\s+(?P<ts>-?\d+))?\s*$"
)
_LABEL_RE = re.compile(
    r'\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*(?:,|$)'
)
_SCRAPE_TIME_RE = re.compile(r"^#\s*scrape_time\s*:?\s+(?P<t>\S+)\s*$")
_SAMPLE_EXPECTED = 'a sample such as node_cpu_seconds_total{cpu="0",mode="idle"} 123.4'
_BYTES_PER_GIB = 2.0**30
_NS = 1_000_000_000

LabelKey = tuple[tuple[str, str], ...]


@dataclass
class _Scrape:
    file: str
    path: Path
    samples: dict[str, dict[LabelKey, float]] = field(default_factory=dict)
    comment_time: str | None = None
    time_ns: int = 0
    time_from: str = ""
    server: str = ""


def read_node_exporter(
    paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    *,
    server: str | None = None,
    timestamps: Sequence[str | pd.Timestamp | float] | None = None,
    metrics: Iterable[str] | None = None,
    disk_exclude: str = DEFAULT_DISK_EXCLUDE,
    net_exclude: str = DEFAULT_NET_EXCLUDE,
) -> SeriesSet:
    """Read node_exporter ``/metrics`` scrapes saved as text files.

    Parameters
    ----------
    paths : path or sequence of paths
        Scrape files, any order, one or several servers.
    server : str, optional
        Server name of every file. Default: ``nodename`` of
        ``node_uname_info`` in each file.
    timestamps : sequence, optional
        Time of each scrape, in the order of ``paths`` (ISO 8601 text,
        Timestamp, or Unix seconds). Default, per file, first found: a comment
        line ``# scrape_time <ISO 8601 or Unix seconds>``; the gauge
        ``node_time_seconds`` (node_exporter's time collector, on by default);
        the file's modification time (noted -- copying files can change it).
    metrics : iterable of str, optional
        Subset of :data:`NODE_EXPORTER_METRICS`; default all. Rates need two or
        more scrapes per server; ``metrics=("mem_used_gib", "mem_capacity_gib")``
        reads a single scrape.
    disk_exclude, net_exclude : str
        Regular expressions of the ``device`` labels left out of the disk and
        network sums (:data:`DEFAULT_DISK_EXCLUDE`, :data:`DEFAULT_NET_EXCLUDE`).

    Returns
    -------
    SeriesSet
        ``source_format='prometheus'``. Metrics:

        ====================  ===================================================
        ``cpu_util``          1 - (idle seconds rate) / CPUs [fraction]
        ``disk_iops``         rate of reads + writes completed [IOPS]
        ``disk_mb_s``         rate of bytes read + written / 10^6 [MB/s]
        ``net_mbps``          rate of bytes received + sent x 8 / 10^6 [Mbit/s]
        ``mem_used_gib``      (MemTotal - MemAvailable) / 2^30 [GiB]
        ``mem_capacity_gib``  MemTotal / 2^30 [GiB]
        ====================  ===================================================

        A rate is stamped with the later scrape of its interval. ``metadata``:
        ``scrapes`` (file, server, time, where the time came from), ``cpus``,
        ``disk_devices`` and ``net_devices`` summed, per server.

    Raises
    ------
    SeriesError
        A malformed sample line, a server or time that cannot be told, two
        scrapes of a server at one time, one scrape when rates are wanted.
    ConfigError
        An unknown metric, or ``timestamps`` not matching ``paths``.

    Notes
    -----
    ``cpu_util`` is the PromQL ``1 - avg(rate(node_cpu_seconds_total{mode="idle"}))``
    over the interval; iowait counts as busy. Values outside [0, 1] (clock
    jitter between scrape times and CPU accounting) are clipped and counted.
    A counter that went down, or a changed ``node_boot_time_seconds``, means
    a restart: that interval gets no rates (issue ``restart``), never a
    negative or made-up one. Without ``MemAvailable`` (kernels before 3.14,
    and node_exporter's own test fixture) used memory is MemTotal - (MemFree
    + Buffers + Cached + SReclaimable), as ``free`` computes it (noted).
    Sample timestamps in the file, if any, are ignored.
    """
    path_list = (
        [Path(paths)]
        if isinstance(paths, (str, os.PathLike))
        else [Path(p) for p in paths]
    )
    wanted = _check_metrics(metrics)
    if timestamps is not None and len(timestamps) != len(path_list):
        raise ConfigError(
            "The 'timestamps' parameter of read_node_exporter must have one time per "
            f"path ({len(path_list)}). Got {len(timestamps)} instead."
        )
    disk_re = _compile("disk_exclude", disk_exclude)
    net_re = _compile("net_exclude", net_exclude)
    problems = Problems()
    if not path_list:
        raise ConfigError(
            "The 'paths' parameter of read_node_exporter must name at least one "
            "scrape file. Got none instead."
        )
    scrapes = [_parse_scrape(p, problems) for p in path_list]
    problems.raise_if_any()

    quality = SeriesQuality()
    for i, sc in enumerate(scrapes):
        _scrape_time(sc, None if timestamps is None else timestamps[i], problems)
        _scrape_server(sc, server, problems)
    problems.raise_if_any()
    from_mtime = [sc.file for sc in scrapes if sc.time_from == "file time"]
    if from_mtime:
        quality.note(
            "scrape time taken from the file modification time (no timestamps "
            "argument, '# scrape_time' comment or node_time_seconds): "
            + ", ".join(from_mtime)
        )

    by_server: dict[str, list[_Scrape]] = {}
    for sc in scrapes:
        by_server.setdefault(sc.server, []).append(sc)
    rates_wanted = [m for m in wanted if m in _RATES]
    for name, group in sorted(by_server.items()):
        group.sort(key=lambda s: s.time_ns)
        for a, b in zip(group, group[1:], strict=False):
            if a.time_ns == b.time_ns:
                problems.whole(
                    b.file,
                    f"has the same scrape time as {a.file} "
                    f"({pd.Timestamp(a.time_ns, tz='UTC').isoformat()}); "
                    "rates need distinct times.",
                )
        if rates_wanted and len(group) < 2:
            problems.whole(
                group[0].file,
                "needs two or more scrapes to compute rates ("
                + ", ".join(rates_wanted)
                + f"); got 1 scrape of server '{name}'. Give --metric mem_used_gib "
                "(or mem_capacity_gib) to read a gauge only.",
            )
    problems.raise_if_any()

    rows_s: list[str] = []
    rows_t: list[int] = []
    rows_m: list[str] = []
    rows_v: list[float] = []
    info: dict[str, dict[str, Any]] = {}
    steps: list[float] = []
    for name, group in sorted(by_server.items()):
        server_rows = _server_rows(name, group, wanted, disk_re, net_re, quality)
        info[name] = server_rows.pop("info")
        for t, m, v in server_rows["rows"]:
            rows_s.append(name)
            rows_t.append(t)
            rows_m.append(m)
            rows_v.append(v)
        med = check_gaps(
            quality, name, np.array([s.time_ns for s in group], dtype=np.int64)
        )
        if med is not None:
            steps.append(med)
    data = tidy_frame(
        np.array(rows_s, dtype=object),
        np.array(rows_t, dtype=np.int64),
        np.array(rows_m, dtype=object),
        np.array(rows_v, dtype=np.float64),
    )
    sources = sorted({str(p.parent) for p in path_list})
    return SeriesSet(
        data=data,
        quality=quality,
        source=str(path_list[0]) if len(path_list) == 1 else ", ".join(sources),
        source_format="prometheus",
        metadata={
            "scrapes": [
                {
                    "file": sc.file,
                    "server": sc.server,
                    "time": pd.Timestamp(sc.time_ns, tz="UTC").isoformat(),
                    "time_from": sc.time_from,
                }
                for sc in sorted(scrapes, key=lambda s: (s.server, s.time_ns))
            ],
            "servers": info,
            "step_s": median_step_s(steps),
            "rate_timestamp": "end of interval (the later scrape)",
        },
    )


def _check_metrics(metrics: Iterable[str] | None) -> list[str]:
    if metrics is None:
        return list(NODE_EXPORTER_METRICS)
    chosen = list(metrics)
    bad = [m for m in chosen if m not in NODE_EXPORTER_METRICS]
    if bad or not chosen:
        raise ConfigError(
            "--metric must hold names from "
            + ", ".join(repr(m) for m in NODE_EXPORTER_METRICS)
            + f". Got {chosen!r} instead."
        )
    return chosen


def _compile(name: str, pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise ConfigError(
            f"The '{name}' parameter of read_node_exporter must be a regular "
            f"expression. Got {pattern!r} instead ({exc})."
        ) from None


def _parse_scrape(path: Path, problems: Problems) -> _Scrape:
    """The samples vsizer reads from one exposition-format file."""
    sc = _Scrape(file=file_label(path), path=path)
    try:
        text = read_bytes(path).decode("utf-8", errors="replace")
    except SeriesError as exc:
        problems.whole(sc.file, str(exc).split(": ", 1)[-1])
        return sc
    for n, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line:
            continue
        if line.startswith("#"):
            m = _SCRAPE_TIME_RE.match(line)
            if m:
                sc.comment_time = m.group("t")
            continue
        name = re.split(r"[{\s]", line, maxsplit=1)[0]
        if name not in _WANTED:
            continue
        m = _SAMPLE_RE.match(line)
        labels = _parse_labels(m.group("labels")) if m else None
        value = _parse_value(m.group("value")) if m else None
        if m is None or labels is None or value is None:
            problems.cell(sc.file, n, _SAMPLE_EXPECTED, line)
            continue
        sc.samples.setdefault(name, {})[labels] = value
    if not any(k in sc.samples for k in VARIABLE_MAP):
        problems.whole(
            sc.file,
            "expected node_exporter samples (node_cpu_seconds_total, "
            "node_memory_MemTotal_bytes, ...), found none.",
        )
    return sc


def _parse_labels(text: str | None) -> LabelKey | None:
    if not text:
        return ()
    pairs: list[tuple[str, str]] = []
    pos = 0
    while pos < len(text):
        m = _LABEL_RE.match(text, pos)
        if not m:
            return None
        value = m.group(2).replace(r"\\", "\0").replace(r"\"", '"').replace(r"\n", "\n")
        pairs.append((m.group(1), value.replace("\0", "\\")))
        pos = m.end()
    return tuple(sorted(pairs))


def _parse_value(text: str) -> float | None:
    try:
        return float(text)  # accepts NaN, +Inf, -Inf, 1e+06
    except ValueError:
        return None


def _scrape_time(
    sc: _Scrape, given: str | pd.Timestamp | float | None, problems: Problems
) -> None:
    if given is not None:
        ns = _to_ns(given)
        if ns is None:
            problems.whole(
                sc.file,
                f"expected a scrape time (ISO 8601 or Unix seconds), got '{given}'.",
            )
        sc.time_ns, sc.time_from = ns or 0, "argument"
        return
    if sc.comment_time is not None:
        ns = _to_ns(sc.comment_time)
        if ns is None:
            problems.whole(
                sc.file,
                "expected '# scrape_time' to give an ISO 8601 time or Unix seconds, "
                f"got '{sc.comment_time}'.",
            )
        sc.time_ns, sc.time_from = ns or 0, "scrape_time comment"
        return
    node_time = sc.samples.get("node_time_seconds", {}).get(())
    if node_time is not None and math.isfinite(node_time):
        # to the microsecond: a float64 holds no finer at today's Unix times
        sc.time_ns = int(round(node_time * 1e6)) * 1000
        sc.time_from = "node_time_seconds"
        return
    sc.time_ns = int(sc.path.stat().st_mtime_ns)
    sc.time_from = "file time"


def _to_ns(value: str | pd.Timestamp | float) -> int | None:
    """ISO 8601 text, Timestamp or Unix seconds -> ns, UTC (seconds to the µs)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if not math.isfinite(value):
            return None
        return int(round(float(value) * 1e6)) * 1000
    text = str(value).strip()
    try:
        seconds = float(text)
    except ValueError:
        pass
    else:
        return int(round(seconds * 1e6)) * 1000 if math.isfinite(seconds) else None
    return utc_ns(text)


def _scrape_server(sc: _Scrape, server: str | None, problems: Problems) -> None:
    if server is not None:
        sc.server = server
        return
    for labels in sc.samples.get("node_uname_info", {}):
        name = dict(labels).get("nodename", "")
        if name:
            sc.server = name
            return
    problems.whole(
        sc.file,
        'expected node_uname_info{nodename="..."} to name the server, found none; '
        "give it with --server NAME.",
    )


def _server_rows(
    name: str,
    group: list[_Scrape],
    wanted: list[str],
    disk_re: re.Pattern[str],
    net_re: re.Pattern[str],
    quality: SeriesQuality,
) -> dict[str, Any]:
    """Rows (time ns, metric, value) of one server's scrapes, sorted by time."""
    rows: list[tuple[int, str, float]] = []
    disks: set[str] = set()
    nets: set[str] = set()
    cpus = 0
    fallback_mem = 0
    for sc in group:
        s = sc.samples
        total = _scalar(s, "node_memory_MemTotal_bytes")
        if total is None:
            continue
        if "mem_capacity_gib" in wanted:
            rows.append((sc.time_ns, "mem_capacity_gib", total / _BYTES_PER_GIB))
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
            rows.append(
                (sc.time_ns, "mem_used_gib", max(total - avail, 0.0) / _BYTES_PER_GIB)
            )
    if fallback_mem:
        quality.note(
            f"{name}: no node_memory_MemAvailable_bytes in {fallback_mem} of "
            f"{len(group)} scrapes; used memory there = MemTotal - (MemFree + "
            "Buffers + Cached + SReclaimable)."
        )

    restarts: list[str] = []
    clipped = 0
    missing: dict[str, int] = {}
    for a, b in zip(group, group[1:], strict=False):
        dt = (b.time_ns - a.time_ns) / _NS
        boot_a = _scalar(a.samples, "node_boot_time_seconds")
        boot_b = _scalar(b.samples, "node_boot_time_seconds")
        if boot_a is not None and boot_b is not None and abs(boot_b - boot_a) > 1.0:
            restarts.append(f"{a.file} -> {b.file} (boot time changed)")
            continue
        got: dict[str, float | None] = {}
        reset = False
        if "cpu_util" in wanted:
            idle_a = _select(a.samples, "node_cpu_seconds_total", mode="idle")
            idle_b = _select(b.samples, "node_cpu_seconds_total", mode="idle")
            d, n, went_down = _delta(idle_a, idle_b)
            reset |= went_down
            if n:
                cpus = max(cpus, n)
                util = 1.0 - d / (dt * n)
                if util < 0.0 or util > 1.0:
                    clipped += 1
                got["cpu_util"] = min(max(util, 0.0), 1.0)
            else:
                got["cpu_util"] = None
        pairs = {
            "disk_iops": (
                ("node_disk_reads_completed_total", "node_disk_writes_completed_total"),
                disk_re,
                disks,
                1.0,
            ),
            "disk_mb_s": (
                ("node_disk_read_bytes_total", "node_disk_written_bytes_total"),
                disk_re,
                disks,
                1e-6,
            ),
            "net_mbps": (
                (
                    "node_network_receive_bytes_total",
                    "node_network_transmit_bytes_total",
                ),
                net_re,
                nets,
                8e-6,
            ),
        }
        for metric, (families, exclude, used, scale) in pairs.items():
            if metric not in wanted:
                continue
            total_delta, n_series = 0.0, 0
            for fam in families:
                sa = _devices(a.samples, fam, exclude)
                sb = _devices(b.samples, fam, exclude)
                d, n, went_down = _delta(sa, sb)
                reset |= went_down
                total_delta += d
                n_series += n
                used.update(dict(k).get("device", "") for k in set(sa) & set(sb))
            got[metric] = total_delta / dt * scale if n_series else None
        if reset:
            restarts.append(f"{a.file} -> {b.file} (a counter went down)")
            continue
        for metric, value in got.items():
            if value is None:
                missing[metric] = missing.get(metric, 0) + 1
            else:
                rows.append((b.time_ns, metric, value))
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
    return {
        "rows": rows,
        "info": {
            "cpus": cpus,
            "disk_devices": sorted(d for d in disks if d),
            "net_devices": sorted(d for d in nets if d),
        },
    }


def _scalar(samples: dict[str, dict[LabelKey, float]], name: str) -> float | None:
    v = samples.get(name, {}).get(())
    return v if v is not None and math.isfinite(v) else None


def _select(
    samples: dict[str, dict[LabelKey, float]], name: str, **match: str
) -> dict[LabelKey, float]:
    return {
        k: v
        for k, v in samples.get(name, {}).items()
        if all(dict(k).get(lk) == lv for lk, lv in match.items())
    }


def _devices(
    samples: dict[str, dict[LabelKey, float]], name: str, exclude: re.Pattern[str]
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


# ----------------------------------------------------------------- query_range


def read_query_range(
    path: str | os.PathLike[str],
    *,
    metric: str,
    unit: str | None = None,
    server_label: str = "instance",
) -> SeriesSet:
    """Read a Prometheus HTTP API ``query_range`` response saved as JSON [2]_.

    Parameters
    ----------
    path : str or path-like
        The response body, e.g. ``curl -G .../api/v1/query_range --data-urlencode
        'query=...' -d start=... -d end=... -d step=300 > cpu.json``.
    metric : str
        What the query returns, one of :data:`METRICS`.
    unit : str, optional
        Unit of the values (``"%"``, ``"B/s"``, ``"bytes"``...). Default: for a
        utilization, fraction if every value is <= 1 else % (issue
        ``unit_guess``); otherwise the canonical unit.
    server_label : str, default "instance"
        Label that names the server. Each result series must have it, and no
        two series the same value (aggregate the query ``by (instance)``).

    Returns
    -------
    SeriesSet
        ``source_format='prometheus'``; ``metadata``: ``metric``, ``unit``,
        ``series`` (server -> its labels), ``warnings`` of the response.

    Raises
    ------
    SeriesError
        Not JSON; ``status: error`` (its message); not a ``matrix``; a series
        without ``server_label`` or repeating one; a malformed point; a
        negative value.
    ConfigError
        Unknown ``metric``, or a ``unit`` that does not fit it.

    Notes
    -----
    Values are strings in the API; ``"NaN"`` (no data, e.g. 0/0) and
    ``"+Inf"``/``"-Inf"`` points are left out and counted (``dropped``).
    Utilization above 1 after conversion is clipped (``clipped``).
    """
    if metric not in METRICS:
        raise ConfigError(
            "--metric must be one of "
            + ", ".join(repr(m) for m in METRICS)
            + f". Got {metric!r} instead."
        )
    given_unit: str | None = None
    if unit is not None:
        try:
            given_unit = canonical_unit(unit)
            unit_factor(metric, given_unit)
        except ValueError:
            raise ConfigError(
                f"--unit must be "
                f"{UNITS_EXPECTED[KIND_OF_METRIC[metric]]} for --metric {metric}. "
                f"Got {unit!r} instead."
            ) from None
    file = file_label(path)
    problems = Problems()
    body = _load_json(path, file, problems)
    result = _matrix(body, file, problems)
    problems.raise_if_any()

    quality = SeriesQuality()
    for w in body.get("warnings") or []:
        quality.note(f"{file}: Prometheus warning: {w}")
    series_info: dict[str, dict[str, str]] = {}
    first_of: dict[str, int] = {}
    per_server: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for i, item in enumerate(result, start=1):
        where = f"result {i}"
        if not isinstance(item, dict) or not isinstance(item.get("values"), list):
            problems.whole(
                file,
                f'{where}: expected {{"metric": {{...}}, "values": [...]}}, '
                f"got '{_short(item)}'.",
            )
            continue
        labels = item.get("metric") or {}
        name = labels.get(server_label) if isinstance(labels, dict) else None
        if not name:
            problems.whole(
                file,
                f"{where}: expected a label '{server_label}' naming the server, got "
                f"labels {json.dumps(labels, sort_keys=True)}.",
            )
            continue
        name = str(name)
        if name in first_of:
            problems.whole(
                file,
                f"{where}: {server_label}='{name}' also names result {first_of[name]}; "
                f"aggregate the query by ({server_label}), e.g. "
                f"avg by ({server_label}) (...).",
            )
            continue
        first_of[name] = i
        series_info[name] = {str(k): str(v) for k, v in labels.items()}
        ts, vals, n_nan, n_inf = _points(item["values"], file, where, problems)
        if n_nan:
            quality.add(name, "dropped", n_nan, "NaN points (no data)")
        if n_inf:
            quality.add(name, "dropped", n_inf, "infinite points (+Inf/-Inf)")
        per_server[name] = (ts, vals)
    problems.raise_if_any()

    all_vals = (
        np.concatenate([v for _, v in per_server.values()])
        if per_server
        else np.array([], dtype=np.float64)
    )
    read_unit = given_unit
    if read_unit is None:
        if KIND_OF_METRIC[metric] == "ratio":
            read_unit = ratio_unit_by_values(all_vals)
            why = (
                "every value is <= 1"
                if read_unit == "fraction"
                else f"values reach {float(all_vals.max()):g}"
            )
            for name, (_, v) in per_server.items():
                quality.add(
                    name,
                    "unit_guess",
                    len(v),
                    f"no unit given; read as {read_unit}: {why}",
                )
        else:  # the canonical unit, as vsizer.units spells it
            read_unit = "count" if metric == "disk_iops" else METRICS[metric]
    factor = unit_factor(metric, read_unit)
    rows_s, rows_t, rows_v = [], [], []
    steps: list[float] = []
    for name in sorted(per_server):
        ts, vals = per_server[name]
        order = np.argsort(ts, kind="stable")
        ts, vals = ts[order], vals[order] * factor
        first = np.ones(len(ts), dtype=bool)
        first[1:] = ts[1:] != ts[:-1]
        if (~first).any():
            quality.add(
                name, "duplicate", int((~first).sum()), "repeated times; first kept"
            )
            ts, vals = ts[first], vals[first]
        if KIND_OF_METRIC[metric] == "ratio" and (vals > 1.0).any():
            quality.add(
                name, "clipped", int((vals > 1.0).sum()), "utilization above 1 set to 1"
            )
            vals = np.minimum(vals, 1.0)
        med = check_gaps(quality, name, ts)
        if med is not None:
            steps.append(med)
        rows_s.append(np.full(len(ts), name, dtype=object))
        rows_t.append(ts)
        rows_v.append(vals)
    if not per_server:
        quality.note(f"{file}: the query returned no series.")
    data = tidy_frame(
        np.concatenate(rows_s) if rows_s else np.array([], dtype=object),
        np.concatenate(rows_t) if rows_t else np.array([], dtype=np.int64),
        np.full(sum(len(t) for t in rows_t), metric, dtype=object),
        np.concatenate(rows_v) if rows_v else np.array([], dtype=np.float64),
        presorted=True,
    )
    return SeriesSet(
        data=data,
        quality=quality,
        source=str(path),
        source_format="prometheus",
        metadata={
            "metric": metric,
            "unit": read_unit,
            "series": series_info,
            "step_s": median_step_s(steps),
            "warnings": list(body.get("warnings") or []),
        },
    )


def _short(obj: Any) -> str:
    return json.dumps(obj)[:60] if not isinstance(obj, str) else obj[:60]


def _load_json(
    path: str | os.PathLike[str], file: str, problems: Problems
) -> dict[str, Any]:
    try:
        text = read_bytes(path).decode("utf-8-sig")
    except SeriesError as exc:
        problems.whole(file, str(exc).split(": ", 1)[-1])
        return {}
    except UnicodeDecodeError:
        problems.whole(file, "expected UTF-8 JSON text, got undecodable bytes.")
        return {}
    try:
        body = json.loads(text)
    except json.JSONDecodeError as exc:
        problems.whole(
            file,
            "expected a Prometheus query_range JSON response, got invalid JSON "
            f"(line {exc.lineno} column {exc.colno}: {exc.msg}).",
        )
        return {}
    except (ValueError, RecursionError) as exc:  # a 4,300+ digit number, deep nesting
        problems.whole(
            file,
            "expected a Prometheus query_range JSON response, got JSON that "
            f"cannot be read ({type(exc).__name__}: {str(exc)[:120]}).",
        )
        return {}
    if not isinstance(body, dict) or "status" not in body:
        problems.whole(
            file,
            'expected a Prometheus API response {"status": ..., "data": ...}, got '
            f"'{_short(body)}'.",
        )
        return {}
    return body


def _matrix(body: dict[str, Any], file: str, problems: Problems) -> list[Any]:
    if not body:
        return []
    if body.get("status") != "success":
        kind = body.get("errorType", "error")
        problems.whole(
            file,
            f"Prometheus returned an error ({kind}): {body.get('error', '(no message)')}",
        )
        return []
    data = body.get("data")
    if not isinstance(data, dict):
        problems.whole(file, "expected a 'data' object in the response, found none.")
        return []
    kind = data.get("resultType")
    if kind != "matrix":
        problems.whole(
            file,
            "expected resultType 'matrix' (a query_range response), got "
            f"'{kind}'; save /api/v1/query_range, not /api/v1/query.",
        )
        return []
    result = data.get("result")
    if not isinstance(result, list):
        problems.whole(file, "expected 'data.result' to be a list.")
        return []
    return result


#: Unix times up to 2262-04-11, the end of numpy's datetime64[ns].
_MAX_UNIX_S = 9_223_372_036


def _points(
    values: list[Any], file: str, where: str, problems: Problems
) -> tuple[np.ndarray, np.ndarray, int, int]:
    """Times [ns] and finite values of ``[[t, "v"], ...]``; counts of NaN and Inf."""
    ts: list[int] = []
    vals: list[float] = []
    n_nan = n_inf = 0
    for j, point in enumerate(values, start=1):
        ok = (
            isinstance(point, list)
            and len(point) == 2
            and isinstance(point[0], (int, float))
            and not isinstance(point[0], bool)
            and 0 <= point[0] < _MAX_UNIX_S  # a time numpy can hold
            and isinstance(point[1], str)
        )
        value = _parse_value(point[1]) if ok else None
        if not ok or value is None:
            problems.whole(
                file,
                f'{where} point {j}: expected [unix_time, "value"], got '
                f"'{_short(point)}'.",
            )
            continue
        if math.isnan(value):
            n_nan += 1
            continue
        if math.isinf(value):
            n_inf += 1
            continue
        if value < 0:
            problems.whole(
                file,
                f"{where} point {j}: expected a non-negative value, got '{point[1]}'.",
            )
            continue
        ts.append(int(round(float(point[0]) * 1000)) * 1_000_000)  # ms resolution
        vals.append(value)
    return np.array(ts, dtype=np.int64), np.array(vals, dtype=np.float64), n_nan, n_inf
