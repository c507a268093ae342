"""Readers of public utilization traces: PlanetLab, Bitbrains GWA-T-12, Alibaba 2018.

Each returns a :class:`~vsizer.series.model.SeriesSet` whose ``data`` is tidy
(UTC, canonical units, sorted by server, metric, timestamp) and whose
``quality`` counts every row that was clipped, dropped or duplicated and every
step longer than 1.5 x the server's median step. Bad cells raise one
:class:`~vsizer.errors.SeriesError` listing all of them:
``{file} line {n}, column '{c}': expected {what}, got '{value}'.``

References
----------
.. [1] A. Beloglazov and R. Buyya, "Optimal online deterministic algorithms and
   adaptive heuristics for energy and performance efficient dynamic
   consolidation of virtual machines in cloud data centers," Concurrency
   Computat.: Pract. Exper., vol. 24, no. 13, pp. 1397-1420, 2012,
   :doi:`10.1002/cpe.1867` (PlanetLab workload as shipped with CloudSim).
.. [2] S. Shen, V. van Beek, and A. Iosup, "Statistical characterization of
   business-critical workloads hosted in cloud datacenters," in Proc. CCGrid
   2015, pp. 465-474, :doi:`10.1109/CCGrid.2015.60` (GWA-T-12 Bitbrains).
.. [3] Alibaba Group, "cluster-trace-v2018 schema," github.com/alibaba/clusterdata,
   file ``cluster-trace-v2018/schema.txt`` (table "machine usage").
"""

from __future__ import annotations

import gzip
import os
import re
import zlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from vsizer._textio import open_binary, plain_name, read_bytes
from vsizer.errors import SeriesError
from vsizer.series._tidy import (
    FloatArray,
    Int64Array,
    Problems,
    check_gaps,
    file_label,
    median_step_s,
    tidy_frame,
    tidy_from_codes,
    unix_unit,
)
from vsizer.series.model import SeriesQuality, SeriesSet, empty_series

__all__ = [
    "ALIBABA_MACHINE_USAGE_COLUMNS",
    "BITBRAINS_VARIABLE_MAP",
    "PLANETLAB_STEP_S",
    "read_alibaba_machine_usage",
    "read_bitbrains",
    "read_planetlab",
]

_NS = 1_000_000_000
_GIB_PER_KIB = 1.0 / 2**20

# ------------------------------------------------------------------ PlanetLab

#: PlanetLab samples are 5 minutes apart (CloudSim ``PlanetLabHelper``).
PLANETLAB_STEP_S = 300
_DAY_FOLDER_RE = re.compile(r"^(\d{4})(\d{2})(\d{2})$")
_PLANETLAB_EXPECTED = "a whole-number CPU percentage 0-100"


