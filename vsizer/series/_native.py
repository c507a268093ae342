"""Helpers shared by the operating-system readers (sysstat, perfmon).

Private to :mod:`vsizer.series`: the tidy-frame builder (clipping, repeated
times, gaps, the dtypes and order of :mod:`vsizer.series.model`), the problem
collector that raises one :class:`~vsizer.errors.SeriesError`, and the
time-zone parameter and abbreviations.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import numpy as np
import pandas as pd

from vsizer.errors import SeriesError
from vsizer.series._tidy import check_gaps
from vsizer.series.model import METRICS, SeriesQuality, empty_series

#: Time-zone abbreviations (``sadf -t``, ``sadf -j`` "tz") whose UTC offset is
#: unambiguous [h].
TZ_ABBREVIATIONS: dict[str, float] = {
    "UTC": 0, "GMT": 0, "Z": 0, "WET": 0, "WEST": 1, "CET": 1, "CEST": 2,
    "MET": 1, "MEST": 2, "EET": 2, "EEST": 3, "MSK": 3, "JST": 9, "KST": 9,
    "HKT": 8, "SGT": 8, "AEST": 10, "AEDT": 11, "NZST": 12, "NZDT": 13,
    "EST": -5, "EDT": -4, "CDT": -5, "MST": -7, "MDT": -6, "PST": -8, "PDT": -7,
    "AKST": -9, "AKDT": -8, "HST": -10,
}  # fmt: skip

_OFFSET_RE = re.compile(r"^(?:UTC|GMT)?([+-])(\d{1,2}):?(\d{2})?$")


class Problems:
    """Problem lines of one file, raised at once as a :class:`SeriesError`.

    Lines read ``{where}: expected {what}, got '{value}'.``, listed in the
    order given by ``order`` (else as found); of each kind the first
    :data:`~vsizer.errors.MAX_LINES_PER_KIND` are shown, then "… and N more
    like it" (:func:`~vsizer.errors.cap_problems`).
    """

    def __init__(self, label: str) -> None:
        self.label = label
        self._found: list[tuple[tuple[int, ...], int, str]] = []

    def __bool__(self) -> bool:
        return bool(self._found)

    def bad(
        self, where: str, expected: str, got: Any, order: tuple[int, ...] = ()
    ) -> None:
        line = f"{where}: expected {expected}, got '{shown(got)}'."
        self._found.append((order, len(self._found), line))

    @property
    def lines(self) -> list[str]:
        return [line for _, _, line in sorted(self._found)]

    def raise_if_any(self) -> None:
        if not self._found:
            return
        raise SeriesError(self.lines)  # capped per kind by InputError


def zone_offset(zone: str) -> timedelta | None:
    """UTC offset of ``JST``, ``UTC``, ``+0900``, ``+09:00`` or ``GMT-5``; else None."""
    if zone in TZ_ABBREVIATIONS:
        return timedelta(hours=TZ_ABBREVIATIONS[zone])
    m = _OFFSET_RE.match(zone)
    if m:
        minutes = int(m.group(2)) * 60 + int(m.group(3) or 0)
        return timedelta(minutes=minutes if m.group(1) == "+" else -minutes)
    return None


def to_utc(local: datetime, zone: tzinfo) -> datetime:
    """Naive UTC time of a naive wall-clock time in ``zone``.

    A time repeated when clocks go back is read as its first occurrence; a time
    skipped when they go forward is read with the offset before the change.
    """
    aware = local.replace(tzinfo=zone).astimezone(UTC)
    return aware.replace(tzinfo=None)


class Rows:
    """Columns of tidy rows being built (timestamps naive UTC)."""

    def __init__(self) -> None:
        self.server: list[str] = []
        self.timestamp: list[datetime] = []
        self.metric: list[str] = []
        self.value: list[float] = []

    def add(self, server: str, ts: datetime, metric: str, value: float) -> None:
        self.server.append(server)
        self.timestamp.append(ts)
        self.metric.append(metric)
        self.value.append(value)


def tidy(rows: Rows, quality: SeriesQuality) -> pd.DataFrame:
    """Tidy frame: clip to each metric's range, drop repeats, flag gaps, sort.

    Fractions are clipped to [0, 1] and other metrics below at 0 (``clipped``
    issue); a (server, metric, time) read twice keeps its first value
    (``duplicate`` issue, counting times); a step longer than 1.5 x the
    server's median step is a ``gap``.
    """
    if not rows.value:
        return empty_series()
    frame = pd.DataFrame(
        {
            "server": pd.array(rows.server, dtype="string"),
            "timestamp": pd.to_datetime(pd.Series(rows.timestamp), utc=True).astype(
                "datetime64[ns, UTC]"
            ),
            "metric": pd.array(rows.metric, dtype="string"),
            "value": np.asarray(rows.value, dtype=np.float64),
        }
    )
    frame = frame[np.isfinite(frame["value"].to_numpy())]
    dup = frame.duplicated(["server", "metric", "timestamp"], keep="first")
    if dup.any():
        for server, group in frame[dup].groupby("server", sort=True):
            times = group["timestamp"].drop_duplicates().sort_values()
            quality.add(
                str(server),
                "duplicate",
                len(times),
                f"{plural(len(times), 'time')} read twice, the first kept "
                f"(first at {iso(times.iloc[0])})",
            )
        frame = frame[~dup]
    values = frame["value"].to_numpy(copy=True)
    metrics = frame["metric"].to_numpy(dtype=object)
    servers = frame["server"].to_numpy(dtype=object)
    for metric in sorted(set(metrics)):
        is_m = metrics == metric
        high = 1.0 if METRICS[metric] == "fraction" else math.inf
        out = is_m & ((values < 0.0) | (values > high))
        if out.any():
            for server in sorted(set(servers[out])):
                n = int((out & (servers == server)).sum())
                shown = "[0, 1]" if high == 1.0 else "[0, inf)"
                quality.add(
                    str(server),
                    "clipped",
                    n,
                    f"{metric}: {plural(n, 'value')} outside {shown} clipped "
                    f"(min {values[out & (servers == server)].min():g}, "
                    f"max {values[out & (servers == server)].max():g})",
                )
            values[out] = np.clip(values[out], 0.0, high)
    frame = frame.assign(value=values)
    frame["unit"] = pd.array([METRICS[m] for m in metrics], dtype="string")
    frame = frame.sort_values(["server", "metric", "timestamp"], kind="stable")
    frame = frame.reset_index(drop=True)
    for server, group in frame.groupby("server", sort=True):
        flag_gaps(quality, str(server), group["timestamp"])
    return frame[["server", "timestamp", "metric", "value", "unit"]]


def flag_gaps(quality: SeriesQuality, server: str, stamps: pd.Series) -> None:
    """Record a ``gap`` issue for the server's long steps (one rule for every reader)."""
    times = np.unique(stamps.to_numpy(dtype="datetime64[ns]").astype(np.int64))
    check_gaps(quality, server, times)


