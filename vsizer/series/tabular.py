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

import io
import os
import re
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from vsizer._textio import decode, read_bytes, sniff_delimiter
from vsizer.series._native import parse_tz_param
from vsizer.series._tidy import (
    KIND_OF_METRIC,
    UNITS_EXPECTED,
    FloatArray,
    Int64Array,
    Problems,
    check_gaps,
    file_label,
    median_step_s,
    parse_timestamps,
    ratio_unit_by_values,
    tidy_frame,
    unit_factor,
)
from vsizer.series.model import METRICS, SeriesQuality, SeriesSet
from vsizer.units import canonical_unit, normalize_text

__all__ = ["COLUMN_ALIASES", "VARIABLE_MAP", "read_long"]


def __getattr__(name: str) -> Any:
    """``read_wide`` lives in :mod:`vsizer.series.wide`; kept importable from here."""
    if name == "read_wide":
        from vsizer.series.wide import read_wide

        return read_wide
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

#: Metric name or alias (casefolded, spaces and '-' as '_') -> (metric, unit it implies).
VARIABLE_MAP: dict[str, tuple[str, str | None]] = {
    **{m: (m, None) for m in METRICS},
    # CPU
    "cpu": ("cpu_util", None),
    "cpu_usage": ("cpu_util", None),
    "cpu_utilization": ("cpu_util", None),
    "cpu_utilisation": ("cpu_util", None),
    "cpu_used": ("cpu_util", None),
    "cpu_busy": ("cpu_util", None),
    "cpu_pct": ("cpu_util", "%"),
    "cpu_percent": ("cpu_util", "%"),
    "cpu_util_percent": ("cpu_util", "%"),
    "cpu_usage_percent": ("cpu_util", "%"),
    "%cpu": ("cpu_util", "%"),
    "cpu%": ("cpu_util", "%"),
    "cpu_fraction": ("cpu_util", "fraction"),
    "cpu_ratio": ("cpu_util", "fraction"),
    "cpu使用率": ("cpu_util", None),
    "cpu_capacity": ("cpu_capacity_mhz", None),
    # memory
    "mem_pct": ("mem_util", "%"),
    "mem_percent": ("mem_util", "%"),
    "mem_util_percent": ("mem_util", "%"),
    "memory_util": ("mem_util", None),
    "memory_utilization": ("mem_util", None),
    "memory_percent": ("mem_util", "%"),
    "%mem": ("mem_util", "%"),
    "メモリ使用率": ("mem_util", None),
    "mem": ("mem_used_gib", None),
    "memory": ("mem_used_gib", None),
    "mem_used": ("mem_used_gib", None),
    "memory_used": ("mem_used_gib", None),
    "mem_used_bytes": ("mem_used_gib", "B"),
    "mem_used_kb": ("mem_used_gib", "KB"),
    "mem_used_mb": ("mem_used_gib", "MB"),
    "mem_used_mib": ("mem_used_gib", "MiB"),
    "mem_used_gb": ("mem_used_gib", "GB"),
    "mem_total": ("mem_capacity_gib", None),
    "memory_total": ("mem_capacity_gib", None),
    "mem_capacity": ("mem_capacity_gib", None),
    "mem_total_bytes": ("mem_capacity_gib", "B"),
    "mem_total_mb": ("mem_capacity_gib", "MB"),
    "mem_total_gb": ("mem_capacity_gib", "GB"),
    # disk
    "iops": ("disk_iops", "count"),
    "disk_ops": ("disk_iops", "count"),
    "disk_io": ("disk_iops", "count"),
    "disk_throughput": ("disk_mb_s", None),
    "disk_bytes_s": ("disk_mb_s", "B/s"),
    "disk_bytes_per_sec": ("disk_mb_s", "B/s"),
    "disk_kb_s": ("disk_mb_s", "kB/s"),
    # network
    "net": ("net_mbps", None),
    "network": ("net_mbps", None),
    "net_throughput": ("net_mbps", None),
    "net_bps": ("net_mbps", "bit/s"),
    "net_kbps": ("net_mbps", "kbit/s"),
    "net_gbps": ("net_mbps", "Gbit/s"),
    "net_bytes_s": ("net_mbps", "B/s"),
    "net_bytes_per_sec": ("net_mbps", "B/s"),
    "net_kb_s": ("net_mbps", "kB/s"),
}