def read_planetlab(
    path: str | os.PathLike[str],
    *,
    start: str | pd.Timestamp | None = None,
) -> SeriesSet:
    """Read CloudSim's PlanetLab CPU traces: one file per VM, one day each.

    Parameters
    ----------
    path : str or path-like
        A trace file, or a folder of them (all regular files not starting with
        ``.`` are read, sorted by name).
    start : str or Timestamp, optional
        Time of the first sample. Default: midnight UTC of the day named by the
        folder (``20110303`` -> 2011-03-03T00:00:00Z) -- the folder of ``path``
        itself for a folder, the parent folder for a file. A naive time is UTC.

    Returns
    -------
    SeriesSet
        ``source_format='planetlab'``; metric ``cpu_util`` [fraction] = line / 100
        at 5-minute steps; ``server`` = file name. ``metadata``: ``start``,
        ``start_from`` ('argument' or 'folder name'), ``step_s`` (300),
        ``files``, ``values_per_file`` (the distinct counts).

    Raises
    ------
    SeriesError
        A line that is not a whole number 0-100 (over 100 is clipped and counted
        instead), an empty file, no day for ``start``, or no file in the folder.

    Notes
    -----
    The files carry no timestamps: line *i* (from 0) is at ``start + i x 5 min``.
    The day of a folder is the day the CoMon data were taken; the time zone of
    its midnight is not documented, UTC is assumed. CloudSim repeats the last
    of the 288 values to make 289 points; this reader does not. A file of more
    or fewer than 288 lines is read as it is and noted.
    """
    root = Path(path)
    problems = Problems()
    if not root.exists():
        problems.whole(str(path), "no such file or folder.")
        problems.raise_if_any()
    if root.is_dir():
        files = sorted(
            (p for p in root.iterdir() if p.is_file() and not p.name.startswith(".")),
            key=lambda p: p.name,  # the contract's server order
        )
        day_folder = root
        if not files:
            problems.whole(
                file_label(root),
                "expected PlanetLab trace files (one per VM) in the folder, "
                "found none.",
            )
    else:
        files = [root]
        day_folder = root.parent
    t0, start_from = _planetlab_start(start, day_folder, problems)
    problems.raise_if_any()

    values: list[Int64Array] = []
    for f in files:
        values.append(_read_planetlab_file(f, problems))
    problems.raise_if_any()

    quality = SeriesQuality()
    lengths = np.array([len(v) for v in values], dtype=np.int64)
    counts = sorted({int(n) for n in lengths})
    if counts != [288]:
        off = int((lengths != 288).sum())
        quality.note(
            f"{off} of {len(files)} files do not hold 288 values (one day at "
            "5-minute steps); read as they are."
        )
    pct = np.concatenate(values) if values else np.array([], dtype=np.int64)
    over = pct > 100
    if over.any():
        for f, v in zip(files, values, strict=True):
            n_over = int((v > 100).sum())
            if n_over:
                quality.add(plain_name(f), "clipped", n_over, "CPU % above 100 set to 100 %")
    util = np.minimum(pct, 100).astype(np.float64) / 100.0
    offsets = np.concatenate([np.arange(n, dtype=np.int64) for n in lengths])
    ts = t0 + offsets * (PLANETLAB_STEP_S * _NS)
    server = np.repeat(np.array([plain_name(f) for f in files], dtype=object), lengths)
    data = tidy_frame(
        server, ts, np.full(len(ts), "cpu_util", dtype=object), util, presorted=True
    )
    return SeriesSet(
        data=data,
        quality=quality,
        source=str(path),
        source_format="planetlab",
        metadata={
            "start": pd.Timestamp(t0, tz="UTC").isoformat(),
            "start_from": start_from,
            "step_s": PLANETLAB_STEP_S,
            "files": len(files),
            "values_per_file": counts,
        },
    )


def _planetlab_start(
    start: str | pd.Timestamp | None, folder: Path, problems: Problems
) -> tuple[int, str]:
    if start is not None:
        ns = _utc_ns(start)
        if ns is None:
            problems.whole(
                "start",
                f"expected an ISO 8601 time such as 2011-03-03T00:00:00Z, got '{start}'.",
            )
            return 0, "argument"
        return ns, "argument"
    m = _DAY_FOLDER_RE.match(folder.name)
    if m:
        ns = _utc_ns(f"{m.group(1)}-{m.group(2)}-{m.group(3)}")
        if ns is not None:
            return ns, "folder name"
    problems.whole(
        file_label(folder),
        "expected a folder named by its day (yyyymmdd, e.g. 20110303) to date "
        "the samples; pass start='2011-03-03T00:00:00Z' instead.",
    )
    return 0, "argument"


def _utc_ns(value: str | pd.Timestamp) -> int | None:
    try:
        ts = pd.Timestamp(value)
    except (ValueError, TypeError):
        return None
    if ts is pd.NaT:
        return None
    ts = ts.tz_localize("UTC") if ts.tzinfo is None else ts.tz_convert("UTC")
    return int(ts.as_unit("ns").value)


