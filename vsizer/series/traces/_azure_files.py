"""One Azure ``vm_cpu_readings`` file binned onto the step grid: the task of a worker.

:func:`bin_readings_file` reads a file chunk by chunk (CSV blocks of whole
lines, or Parquet batches of the three columns it needs) and adds each chunk's
readings straight into a :class:`~._azure_grid.Grid` of that file's VMs. It is
a top-level function of a picklable :class:`FileTask`, so any engine
(:mod:`vsizer.engines`) can run it; the worker's memory is one chunk plus the
file's grid. Bad cells are recorded in the task's own
:class:`~vsizer.series._tidy.Problems`, returned with the grid.
"""

from __future__ import annotations

import resource
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pandas as pd

from vsizer.limits import Limits, current, using
from vsizer.series._tidy import FloatArray, Problems
from vsizer.series.traces._azure_grid import Grid, GridTooLarge
from vsizer.series.traces._parquet import (
    BATCH_ROWS,
    is_parquet,
    number_cells,
    parquet_batches,
    text_cells,
)
from vsizer.series.traces._rows import csv_rows

__all__ = ["READINGS_COLUMNS", "FilePartial", "FileTask", "bin_readings_file"]

#: Columns of ``vm_cpu_readings-file-*-of-*.csv`` (no header line) [AzurePublicDatasetV2.md,
#: schema items 15-18 with the VM id]: seconds from the trace start, VM id, min,
#: max and average CPU utilization [%] over the 5 minutes.
READINGS_COLUMNS: tuple[str, ...] = ("timestamp", "vmid", "mincpu", "maxcpu", "avgcpu")

#: Names each column may have in a Parquet file (the dataset's, then common ones).
PARQUET_NAMES: dict[str, tuple[str, ...]] = {
    "timestamp": ("timestamp",),
    "vmid": ("vmid", "vm_id"),
    "mincpu": ("mincpu", "min_cpu"),
    "maxcpu": ("maxcpu", "max_cpu"),
    "avgcpu": ("avgcpu", "avg_cpu"),
}

#: CSV bytes per block (whole lines): one block is the worker's chunk.
BLOCK_BYTES = 8 * 2**20

#: Latest timestamp read: ten years of seconds (the trace spans 30 days).
MAX_TS_S = 10 * 365 * 86_400
_TS_WHAT = f"a time in seconds from the trace start (0 to {MAX_TS_S:,})"
_CPU_WHAT = "a CPU utilization in percent (0-100) or an empty cell"
_ID_WHAT = "a VM id"


@dataclass(frozen=True)
class FileTask:
    """What a worker needs to bin one readings file."""

    path: str
    label: str
    start_s: int
    step_s: int
    cpu: str = "avgcpu"
    how: str = "mean"
    vms: frozenset[str] | None = None
    block_bytes: int = BLOCK_BYTES
    batch_rows: int = BATCH_ROWS
    #: The input limits of the caller (a worker process does not inherit them).
    limits: Limits = field(default_factory=current)


@dataclass
class FilePartial:
    """The binned readings of one file, or the problems that stopped it."""

    label: str
    grid: Grid
    problems: Problems
    rows: int = 0
    header_skipped: bool = False
    #: Peak resident memory of the process that ran the task [KiB].
    maxrss_kib: int = 0


def bin_readings_file(task: FileTask) -> FilePartial:
    """Bin the readings of ``task.path`` (CSV, CSV.gz or Parquet) per VM and step."""
    with using(task.limits):
        return _bin_readings_file(task)


def _bin_readings_file(task: FileTask) -> FilePartial:
    problems = Problems()
    grid = Grid(how=task.how)
    part = FilePartial(task.label, grid, problems)
    chunks = (
        _parquet_chunks(task, problems)
        if is_parquet(Path(task.path))
        else _csv_chunks(task, problems, part)
    )
    for codes, names, ts, cpu in chunks:
        part.rows += len(ts)
        if problems:
            continue  # keep reading for more problems; bin nothing
        try:
            _add_chunk(task, grid, codes, names, ts, cpu)
        except GridTooLarge as exc:
            problems.whole(task.label, f"{exc}.")
    grid.compact()
    part.maxrss_kib = int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    return part


