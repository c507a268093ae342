"""Windows Performance Monitor counter logs (PDH-CSV/TSV) -> tidy utilization series.

Format (relog ``-f csv`` or ``-f tsv``, logman/perfmon data collector sets,
typeperf ``-f CSV``); a TSV log (header ``"(PDH-TSV 4.0) ..."``) has tabs
between the same cells, and a log re-saved with ``;`` and decimal commas is
read too (:mod:`vsizer.series._perfmon_text`):

* Row 1: ``"(PDH-CSV 4.0) (<time zone name>)(<bias>)"`` then one counter path per
  column, ``\\\\HOST\\Object(Instance)\\Counter``. The bias is in minutes
  **west** of UTC as Windows keeps it (Tokyo ``-540``, India ``-330``, EDT
  ``240``), so UTC = local time + bias.
* Rows: ``"MM/DD/YYYY HH:MM:SS.mmm"`` (local wall-clock time of the host), then
  the values. The header holds one bias, the one in force when the log
  started: in a log that runs across a daylight-saving change the later times
  are an hour off (the change shows as a ``gap`` or ``duplicate`` issue). A
  header without a bias is read in ``tz``: the hour shown twice by order (a
  note), a time in the skipped hour a bad row.
  Every field is quoted; a rate counter has no value in its first row (``" "``)
  and a counter whose instance is gone is blank too: blanks are missing values,
  never 0.
* Object and counter names are in the display language of Windows and the file
  in its ANSI code page unless saved as Unicode.

Counters read (:data:`VARIABLE_MAP`, names matched in English and, through
:data:`OBJECT_ALIASES` / :data:`COUNTER_ALIASES`, in Japanese, German, French,
Russian and Spanish):

* ``cpu_util`` = ``Processor(_Total)\\% Processor Time`` / 100 (else
  ``Processor Information(_Total)``, else the mean of the ``Processor(n)``
  instances). ``Process(x)\\% Processor Time`` is relative to one core (the
  ``Idle`` process shows ~1000 % on a 12-core box) and is not used; a
  ``dropped`` issue counts those columns.
* ``disk_iops`` = ``PhysicalDisk(_Total)\\Disk Transfers/sec`` and ``disk_mb_s``
  = ``Disk Bytes/sec`` (or read + write) / 10^6 (else the sum over the disk
  instances; ``LogicalDisk(_Total)`` only when there is no PhysicalDisk).
* ``net_mbps`` = sum over ``Network Interface`` instances (loopback and tunnel
  pseudo-interfaces left out) of ``Bytes Total/sec`` (or received + sent)
  x 8 / 10^6.
* Memory: ``Memory\\Available MBytes`` gives used memory only with the server's
  size. With ``mem_capacity_gib`` the reader emits ``mem_used_gib`` = size -
  available and ``mem_util``; without it, ``mem_used_gib`` comes from
  ``Memory\\Committed Bytes`` when logged (the commit charge: memory the
  processes reserved, backed by RAM or the page file) and the available series
  is kept in ``metadata['mem_available_gib']`` with a note.
* Size: the numbered ``Processor(n)`` (else ``Processor Information(g,n)``)
  instances are the server's logical processors: ``metadata['machines']`` gives
  the CPU count a plan without an inventory sizes the server with.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from vsizer._small_file import not_a_file
from vsizer._textio import candidate_encodings, decodings, plain_name, read_bytes
from vsizer.errors import SeriesError
from vsizer.series._native import Problems, Rows, median_interval, parse_tz_param, tidy
from vsizer.series._perfmon_counters import (
    COUNTER_ALIASES,
    OBJECT_ALIASES,
    VARIABLE_MAP,
    Column,
    cut,
    no_counters_message,
)
from vsizer.series._perfmon_series import host_series, usable_columns
from vsizer.series._perfmon_text import Layout, cut_trailer, layout_of, split_rows
from vsizer.series.model import SeriesQuality, SeriesSet

__all__ = [
    "COUNTER_ALIASES",
    "ENCODINGS",
    "OBJECT_ALIASES",
    "VARIABLE_MAP",
    "read_perfmon",
    "read_perfmon_counters",
]

#: Encodings tried in order when ``encoding`` is not given (a UTF-16 byte-order
#: mark is honoured first); the first whose header names known counters wins.
ENCODINGS: tuple[str, ...] = ("utf-8-sig", "cp932", "cp1252", "cp1251")

# The zone name may hold parentheses ("東京 (標準時)") or be cut off ("(RTZ 2 (").
_HEADER_RE = re.compile(
    r"^\(PDH-[CT]SV\s*(?P<version>[\d.]+)\)"
    r"(?:\s*\((?P<zone>.*)\)\s*\((?P<bias>[+-]?\d+)\)\s*$)?"
)
_TIME_FORMATS = ("%m/%d/%Y %H:%M:%S.%f", "%m/%d/%Y %H:%M:%S")
_TIME_EXAMPLE = "09/16/2021 07:51:58.569"


class _Table:
    """A PDH-CSV file split: header facts, counter columns, rows, UTC times."""

    def __init__(self, path: Path, encoding: str | None, tz: str | None, func: str):
        self.label = path.name
        zone = parse_tz_param(tz, func)
        if not path.is_file():
            raise SeriesError(f"{self.label}: {not_a_file(path)}")
        self.encoding, self.columns, self.rows, self.numbers, self.layout = (
            _decode_and_split(read_bytes(path), self.label, encoding)
        )
        self.trailer = cut_trailer(self.rows, self.numbers)
        self.head = self.rows[0][0].strip() if self.rows and self.rows[0] else ""
        m = _HEADER_RE.match(self.head)
        if not m:
            first = self.numbers[0] if self.numbers else 1
            raise SeriesError(
                f"{self.label} row {first}: expected a PDH-CSV or PDH-TSV header cell "
                "such as '(PDH-CSV 4.0) (Tokyo Standard Time)(-540)', got "
                f"'{cut(self.head)}'."
            )
        self.version = m.group("version")
        # a cut zone name ("(RTZ 2 (", "(") without its opening parenthesis
        rest = re.sub(r"^\(\s*", "", self.head[m.end() :].strip())
        self.zone_name = m.group("zone") or rest or None
        self.bias = int(m.group("bias")) if m.group("bias") is not None else None
        self.zone = zone
        self.problems = Problems(self.label)
        self.dst_note: str | None = None
        local = _times(self, self.problems)
        if self.bias is not None:  # minutes west of UTC: UTC = local + bias
            self.utc = local + pd.Timedelta(minutes=self.bias)
        elif zone is not None:
            self.utc, self.dst_note = _localize_by_order(
                local, zone, self.numbers[1:], (self.label, self.head), self.problems
            )
        else:
            self.utc = local

    @property
    def zone_guessed(self) -> bool:
        return self.bias is None and self.zone is None

    def metadata(self) -> dict[str, Any]:
        return {
            "hosts": sorted({c.host for c in self.columns}),
            "encoding": self.encoding,
            "pdh_version": self.version,
            "timezone_name": self.zone_name,
            "bias_minutes": self.bias,
        }


def read_perfmon_counters(
    path: str | os.PathLike[str],
    *,
    encoding: str | None = None,
    tz: str | None = None,
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Every counter of a PDH-CSV log as read, before any mapping.

    Parameters are those of :func:`read_perfmon`.

    Returns
    -------
    frame : DataFrame
        Index ``timestamp`` (UTC), one float column per counter path as
        written in the header; NaN where the log has a blank.
    metadata : dict
        ``hosts``, ``encoding``, ``pdh_version``, ``timezone_name``,
        ``bias_minutes``.

    Raises
    ------
    SeriesError
        As :func:`read_perfmon`, for every column (but not for lacking a
        counter vsizer maps).
    """
    table = _Table(Path(path), encoding, tz, "read_perfmon_counters")
    _values(table, table.columns)
    table.problems.raise_if_any()
    frame = pd.DataFrame(
        {c.header: c.values for c in table.columns},
        index=pd.DatetimeIndex(table.utc, name="timestamp")
        .tz_localize("UTC")
        .as_unit("ns"),
    )
    return frame, table.metadata()


