"""Windows Performance Monitor counter logs (PDH-CSV) -> tidy utilization series.

Format (relog ``-f csv``, logman/perfmon data collector sets, typeperf ``-f CSV``):

* Row 1: ``"(PDH-CSV 4.0) (<time zone name>)(<bias>)"`` then one counter path per
  column, ``\\\\HOST\\Object(Instance)\\Counter``. The bias is in minutes
  **west** of UTC as Windows keeps it (Tokyo ``-540``, India ``-330``, EDT
  ``240``), so UTC = local time + bias.
* Rows: ``"MM/DD/YYYY HH:MM:SS.mmm"`` (local wall-clock time of the host), then
  the values. The header holds one bias, the one in force when the log
  started: in a log that runs across a daylight-saving change the later times
  are an hour off (the change shows as a ``gap`` or ``duplicate`` issue).
  Every field is quoted; a rate counter has no value in its first row (``" "``)
  and a counter whose instance is gone is blank too: blanks are missing values,
  never 0.
* Object and counter names are in the display language of Windows and the file
  in its ANSI code page unless saved as Unicode.

Counters read (:data:`VARIABLE_MAP`, names matched in English and, through
:data:`OBJECT_ALIASES` / :data:`COUNTER_ALIASES`, in Japanese, German, French
and Russian):

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
"""

from __future__ import annotations

import math
import os
import re
import unicodedata
from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from vsizer._textio import plain_name, read_bytes
from vsizer.errors import SeriesError
from vsizer.limits import csv_records
from vsizer.series._native import Problems, Rows, median_interval, parse_tz_param, tidy
from vsizer.series.model import SeriesQuality, SeriesSet

__all__ = [
    "COUNTER_ALIASES",
    "ENCODINGS",
    "OBJECT_ALIASES",
    "VARIABLE_MAP",
    "read_perfmon",
    "read_perfmon_counters",
]

#: (object, counter) in English -> what the column holds. Columns of other
#: counters are listed in ``metadata['ignored_counters']``.
VARIABLE_MAP: dict[tuple[str, str], str] = {
    ("Processor", "% Processor Time"): "cpu_pct",
    ("Processor Information", "% Processor Time"): "cpu_info_pct",
    ("Memory", "Available MBytes"): "mem_available_mib",
    ("Memory", "Available KBytes"): "mem_available_kib",
    ("Memory", "Available Bytes"): "mem_available_bytes",
    ("Memory", "Committed Bytes"): "mem_committed_bytes",
    ("PhysicalDisk", "Disk Transfers/sec"): "disk_transfers_s",
    ("PhysicalDisk", "Disk Bytes/sec"): "disk_bytes_s",
    ("PhysicalDisk", "Disk Read Bytes/sec"): "disk_read_bytes_s",
    ("PhysicalDisk", "Disk Write Bytes/sec"): "disk_write_bytes_s",
    ("LogicalDisk", "Disk Transfers/sec"): "ldisk_transfers_s",
    ("LogicalDisk", "Disk Bytes/sec"): "ldisk_bytes_s",
    ("LogicalDisk", "Disk Read Bytes/sec"): "ldisk_read_bytes_s",
    ("LogicalDisk", "Disk Write Bytes/sec"): "ldisk_write_bytes_s",
    ("Network Interface", "Bytes Total/sec"): "net_bytes_s",
    ("Network Interface", "Bytes Received/sec"): "net_rx_bytes_s",
    ("Network Interface", "Bytes Sent/sec"): "net_tx_bytes_s",
    ("Network Adapter", "Bytes Total/sec"): "nic_bytes_s",
    ("Network Adapter", "Bytes Received/sec"): "nic_rx_bytes_s",
    ("Network Adapter", "Bytes Sent/sec"): "nic_tx_bytes_s",
    ("Process", "% Processor Time"): "process_cpu_pct",
}