#: Column role -> accepted headers (casefolded) of the long format and the time column.
COLUMN_ALIASES: dict[str, tuple[str, ...]] = {
    "server": ("server", "host", "hostname", "host_name", "vm", "vm_name", "name",
               "instance", "node", "machine", "machine_id", "サーバ", "サーバ名",
               "サーバー名", "ホスト名"),
    "timestamp": ("timestamp", "time", "datetime", "date_time", "date", "ts",
                  "time_stamp", "日時", "時刻"),
    "metric": ("metric", "metric_name", "counter", "measure", "item", "項目"),
    "value": ("value", "val", "reading", "値"),
    "unit": ("unit", "units", "単位"),
}  # fmt: skip

_UNIT_SUFFIX_RE = re.compile(
    r"^(?P<base>.*?)\s*[\(\[（［](?P<unit>[^\)\]）］]+)[\)\]）］]$"
)
_EXPECTED_NUMBER = "a non-negative number"


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
    header, body, lines = _read_text_table(path, file, problems)
    roles = _column_roles(header)
    missing = [r for r in ("server", "timestamp", "metric", "value") if r not in roles]
    if missing:
        problems.whole(
            file,
            "expected the columns server, timestamp, metric, value (and optionally "
            f"unit) or their aliases, got {', '.join(repr(h) for h in header)}; "
            f"missing {', '.join(missing)}.",
        )
        problems.raise_if_any()
    col = {role: body[idx] for role, idx in roles.items()}
    head = {role: header[idx] for role, idx in roles.items()}
    notes: list[str] = []
    quality = SeriesQuality()

    server = _stripped(col["server"])
    for pos in np.flatnonzero((server == "").to_numpy()):
        problems.cell(file, int(lines[pos]), "a server name", "", column=head["server"])
    ts, ts_ok = parse_timestamps(
        col["timestamp"],
        file=file,
        column=head["timestamp"],
        lines=lines,
        problems=problems,
        notes=notes,
        tz=parse_tz_param(tz, "read_long"),
    )

    # Metric names: canonical, alias, or skipped (counted).
    names = _stripped(col["metric"])
    codes, uniques = pd.factorize(names)
    resolved = [_resolve_metric(str(u)) for u in uniques]
    metric_of = np.array([r[0] if r else "" for r in resolved], dtype=object)[codes]
    implied = np.array([r[1] if r else None for r in resolved], dtype=object)[codes]
    header_unit = np.array([r[2] if r else None for r in resolved], dtype=object)[codes]
    known = metric_of != ""
    skipped_rows = {
        str(u): int((codes == i).sum())
        for i, u in enumerate(uniques)
        if not resolved[i]
    }
    for pos in np.flatnonzero((names == "").to_numpy()):
        problems.cell(file, int(lines[pos]), "a metric name", "", column=head["metric"])
    known &= (names != "").to_numpy()

    # Values.
    value, blank = _numbers(col["value"], file, lines, head["value"], problems)

    # Units: the unit column, else the one the name implies.
    unit = np.where(pd.isna(header_unit), implied, header_unit)
    if "unit" in col:
        unit_text = _stripped(col["unit"])
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
        for pos in np.flatnonzero(np.array(bad_unit, dtype=bool)[u_codes] & known):
            problems.cell(
                file,
                int(lines[pos]),
                "a unit such as %, fraction, MB, GiB, MB/s or Mbit/s",
                unit_text.iloc[pos],
                column=head["unit"],
            )
        unit = np.where(pd.isna(given), unit, given)
    problems.raise_if_any()

    rows = known & ts_ok & ~blank
    server_arr = server.to_numpy(dtype=object)
    for name, n in _count_by(server_arr[known & ts_ok & blank]).items():
        quality.add(name, "dropped", n, "rows with an empty value")
    if skipped_rows:
        skipped_mask = ~known & (names != "").to_numpy()
        for name, n in _count_by(server_arr[skipped_mask]).items():
            quality.add(
                name,
                "dropped",
                n,
                "rows of metrics vsizer does not read: "
                + ", ".join(sorted({str(m) for m in names[skipped_mask]})),
            )
    value = _convert(
        file,
        server_arr[rows],
        metric_of[rows],
        value[rows],
        unit[rows],
        lines[rows],
        head.get("unit", "unit"),
        problems,
        quality,
    )
    problems.raise_if_any()
    for note in notes:
        quality.note(note)
    data, steps = _finish(server_arr[rows], ts[rows], metric_of[rows], value, quality)
    return SeriesSet(
        data=data,
        quality=quality,
        source=str(path),
        source_format="long",
        metadata={
            "rows": len(body[0]) if body else 0,
            "step_s": median_step_s(steps),
            "metrics": {
                str(u): r[0] for u, r in zip(uniques, resolved, strict=True) if r
            },
            "skipped_metrics": skipped_rows,
            "units": _units_read(metric_of[rows], unit[rows]),
        },
    )