def read_perfmon(
    path: str | os.PathLike[str],
    *,
    server: str | None = None,
    encoding: str | None = None,
    tz: str | None = None,
    mem_capacity_gib: float | None = None,
) -> SeriesSet:
    """Read a Windows Performance Monitor counter log saved as CSV or TSV.

    Parameters
    ----------
    path : str or path-like
        The log (relog ``-f csv``/``-f tsv``, logman/perfmon CSV or TSV,
        typeperf ``-f CSV``).
    server : str, optional
        Name for the server; default the host in the counter paths (the file
        name without suffix for paths without a host). Only for a file
        holding one host.
    encoding : str, optional
        Text encoding; default: detected (UTF-16 with a byte-order mark, else
        :data:`ENCODINGS` in order, the first that decodes the file and names a
        known counter).
    tz : str, optional
        Time zone of the times when the header gives no bias (an IANA name or
        ``"+09:00"``); default UTC with a ``unit_guess`` issue.
    mem_capacity_gib : float, optional
        Memory size of the server(s) [GiB]: turns ``Available MBytes`` into
        ``mem_used_gib`` and ``mem_util``.

    Returns
    -------
    SeriesSet
        ``source_format`` ``'perfmon'``; ``metadata`` holds ``hosts``,
        ``encoding``, ``pdh_version``, ``timezone_name``, ``bias_minutes``,
        ``median_interval_s``, ``counters`` (metric -> counter paths used),
        ``ignored_counters``, ``blank_values`` (per used counter), ``machines``
        (server -> ``cpu_count``, ``vcpus``, ``cpu_count_from``) and, when
        memory needs the size, ``mem_available_gib`` (server -> frame of
        timestamp, value [GiB]).

    Raises
    ------
    SeriesError
        Missing file, not PDH-CSV, no counter vsizer reads, or bad cells: one
        line per problem, ``{file} row {r}, column '{counter}': expected ...,
        got '...'.``
    """
    _check_capacity(mem_capacity_gib)
    table = _Table(Path(path), encoding, tz, "read_perfmon")
    used = [c for c in table.columns if c.role is not None]
    usable = usable_columns(used)
    if not usable:
        raise SeriesError(no_counters_message(table.label, table.columns, table.encoding))
    _values(table, usable)
    table.problems.raise_if_any()
    names = _server_names(table.label, usable, server, path)
    quality = SeriesQuality()
    out = Rows()
    metadata = table.metadata() | {
        "hosts": list(names),
        "counters": {},
        "ignored_counters": [c.header for c in table.columns if c.role is None],
    }
    times = list(table.utc.to_pydatetime())
    for host, name in names.items():
        mine = [c for c in usable if c.host == host]
        host_series(name, mine, times, out, quality, metadata, mem_capacity_gib)
        _rounded_issues(name, mine, metadata["counters"], quality)
        procs = [c for c in used if c.host == host and c not in usable]
        _host_issues(name, procs, table, len(times), quality)
    metadata["blank_values"] = _blank_values(usable, metadata["counters"])
    metadata["machines"] = _machines(names, used)
    frame = tidy(out, quality)
    metadata["median_interval_s"] = median_interval(frame)
    return SeriesSet(
        data=frame,
        quality=quality,
        source=os.fspath(path),
        source_format="perfmon",
        metadata=metadata,
    )


