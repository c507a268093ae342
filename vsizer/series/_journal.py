"""Collector journals: one JSON line per sample, flushed and fsynced per sample.

A journal is the open, append-only tail of a series store (``STORE/journal/``)
that ``vsizer collect`` writes while it runs. Line 1 is a header, every other
line one sample::

    {"vsizer_journal": 1, "server": "web01", "interval_s": 30.0, "started": "..."}
    {"time": "2024-05-01T12:00:30.000123Z", "cpu_util": 0.1234, "mem_used_gib": 3.2}

A line is written with one ``write`` call, then ``flush`` and ``os.fsync``
before the sample is reported, so a ``kill -9`` or a power cut loses at most
the sample being written. Such a torn last line (no final newline) is dropped
on reading and counted in the quality report; nothing else is ever guessed.

Every write is checked: a short ``write`` (a full disk accepts part of the
line) or a failed ``write``/``fsync`` truncates the file back to the end of
the last durable line and raises :class:`~vsizer.errors.SeriesError`, so no
torn sample is left behind and the caller never reports a sample that is not
on disk.

The writer holds an exclusive ``flock`` on its file (POSIX; on Windows there
is no lock). The lock is released by the kernel when the process dies, so a
journal nobody locks is stale and may be sealed into a Parquet part.
"""

from __future__ import annotations

import contextlib
import errno
import json
import math
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

import numpy as np
import pandas as pd

from vsizer._atomic import fsync_dir
from vsizer.errors import SeriesError
from vsizer.series.model import METRICS, SeriesQuality, SeriesSet, empty_series

try:  # POSIX advisory locks; absent on Windows
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

JOURNAL_VERSION = 1
JOURNAL_SUFFIX = ".jsonl"


