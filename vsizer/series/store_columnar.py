"""A series store read column-wise: parts streamed from Parquet onto the plan's grid.

:meth:`vsizer.series.store.SeriesStore.read` returns a
:class:`~vsizer.series.model.SeriesSet` whose ``columns`` is a
:class:`StoreColumns`: the parts' footers (servers, metrics, time range,
quality) are read at once, the rows only when the plan aligns them. Then each
part is streamed in Parquet batches through ``pyarrow.dataset`` with the query
(servers, metrics, window) pushed down as a filter (row groups outside it are
skipped), and each batch is binned onto the grid (mean: sum and count per step;
max) and added to one dense matrix per metric
(:class:`~vsizer.series.grid.GridAccumulator`). The grid is known up front from
the parts' time ranges. Memory: the matrices plus one batch, never a tidy
frame of the whole store.

Samples stored twice (one server, metric and time in two parts or a part and a
journal) are found from the footers: only servers that two parts share are
read (their keys only) to count them, with the same ``duplicate`` issues as
:func:`~vsizer.series.store_read.report_duplicates` gives.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from vsizer.errors import SeriesError
from vsizer.series.align import AlignedSeries, notes_from_medians
from vsizer.series.grid import GridAccumulator, step_ns_of
from vsizer.series.model import METRICS, SeriesQuality
from vsizer.series.store_parts import PartInfo, first_line
from vsizer.series.store_read import StoreQuery, concat_frames, report_duplicates

__all__ = ["BATCH_ROWS", "StoreColumns", "store_duplicates"]

#: Rows per Parquet batch streamed onto the grid.
BATCH_ROWS = 262_144
_KEYS = ["server", "metric", "timestamp"]


class StoreColumns:
    """The parts (and open journals' rows) a store query keeps, aligned lazily.

    Implements :class:`~vsizer.series.model.ColumnarSource`.
    """

    def __init__(
        self,
        entries: Sequence[tuple[Path, PartInfo]],
        query: StoreQuery,
        journals: Sequence[pd.DataFrame],
    ) -> None:
        self.entries = list(entries)
        self.query = query
        self.journals = [j for j in journals if len(j)]
        self._medians: dict[str, float] | None = None

    # -- what the footers say ------------------------------------------------
    def _servers(self) -> list[str]:
        keep = None if self.query.servers is None else set(self.query.servers)
        names = {s for _, i in self.entries for s in i.servers}
        names.update(str(s) for j in self.journals for s in j["server"].unique())
        return sorted(n for n in names if keep is None or n in keep)

    def _metrics(self) -> list[str]:
        keep = None if self.query.metrics is None else set(self.query.metrics)
        names = {m for _, i in self.entries for m in i.metrics}
        names.update(str(m) for j in self.journals for m in j["metric"].unique())
        return sorted(n for n in names if n in METRICS and (keep is None or n in keep))

    def _span_ns(self) -> tuple[int, int] | None:
        starts = [i.start for _, i in self.entries if i.start is not None and i.rows]
        ends = [i.end for _, i in self.entries if i.end is not None and i.rows]
        for j in self.journals:
            starts.append(j["timestamp"].min())
            ends.append(j["timestamp"].max())
        if not starts:
            return None
        lo = min(pd.Timestamp(t).value for t in starts)
        hi = max(pd.Timestamp(t).value for t in ends)
        if self.query.start is not None:
            lo = max(lo, self.query.start.value)
        if self.query.end is not None:
            hi = min(hi, self.query.end.value - 1)
        return (lo, hi) if lo <= hi else None

    # -- ColumnarSource ------------------------------------------------------
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
        """:func:`~vsizer.series.align.align` of the rows, streamed part by part."""
        step_ns = step_ns_of(step)
        span = self._span_ns()
        servers, metrics = self._servers(), self._metrics()
        if span is None or not servers or not metrics:
            raise ValueError("align got no samples")
        first, last = span[0] // step_ns, span[1] // step_ns
        acc = GridAccumulator(
            servers, metrics, {m: METRICS[m] for m in metrics}, first,
            last - first + 1, step=step, how=how,
            dtype=np.float64 if dtype is None else dtype,
        )  # fmt: skip
        times: dict[str, list[np.ndarray]] = {}
        for batch in self._batches():
            _feed(acc, batch, times)
        self._medians = _medians(times)
        return acc.finish(fill=fill, max_fill=max_fill, clip=clip)

    def step_notes(self, step: Any) -> list[str]:
        """:func:`~vsizer.series.align.step_mismatch_notes` of the rows."""
        if self._medians is None:
            times: dict[str, list[np.ndarray]] = {}
            for batch in self._batches(("server", "timestamp")):
                _note_times(batch, times)
            self._medians = _medians(times)
        grid_s = pd.Timedelta(step).total_seconds()
        return notes_from_medians(pd.Series(self._medians, dtype=float), grid_s)

    def tidy(self) -> pd.DataFrame:
        """Every row the query keeps, as one tidy frame (the whole store in memory)."""
        import pyarrow.parquet as pq

        frames = []
        expr = self.query.parquet_filter()
        for path, _ in self.entries:
            frames.append(_read(lambda p=path: pq.read_table(p, filters=expr), path))
        return concat_frames([f.to_pandas() for f in frames] + self.journals)

    def _batches(self, columns: Sequence[str] = ("server", "timestamp", "metric", "value")) -> Any:
        """(server, metric, timestamp ns, value) arrays per batch: parts, then journals."""
        import pyarrow.dataset as ds

        expr = self.query.parquet_filter()
        for path, _ in self.entries:
            dataset = _read(lambda p=path: ds.dataset(p, format="parquet"), path)
            scanner = dataset.scanner(
                columns=list(columns), filter=expr, batch_size=BATCH_ROWS
            )
            try:
                for b in scanner.to_batches():
                    if b.num_rows:
                        yield _arrays(b, columns)
            except (OSError, ValueError) as exc:
                raise SeriesError(
                    f"{path}: not a readable Parquet part ({first_line(exc)})"
                ) from None
        for j in self.journals:
            yield _frame_arrays(j, columns)


def _read(fn: Any, path: Path) -> Any:
    try:
        return fn()
    except (OSError, ValueError) as exc:
        raise SeriesError(
            f"{path}: not a readable Parquet part ({first_line(exc)})"
        ) from None


def _codes(col: Any) -> tuple[np.ndarray, list[str]]:
    enc = col.dictionary_encode()
    return enc.indices.to_numpy(zero_copy_only=False), [str(x) for x in enc.dictionary.to_pylist()]


def _arrays(batch: Any, columns: Sequence[str]) -> dict[str, Any]:
    import pyarrow as pa

    out: dict[str, Any] = {}
    out["server"] = _codes(batch.column("server"))
    ts = batch.column("timestamp").cast(pa.int64())
    out["timestamp"] = ts.to_numpy(zero_copy_only=False)
    if "metric" in columns:
        out["metric"] = _codes(batch.column("metric"))
        out["value"] = batch.column("value").to_numpy(zero_copy_only=False)
    return out


def _frame_arrays(frame: pd.DataFrame, columns: Sequence[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    codes, names = pd.factorize(frame["server"].astype(str))
    out["server"] = (codes, [str(n) for n in names])
    out["timestamp"] = pd.DatetimeIndex(frame["timestamp"]).asi8
    if "metric" in columns:
        mc, mn = pd.factorize(frame["metric"].astype(str))
        out["metric"] = (mc, [str(n) for n in mn])
        out["value"] = frame["value"].to_numpy(dtype=np.float64)
    return out


def _feed(
    acc: GridAccumulator, arrays: dict[str, Any], times: dict[str, list[np.ndarray]]
) -> None:
    """Bin one batch per (server, metric, step) and add it to the matrices."""
    s_codes, s_names = arrays["server"]
    m_codes, m_names = arrays["metric"]
    bins = np.floor_divide(arrays["timestamp"], acc.step_ns)
    got = _runs(s_codes, m_codes, bins, arrays["value"], acc.how)
    if got is None:  # rows not in part order (a journal), or 3+ samples in a step
        got = _grouped(s_codes, m_codes, bins, arrays["value"], acc.how)
    s, m, b, vals, count = got
    rows = np.array([acc.row.get(n, -1) for n in s_names], dtype=np.intp)[s]
    for mc in np.unique(m):
        sel = (m == mc) & (rows >= 0)
        if sel.any() and m_names[mc] in acc.metrics:
            acc.add_cells(m_names[mc], rows[sel], b[sel], vals[sel], count[sel])
    _note_times(arrays, times)


def _runs(
    s: np.ndarray, m: np.ndarray, b: np.ndarray, v: np.ndarray, how: str
) -> tuple[np.ndarray, ...] | None:
    """Per-step sums (or maxima) and counts of rows sorted by server, metric and
    time (a part's order), by runs; None when not sorted or a step holds 3+
    samples (pandas' compensated sum then gives the exact figure; for 1 or 2
    samples a plain sum is the same number)."""
    n = len(b)
    if n == 0:
        return None
    same_s, same_m = s[1:] == s[:-1], m[1:] == m[:-1]
    ordered = (s[1:] > s[:-1]) | (same_s & ((m[1:] > m[:-1]) | (same_m & (b[1:] >= b[:-1]))))
    if not ordered.all():
        return None
    start = np.ones(n, dtype=bool)
    start[1:] = ~(same_s & same_m & (b[1:] == b[:-1]))
    idx = np.flatnonzero(start)
    sizes = np.diff(np.append(idx, n))
    if sizes.max() > 2:
        return None
    has = ~np.isnan(v)
    count = np.add.reduceat(has.astype(np.int32), idx)
    if how == "mean":
        agg = np.add.reduceat(np.where(has, v, 0.0), idx)
    else:
        agg = np.fmax.reduceat(v, idx)
    return s[idx], m[idx], b[idx].astype(np.int64), agg, count


def _grouped(
    s: np.ndarray, m: np.ndarray, b: np.ndarray, v: np.ndarray, how: str
) -> tuple[np.ndarray, ...]:
    """:func:`_runs` for any row order and step size, by pandas ``groupby``."""
    frame = pd.DataFrame({"s": s, "m": m, "b": b, "v": v})
    grouped = frame.groupby(["s", "m", "b"], sort=True)["v"]
    agg = grouped.sum() if how == "mean" else grouped.max()
    keys = agg.index
    return (
        keys.get_level_values(0).to_numpy(),
        keys.get_level_values(1).to_numpy(),
        keys.get_level_values(2).to_numpy(dtype=np.int64),
        agg.to_numpy(dtype=np.float64),
        grouped.count().to_numpy(),
    )


def _note_times(arrays: dict[str, Any], times: dict[str, list[np.ndarray]]) -> None:
    """Each server's distinct sample times in this batch, for the step notes."""
    s_codes, s_names = arrays["server"]
    ts = arrays["timestamp"]
    order = np.lexsort((ts, s_codes))
    s_sorted, t_sorted = s_codes[order], ts[order]
    cuts = np.flatnonzero(np.diff(s_sorted)) + 1
    for seg_s, seg_t in zip(np.split(s_sorted, cuts), np.split(t_sorted, cuts), strict=True):
        if len(seg_s):
            times.setdefault(s_names[int(seg_s[0])], []).append(np.unique(seg_t))


def _medians(times: dict[str, list[np.ndarray]]) -> dict[str, float]:
    out = {}
    for server, parts in times.items():
        t = np.unique(np.concatenate(parts))
        if len(t) > 1:
            out[server] = float(np.median(np.diff(t) / 1e9))
    return out


def store_duplicates(
    entries: Sequence[tuple[Path, PartInfo]],
    query: StoreQuery,
    journals: Sequence[pd.DataFrame],
    journal_labels: Sequence[str],
    quality: SeriesQuality,
) -> None:
    """Add the ``duplicate`` issues of samples stored in two parts/journals.

    Only servers found (per the footers) in two or more of them are read, and
    only their keys.
    """
    import pyarrow.parquet as pq

    keep = None if query.servers is None else set(query.servers)
    holders: dict[str, int] = {}
    sets = [set(i.servers) for _, i in entries]
    sets += [set(j["server"].astype(str).unique()) for j in journals]
    for names in sets:
        for n in names:
            if keep is None or n in keep:
                holders[n] = holders.get(n, 0) + 1
    shared = sorted(n for n, k in holders.items() if k > 1)
    if not shared:
        return
    sub = StoreQuery(shared, query.metrics, query.start, query.end)
    expr = sub.parquet_filter()
    frames: list[pd.DataFrame] = []
    for (path, _), names in zip(entries, sets, strict=False):
        if names.intersection(shared):
            table = _read(lambda p=path: pq.read_table(p, columns=_KEYS, filters=expr), path)
            frames.append(table.to_pandas())
        else:
            frames.append(pd.DataFrame(columns=_KEYS))
    for j in journals:
        frames.append(j[sub.mask(j)][_KEYS])
    labels = [f"parts/{i.name}" for _, i in entries] + list(journal_labels)
    data = concat_frames([f.assign(value=0.0, unit="") for f in frames if len(f)])
    report_duplicates(data, frames, labels, quality)
