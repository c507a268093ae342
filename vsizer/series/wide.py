"""Wide CSV utilization series: a time (or step-index) column and one column per server.

::

    timestamp,web01,web02            step,vm1,vm2
    2024-05-01T10:00:00Z,45,10       1,45,10
    2024-05-01T10:05:00Z,50,12       2,50,12

The conventions of :mod:`vsizer.series.tabular` apply (units, clipping,
blanks, duplicates, gaps). What is particular to this format:

* **Step index** (a column of step numbers, no dates; e.g. public traces
  redistributed as ``step,vm1,vm2,...``) is never read as Unix time. A time
  column is an index when ``index_column`` (``--index-column``) names it, when
  its header is one of :data:`INDEX_ALIASES` and it holds whole numbers, or
  when it holds whole numbers rising by exactly 1 that as Unix seconds would
  be dates before 2000. Step *i* is then at ``start + (i - first) x step``;
  without ``start`` (``--start``) the start is :data:`DEFAULT_INDEX_START`, an
  arbitrary fixed date, and without ``step`` (``--series-step``) the step is
  :data:`DEFAULT_INDEX_STEP_S` (5 min). Each default is stated as a note.
* Other plain numbers before 2000 as Unix seconds (``0, 300, 600``) are
  seconds after ``start``; without ``start`` they are an error.
* ``start`` and ``step`` given for a column of real dates are an error.
* Without ``metric``, values that all lie in 0..100 are read as ``cpu_util``
  (noted); other values are an error asking for ``--metric``.
* A column named ``avg``, ``mean``, ``total``, ``sum``, ``max`` or ``min`` whose
  every value is that aggregate of the other columns (a dashboard's summary
  series) is left out, counted as ``dropped``
  (:mod:`vsizer.series._wide_aggregates`).
* Grafana's "series as rows" export (header ``Series;Time;Value``, one row per
  point) is read too: each series name is a server (noted).
* Grafana writes ``null`` or ``undefined`` for a missing point and, for Excel,
  a first line ``sep=;``: both are read (:mod:`vsizer.series._csv_table`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from datetime import tzinfo
from typing import Any

import numpy as np
import numpy.typing as npt

from vsizer.errors import ConfigError
from vsizer.series._csv_names import resolve_metric, split_unit
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
from vsizer.series._duration import parse_duration
from vsizer.series._native import parse_tz_param
from vsizer.series._tidy import (
    KIND_OF_METRIC,
    UNITS_EXPECTED,
    FloatArray,
    Int64Array,
    Problems,
    file_label,
    median_step_s,
    unit_factor,
)
from vsizer.series._wide_aggregates import aggregate_columns
from vsizer.series._wide_times import (
    DEFAULT_INDEX_START,
    DEFAULT_INDEX_STEP_S,
    INDEX_ALIASES,
    read_times,
    time_column,
)
from vsizer.series.model import METRICS, SeriesQuality, SeriesSet
from vsizer.units import canonical_unit

__all__ = [
    "DEFAULT_INDEX_START",
    "DEFAULT_INDEX_STEP_S",
    "INDEX_ALIASES",
    "read_wide",
]

def read_wide(
    path: str | os.PathLike[str],
    *,
    metric: str | None = None,
    unit: str | None = None,
    timestamp_col: str | None = None,
    index_column: str | None = None,
    start: str | None = None,
    step: str | float | None = None,
    tz: str | None = None,
) -> SeriesSet:
    """Read a wide CSV: a time or step-index column and one column per server.

    Parameters
    ----------
    path : str or path-like
        CSV (UTF-8 with or without BOM, UTF-16 with BOM, or cp932; comma,
        semicolon or tab separated; may be .gz, .bz2, .xz or a one-file .zip).
        The header names the servers; a server header may carry its unit
        (``web01 (%)``).
    metric : str, optional
        What the values are (``--metric``): a name of :data:`METRICS` or an
        alias of :data:`~vsizer.series.tabular.VARIABLE_MAP`. Default:
        ``cpu_util`` when every value lies in 0..100 (noted), else an error.
    unit : str, optional
        Unit of every value (``--unit``). Default: the header's unit, else
        the one the metric alias implies, else for a utilization the
        file-wide rule (all <= 1 -> fraction, else %).
    timestamp_col : str, optional
        Header of a time column holding dates. Default: the first header in
        ``COLUMN_ALIASES['timestamp']`` or :data:`INDEX_ALIASES`, else the
        first column (noted).
    index_column : str, optional
        Header of a step-index column (``--index-column``).
    start : str, optional
        Time of the first step of an index column, or the zero of a column of
        seconds (``--start``, ISO 8601; naive means ``tz``, else UTC).
    step : str or float, optional
        Step of an index column (``--series-step``): seconds or ``'5min'``.
    tz : str, optional
        Zone of times without UTC offset (``--tz``): IANA name or ``+09:00``.

    Returns
    -------
    SeriesSet
        ``source_format='wide'``; ``metadata``: ``metric``, ``timestamp_col``,
        ``servers``, ``rows``, ``step_s``, ``units``, ``index`` (None, or
        ``{first, last, start, step_s, start_assumed, step_assumed}``).

    Raises
    ------
    ConfigError
        ``metric``, ``unit``, ``step``, ``start`` or ``tz`` is invalid.
    SeriesError
        No server column, a repeated server header, bad times, indexes or values.
    """
    canonical, implied = _metric_and_unit(metric, unit)
    times = _TimeOptions(
        timestamp_col, index_column, start,
        zone=parse_tz_param(tz, "read_wide"), step_s=_step_seconds(step),
    )  # fmt: skip
    file = file_label(path)
    problems = Problems()
    notes: list[str] = []
    table = _read_columns(path, file, times, problems, notes)
    table, left_out = _without_aggregates(table)
    if canonical is None:
        canonical = _default_metric(file, table.values, notes)
        _check_assumed_unit(canonical, implied, unit)
    series = _wide_series(path, table, canonical, implied, notes, problems)
    for name, (count, what) in left_out.items():
        series.quality.add(
            name, "dropped", count,
            f"column '{name}' is {what}, not a server; left out",
        )  # fmt: skip
    return series


# ------------------------------------------------------------------ steps


@dataclass(frozen=True)
class _TimeOptions:
    """How the time column is read (the arguments of :func:`read_wide`)."""

    timestamp_col: str | None
    index_column: str | None
    start: str | None
    zone: tzinfo | None
    step_s: float | None


@dataclass(frozen=True)
class _WideTable:
    """The file read: its times and one column of numbers per server.

    ``values[j]``/``blanks[j]`` are the numbers (NaN where blank) and blank
    mask of server ``servers[j]``, whose header gave unit ``col_units[j]``;
    ``index`` holds the step-index facts (None for a column of dates).
    ``row_server`` is set for Grafana's series-as-rows layout: each row's
    server, with ``values``/``blanks`` the one value column.
    """

    file: str
    header: list[str]
    t_idx: int
    servers: list[str]
    col_units: list[str | None]
    lines: Int64Array
    ts: Int64Array
    ts_ok: npt.NDArray[np.bool_]
    index: dict[str, Any] | None
    values: list[FloatArray]
    blanks: list[npt.NDArray[np.bool_]]
    row_server: npt.NDArray[Any] | None = None


@dataclass(frozen=True)
class _Cells:
    """The cells kept (dated, not blank), server after server."""

    server: npt.NDArray[Any]
    ts: Int64Array
    value: FloatArray
    unit: npt.NDArray[Any]
    lines: Int64Array


def _read_columns(
    path: str | os.PathLike[str],
    file: str,
    times: _TimeOptions,
    problems: Problems,
    notes: list[str],
) -> _WideTable:
    """Read the table, find its time column, parse times and numbers; raises on problems."""
    header, body, lines = read_text_table(path, file, problems)
    if [h.strip().casefold() for h in header] == _SERIES_ROWS:
        return _series_rows(header, body, lines, file, times, problems, notes)
    t_idx = time_column(
        header, file, times.timestamp_col, times.index_column, problems, notes
    )
    # time_column notes when it takes the first column for want of a time header
    guessed = bool(notes) and notes[-1].endswith("is read as the time.")
    servers, col_units = _server_columns(header, t_idx, file, problems)
    ts, ts_ok, index = read_times(
        body[t_idx], header[t_idx], lines, file, problems, notes,
        forced=times.index_column is not None, start=times.start,
        step_s=times.step_s, zone=times.zone, guessed=guessed,
    )  # fmt: skip
    values: list[FloatArray] = []
    blanks: list[npt.NDArray[np.bool_]] = []
    seen: dict[str, int] = {}
    for idx in (i for i in range(len(header)) if i != t_idx):
        v, b = numbers(body[idx], file, lines, header[idx], problems, seen)
        values.append(v)
        blanks.append(b)
    problems.raise_if_any()
    said = no_value_note(file, seen)
    notes += [said] if said else []
    return _WideTable(
        file, header, t_idx, servers, col_units, lines, ts, ts_ok, index, values, blanks
    )


def _check_assumed_unit(canonical: str, implied: str | None, unit: str | None) -> None:
    """``--unit`` must fit the metric assumed without ``--metric``."""
    if implied is not None and not _unit_fits(canonical, implied):
        raise ConfigError(
            f"--unit must be {UNITS_EXPECTED[KIND_OF_METRIC[canonical]]} for "
            f"--metric {canonical} (assumed without --metric). Got {unit!r} "
            "instead."
        )


def _kept_cells(
    table: _WideTable, implied: str | None, quality: SeriesQuality
) -> _Cells:
    """Flatten the columns; blank cells are counted as ``dropped`` and left out."""
    n = len(table.lines)
    values, blanks = table.values, table.blanks
    value_all = np.concatenate(values) if values else np.array([], dtype=np.float64)
    blank_all = np.concatenate(blanks) if blanks else np.array([], dtype=bool)
    units = [u if u is not None else implied for u in table.col_units]
    if table.row_server is not None:  # one value column; each row names its server
        server_arr, ok_all = table.row_server, table.ts_ok
        ts_all, lines_all = table.ts, table.lines
    else:
        k = len(table.servers)
        server_arr = np.repeat(np.array(table.servers, dtype=object), n)
        ok_all = np.tile(table.ts_ok, k)
        ts_all, lines_all = np.tile(table.ts, k), np.tile(table.lines, k)
    unit_all = np.repeat(np.array(units, dtype=object), n)
    for name, cnt in count_by(server_arr[ok_all & blank_all]).items():
        quality.add(name, "dropped", cnt, "empty cells (no sample)")
    keep = ok_all & ~blank_all
    return _Cells(
        server_arr[keep], ts_all[keep], value_all[keep], unit_all[keep], lines_all[keep]
    )


def _without_aggregates(
    table: _WideTable,
) -> tuple[_WideTable, dict[str, tuple[int, str]]]:
    """The table without columns that aggregate the others (name -> (values
    left out, what the column is)); see :mod:`vsizer.series._wide_aggregates`."""
    if table.row_server is not None:
        return table, {}
    found = aggregate_columns(table.servers, table.values, table.blanks)
    if not found:
        return table, {}
    keep = [j for j in range(len(table.servers)) if j not in found]
    left_out = {
        table.servers[j]: (int((~table.blanks[j] & table.ts_ok).sum()), what)
        for j, what in found.items()
    }
    return replace(
        table,
        servers=[table.servers[j] for j in keep],
        col_units=[table.col_units[j] for j in keep],
        values=[table.values[j] for j in keep],
        blanks=[table.blanks[j] for j in keep],
    ), left_out


#: Grafana's other CSV layout, "series as rows": a header ``Series;Time;Value``
#: and one row per point (Grafana Labs, ``public/app/core/utils/file_export.ts``,
#: ``exportSeriesListToCsv``; 6.x quotes the text and writes ``null``).
_SERIES_ROWS = ["series", "time", "value"]


def _series_rows(
    header: list[str],
    body: list[Any],
    lines: Int64Array,
    file: str,
    times: _TimeOptions,
    problems: Problems,
    notes: list[str],
) -> _WideTable:
    """A ``Series, Time, Value`` table: each series name (Grafana's legend) a server."""
    names = stripped(body[0]).to_numpy(dtype=object)
    for pos in np.flatnonzero(names == ""):
        problems.cell(file, int(lines[pos]), "a series name", "", column=header[0])
    ts, ts_ok, index = read_times(
        body[1], header[1], lines, file, problems, notes, forced=False,
        start=times.start, step_s=times.step_s, zone=times.zone,
    )  # fmt: skip
    seen: dict[str, int] = {}
    v, b = numbers(body[2], file, lines, header[2], problems, seen)
    problems.raise_if_any()
    said = no_value_note(file, seen)
    servers = sorted({str(n) for n in names})
    shown = ", ".join(f"'{n}'" for n in servers[:3]) + (" ..." if len(servers) > 3 else "")
    notes.append(
        f"{file}: Grafana's series-as-rows layout (Series, Time, Value); each "
        f"series name is read as a server ({len(servers)}: {shown}); set the "
        "panel's legend to the host name to name them by host."
    )
    notes += [said] if said else []
    return _WideTable(
        file, header, 1, servers, [None], lines, ts, ts_ok, index, [v], [b],
        row_server=names,
    )  # fmt: skip


def _wide_series(
    path: str | os.PathLike[str],
    table: _WideTable,
    canonical: str,
    implied: str | None,
    notes: list[str],
    problems: Problems,
) -> SeriesSet:
    """Convert the kept cells to canonical units and build the series set."""
    quality = SeriesQuality()
    cells = _kept_cells(table, implied, quality)
    metric_all = np.full(len(cells.value), canonical, dtype=object)
    converted = convert(
        table.file, cells.server, metric_all, cells.value, cells.unit, cells.lines,
        "unit", problems, quality,
    )  # fmt: skip
    problems.raise_if_any()
    for note in notes:
        quality.note(note)
    data, steps = finish(cells.server, cells.ts, metric_all, converted, quality)
    return SeriesSet(
        data=data,
        quality=quality,
        source=str(path),
        source_format="wide",
        metadata={
            "metric": canonical,
            "timestamp_col": table.header[table.t_idx],
            "servers": table.servers,
            "rows": len(table.lines),
            "step_s": median_step_s(steps),
            "units": units_read(metric_all, cells.unit),
            "index": table.index,
        },
    )


# ------------------------------------------------------------------ helpers


def _metric_and_unit(
    metric: str | None, unit: str | None
) -> tuple[str | None, str | None]:
    """The canonical metric (None: decide from the values) and the unit to apply."""
    if metric is None:
        if unit is not None:
            try:
                canonical_unit(unit)
            except ValueError:
                raise ConfigError(
                    f"--unit must be a unit such as %, fraction, MB, GiB, MB/s or "
                    f"Mbit/s. Got {unit!r} instead."
                ) from None
        return None, canonical_unit(unit) if unit is not None else None
    resolved = resolve_metric(metric)
    if resolved is None:
        raise ConfigError(
            "--metric must be one of "
            + ", ".join(repr(m) for m in METRICS)
            + " or an alias such as cpu_pct, mem_used_mb, iops, net_kbps. "
            f"Got {metric!r} instead."
        )
    canonical, implied, name_unit = resolved
    implied = name_unit or implied
    if unit is not None:
        try:
            implied = canonical_unit(unit)
            unit_factor(canonical, implied)
        except ValueError:
            raise ConfigError(
                f"--unit must be {UNITS_EXPECTED[KIND_OF_METRIC[canonical]]} for "
                f"--metric {canonical}. Got {unit!r} instead."
            ) from None
    return canonical, implied


def _unit_fits(metric: str, unit: str) -> bool:
    try:
        unit_factor(metric, unit)
    except ValueError:
        return False
    return True


def _step_seconds(step: str | float | None) -> float | None:
    if step is None:
        return None
    return parse_duration(step, "series-step")


def _server_columns(
    header: list[str], t_idx: int, file: str, problems: Problems
) -> tuple[list[str], list[str | None]]:
    servers: list[str] = []
    col_units: list[str | None] = []
    seen: dict[str, int] = {}
    for i, h in enumerate(header):
        if i == t_idx:
            continue
        name, hint = split_unit(h)
        if name == "":
            problems.whole(file, f"expected a server name in header column {i + 1}.")
        elif name in seen:
            problems.whole(
                file, f"server '{name}' has two columns ({seen[name]} and {i + 1})."
            )
        seen[name] = i + 1
        servers.append(name)
        col_units.append(hint)
    if not servers:
        problems.whole(file, "expected one column per server after the time column.")
    problems.raise_if_any()
    return servers, col_units


def _default_metric(file: str, values: list[FloatArray], notes: list[str]) -> str:
    """``cpu_util`` when every value lies in 0..100 (noted), else an error."""
    finite = [v[np.isfinite(v)] for v in values]
    allv = np.concatenate(finite) if finite else np.array([], dtype=np.float64)
    top = float(allv.max()) if len(allv) else 0.0
    low = float(allv.min()) if len(allv) else 0.0
    if top > 100.0:
        raise ConfigError(
            f"{file}: no --metric given and the values reach {top:g}, which is no "
            "percentage; say what the columns hold with --metric (cpu_util, "
            "mem_used_gib, disk_iops, net_mbps, ...)."
        )
    notes.append(
        f"{file}: no --metric given; the values ({low:g} to {top:g}) look like "
        "utilization (0 to 100), so they are read as cpu_util (CPU busy); give "
        "--metric if they are something else."
    )
    return "cpu_util"