#: Localized object names -> English (Windows display languages).
OBJECT_ALIASES: dict[str, str] = {
    # Japanese
    "プロセッサ": "Processor",
    "プロセッサ情報": "Processor Information",
    "メモリ": "Memory",
    "物理ディスク": "PhysicalDisk",
    "論理ディスク": "LogicalDisk",
    "ネットワーク インターフェイス": "Network Interface",
    "ネットワーク アダプター": "Network Adapter",
    "プロセス": "Process",
    # German
    "Prozessor": "Processor",
    "Prozessorinformationen": "Processor Information",
    "Speicher": "Memory",
    "Physikalischer Datenträger": "PhysicalDisk",
    "Logischer Datenträger": "LogicalDisk",
    "Netzwerkschnittstelle": "Network Interface",
    "Prozess": "Process",
    # French
    "Processeur": "Processor",
    "Informations sur le processeur": "Processor Information",
    "Mémoire": "Memory",
    "Disque physique": "PhysicalDisk",
    "Disque logique": "LogicalDisk",
    "Interface réseau": "Network Interface",
    "Processus": "Process",
    # Russian
    "Процессор": "Processor",
    "Память": "Memory",
    "Физический диск": "PhysicalDisk",
    "Логический диск": "LogicalDisk",
    "Сетевой интерфейс": "Network Interface",
    "Процесс": "Process",
}

#: Localized counter names -> English.
COUNTER_ALIASES: dict[str, str] = {
    # Japanese
    "% プロセッサ時間": "% Processor Time",
    "利用可能メモリ (MB)": "Available MBytes",
    "利用可能メモリ (KB)": "Available KBytes",
    "利用可能バイト": "Available Bytes",
    "コミット済みバイト": "Committed Bytes",
    "ディスク転送/秒": "Disk Transfers/sec",
    "ディスク バイト/秒": "Disk Bytes/sec",
    "ディスク読み取りバイト/秒": "Disk Read Bytes/sec",
    "ディスク書き込みバイト/秒": "Disk Write Bytes/sec",
    "合計バイト数/秒": "Bytes Total/sec",
    "受信バイト数/秒": "Bytes Received/sec",
    "送信バイト数/秒": "Bytes Sent/sec",
    # German
    "Prozessorzeit (%)": "% Processor Time",
    "Verfügbare MB": "Available MBytes",
    "Zugesicherte verwendete Bytes": "Committed Bytes",
    "Übertragungen/s": "Disk Transfers/sec",
    "Bytes gesamt/s": "Bytes Total/sec",
    # French
    "% temps processeur": "% Processor Time",
    "Mégaoctets disponibles": "Available MBytes",
    "Octets validés": "Committed Bytes",
    "Transferts disque/s": "Disk Transfers/sec",
    "Octets disque/s": "Disk Bytes/sec",
    "Total des octets/s": "Bytes Total/sec",
    # Russian
    "% загруженности процессора": "% Processor Time",
    "Доступно МБ": "Available MBytes",
    "Всего байт/с": "Bytes Total/sec",
}

#: Encodings tried in order when ``encoding`` is not given (a UTF-16 byte-order
#: mark is honoured first); the first whose header names known counters wins.
ENCODINGS: tuple[str, ...] = ("utf-8-sig", "cp932", "cp1252", "cp1251")

# The zone name may hold parentheses ("東京 (標準時)") or be cut off ("(RTZ 2 (").
_HEADER_RE = re.compile(
    r"^\(PDH-CSV\s*(?P<version>[\d.]+)\)"
    r"(?:\s*\((?P<zone>.*)\)\s*\((?P<bias>[+-]?\d+)\)\s*$)?"
)
_PATH_RE = re.compile(
    r"^(?:\\\\(?P<host>[^\\]+))?\\(?P<object>[^\\(]+?)"
    r"(?:\((?P<instance>.*)\))?\\(?P<counter>[^\\]+)$"
)
_TIME_FORMATS = ("%m/%d/%Y %H:%M:%S.%f", "%m/%d/%Y %H:%M:%S")
_TIME_EXAMPLE = "09/16/2021 07:51:58.569"
_VIRTUAL_NIC_RE = re.compile(r"loopback|isatap|teredo|6to4|pseudo", re.IGNORECASE)
_GIB = 2**30
_MAX_LISTED = 12


