"""Reader of the Azure Public Dataset VM traces (V1 2017, V2 2019): vmtable + CPU readings.

The trace [1]_ [2]_ has a VM table (``vmtable.csv``: one row per VM with its
core-count and memory buckets) and 5-minute CPU readings split over many files
(``vm_cpu_readings-file-N-of-M.csv.gz``), both without a header line. V2 has
1.9 billion readings of 2.7 million VMs, so it is read with bounded memory:
each readings file is one task of an :class:`~vsizer.engines.Engine` (default
in this process) that streams the file chunk by chunk (CSV blocks, or Parquet
batches of the three columns needed) straight into float32 matrices of that
file's VMs x steps (:mod:`._azure_files`); the driver adds the workers'
matrices in file order. No frame of all samples is ever built. The result is
an :class:`~vsizer.series.align.AlignedSeries` (``cpu_util``, servers sorted),
the :class:`~vsizer.series.model.SeriesQuality` and the metadata with each
VM's size from its buckets.

Sizes from buckets [2]_: a bucket is named by the largest size it holds (cores
2, 4, 8, 24; memory 2, 4, 8, 32, 64 GB), and that size is used (the largest VM
the bucket may hold: conservative). The open buckets ``>24`` cores and ``>64``
GB have no upper bound; they are sized :data:`OPEN_BUCKET_CORES` = 30 cores and
:data:`OPEN_BUCKET_MEM_GB` = 70 GB, the values the dataset's own analysis
notebook [3]_ uses, and every VM sized so is counted in an assumption note.
Memory in GB is read as GiB (Azure quotes VM memory in GiB).

Counted in the quality: empty CPU cells (dropped), values outside 0-100
(clipped), readings beyond one per 5-minute slot of a step (the same VM and
time twice, in one file or two: all averaged in, ``duplicate``) and missing
steps inside a VM's span (``gap``).

References
----------
.. [1] E. Cortez et al., "Resource Central: Understanding and Predicting
   Workloads for Improved Resource Management in Large Cloud Platforms,"
   SOSP 2017, doi:10.1145/3132747.3132772.
.. [2] Microsoft Azure, github.com/Azure/AzurePublicDataset, files
   ``AzurePublicDatasetV1.md`` and ``AzurePublicDatasetV2.md`` (schema items
   1-20), commit b469a113cedca53ddc3bdea71a143dc4b7d8700c.
.. [3] Ibid., ``analysis/Azure 2019 Public Dataset V2 - Trace Analysis.ipynb``
   ("Transform vmcorecount '>24' bucket to 30 and '>64' to 70").
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from vsizer._validation import OneOf, check_param
from vsizer.engines import Engine, LocalEngine
from vsizer.errors import ConfigError
from vsizer.series._tidy import Problems, file_label
from vsizer.series.align import AlignedSeries, align_report
from vsizer.series.model import SeriesQuality, SeriesSet
from vsizer.series.traces._azure_files import (
    READINGS_COLUMNS,
    FilePartial,
    FileTask,
    bin_readings_file,
)
from vsizer.series.traces._azure_grid import Grid, GridTooLarge
from vsizer.series.traces._azure_vmtable import (
    OPEN_BUCKET_CORES,
    OPEN_BUCKET_MEM_GB,
    VMTABLE_COLUMNS,
    VmSizes,
    read_vm_sizes,
)
from vsizer.series.traces._common import NS, utc_ns

__all__ = [
    "AZURE_READINGS_COLUMNS",
    "AZURE_STEP_S",
    "AZURE_VMTABLE_COLUMNS",
    "OPEN_BUCKET_CORES",
    "OPEN_BUCKET_MEM_GB",
    "read_azure",
    "read_azure_series",
]

AZURE_READINGS_COLUMNS = READINGS_COLUMNS
AZURE_VMTABLE_COLUMNS = VMTABLE_COLUMNS

#: Seconds between two readings of a VM in the trace ("every 5 minutes" [2]_).
AZURE_STEP_S = 300

_CPU = {"avg": "avgcpu", "max": "maxcpu"}
_SUFFIXES = (".csv", ".csv.gz", ".csv.bz2", ".csv.xz", ".parquet", ".pq")


def read_azure(
    paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    *,
    step: str | pd.Timedelta = "5min",
    engine: Engine | None = None,
    start: str | pd.Timestamp = "1970-01-01T00:00:00Z",
    how: str = "mean",
    cpu: str = "avg",
    vms: Iterable[str] | None = None,
) -> tuple[AlignedSeries, SeriesQuality, dict[str, Any]]:
    """Read Azure Public Dataset readings (and vmtable) onto one step grid.

    Parameters
    ----------
    paths : path or sequence of paths
        Files and folders (searched recursively: ``trace_data/`` works):
        ``vm_cpu_readings*`` (CSV, compressed CSV, or Parquet with columns
        ``timestamp, vmid, avgcpu``) and at most one ``vmtable*`` (CSV without
        header, or Parquet). A file named otherwise is read as readings.
    step : str or Timedelta, default "5min"
        Grid step, whole seconds, from the Unix epoch (as ``align``).
    engine : Engine, optional
        Where the per-file tasks run (default: :class:`LocalEngine`).
    start : str or Timestamp, default the Unix epoch
        Date of the trace start (the trace counts seconds from an undated 0).
    how : {"mean", "max"}
        Readings within a step: averaged, or the largest.
    cpu : {"avg", "max"}
        Which CPU reading of each 5 minutes.
    vms : iterable of str, optional
        Read only these VM ids.

    Returns
    -------
    (AlignedSeries, SeriesQuality, dict)
        Series ``cpu_util`` [fraction] = reading / 100, float32, NaN where no
        reading; servers sorted. Metadata: ``start``, ``start_is_real_date``,
        ``rows``, ``step_s`` (the trace's, 300), ``grid_step_s``, ``files``, ``vmtable``, ``ignored``,
        ``machines`` (``{vmid: {cpu_count, mem_gib, vm_category,
        core_bucket, memory_bucket}}`` for VMs in both readings and vmtable),
        ``assumptions`` (open buckets sized, counted), ``engine``,
        ``workers``, ``worker_maxrss_kib``.

    Raises
    ------
    SeriesError
        Every bad cell, line of the wrong width, unreadable file, missing or
        doubled input, all at once (one line each: file, line or row, column).
    ConfigError
        ``step``, ``how``, ``cpu`` or ``start`` not valid.
    """
    step_s, t0_ns = _checked(step, how, cpu, start)
    problems = Problems()
    readings, vmtable, ignored = _inputs(paths, problems)
    problems.raise_if_any()
    eng = engine if engine is not None else LocalEngine()
    want = None if vms is None else frozenset(str(v) for v in vms)
    tasks = [FileTask(str(f), file_label(f), t0_ns // NS, step_s, _CPU[cpu], how, want) for f in readings]
    grid, rows, peaks, header = _bin_all(tasks, eng, problems)
    sizes = read_vm_sizes(vmtable, set(grid.names), problems) if vmtable else None
    problems.raise_if_any()
    quality = SeriesQuality()
    aligned = _aligned(grid, step_s, how, quality)
    metadata: dict[str, Any] = {
        "start": pd.Timestamp(t0_ns, tz="UTC").isoformat(),
        "start_is_real_date": t0_ns != 0,
        "rows": rows,
        "step_s": AZURE_STEP_S,
        "grid_step_s": step_s,
        "files": [f.name for f in readings],
        "vmtable": vmtable.name if vmtable else None,
        "ignored": ignored,
        "engine": eng.name,
        "workers": eng.workers,
        "worker_maxrss_kib": peaks,
    }
    _notes(quality, t0_ns, header, cpu)
    _sizes(sizes, vmtable, metadata, quality, aligned.servers)
    return aligned, quality, metadata


def _sizes(
    sizes: VmSizes | None,
    vmtable: Path | None,
    metadata: dict[str, Any],
    quality: SeriesQuality,
    servers: list[str],
) -> None:
    if sizes is not None and vmtable is not None:
        sizes.describe(metadata, quality, servers, vmtable.name)
    else:
        quality.note(
            "No vmtable file was given: VM sizes (cores, memory) are unknown; "
            "give the folder holding vmtable.csv, or --vm-cpu-mhz and --vm-mem-gib."
        )


def _checked(step: Any, how: str, cpu: str, start: Any) -> tuple[int, int]:
    """Step in whole seconds and the start in ns, after checking the options."""
    check_param("how", how, OneOf(("mean", "max")), "read_azure")
    check_param("cpu", cpu, OneOf(tuple(_CPU)), "read_azure")
    try:
        td = pd.Timedelta(step)
    except (ValueError, TypeError):
        td = pd.Timedelta(0)
    secs = td.total_seconds()
    if not (secs >= 1 and float(secs).is_integer()):
        raise ConfigError(
            f"The 'step' parameter of read_azure must be a positive whole number of "
            f"seconds such as '5min'. Got {step!r} instead."
        )
    t0 = utc_ns(start)
    if t0 is None:
        raise ConfigError(
            f"--start: expected an ISO 8601 time such as 2019-01-01T00:00:00Z, got '{start}'."
        )
    return int(secs), int(t0)


def _natural(p: Path) -> list[Any]:
    """Sort key putting file-2 before file-10."""
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", str(p))]


def _kind(p: Path) -> str | None:
    name = p.name.lower()
    if not name.endswith(_SUFFIXES):
        return None
    if name.startswith("vmtable"):
        return "vmtable"
    if "readings" in name:
        return "readings"
    return None


def _inputs(
    paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]], problems: Problems
) -> tuple[list[Path], Path | None, list[str]]:
    """Readings files (natural order), the vmtable (or None), ignored names."""
    given = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    readings: list[Path] = []
    tables: list[Path] = []
    ignored: list[str] = []
    for g in map(Path, given):
        if not g.exists():
            problems.whole(str(g), "no such file or folder.")
            continue
        files = [g] if g.is_file() else sorted(
            (p for p in g.rglob("*") if p.is_file() and not p.name.startswith(".")),
            key=_natural,
        )
        for f in files:
            kind = _kind(f) or ("readings" if f == g else None)
            if kind is None:
                ignored.append(str(f.relative_to(g)))
            (readings if kind == "readings" else tables if kind else []).append(f)
    if len(tables) > 1:
        problems.whole(
            file_label(tables[0]),
            f"expected one vmtable file, found {', '.join(t.name for t in tables)}.",
        )
    if not readings and not problems:
        problems.whole(
            ", ".join(str(g) for g in given) or "(no path)",
            "expected vm_cpu_readings files (Azure Public Dataset), found "
            f"{', '.join([t.name for t in tables] + ignored[:5]) or 'no file'}.",
        )
    return readings, (tables[0] if tables else None), ignored


def _bin_all(
    tasks: list[FileTask], engine: Engine, problems: Problems
) -> tuple[Grid, int, list[int], bool]:
    """The merged grid, rows read, workers' peak RSS and whether a header was skipped.

    Tasks go to the engine ``engine.workers`` at a time (at least 1), so the
    driver holds the merged grid plus one round of partial grids.
    """
    grid = Grid(how=tasks[0].how if tasks else "mean")
    rows = 0
    peaks: list[int] = []
    header = False
    batch = max(1, int(engine.workers))
    for i in range(0, len(tasks), batch):
        parts: list[FilePartial] = engine.map(bin_readings_file, tasks[i : i + batch])
        for part in parts:
            problems.absorb(part.problems)
            rows += part.rows
            peaks.append(part.maxrss_kib)
            header |= part.header_skipped
            if not problems:
                try:
                    grid.merge(part.grid)
                except GridTooLarge as exc:
                    problems.whole(part.label, f"{exc}.")
    if not problems and rows == 0:
        problems.whole(tasks[0].label, "expected readings rows, got none.")
    return grid, rows, peaks, header


def _aligned(grid: Grid, step_s: int, how: str, quality: SeriesQuality) -> AlignedSeries:
    """Sorted servers, float32 fractions, counts of drops, clips, duplicates and gaps.

    Built a block of rows at a time from the grid, whose arrays are then
    released: memory is the grid plus the result, never a second grid.
    """
    order = sorted(range(grid.n_vms), key=lambda i: grid.names[i])
    servers = [grid.names[i] for i in order]
    idx = np.asarray(order, dtype=np.int64)
    values = np.empty((grid.n_vms, grid.n_bins), dtype=np.float32)
    stats = np.zeros((4, grid.n_vms), dtype=np.int64)  # extra, gaps, first, last
    for lo in range(0, grid.n_vms, _BLOCK):
        rows = idx[lo : lo + _BLOCK]
        values[lo : lo + len(rows)] = _block(grid, rows, how, stats[:, lo : lo + len(rows)], step_s)
    _count_issues(quality, servers, grid, idx, stats)
    empty_cells = int(np.isnan(values).sum())
    grid.release()
    index = pd.DatetimeIndex(
        (np.arange(grid.n_bins, dtype=np.int64) + grid.bin0) * step_s * NS
    ).tz_localize("UTC")
    lo_s, hi_s = (int(stats[2].max()), int(stats[3].min())) if grid.n_vms else (1, 0)
    overlap = (index[lo_s], index[hi_s]) if lo_s <= hi_s else None
    step_td = pd.Timedelta(seconds=step_s)
    report = align_report(step_td, how, "none", 0, "none", index, overlap)
    report.update(
        gaps={"cpu_util": empty_cells}, filled={"cpu_util": 0}, dtype="float32"
    )
    vals: dict[str, npt.NDArray[np.floating[Any]]] = {"cpu_util": values}
    return AlignedSeries(servers, index, vals, {"cpu_util": "fraction"}, step_td, overlap, report)


#: Rows of the grid turned into the result at a time.
_BLOCK = 8192


def _block(
    grid: Grid, rows: npt.NDArray[np.int64], how: str, stats: npt.NDArray[np.int64], step_s: int
) -> npt.NDArray[np.float32]:
    """Fractions of ``rows``; fills ``stats`` (excess readings, gaps, first, last step)."""
    counts = np.asarray(grid.trimmed("counts"))[rows]
    if how == "max":
        v = np.asarray(grid.trimmed("peaks"), dtype=np.float32)[rows]
    else:
        v = np.asarray(grid.trimmed("sums"), dtype=np.float32)[rows]
        with np.errstate(invalid="ignore", divide="ignore"):
            v /= counts
    has = counts > 0
    v[~has] = np.nan
    v /= np.float32(100.0)
    slots = max(1, step_s // AZURE_STEP_S)
    stats[0] = np.maximum(counts.astype(np.int64) - slots, 0).sum(axis=1)
    stats[2] = has.argmax(axis=1)
    stats[3] = has.shape[1] - 1 - has[:, ::-1].argmax(axis=1)
    stats[1] = np.where(has.any(axis=1), stats[3] - stats[2] + 1 - has.sum(axis=1), 0)
    return v


def _count_issues(
    quality: SeriesQuality,
    servers: list[str],
    grid: Grid,
    idx: npt.NDArray[np.int64],
    stats: npt.NDArray[np.int64],
) -> None:
    """Per-VM ``dropped``, ``clipped``, ``duplicate`` and ``gap`` issues."""
    per = {
        "dropped": (grid.dropped[idx], "empty CPU cells"),
        "clipped": (grid.clipped[idx], "CPU readings outside 0-100 % clipped"),
        "duplicate": (
            stats[0],
            f"readings beyond one per {AZURE_STEP_S} s slot of a step; all averaged in",
        ),
        "gap": (stats[1], "steps without a reading inside the VM's span"),
    }
    for kind, (arr, detail) in per.items():
        for pos in np.flatnonzero(arr):
            quality.add(servers[pos], kind, int(arr[pos]), detail)


def _notes(quality: SeriesQuality, t0_ns: int, header: bool, cpu: str) -> None:
    start_ts = pd.Timestamp(t0_ns, tz="UTC")
    quality.note(
        "timestamp counts seconds from the trace start, which the trace does not "
        f"date; placed at {start_ts.isoformat()} + timestamp"
        + ("." if t0_ns != 0 else " (the Unix epoch, not a real date; see --start).")
    )
    quality.note(
        f"cpu_util is the {'average' if cpu == 'avg' else 'maximum'} CPU reading of "
        "each 5 minutes / 100; the trace has no memory, disk or network series."
    )
    if header:
        quality.note("A header line (timestamp, vmid, ...) was skipped.")


def read_azure_series(
    path: str | os.PathLike[str], *, start: str | pd.Timestamp | None = None
) -> SeriesSet:
    """:func:`read_azure` as a :class:`SeriesSet` (the ``azure`` series format).

    The set holds each VM's readings column-wise (its binned steps, no tidy
    frame: :class:`~vsizer.series.columnar.SampleColumns`); the plan bins them
    onto its own step, and the tidy frame is built only when asked for.
    """
    from vsizer.series.columnar import SampleColumns, ServerSamples

    aligned, quality, metadata = read_azure(
        path, start=start if start is not None else "1970-01-01T00:00:00Z"
    )
    mat = aligned.values["cpu_util"]
    times = aligned.index.asi8
    samples = []
    for i, server in enumerate(aligned.servers):
        row = np.asarray(mat[i], dtype=np.float64)
        keep = ~np.isnan(row)
        samples.append(
            ServerSamples(server, times[keep].copy(), ("cpu_util",), row[keep][None, :])
        )
    columns = SampleColumns(samples)
    return SeriesSet(None, quality, str(path), "azure", metadata, columns=columns)