def _read_planetlab_file(path: Path, problems: Problems) -> Int64Array:
    file = path.name
    try:
        data = read_bytes(path)
    except SeriesError as exc:
        problems.whole(file, str(exc).split(": ", 1)[-1])
        return np.array([], dtype=np.int64)
    lines = data.split(b"\n")
    if lines and lines[-1] in (b"", b"\r"):
        lines.pop()
    if not lines:
        problems.whole(
            file, "expected 288 lines of whole-number CPU %, got an empty file."
        )
        return np.array([], dtype=np.int64)
    try:  # fast path: numpy parses every line with int()
        arr = np.array(lines).astype(np.int64)
    except (ValueError, OverflowError):
        arr = None
    if arr is not None and (arr >= 0).all():
        return arr
    out = np.zeros(len(lines), dtype=np.int64)
    for i, raw in enumerate(lines):
        text = raw.decode("utf-8", errors="replace").strip()
        try:
            out[i] = int(text)
        except ValueError:
            problems.cell(file, i + 1, _PLANETLAB_EXPECTED, text)
            continue
        if out[i] < 0:
            problems.cell(file, i + 1, _PLANETLAB_EXPECTED, text)
    return out


# ------------------------------------------------------------------ Bitbrains

#: Bitbrains GWA-T-12 header (whitespace stripped) -> what it becomes.
BITBRAINS_VARIABLE_MAP: dict[str, str] = {
    "Timestamp [ms]": "timestamp",  # holds Unix *seconds* despite the name
    "CPU cores": "cpu_cores",  # 0 = no capacity: the row is dropped
    "CPU capacity provisioned [MHZ]": "cpu_capacity_mhz",
    "CPU usage [MHZ]": "cpu_mhz",
    "CPU usage [%]": "cpu_util",  # % -> fraction, above 100 clipped
    "Memory capacity provisioned [KB]": "mem_capacity_gib",  # KiB -> GiB
    "Memory usage [KB]": "mem_used_gib",  # KiB -> GiB
    "Disk read throughput [KB/s]": "disk_mb_s",  # read + write, kB/s / 1000
    "Disk write throughput [KB/s]": "disk_mb_s",
    "Network received throughput [KB/s]": "net_mbps",  # (rx + tx) kB/s x 8 / 1000
    "Network transmitted throughput [KB/s]": "net_mbps",
}
_BB_COLS = list(BITBRAINS_VARIABLE_MAP)
# Metric order of one server's rows: alphabetical, as the contract sorts.
_BB_METRICS = (
    "cpu_capacity_mhz",
    "cpu_mhz",
    "cpu_util",
    "disk_mb_s",
    "mem_capacity_gib",
    "mem_used_gib",
    "net_mbps",
)
_BB_SUFFIXES = (".csv.gz", ".csv.bz2", ".csv.xz", ".csv.zip", ".csv")