def _key(name: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


_OBJECTS = {_key(k): v for k, v in OBJECT_ALIASES.items()} | {
    _key(o): o for o, _ in VARIABLE_MAP
}
_COUNTERS = {_key(k): v for k, v in COUNTER_ALIASES.items()} | {
    _key(c): c for _, c in VARIABLE_MAP
}


class _Column:
    """One counter column: where it is, what it is, its values."""

    def __init__(self, index: int, header: str) -> None:
        self.index = index
        self.header = header
        m = _PATH_RE.match(header.strip())
        self.host = (m.group("host") or "") if m else ""
        self.instance = (m.group("instance") or "") if m else ""
        obj = _OBJECTS.get(_key(m.group("object"))) if m else None
        counter = _COUNTERS.get(_key(m.group("counter"))) if m else None
        self.role = VARIABLE_MAP.get((obj, counter)) if obj and counter else None
        self.values: np.ndarray = np.empty(0)


class _Table:
    """A PDH-CSV file split: header facts, counter columns, rows, UTC times."""

    def __init__(self, path: Path, encoding: str | None, tz: str | None, func: str):
        self.label = path.name
        zone = parse_tz_param(tz, func)
        if not path.is_file():
            raise SeriesError(f"{self.label}: file not found: {os.fspath(path)}")
        self.encoding, self.columns, self.rows, self.numbers = _decode_and_split(
            read_bytes(path), self.label, encoding
        )
        self.head = self.rows[0][0].strip() if self.rows and self.rows[0] else ""
        m = _HEADER_RE.match(self.head)
        if not m:
            first = self.numbers[0] if self.numbers else 1
            raise SeriesError(
                f"{self.label} row {first}: expected a PDH-CSV header cell such as "
                f"'(PDH-CSV 4.0) (Tokyo Standard Time)(-540)', got '{_cut(self.head)}'."
            )
        self.version = m.group("version")
        self.zone_name = m.group("zone") or self.head[m.end() :].strip() or None
        self.bias = int(m.group("bias")) if m.group("bias") is not None else None
        self.zone = zone
        self.problems = Problems(self.label)
        local = _times(self.rows, self.numbers, self.head, self.label, self.problems)
        if self.bias is not None:  # minutes west of UTC: UTC = local + bias
            self.utc = local + pd.Timedelta(minutes=self.bias)
        elif zone is not None:
            self.utc = local.tz_localize(
                zone,
                ambiguous=np.ones(len(local), dtype=bool),
                nonexistent="shift_forward",
            ).tz_convert(None)
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
    _values(table.rows, table.numbers, table.columns, table.label, table.problems)
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
    """Read a Windows Performance Monitor counter log saved as CSV (PDH-CSV).

    Parameters
    ----------
    path : str or path-like
        The CSV file (relog ``-f csv``, logman/perfmon CSV, typeperf ``-f CSV``).
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
        ``ignored_counters``, ``blank_values`` (per used counter) and, when
        memory needs the size, ``mem_available_gib`` (server -> frame of
        timestamp, value [GiB]).

    Raises
    ------
    SeriesError
        Missing file, not PDH-CSV, no counter vsizer reads, or bad cells: one
        line per problem, ``{file} row {r}, column '{counter}': expected ...,
        got '...'.``
    """
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
    table = _Table(Path(path), encoding, tz, "read_perfmon")
    label = table.label
    used = [c for c in table.columns if c.role is not None]
    usable = [c for c in used if c.role != "process_cpu_pct"]
    if not usable:
        raise SeriesError(_no_counters_message(label, table.columns, table.encoding))
    _values(table.rows, table.numbers, usable, label, table.problems)
    table.problems.raise_if_any()
    hosts = sorted({c.host for c in usable})
    if server is not None and len(hosts) > 1:
        raise SeriesError(
            f"{label}: the file holds {len(hosts)} hosts ({', '.join(hosts)}); "
            "--server can only name a one-host file."
        )
    names = {h: server if server is not None else (h or Path(plain_name(path)).stem) for h in hosts}
    quality = SeriesQuality()
    out = Rows()
    metadata = table.metadata()
    metadata.update(
        {
            "hosts": hosts,
            "counters": {},
            "ignored_counters": [c.header for c in table.columns if c.role is None],
        }
    )
    times = list(table.utc.to_pydatetime())
    for host in hosts:
        mine = [c for c in usable if c.host == host]
        _host_series(names[host], mine, times, out, quality, metadata, mem_capacity_gib)
        procs = [c for c in used if c.host == host and c.role == "process_cpu_pct"]
        if procs:
            quality.add(
                names[host],
                "dropped",
                len(procs),
                f"{len(procs)} Process(...)\\% Processor Time columns not used: they "
                "are relative to one core (can exceed 100 %); cpu_util comes from "
                "Processor(_Total)",
            )
        if table.zone_guessed:
            quality.add(
                names[host],
                "unit_guess",
                len(times),
                f"the header '{_cut(table.head)}' gives no time-zone bias; times read "
                "as UTC (give --tz with the host's zone)",
            )
    read = {h for paths in metadata["counters"].values() for h in paths}
    metadata["blank_values"] = {
        c.header: int(np.isnan(c.values).sum())
        for c in usable
        if c.header in read and np.isnan(c.values).any()
    }
    frame = tidy(out, quality)
    metadata["median_interval_s"] = median_interval(frame)
    return SeriesSet(
        data=frame,
        quality=quality,
        source=os.fspath(path),
        source_format="perfmon",
        metadata=metadata,
    )


# ------------------------------------------------------------------ decoding


_Split = tuple[str, list[_Column], list[list[str]], list[int]]


def _decode_and_split(data: bytes, label: str, encoding: str | None) -> _Split:
    """Encoding, counter columns, CSV rows and their line numbers.

    The first candidate encoding that decodes the file *and* names a counter
    of :data:`VARIABLE_MAP` wins; failing that, the first that decodes.
    """
    if encoding is not None:
        candidates: tuple[str, ...] = (encoding,)
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):
        candidates = ("utf-16",)
    elif data[:2] == b'"\x00':
        candidates = ("utf-16-le",)
    elif data[:2] == b'\x00"':
        candidates = ("utf-16-be",)
    else:
        candidates = ENCODINGS
    first: _Split | None = None
    for name in candidates:
        try:
            text = data.decode(name)
        except (UnicodeDecodeError, LookupError) as exc:
            if encoding is not None:
                raise SeriesError(
                    f"{label}: cannot decode the file as {encoding!r} ({exc})."
                ) from None
            continue
        rows, numbers = _split(text, label)
        header = rows[0] if rows else []
        columns = [_Column(i, h) for i, h in enumerate(header) if i > 0]
        shown = (
            "utf-8" if name == "utf-8-sig" and not text.startswith("\ufeff") else name
        )
        found = (shown, columns, rows, numbers)
        if any(c.role is not None for c in columns):
            return found
        first = first or found
    if first is None:
        raise SeriesError(
            f"{label}: cannot decode the file as "
            + ", ".join(candidates)
            + "; save it as UTF-8 or UTF-16 (Performance Monitor's own CSV)."
        )
    return first


