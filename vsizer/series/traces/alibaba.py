"""Reader of the Alibaba cluster-trace-v2018: ``machine_usage`` and ``machine_meta``.

A file is read as ``machine_usage``; a folder (the trace as downloaded and
unpacked) gives its ``machine_usage*.csv`` file(s) and ``machine_meta.csv``,
whose ``cpu_num`` lands in ``metadata['machines']`` so a plan without an
inventory can size each machine (:mod:`vsizer.series.as_inventory`). Bad lines
raise one :class:`~vsizer.errors.SeriesError` listing them (capped per kind).

References
----------
.. [1] Alibaba Group, "cluster-trace-v2018 schema," github.com/alibaba/clusterdata,
   file ``cluster-trace-v2018/schema.md`` (tables "Machine Meta" and
   "Machine Usage").
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from vsizer.series._tidy import (
    FloatArray,
    Int64Array,
    Problems,
    check_gaps,
    file_label,
    median_step_s,
    tidy_frame,
)
from vsizer.series.model import SeriesQuality, SeriesSet, empty_series
from vsizer.series.traces._common import NS, first_per_time, utc_ns, visible_files
from vsizer.series.traces._parquet import (
    is_parquet,
    number_cells,
    parquet_batches,
    text_cells,
)
from vsizer.series.traces._rows import csv_rows

__all__ = [
    "ALIBABA_MACHINE_META_COLUMNS",
    "ALIBABA_MACHINE_USAGE_COLUMNS",
    "read_alibaba_machine_meta",
    "read_alibaba_machine_usage",
]

#: Columns of ``machine_usage.csv`` in cluster-trace-v2018 (no header line) [1].
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
#: Columns of ``machine_meta.csv`` in cluster-trace-v2018 (no header line) [1].
ALIBABA_MACHINE_META_COLUMNS: tuple[str, ...] = (
    "machine_id",  # uid of machine
    "time_stamp",  # seconds from the trace start (one row per event)
    "failure_domain_1",  # not read
    "failure_domain_2",  # not read
    "cpu_num",  # number of CPUs of the machine -> metadata machines.cpu_count
    "mem_size",  # normalized memory size [0, 100]: no GiB, kept as given
    "status",  # machine status (e.g. USING): not read
)
_ALI_METRICS = {"cpu_util_percent": "cpu_util", "mem_util_percent": "mem_util"}
_USAGE_PREFIX = "machine_usage"
_META_PREFIX = "machine_meta"
_SUFFIXES = (".csv", ".csv.gz", ".csv.bz2", ".csv.xz", ".parquet", ".pq")
#: Names each usage column may have in a Parquet file.
_PARQUET_USAGE = {c: (c,) for c in ALIBABA_MACHINE_USAGE_COLUMNS[:4]}


def read_alibaba_machine_usage(
    path: str | os.PathLike[str],
    *,
    start: str | pd.Timestamp = "1970-01-01T00:00:00Z",
    machines: Iterable[str] | None = None,
) -> SeriesSet:
    """Read machine usage (and, for a folder, machine meta) of cluster-trace-v2018 [1].

    Parameters
    ----------
    path : str or path-like
        A ``machine_usage.csv`` file (no header line; nine columns,
        :data:`ALIBABA_MACHINE_USAGE_COLUMNS`; ``.gz``/``.bz2``/``.xz`` read
        as well; or Parquet with the first four columns by name, read batch
        by batch), or a folder holding ``machine_usage*.csv`` file(s) and
        optionally ``machine_meta.csv`` (:func:`read_alibaba_machine_meta`);
        its other files are listed in ``metadata['ignored']``.
    start : str or Timestamp, default "1970-01-01T00:00:00Z"
        The date put on the trace start (``--start``). ``time_stamp`` counts
        seconds from a start the trace does not date, so by default the series
        begins at the Unix epoch (a naive time is UTC).
    machines : iterable of str, optional
        Read only these ``machine_id`` values (the full file holds about 4,000
        machines over 8 days; it is read in blocks, keeping only these).

    Returns
    -------
    SeriesSet
        ``source_format='alibaba'``; ``server`` = ``machine_id``; metrics
        ``cpu_util`` and ``mem_util`` [fraction] = percent / 100. ``metadata``:
        ``start``, ``start_is_real_date``, ``rows``, ``step_s``, ``not_read``,
        ``files``, ``ignored`` and, with a ``machine_meta`` file, ``machines``
        (``{machine_id: {"cpu_count": int, "mem_size_normalized": float}}``
        for the machines read) and ``machine_meta`` (its file name).

    Raises
    ------
    SeriesError
        A line without nine fields, a ``time_stamp`` that is not a number, a
        utilization that is neither a number nor empty; a folder without a
        ``machine_usage`` file; a bad ``machine_meta`` line.

    Notes
    -----
    Samples are irregular (about 10 s apart, with gaps); gaps longer than 1.5 x
    the median step are counted. ``net_in``/``net_out``/``disk_io_percent`` are
    normalized to [0, 100] with no stated scale, so they cannot become Mbit/s,
    MB/s or IOPS and are left out. Empty utilization cells and values below 0
    (the schema's "abnormal" marker) are dropped and counted; values above 100
    are clipped to 1.0 and counted; repeated (machine, time) rows keep the first.
    """
    problems = Problems()
    t0 = _start_ns(start, problems)
    usage, meta, ignored = _alibaba_inputs(Path(path), problems)
    problems.raise_if_any()
    wanted = None if machines is None else {str(m) for m in machines}
    table, rows = _read_usage(usage, wanted, problems)
    sizes = read_alibaba_machine_meta(meta, problems) if meta is not None else None
    problems.raise_if_any()
    quality = SeriesQuality()
    data, steps = _usage_series(table, t0, quality)
    metadata: dict[str, Any] = {
        "start": pd.Timestamp(t0, tz="UTC").isoformat(),
        "start_is_real_date": t0 != 0,  # the Unix epoch is the stand-in
        "rows": rows,
        "step_s": median_step_s(steps),
        "not_read": list(ALIBABA_MACHINE_USAGE_COLUMNS[4:]),
        "files": [f.name for f in usage],
        "ignored": ignored,
    }
    _start_note(quality, t0)
    _size_machines(metadata, quality, data, sizes, meta, usage)
    return SeriesSet(
        data=data, quality=quality, source=str(path), source_format="alibaba",
        metadata=metadata,
    )  # fmt: skip


def _start_ns(start: str | pd.Timestamp, problems: Problems) -> int:
    """``start`` in ns since the epoch; raises when it is no time."""
    t0 = utc_ns(start)
    if t0 is None:
        problems.whole(
            "--start",
            f"expected an ISO 8601 time such as 2018-01-01T00:00:00Z, got '{start}'.",
        )
        problems.raise_all()
    return t0


def _read_usage(
    usage: list[Path], wanted: set[str] | None, problems: Problems
) -> tuple[pd.DataFrame | None, int]:
    """The usage rows of the machines wanted (None: all) and the rows read."""
    parts: list[pd.DataFrame] = []
    rows = 0
    for f in usage:
        if is_parquet(f):
            for part in _parquet_usage(f, problems):
                rows += len(part)
                if wanted is not None:
                    part = part[part["machine_id"].isin(wanted)]
                parts.append(part)
            continue
        for chunk in csv_rows(
            f,
            file=file_label(f),
            columns=ALIBABA_MACHINE_USAGE_COLUMNS,
            usecols=(0, 1, 2, 3),
            problems=problems,
        ):
            rows += len(chunk)
            if wanted is not None:
                chunk = chunk[chunk["machine_id"].str.strip().isin(wanted)]
            parts.append(_alibaba_chunk(chunk, file_label(f), problems))
    if not rows and not problems:
        problems.whole(file_label(usage[0]), "expected machine_usage rows, got none.")
    return (pd.concat(parts, ignore_index=True) if parts else None), rows


def _parquet_usage(path: Path, problems: Problems) -> Iterable[pd.DataFrame]:
    """The frame :func:`_alibaba_chunk` gives, per batch of a Parquet usage file.

    Columns named as in the schema [1]; cells are checked as in the CSV, with
    ``row`` (1-based over the file) where the CSV says ``line``.
    """
    file = file_label(path)
    for row0, cols in parquet_batches(path, file=file, wanted=_PARQUET_USAGE, problems=problems):
        ids = text_cells(
            cols["machine_id"], file=file, row0=row0, column="machine_id",
            what="a machine id", problems=problems,
        )  # fmt: skip
        nums = {
            c: number_cells(
                cols[c], file=file, row0=row0, column=c, problems=problems,
                expected=what, allow_empty=c != "time_stamp",
            )
            for c, what in (
                ("time_stamp", "a time in seconds from the trace start"),
                ("cpu_util_percent", "a percentage 0-100 or an empty cell"),
                ("mem_util_percent", "a percentage 0-100 or an empty cell"),
            )
        }  # fmt: skip
        if ids is None or any(v is None for v in nums.values()):
            return
        codes, values = ids
        names = np.where(codes >= 0, values[np.maximum(codes, 0)] if len(values) else "", "")
        frame = pd.DataFrame({"machine_id": names.astype(object)})
        frame["ts"] = nums["time_stamp"]
        for c in _ALI_METRICS:
            frame[c] = nums[c]
        yield frame


def _size_machines(
    metadata: dict[str, Any],
    quality: SeriesQuality,
    data: pd.DataFrame,
    sizes: pd.DataFrame | None,
    meta: Path | None,
    usage: list[Path],
) -> None:
    """``machines`` from machine_meta; else a note on a machine_meta left unread."""
    if sizes is not None and meta is not None:
        servers = sorted(set(data["server"].astype(str))) if len(data) else []
        metadata["machine_meta"] = meta.name
        metadata["machines"] = _machines_of(sizes, servers, meta.name, quality)
    elif len(usage) == 1 and _sibling_meta(usage[0]) is not None:
        quality.note(
            f"{_sibling_meta(usage[0])} lies beside {usage[0].name} but was not read "
            "(a file was given); give the folder to size each machine by its cpu_num."
        )


def _start_note(quality: SeriesQuality, t0: int) -> None:
    start_ts = pd.Timestamp(t0, tz="UTC")
    quality.note(
        "time_stamp counts seconds from the trace start, which the trace does not "
        f"date; placed at {start_ts.isoformat()} + time_stamp"
        + ("." if t0 != 0 else " (the Unix epoch, not a real date; see --start).")
    )


def _is_table(p: Path, prefix: str) -> bool:
    suffixes = _SUFFIXES if prefix == _USAGE_PREFIX else _SUFFIXES[:4]  # meta: CSV only
    return p.name.startswith(prefix) and p.name.endswith(suffixes)


def _sibling_meta(usage: Path) -> str | None:
    for suffix in _SUFFIXES[:4]:
        if (usage.parent / f"{_META_PREFIX}{suffix}").is_file():
            return f"{_META_PREFIX}{suffix}"
    return None


def _alibaba_inputs(
    root: Path, problems: Problems
) -> tuple[list[Path], Path | None, list[str]]:
    """Usage files, the meta file (or None) and the ignored names of ``root``."""
    if not root.exists():
        problems.whole(str(root), "no such file or folder.")
        return [], None, []
    if not root.is_dir():
        return [root], None, []
    files = visible_files(root)
    usage = [p for p in files if _is_table(p, _USAGE_PREFIX)]
    metas = [p for p in files if _is_table(p, _META_PREFIX)]
    ignored = [p.name for p in files if p not in usage and p not in metas]
    if not usage:
        problems.whole(
            file_label(root),
            "expected a machine_usage.csv file (cluster-trace-v2018) in the folder, "
            f"found {', '.join(p.name for p in files) or 'no file'}.",
        )
    if len(metas) > 1:
        problems.whole(
            file_label(root),
            "expected one machine_meta file, found "
            f"{', '.join(p.name for p in metas)}.",
        )
    return usage, (metas[0] if metas else None), ignored


def read_alibaba_machine_meta(
    path: str | os.PathLike[str], problems: Problems | None = None
) -> pd.DataFrame:
    """CPU count and normalized memory per machine from ``machine_meta.csv`` [1].

    Parameters
    ----------
    path : str or path-like
        The file: no header line, seven columns
        (:data:`ALIBABA_MACHINE_META_COLUMNS`), one row per machine event.
    problems : Problems, optional
        Where bad lines are recorded; without it they are raised at once.

    Returns
    -------
    DataFrame
        Index ``machine_id``; ``cpu_count`` (int, the largest ``cpu_num`` of
        the machine's rows), ``mem_size_normalized`` (float [0, 100], NaN when
        empty), ``cpu_num_changes`` (True when the rows disagree).

    Raises
    ------
    SeriesError
        A line without seven fields, a ``cpu_num`` that is not a whole number
        above 0, a ``mem_size`` that is neither a number nor empty (only when
        ``problems`` is not given; otherwise recorded there).
    """
    own = problems is None
    probs = Problems() if problems is None else problems
    file = file_label(path)
    parts = []
    for chunk in csv_rows(
        Path(path),
        file=file,
        columns=ALIBABA_MACHINE_META_COLUMNS,
        usecols=(0, 4, 5),
        problems=probs,
    ):
        parts.append(_meta_chunk(chunk, file, probs))
    if not parts and not probs:
        probs.whole(file, "expected machine_meta rows, got none.")
    if own:
        probs.raise_if_any()
    if not parts:
        return pd.DataFrame(
            {"cpu_count": [], "mem_size_normalized": [], "cpu_num_changes": []}
        )
    table = pd.concat(parts, ignore_index=True).dropna(subset=["cpu_num"])
    g = table.groupby("machine_id", sort=True)
    return pd.DataFrame(
        {
            "cpu_count": g["cpu_num"].max().astype(np.int64),
            "mem_size_normalized": g["mem_size"].max(),
            "cpu_num_changes": g["cpu_num"].nunique() > 1,
        }
    )


def _meta_chunk(chunk: pd.DataFrame, file: str, problems: Problems) -> pd.DataFrame:
    lines = chunk["line"].to_numpy()
    ids = chunk["machine_id"].str.strip()
    for pos in np.flatnonzero((ids == "").to_numpy()):
        problems.cell(file, int(lines[pos]), "a machine id", "", column="machine_id")
    text = chunk["cpu_num"].str.strip()
    cpu = pd.to_numeric(text, errors="coerce").to_numpy(dtype=np.float64)
    bad = ~(np.isfinite(cpu) & (cpu > 0) & (np.round(cpu) == cpu))
    for pos in np.flatnonzero(bad):
        problems.cell(
            file,
            int(lines[pos]),
            "a whole number of CPUs above 0",
            text.iloc[pos],
            column="cpu_num",
        )
    mem_text = chunk["mem_size"].str.strip()
    mem = pd.to_numeric(mem_text, errors="coerce")
    for pos in np.flatnonzero((mem.isna() & (mem_text != "")).to_numpy()):
        problems.cell(
            file,
            int(lines[pos]),
            "a normalized memory size 0-100 or an empty cell",
            mem_text.iloc[pos],
            column="mem_size",
        )
    return pd.DataFrame(
        {
            "machine_id": ids.to_numpy(),
            "cpu_num": np.where(bad, np.nan, cpu),
            "mem_size": mem.to_numpy(dtype=np.float64),
        }
    )


def _machines_of(
    sizes: pd.DataFrame, servers: list[str], meta: str, quality: SeriesQuality
) -> dict[str, dict[str, Any]]:
    """``metadata['machines']`` for the machines read, with notes on the rest."""
    out: dict[str, dict[str, Any]] = {}
    missing = []
    cpus = {str(k): int(v) for k, v in sizes["cpu_count"].items()}
    mems = {str(k): float(v) for k, v in sizes["mem_size_normalized"].items()}
    changes = {str(k) for k, v in sizes["cpu_num_changes"].items() if bool(v)}
    for name in servers:
        if name not in cpus:
            missing.append(name)
            continue
        mem = mems[name]
        out[name] = {
            "cpu_count": cpus[name],
            "mem_size_normalized": None if np.isnan(mem) else mem,
        }
    changed = [n for n in out if n in changes]
    quality.note(
        f"{meta}: CPU count (cpu_num) of {len(out)} of {len(servers)} machines; "
        "mem_size is normalized to [0, 100] with no stated scale, so memory in GiB "
        "comes from --vm-mem-gib."
    )
    if missing:
        quality.note(
            f"{meta}: no row for {len(missing)} machine(s) "
            f"({', '.join(missing[:5])}{', ...' if len(missing) > 5 else ''}); "
            "their CPU size comes from --vm-cpu-mhz alone."
        )
    if changed:
        quality.note(
            f"{meta}: cpu_num changes over time for {len(changed)} machine(s); "
            "the largest is used."
        )
    return out


def _usage_series(
    table: pd.DataFrame | None, t0: int, quality: SeriesQuality
) -> tuple[pd.DataFrame, list[float]]:
    """Tidy rows and per-machine median steps from the parsed usage rows."""
    steps: list[float] = []
    servers: list[Any] = []
    stamps: list[Int64Array] = []
    metrics: list[Any] = []
    values: list[FloatArray] = []
    if table is None or not len(table):
        return empty_series(), steps
    table = table.sort_values(["machine_id", "ts"], kind="stable")
    for machine, g in table.groupby("machine_id", sort=True):
        name = str(machine)
        ts = g["ts"].to_numpy()
        first = first_per_time(
            ts, quality, name, "rows repeating a time_stamp; first kept"
        )
        g = g[first]
        ts_ns = t0 + np.round(g["ts"].to_numpy() * NS).astype(np.int64)
        med = check_gaps(quality, name, ts_ns)
        if med is not None:
            steps.append(med)
        for col, metric in _ALI_METRICS.items():
            ok, v = _usage_values(g[col].to_numpy(dtype=np.float64), name, col, quality)
            servers.append(np.full(int(ok.sum()), name, dtype=object))
            stamps.append(ts_ns[ok])
            metrics.append(np.full(int(ok.sum()), metric, dtype=object))
            values.append(v)
    data = tidy_frame(
        np.concatenate(servers),
        np.concatenate(stamps),
        np.concatenate(metrics),
        np.concatenate(values),
    )
    return data, steps


def _usage_values(
    v: FloatArray, name: str, col: str, quality: SeriesQuality
) -> tuple[np.ndarray, FloatArray]:
    """Mask of the kept cells and their fractions; drops and clips counted."""
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
        quality.add(name, "clipped", int(over.sum()), f"{col} above 100 set to 100")
    return ok, np.minimum(v[ok], 100.0) / 100.0


def _alibaba_chunk(chunk: pd.DataFrame, file: str, problems: Problems) -> pd.DataFrame:
    """Numbers of one chunk (``ts`` and the two percentages; empty cells NaN)."""
    lines = chunk["line"].to_numpy()
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