def read_bitbrains(path: str | os.PathLike[str]) -> SeriesSet:
    """Read Bitbrains GWA-T-12 per-VM files (the "Rnd" and "fastStorage" traces).

    Parameters
    ----------
    path : str or path-like
        A ``<n>.csv`` or ``<n>.csv.gz`` file, or a folder of them (other files
        are ignored and listed in ``metadata['ignored']``).

    Returns
    -------
    SeriesSet
        ``source_format='bitbrains'``; ``server`` = file name without
        ``.csv``/``.csv.gz``. Metrics per row of the file:

        ===================  ====================================================
        ``cpu_util``         ``CPU usage [%]`` / 100, clipped to 1.0 [fraction]
        ``cpu_mhz``          ``CPU usage [MHZ]`` [MHz]
        ``cpu_capacity_mhz`` ``CPU capacity provisioned [MHZ]`` [MHz]
        ``mem_used_gib``     ``Memory usage [KB]`` / 2^20 [GiB]
        ``mem_capacity_gib`` ``Memory capacity provisioned [KB]`` / 2^20 [GiB]
        ``disk_mb_s``        (read + write ``[KB/s]``) / 1000 [MB/s]
        ``net_mbps``         (received + transmitted ``[KB/s]``) x 8 / 1000 [Mbit/s]
        ===================  ====================================================

        ``metadata``: ``files``, ``rows`` (read), ``rows_kept``, ``step_s``
        (median step), ``timestamp_unit``, ``ignored``.

    Raises
    ------
    SeriesError
        A missing column, a cell that is not a non-negative number, an
        unreadable or truncated file, two files for one server.

    Notes
    -----
    Quirks of the trace, each handled and counted in ``quality``:

    * ``Timestamp [ms]`` holds Unix **seconds**. The unit is told by magnitude
      (a copy corrected to milliseconds reads the same) and noted.
    * ``CPU usage [%]`` exceeds 100 (up to 114 in 2013-8): clipped to 1.0,
      issue ``clipped``.
    * Rows with ``CPU cores`` = 0 have zero capacity and usage (VM off or
      unknown): dropped, issue ``dropped``.
    * Repeated timestamps: the first row is kept, issue ``duplicate``.

    Units: memory "KB" are KiB -- the provisioned sizes are whole GiB in KiB
    (8388608 KB = 8 GiB). The trace does not say whether the throughputs'
    "KB" are 1000 or 1024 bytes; they are read as kB = 1000 bytes, so MB/s =
    KB/s / 1000 and Mbit/s = KB/s x 8 / 1000. Were they KiB, the values would
    be 2.4 % low.

    The file is read by pandas' C parser with ``sep=';'``; the tab after each
    ``;`` is leading white space the number parser skips (much faster than
    ``sep=';\\t'``, which needs the python engine).
    """
    root = Path(path)
    problems = Problems()
    ignored: list[str] = []
    if not root.exists():
        problems.whole(str(path), "no such file or folder.")
        problems.raise_if_any()
    if root.is_dir():
        files = []
        for p in sorted(root.iterdir(), key=lambda p: p.name):
            if p.is_file() and p.name.endswith(_BB_SUFFIXES):
                files.append(p)
            elif not p.name.startswith("."):
                ignored.append(p.name)
        if not files:
            problems.whole(
                file_label(root),
                "expected Bitbrains per-VM files (<n>.csv or <n>.csv.gz), found none.",
            )
    else:
        files = [root]
    by_server: dict[str, Path] = {}
    for f in files:
        name = _bitbrains_server(f)
        if name in by_server:
            problems.whole(
                f.name, f"server '{name}' is also read from {by_server[name].name}."
            )
        by_server[name] = f
    problems.raise_if_any()

    quality = SeriesQuality()
    servers = sorted(by_server)
    codes: list[Int64Array] = []
    stamps: list[Int64Array] = []
    blocks: list[FloatArray] = []
    steps: list[float] = []
    rows_read = 0
    units_seen: set[str] = set()
    for code, name in enumerate(servers):
        got = _read_bitbrains_file(by_server[name], problems)
        if got is None:
            continue
        frame, unit_name, ns_per = got
        units_seen.add(unit_name)
        rows_read += len(frame)
        ts, block = _bitbrains_rows(frame, ns_per, name, quality)
        med = check_gaps(quality, name, ts)
        if med is not None:
            steps.append(med)
        codes.append(np.full(len(ts), code, dtype=np.int64))
        stamps.append(ts)
        blocks.append(block)
    problems.raise_if_any()
    if len(units_seen - {"seconds"}) == 0:
        quality.note("'Timestamp [ms]' holds Unix seconds (told by magnitude).")
    else:
        quality.note(
            "'Timestamp [ms]' read as Unix "
            + ", ".join(sorted(units_seen))
            + " (told by magnitude per file)."
        )

    data = _bitbrains_frame(servers, codes, stamps, blocks)
    return SeriesSet(
        data=data,
        quality=quality,
        source=str(path),
        source_format="bitbrains",
        metadata={
            "files": len(servers),
            "rows": rows_read,
            "rows_kept": int(sum(len(t) for t in stamps)),
            "step_s": median_step_s(steps),
            "timestamp_unit": sorted(units_seen),
            "ignored": sorted(ignored),
            "units_note": "memory KB = KiB; throughput KB = 1000 bytes",
        },
    )


