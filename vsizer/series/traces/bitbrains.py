"""Reader of the Bitbrains GWA-T-12 per-VM files (the "Rnd" and "fastStorage" traces).

Bad cells raise one :class:`~vsizer.errors.SeriesError` listing them (capped
per kind): ``{file} line {n}, column '{c}': expected {what}, got '{value}'.``

References
----------
.. [1] S. Shen, V. van Beek, and A. Iosup, "Statistical characterization of
   business-critical workloads hosted in cloud datacenters," in Proc. CCGrid
   2015, pp. 465-474, :doi:`10.1109/CCGrid.2015.60` (GWA-T-12 Bitbrains).
"""

from __future__ import annotations

import gzip
import os
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from vsizer._textio import open_binary
from vsizer.errors import SeriesError
from vsizer.series._tidy import (
    FloatArray,
    Int64Array,
    Problems,
    check_gaps,
    file_label,
    median_step_s,
    unix_unit,
)
from vsizer.series.columnar import SampleColumns, ServerSamples
from vsizer.series.model import SeriesQuality, SeriesSet
from vsizer.series.traces._common import first_per_time
from vsizer.series.traces._rows import read_failure

__all__ = ["BITBRAINS_VARIABLE_MAP", "read_bitbrains"]

_GIB_PER_KIB = 1.0 / 2**20

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
    problems = Problems()
    by_server, ignored = _bitbrains_files(path, problems)
    quality = SeriesQuality()
    rows = _read_servers(by_server, problems, quality)
    problems.raise_if_any()
    _timestamp_note(quality, rows.units_seen)
    return SeriesSet(
        None,
        quality,
        str(path),
        "bitbrains",
        rows.metadata(ignored),
        columns=SampleColumns(
            [
                ServerSamples(rows.servers[int(c[0])], t, _BB_METRICS, b)
                for c, t, b in zip(rows.codes, rows.stamps, rows.blocks, strict=True)
                if len(t)
            ]
        ),
    )


def _bitbrains_files(
    path: str | os.PathLike[str], problems: Problems
) -> tuple[dict[str, Path], list[str]]:
    """Server name -> its file, and the names of the other files of a folder.

    Raises
    ------
    SeriesError
        No such path, no per-VM file in the folder, two files for one server.
    """
    root = Path(path)
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
    return by_server, ignored


@dataclass
class _ServerRows:
    """Per-server blocks read so far (server code, times, metric block), and counts."""

    servers: list[str]
    codes: list[Int64Array] = field(default_factory=list)
    stamps: list[Int64Array] = field(default_factory=list)
    blocks: list[FloatArray] = field(default_factory=list)
    steps: list[float] = field(default_factory=list)
    rows_read: int = 0
    units_seen: set[str] = field(default_factory=set)

    def metadata(self, ignored: list[str]) -> dict[str, Any]:
        return {
            "files": len(self.servers),
            "rows": self.rows_read,
            "rows_kept": int(sum(len(t) for t in self.stamps)),
            "step_s": median_step_s(self.steps),
            "timestamp_unit": sorted(self.units_seen),
            "ignored": sorted(ignored),
            "units_note": "memory KB = KiB; throughput KB = 1000 bytes",
        }


def _read_servers(
    by_server: dict[str, Path], problems: Problems, quality: SeriesQuality
) -> _ServerRows:
    """Read each server's file (in name order); a bad file is recorded in ``problems``."""
    rows = _ServerRows(servers=sorted(by_server))
    for code, name in enumerate(rows.servers):
        got = _read_bitbrains_file(by_server[name], problems)
        if got is None:
            continue
        frame, unit_name, ns_per = got
        rows.units_seen.add(unit_name)
        rows.rows_read += len(frame)
        ts, block = _bitbrains_rows(frame, ns_per, name, quality)
        med = check_gaps(quality, name, ts)
        if med is not None:
            rows.steps.append(med)
        rows.codes.append(np.full(1, code, dtype=np.int64))
        rows.stamps.append(ts)
        rows.blocks.append(block)
    return rows


def _timestamp_note(quality: SeriesQuality, units_seen: set[str]) -> None:
    if len(units_seen - {"seconds"}) == 0:
        quality.note("'Timestamp [ms]' holds Unix seconds (told by magnitude).")
    else:
        quality.note(
            "'Timestamp [ms]' read as Unix "
            + ", ".join(sorted(units_seen))
            + " (told by magnitude per file)."
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
    except SeriesError as exc:  # unreadable, a zip of several files, too large unpacked
        problems.whole(file, read_failure(file, exc))
        return None
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
        problems.whole(file, read_failure(file, exc))
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
    first = first_per_time(
        ts, quality, server, "rows repeating a timestamp; first row kept"
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