def _split(text: str, label: str) -> tuple[list[list[str]], list[int]]:
    """CSV rows without empty lines (typeperf starts with one), and their lines.

    Cells are bounded by ``--max-cell-chars`` (:func:`vsizer.limits.csv_records`).
    """
    records = csv_records(text.lstrip("\ufeff"), label, error=SeriesError)
    rows: list[list[str]] = []
    numbers: list[int] = []
    for number, row in records:
        if any(cell.strip() for cell in row):
            rows.append(row)
            numbers.append(number)
    return rows, numbers


# -------------------------------------------------------------------- values


def _times(
    rows: list[list[str]],
    numbers: list[int],
    head: str,
    label: str,
    problems: Problems,
) -> pd.DatetimeIndex:
    """Local times of the data rows (NaT for rows reported as bad)."""
    raw = pd.Series([r[0].strip() if r else "" for r in rows[1:]], dtype="string")
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
                f"{label} row {r}, column '{_cut(head)}'",
                f"a time such as '{_TIME_EXAMPLE}'",
                row[0],
                order=(r, 0),
            )
    return pd.DatetimeIndex(parsed).as_unit("ns")


def _values(
    rows: list[list[str]],
    numbers: list[int],
    columns: list[_Column],
    label: str,
    problems: Problems,
) -> None:
    """Fill each column's values: float, NaN for a blank; bad cells reported."""
    width = len(rows[0])
    for col in columns:
        raw = pd.Series(
            [r[col.index] if len(r) == width else "" for r in rows[1:]], dtype="string"
        ).str.strip()
        values = pd.to_numeric(raw.mask(raw == ""), errors="coerce")
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


