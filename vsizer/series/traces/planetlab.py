"""Reader of CloudSim's PlanetLab CPU traces: one file per VM, one day per folder.

The files carry no timestamps; see :func:`read_planetlab`. Bad lines raise one
:class:`~vsizer.errors.SeriesError` listing them (capped per kind).

References
----------
.. [1] A. Beloglazov and R. Buyya, "Optimal online deterministic algorithms and
   adaptive heuristics for energy and performance efficient dynamic
   consolidation of virtual machines in cloud data centers," Concurrency
   Computat.: Pract. Exper., vol. 24, no. 13, pp. 1397-1420, 2012,
   :doi:`10.1002/cpe.1867` (PlanetLab workload as shipped with CloudSim).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pandas as pd

from vsizer._textio import plain_name, read_bytes
from vsizer.errors import SeriesError
from vsizer.series._tidy import (
    FloatArray,
    Int64Array,
    Problems,
    file_label,
    tidy_frame,
)
from vsizer.series.columnar import SampleColumns, ServerSamples
from vsizer.series.model import SeriesQuality, SeriesSet
from vsizer.series.traces._common import (
    NS,
    note_day_lengths,
    utc_ns,
    visible_files,
)

__all__ = ["PLANETLAB_STEP_S", "read_planetlab"]

#: PlanetLab samples are 5 minutes apart (CloudSim ``PlanetLabHelper``).
PLANETLAB_STEP_S = 300
_DAY_FOLDER_RE = re.compile(r"^(\d{4})(\d{2})(\d{2})$")
_PLANETLAB_EXPECTED = "a whole-number CPU percentage 0-100"
# "cpu% mem%": the two-column Google cluster-derived VM traces (vsizer.series.traces.gcd)
_GCD_LINE_RE = re.compile(r"^\d+(?:\.\d*)?\s+\d+(?:\.\d*)?$")
#: Shown when every line of a file is two numbers.
GCD_HINT = (
    "hint: the files look like the two-column gcd format (CPU % and memory % per "
    "5-minute line): use --format gcd (--series-format gcd for vsizer plan)."
)


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
    problems = Problems()
    files, day_folder = _planetlab_files(path, problems)
    t0, start_from = _planetlab_start(start, day_folder, problems)
    problems.raise_if_any()
    values = [_read_planetlab_file(f, problems) for f in files]
    problems.raise_if_any()

    quality = SeriesQuality()
    lengths = np.array([len(v) for v in values], dtype=np.int64)
    counts = note_day_lengths(quality, lengths, "values (one day at 5-minute steps)")
    pct = _clipped_percent(files, values, quality)
    columns, data = _planetlab_series(
        [plain_name(f) for f in files], lengths, t0, pct / 100.0
    )
    return SeriesSet(
        data,
        quality,
        str(path),
        "planetlab",
        {
            "start": pd.Timestamp(t0, tz="UTC").isoformat(),
            "start_from": start_from,
            "step_s": PLANETLAB_STEP_S,
            "files": len(files),
            "values_per_file": counts,
        },
        columns=columns,
    )


def _planetlab_series(
    names: list[str], lengths: Int64Array, t0: int, util: FloatArray
) -> tuple[SampleColumns | None, pd.DataFrame | None]:
    """One block per VM (no tidy frame); tidy rows when two files share a name."""
    steps = np.concatenate([np.arange(n, dtype=np.int64) for n in lengths])
    ts = t0 + steps * (PLANETLAB_STEP_S * NS)
    if len(set(names)) == len(names):
        ends = np.cumsum(lengths)
        return SampleColumns(
            [
                ServerSamples(name, ts[e - n : e], ("cpu_util",), util[None, e - n : e])
                for name, n, e in zip(names, lengths, ends, strict=True)
            ]
        ), None
    server = np.repeat(np.array(names, dtype=object), lengths)
    data = tidy_frame(
        server, ts, np.full(len(ts), "cpu_util", dtype=object), util, presorted=True
    )
    return None, data


def _planetlab_files(
    path: str | os.PathLike[str], problems: Problems
) -> tuple[list[Path], Path]:
    """The trace files and the folder that names their day; raises for no such path."""
    root = Path(path)
    if not root.exists():
        problems.whole(str(path), "no such file or folder.")
        problems.raise_if_any()
    if not root.is_dir():
        return [root], root.parent
    files = visible_files(root)
    if not files:
        problems.whole(
            file_label(root),
            "expected PlanetLab trace files (one per VM) in the folder, found none.",
        )
    return files, root


def _clipped_percent(
    files: list[Path], values: list[Int64Array], quality: SeriesQuality
) -> FloatArray:
    """Every file's CPU % in one array, above 100 set to 100 (counted per file)."""
    pct = np.concatenate(values) if values else np.array([], dtype=np.int64)
    if (pct > 100).any():
        for f, v in zip(files, values, strict=True):
            n_over = int((v > 100).sum())
            if n_over:
                quality.add(
                    plain_name(f), "clipped", n_over, "CPU % above 100 set to 100 %"
                )
    return np.minimum(pct, 100).astype(np.float64)


def _planetlab_start(
    start: str | pd.Timestamp | None, folder: Path, problems: Problems
) -> tuple[int, str]:
    if start is not None:
        ns = utc_ns(start)
        if ns is None:
            problems.whole(
                "--start",
                f"expected an ISO 8601 time such as 2011-03-03T00:00:00Z, got '{start}'.",
            )
            return 0, "argument"
        return ns, "argument"
    m = _DAY_FOLDER_RE.match(folder.name)
    if m:
        ns = utc_ns(f"{m.group(1)}-{m.group(2)}-{m.group(3)}")
        if ns is not None:
            return ns, "folder name"
    problems.whole(
        file_label(folder),
        "expected a folder named by its day (yyyymmdd, e.g. 20110303) to date "
        "the samples; give --start 2011-03-03T00:00:00Z instead.",
    )
    return 0, "argument"


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
    two_numbers = 0
    for i, raw in enumerate(lines):
        text = raw.decode("utf-8", errors="replace").strip()
        try:
            out[i] = int(text)
        except (ValueError, OverflowError):  # not a number, or past int64
            problems.cell(file, i + 1, _PLANETLAB_EXPECTED, text)
            two_numbers += _GCD_LINE_RE.match(text) is not None
            continue
        if out[i] < 0:
            problems.cell(file, i + 1, _PLANETLAB_EXPECTED, text)
    if two_numbers == len(lines):
        problems.hint(GCD_HINT)
    return out
