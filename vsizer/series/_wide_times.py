"""The time column of a wide CSV: dates, a step index, or seconds after a start.

The rules are those of :mod:`vsizer.series.wide` (its module docstring): a
column of whole numbers is a step index when ``--index-column`` names it,
when its header is one of :data:`INDEX_ALIASES`, or when the numbers rise by
exactly 1 and as Unix seconds would be dates before 2000; other plain numbers
before 2000 are seconds after ``--start``; anything else is read as dates.
"""

from __future__ import annotations

from datetime import tzinfo
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from vsizer.errors import ConfigError
from vsizer.series._csv_names import COLUMN_ALIASES, fold
from vsizer.series._tidy import (
    UNIX_FLOOR_S,
    FloatArray,
    Int64Array,
    Problems,
    parse_timestamps,
)

__all__ = [
    "DEFAULT_INDEX_START",
    "DEFAULT_INDEX_STEP_S",
    "INDEX_ALIASES",
    "read_times",
    "time_column",
]

#: Headers (folded: casefold, spaces and '-' as '_') of a step-index column.
INDEX_ALIASES: tuple[str, ...] = (
    "step", "steps", "index", "idx", "t", "time_step", "timestep", "step_index",
    "interval", "interval_no", "sample", "sample_no", "no", "n", "#", "番号",
)  # fmt: skip

#: Start put on step-index files without ``--start``: an arbitrary fixed date
#: (a Monday, so weekday patterns of a trace that starts on a Monday line up),
#: chosen far from 1970 so that it is never mistaken for Unix time zero.
DEFAULT_INDEX_START = "2000-01-03T00:00:00Z"

#: Step of step-index files without ``--series-step`` [s] (the default plan grid).
DEFAULT_INDEX_STEP_S = 300.0

_NS_PER_S = 1_000_000_000


def time_column(
    header: list[str],
    file: str,
    timestamp_col: str | None,
    index_column: str | None,
    problems: Problems,
    notes: list[str],
) -> int:
    """Position of the time (or index) column."""
    named = index_column if index_column is not None else timestamp_col
    if named is not None:
        if named not in header:
            flag = "--index-column" if index_column is not None else "time column"
            problems.whole(
                file,
                f"expected a {flag} '{named}', got "
                f"{', '.join(repr(h) for h in header)}.",
            )
            problems.raise_if_any()
        return header.index(named)
    folded = [fold(h) for h in header]
    names = COLUMN_ALIASES["timestamp"] + INDEX_ALIASES
    hits = [i for i, f in enumerate(folded) if f in names]
    if hits:
        return hits[0]
    notes.append(
        f"{file}: no column named like a time; the first column "
        f"'{header[0]}' is read as the time."
    )
    return 0


def read_times(
    raw: pd.Series,
    column: str,
    lines: Int64Array,
    file: str,
    problems: Problems,
    notes: list[str],
    *,
    forced: bool,
    start: str | None,
    step_s: float | None,
    zone: tzinfo | None,
    guessed: bool = False,
) -> tuple[Int64Array, npt.NDArray[np.bool_], dict[str, Any] | None]:
    """Times in ns (UTC), the good-cell mask and the index facts (None for dates);
    *guessed*: the column is the first one, no header being named like a time."""
    text = raw.astype(str).str.strip()
    num = pd.to_numeric(text, errors="coerce").to_numpy(
        dtype=np.float64, na_value=np.nan
    )
    numeric = len(num) > 0 and bool(np.isfinite(num).all())
    whole = numeric and bool((num == np.round(num)).all()) and bool((num >= 0).all())
    rising_by_one = whole and len(num) > 1 and bool((np.diff(num) == 1).all())
    small = numeric and float(np.max(np.abs(num))) < UNIX_FLOOR_S
    named = fold(column) in INDEX_ALIASES
    if forced or (numeric and named) or (rising_by_one and small):
        ns, ok, index = _index_times(
            text, num, column, lines, file, problems, start, step_s, zone
        )
        why = (
            "--index-column" if forced
            else "by its name" if named
            else "whole numbers rising by 1, not dates"
        )  # fmt: skip
        notes.append(_index_note(file, column, index, why))
        return ns, ok, index
    if numeric and small:
        return _seconds_after_start(
            num, column, lines, file, problems, notes, start, zone, guessed
        )
    if start is not None or step_s is not None:
        flag = "--start" if start is not None else "--series-step"
        problems.whole(
            file,
            f"{flag} applies to a step-index column without dates; column "
            f"'{column}' holds times (e.g. '{text.iloc[0] if len(text) else ''}'), "
            f"so leave {flag} out.",
        )
        problems.raise_if_any()
    ns, ok = parse_timestamps(
        raw, file=file, column=column, lines=lines, problems=problems, notes=notes,
        tz=zone,
    )  # fmt: skip
    return ns, ok, None


