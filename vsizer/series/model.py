"""The tidy utilization series every series reader returns.

One row per (server, timestamp, metric): columns ``server`` (string),
``timestamp`` (datetime64[ns, UTC]), ``metric`` (one of :data:`METRICS`),
``value`` (float64, in the metric's canonical unit) and ``unit`` (string, the
canonical unit). Readers convert once; nothing downstream guesses units.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

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


@dataclass
class SeriesSet:
    """Series read from one or more files.

    Attributes
    ----------
    data : DataFrame
        Tidy rows, columns :data:`SERIES_COLUMNS`, sorted by server, metric, timestamp.
    quality : SeriesQuality
    source : str
        File or folder as given.
    source_format : str
        'sar', 'perfmon', 'prometheus', 'long', 'wide', 'planetlab', 'bitbrains', 'alibaba', 'gcd', 'azure'.
    metadata : dict
        Reader-specific facts (host name in the file, time-zone bias, interval...).
    """

    data: pd.DataFrame
    quality: SeriesQuality
    source: str
    source_format: str
    metadata: dict[str, Any] = field(default_factory=dict)


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
