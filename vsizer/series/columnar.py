"""Series held column-wise, one block per server: what the trace readers deliver.

A reader that reads one file per server (Bitbrains, PlanetLab) keeps, per
server, its sorted sample times and one float64 row per metric
(:class:`ServerSamples`): the raw numbers, 8 bytes per value plus 8 per time,
instead of a tidy frame of five columns per value (the Bitbrains month: 30 M
tidy rows, 1.65 GiB, against 0.28 GiB here). :meth:`SampleColumns.align` bins
each server onto the grid in turn (:class:`~vsizer.series.grid.GridAccumulator`),
giving the same :class:`~vsizer.series.align.AlignedSeries` as
``align(columns.tidy(), ...)``; the tidy frame is built only when asked for
(``SeriesSet.data``: import into a store, ``series show``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from vsizer.series.align import AlignedSeries, notes_from_medians
from vsizer.series.grid import GridAccumulator, step_ns_of
from vsizer.series.model import METRICS, empty_series

__all__ = ["SampleColumns", "ServerSamples", "merge_columns"]

FloatArray = npt.NDArray[np.float64]
Int64Array = npt.NDArray[np.int64]


@dataclass
class ServerSamples:
    """One server's samples: times and one row per metric.

    Attributes
    ----------
    server : str
    ts : int64 array (n,)
        Sample times [ns since the epoch, UTC], ascending.
    metrics : tuple of str
        Row names of ``block``.
    block : float64 array (len(metrics), n)
        Values in the metrics' canonical units; NaN = no sample of that metric
        at that time (no tidy row).
    """

    server: str
    ts: Int64Array
    metrics: tuple[str, ...]
    block: FloatArray

    def times(self) -> Int64Array:
        """Times at which some metric has a sample."""
        if self.block.size and np.isnan(self.block).any():
            return self.ts[~np.isnan(self.block).all(axis=0)]
        return self.ts


class SampleColumns:
    """Samples of several servers, one :class:`ServerSamples` each (names unique).

    Implements :class:`~vsizer.series.model.ColumnarSource`.
    """

    def __init__(self, samples: Sequence[ServerSamples]) -> None:
        self.samples = sorted(samples, key=lambda s: s.server)
        names = [s.server for s in self.samples]
        if len(set(names)) != len(names):
            raise ValueError("SampleColumns: a server appears twice")

    @property
    def servers(self) -> list[str]:
        return [s.server for s in self.samples]

    @property
    def rows(self) -> int:
        """Tidy rows these samples make (values that are not NaN)."""
        return int(sum(np.count_nonzero(~np.isnan(s.block)) for s in self.samples))

    def metrics(self) -> list[str]:
        """Metrics with at least one sample, sorted."""
        seen = set()
        for s in self.samples:
            for k, m in enumerate(s.metrics):
                if m not in seen and not np.isnan(s.block[k]).all():
                    seen.add(m)
        return sorted(seen)

    def align(
        self,
        *,
        step: Any = "5min",
        how: str = "mean",
        fill: str = "none",
        max_fill: int = 2,
        clip: str = "none",
        dtype: Any = None,
    ) -> AlignedSeries:
        """:func:`~vsizer.series.align.align` of these samples, built server by server.

        ``dtype`` of the matrices: float64 (default, the numbers of the tidy
        path bit for bit) or float32.
        """
        step_ns = step_ns_of(step)
        spans = [
            (int(t[0]) // step_ns, int(t[-1]) // step_ns)
            for t in (s.times() for s in self.samples)
            if len(t)
        ]
        if not spans:
            raise ValueError("align got no samples")
        first = min(a for a, _ in spans)
        last = max(b for _, b in spans)
        metrics = self.metrics()
        acc = GridAccumulator(
            self.servers, metrics, {m: METRICS[m] for m in metrics}, first,
            last - first + 1, step=step, how=how,
            dtype=np.float64 if dtype is None else dtype,
        )  # fmt: skip
        for s in self.samples:
            acc.add_block(s.server, s.metrics, s.ts, s.block)
        return acc.finish(fill=fill, max_fill=max_fill, clip=clip)

    def step_notes(self, step: Any) -> list[str]:
        """:func:`~vsizer.series.align.step_mismatch_notes` of these samples."""
        grid_s = pd.Timedelta(step).total_seconds()
        medians = {}
        for s in self.samples:
            t = np.unique(s.times())
            if len(t) > 1:
                medians[s.server] = float(np.median(np.diff(t))) / 1e9
        return notes_from_medians(pd.Series(medians, dtype=float), grid_s)

    def tidy(self) -> pd.DataFrame:
        """Tidy rows sorted by server, metric, timestamp (NaN values left out)."""
        from vsizer.series._tidy import tidy_from_codes

        metric_names = sorted({m for s in self.samples for m in s.metrics})
        m_code = {m: i for i, m in enumerate(metric_names)}
        codes, mcodes, stamps, vals = [], [], [], []
        for i, s in enumerate(self.samples):
            for k in sorted(range(len(s.metrics)), key=lambda k: s.metrics[k]):
                has = ~np.isnan(s.block[k])
                n = int(has.sum())
                if not n:
                    continue
                codes.append(np.full(n, i, dtype=np.int64))
                mcodes.append(np.full(n, m_code[s.metrics[k]], dtype=np.int64))
                stamps.append(s.ts[has])
                vals.append(s.block[k][has])
        if not stamps:
            return empty_series()
        return tidy_from_codes(
            np.concatenate(codes), self.servers, np.concatenate(mcodes),
            metric_names, np.concatenate(stamps), np.concatenate(vals),
        )  # fmt: skip


def merge_columns(parts: Sequence[SampleColumns]) -> SampleColumns | None:
    """One :class:`SampleColumns` of several, or None when a server is in two
    (the tidy path then reports the samples found twice)."""
    samples = [s for p in parts for s in p.samples]
    if len({s.server for s in samples}) != len(samples):
        return None
    return SampleColumns(samples)