_CPU_INSTANCE = {"cpu_pct": re.compile(r"^\d+$"), "cpu_info_pct": re.compile(r"^\d+,\d+$")}


def _machines(names: dict[str, str], used: list[Column]) -> dict[str, dict[str, Any]]:
    """``machines``: per server, the logical processors its log lists (the numbered
    ``Processor(n)`` instances, else ``Processor Information(g,n)``), so a plan
    without an inventory sizes the server with them."""
    machines: dict[str, dict[str, Any]] = {}
    for host, name in names.items():
        for role, obj in (("cpu_pct", "Processor"), ("cpu_info_pct", "Processor Information")):
            found = {
                c.instance for c in used if c.host == host and c.role == role
                and _CPU_INSTANCE[role].match(c.instance)
            }  # fmt: skip
            if found:
                machines[name] = {
                    "cpu_count": len(found),
                    "vcpus": len(found),
                    "cpu_count_from": f"the {len(found)} {obj}(n) instances of the "
                    "perfmon log (logical processors)",
                }
                break
    return machines


def _check_capacity(mem_capacity_gib: float | None) -> None:
    """SeriesError unless the memory size is None or a positive finite number."""
    if mem_capacity_gib is not None and not (
        isinstance(mem_capacity_gib, (int, float))
        and not isinstance(mem_capacity_gib, bool)
        and math.isfinite(mem_capacity_gib)
        and mem_capacity_gib > 0
    ):
        raise SeriesError(
            "The 'mem_capacity_gib' parameter of read_perfmon must be a positive "
            f"number. Got {mem_capacity_gib!r} instead."
        )


