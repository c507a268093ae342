"""Helpers shared by the Prometheus, generic CSV and public-trace readers.

Private: the tidy-frame builder (dtypes and order of :mod:`vsizer.series.model`),
the problem collector that raises one :class:`~vsizer.errors.SeriesError` (an
:class:`~vsizer.errors.InputError`), the timestamp parser of the CSV readers
(one time at a time is :func:`vsizer._textio.utc_ns`), unit
factors, the percent-or-fraction rule and the gap check every reader applies.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import tzinfo
from pathlib import Path
from typing import Any, NoReturn

import numpy as np
import numpy.typing as npt
import pandas as pd

from vsizer.errors import MAX_LINES_PER_KIND, Kind, SeriesError, more_like_it
from vsizer.series.model import METRICS, SeriesQuality, empty_series
from vsizer.units import (
    clock_to_mhz,
    memory_to_gib,
    rate_to_mb_s,
    rate_to_mbps,
)

#: Plain numbers below this (2000-01-01 as Unix seconds) are not read as Unix time.
UNIX_FLOOR_S = 946_684_800

#: A step longer than this multiple of the server's median step is a gap.
GAP_FACTOR = 1.5

_NS_PER_S = 1_000_000_000
# Largest magnitude of a time in ns that int64 holds (with rounding margin).
_MAX_NS = 9.2e18

Int64Array = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


def file_label(path: str | os.PathLike[str]) -> str:
    """How a file is named in problem lines: its name, as the inventory readers do
    (a folder given as '.' or '' by its own name)."""
    p = Path(path)
    return p.name or p.resolve().name or str(p)


def _shown(got: Any) -> str:
    text = "" if got is None else str(got)
    return text if len(text) <= 60 else text[:57] + "..."


class Problems:
    """Problems of one or more files; :meth:`raise_if_any` raises them at once.

    Lines follow the house template
    ``{file} line {n}, column '{c}': expected {what}, got '{value}'.``
    (column left out where the format has none). Of each kind (same column and
    expected-what, or same whole-file text; :func:`~vsizer.errors.problem_kind`)
    the first :data:`~vsizer.errors.MAX_LINES_PER_KIND` lines are kept and the
    rest counted in one "… and N more like it" line, so a folder of 1,600 bad
    files costs 21 lines, not 460,800. :meth:`hint` lines come last.
    """

    def __init__(self) -> None:
        self._lines: list[tuple[Kind, str]] = []
        self._count: dict[Kind, int] = {}
        self._files: dict[Kind, set[str]] = {}
        self._hints: list[str] = []

    def __bool__(self) -> bool:
        return bool(self._count)

    def _keep(self, kind: Kind, file: str, make_line: Callable[[], str]) -> None:
        n = self._count.get(kind, 0) + 1
        self._count[kind] = n
        self._files.setdefault(kind, set()).add(file)
        if n <= MAX_LINES_PER_KIND:
            self._lines.append((kind, make_line()))

    def cell(
        self,
        file: str,
        line: int,
        expected: str,
        got: Any,
        *,
        column: str | None = None,
        unit: str = "line",
    ) -> None:
        def make() -> str:
            where = f"{file} {unit} {line}" + (
                "" if column is None else f", column '{column}'"
            )
            return f"{where}: expected {expected}, got '{_shown(got)}'."

        self._keep((column, f"expected {expected}"), file, make)

    def whole(self, file: str, text: str) -> None:
        """A problem of the file as a whole: ``{file}: {text}``."""
        self._keep((None, text), file, lambda: f"{file}: {text}")

    def absorb(self, other: Problems) -> None:
        """Add the problems ``other`` recorded (e.g. in a worker), as if recorded here."""
        for kind, line in other._lines:
            n = self._count.get(kind, 0) + 1
            self._count[kind] = n
            if n <= MAX_LINES_PER_KIND:
                self._lines.append((kind, line))
        for kind, count in other._count.items():
            shown = sum(1 for k, _ in other._lines if k == kind)
            self._count[kind] = self._count.get(kind, 0) + count - shown
            self._files.setdefault(kind, set()).update(other._files.get(kind, set()))
        for text in other._hints:
            self.hint(text)

    def hint(self, text: str) -> None:
        """A line of advice shown after the problems (once; not a problem)."""
        if text not in self._hints:
            self._hints.append(text)

    def count(self, kind: Kind) -> int:
        """How many problems of ``kind`` were recorded."""
        return self._count.get(kind, 0)

    def raise_if_any(self) -> None:
        if self:
            self.raise_all()

    def raise_all(self) -> NoReturn:
        """Raise the problems found (call after recording at least one)."""
        lines: list[str] = []
        first: dict[Kind, str] = {}
        shown: dict[Kind, int] = {}
        for kind, line in self._lines:
            lines.append(line)
            first.setdefault(kind, line)
            shown[kind] = shown.get(kind, 0) + 1
            more = self._count[kind] - shown[kind]
            if shown[kind] == MAX_LINES_PER_KIND and more > 0:
                lines.append(
                    more_like_it(first[kind], kind, more, len(self._files[kind]))
                )
        raise SeriesError(lines + self._hints)


def tidy_frame(
    server: npt.NDArray[Any] | Sequence[str],
    timestamp_ns: Int64Array,
    metric: npt.NDArray[Any] | Sequence[str],
    value: FloatArray,
    *,
    presorted: bool = False,
) -> pd.DataFrame:
    """Tidy rows per :mod:`vsizer.series.model`, sorted by server, metric, timestamp.

    ``timestamp_ns`` is nanoseconds since the Unix epoch (UTC); ``unit`` is
    filled from :data:`METRICS`. With ``presorted`` the caller promises the
    order and the sort is skipped.
    """
    ts = np.asarray(timestamp_ns, dtype=np.int64)
    if len(ts) == 0:
        return empty_series()
    s_codes, s_names = pd.factorize(np.asarray(server, dtype=object), sort=True)
    m_codes, m_names = pd.factorize(np.asarray(metric, dtype=object), sort=True)
    val = np.asarray(value, dtype=np.float64)
    if not presorted:
        order = np.lexsort((ts, m_codes, s_codes))
        s_codes, m_codes, ts, val = (
            s_codes[order],
            m_codes[order],
            ts[order],
            val[order],
        )
    return tidy_from_codes(
        s_codes, [str(x) for x in s_names], m_codes, [str(x) for x in m_names], ts, val
    )


def tidy_from_codes(
    server_code: npt.NDArray[np.integer[Any]],
    servers: Sequence[str],
    metric_code: npt.NDArray[np.integer[Any]],
    metrics: Sequence[str],
    timestamp_ns: Int64Array,
    value: FloatArray,
) -> pd.DataFrame:
    """Tidy rows from integer codes into ``servers`` and ``metrics``, order as given.

    The fast path for large traces (the Bitbrains month has 30 million rows):
    no factorizing or sorting; the caller hands rows in contract order.
    """
    if len(timestamp_ns) == 0:
        return empty_series()
    server_names = np.array(list(servers), dtype=object)
    metric_names = np.array(list(metrics), dtype=object)
    units = np.array([METRICS[m] for m in metrics], dtype=object)
    stamps = pd.DatetimeIndex(
        np.asarray(timestamp_ns, dtype=np.int64).view("datetime64[ns]")
    ).tz_localize("UTC")
    return pd.DataFrame(
        {
            "server": pd.array(server_names[server_code], dtype="string"),
            "timestamp": pd.Series(stamps).astype("datetime64[ns, UTC]"),
            "metric": pd.array(metric_names[metric_code], dtype="string"),
            "value": np.asarray(value, dtype=np.float64),
            "unit": pd.array(units[metric_code], dtype="string"),
        },
        copy=False,
    )


def check_gaps(
    quality: SeriesQuality, server: str, timestamp_ns: Int64Array
) -> float | None:
    """Add a ``gap`` issue for steps longer than 1.5 x the median step.

    ``timestamp_ns`` are the server's sample times, sorted and unique.
    Returns the median step in seconds (``None`` with fewer than two samples).
    """
    if len(timestamp_ns) < 2:
        return None
    steps = np.diff(timestamp_ns)
    median = float(np.median(steps))
    if median <= 0:
        return None
    long = steps > GAP_FACTOR * median
    if long.any():
        n_long = int(long.sum())
        worst = int(np.argmax(steps))
        after = pd.Timestamp(int(timestamp_ns[worst]), unit="ns").strftime(
            "%Y-%m-%dT%H:%M:%SZ"
        )
        quality.add(
            server,
            "gap",
            n_long,
            f"{n_long} step{'s' if n_long > 1 else ''} longer than {GAP_FACTOR:g} x "
            f"the median step ({median / _NS_PER_S:g} s); longest "
            f"{steps[worst] / _NS_PER_S:g} s after {after}",
        )
    return median / _NS_PER_S


def median_step_s(steps_s: list[float]) -> float | None:
    """Median over servers of their median steps, for ``metadata['step_s']``."""
    return float(np.median(steps_s)) if steps_s else None


# ---------------------------------------------------------------- timestamps

_OFFSET_RE = re.compile(r"(?:[zZ]|[+-]\d{2}(?::?\d{2})?)$")
_TIME_EXPECTED = (
    "an ISO 8601 time such as 2024-05-01T10:00:00Z or Unix seconds/milliseconds"
)


def unix_unit(magnitude: float) -> tuple[str, int]:
    """Unix time unit told by the largest absolute value: name and ns per unit.

    Below 1e11 the numbers are seconds (1e11 s is the year 5138), below 1e14
    milliseconds, below 1e17 microseconds, else nanoseconds.
    """
    if magnitude < 1e11:
        return "seconds", _NS_PER_S
    if magnitude < 1e14:
        return "milliseconds", 1_000_000
    if magnitude < 1e17:
        return "microseconds", 1_000
    return "nanoseconds", 1


def parse_timestamps(
    raw: pd.Series,
    *,
    file: str,
    column: str,
    lines: Int64Array,
    problems: Problems,
    notes: list[str],
    tz: tzinfo | None = None,
    groups: Int64Array | None = None,
) -> tuple[Int64Array, npt.NDArray[np.bool_]]:
    """Parse a column of times to ns since the epoch, UTC.

    Local times at a DST change of ``tz``: in the overlap, by order within
    their ``groups`` code (a series), first DST then standard time (noted); in
    the gap, a bad cell naming it (:func:`_in_dst_changes`).

    ISO 8601 texts with an offset are converted to UTC; texts without one are
    read in ``tz`` (``--tz``), else as UTC (noted). A column of plain numbers
    is Unix time, the unit told by magnitude (:func:`unix_unit`, noted); plain
    numbers that as Unix seconds fall before 2000 (a step index, seconds of a
    trace without dates) are refused rather than read as 1970 dates. Bad cells
    are recorded in ``problems`` with their file line from ``lines``.

    Returns the ns values (0 where bad) and the mask of good cells.
    """
    # Times repeat across servers and metrics: parse each distinct text once.
    codes, uniques = pd.factorize(raw.astype(object), use_na_sentinel=False)
    text = pd.Series(uniques, dtype="string").str.strip()
    blank = (text.isna() | (text == "")).to_numpy(dtype=bool)
    numbers = pd.to_numeric(text.where(~blank), errors="coerce")
    is_number = numbers.notna().to_numpy(dtype=bool) & ~blank
    u_ns = np.zeros(len(text), dtype=np.int64)
    u_good = np.zeros(len(text), dtype=bool)
    dst: _DstChanges | None = None
    if bool(is_number.any()) and bool(is_number.sum() == (~blank).sum()):
        vals = numbers.to_numpy(dtype=np.float64, na_value=np.nan)
        finite = np.isfinite(vals) & (np.abs(vals) < _MAX_NS)  # else a bad cell
        top = float(np.max(np.abs(vals[finite]), initial=0.0))
        name, ns_per = unix_unit(top)
        if finite.any() and name == "seconds" and top < UNIX_FLOOR_S:
            problems.whole(
                file,
                f"column '{column}' holds plain numbers up to {top:g} that as Unix "
                "seconds would be dates before 2000; expected ISO 8601 times or Unix "
                "time. For step numbers without dates use --series-format wide with "
                f"--index-column {column} (and --start, --series-step).",
            )
            return np.zeros(len(raw), dtype=np.int64), np.ones(len(raw), dtype=bool)
        finite &= np.abs(vals) < _MAX_NS / ns_per
        u_ns[finite] = np.round(vals[finite] * ns_per).astype(np.int64)
        u_good = finite & ~blank
        note = f"{file}: column '{column}' read as Unix {name} (by magnitude)."
        if u_good.any():
            notes.append(note)
        naive_u = np.zeros(len(text), dtype=bool)
    else:
        u_good, naive_u, dst = _parse_iso(text, blank, u_ns, tz)
    ns = u_ns[codes]
    good = u_good[codes]
    if dst is not None:
        _in_dst_changes(ns, good, codes, dst, groups, text, tz, file, column, lines,
                        problems, notes)  # fmt: skip
    n_naive = int(naive_u[codes].sum())
    if n_naive:
        notes.append(
            f"{file}: {n_naive} times in column '{column}' have no UTC offset; "
            + ("read as UTC." if tz is None else f"read in --tz {tz}.")
        )
    in_gap = dst.gap[codes] if dst is not None else np.zeros(len(codes), dtype=bool)
    for pos in np.flatnonzero(~good & ~in_gap):
        u = codes[pos]
        problems.cell(
            file,
            int(lines[pos]),
            _TIME_EXPECTED,
            "" if blank[u] else text.iloc[u],
            column=column,
        )
    return ns, good


def _parse_iso(
    text: pd.Series, blank: npt.NDArray[np.bool_], u_ns: Int64Array, tz: tzinfo | None
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_], _DstChanges | None]:
    """ISO 8601 texts into ``u_ns``: good cells, naive cells, DST changes met."""
    parsed = pd.to_datetime(
        text.where(~blank), format="ISO8601", utc=True, errors="coerce"
    )
    u_good = parsed.notna().to_numpy(dtype=bool, copy=True)
    if u_good.any():
        u_ns[u_good] = pd.DatetimeIndex(parsed[u_good]).as_unit("ns").asi8
    has_offset = text.fillna("").str.contains(_OFFSET_RE).to_numpy(dtype=bool)
    naive_u = u_good & ~has_offset
    dst = _localize(u_ns, u_good, naive_u, tz) if tz is not None and naive_u.any() else None
    return u_good, naive_u, dst


@dataclass
class _DstChanges:
    """Distinct naive times at a DST change: in the overlap (with their standard
    time reading) and in the gap."""

    ambiguous: npt.NDArray[np.bool_]
    standard_ns: Int64Array
    gap: npt.NDArray[np.bool_]


def _localize(
    ns: Int64Array,
    good: npt.NDArray[np.bool_],
    naive: npt.NDArray[np.bool_],
    tz: tzinfo,
) -> _DstChanges:
    """Re-read the naive times (parsed as UTC wall clock) as wall clock in *tz*.

    Times in a DST overlap get their daylight-saving reading here (and their
    standard one in the result); times in a DST gap become bad cells.
    """
    wall = pd.DatetimeIndex(ns[naive])
    as_dst = wall.tz_localize(tz, ambiguous=np.ones(len(wall), dtype=bool), nonexistent="NaT")
    as_std = wall.tz_localize(tz, ambiguous=np.zeros(len(wall), dtype=bool), nonexistent="NaT")
    ok = np.asarray(as_dst.notna(), dtype=bool)
    dst_ns = np.where(ok, as_dst.as_unit("ns").asi8, 0)
    std_ns = np.where(ok, as_std.as_unit("ns").asi8, 0)
    n = len(ns)
    changes = _DstChanges(np.zeros(n, bool), np.zeros(n, np.int64), np.zeros(n, bool))
    changes.ambiguous[naive] = ok & (dst_ns != std_ns)
    changes.standard_ns[naive] = std_ns
    changes.gap[naive] = ~ok
    good[naive] = ok
    ns[naive] = dst_ns
    return changes


def _in_dst_changes(
    ns: Int64Array,
    good: npt.NDArray[np.bool_],
    codes: Int64Array,
    dst: _DstChanges,
    groups: Int64Array | None,
    text: pd.Series,
    tz: Any,
    file: str,
    column: str,
    lines: Int64Array,
    problems: Problems,
    notes: list[str],
) -> None:
    """Rows at a DST change: overlaps resolved by order (noted), gaps bad cells."""
    zone = str(getattr(tz, "key", tz))
    twice = np.flatnonzero(dst.ambiguous[codes])
    if len(twice):
        key = pd.DataFrame(
            {"g": 0 if groups is None else groups[twice], "c": codes[twice]}
        )
        later = key.groupby(["g", "c"], sort=False).cumcount().to_numpy() > 0
        ns[twice[later]] = dst.standard_ns[codes[twice[later]]]
        first = str(text.iloc[int(codes[twice[0]])])
        notes.append(
            f"{file}: {len(twice)} times in column '{column}' fall in the "
            f"daylight-saving overlap of {zone} (e.g. '{first}'), when the clock "
            "shows an hour twice; each series' first occurrence is read as "
            f"daylight-saving time, the next as standard time ({int(later.sum())} "
            "read as standard time)."
        )
    for pos in np.flatnonzero(dst.gap[codes]):
        shown_text = str(text.iloc[int(codes[pos])])
        day = shown_text[:10]
        problems.cell(
            file,
            int(lines[pos]),
            f"a local time that exists in {zone} (this one is in the "
            f"daylight-saving gap of {zone} on {day})",
            shown_text,
            column=column,
        )
    good[dst.gap[codes]] = False


# ----------------------------------------------------- percent or fraction


#: Utilizations up to 1 + this still read as fractions (float rounding of rates).
FRACTION_TOLERANCE = 1e-6


def ratio_unit_by_values(values: FloatArray) -> str:
    """The file-wide guess for a utilization without unit: all <= 1 -> fraction.

    Values may exceed 1 by :data:`FRACTION_TOLERANCE` (``1.0000000002`` from a
    rate computation is a fraction; it is then clipped to 1 and counted).
    """
    finite = values[np.isfinite(values)]
    if len(finite) == 0 or float(finite.max()) <= 1.0 + FRACTION_TOLERANCE:
        return "fraction"
    return "%"


#: Kind of unit each metric is given in.
KIND_OF_METRIC = {
    "cpu_util": "ratio",
    "mem_util": "ratio",
    "cpu_mhz": "clock",
    "cpu_capacity_mhz": "clock",
    "mem_used_gib": "memory",
    "mem_capacity_gib": "memory",
    "disk_iops": "count",
    "disk_mb_s": "throughput",
    "net_mbps": "network",
}
UNITS_EXPECTED = {
    "ratio": "% or fraction",
    "clock": "Hz, kHz, MHz or GHz",
    "memory": "a memory size unit (B, KB, MB, GB, KiB, MiB, GiB)",
    "count": "IOPS",
    "throughput": "a throughput unit such as MB/s, kB/s or B/s",
    "network": "a network rate unit such as Mbit/s, kbit/s, Gbit/s or MB/s",
}


def unit_factor(metric: str, unit: str) -> float:
    """Multiplier from ``unit`` to the metric's canonical unit; ValueError if unfit."""
    kind = KIND_OF_METRIC[metric]
    if kind == "ratio":
        if unit not in ("%", "fraction"):
            raise ValueError(unit)
        return 0.01 if unit == "%" else 1.0
    if kind == "clock":
        return clock_to_mhz(1.0, unit)
    if kind == "memory":
        return memory_to_gib(1.0, unit)
    if kind == "count":
        if unit != "count":
            raise ValueError(unit)
        return 1.0
    if kind == "throughput":
        return rate_to_mb_s(1.0, unit)
    return rate_to_mbps(1.0, unit)