def _bitbrains_server(path: Path) -> str:
    name = path.name
    for suffix in _BB_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return path.stem


def _read_bitbrains_file(
    path: Path, problems: Problems
) -> tuple[pd.DataFrame, str, int] | None:
    """One file as float64 columns named as in the header; None after a problem."""
    file = path.name
    try:
        with open_binary(path) as fh:  # any compression, told by content
            frame = pd.read_csv(fh, sep=";", engine="c", dtype=np.float64)
    except ValueError as exc:  # a cell that is no number, or a ragged row
        if isinstance(exc, pd.errors.EmptyDataError):
            problems.whole(file, "expected a Bitbrains header line, got an empty file.")
            return None
        if isinstance(exc, pd.errors.ParserError):
            problems.whole(file, f"expected 11 fields separated by ';', {exc}.")
            return None
        _bitbrains_bad_cells(path, problems)
        return None
    except (OSError, EOFError, zlib.error, gzip.BadGzipFile, UnicodeDecodeError) as exc:
        problems.whole(file, f"cannot read the file: {exc}.")
        return None
    except SeriesError as exc:  # unreadable, or a zip of several files
        problems.whole(file, str(exc).split(": ", 1)[-1])
        return None
    frame.columns = [str(c).strip() for c in frame.columns]
    missing = [c for c in _BB_COLS if c not in frame.columns]
    if missing:
        problems.whole(
            file,
            "expected the Bitbrains columns "
            + ", ".join(f"'{c}'" for c in missing)
            + f", got {', '.join(repr(c) for c in frame.columns)}.",
        )
        return None
    frame = frame[_BB_COLS]
    values = frame.to_numpy()
    bad = ~np.isfinite(values) | (values < 0)
    if bad.any():
        for r, c in zip(*np.nonzero(bad), strict=True):
            v = values[r, c]
            problems.cell(
                file,
                int(r) + 2,
                "a non-negative number",
                "" if np.isnan(v) else f"{v:g}",
                column=_BB_COLS[c],
            )
        return None
    t = frame["Timestamp [ms]"].to_numpy()
    unit_name, ns_per = unix_unit(float(t.max()) if len(t) else 0.0)
    return frame, unit_name, ns_per


def _bitbrains_bad_cells(path: Path, problems: Problems) -> None:
    """Re-read a file as text to name every cell that is not a number."""
    file = path.name
    try:
        with open_binary(path) as fh:
            text = pd.read_csv(
                fh, sep=";", engine="c", dtype=str, keep_default_na=False
            )
    except (ValueError, OSError, EOFError, zlib.error) as exc:
        problems.whole(file, f"cannot read the file: {exc}.")
        return
    text.columns = [str(c).strip() for c in text.columns]
    bad: list[tuple[int, int, str]] = []  # (row, column index, cell)
    for j, col in enumerate(text.columns):
        cells = text[col].str.strip()
        nums = pd.to_numeric(cells, errors="coerce")
        bad.extend(
            (int(pos), j, cells.iloc[pos])
            for pos in np.flatnonzero((nums.isna() | (nums < 0)).to_numpy())
        )
    for pos, j, cell in sorted(bad):
        problems.cell(
            file, pos + 2, "a non-negative number", cell, column=text.columns[j]
        )