def _server_names(
    label: str, usable: list[Column], server: str | None, path: str | os.PathLike[str]
) -> dict[str, str]:
    """Server name of each host of the counter paths, hosts sorted.

    *server* names a one-host file; a path without a host is named after the
    file (without its suffix).
    """
    hosts = sorted({c.host for c in usable})
    if server is not None and len(hosts) > 1:
        raise SeriesError(
            f"{label}: the file holds {len(hosts)} hosts ({', '.join(hosts)}); "
            "--server can only name a one-host file."
        )
    return {
        h: server if server is not None else (h or Path(plain_name(path)).stem)
        for h in hosts
    }


def _host_issues(
    name: str, procs: list[Column], table: _Table, n_times: int, quality: SeriesQuality
) -> None:
    """Issues of one host: per-process CPU columns left out, a guessed zone."""
    if procs:
        quality.add(
            name,
            "dropped",
            len(procs),
            f"{len(procs)} Process(...)\\% Processor Time columns not used: they "
            "are relative to one core (can exceed 100 %) and name single processes",
        )
    if table.trailer:
        line, text = table.trailer[0]
        quality.add(
            name,
            "skipped_lines",
            len(table.trailer),
            f"{len(table.trailer)} line(s) after the last row of {table.label} not read "
            f"(typeperf's console messages; first on line {line}: '{cut(text)}')",
        )
    if table.dst_note:
        quality.note(table.dst_note)
    if table.layout.decimal_comma:
        quality.note(
            f"{table.label}: cells separated by ';' with decimal commas (a log "
            "re-saved where the decimal mark is a comma): '0,25' read as 0.25."
        )
    if table.zone_guessed:
        quality.add(
            name,
            "unit_guess",
            n_times,
            f"the header '{cut(table.head)}' gives no time-zone bias; times read "
            "as UTC (give --tz with the host's zone)",
        )


def _rounded_issues(
    name: str, columns: list[Column], counters: dict[str, list[str]], q: SeriesQuality
) -> None:
    """A ``rounded`` issue per counter read whose cells a spreadsheet cut to a few
    significant digits (``2.20E+12``): each value is off by up to half its last
    digit, stated as the largest relative error."""
    read = {h for paths in counters.values() for h in paths}
    for c in columns:
        if c.header not in read or not c.rounded:
            continue
        worst = max(_half_last_digit(cell) for cell in c.rounded)
        q.add(
            name,
            "rounded",
            len(c.rounded),
            f"{len(c.rounded)} value(s) of '{c.header}' in a spreadsheet's short "
            f"scientific form (e.g. '{c.rounded[0]}', the file was re-saved by a "
            f"spreadsheet): read as written, off by up to {worst:.2g} %",
        )


def _half_last_digit(cell: str) -> float:
    """Largest error of a short E number, in % of its value: '2.20E+12' -> 0.23."""
    mantissa = cell.upper().split("E")[0].lstrip("+-")
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return 100 * 0.5 * 10.0**-decimals / max(float(mantissa), 1.0)


def _blank_values(usable: list[Column], counters: dict[str, list[str]]) -> dict[str, int]:
    """Blank cells per counter read, for the counters that have any."""
    read = {h for paths in counters.values() for h in paths}
    return {
        c.header: int(np.isnan(c.values).sum())
        for c in usable
        if c.header in read and np.isnan(c.values).any()
    }


# ------------------------------------------------------------------ decoding


_Split = tuple[str, list[Column], list[list[str]], list[int], Layout]


