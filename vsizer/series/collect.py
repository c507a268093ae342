"""``vsizer collect``: sample the local machine with psutil into a series store.

For servers that have no monitoring. Every ``interval_s`` seconds (scheduled on
the monotonic clock, so the sampling does not drift) one sample of the
metrics below is appended to a journal in ``STORE/journal/`` and fsynced
before it is reported; every ``segment_samples`` samples, at a clean exit
(count or duration reached, SIGTERM, SIGINT/Ctrl-C) and at the next start
after a crash, the journal is sealed into a Parquet part. A ``kill -9`` thus
loses at most the sample being written. Memory stays bounded: the collector
keeps only the previous counter reading; the journal is re-read from disk to
seal it (at most one segment).

Metrics (canonical names and units of :data:`vsizer.series.model.METRICS`),
defined as the node_exporter reader defines them so collected and scraped
series compare:

==================== ==========================================================
``cpu_util``         1 - delta(idle) / delta(total CPU time), all CPUs
                     (``psutil.cpu_times``); iowait counts as busy, as in the
                     sysstat (100 - %idle) and node_exporter readers; guest
                     time is already inside user/nice and is not added twice
``mem_used_gib``     (total - available) / 2^30 (``psutil.virtual_memory``;
                     "available" is the kernel's MemAvailable on Linux)
``mem_capacity_gib`` total / 2^30
``disk_iops``        delta(reads + writes completed) / delta(t), whole disks
``disk_mb_s``        delta(bytes read + written) / 10^6 / delta(t)
``net_mbps``         delta(bytes received + sent) x 8 / 10^6 / delta(t)
==================== ==========================================================

Rates cover the interval ending at the sample's time (the first sample comes
one interval after the start). Disks: ``psutil.disk_io_counters(perdisk=True)``
minus the devices matching :data:`DEFAULT_DISK_EXCLUDE` (partitions, loop, ram,
zram, device-mapper and md devices, floppies and CD-ROMs), so I/O is counted
once, on the physical disk. Network: ``net_io_counters(pernic=True)`` minus the
loopback (:data:`COLLECT_NET_EXCLUDE`); bridges and veth pairs of containers
are counted like any interface (pass ``net_exclude`` to leave them out). A
counter that goes down (device reset or replaced) contributes nothing to
that interval. The collector opens no socket and listens on nothing.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from types import FrameType
from typing import Any, Protocol

from vsizer._validation import Interval, check_param
from vsizer.errors import ConfigError, SeriesError
from vsizer.series._duration import parse_duration
from vsizer.series._journal import JournalWriter, is_locked
from vsizer.series.prometheus import DEFAULT_DISK_EXCLUDE
from vsizer.series.store import PartInfo, SeriesStore, safe_name

__all__ = [
    "COLLECT_NET_EXCLUDE",
    "DEFAULT_DISK_EXCLUDE",
    "CollectReport",
    "PsutilSampler",
    "Reading",
    "Sample",
    "collect",
    "parse_duration",
    "rates",
]

#: Network interfaces left out: the loopback (Linux ``lo``, BSD/macOS ``lo0``,
#: Windows ``Loopback Pseudo-Interface 1``).
COLLECT_NET_EXCLUDE = r"^(lo\d*|Loopback Pseudo-Interface \d+)$"
_GIB = 2.0**30


@dataclass(frozen=True)
class Reading:
    """Counters read at one instant.

    Attributes
    ----------
    mono_s : float
        ``time.monotonic()`` at the reading [s].
    cpu_total_s, cpu_idle_s : float
        CPU time since boot, all CPUs, total and idle [s].
    disk : mapping of device -> (operations, bytes)
        Completed reads + writes and bytes read + written, per included disk.
    net : mapping of interface -> bytes
        Bytes received + sent, per included interface.
    mem_total, mem_available : float
        [bytes].
    """

    mono_s: float
    cpu_total_s: float
    cpu_idle_s: float
    disk: Mapping[str, tuple[float, float]]
    net: Mapping[str, float]
    mem_total: float
    mem_available: float


def rates(prev: Reading, cur: Reading) -> dict[str, float]:
    """Metric values for the interval from *prev* to *cur* (definitions: module doc).

    Returns
    -------
    dict of str -> float
        ``cpu_util`` [fraction], ``mem_used_gib``, ``mem_capacity_gib`` [GiB],
        ``disk_iops`` [IOPS], ``disk_mb_s`` [MB/s], ``net_mbps`` [Mbit/s]. A
        rate is left out when it cannot be told (no time elapsed, no CPU time
        counted, no disk or interface in both readings).
    """
    out: dict[str, float] = {}
    dt = cur.mono_s - prev.mono_s
    d_total = cur.cpu_total_s - prev.cpu_total_s
    if d_total > 0:
        busy = 1.0 - (cur.cpu_idle_s - prev.cpu_idle_s) / d_total
        out["cpu_util"] = min(1.0, max(0.0, busy))
    if cur.mem_total > 0:
        out["mem_used_gib"] = (cur.mem_total - cur.mem_available) / _GIB
        out["mem_capacity_gib"] = cur.mem_total / _GIB
    if dt > 0:
        common = [d for d in cur.disk if d in prev.disk]
        if common:
            ops = sum(max(0.0, cur.disk[d][0] - prev.disk[d][0]) for d in common)
            nbytes = sum(max(0.0, cur.disk[d][1] - prev.disk[d][1]) for d in common)
            out["disk_iops"] = ops / dt
            out["disk_mb_s"] = nbytes / 1e6 / dt
        nics = [n for n in cur.net if n in prev.net]
        if nics:
            nbytes = sum(max(0.0, cur.net[n] - prev.net[n]) for n in nics)
            out["net_mbps"] = nbytes * 8 / 1e6 / dt
    return out


class Sampler(Protocol):
    def read(self) -> Reading: ...


class PsutilSampler:
    """Read the local machine's counters with psutil.

    Parameters
    ----------
    disk_exclude, net_exclude : str
        Regular expressions of device / interface names left out.
    """

    def __init__(
        self,
        disk_exclude: str = DEFAULT_DISK_EXCLUDE,
        net_exclude: str = COLLECT_NET_EXCLUDE,
    ) -> None:
        try:
            import psutil
        except ImportError:  # pragma: no cover - the test environment has the extra
            raise ConfigError(
                "vsizer collect needs psutil: pip install 'vsizer[series]'"
            ) from None
        self._psutil = psutil
        self.disk_re = _compile("disk_exclude", disk_exclude)
        self.net_re = _compile("net_exclude", net_exclude)

    def read(self) -> Reading:
        ps = self._psutil
        t = ps.cpu_times()
        total = sum(t)
        # Linux counts guest time inside user and nice as well (psutil docs)
        total -= getattr(t, "guest", 0.0) + getattr(t, "guest_nice", 0.0)
        disks = ps.disk_io_counters(perdisk=True) or {}
        nics = ps.net_io_counters(pernic=True) or {}
        mem = ps.virtual_memory()
        return Reading(
            mono_s=time.monotonic(),
            cpu_total_s=float(total),
            cpu_idle_s=float(t.idle),
            disk={
                name: (
                    float(c.read_count + c.write_count),
                    float(c.read_bytes + c.write_bytes),
                )
                for name, c in disks.items()
                if not self.disk_re.match(name)
            },
            net={
                name: float(c.bytes_recv + c.bytes_sent)
                for name, c in nics.items()
                if not self.net_re.match(name)
            },
            mem_total=float(mem.total),
            mem_available=float(mem.available),
        )


def _compile(name: str, pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise ConfigError(
            f"The '{name}' parameter of collect must be a regular expression. "
            f"Got {pattern!r} instead ({exc})."
        ) from None


@dataclass(frozen=True)
class Sample:
    """One sample written: UTC time, values, how many written so far, journal."""

    time: datetime
    values: dict[str, float]
    index: int
    journal: Path


@dataclass
class CollectReport:
    """What a :func:`collect` run did."""

    server: str
    store: Path
    samples: int = 0
    resumed: list[PartInfo] = field(default_factory=list)
    sealed: list[PartInfo] = field(default_factory=list)
    stopped_by: str = ""


class _Wake(Exception):
    """Raised by the signal handler to cut a sleep short."""


class _Stop:
    """SIGTERM/SIGINT set a flag; a sleep in progress is cut short."""

    def __init__(self) -> None:
        self.requested = False
        self.signal: int | None = None
        self._sleeping = False
        self._saved: dict[int, Any] = {}

    def _handler(self, signum: int, frame: FrameType | None) -> None:
        self.requested = True
        self.signal = signum
        if self._sleeping:
            self._sleeping = False
            raise _Wake

    def install(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return  # signal handlers can only be set in the main thread
        for sig in (signal.SIGTERM, signal.SIGINT):
            self._saved[sig] = signal.signal(sig, self._handler)

    def restore(self) -> None:
        for sig, old in self._saved.items():
            signal.signal(sig, old)
        self._saved.clear()

    def sleep(self, seconds: float) -> None:
        try:
            self._sleeping = True
            if not self.requested and seconds > 0:
                time.sleep(seconds)
            self._sleeping = False
        except _Wake:
            self._sleeping = False


def _journal_name(server: str) -> str:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    return f"{safe_name(server)}-{stamp}-{os.getpid()}.jsonl"


def collect(
    store: str | os.PathLike[str] | SeriesStore,
    interval_s: float,
    duration_s: float | None = None,
    count: int | None = None,
    server: str | None = None,
    on_sample: Callable[[Sample], None] | None = None,
    *,
    on_event: Callable[[str, Any], None] | None = None,
    segment_samples: int = 720,
    sampler: Sampler | None = None,
) -> CollectReport:
    """Sample this machine every *interval_s* seconds into a series store.

    Parameters
    ----------
    store : path or SeriesStore
        Store directory; created if absent. Journals left by a crash or a
        ``kill -9`` are sealed first (the run resumes the same store).
    interval_s : float
        Sampling interval [s], > 0.
    duration_s : float, optional
        Stop after this long [s] (the last sample is at or before it).
    count : int, optional
        Stop after this many samples. Without count and duration: until
        SIGTERM or SIGINT.
    server : str, optional
        Server name of the samples; default the host name.
    on_sample : callable, optional
        Called with each :class:`Sample` after it is on disk (fsynced).
    on_event : callable, optional
        ``on_event(name, detail)``: ``'resumed'`` (list of PartInfo sealed from
        journals left behind), ``'sealed'`` (PartInfo of a sealed segment, or
        None when it was empty).
    segment_samples : int
        Samples per journal before it is sealed into a part (default 720:
        6 h at 30 s).
    sampler : object with ``read() -> Reading``, optional
        Default :class:`PsutilSampler`.

    Returns
    -------
    CollectReport

    Raises
    ------
    ConfigError
        A parameter out of range; psutil missing.
    SeriesError
        The store cannot be opened, or another collector writes the same
        server into it.
    """
    _check_limits(interval_s, duration_s, count, segment_samples)
    st = _open_store(store)
    name = server or socket.gethostname()
    if not name.strip():
        raise ConfigError(
            "The 'server' parameter of collect must be a non-empty name. Got '' instead."
        )
    smp = sampler or PsutilSampler()
    report = CollectReport(server=name, store=st.path)
    _resume(st, name, report, on_event)
    st.journal_dir.mkdir(parents=True, exist_ok=True)
    run = _Run(
        st, name, interval_s, duration_s, count, segment_samples, on_sample, on_event,
        report,
    )  # fmt: skip
    _run_until_stopped(run, smp)
    return report


# ------------------------------------------------------------------ steps


def _check_limits(
    interval_s: float, duration_s: float | None, count: int | None, segment_samples: int
) -> None:
    where = "collect"
    check_param("interval_s", interval_s, Interval(float, 0, None, "neither"), where)
    if duration_s is not None:
        check_param(
            "duration_s", duration_s, Interval(float, 0, None, "neither"), where
        )
    if count is not None:
        check_param("count", count, Interval(int, 1, None), where)
    check_param("segment_samples", segment_samples, Interval(int, 1, None), where)


def _open_store(store: str | os.PathLike[str] | SeriesStore) -> SeriesStore:
    try:
        return store if isinstance(store, SeriesStore) else SeriesStore.create(store)
    except OSError as exc:
        raise SeriesError(
            f"{store}: cannot create the series store ({exc.strerror or exc})"
        ) from exc


def _resume(
    st: SeriesStore,
    name: str,
    report: CollectReport,
    on_event: Callable[[str, Any], None] | None,
) -> None:
    """Seal the journals an earlier run left; refuse a live collector of *name*."""
    try:
        report.resumed = st.seal_stale_journals()
    except OSError as exc:
        raise SeriesError(
            f"{st.path}: cannot seal the journals an earlier run left "
            f"({exc.strerror or exc}); they are kept: free space and rerun"
        ) from exc
    _check_no_live_collector(st, name)
    if on_event:
        on_event("resumed", report.resumed)


@dataclass
class _Run:
    """One collector run: its settings, its report and the journal being written."""

    st: SeriesStore
    server: str
    interval_s: float
    duration_s: float | None
    count: int | None
    segment_samples: int
    on_sample: Callable[[Sample], None] | None
    on_event: Callable[[str, Any], None] | None
    report: CollectReport
    writer: JournalWriter | None = None

    def new_writer(self) -> JournalWriter:
        return JournalWriter(
            self.st.journal_dir / _journal_name(self.server),
            self.server,
            self.interval_s,
        )

    def past_duration(self, tick: int) -> bool:
        """True when tick *tick* falls after ``duration_s``."""
        return (
            self.duration_s is not None
            and tick * self.interval_s > self.duration_s + 1e-9
        )


def _run_until_stopped(run: _Run, smp: Sampler) -> None:
    """Sample until the count, the duration or a signal; seal the last journal."""
    stop = _Stop()
    stop.install()
    failed = True
    try:
        run.writer = run.new_writer()
        _sample_loop(run, smp, stop)
        failed = False
    except SeriesError as exc:
        # a write failed (disk full): the journal holds every reported sample
        raise SeriesError(
            f"{exc}; stopped after {run.report.samples} stored sample(s): free space "
            "and rerun to resume"
        ) from exc
    finally:
        try:
            if run.writer is not None:
                run.writer.close()
                _seal_or_keep(
                    run.st, run.writer.path, run.report, run.on_event, failing=failed
                )
        finally:
            stop.restore()


def _sample_loop(run: _Run, smp: Sampler, stop: _Stop) -> None:
    """Take a sample at every tick of the monotonic clock until told to stop."""
    prev = smp.read()
    t0 = prev.mono_s
    k = 0
    while (tick := _next_tick(run, t0, k)) is not None:
        k = tick
        stop.sleep(t0 + k * run.interval_s - time.monotonic())
        if stop.requested:
            break
        cur = smp.read()
        _write_sample(run, prev, cur)
        prev = cur
    if stop.requested:
        sig = stop.signal
        run.report.stopped_by = signal.Signals(sig).name if sig else "signal"


def _next_tick(run: _Run, t0: float, k: int) -> int | None:
    """The tick after *k* (ticks missed while behind are skipped); None: stop."""
    if run.count is not None and run.report.samples >= run.count:
        run.report.stopped_by = "count"
        return None
    k += 1
    if run.past_duration(k):
        run.report.stopped_by = "duration"
        return None
    now = time.monotonic()
    # fell behind (suspend, slow disk): skip the ticks missed
    if t0 + k * run.interval_s < now:
        k = int((now - t0) // run.interval_s) + 1
        if run.past_duration(k):
            run.report.stopped_by = "duration"
            return None
    return k


def _write_sample(run: _Run, prev: Reading, cur: Reading) -> None:
    """Append one sample (fsynced), report it, seal the journal when it is full."""
    writer = run.writer
    assert writer is not None  # set before the first sample
    stamp = datetime.now(UTC)
    values = rates(prev, cur)
    writer.append(stamp, values)
    run.report.samples += 1
    if run.on_sample:
        run.on_sample(Sample(stamp, values, run.report.samples, writer.path))
    if writer.samples >= run.segment_samples:
        writer.close()
        _seal_or_keep(run.st, writer.path, run.report, run.on_event, failing=False)
        run.writer = run.new_writer()


def _seal_or_keep(
    st: SeriesStore,
    path: Path,
    report: CollectReport,
    on_event: Callable[[str, Any], None] | None,
    *,
    failing: bool,
) -> None:
    """Seal the journal; if that fails (full disk), keep it for the next run.

    A journal that cannot be sealed loses nothing: the next ``collect`` (or a
    read of the store) takes it as it is. When the run is ``failing`` already,
    that first error is the one reported and a sealing error is dropped.
    """
    try:
        _seal(st, path, report, on_event)
    except OSError as exc:
        if failing:
            return
        raise SeriesError(
            f"{path}: cannot seal the journal into a part ({exc.strerror or exc}); "
            f"it is kept with its {report.samples} sample(s): free space and rerun"
        ) from exc


def _seal(
    st: SeriesStore,
    path: Path,
    report: CollectReport,
    on_event: Callable[[str, Any], None] | None,
) -> None:
    info = st.seal_journal(path)
    if info is not None:
        report.sealed.append(info)
    if on_event:
        on_event("sealed", info)


def _check_no_live_collector(st: SeriesStore, server: str) -> None:
    pattern = re.compile(
        rf"^{re.escape(safe_name(server))}-\d{{8}}T\d{{12}}Z-\d+\.jsonl$"
    )
    for path in st.journal_paths():
        if pattern.match(path.name) and is_locked(path):
            raise SeriesError(
                f"{st.path}: another vsizer collect is writing server {server!r} "
                f"into this store (journal/{path.name}); stop it or give --server"
            )