def _bitbrains_rows(
    frame: pd.DataFrame, ns_per: int, server: str, quality: SeriesQuality
) -> tuple[Int64Array, FloatArray]:
    """Timestamps (sorted, unique) and the metric block, shape (7, n)."""
    cores = frame["CPU cores"].to_numpy()
    keep = cores > 0
    n_off = int((~keep).sum())
    if n_off:
        quality.add(
            server,
            "dropped",
            n_off,
            "rows with 'CPU cores' = 0 (zero capacity: VM off or unknown)",
        )
    kept = frame[keep]
    ts = np.round(kept["Timestamp [ms]"].to_numpy() * ns_per).astype(np.int64)
    order = np.argsort(ts, kind="stable")
    ts = ts[order]
    first = np.ones(len(ts), dtype=bool)
    first[1:] = ts[1:] != ts[:-1]
    n_dup = int((~first).sum())
    if n_dup:
        quality.add(
            server, "duplicate", n_dup, "rows repeating a timestamp; first row kept"
        )
    take = order[first]
    ts = ts[first]

    def col(name: str) -> FloatArray:
        return np.asarray(kept[name].to_numpy()[take], dtype=np.float64)

    pct = col("CPU usage [%]")
    n_over = int((pct > 100.0).sum())
    if n_over:
        quality.add(server, "clipped", n_over, "CPU usage [%] above 100 set to 100 %")
    block = np.vstack(
        [
            col("CPU capacity provisioned [MHZ]"),
            col("CPU usage [MHZ]"),
            np.minimum(pct, 100.0) / 100.0,
            (col("Disk read throughput [KB/s]") + col("Disk write throughput [KB/s]"))
            / 1000.0,
            col("Memory capacity provisioned [KB]") * _GIB_PER_KIB,
            col("Memory usage [KB]") * _GIB_PER_KIB,
            (
                col("Network received throughput [KB/s]")
                + col("Network transmitted throughput [KB/s]")
            )
            * 8.0
            / 1000.0,
        ]
    )
    return ts, block


def _bitbrains_frame(
    servers: list[str],
    codes: list[Int64Array],
    stamps: list[Int64Array],
    blocks: list[FloatArray],
) -> pd.DataFrame:
    """Tidy rows in contract order, built once from per-server blocks."""
    if not stamps or sum(len(t) for t in stamps) == 0:
        return empty_series()
    n_metrics = len(_BB_METRICS)
    server_code = np.concatenate([np.repeat(c, n_metrics) for c in codes])
    ts = np.concatenate([np.tile(t, n_metrics) for t in stamps])
    value = np.concatenate([b.ravel() for b in blocks])
    metric_code = np.concatenate(
        [np.repeat(np.arange(n_metrics), len(t)) for t in stamps]
    )
    return tidy_from_codes(server_code, servers, metric_code, _BB_METRICS, ts, value)


# -------------------------------------------------------------------- Alibaba

#: Columns of ``machine_usage.csv`` in cluster-trace-v2018 (no header line) [3].
ALIBABA_MACHINE_USAGE_COLUMNS: tuple[str, ...] = (
    "machine_id",  # uid of machine
    "time_stamp",  # seconds from the trace start
    "cpu_util_percent",  # [0, 100] -> cpu_util
    "mem_util_percent",  # [0, 100] -> mem_util
    "mem_gps",  # normalized memory bandwidth [0, 100]: not read
    "mkpi",  # cache misses per thousand instructions: not read
    "net_in",  # normalized incoming traffic [0, 100]: no Mbit/s, not read
    "net_out",  # normalized outgoing traffic [0, 100]: not read
    "disk_io_percent",  # [0, 100], abnormal -1 or 101: no IOPS or MB/s, not read
)
_ALI_METRICS = {"cpu_util_percent": "cpu_util", "mem_util_percent": "mem_util"}
_ALI_CHUNK_ROWS = 2_000_000