def median_interval(frame: pd.DataFrame) -> float | None:
    medians = []
    for _, group in frame.groupby("server", sort=True):
        times = np.unique(
            group["timestamp"].to_numpy(dtype="datetime64[ns]").astype(np.int64)
        )
        if len(times) > 1:
            medians.append(float(np.median(np.diff(times))) / 1e9)
    return float(np.median(medians)) if medians else None


def plural(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def iso(ts: datetime | pd.Timestamp) -> str:
    stamp = pd.Timestamp(ts)
    if stamp.tzinfo is not None:
        stamp = stamp.tz_convert("UTC").tz_localize(None)
    return stamp.strftime("%Y-%m-%dT%H:%M:%SZ")


def shown(got: Any) -> str:
    text = "" if got is None else str(got)
    return text if len(text) <= 80 else text[:77] + "..."


def parse_tz_param(tz: str | None, func: str) -> tzinfo | None:
    """The ``tz`` parameter as a tzinfo: IANA name or ``+09:00``-style offset."""
    if tz is None:
        return None
    text = str(tz).strip()
    offset = (
        zone_offset(text)
        if text[:1] in "+-" or text.upper() in ("UTC", "GMT")
        else None
    )
    if offset is not None:
        return timezone(offset)
    try:
        return ZoneInfo(text)
    except (ZoneInfoNotFoundError, ValueError):
        raise SeriesError(
            "--tz must be an IANA time-zone name such as "
            f"'Asia/Tokyo' or a UTC offset such as '+09:00'. Got {tz!r} instead."
        ) from None
