"""Aligned series built incrementally: per-server (or per-part) binned pieces added
into one dense matrix per metric (servers x steps), never a tidy frame of every sample.

:class:`GridAccumulator` is the columnar half of :func:`vsizer.series.align.align`:
it gives the same :class:`~vsizer.series.align.AlignedSeries` (same grid, window,
overlap, gap counts and report) from pieces that readers and the series store
hand it one server, file or Parquet batch at a time. The grid given up front may
be larger than the data (a store knows its parts' time ranges and servers from
their footers); :meth:`GridAccumulator.finish` trims it to what the samples span,
as :func:`align` computes it.

Aggregation within a step is the same as :func:`align`'s (pandas ``groupby``):
``mean`` keeps each cell's sum and count (pandas' compensated sum divided by the
count is its mean), ``max`` the largest value. A cell fed by two pieces (a
server's samples in two store parts) combines them exactly for ``max`` and to
the last bit or so for ``mean``.

Memory: for ``mean`` 12 bytes per cell (float64 sum, int32 count) while adding;
:meth:`~GridAccumulator.finish` turns the sums into means in place (8 bytes per
cell, or 4 with ``dtype=float32``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from vsizer._validation import Interval, OneOf, check_param
from vsizer.limits import check_grid
from vsizer.series.align import AlignedSeries, _ffill_limited, align_report

__all__ = ["GridAccumulator", "bin_block", "step_ns_of"]

FloatArray = npt.NDArray[np.float64]
Int64Array = npt.NDArray[np.int64]


def step_ns_of(step: str | pd.Timedelta) -> int:
    """The grid step in nanoseconds; ValueError when not positive (align's message)."""
    step_td = pd.Timedelta(step)
    if step_td <= pd.Timedelta(0):
        raise ValueError(
            f"The 'step' parameter of align must be positive. Got {step!r} instead."
        )
    return int(step_td.value)


def bin_block(
    ts_ns: Int64Array, block: FloatArray, step_ns: int, how: str
) -> tuple[Int64Array, FloatArray, npt.NDArray[np.int32]]:
    """Samples of one server (times sorted ascending) aggregated per step.

    Parameters
    ----------
    ts_ns : int64 array (n,)
        Sample times [ns since the epoch, UTC], non-decreasing.
    block : float array (m, n)
        One row per metric; NaN = no sample of that metric at that time.
    step_ns : int
        Grid step [ns]; step *k* starts at ``k * step_ns``.
    how : {"mean", "max"}

    Returns
    -------
    bins : int64 array (k,)
        Step numbers having a sample (ascending, unique).
    agg : float64 array (m, k)
        Per step: the sum of the samples (``mean``) or their maximum (``max``);
        0 (sum) or NaN (max) where a metric has none.
    count : int32 array (m, k)
        Samples per step and metric.
    """
    bins = np.floor_divide(ts_ns, step_ns)
    block = np.asarray(block, dtype=np.float64)
    present = ~np.isnan(block)
    if len(bins) < 2 or bool((bins[1:] > bins[:-1]).all()):  # one sample per step
        count = present.astype(np.int32)
        agg = np.where(present, block, 0.0) if how == "mean" else block.copy()
        return bins.astype(np.int64), agg, count
    frame = pd.DataFrame(block.T)
    grouped = frame.groupby(bins, sort=True)
    agg_frame = grouped.sum() if how == "mean" else grouped.max()
    count = grouped.count().to_numpy(dtype=np.int32).T
    return (
        agg_frame.index.to_numpy(dtype=np.int64),
        agg_frame.to_numpy(dtype=np.float64).T,
        np.ascontiguousarray(count),
    )


def _span_text(first_bin: int, n_bins: int, step_ns: int) -> str:
    """``of 300 s, 2024-03-01 to 2024-03-03``: a grid's step and days (the
    step alone when the days are outside the datetime range)."""
    text = f"of {step_ns / 1e9:g} s"
    try:
        start = pd.Timestamp(first_bin * step_ns, tz="UTC")
        end = pd.Timestamp((first_bin + max(n_bins - 1, 0)) * step_ns, tz="UTC")
    except (ValueError, OverflowError):
        return text
    return f"{text}, {start:%Y-%m-%d} to {end:%Y-%m-%d}"


class GridAccumulator:
    """Dense per-metric matrices over a grid known up front, filled piece by piece.

    Parameters
    ----------
    servers : sequence of str
        Row names (a superset is fine: servers never fed are dropped by
        :meth:`finish`); sorted, as :func:`align` orders them.
    metrics : sequence of str
        Metrics that may be fed (those never fed are left out).
    units : dict of str -> str
    first_bin, n_bins : int
        The grid: steps ``first_bin .. first_bin + n_bins - 1`` (a superset of
        the samples' span is fine).
    step : str or Timedelta
    how : {"mean", "max"}
    dtype : numpy float dtype, default float64
        Of the finished matrices.
    """

    def __init__(
        self,
        servers: Sequence[str],
        metrics: Sequence[str],
        units: dict[str, str],
        first_bin: int,
        n_bins: int,
        *,
        step: str | pd.Timedelta = "5min",
        how: str = "mean",
        dtype: Any = np.float64,
    ) -> None:
        check_param("how", how, OneOf(("mean", "max")), "align")
        self.step_ns = step_ns_of(step)
        self.how = how
        self.dtype = np.dtype(dtype)
        self.servers = list(servers)
        self.row = {s: i for i, s in enumerate(self.servers)}
        self.metrics = list(metrics)
        self.units = dict(units)
        self.first_bin = int(first_bin)
        self.n_bins = max(int(n_bins), 0)
        check_grid(  # before anything of the grid's size is allocated
            self.n_bins, len(self.servers), _span_text(self.first_bin, self.n_bins, self.step_ns)
        )
        shape = (len(self.servers), self.n_bins)
        self._agg: dict[str, FloatArray] = {}
        self._count: dict[str, npt.NDArray[np.int32]] = {}
        fill = 0.0 if how == "mean" else np.nan
        for m in self.metrics:
            self._agg[m] = np.full(shape, fill, dtype=np.float64)
            self._count[m] = np.zeros(shape, dtype=np.int32)
        self.lo = np.full(len(self.servers), np.iinfo(np.int64).max, dtype=np.int64)
        self.hi = np.full(len(self.servers), np.iinfo(np.int64).min, dtype=np.int64)
        self.seen: set[str] = set()

    def add(
        self,
        server: str,
        metric: str,
        bins: Int64Array,
        agg: FloatArray,
        count: npt.NDArray[np.integer[Any]],
    ) -> None:
        """Add one server's binned samples of one metric (``bins`` unique).

        ``agg`` holds sums (``mean``) or maxima (``max``), ``count`` the samples
        behind each; a step listed with a zero count is a sample without a
        value (it still counts for the span, as a NaN row does in :func:`align`).
        """
        if len(bins) == 0:
            return
        r = self.row[server]
        cols = np.asarray(bins, dtype=np.int64) - self.first_bin
        if cols[0] < 0 or cols[-1] >= self.n_bins:
            raise ValueError(
                f"series of {server} ({metric}) fall outside the grid given up front"
            )
        self.lo[r] = min(self.lo[r], int(bins[0]))
        self.hi[r] = max(self.hi[r], int(bins[-1]))
        self.seen.add(metric)
        row_agg = self._agg[metric][r]
        if self.how == "mean":
            row_agg[cols] += agg
        else:
            row_agg[cols] = np.fmax(row_agg[cols], agg)
        self._count[metric][r, cols] += np.asarray(count, dtype=np.int32)

    def add_cells(
        self,
        metric: str,
        rows: npt.NDArray[np.integer[Any]],
        bins: Int64Array,
        agg: FloatArray,
        count: npt.NDArray[np.integer[Any]],
    ) -> None:
        """Add binned samples of one metric for many servers at once.

        ``rows`` index :attr:`servers`; the (row, bin) pairs must be unique.
        """
        if len(bins) == 0:
            return
        rows = np.asarray(rows, dtype=np.intp)
        cols = np.asarray(bins, dtype=np.int64) - self.first_bin
        if cols.min() < 0 or cols.max() >= self.n_bins:
            raise ValueError(
                f"series ({metric}) fall outside the grid given up front"
            )
        np.minimum.at(self.lo, rows, bins)
        np.maximum.at(self.hi, rows, bins)
        self.seen.add(metric)
        mat = self._agg[metric]
        if self.how == "mean":
            mat[rows, cols] += agg
        else:
            mat[rows, cols] = np.fmax(mat[rows, cols], agg)
        self._count[metric][rows, cols] += np.asarray(count, dtype=np.int32)

    def add_block(
        self, server: str, metrics: Sequence[str], ts_ns: Int64Array, block: FloatArray
    ) -> None:
        """Add one server's samples: sorted times and one row per metric (NaN = none)."""
        if len(ts_ns) == 0:
            return
        bins, agg, count = bin_block(ts_ns, block, self.step_ns, self.how)
        for k, m in enumerate(metrics):
            has = count[k] > 0
            if has.all():
                self.add(server, m, bins, agg[k], count[k])
            elif has.any():
                self.add(server, m, bins[has], agg[k][has], count[k][has])

    def finish(
        self, *, fill: str = "none", max_fill: int = 2, clip: str = "none"
    ) -> AlignedSeries:
        """The aligned series, as :func:`~vsizer.series.align.align` gives them.

        Raises
        ------
        ValueError
            No sample was added ("align got no samples"), or ``clip="overlap"``
            when the servers share no window.
        """
        check_param("fill", fill, OneOf(("none", "ffill")), "align")
        check_param("max_fill", max_fill, Interval(int, 0, None), "align")
        check_param("clip", clip, OneOf(("none", "overlap")), "align")
        keep = np.flatnonzero(self.lo <= self.hi)
        if len(keep) == 0:
            raise ValueError("align got no samples")
        lo, hi = self.lo[keep], self.hi[keep]
        start, end = int(lo.min()), int(hi.max())
        latest_start, earliest_end = int(lo.max()), int(hi.min())
        overlap_bins = (
            (latest_start, earliest_end) if latest_start <= earliest_end else None
        )
        if clip == "overlap":
            if overlap_bins is None:
                raise ValueError(
                    "the servers' series share no common window; cannot clip to overlap"
                )
            start, end = overlap_bins
        step_td = pd.Timedelta(self.step_ns, unit="ns")
        index = pd.date_range(
            self._when(start), self._when(end), freq=step_td, tz="UTC"
        )
        overlap = (
            (self._when(overlap_bins[0]), self._when(overlap_bins[1]))
            if overlap_bins
            else None
        )
        report = align_report(
            pd.Timedelta(self.step_ns, unit="ns"), self.how, fill, max_fill, clip, index,
            overlap,
        )
        values = self._matrices(keep, start, end, fill, max_fill, report)
        units = {m: self.units[m] for m in sorted(self.seen) if m in self.units}
        return AlignedSeries(
            [self.servers[i] for i in keep], index, values, units, step_td,
            overlap, report,
        )  # fmt: skip

    def _when(self, step_number: int) -> pd.Timestamp:
        return pd.Timestamp(step_number * self.step_ns, unit="ns", tz="UTC")

    def _matrices(
        self,
        keep: npt.NDArray[np.intp],
        start: int,
        end: int,
        fill: str,
        max_fill: int,
        report: dict[str, Any],
    ) -> dict[str, npt.NDArray[np.floating[Any]]]:
        """Each metric's finished matrix (the accumulators are freed one by one)."""
        values: dict[str, npt.NDArray[np.floating[Any]]] = {}
        c0, c1 = start - self.first_bin, end - self.first_bin + 1
        all_rows = len(keep) == len(self.servers)
        for m in sorted(self.seen):
            agg, count = self._agg.pop(m), self._count.pop(m)
            if self.how == "mean":
                with np.errstate(invalid="ignore", divide="ignore"):
                    np.divide(agg, count, out=agg)
            agg[count == 0] = np.nan
            del count
            if all_rows and c0 == 0 and c1 == agg.shape[1]:
                mat = agg.astype(self.dtype, copy=False)
            else:
                sub = agg[:, c0:c1] if all_rows else agg[keep, c0:c1]
                mat = np.ascontiguousarray(sub, dtype=self.dtype)
            del agg
            filled = 0
            if fill == "ffill" and max_fill > 0:
                mat, filled = _ffill_limited(mat, max_fill)
            values[m] = mat
            report["gaps"][m] = int(np.isnan(mat).sum())
            report["filled"][m] = int(filled)
        self._agg.clear()
        self._count.clear()
        return values