# ------------------------------------------------------------------ helpers


def _fold(text: str) -> str:
    return re.sub(r"[\s\-]+", "_", normalize_text(text).casefold())


def _split_unit(text: str) -> tuple[str, str | None]:
    """``"web01 (%)"`` -> ("web01", "%"); the brackets stay unless they hold a unit."""
    name = normalize_text(text)
    m = _UNIT_SUFFIX_RE.match(name)
    if m:
        try:
            return m.group("base").strip(), canonical_unit(m.group("unit"))
        except ValueError:
            pass
    return name, None


def _resolve_metric(text: str) -> tuple[str, str | None, str | None] | None:
    """Metric name -> (canonical, unit the alias implies, unit in brackets)."""
    base, hint = _split_unit(text)
    key = _fold(base)
    if key in VARIABLE_MAP:
        metric, implied = VARIABLE_MAP[key]
        return metric, implied, hint
    return None


def _column_roles(header: list[str]) -> dict[str, int]:
    roles: dict[str, int] = {}
    for i, h in enumerate(header):
        key = _fold(h)
        for role, names in COLUMN_ALIASES.items():
            if key in names and role not in roles:
                roles[role] = i
                break
    return roles


def _read_text_table(
    path: str | os.PathLike[str], file: str, problems: Problems
) -> tuple[list[str], list[pd.Series], Int64Array]:
    """Header, columns as text and each data row's line number.

    Blank lines are skipped (their numbers too); the separator is the most
    frequent of ``,``, ``;`` and tab in the header line. A file that cannot be
    read as a table raises (via ``problems``).
    """
    got = _read_text_frame(path, file, problems)
    if got is None:
        problems.raise_all()
    return got


def _read_text_frame(
    path: str | os.PathLike[str], file: str, problems: Problems
) -> tuple[list[str], list[pd.Series], Int64Array] | None:
    text, _ = decode(read_bytes(path), file)
    first = next((ln for ln in text.splitlines() if ln.strip()), "")
    if not first:
        problems.whole(file, "expected a header line, got an empty file.")
        return None
    sep = sniff_delimiter(first, lines=1)
    try:
        frame = pd.read_csv(
            io.StringIO(text),
            sep=sep,
            header=None,
            dtype=str,
            keep_default_na=False,
            skip_blank_lines=False,
            engine="c",
        )
    except pd.errors.ParserError as exc:
        problems.whole(
            file, f"expected the same number of fields on every line; {exc}."
        )
        return None
    frame = frame.fillna("")
    # A blank line is one empty field (or only white space in the first).
    empty = (frame.iloc[:, 0].str.strip() == "").to_numpy(dtype=bool, copy=True)
    if frame.shape[1] > 1:
        empty = empty & (frame.iloc[:, 1:] == "").all(axis=1).to_numpy(dtype=bool)
    line_no = np.arange(1, len(frame) + 1, dtype=np.int64)
    header_pos = int(np.flatnonzero(~empty)[0])
    header = [normalize_text(h) for h in frame.iloc[header_pos]]
    keep = ~empty
    keep[: header_pos + 1] = False
    body = frame[keep]
    columns = [body[c].reset_index(drop=True) for c in body.columns]
    return header, columns, line_no[keep]


def _stripped(column: pd.Series) -> pd.Series:
    """The column with white space stripped, stripping each distinct text once."""
    codes, uniques = pd.factorize(column.astype(object), use_na_sentinel=False)
    clean = np.array([str(u).strip() for u in uniques], dtype=object)
    return pd.Series(clean[codes], index=column.index, dtype=object)