def _decode_and_split(data: bytes, label: str, encoding: str | None) -> _Split:
    """Encoding, counter columns, CSV rows, their line numbers and the layout.

    The candidate encoding whose header names the most counters of
    :data:`VARIABLE_MAP` wins: a single byte code page decodes any bytes, and a
    Spanish ``Disco f\xedsico`` also decodes as cp932 (into other letters), so
    the first decoding that names one counter may have garbled the others. On
    a tie (counter names in ASCII) the one with fewer CJK characters inside a
    Latin word wins (``Hora est\xe1ndar romance`` is no cp932), then the
    earliest (a file whose header is ASCII stays UTF-8).
    The candidates (:func:`vsizer._textio.candidate_encodings`): *encoding*
    when given; UTF-16 with a byte-order mark, or without one when the file
    starts with a quote and a NUL; else :data:`ENCODINGS`.
    """
    if encoding is not None:
        candidates: tuple[str, ...] = (encoding,)
        try:
            texts: Iterable[tuple[str, str]] = [(data.decode(encoding), encoding)]
        except (UnicodeDecodeError, LookupError) as exc:
            raise SeriesError(
                f"{label}: cannot decode the file as {encoding!r} ({exc})."
            ) from None
    else:
        candidates = candidate_encodings(data, ENCODINGS, bare_utf16_start=b'"')
        texts = decodings(data, candidates)  # decoded one at a time, as needed
    best: tuple[tuple[int, int], str, str, Layout] | None = None
    for text, name in texts:
        layout = layout_of(text)
        line, header = _header_line(text, label, layout)
        score = (
            sum(c.role is not None for c in header),
            -len(_LATIN_CJK_LATIN.findall(line)),
        )
        if best is None or score > best[0]:
            best = (score, text, name, layout)
        if line.isascii():
            break  # the later (ASCII-compatible) code pages read the same line
    if best is None:
        raise SeriesError(
            f"{label}: cannot decode the file as "
            + ", ".join(candidates)
            + "; save it as UTF-8 or UTF-16 (Performance Monitor's own CSV)."
        )
    _, text, name, layout = best
    rows, numbers = split_rows(text, label, layout)
    columns = [Column(i, h) for i, h in enumerate(rows[0] if rows else []) if i > 0]
    shown = "utf-8" if name == "utf-8-sig" and not text.startswith("\ufeff") else name
    return shown, columns, rows, numbers, layout


# A Latin letter, CJK characters, a Latin letter: "est\u7663dar", "f\ufa0eico" -- a
# cp1252 accented letter and the next byte read as one cp932 character.
_LATIN_CJK_LATIN = re.compile(r"[A-Za-z][\u3000-\u9fff\uf900-\ufaff]+[A-Za-z]")


def _header_line(text: str, label: str, layout: Layout) -> tuple[str, list[Column]]:
    """The first non-empty line of *text* and its counter columns."""
    start = text.lstrip("\ufeff\r\n")
    line = start[: start.find("\n")] if "\n" in start else start
    rows, _ = split_rows(line, label, layout)
    return line, [Column(i, h) for i, h in enumerate(rows[0] if rows else []) if i > 0]


# -------------------------------------------------------------------- values


def _times(table: _Table, problems: Problems) -> pd.DatetimeIndex:
    """Local times of the data rows (NaT for rows reported as bad)."""
    rows, numbers, head, label = table.rows, table.numbers, table.head, table.label
    raw = pd.Series([r[0].strip() if r else "" for r in rows[1:]], dtype="string")
    if table.layout.decimal_comma:  # "22:43:06,663": the decimal mark of the seconds
        raw = raw.str.replace(",", ".", regex=False)
    parsed = pd.to_datetime(raw, format=_TIME_FORMATS[0], errors="coerce")
    missing = parsed.isna()
    if missing.any():
        parsed[missing] = pd.to_datetime(
            raw[missing], format=_TIME_FORMATS[1], errors="coerce"
        )
    width = len(rows[0])
    for i, (row, r) in enumerate(zip(rows[1:], numbers[1:], strict=True)):
        if len(row) != width:
            problems.bad(
                f"{label} row {r}",
                f"{width} fields as in the header (the row has {len(row)})",
                ",".join(row),
                order=(r, 0),
            )
        elif pd.isna(parsed.iloc[i]):
            problems.bad(
                f"{label} row {r}, column '{cut(head)}'",
                f"a time such as '{_TIME_EXAMPLE}'",
                row[0],
                order=(r, 0),
            )
    return pd.DatetimeIndex(parsed).as_unit("ns")


