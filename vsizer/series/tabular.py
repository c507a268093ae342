"""Generic CSV utilization series: long (one row per sample) and wide (one column per server).

Long::

    server,timestamp,metric,value,unit
    web01,2024-05-01T10:00:00+09:00,cpu,45,%
    web01,2024-05-01T10:00:00+09:00,mem_used,2048,MB

Wide::

    timestamp,web01,web02
    2024-05-01T10:00:00Z,0.45,0.10

Conventions, applied to both:

* **Times**: ISO 8601. With an offset (``Z``, ``+09:00``) they are converted to
  UTC; without one they are read as UTC and the count is noted. A column of
  plain numbers is Unix time; seconds, milliseconds, microseconds or
  nanoseconds are told by magnitude (noted).
* **Metric names**: the canonical names of :data:`~vsizer.series.model.METRICS`
  or an alias of :data:`VARIABLE_MAP` (``cpu``, ``cpu_pct``, ``mem_used_mb``,
  ``iops``, ``net_kbps``...). A name may carry its unit in brackets:
  ``cpu (%)``, ``mem_used [MB]``.
* **Units**, first that applies: the ``unit`` column (long) or ``unit=``
  argument (wide); the unit in the header or name (``[MB]``, ``_pct``); for a
  utilization, the file-wide rule "all values <= 1 -> fraction, else %"
  (issue ``unit_guess`` per server); for other metrics, the canonical unit.
  Memory MB/GB are MiB/GiB (:mod:`vsizer.units`).
* Utilization above 100 % is clipped to 1.0 (``clipped``); empty cells are
  skipped and counted (``dropped``); repeated (server, metric, time) rows
  keep the first (``duplicate``); steps longer than 1.5 x the median are
  ``gap``. Rows of metrics vsizer does not read are counted as ``dropped`` and
  listed in ``metadata['skipped_metrics']``.

Bad cells raise one :class:`~vsizer.errors.SeriesError`, one line each:
``series.csv line 7, column 'value': expected a non-negative number, got 'n/a'.``
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from vsizer.series._csv_names import (
    COLUMN_ALIASES,
    VARIABLE_MAP,
    column_roles,
    resolve_metric,
)
from vsizer.series._csv_table import (
    convert,
    count_by,
    finish,
    no_value_note,
    numbers,
    read_text_table,
    stripped,
    units_read,
)
from vsizer.series._native import parse_tz_param
from vsizer.series._tidy import (
    Int64Array,
    Problems,
    file_label,
    median_step_s,
    parse_timestamps,
)
from vsizer.series.model import SeriesQuality, SeriesSet
from vsizer.units import canonical_unit

__all__ = ["COLUMN_ALIASES", "VARIABLE_MAP", "read_long"]


def _series_codes(server: Any, metric: pd.Series) -> Any:
    """One code per (server, metric) of each row: the series a row belongs to
    (daylight-saving overlaps are resolved by order within it)."""
    key = pd.Series(server, dtype="string").fillna("") + "\x00" + pd.Series(
        metric.to_numpy(), dtype="string"
    ).fillna("")
    return pd.factorize(key)[0]


def read_long(path: str | os.PathLike[str], *, tz: str | None = None) -> SeriesSet:
    """Read a long CSV: one row per (server, timestamp, metric) sample.

    Parameters
    ----------
    path : str or path-like
        CSV (UTF-8 with or without BOM, or cp932; comma, semicolon or tab
        separated) with columns ``server, timestamp, metric, value`` and an
        optional ``unit`` (header aliases: :data:`COLUMN_ALIASES`); may be
        .gz, .bz2, .xz or a one-file .zip.
    tz : str, optional
        Zone of times without UTC offset (``--tz``); default UTC (noted).

    Returns
    -------
    SeriesSet
        ``source_format='long'``; ``metadata``: ``rows``, ``step_s`` (median),
        ``metrics`` (source name -> canonical), ``skipped_metrics`` (name ->
        rows), ``units`` (metric -> source units read), ``notes`` on times.

    Raises
    ------
    SeriesError
        A missing column, a bad time, value or unit (one line per cell).
    """
    file = file_label(path)
    problems = Problems()
    table = _long_table(path, file, problems)
    notes: list[str] = []
    server = _server_names(table, problems)
    ts, ts_ok = parse_timestamps(
        table.col["timestamp"],
        file=file,
        column=table.head["timestamp"],
        lines=table.lines,
        problems=problems,
        notes=notes,
        tz=parse_tz_param(tz, "read_long"),
        groups=_series_codes(server, table.col["metric"]),
    )
    metrics = _metric_names(table, problems)
    seen: dict[str, int] = {}
    value, blank = numbers(
        table.col["value"], file, table.lines, table.head["value"], problems, seen
    )
    unit = _units(table, metrics, problems)
    problems.raise_if_any()
    said = no_value_note(file, seen)
    notes += [said] if said else []

    quality = SeriesQuality()
    _count_dropped(quality, server, metrics, ts_ok & blank)
    rows = metrics.known & ts_ok & ~blank
    metric = metrics.metric_of[rows]
    value = convert(
        file, server[rows], metric, value[rows], unit[rows], table.lines[rows],
        table.head.get("unit", "unit"), problems, quality,
    )  # fmt: skip
    problems.raise_if_any()
    for note in notes:
        quality.note(note)
    data, steps = finish(server[rows], ts[rows], metric, value, quality)
    return SeriesSet(
        data=data,
        quality=quality,
        source=str(path),
        source_format="long",
        metadata={
            "rows": table.rows,
            "step_s": median_step_s(steps),
            "metrics": metrics.read(),
            "skipped_metrics": metrics.skipped_rows,
            "units": units_read(metric, unit[rows]),
        },
    )


# ------------------------------------------------------------------ steps


@dataclass(frozen=True)
class _LongTable:
    """The long CSV's text columns by role, their headers and each row's line."""

    file: str
    rows: int
    col: dict[str, pd.Series]
    head: dict[str, str]
    lines: Int64Array


@dataclass(frozen=True)
class _MetricNames:
    """Each row's metric: source name, canonical name ('' if not read), units.

    ``uniques``/``resolved`` are the distinct source names and what each
    resolves to (:func:`~vsizer.series._csv_names.resolve_metric`); ``known``
    marks the rows of metrics read; ``skipped_rows`` counts the rows of each
    metric vsizer does not read.
    """

    names: pd.Series
    uniques: Any
    resolved: list[tuple[str, str | None, str | None] | None]
    metric_of: npt.NDArray[Any]
    implied: npt.NDArray[Any]
    header_unit: npt.NDArray[Any]
    known: npt.NDArray[np.bool_]
    skipped_rows: dict[str, int]

    def read(self) -> dict[str, str]:
        """Source name -> canonical metric, for the names read."""
        return {
            str(u): r[0] for u, r in zip(self.uniques, self.resolved, strict=True) if r
        }


def _long_table(
    path: str | os.PathLike[str], file: str, problems: Problems
) -> _LongTable:
    """The table, its columns found by role; raises when a column is missing."""
    header, body, lines = read_text_table(path, file, problems)
    roles = column_roles(header)
    missing = [r for r in ("server", "timestamp", "metric", "value") if r not in roles]
    if missing:
        problems.whole(
            file,
            "expected the columns server, timestamp, metric, value (and optionally "
            f"unit) or their aliases, got {', '.join(repr(h) for h in header)}; "
            f"missing {', '.join(missing)}"
            + (
                "; this is Grafana's series-as-rows export (one series per server, "
                "one metric per file): read it with --format wide --metric NAME."
                if [h.strip().casefold() for h in header] == ["series", "time", "value"]
                else "."
            ),
        )
        problems.raise_if_any()
    return _LongTable(
        file=file,
        rows=len(body[0]) if body else 0,
        col={role: body[idx] for role, idx in roles.items()},
        head={role: header[idx] for role, idx in roles.items()},
        lines=lines,
    )


def _server_names(table: _LongTable, problems: Problems) -> npt.NDArray[Any]:
    """Server name of each row; an empty one is a problem."""
    server = stripped(table.col["server"])
    for pos in np.flatnonzero((server == "").to_numpy()):
        problems.cell(
            table.file, int(table.lines[pos]), "a server name", "",
            column=table.head["server"],
        )  # fmt: skip
    return server.to_numpy(dtype=object)


def _metric_names(table: _LongTable, problems: Problems) -> _MetricNames:
    """Metric names: canonical, alias, or skipped (counted); an empty one is a problem."""
    names = stripped(table.col["metric"])
    codes, uniques = pd.factorize(names)
    resolved = [resolve_metric(str(u)) for u in uniques]
    metric_of = np.array([r[0] if r else "" for r in resolved], dtype=object)[codes]
    implied = np.array([r[1] if r else None for r in resolved], dtype=object)[codes]
    header_unit = np.array([r[2] if r else None for r in resolved], dtype=object)[codes]
    skipped_rows = {
        str(u): int((codes == i).sum())
        for i, u in enumerate(uniques)
        if not resolved[i]
    }
    for pos in np.flatnonzero((names == "").to_numpy()):
        problems.cell(
            table.file, int(table.lines[pos]), "a metric name", "",
            column=table.head["metric"],
        )  # fmt: skip
    known = (metric_of != "") & (names != "").to_numpy()
    return _MetricNames(
        names, uniques, resolved, metric_of, implied, header_unit, known, skipped_rows
    )


def _units(
    table: _LongTable, metrics: _MetricNames, problems: Problems
) -> npt.NDArray[Any]:
    """Unit of each row: the unit column, else the one the metric name implies."""
    unit = np.where(pd.isna(metrics.header_unit), metrics.implied, metrics.header_unit)
    if "unit" not in table.col:
        return unit
    unit_text = stripped(table.col["unit"])
    u_codes, u_uniques = pd.factorize(unit_text)
    canon: list[str | None] = []
    bad_unit: list[bool] = []
    for u in u_uniques:
        try:
            canon.append(canonical_unit(str(u)) if str(u) != "" else None)
            bad_unit.append(False)
        except ValueError:
            canon.append(None)
            bad_unit.append(True)
    given = np.array(canon, dtype=object)[u_codes]
    for pos in np.flatnonzero(np.array(bad_unit, dtype=bool)[u_codes] & metrics.known):
        problems.cell(
            table.file,
            int(table.lines[pos]),
            "a unit such as %, fraction, MB, GiB, MB/s or Mbit/s",
            unit_text.iloc[pos],
            column=table.head["unit"],
        )
    return np.where(pd.isna(given), unit, given)


def _count_dropped(
    quality: SeriesQuality,
    server: npt.NDArray[Any],
    metrics: _MetricNames,
    dated_blank: npt.NDArray[np.bool_],
) -> None:
    """Count the rows with an empty value and the rows of metrics not read."""
    for name, n in count_by(server[metrics.known & dated_blank]).items():
        quality.add(name, "dropped", n, "rows with an empty value")
    if metrics.skipped_rows:
        skipped_mask = ~metrics.known & (metrics.names != "").to_numpy()
        for name, n in count_by(server[skipped_mask]).items():
            quality.add(
                name,
                "dropped",
                n,
                "rows of metrics vsizer does not read: "
                + ", ".join(sorted({str(m) for m in metrics.names[skipped_mask]})),
            )
