"""node_exporter ``/metrics`` scrapes saved as text files -> tidy series.

:func:`read_node_exporter` reads in three steps: parse each file
(:mod:`~vsizer.series.prometheus._exposition`), select (tell each scrape's time
and server, group the scrapes by server, check the groups), and rows
(:mod:`~vsizer.series.prometheus._rates`, gauges and rates per server).

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

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from vsizer.errors import ConfigError
from vsizer.series._tidy import Problems, check_gaps, median_step_s, tidy_frame
from vsizer.series.model import SeriesQuality, SeriesSet
from vsizer.series.prometheus._exposition import (
    Scrape,
    parse_scrape,
    scrape_server,
    scrape_time,
)
from vsizer.series.prometheus._node_metrics import (
    DEFAULT_DISK_EXCLUDE,
    DEFAULT_NET_EXCLUDE,
    NODE_EXPORTER_METRICS,
    RATES,
    VARIABLE_MAP,
)
from vsizer.series.prometheus._rates import server_rows

__all__ = [
    "DEFAULT_DISK_EXCLUDE",
    "DEFAULT_NET_EXCLUDE",
    "NODE_EXPORTER_METRICS",
    "VARIABLE_MAP",
    "read_node_exporter",
]

ScrapeTime = str | pd.Timestamp | float


def read_node_exporter(
    paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    *,
    server: str | None = None,
    timestamps: Sequence[ScrapeTime] | None = None,
    metrics: Iterable[str] | None = None,
    disk_exclude: str = DEFAULT_DISK_EXCLUDE,
    net_exclude: str = DEFAULT_NET_EXCLUDE,
) -> SeriesSet:
    """Read node_exporter ``/metrics`` scrapes saved as text files.

    How rates and memory are computed: :mod:`vsizer.series.prometheus.scrape`.

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
    """
    path_list = _path_list(paths)
    wanted = _check_metrics(metrics)
    _check_timestamps(timestamps, len(path_list))
    exclude = _exclusions(disk_exclude, net_exclude)
    _check_paths(path_list)
    problems = Problems()
    scrapes = [parse_scrape(p, problems) for p in path_list]
    problems.raise_if_any()
    quality = SeriesQuality()
    _tell_times_and_servers(scrapes, timestamps, server, problems, quality)
    by_server = _by_server(scrapes, wanted, problems)
    rows = _rows(by_server, wanted, exclude, quality)
    return SeriesSet(
        data=rows.data,
        quality=quality,
        source=_source(path_list),
        source_format="prometheus",
        metadata=_metadata(scrapes, rows),
    )


def _path_list(
    paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
) -> list[Path]:
    if isinstance(paths, (str, os.PathLike)):
        return [Path(paths)]
    return [Path(p) for p in paths]


def _exclusions(disk_exclude: str, net_exclude: str) -> dict[str, re.Pattern[str]]:
    """The device exclusions compiled, by kind (``disk``, ``net``)."""
    return {
        "disk": _compile("disk_exclude", disk_exclude),
        "net": _compile("net_exclude", net_exclude),
    }


def _source(path_list: list[Path]) -> str:
    """The one file, else the folders of the files."""
    if len(path_list) == 1:
        return str(path_list[0])
    return ", ".join(sorted({str(p.parent) for p in path_list}))


def _check_paths(path_list: list[Path]) -> None:
    if not path_list:
        raise ConfigError(
            "The 'paths' parameter of read_node_exporter must name at least one "
            "scrape file. Got none instead."
        )


def _check_timestamps(timestamps: Sequence[ScrapeTime] | None, n_paths: int) -> None:
    if timestamps is not None and len(timestamps) != n_paths:
        raise ConfigError(
            "The 'timestamps' parameter of read_node_exporter must have one time per "
            f"path ({n_paths}). Got {len(timestamps)} instead."
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


def _tell_times_and_servers(
    scrapes: list[Scrape],
    timestamps: Sequence[ScrapeTime] | None,
    server: str | None,
    problems: Problems,
    quality: SeriesQuality,
) -> None:
    """Set each scrape's time and server; note the times taken from the file."""
    for i, sc in enumerate(scrapes):
        scrape_time(sc, None if timestamps is None else timestamps[i], problems)
        scrape_server(sc, server, problems)
    problems.raise_if_any()
    from_mtime = [sc.file for sc in scrapes if sc.time_from == "file time"]
    if from_mtime:
        quality.note(
            "scrape time taken from the file modification time (no timestamps "
            "argument, '# scrape_time' comment or node_time_seconds): "
            + ", ".join(from_mtime)
        )


def _by_server(
    scrapes: list[Scrape], wanted: list[str], problems: Problems
) -> dict[str, list[Scrape]]:
    """Scrapes per server, each list sorted by time; distinct times, enough for rates."""
    by_server: dict[str, list[Scrape]] = {}
    for sc in scrapes:
        by_server.setdefault(sc.server, []).append(sc)
    rates_wanted = [m for m in wanted if m in RATES]
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
    return by_server


@dataclass(frozen=True)
class _Rows:
    """The tidy rows of every server, each server's devices and median step."""

    data: pd.DataFrame
    info: dict[str, dict[str, Any]]
    steps: list[float]


def _rows(
    by_server: dict[str, list[Scrape]],
    wanted: list[str],
    exclude: dict[str, re.Pattern[str]],
    quality: SeriesQuality,
) -> _Rows:
    """Rows of every server, servers in name order; gaps reported."""
    rows_s: list[str] = []
    rows_t: list[int] = []
    rows_m: list[str] = []
    rows_v: list[float] = []
    info: dict[str, dict[str, Any]] = {}
    steps: list[float] = []
    for name, group in sorted(by_server.items()):
        found = server_rows(name, group, wanted, exclude, quality)
        info[name] = found.info()
        for t, m, v in found.rows:
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
    return _Rows(data, info, steps)


def _metadata(scrapes: list[Scrape], rows: _Rows) -> dict[str, Any]:
    """``scrapes`` (file, server, time, where it came from), ``servers``, ``step_s``."""
    return {
        "scrapes": [
            {
                "file": sc.file,
                "server": sc.server,
                "time": pd.Timestamp(sc.time_ns, tz="UTC").isoformat(),
                "time_from": sc.time_from,
            }
            for sc in sorted(scrapes, key=lambda s: (s.server, s.time_ns))
        ],
        "servers": rows.info,
        "step_s": median_step_s(rows.steps),
        "rate_timestamp": "end of interval (the later scrape)",
    }