def _localize_by_order(
    local: pd.DatetimeIndex,
    zone: Any,
    numbers: list[int],
    where: tuple[str, str],
    problems: Problems,
) -> tuple[pd.DatetimeIndex, str | None]:
    """UTC times of local wall-clock times in ``zone``: a time the clock shows
    twice (the daylight-saving overlap) is daylight-saving time on its first
    row and standard time on the next; a time in the gap does not exist and is
    a bad row naming the gap. Returns the times and a note on the overlap."""
    label, head = where
    name = str(getattr(zone, "key", zone))
    as_dst = local.tz_localize(zone, ambiguous=np.ones(len(local), bool), nonexistent="NaT")
    as_std = local.tz_localize(zone, ambiguous=np.zeros(len(local), bool), nonexistent="NaT")
    known = np.asarray(local.notna())
    gap = known & np.asarray(as_dst.isna())
    twice = np.flatnonzero(known & ~gap & np.asarray(as_dst != as_std))
    utc = as_dst.tz_convert(None)
    note = None
    if len(twice):
        later = pd.Series(local[twice]).groupby(local[twice]).cumcount().to_numpy() > 0
        values = utc.as_unit("ns").asi8.copy()
        values[twice[later]] = as_std[twice[later]].tz_convert(None).as_unit("ns").asi8
        utc = pd.DatetimeIndex(values)
        note = (
            f"{label}: {len(twice)} times fall in the daylight-saving overlap of "
            f"{name} (e.g. '{local[twice[0]]}'), when the clock shows an hour twice; "
            "the first occurrence is read as daylight-saving time, the next as "
            f"standard time ({int(later.sum())} read as standard time)."
        )
    for i in np.flatnonzero(gap).tolist():
        problems.bad(
            f"{label} row {numbers[i]}, column '{cut(head)}'",
            f"a local time that exists in {name} (this one is in the daylight-saving "
            f"gap of {name} on {local[i]:%Y-%m-%d})",
            f"{local[i]:%m/%d/%Y %H:%M:%S}",
            order=(numbers[i], 0),
        )
    return pd.DatetimeIndex(utc).as_unit("ns"), note


# Excel's General format shows a number too long for its cell as "2.20E+12" (at
# most 6 significant digits, capital E, two exponent digits) and a CSV saved by
# Excel keeps what is shown; PDH writes every digit ("8.5699999999999996e-005").
_SHORT_E = r"[+-]?\d(?:\.\d{1,5})?E[+-]\d{2}"


def _values(table: _Table, columns: list[Column]) -> None:
    """Fill each column's values: float, NaN for a blank; bad cells reported."""
    rows, numbers, label, problems = table.rows, table.numbers, table.label, table.problems
    width = len(rows[0])
    for col in columns:
        raw = pd.Series(
            [r[col.index] if len(r) == width else "" for r in rows[1:]], dtype="string"
        ).str.strip()
        text = raw.str.replace(",", ".", regex=False) if table.layout.decimal_comma else raw
        values = pd.to_numeric(text.mask(text == ""), errors="coerce")
        floats = values.to_numpy(dtype=np.float64, na_value=np.nan)
        infinite = np.isinf(floats)  # inf, -inf, 1e400: never a silent gap
        bad = (values.isna() & (raw != "")).to_numpy(dtype=bool) | infinite
        for i in np.flatnonzero(bad):
            r = numbers[int(i) + 1]
            problems.bad(
                f"{label} row {r}, column '{col.header}'",
                "a finite number or a blank" if infinite[i] else "a number or a blank",
                raw.iloc[i],
                order=(r, col.index),
            )
        col.values = np.where(infinite, np.nan, floats)
        col.rounded = raw[raw.str.fullmatch(_SHORT_E).fillna(False)].tolist()


# -------------------------------------------------------------------- series