def _numbers(
    text: pd.Series, file: str, lines: Int64Array, column: str, problems: Problems
) -> tuple[FloatArray, npt.NDArray[np.bool_]]:
    """Non-negative numbers of a text column (NaN where blank) and the blank mask."""
    num = pd.to_numeric(text, errors="coerce").to_numpy(
        dtype=np.float64, na_value=np.nan
    )
    blank = np.zeros(len(num), dtype=bool)
    not_number = np.flatnonzero(~np.isfinite(num))
    if len(not_number):  # blank cells, or cells to report
        blank[not_number] = (
            text.iloc[not_number].str.strip().eq("").to_numpy(dtype=bool, copy=True)
        )
    bad = (~blank & ~np.isfinite(num)) | (num < 0)
    for pos in np.flatnonzero(bad):
        problems.cell(
            file,
            int(lines[pos]),
            _EXPECTED_NUMBER,
            text.iloc[pos].strip(),
            column=column,
        )
    return num, blank


def _convert(
    file: str,
    server: npt.NDArray[Any],
    metric: npt.NDArray[Any],
    value: FloatArray,
    unit: npt.NDArray[Any],
    lines: Int64Array,
    unit_column: str,
    problems: Problems,
    quality: SeriesQuality,
) -> FloatArray:
    """Values in canonical units; guesses the unit of utilizations given without one."""
    out = value.copy()
    pairs = pd.DataFrame({"m": metric, "u": unit}).fillna({"u": ""})
    groups: dict[Any, Any] = pairs.groupby(["m", "u"], sort=True).indices
    for key, positions in groups.items():
        idx = np.asarray(positions, dtype=np.intp)
        m, u = str(key[0]), str(key[1])
        if u == "":
            if KIND_OF_METRIC[m] != "ratio":
                continue  # canonical unit
            no_unit = value[idx]  # every value of m given without a unit
            u = ratio_unit_by_values(no_unit)
            why = (
                "all such values of the file are <= 1"
                if u == "fraction"
                else f"such values of the file reach {float(np.max(no_unit)):g}"
            )
            for name, cnt in _count_by(server[idx]).items():
                quality.add(
                    name, "unit_guess", cnt, f"{m} has no unit; read as {u}: {why}"
                )
        try:
            factor = unit_factor(m, u)
        except ValueError:
            for pos in idx:
                problems.cell(
                    file,
                    int(lines[pos]),
                    f"a unit of {m}: {UNITS_EXPECTED[KIND_OF_METRIC[m]]}",
                    u,
                    column=unit_column,
                )
            continue
        out[idx] = value[idx] * factor
    ratio = np.isin(metric, ["cpu_util", "mem_util"]) & (out > 1.0)
    if ratio.any():
        for name, cnt in _count_by(server[ratio]).items():
            quality.add(name, "clipped", cnt, "utilization above 100 % set to 100 %")
        out[ratio] = 1.0
    return out


def _count_by(server: npt.NDArray[Any]) -> dict[str, int]:
    if len(server) == 0:
        return {}
    names, counts = np.unique(server.astype(str), return_counts=True)
    return {str(n): int(c) for n, c in zip(names, counts, strict=True)}


def _units_read(
    metric: npt.NDArray[Any], unit: npt.NDArray[Any]
) -> dict[str, list[str]]:
    pairs = pd.DataFrame({"m": metric.astype(str), "u": unit}).drop_duplicates()
    found: dict[str, set[str]] = {}
    for m, u in zip(pairs["m"], pairs["u"], strict=True):
        found.setdefault(str(m), set()).add("" if u is None or u != u else str(u))
    return {
        m: sorted(u or "(none)" for u in units) for m, units in sorted(found.items())
    }


def _finish(
    server: npt.NDArray[Any],
    ts: Int64Array,
    metric: npt.NDArray[Any],
    value: FloatArray,
    quality: SeriesQuality,
) -> tuple[pd.DataFrame, list[float]]:
    """Drop repeated (server, metric, time) rows (first kept), check gaps, build."""
    frame = pd.DataFrame({"s": server, "m": metric, "t": ts, "v": value})
    dup = frame.duplicated(["s", "m", "t"], keep="first").to_numpy()
    if dup.any():
        for name, cnt in _count_by(server[dup]).items():
            quality.add(
                name, "duplicate", cnt, "rows repeating (metric, time); first kept"
            )
        frame = frame[~dup]
    steps: list[float] = []
    for key, g in frame.groupby("s", sort=True):
        med = check_gaps(quality, str(key), np.unique(g["t"].to_numpy()))
        if med is not None:
            steps.append(med)
    data = tidy_frame(
        frame["s"].to_numpy(dtype=object),
        frame["t"].to_numpy(dtype=np.int64),
        frame["m"].to_numpy(dtype=object),
        frame["v"].to_numpy(dtype=np.float64),
    )
    return data, steps