# -------------------------------------------------------------------- series


def _host_series(
    name: str,
    columns: list[_Column],
    times: list[Any],
    out: Rows,
    quality: SeriesQuality,
    metadata: dict[str, Any],
    capacity_gib: float | None,
) -> None:
    by_role: dict[str, list[_Column]] = defaultdict(list)
    for c in columns:
        by_role[c.role or ""].append(c)
    counters: dict[str, list[str]] = metadata["counters"]

    def emit(
        metric: str, values: np.ndarray, used: list[_Column], scale: float
    ) -> None:
        for ts, v in zip(times, values * scale, strict=True):
            if not math.isnan(v):
                out.add(name, ts, metric, float(v))
        counters.setdefault(metric, []).extend(c.header for c in used)

    # CPU: the _Total instance, else the mean over the logical processors
    for role in ("cpu_pct", "cpu_info_pct"):
        total = _total(by_role.get(role, []))
        if total:
            emit("cpu_util", total[0].values, total, 0.01)
            break
    else:
        cpus = [c for c in by_role.get("cpu_pct", []) if c.instance.isdigit()]
        if cpus:
            # a row where one processor is blank has no mean (NaN, left out)
            mean = np.vstack([c.values for c in cpus]).mean(axis=0)
            emit("cpu_util", mean, cpus, 0.01)
            quality.note(
                f"{name}: no Processor(_Total) counter; cpu_util is the mean of "
                f"{len(cpus)} Processor(n) instances."
            )
    # Disk: PhysicalDisk, else LogicalDisk(_Total)
    for prefix in ("disk", "ldisk"):
        iops = _summed(by_role, f"{prefix}_transfers_s", whole_only=prefix == "ldisk")
        rate = _summed(by_role, f"{prefix}_bytes_s", whole_only=prefix == "ldisk")
        if rate is None:
            read = _summed(
                by_role, f"{prefix}_read_bytes_s", whole_only=prefix == "ldisk"
            )
            write = _summed(
                by_role, f"{prefix}_write_bytes_s", whole_only=prefix == "ldisk"
            )
            if read is not None and write is not None:
                rate = (read[0] + write[0], read[1] + write[1])
        if iops is None and rate is None:
            continue
        if iops is not None:
            emit("disk_iops", iops[0], iops[1], 1.0)
        if rate is not None:
            emit("disk_mb_s", rate[0], rate[1], 1e-6)
        if prefix == "ldisk":
            quality.note(
                f"{name}: no PhysicalDisk counters; disk metrics come from "
                "LogicalDisk(_Total) (I/O per volume)."
            )
        break
    # Network: Network Interface, else Network Adapter (newer Windows)
    for prefix in ("net", "nic"):
        traffic = _summed(by_role, f"{prefix}_bytes_s", nics=True)
        if traffic is None:
            rx = _summed(by_role, f"{prefix}_rx_bytes_s", nics=True)
            tx = _summed(by_role, f"{prefix}_tx_bytes_s", nics=True)
            if rx is not None and tx is not None:
                traffic = (rx[0] + tx[0], rx[1] + tx[1])
        if traffic is not None:
            emit("net_mbps", traffic[0], traffic[1], 8e-6)
            break
    _memory(name, by_role, emit, quality, metadata, times, capacity_gib)


