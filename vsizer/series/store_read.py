"""Reading a series store: the filters, the parts and the open journals into one frame.

:meth:`vsizer.series.store.SeriesStore.read` states *what* to read
(:class:`StoreQuery`); this module reads the parts (Parquet, filtered while
reading) and the collector's open journals (filtered after reading), merges
their quality reports and reports samples stored twice.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from vsizer.errors import ConfigError, SeriesError
from vsizer.series._journal import read_journal
from vsizer.series.model import METRICS, SERIES_COLUMNS, SeriesQuality, empty_series
from vsizer.series.store_parts import PartInfo, first_line

__all__ = [
    "Gathered",
    "StoreQuery",
    "concat_frames",
    "read_journals",
    "read_parts",
    "report_duplicates",
]


@dataclass(frozen=True)
class StoreQuery:
    """What to read: servers, metrics (None: all) and ``start <= timestamp < end``."""

    servers: list[str] | None
    metrics: list[str] | None
    start: pd.Timestamp | None
    end: pd.Timestamp | None

    @classmethod
    def of(
        cls,
        servers: Iterable[str] | None,
        metrics: Iterable[str] | None,
        start: Any,
        end: Any,
    ) -> StoreQuery:
        """The query of :meth:`SeriesStore.read`'s arguments (naive times are UTC).

        Raises
        ------
        ConfigError
            An unknown metric or a time that cannot be parsed.
        """
        server_list = None if servers is None else [str(s) for s in servers]
        metric_list = None if metrics is None else [str(m) for m in metrics]
        for m in metric_list or []:
            if m not in METRICS:
                raise ConfigError(
                    f"The 'metrics' parameter of SeriesStore.read must name metrics "
                    f"among {', '.join(METRICS)}. Got {m!r} instead."
                )
        return cls(
            server_list,
            metric_list,
            _parse_when(start, "start"),
            _parse_when(end, "end"),
        )

    def parquet_filter(self) -> Any:
        """The query as a pyarrow filter expression (None: keep every row)."""
        import pyarrow.compute as pc

        conds = []
        if self.servers is not None:
            conds.append(pc.field("server").isin(self.servers))
        if self.metrics is not None:
            conds.append(pc.field("metric").isin(self.metrics))
        if self.start is not None:
            conds.append(pc.field("timestamp") >= self.start.to_pydatetime())
        if self.end is not None:
            conds.append(pc.field("timestamp") < self.end.to_pydatetime())
        expr = None
        for c in conds:
            expr = c if expr is None else expr & c
        return expr

    def mask(self, df: pd.DataFrame) -> np.ndarray:
        """Rows of a tidy frame the query keeps."""
        mask = np.ones(len(df), dtype=bool)
        if self.servers is not None:
            mask &= df["server"].isin(self.servers).to_numpy()
        if self.metrics is not None:
            mask &= df["metric"].isin(self.metrics).to_numpy()
        if self.start is not None:
            mask &= (df["timestamp"] >= self.start).to_numpy()
        if self.end is not None:
            mask &= (df["timestamp"] < self.end).to_numpy()
        return mask


@dataclass
class Gathered:
    """What the parts and journals read so far gave.

    Attributes
    ----------
    frames, labels : list
        Rows of each part or journal and its name (``parts/...``, ``journal/...``).
    quality : SeriesQuality
        Their quality reports (issues of the servers read).
    sources : list of dict
        One entry per part: ``part``, ``source``, ``format`` (and ``machines``).
    live : list of str
        Names of the open journals read.
    problems : list of str
        Damaged parts and journals (raised together by the caller).
    """

    frames: list[pd.DataFrame] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    quality: SeriesQuality = field(default_factory=SeriesQuality)
    sources: list[dict[str, Any]] = field(default_factory=list)
    live: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def read_parts(
    entries: Sequence[tuple[Path, PartInfo]], query: StoreQuery, into: Gathered
) -> None:
    """Read the rows of each part the query keeps (filtered by pyarrow)."""
    import pyarrow.parquet as pq

    expr = query.parquet_filter()
    for path, info in entries:
        try:
            table = pq.read_table(path, filters=expr)
        except (OSError, ValueError) as exc:
            into.problems.append(
                f"{path}: not a readable Parquet part ({first_line(exc)})"
            )
            continue
        into.frames.append(table.to_pandas())
        into.labels.append(f"parts/{info.name}")
        merge_quality(into.quality, info.quality, query.servers)
        into.sources.append(source_entry(info, query.servers))


def source_entry(info: PartInfo, servers: list[str] | None) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "part": info.name,
        "source": info.source,
        "format": info.source_format,
    }
    machines = {
        k: v for k, v in info.machines.items() if servers is None or k in servers
    }
    if machines:
        entry["machines"] = machines
    return entry


def live_entries(
    entries: Sequence[tuple[Path, PartInfo]],
) -> list[tuple[Path, PartInfo]]:
    """The parts to read: those not merged into a compacted part that lists them
    (a compaction interrupted before removing them, docs/series-store.md)."""
    merged = {n for _, info in entries for n in info.compacted_from}
    return [(p, info) for p, info in entries if info.name not in merged]


def read_journals(journals: Sequence[Path], query: StoreQuery, into: Gathered) -> None:
    """Read the open journals; one sealed (and removed) meanwhile is skipped."""
    for path in journals:
        try:
            contents = read_journal(path, label=f"journal/{path.name}")
        except FileNotFoundError:
            continue  # sealed meanwhile; its part was listed after
        except SeriesError as exc:
            into.problems.extend(exc.problems)
            continue
        df = contents.series.data
        into.frames.append(df[query.mask(df)])
        into.labels.append(f"journal/{path.name}")
        merge_quality(into.quality, contents.series.quality, query.servers)
        into.live.append(path.name)


def _parse_when(value: Any, name: str) -> pd.Timestamp | None:
    if value is None:
        return None
    try:
        ts = pd.Timestamp(value)
    except (ValueError, TypeError):
        raise ConfigError(
            f"The '{name}' parameter of SeriesStore.read must be a time such as "
            f"2024-05-01T00:00Z. Got {value!r} instead."
        ) from None
    return ts.tz_localize("UTC") if ts.tzinfo is None else ts.tz_convert("UTC")


def concat_frames(frames: Sequence[pd.DataFrame]) -> pd.DataFrame:
    frames = [f for f in frames if len(f)]
    if not frames:
        return empty_series()
    data = pd.concat(frames, ignore_index=True)
    data = data.astype(
        {
            "server": "string",
            "metric": "string",
            "unit": "string",
            "value": "float64",
            "timestamp": "datetime64[ns, UTC]",
        }
    )
    return data.sort_values(
        ["server", "metric", "timestamp"], kind="mergesort"
    ).reset_index(drop=True)[list(SERIES_COLUMNS)]


def report_duplicates(
    data: pd.DataFrame,
    frames: Sequence[pd.DataFrame],
    labels: Sequence[str],
    quality: SeriesQuality,
) -> None:
    """Add a ``duplicate`` issue per server and metric sampled twice at one time
    by different parts/journals (rows are kept)."""
    if len([f for f in frames if len(f)]) < 2 or data.empty:
        return
    keys = ["server", "metric", "timestamp"]
    origin = pd.concat(
        [f[keys].assign(_origin=i) for i, f in enumerate(frames) if len(f)],
        ignore_index=True,
    )
    dup = origin[origin.duplicated(keys, keep=False)]
    if dup.empty:
        return
    per_time = dup.groupby(keys, sort=True)["_origin"].agg(["nunique", "min", "max"])
    per_time = per_time[per_time["nunique"] > 1].reset_index()
    for (server, metric), g in per_time.groupby(["server", "metric"], sort=True):
        origins = sorted(set(g["min"]).union(g["max"]))
        names = ", ".join(labels[i] for i in origins[:3])
        more = f" and {len(origins) - 3} more" if len(origins) > 3 else ""
        quality.add(
            str(server),
            "duplicate",
            len(g),
            f"{len(g)} {metric} sample time(s) stored more than once (in {names}{more}); "
            "all rows kept",
        )


def merge_quality(
    into: SeriesQuality, part: SeriesQuality, servers: list[str] | None
) -> None:
    for issue in part.issues:
        if servers is None or not issue.get("server") or issue["server"] in servers:
            into.issues.append(dict(issue))
    for note in part.notes:
        into.note(note)
