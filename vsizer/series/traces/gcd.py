"""Reader of the two-column VM traces derived from the Google cluster data ("gcd").

Format
------
One file per VM (server name = file name without suffix; the published files
have none: ``vm_5544436380_8``), one line per 5 minutes, two numbers separated
by white space: CPU utilization [%] then memory utilization [%]. No header, no
timestamps; 288 lines cover 24 hours.

Source
------
Hieu, Di Francesco and Ylä-Jääski [2] built the files from the Google
cluster-usage trace clusterdata-2011-2 [1]: the tasks of each job were summed
per 5 minutes over 24 hours, taken from the trace's first ten days (May 2011)
and kept where CPU and memory stayed between 5 and 90 %; 1,600 VMs. They are
distributed as ``GCD_VMs.tar.gz`` in github.com/HiPro-IT/
CPU-and-Memory-resource-usage-from-Google-Cluster-Data (README: "first column:
CPU utilization (%) - second column: Memory utilization (%)").

Quirks (checked on the 1,600 published files)
---------------------------------------------
* No timestamps, and which of the ten days a file covers is not recorded:
  line *i* (from 0) is placed at ``start + i x 5 min`` with one start for all
  files (default :data:`GCD_START`, the trace start), so all VMs are taken as
  co-timed. Stated as a quality note.
* Values are floats with binary noise (``58.282999999999994``), read as they are.
* Memory exceeds 100 % despite the stated 5-90 % filter: 613 lines in 12 files,
  up to 215.3 %. Values above 100 are clipped to 1.0 and counted (``clipped``).
* Utilization is of the job's share of the Google machines (the trace
  normalizes CPU and memory to the largest machine), not of a VM size: a plan
  needs ``--vm-cpu-mhz`` and ``--vm-mem-gib`` for the VMs' size.

References
----------
.. [1] C. Reiss, J. Wilkes, and J. L. Hellerstein, "Google cluster-usage
   traces: format + schema," Google Inc., Mountain View, CA, USA, technical
   report, 2011 (revised 2014), github.com/google/cluster-data,
   ``ClusterData2011_2.md`` (trace start 19:00 EDT, 1 May 2011).
.. [2] N. T. Hieu, M. Di Francesco, and A. Ylä-Jääski, "Virtual machine
   consolidation with multiple usage prediction for energy-efficient cloud
   data centers," IEEE Trans. Services Comput., vol. 13, no. 1, pp. 186-199,
   2020, :doi:`10.1109/TSC.2017.2648791` (the workload of its evaluation).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from vsizer._textio import open_binary
from vsizer.series._tidy import (
    FloatArray,
    Int64Array,
    Problems,
    file_label,
    tidy_from_codes,
)
from vsizer.series.model import SeriesQuality, SeriesSet
from vsizer.series.traces._common import (
    NS,
    note_day_lengths,
    utc_ns,
    visible_files,
)
from vsizer.series.traces._rows import READ_ERRORS, read_failure

__all__ = ["GCD_START", "GCD_STEP_S", "read_gcd"]

#: One line per 5 minutes [2].
GCD_STEP_S = 300
#: Default time of line 0: the start of clusterdata-2011-2, 19:00 EDT on 1 May 2011 [1].
GCD_START = "2011-05-01T23:00:00Z"
_EXPECTED = "two numbers separated by white space (CPU % and memory %), each 0 or more"
_COMPRESSED = (".gz", ".bz2", ".xz")


def read_gcd(
    path: str | os.PathLike[str],
    *,
    start: str | pd.Timestamp | None = None,
) -> SeriesSet:
    """Read the Google cluster-derived two-column VM traces (``--format gcd``).

    Parameters
    ----------
    path : str or path-like
        A VM file, or a folder of them (every regular file not starting with
        ``.``, sorted by name; ``.gz``/``.bz2``/``.xz`` are decompressed).
    start : str or Timestamp, optional
        Time of line 0 of every file (``--start``); default :data:`GCD_START`.
        A naive time is UTC.

    Returns
    -------
    SeriesSet
        ``source_format='gcd'``; ``server`` = file name without suffix;
        ``cpu_util`` and ``mem_util`` [fraction] = column / 100 at 5-minute
        steps. ``metadata``: ``start``, ``start_from`` ('--start' or
        'default'), ``step_s`` (300), ``files``, ``values_per_file``.

    Raises
    ------
    SeriesError
        A line without exactly two numbers >= 0, an empty or unreadable file,
        two files for one server, no file in the folder, a bad ``start``.
        Lines of one number per line add a hint to use ``--format planetlab``.
    """
    root = Path(path)
    problems = Problems()
    files = _gcd_files(root, problems)
    t0, start_from = _gcd_start(start, problems)
    problems.raise_if_any()
    names = [_server(f) for f in files]
    blocks = [_read_gcd_file(f, problems) for f in files]
    problems.raise_if_any()

    quality = SeriesQuality()
    lengths = np.array([len(b) for b in blocks], dtype=np.int64)
    counts = note_day_lengths(quality, lengths, "lines (24 hours at 5-minute steps)")
    order = sorted(range(len(names)), key=lambda i: names[i])  # contract order
    ts, metric, value = _gcd_columns([blocks[i] for i in order], t0)
    _count_clipped(quality, [names[i] for i in order], [blocks[i] for i in order])
    start_iso = pd.Timestamp(t0, tz="UTC").isoformat()
    quality.note(_placement_note(start_iso, start_from))
    data = tidy_from_codes(
        np.repeat(np.arange(len(order)), 2 * lengths[order]),
        [names[i] for i in order],
        metric,
        ("cpu_util", "mem_util"),
        ts,
        value,
    )
    return SeriesSet(
        data=data,
        quality=quality,
        source=str(path),
        source_format="gcd",
        metadata={
            "start": start_iso,
            "start_from": start_from,
            "step_s": GCD_STEP_S,
            "files": len(files),
            "values_per_file": counts,
        },
    )


_COLUMNS = ("CPU", "memory")


def _gcd_columns(
    blocks: list[FloatArray], t0: int
) -> tuple[Int64Array, Int64Array, FloatArray]:
    """Time, metric code (0 CPU, 1 memory) and fraction of every value, file by file."""
    ts, metric, value = [], [], []
    for block in blocks:
        offsets = t0 + np.arange(len(block), dtype=np.int64) * (GCD_STEP_S * NS)
        for j in range(len(_COLUMNS)):
            v = block[:, j]
            ts.append(offsets)
            metric.append(np.full(len(v), j, dtype=np.int64))
            value.append(np.minimum(v, 100.0) / 100.0)
    return np.concatenate(ts), np.concatenate(metric), np.concatenate(value)


def _count_clipped(
    quality: SeriesQuality, names: list[str], blocks: list[FloatArray]
) -> None:
    """Count the CPU and memory % above 100 (clipped to 1.0), per server."""
    for name, block in zip(names, blocks, strict=True):
        for j, label in enumerate(_COLUMNS):
            n_over = int((block[:, j] > 100.0).sum())
            if n_over:
                quality.add(
                    name, "clipped", n_over, f"{label} % above 100 set to 100 %"
                )


def _placement_note(start_iso: str, start_from: str) -> str:
    return (
        "gcd files carry no times: line i is placed at "
        f"{start_iso} + i x 5 min for every file"
        + (
            " (the start of Google's clusterdata-2011-2 trace, 19:00 EDT on "
            "1 May 2011; which of its first ten days a file covers is not recorded, "
            "so all VMs are taken as co-timed; see --start)."
            if start_from == "default"
            else " (--start)."
        )
    )


def _server(path: Path) -> str:
    name = path.name
    for suffix in _COMPRESSED:
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
    return Path(name).stem if "." in name else name


def _gcd_files(root: Path, problems: Problems) -> list[Path]:
    if not root.exists():
        problems.whole(str(root), "no such file or folder.")
        return []
    files = visible_files(root) if root.is_dir() else [root]
    if root.is_dir() and not files:
        problems.whole(
            file_label(root),
            "expected gcd trace files (one per VM, two columns) in the folder, "
            "found none.",
        )
    seen: dict[str, Path] = {}
    for f in files:
        name = _server(f)
        if name in seen:
            problems.whole(
                f.name, f"server '{name}' is also read from {seen[name].name}."
            )
        seen[name] = f
    return files


def _gcd_start(start: str | pd.Timestamp | None, problems: Problems) -> tuple[int, str]:
    if start is None:
        ns = utc_ns(GCD_START)
        assert ns is not None  # a constant
        return ns, "default"
    ns = utc_ns(start)
    if ns is None:
        problems.whole(
            "--start",
            f"expected an ISO 8601 time such as {GCD_START}, got '{start}'.",
        )
        return 0, "--start"
    return ns, "--start"


def _read_gcd_file(path: Path, problems: Problems) -> FloatArray:
    """The file's (n, 2) values [%]; an empty array after a problem."""
    file = path.name
    empty = np.zeros((0, 2), dtype=np.float64)
    try:
        with open_binary(path) as fh:
            data = fh.read()
    except READ_ERRORS as exc:
        problems.whole(file, read_failure(file, exc))
        return empty
    lines = data.split(b"\n")
    if lines and lines[-1].strip() == b"":
        lines.pop()
    if not lines:
        problems.whole(file, "expected 288 lines of 'CPU% memory%', got an empty file.")
        return empty
    try:  # fast path: every line two numbers
        arr = np.array([ln.split() for ln in lines], dtype=np.float64)
    except ValueError:
        arr = None
    if (
        arr is not None
        and arr.ndim == 2
        and arr.shape[1] == 2
        and bool(np.isfinite(arr).all() and (arr >= 0).all())
    ):
        return arr
    one_number = 0
    for i, raw in enumerate(lines):
        fields = raw.split()
        ok = len(fields) == 2
        if ok:
            try:
                pair = [float(f) for f in fields]
                ok = all(np.isfinite(x) and x >= 0 for x in pair)
            except ValueError:
                ok = False
        if not ok:
            one_number += len(fields) == 1 and fields[0].strip().isdigit()
            text = raw.decode("utf-8", errors="replace").strip()
            problems.cell(file, i + 1, _EXPECTED, text)
    if one_number == len(lines):
        problems.hint(
            "hint: the lines look like the PlanetLab format (one whole CPU % per "
            "line): use --format planetlab (--series-format planetlab for vsizer plan)."
        )
    return empty