def iso_utc(ts: datetime) -> str:
    """``2024-05-01T12:00:30.000123Z`` (UTC, microseconds)."""
    return ts.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _try_lock(fd: int) -> bool:
    """Take an exclusive non-blocking lock on *fd*; False if another holder has it."""
    if fcntl is None:  # pragma: no cover - Windows: no advisory locks
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def is_locked(path: Path) -> bool:
    """True if a live writer holds *path* (its ``flock`` is taken)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return False
    try:
        return not _try_lock(fd)
    finally:
        os.close(fd)  # closing releases our lock, if we got it


class JournalWriter:
    """Append samples to a new journal file, durably, one line per sample.

    Parameters
    ----------
    path : Path
        Journal file to create (must not exist).
    server : str
        Server every sample belongs to.
    interval_s : float
        Sampling interval [s], recorded in the header.
    """

    def __init__(self, path: Path, server: str, interval_s: float) -> None:
        self.path = path
        self.server = server
        self.samples = 0
        self._good = 0  # bytes on disk up to the end of the last durable line
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o644)
        except OSError as exc:
            raise SeriesError(
                f"{path}: cannot create the journal ({exc.strerror or exc})."
            ) from exc
        if not _try_lock(fd):  # pragma: no cover - the file was just created by us
            os.close(fd)
            raise SeriesError(f"{path}: journal is locked by another process")
        self._file: IO[bytes] | None = os.fdopen(fd, "ab", buffering=0)
        header = {
            "vsizer_journal": JOURNAL_VERSION,
            "server": server,
            "interval_s": float(interval_s),
            "started": iso_utc(datetime.now(UTC)),
            "pid": os.getpid(),
        }
        try:
            self._write_line(header)
            fsync_dir(path.parent)
        except SeriesError:
            self.close()
            path.unlink(missing_ok=True)
            raise

    def _write_line(self, obj: dict[str, Any]) -> None:
        """Write one line with one ``write`` call and fsync it, or undo it and raise."""
        if self._file is None:
            raise ValueError(f"journal {self.path} is closed")
        data = (json.dumps(obj, separators=(",", ":"), allow_nan=False) + "\n").encode()
        fd = self._file.fileno()
        try:
            written = os.write(fd, data)
            if written != len(data):
                raise OSError(
                    errno.ENOSPC,
                    f"short write: {written} of {len(data)} bytes (disk full?)",
                )
            os.fsync(fd)
        except OSError as exc:
            self._rollback()
            what = "the header" if self._good == 0 else f"sample {self.samples + 1}"
            raise SeriesError(
                f"{self.path}: cannot write {what} ({exc.strerror or exc}); the "
                f"journal keeps its {self.samples} complete sample(s)"
            ) from exc
        self._good += len(data)

    def _rollback(self) -> None:
        """Cut the file back to the last durable line (drops a torn partial line)."""
        assert self._file is not None
        fd = self._file.fileno()
        with contextlib.suppress(OSError):  # best effort: the disk already failed us
            os.ftruncate(fd, self._good)
            os.fsync(fd)

    def append(self, time: datetime, values: dict[str, float]) -> None:
        """Write one sample (UTC time, metric -> value) and fsync it."""
        row: dict[str, Any] = {"time": iso_utc(time)}
        for metric, value in values.items():
            if metric not in METRICS:
                raise ValueError(f"unknown metric {metric!r}")
            if value is not None and math.isfinite(value):
                row[metric] = float(value)
        self._write_line(row)
        self.samples += 1

    def close(self) -> None:
        """Close the file (releases the lock)."""
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> JournalWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass
class JournalContents:
    """A journal as read: its header and the samples as a tidy series set."""

    header: dict[str, Any]
    series: SeriesSet
    samples: int
    torn: int
    bad_lines: int


def read_journal(path: Path, label: str | None = None) -> JournalContents:
    """Read a journal; drop (and count) a torn last line and unreadable lines.

    Parameters
    ----------
    path : Path
    label : str, optional
        Name used in messages and as the series' ``source`` (default: the path).

    Raises
    ------
    FileNotFoundError
        The journal was sealed and removed meanwhile (callers skip it).
    SeriesError
        The first line is not a journal header.
    """
    label = label or str(path)
    lines = path.read_bytes().split(b"\n")
    tail = lines.pop()  # b"" when the file ends with a newline
    torn = 1 if tail.strip() else 0
    header = _header(lines, label)
    server = str(header.get("server", ""))
    rows = _sample_rows(lines[1:])
    quality = SeriesQuality()
    if torn:
        quality.add(
            server,
            "dropped",
            1,
            f"{label}: torn last line dropped (the sample being written when the "
            "collector stopped, or still being written)",
        )
    if rows.bad:
        quality.add(
            server,
            "dropped",
            rows.bad,
            f"{label}: {rows.bad} unreadable line(s) dropped, first at line "
            f"{rows.first_bad}",
        )
    series = SeriesSet(
        data=rows.frame(server),
        quality=quality,
        source=label,
        source_format="collect",
        metadata={
            "journal": path.name,
            "server": server,
            "interval_s": header.get("interval_s"),
            "started": header.get("started"),
        },
    )
    return JournalContents(header, series, rows.samples, torn, rows.bad)


def _header(lines: list[bytes], label: str) -> dict[str, Any]:
    """The header (line 1); ``{}`` for a journal without lines.

    Raises
    ------
    SeriesError
        Line 1 is not a journal header.
    """
    if not lines:
        return {}
    try:
        header = json.loads(lines[0])
    except ValueError:
        header = {}
    if not isinstance(header, dict) or header.get("vsizer_journal") != 1:
        raise SeriesError(
            f"{label} line 1: expected a vsizer journal header "
            f'{{"vsizer_journal": 1, "server": ...}}, got {lines[0][:60]!r}'
        )
    return header


@dataclass(frozen=True)
class _SampleRows:
    """The samples of a journal, one (time, metric, value) per value read.

    ``samples`` counts the lines read, ``bad`` the unreadable ones (the first
    at line ``first_bad``).
    """

    times: list[int]
    metrics: list[str]
    values: list[float]
    samples: int
    bad: int
    first_bad: int

    def frame(self, server: str) -> pd.DataFrame:
        """Tidy rows, sorted by metric and time (empty without a value)."""
        if not self.times:
            return empty_series()
        frame = pd.DataFrame(
            {
                "server": pd.Series([server] * len(self.times), dtype="string"),
                "timestamp": pd.to_datetime(
                    np.asarray(self.times, dtype="int64"), utc=True
                ),
                "metric": pd.Series(self.metrics, dtype="string"),
                "value": np.asarray(self.values, dtype="float64"),
            }
        )
        frame["unit"] = frame["metric"].map(METRICS).astype("string")
        return frame.sort_values(
            ["server", "metric", "timestamp"], kind="mergesort"
        ).reset_index(drop=True)


def _sample_rows(lines: list[bytes]) -> _SampleRows:
    """Parse the sample lines (line 2 on); a line that is no sample is counted."""
    times: list[int] = []
    metrics: list[str] = []
    values: list[float] = []
    samples = bad = first_bad = 0
    for i, raw in enumerate(lines, start=2):
        try:
            row = json.loads(raw)
            ns = pd.Timestamp(row["time"]).value
        except (ValueError, KeyError, TypeError):
            bad += 1
            first_bad = first_bad or i
            continue
        samples += 1
        for metric, value in row.items():
            if metric in METRICS and isinstance(value, (int, float)):
                times.append(ns)
                metrics.append(metric)
                values.append(float(value))
    return _SampleRows(times, metrics, values, samples, bad, first_bad)