def read_alibaba_machine_usage(
    path: str | os.PathLike[str],
    *,
    start: str | pd.Timestamp = "1970-01-01T00:00:00Z",
    machines: Iterable[str] | None = None,
) -> SeriesSet:
    """Read ``machine_usage.csv`` of the Alibaba cluster-trace-v2018 [3].

    Parameters
    ----------
    path : str or path-like
        The file (no header line; nine columns,
        :data:`ALIBABA_MACHINE_USAGE_COLUMNS`); ``.gz`` is read as well.
    start : str or Timestamp, default "1970-01-01T00:00:00Z"
        The date put on the trace start. ``time_stamp`` counts seconds from a
        start the trace does not date, so by default the series begins at the
        Unix epoch; give a date to place it (a naive time is UTC).
    machines : iterable of str, optional
        Read only these ``machine_id`` values (the full file holds about 4,000
        machines over 8 days; it is read in chunks, keeping only these).

    Returns
    -------
    SeriesSet
        ``source_format='alibaba'``; ``server`` = ``machine_id``; metrics
        ``cpu_util`` and ``mem_util`` [fraction] = percent / 100. ``metadata``:
        ``start``, ``start_is_real_date`` (False unless ``start`` was given),
        ``rows``, ``not_read`` (the columns without a canonical metric).

    Raises
    ------
    SeriesError
        A line without nine fields, a ``time_stamp`` that is not a number, a
        utilization that is neither a number nor empty.

    Notes
    -----
    Samples are irregular (about 10 s apart, with gaps); gaps longer than 1.5 x
    the median step are counted. ``net_in``/``net_out``/``disk_io_percent`` are
    normalized to [0, 100] with no stated scale, so they cannot become Mbit/s,
    MB/s or IOPS and are left out. Empty utilization cells and values below 0
    (the schema's "abnormal" marker) are dropped and counted; values above 100
    are clipped to 1.0 and counted; repeated (machine, time) rows keep the first.
    """
    file = file_label(path)
    problems = Problems()
    t0 = _utc_ns(start)
    if t0 is None:
        problems.whole(
            "start",
            f"expected an ISO 8601 time such as 2018-01-01T00:00:00Z, got '{start}'.",
        )
        problems.raise_all()
    wanted = None if machines is None else {str(m) for m in machines}
    parts: list[pd.DataFrame] = []
    rows = 0
    try:
        stream = open_binary(path)  # any compression, told by content
    except SeriesError as exc:
        problems.whole(file, str(exc).split(": ", 1)[-1])
        problems.raise_all()
    try:
        reader = pd.read_csv(
            stream,
            header=None,
            names=list(ALIBABA_MACHINE_USAGE_COLUMNS),
            usecols=[0, 1, 2, 3],
            dtype=str,
            keep_default_na=False,
            chunksize=_ALI_CHUNK_ROWS,
            engine="c",
        )
        for chunk in reader:
            rows += len(chunk)
            if wanted is not None:
                chunk = chunk[chunk["machine_id"].isin(wanted)]
            parts.append(_alibaba_chunk(chunk, file, problems))
    except pd.errors.EmptyDataError:
        problems.whole(file, "expected machine_usage rows, got an empty file.")
    except pd.errors.ParserError as exc:
        problems.whole(file, f"expected 9 comma-separated fields per line; {exc}.")
    except (OSError, EOFError, zlib.error, UnicodeDecodeError) as exc:
        problems.whole(file, f"cannot read the file: {exc}.")
    finally:
        stream.close()
    problems.raise_if_any()

    quality = SeriesQuality()
    table = pd.concat(parts, ignore_index=True) if parts else None
    steps: list[float] = []
    frames_server: list[Any] = []
    frames_ts: list[Int64Array] = []
    frames_metric: list[Any] = []
    frames_value: list[FloatArray] = []
    if table is not None and len(table):
        table = table.sort_values(["machine_id", "ts"], kind="stable")
        for machine, g in table.groupby("machine_id", sort=True):
            name = str(machine)
            ts = g["ts"].to_numpy()
            first = np.ones(len(ts), dtype=bool)
            first[1:] = ts[1:] != ts[:-1]
            n_dup = int((~first).sum())
            if n_dup:
                quality.add(
                    name, "duplicate", n_dup, "rows repeating a time_stamp; first kept"
                )
            g = g[first]
            ts_ns = t0 + np.round(g["ts"].to_numpy() * _NS).astype(np.int64)
            med = check_gaps(quality, name, ts_ns)
            if med is not None:
                steps.append(med)
            for col, metric in _ALI_METRICS.items():
                v = g[col].to_numpy(dtype=np.float64)
                empty = np.isnan(v)
                negative = v < 0
                if empty.any():
                    quality.add(name, "dropped", int(empty.sum()), f"empty {col} cells")
                if negative.any():
                    quality.add(
                        name,
                        "dropped",
                        int(negative.sum()),
                        f"{col} below 0 (the trace's abnormal-value marker)",
                    )
                ok = ~empty & ~negative
                over = ok & (v > 100.0)
                if over.any():
                    quality.add(
                        name, "clipped", int(over.sum()), f"{col} above 100 set to 100"
                    )
                frames_server.append(np.full(int(ok.sum()), name, dtype=object))
                frames_ts.append(ts_ns[ok])
                frames_metric.append(np.full(int(ok.sum()), metric, dtype=object))
                frames_value.append(np.minimum(v[ok], 100.0) / 100.0)
    if frames_ts:
        data = tidy_frame(
            np.concatenate(frames_server),
            np.concatenate(frames_ts),
            np.concatenate(frames_metric),
            np.concatenate(frames_value),
        )
    else:
        data = empty_series()
    start_ts = pd.Timestamp(t0, tz="UTC")
    real = t0 != 0  # the Unix epoch is the stand-in, however it was written
    quality.note(
        "time_stamp counts seconds from the trace start, which the trace does not "
        f"date; placed at {start_ts.isoformat()} + time_stamp"
        + ("." if real else " (the Unix epoch, not a real date).")
    )
    return SeriesSet(
        data=data,
        quality=quality,
        source=str(path),
        source_format="alibaba",
        metadata={
            "start": start_ts.isoformat(),
            "start_is_real_date": real,
            "rows": rows,
            "step_s": median_step_s(steps),
            "not_read": list(ALIBABA_MACHINE_USAGE_COLUMNS[4:]),
        },
    )


