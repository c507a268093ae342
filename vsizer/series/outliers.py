"""Outlying timestamps: samples far from the bulk of a server's series.

A clock reset stamps a sample ``1970-01-01``; a bad clock stamps one in 2262.
Left in, one such sample stretches the plan's time grid over decades (a 5-minute
grid from 1970 to 2024 is 5.7 million steps per server) for no data. The rule,
per server, on its distinct sample times:

* The series is cut into *segments* at every gap longer than
  :data:`GAP_FACTOR` x the server's median sampling interval and longer than
  :data:`MIN_GAP` (7 days): a weekend or a week without collection never cuts.
* The largest segment (most samples) is the bulk. A segment holding at most
  :data:`MAX_SHARE` (1 %) of the server's samples is *outlying*: its samples are
  dropped and counted (quality issue ``outlying_time``, naming the file, the
  server, the count and the first time dropped).
* Anything else is kept; a grid still too large is refused by
  :func:`vsizer.limits.check_grid` (``--max-grid-cells``) before it is built.

Pure numpy over the (server, time) columns; a server with fewer than 3
distinct times is never cut.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from vsizer.limits import check_grid
from vsizer.series._tidy import file_label

__all__ = [
    "GAP_FACTOR",
    "MAX_SHARE",
    "MIN_GAP",
    "check_span",
    "drop_outlying",
    "outlying_times",
]

#: A gap cuts a series when longer than this many median sampling intervals...
GAP_FACTOR = 1000
#: ... and longer than this.
MIN_GAP = pd.Timedelta(days=7)
#: A segment is outlying when it holds at most this share of the server's samples.
MAX_SHARE = 0.01

Int64Array = npt.NDArray[np.int64]


def outlying_times(times: Int64Array) -> npt.NDArray[np.bool_]:
    """Which of the sorted distinct times (ns) of one server are outlying."""
    out = np.zeros(len(times), dtype=bool)
    if len(times) < 3:
        return out
    steps = np.diff(times)
    median = float(np.median(steps))
    cut_at = max(GAP_FACTOR * median, float(MIN_GAP.value))
    cuts = np.flatnonzero(steps > cut_at) + 1
    if not len(cuts):
        return out
    bounds = np.concatenate(([0], cuts, [len(times)]))
    sizes = np.diff(bounds)
    bulk = int(np.argmax(sizes))
    for k in range(len(sizes)):
        if k != bulk and sizes[k] <= MAX_SHARE * len(times):
            out[bounds[k] : bounds[k + 1]] = True
    return out


def drop_outlying(
    data: pd.DataFrame, source: str, quality: Any
) -> pd.DataFrame:
    """Tidy ``data`` without its outlying samples, each server's drop counted.

    ``source`` (a file or folder) is named by its last part, as problem lines
    name files.

    ``quality`` (a :class:`~vsizer.series.model.SeriesQuality`) gets one
    ``outlying_time`` issue per server with samples dropped. ``data`` comes
    back unchanged (the same object) when nothing is outlying.
    """
    if data.empty:
        return data
    source = file_label(source)
    ns = pd.to_datetime(data["timestamp"], utc=True).to_numpy(
        dtype="datetime64[ns]"
    ).astype(np.int64)
    codes, names = pd.factorize(data["server"].astype(str), sort=True)
    drop = np.zeros(len(data), dtype=bool)
    order = np.lexsort((ns, codes))
    bounds = np.searchsorted(codes[order], np.arange(len(names) + 1))
    for i, name in enumerate(names):
        rows = order[bounds[i] : bounds[i + 1]]
        uniq = np.unique(ns[rows])
        bad = outlying_times(uniq)
        if not bad.any():
            continue
        hit = np.isin(ns[rows], uniq[bad])
        drop[rows[hit]] = True
        first = pd.Timestamp(int(uniq[bad][0]), tz="UTC").strftime("%Y-%m-%dT%H:%M:%SZ")
        n = int(hit.sum())
        quality.add(
            str(name),
            "outlying_time",
            n,
            f"{source}: {n} sample(s) far from the bulk of the series dropped "
            f"(first {first}; a clock reset or a wrong clock)",
        )
    return data if not drop.any() else data[~drop].reset_index(drop=True)


def check_span(data: pd.DataFrame, step: str | pd.Timedelta) -> None:
    """Refuse (ValueError, one line) tidy ``data`` whose grid at ``step`` would
    break ``--max-grid-cells``; computed from the first and last time only."""
    if data.empty:
        return
    step_ns = pd.Timedelta(step).value
    if step_ns <= 0:
        return
    ts = pd.to_datetime(data["timestamp"], utc=True)
    lo, hi = ts.min(), ts.max()
    n_steps = hi.value // step_ns - lo.value // step_ns + 1
    n_servers = int(data["server"].nunique())
    what = f"of {step_ns / 1e9:g} s, {lo:%Y-%m-%d} to {hi:%Y-%m-%d}"
    check_grid(n_steps, n_servers, what)