def _start_ns(start: str | None, zone: tzinfo | None) -> int:
    text = start if start is not None else DEFAULT_INDEX_START
    try:
        ts = pd.Timestamp(text)
    except (ValueError, TypeError):
        ts = None
    if ts is None or ts is pd.NaT:
        raise ConfigError(
            "--start must be an ISO 8601 time such as 2024-05-01T00:00:00Z. "
            f"Got {start!r} instead."
        )
    if ts.tzinfo is None and zone is not None:
        # a local time the clock shows twice: its first occurrence (DST)
        local = ts.tz_localize(zone, ambiguous=True, nonexistent="NaT")
        if not isinstance(local, pd.Timestamp):  # NaT
            name = str(getattr(zone, "key", zone))
            raise ConfigError(
                f"--start {start}: the time does not exist in {name}: it is in the "
                f"daylight-saving gap of {name} on {ts:%Y-%m-%d}; give a time that "
                "exists there, or one with a UTC offset."
            )
        ts = local
    elif ts.tzinfo is None:
        ts = ts.tz_localize("UTC")
    return int(ts.tz_convert("UTC").as_unit("ns").value)


def _index_times(
    text: pd.Series,
    num: FloatArray,
    column: str,
    lines: Int64Array,
    file: str,
    problems: Problems,
    start: str | None,
    step_s: float | None,
    zone: tzinfo | None,
) -> tuple[Int64Array, npt.NDArray[np.bool_], dict[str, Any]]:
    ok = np.isfinite(num) & (num >= 0) & (num == np.round(num))
    for pos in np.flatnonzero(~ok):
        problems.cell(
            file, int(lines[pos]), "a whole-number step index", text.iloc[pos],
            column=column,
        )  # fmt: skip
    problems.raise_if_any()
    idx = num.astype(np.int64)
    t0 = _start_ns(start, zone)
    step = step_s if step_s is not None else DEFAULT_INDEX_STEP_S
    first = int(idx.min()) if len(idx) else 0
    ns = t0 + (idx - first) * int(round(step * _NS_PER_S))
    index = {
        "first": first,
        "last": int(idx.max()) if len(idx) else 0,
        "start": pd.Timestamp(t0, unit="ns", tz="UTC").isoformat(),
        "step_s": step,
        "start_assumed": start is None,
        "step_assumed": step_s is None,
    }
    return ns.astype(np.int64), ok, index


def _index_note(file: str, column: str, index: dict[str, Any], why: str) -> str:
    start = index["start"].replace("+00:00", "Z")
    step = f"{index['step_s']:g} s"
    said = []
    said.append(
        f"step {step} assumed (the default; give the real one with --series-step)"
        if index["step_assumed"]
        else f"step {step} (--series-step)"
    )
    said.append(
        f"start {start} assumed, an arbitrary date (give the real one with --start)"
        if index["start_assumed"]
        else f"start {start} (--start)"
    )
    return (
        f"{file}: column '{column}' is a step index ({why}; {index['first']}.."
        f"{index['last']}), not Unix time: " + "; ".join(said) + "."
    )


def _seconds_after_start(
    num: FloatArray,
    column: str,
    lines: Int64Array,
    file: str,
    problems: Problems,
    notes: list[str],
    start: str | None,
    zone: tzinfo | None,
    guessed: bool,
) -> tuple[Int64Array, npt.NDArray[np.bool_], dict[str, Any] | None]:
    lo, hi = float(np.min(num)), float(np.max(num))
    back = np.flatnonzero(np.diff(num) < 0)
    if guessed and back.size:  # a measurement column taken for the time: refuse, never misread
        problems.whole(
            file,
            f"column '{column}' is read as the time, but its plain numbers ({lo:g} "
            f"to {hi:g}) go back {back.size} times (first on line "
            f"{int(lines[back[0] + 1])}), so they are no times; expected a time column "
            "(dates, seconds after --start, or a step index 1..N named with "
            "--index-column).",
        )
        problems.raise_all()
    if start is None:
        problems.whole(
            file,
            f"column '{column}' holds plain numbers ({lo:g} to {hi:g}) that as Unix "
            "seconds would be dates before 2000; expected dates, or give --start "
            f"(the numbers are then seconds after it) or --index-column {column} "
            "(step numbers, with --series-step).",
        )
        problems.raise_all()
    t0 = _start_ns(start, zone)
    ns = t0 + np.round(num * _NS_PER_S).astype(np.int64)
    notes.append(
        f"{file}: column '{column}' read as seconds after --start "
        f"{pd.Timestamp(t0, unit='ns', tz='UTC').strftime('%Y-%m-%dT%H:%M:%SZ')}."
    )
    return ns, np.ones(len(num), dtype=bool), None