def _add_chunk(
    task: FileTask,
    grid: Grid,
    codes: npt.NDArray[np.int64],
    names: np.ndarray,
    ts: FloatArray,
    cpu: FloatArray,
) -> None:
    """Readings of one chunk into ``grid``: filter, drop empty, clip, bin."""
    keep = codes >= 0
    if task.vms is not None and len(names):
        wanted = np.array([str(n) in task.vms for n in names], dtype=bool)
        keep &= wanted[np.maximum(codes, 0)]
    used = np.flatnonzero(np.bincount(codes[keep], minlength=len(names)))  # code order
    lut = np.full(len(names), -1, dtype=np.int64)
    lut[used] = grid.rows_of(str(names[i]) for i in used)
    rows = lut[codes[keep]]
    ts, cpu = ts[keep], cpu[keep]
    empty = np.isnan(cpu)
    if empty.any():
        grid.count_rows("dropped", rows[empty])
        rows, ts, cpu = rows[~empty], ts[~empty], cpu[~empty]
    out = (cpu < 0.0) | (cpu > 100.0)
    if out.any():
        grid.count_rows("clipped", rows[out])
        cpu = np.clip(cpu, 0.0, 100.0)
    bins = np.floor((task.start_s + ts) / task.step_s).astype(np.int64)
    grid.add(rows, bins, cpu)


Chunk = tuple[npt.NDArray[np.int64], np.ndarray, FloatArray, FloatArray]


def _csv_chunks(task: FileTask, problems: Problems, part: FilePartial) -> Iterator[Chunk]:
    """Codes, distinct ids, times and CPU of each block of a CSV file."""
    for chunk in csv_rows(
        Path(task.path),
        file=task.label,
        columns=READINGS_COLUMNS,
        usecols=(0, 1, READINGS_COLUMNS.index(task.cpu)),
        problems=problems,
        block_bytes=task.block_bytes,
    ):
        if int(chunk["line"].iloc[0]) == 1 and _is_header(chunk["timestamp"].iloc[0]):
            chunk = chunk.iloc[1:]
            part.header_skipped = True
        if not len(chunk):
            continue
        yield _csv_numbers(chunk, task, problems)


def _is_header(cell: str) -> bool:
    return cell.strip().lower() in PARQUET_NAMES["timestamp"]


def _csv_numbers(chunk: pd.DataFrame, task: FileTask, problems: Problems) -> Chunk:
    lines = chunk["line"].to_numpy()
    ids = chunk["vmid"].str.strip()
    codes, uniq = pd.factorize(ids, use_na_sentinel=True)
    codes = codes.astype(np.int64)
    values = np.asarray(uniq, dtype=object)
    blank = (ids == "").to_numpy()
    for pos in np.flatnonzero(blank):
        problems.cell(task.label, int(lines[pos]), _ID_WHAT, "", column="vmid")
    codes[blank] = -1
    ts_text = chunk["timestamp"].str.strip()
    ts = pd.to_numeric(ts_text, errors="coerce").to_numpy(dtype=np.float64)
    for pos in np.flatnonzero(~((ts >= 0) & (ts <= MAX_TS_S))):
        problems.cell(task.label, int(lines[pos]), _TS_WHAT, ts_text.iloc[pos], column="timestamp")
    cpu_text = chunk[task.cpu].str.strip()
    num = pd.to_numeric(cpu_text, errors="coerce")
    cpu = num.to_numpy(dtype=np.float64)
    bad = ((num.isna() & (cpu_text != "")) | np.isinf(num)).to_numpy()
    for pos in np.flatnonzero(bad):
        problems.cell(task.label, int(lines[pos]), _CPU_WHAT, cpu_text.iloc[pos], column=task.cpu)
    return codes, values, ts, cpu


def _parquet_chunks(task: FileTask, problems: Problems) -> Iterator[Chunk]:
    """Codes, distinct ids, times and CPU of each batch of a Parquet file."""
    wanted = {c: PARQUET_NAMES[c] for c in ("timestamp", "vmid", task.cpu)}
    for row0, cols in parquet_batches(
        Path(task.path),
        file=task.label,
        wanted=wanted,
        problems=problems,
        batch_rows=task.batch_rows,
        dictionary=("vmid",),
    ):
        ids = text_cells(
            cols["vmid"], file=task.label, row0=row0, column="vmid", what=_ID_WHAT,
            problems=problems,
        )
        ts = number_cells(
            cols["timestamp"], file=task.label, row0=row0, column="timestamp",
            expected=_TS_WHAT, problems=problems, allow_empty=False,
        )
        cpu = number_cells(
            cols[task.cpu], file=task.label, row0=row0, column=task.cpu,
            expected=_CPU_WHAT, problems=problems, allow_empty=True,
        )
        if ids is None or ts is None or cpu is None:
            return
        bad_ts = ~((ts >= 0) & (ts <= MAX_TS_S))
        for pos in np.flatnonzero(bad_ts & ~np.isnan(ts)):
            problems.cell(task.label, row0 + int(pos), _TS_WHAT, ts[pos], column="timestamp", unit="row")
        for pos in np.flatnonzero(np.isinf(cpu)):
            problems.cell(task.label, row0 + int(pos), _CPU_WHAT, cpu[pos], column=task.cpu, unit="row")
        yield ids[0], ids[1], ts, cpu
