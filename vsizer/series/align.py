"""Align tidy series to one time grid: one step, UTC, stated gap policy.

Policy (all reported, never silent):

* **Within a step** samples are aggregated by ``how``: ``"mean"`` (default; the
  average load of the step) or ``"max"`` (the busiest sample, for conservative
  sizing on coarse steps).
* **Steps with no sample** are *gaps*. ``fill="none"`` (default) leaves them NaN
  and counts them; ``fill="ffill"`` carries the last value forward for at most
  ``max_fill`` steps (default 2, i.e. 10 minutes at 5-minute steps) and counts
  what it filled; longer gaps stay NaN. Nothing is interpolated or invented.
* **Size**: steps x servers at most ``--max-grid-cells``
  (:func:`vsizer.limits.check_grid`), checked before the grid is allocated.
* **Window**: the grid spans the union of all series; ``overlap`` is the window
  every server covers (latest start to earliest end). ``clip="overlap"`` keeps
  only that window.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from vsizer._validation import Interval, OneOf, check_param
from vsizer.limits import check_grid
from vsizer.series.model import SERIES_COLUMNS


@dataclass
class AlignedSeries:
    """Series on one grid.

    Attributes
    ----------
    servers : list of str
        Row order of every matrix.
    index : DatetimeIndex
        Step start times, UTC.
    values : dict of str -> ndarray, shape (n_servers, n_steps)
        One matrix per metric, NaN where no data: float64 from the readers and
        the store (the same numbers as the tidy path), float32 where a caller
        asks for it (``dtype=`` of the column-wise ``align``) or builds the
        series itself; every consumer reads either (``demand._rows`` copies
        rows into float64).
    units : dict of str -> str
    step : Timedelta
    overlap : (Timestamp, Timestamp) or None
        Window every server covers; None if some pair of servers never overlaps.
    report : dict
        Policy and counts: gaps (NaN steps) per metric, filled steps, samples per step.
    """

    servers: list[str]
    index: pd.DatetimeIndex
    values: dict[str, npt.NDArray[np.floating[Any]]]
    units: dict[str, str]
    step: pd.Timedelta
    overlap: tuple[pd.Timestamp, pd.Timestamp] | None
    report: dict[str, Any] = field(default_factory=dict)

    @property
    def n_steps(self) -> int:
        return len(self.index)


def align(
    data: pd.DataFrame,
    *,
    step: str | pd.Timedelta = "5min",
    how: str = "mean",
    fill: str = "none",
    max_fill: int = 2,
    clip: str = "none",
) -> AlignedSeries:
    """Resample tidy series (columns ``server, timestamp, metric, value, unit``) to one grid.

    Parameters
    ----------
    data : DataFrame
        Tidy series as readers return them (``SeriesSet.data``); several sets
        may be concatenated.
    step : str or Timedelta, default "5min"
        Grid step. Step boundaries are multiples of ``step`` since the Unix epoch.
    how : {"mean", "max"}
        Aggregation of the samples within a step.
    fill : {"none", "ffill"}
        Gap policy, see the module docstring.
    max_fill : int
        Longest run of steps ``ffill`` may fill.
    clip : {"none", "overlap"}
        Keep the whole span, or only the window all servers cover.

    Returns
    -------
    AlignedSeries
    """
    step_td = _checked_step(data, step, how, fill, max_fill, clip)
    frame = _binned(data, step_td)
    servers = sorted(frame["server"].unique().tolist())
    frame, start, end, overlap = _window(frame, clip)
    check_grid(  # before the grid is allocated (--max-grid-cells)
        (end - start) // step_td + 1, len(servers),
        f"of {step_td.total_seconds():g} s, {start:%Y-%m-%d} to {end:%Y-%m-%d}",
    )  # fmt: skip
    index = pd.date_range(start, end, freq=step_td, tz="UTC")
    first_unit = data.groupby(data["metric"].astype(str))["unit"].first()
    units = {str(k): str(v) for k, v in first_unit.items()}
    values: dict[str, npt.NDArray[np.floating[Any]]] = {}
    report = align_report(step_td, how, fill, max_fill, clip, index, overlap)
    for metric, part in frame.groupby("metric", sort=True):
        mat = _on_grid(part, how, servers, index, step_td)
        filled = 0
        if fill == "ffill" and max_fill > 0:
            mat, filled = _ffill_limited(mat, max_fill)
        values[str(metric)] = mat
        report["gaps"][str(metric)] = int(np.isnan(mat).sum())
        report["filled"][str(metric)] = int(filled)
    return AlignedSeries(servers, index, values, units, step_td, overlap, report)


def align_report(
    step: pd.Timedelta,
    how: str,
    fill: str,
    max_fill: int,
    clip: str,
    index: pd.DatetimeIndex,
    overlap: tuple[pd.Timestamp, pd.Timestamp] | None,
) -> dict[str, Any]:
    """``AlignedSeries.report`` before its per-metric ``gaps`` and ``filled`` counts:
    the one shape every path to an aligned grid reports."""
    return {
        "step": str(step),
        "how": how,
        "fill": fill,
        "max_fill": max_fill,
        "clip": clip,
        "start": str(index[0]) if len(index) else None,
        "end": str(index[-1]) if len(index) else None,
        "overlap": [str(overlap[0]), str(overlap[1])] if overlap else None,
        "gaps": {},
        "filled": {},
    }


def _checked_step(
    data: pd.DataFrame,
    step: str | pd.Timedelta,
    how: str,
    fill: str,
    max_fill: int,
    clip: str,
) -> pd.Timedelta:
    """The grid step, after checking every argument of :func:`align`."""
    where = "align"
    check_param("how", how, OneOf(("mean", "max")), where)
    check_param("fill", fill, OneOf(("none", "ffill")), where)
    check_param("max_fill", max_fill, Interval(int, 0, None), where)
    check_param("clip", clip, OneOf(("none", "overlap")), where)
    step_td = pd.Timedelta(step)
    if step_td <= pd.Timedelta(0):
        raise ValueError(
            f"The 'step' parameter of align must be positive. Got {step!r} instead."
        )
    missing = [c for c in SERIES_COLUMNS if c not in data]
    if missing:
        raise ValueError(f"align needs tidy series columns; missing {missing}")
    if data.empty:
        raise ValueError("align got no samples")
    return step_td


def _binned(data: pd.DataFrame, step_td: pd.Timedelta) -> pd.DataFrame:
    """Server, metric, step start (``bin``) and value of each sample."""
    ts = pd.to_datetime(data["timestamp"], utc=True)
    return pd.DataFrame(
        {
            "server": data["server"].astype(str).to_numpy(),
            "metric": data["metric"].astype(str).to_numpy(),
            "bin": ts.dt.floor(step_td).to_numpy(),
            "value": data["value"].astype(float).to_numpy(),
        }
    )


def _window(
    frame: pd.DataFrame, clip: str
) -> tuple[
    pd.DataFrame,
    pd.Timestamp,
    pd.Timestamp,
    tuple[pd.Timestamp, pd.Timestamp] | None,
]:
    """The samples kept, first and last step of the grid, and the overlap."""
    spans = frame.groupby("server")["bin"].agg(["min", "max"])
    start, end = spans["min"].min(), spans["max"].max()
    latest_start, earliest_end = spans["min"].max(), spans["max"].min()
    overlap = (latest_start, earliest_end) if latest_start <= earliest_end else None
    if clip == "overlap":
        if overlap is None:
            raise ValueError(
                "the servers' series share no common window; cannot clip to overlap"
            )
        start, end = overlap
        frame = frame[(frame["bin"] >= start) & (frame["bin"] <= end)]
    return frame, start, end, overlap


def _on_grid(
    part: pd.DataFrame,
    how: str,
    servers: list[str],
    index: pd.DatetimeIndex,
    step_td: pd.Timedelta,
) -> npt.NDArray[np.float64]:
    """One metric's samples aggregated per step: (n_servers, n_steps), NaN where none."""
    server_pos = {s: i for i, s in enumerate(servers)}
    agg = part.groupby(["server", "bin"], sort=False)["value"].agg(how)
    mat = np.full((len(servers), len(index)), np.nan)
    rows = np.array([server_pos[s] for s in agg.index.get_level_values(0)])
    bins_idx = pd.DatetimeIndex(agg.index.get_level_values(1))
    cols = ((bins_idx - index[0]) // step_td).to_numpy(dtype=np.int64)
    mat[rows, cols] = agg.to_numpy()
    return mat


def _ffill_limited(
    mat: npt.NDArray[np.float64], limit: int
) -> tuple[npt.NDArray[np.float64], int]:
    """Fill interior NaN runs of at most ``limit`` steps with the value before them.

    Longer runs, and runs at either end of a row (which would be extrapolation),
    stay NaN. Vectorized over the whole matrix.
    """
    n_rows, n = mat.shape
    nan = np.isnan(mat)
    if not nan.any():
        return mat, 0
    pos = np.broadcast_to(np.arange(n), mat.shape)
    last = np.maximum.accumulate(np.where(~nan, pos, -1), axis=1)
    nxt = np.minimum.accumulate(np.where(~nan, pos, n)[:, ::-1], axis=1)[:, ::-1]
    run = nxt - last - 1
    fill = nan & (last >= 0) & (nxt < n) & (run <= limit)
    out = mat.copy()
    rows = np.broadcast_to(np.arange(n_rows)[:, None], mat.shape)
    out[fill] = mat[rows[fill], last[fill]]
    return out, int(fill.sum())


#: A series whose median step differs from the grid step by more than this
#: factor (finer or coarser) is reported.
STEP_MISMATCH_FACTOR = 10.0


def step_mismatch_notes(
    data: pd.DataFrame,
    step: str | pd.Timedelta,
    factor: float = STEP_MISMATCH_FACTOR,
) -> list[str]:
    """Notes on servers whose own sampling step is > ``factor`` x off the grid step.

    A series sampled every second on a 5-minute grid has 300 samples averaged
    per step (peaks flattened); one sampled hourly leaves 11 of 12 steps empty.
    Either often means a step index or unit was misread, so it is stated.

    Parameters
    ----------
    data : DataFrame
        Tidy series (:data:`~vsizer.series.model.SERIES_COLUMNS`).
    step : str or Timedelta
        The grid step (``--step`` of ``vsizer plan``).
    factor : float, default 10
        Ratio beyond which a step disagrees.

    Returns
    -------
    list of str
        One note per distinct disagreeing step, naming up to 5 servers.
    """
    grid_s = pd.Timedelta(step).total_seconds()
    if data.empty or grid_s <= 0:
        return []
    frame = pd.DataFrame(
        {
            "s": data["server"].astype(str).to_numpy(),
            "t": pd.to_datetime(data["timestamp"], utc=True).to_numpy(),
        }
    ).drop_duplicates()
    frame = frame.sort_values(["s", "t"], kind="stable")
    frame["d"] = frame.groupby("s")["t"].diff().dt.total_seconds()
    medians = frame.dropna(subset=["d"]).groupby("s")["d"].median()
    return notes_from_medians(medians, grid_s, factor)


def notes_from_medians(
    medians: pd.Series, grid_s: float, factor: float = STEP_MISMATCH_FACTOR
) -> list[str]:
    """The notes of :func:`step_mismatch_notes` from each server's median step [s]."""
    if grid_s <= 0 or medians.empty:
        return []
    off = medians[(medians > grid_s * factor) | (medians < grid_s / factor)]
    notes = []
    for key, names in off.groupby(off).groups.items():
        own = float(key)  # type: ignore[arg-type]
        servers = sorted(str(n) for n in names)
        shown = ", ".join(servers[:5]) + (
            f" and {len(servers) - 5} more" if len(servers) > 5 else ""
        )
        how = (
            f"{grid_s / own:g} samples averaged into each grid step"
            if own < grid_s
            else f"only 1 grid step in {own / grid_s:g} has a sample"
        )
        notes.append(
            f"{len(servers)} server(s) ({shown}) are sampled every {own:g} s but the "
            f"plan grid step (--step) is {grid_s:g} s, more than {factor:g}x apart: "
            f"{how}. Check the input's step (--series-step, --index-column) or set "
            "--step."
        )
    return notes