def _memory(
    name: str,
    by_role: Mapping[str, list[_Column]],
    emit: Any,
    quality: SeriesQuality,
    metadata: dict[str, Any],
    times: list[Any],
    capacity_gib: float | None,
) -> None:
    available: tuple[np.ndarray, list[_Column]] | None = None
    for role, scale in (
        ("mem_available_mib", 2**20),
        ("mem_available_kib", 2**10),
        ("mem_available_bytes", 1),
    ):
        if by_role.get(role):
            col = by_role[role][0]
            available = (col.values * scale / _GIB, [col])
            break
    committed = by_role.get("mem_committed_bytes", [])
    if available is not None and capacity_gib is not None:
        used = capacity_gib - available[0]
        emit("mem_used_gib", used, available[1], 1.0)
        emit("mem_util", used / capacity_gib, available[1], 1.0)
        return
    if committed:
        emit("mem_used_gib", committed[0].values, committed[:1], 1 / _GIB)
        quality.note(
            f"{name}: mem_used_gib is Memory\\Committed Bytes, the commit charge "
            "(memory reserved by processes, in RAM or the page file)."
        )
    if available is not None:
        keep = ~np.isnan(available[0])
        metadata.setdefault("mem_available_gib", {})[name] = pd.DataFrame(
            {
                "timestamp": pd.to_datetime(
                    pd.Series(times)[keep].reset_index(drop=True), utc=True
                ).astype("datetime64[ns, UTC]"),
                "value": available[0][keep],
            }
        )
        quality.note(
            f"{name}: Memory\\Available MBytes needs the server's memory size to "
            "give mem_used_gib, and a Performance Monitor log does not hold it; "
            "the available memory is kept in the series metadata "
            "(mem_available_gib)."
        )


def _total(columns: list[_Column]) -> list[_Column]:
    return [c for c in columns if c.instance.casefold() == "_total"][:1]


def _summed(
    by_role: Mapping[str, list[_Column]],
    role: str,
    *,
    whole_only: bool = False,
    nics: bool = False,
) -> tuple[np.ndarray, list[_Column]] | None:
    """The _Total column of a role, else the sum over its instances (None: none).

    A row where every instance is blank stays NaN; otherwise blanks count as
    absent instances (a NIC that went away), not as 0 of a present one.
    """
    columns = by_role.get(role, [])
    if not columns:
        return None
    total = _total(columns)
    if total:
        return total[0].values, total
    if whole_only:
        return None
    parts = [c for c in columns if not (nics and _VIRTUAL_NIC_RE.search(c.instance))]
    if not parts:
        return None
    stack = np.vstack([c.values for c in parts])
    summed = np.where(np.isnan(stack).all(axis=0), np.nan, np.nansum(stack, axis=0))
    return summed, parts


def _no_counters_message(label: str, columns: list[_Column], encoding: str) -> str:
    found = [c.header for c in columns]
    listed = ", ".join(f"'{h}'" for h in found[:_MAX_LISTED]) or "none"
    more = f" and {len(found) - _MAX_LISTED} more" if len(found) > _MAX_LISTED else ""
    process = any(c.role == "process_cpu_pct" for c in columns)
    return (
        f"{label}: expected a counter vsizer reads (Processor(_Total)\\% Processor "
        "Time, Memory\\Available MBytes or \\Committed Bytes, PhysicalDisk(_Total)\\"
        "Disk Transfers/sec or \\Disk Bytes/sec, Network Interface(*)\\Bytes "
        f"Total/sec), got {listed}{more}."
        + (
            " Process(...)\\% Processor Time is per process and per core, not used."
            if process
            else ""
        )
        + " Names are matched in English, Japanese, German, French and Russian;"
        " for another language add them to vsizer.series.perfmon.OBJECT_ALIASES and"
        " COUNTER_ALIASES."
        + (
            f" The file was decoded as {encoding}: if the names look garbled, give"
            " --encoding."
            if any(not h.isascii() for h in found)
            else ""
        )
    )


def _cut(text: str, n: int = 60) -> str:
    return text if len(text) <= n else text[: n - 3] + "..."