def _alibaba_chunk(chunk: pd.DataFrame, file: str, problems: Problems) -> pd.DataFrame:
    """Numbers of one chunk (``ts`` and the two percentages; empty cells NaN)."""
    # The chunks' index continues across chunks: the 0-based line of the file.
    lines = np.asarray(chunk.index, dtype=np.int64) + 1
    out = pd.DataFrame({"machine_id": chunk["machine_id"].str.strip()})
    blank_id = (out["machine_id"] == "").to_numpy()
    for pos in np.flatnonzero(blank_id):
        problems.cell(file, int(lines[pos]), "a machine id", "", column="machine_id")
    ts_text = chunk["time_stamp"].str.strip()
    ts = pd.to_numeric(ts_text, errors="coerce")
    for pos in np.flatnonzero(ts.isna().to_numpy()):
        problems.cell(
            file,
            int(lines[pos]),
            "a time in seconds from the trace start",
            ts_text.iloc[pos],
            column="time_stamp",
        )
    out["ts"] = ts.to_numpy(dtype=np.float64)
    for col in _ALI_METRICS:
        text = chunk[col].str.strip()
        num = pd.to_numeric(text, errors="coerce")
        bad = (num.isna() & (text != "")).to_numpy()
        for pos in np.flatnonzero(bad):
            problems.cell(
                file,
                int(lines[pos]),
                "a percentage 0-100 or an empty cell",
                text.iloc[pos],
                column=col,
            )
        out[col] = num.to_numpy(dtype=np.float64)
    return out
