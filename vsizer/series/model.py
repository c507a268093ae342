"""The tidy utilization series every series reader returns.

One row per (server, timestamp, metric): columns ``server`` (string),
``timestamp`` (datetime64[ns, UTC]), ``metric`` (one of :data:`METRICS`),
``value`` (float64, in the metric's canonical unit) and ``unit`` (string, the
canonical unit). Readers convert once; nothing downstream guesses units.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

import pandas as pd

#: Canonical metric names and units (docs/nomenclature.md).
METRICS: dict[str, str] = {
    "cpu_util": "fraction",  # CPU busy share of the server's capacity (0.35 = 35 %)
    "cpu_mhz": "MHz",  # CPU used, where a trace gives it in MHz (Bitbrains)
    "cpu_capacity_mhz": "MHz",  # provisioned CPU, where a trace gives it (Bitbrains)
    "mem_used_gib": "GiB",
    "mem_util": "fraction",
    "mem_capacity_gib": "GiB",
    "disk_iops": "IOPS",
    "disk_mb_s": "MB/s",
    "net_mbps": "Mbit/s",
}

SERIES_COLUMNS: tuple[str, ...] = ("server", "timestamp", "metric", "value", "unit")


@dataclass
class SeriesQuality:
    """What a reader found wrong or guessed, per server (and file-level notes).

    ``issues`` rows: server, kind (gap, duplicate, clipped, unit_guess,
    restart, offline, dropped), count, detail.
    """

    issues: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, server: str, kind: str, count: int, detail: str) -> None:
        self.issues.append(
            {"server": server, "kind": kind, "count": int(count), "detail": detail}
        )

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame(self.issues, columns=["server", "kind", "count", "detail"])


class ColumnarSource(Protocol):
    """Samples held column-wise (per server, or in store parts) that align
    without a tidy frame of every sample (:mod:`vsizer.series.columnar`)."""

    def align(
        self, *, step: Any = "5min", how: str = "mean", fill: str = "none",
        max_fill: int = 2, clip: str = "none", dtype: Any = None,
    ) -> Any:  # fmt: skip
        """The :class:`~vsizer.series.align.AlignedSeries` ``align(tidy(), ...)`` gives."""

    def step_notes(self, step: Any) -> list[str]:
        """What :func:`~vsizer.series.align.step_mismatch_notes` says of ``tidy()``."""

    def tidy(self) -> pd.DataFrame:
        """Every sample as tidy rows (:data:`SERIES_COLUMNS`, contract order)."""


class SeriesSet:
    """Series read from one or more files.

    Attributes
    ----------
    data : DataFrame
        Tidy rows, columns :data:`SERIES_COLUMNS`, sorted by server, metric, timestamp.
        When the reader delivered ``columns``, built on first access (and kept):
        the plan path never asks for it.
    quality : SeriesQuality
    source : str
        File or folder as given.
    source_format : str
        'sar', 'perfmon', 'prometheus', 'long', 'wide', 'planetlab', 'bitbrains', 'alibaba', 'gcd', 'azure'.
    metadata : dict
        Reader-specific facts (host name in the file, time-zone bias, interval...).
    columns : ColumnarSource or None
        The same samples column-wise (Bitbrains, PlanetLab, a series store):
        :func:`vsizer.study.series_match.align_for_plan` aligns them without a
        tidy frame.
    """

    def __init__(
        self,
        data: pd.DataFrame | None,
        quality: SeriesQuality,
        source: str,
        source_format: str,
        metadata: dict[str, Any] | None = None,
        *,
        columns: ColumnarSource | None = None,
    ) -> None:
        self._data = data
        self.quality = quality
        self.source = source
        self.source_format = source_format
        self.metadata: dict[str, Any] = {} if metadata is None else metadata
        self.columns = columns

    @property
    def data(self) -> pd.DataFrame:
        if self._data is None:
            self._data = empty_series() if self.columns is None else self.columns.tidy()
        return self._data

    @data.setter
    def data(self, value: pd.DataFrame) -> None:
        self._data = value
        self.columns = None

    def __repr__(self) -> str:
        held = "columns" if self._data is None else f"{len(self._data)} rows"
        return (
            f"SeriesSet(source={self.source!r}, source_format={self.source_format!r}, "
            f"{held})"
        )


def empty_series() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "server": pd.Series([], dtype="string"),
            "timestamp": pd.Series([], dtype="datetime64[ns, UTC]"),
            "metric": pd.Series([], dtype="string"),
            "value": pd.Series([], dtype="float64"),
            "unit": pd.Series([], dtype="string"),
        }
    )
