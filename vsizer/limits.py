"""Bounds on the work an input file can cause: rows, columns, cell size, unzipped size.

A file that breaks a limit is refused with one line naming the file, the sheet,
row and column where known, the limit, what was found, and the flag that
raises it, e.g. ``t.csv row 2, column 7 (G): a cell of 131,073 characters is
over the limit of 10,000 characters per cell; raise it with --max-cell-chars.``

* **Rows and columns** bound the inventory files (tables, RVTools, Azure
  Migrate): a sheet or CSV is read row by row and refused at the first row
  past :attr:`Limits.max_rows`, before the rest is read. Series files
  (sar, perfmon, traces) are long by nature and have no row limit.
* **Cell size** bounds every cell of an inventory file and every field the
  :mod:`csv` module reads (perfmon, CPU and host catalogs, measurement files),
  so a huge cell never reaches a plan. The :mod:`csv` module's own field
  limit is raised above it (:func:`csv_records`): its ``_csv.Error`` is never
  what the user sees.
* **Unzipped size** bounds an ``.xlsx`` (a zip archive) from the sizes its zip
  directory declares, before anything is decompressed (a zip bomb).
* **Unpacked size** bounds every compressed text input (``.gz``, ``.bz2``,
  ``.xz``, a one-file ``.zip``: series, traces, server lists) by the bytes it
  actually decompresses to, counted while it is read (a gzip bomb declares
  nothing): :func:`vsizer._textio.open_binary` stops at the limit.
* **Grid cells** bound the steps x servers of the time grid utilization
  series are aligned to (:func:`check_grid`), before it is allocated.

The limits in force are a :class:`Limits` value set for a block of work with
:func:`using` (the CLI flags ``--max-rows``, ``--max-columns``,
``--max-cell-chars``, ``--max-xlsx-mib``, ``--max-unpacked-mib`` and
``--max-grid-cells`` of ``plan``, ``compare`` and ``import``); readers ask :func:`current`. The table is in
``docs/reliability.md`` (Limits).
"""

from __future__ import annotations

import contextlib
import csv
import io
import re
import zipfile
from collections.abc import Iterable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, fields
from itertools import chain
from pathlib import Path
from typing import IO, Any

from vsizer.errors import ConfigError, InputError

__all__ = [
    "DEFAULT_LIMITS",
    "LIMIT_FLAGS",
    "Limits",
    "check_cells",
    "check_grid",
    "check_row",
    "check_sheet_xml_rows",
    "check_unzipped_size",
    "column_label",
    "csv_grid",
    "csv_records",
    "current",
    "using",
]

#: The csv module's field limit while vsizer reads: above any cell limit, so
#: the cell check (with its row, column and flag) speaks first. 2**31 - 1 fits
#: the C long of every platform.
CSV_FIELD_LIMIT = 2**31 - 1

_MIB = 1 << 20


@dataclass(frozen=True)
class Limits:
    """Bounds on one input file.

    Parameters
    ----------
    max_rows : int, default 1,100,000
        Rows per sheet or CSV file of an inventory (counting title and header
        rows) [rows]. Flag ``--max-rows``.
    max_columns : int, default 1,000
        Columns per row of an inventory, up to the last non-empty cell
        [columns]. Flag ``--max-columns``.
    max_cell_chars : int, default 10,000
        Characters per cell of an inventory, and per field of every file read
        with the :mod:`csv` module [characters]. Flag ``--max-cell-chars``.
    max_xlsx_mib : int, default 1,024
        Uncompressed size of an ``.xlsx``, summed over its zip members as the
        zip directory declares them [MiB]. Flag ``--max-xlsx-mib``.
    max_unpacked_mib : int, default 4,096
        Decompressed size of one compressed text input (``.gz``, ``.bz2``,
        ``.xz``, one-file ``.zip``), counted as it is read [MiB]. Flag
        ``--max-unpacked-mib``.
    max_grid_cells : int, default 200,000,000
        Steps x servers of the time grid a plan builds from utilization series
        (30 days of 5-minute steps for 23,148 servers; the grid takes 12 bytes
        per cell and metric while it is binned) [cells], checked before the
        grid is allocated; outlying timestamps are dropped first
        (:mod:`vsizer.series.outliers`). Flag ``--max-grid-cells``. Whatever
        the servers, a grid also has at most :data:`MAX_GRID_STEPS` steps.
    """

    max_rows: int = 1_100_000
    max_columns: int = 1_000
    max_cell_chars: int = 10_000
    max_xlsx_mib: int = 1_024
    max_unpacked_mib: int = 4_096
    max_grid_cells: int = 200_000_000

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(
                    f"The '{f.name}' limit ({LIMIT_FLAGS[f.name]}) must be a whole "
                    f"number >= 1. Got {value!r} instead."
                )

    def replace(self, **changes: int | None) -> Limits:
        """A copy with the given limits changed; ``None`` keeps a limit as is."""
        given = {k: v for k, v in changes.items() if v is not None}
        return Limits(**{**self.__dict__, **given})


#: The defaults (documented in docs/reliability.md).
DEFAULT_LIMITS = Limits()

#: The CLI flag that raises each limit (named in every error line).
LIMIT_FLAGS: dict[str, str] = {
    "max_rows": "--max-rows",
    "max_columns": "--max-columns",
    "max_cell_chars": "--max-cell-chars",
    "max_xlsx_mib": "--max-xlsx-mib",
    "max_unpacked_mib": "--max-unpacked-mib",
    "max_grid_cells": "--max-grid-cells",
}

_CURRENT: ContextVar[Limits] = ContextVar("vsizer_limits", default=DEFAULT_LIMITS)


def current() -> Limits:
    """The limits in force (:data:`DEFAULT_LIMITS` unless :func:`using` set others)."""
    return _CURRENT.get()


@contextlib.contextmanager
def using(limits: Limits) -> Iterator[Limits]:
    """Read with *limits* inside the ``with`` block (restored after it)."""
    token = _CURRENT.set(limits)
    try:
        yield limits
    finally:
        _CURRENT.reset(token)


def column_label(index: int) -> str:
    """``7 (G)``: a 1-based column number and its spreadsheet letters."""
    letters, n = "", index
    while n > 0:
        n, rem = divmod(n - 1, 26)
        letters = chr(ord("A") + rem) + letters
    return f"{index} ({letters})"


def _where(label: str, row: int | None = None, column: int | None = None) -> str:
    text = label
    if row is not None:
        text += f" row {row:,}"
    if column is not None:
        text += f", column {column_label(column)}"
    return text


def check_row(
    label: str,
    row: int,
    cells: Sequence[Any],
    *,
    error: type[InputError],
    limits: Limits | None = None,
    rows: bool = True,
) -> None:
    """Refuse a row past the row limit, with too many columns, or a cell too long.

    *label* names the file (and sheet) in the message; *row* is the 1-based
    row number in the file. ``rows=False`` checks the cells only (series and
    catalog files, which have no row or column limit).

    Raises
    ------
    InputError (the class given as *error*)
        One line: where, what was found, the limit and its flag.
    """
    lim = limits or current()
    if rows and row > lim.max_rows:
        raise error(
            f"{label}: row {row:,} has data, past the limit of {lim.max_rows:,} "
            "rows per sheet or file; raise it with --max-rows."
        )
    if rows and len(cells) > lim.max_columns:
        last = max(
            (i for i, c in enumerate(cells, 1) if c is not None and c != ""), default=0
        )
        if last > lim.max_columns:
            raise error(
                f"{_where(label, row)}: {last:,} columns, over the limit of "
                f"{lim.max_columns:,} columns; raise it with --max-columns."
            )
    check_cells(label, row, cells, error=error, limits=lim)


def check_cells(
    label: str,
    row: int | None,
    cells: Iterable[Any],
    *,
    error: type[InputError],
    limits: Limits | None = None,
) -> None:
    """Refuse the first text cell longer than ``max_cell_chars`` (see :func:`check_row`)."""
    cap = (limits or current()).max_cell_chars
    if type(cells) is list:  # a CSV row: every cell text within the cap at C speed
        try:
            if max(map(len, cells), default=0) <= cap:
                return
        except TypeError:  # a number or an empty cell of a sheet: its texts only
            if max(map(len, [c for c in cells if isinstance(c, str)]), default=0) <= cap:
                return
    for i, cell in enumerate(cells, 1):
        if isinstance(cell, str) and len(cell) > cap:
            raise error(
                f"{_where(label, row, i)}: a cell of {len(cell):,} characters is over "
                f"the limit of {cap:,} characters per cell; raise it with "
                "--max-cell-chars."
            )


def csv_records(
    text: str,
    label: str,
    *,
    error: type[InputError],
    delimiter: str = ",",
    rows: bool = False,
    limits: Limits | None = None,
) -> Iterator[tuple[int, list[str]]]:
    """Records of CSV *text* as ``(record_number, cells)``, checked as they are read.

    Every file vsizer reads with the :mod:`csv` module goes through here. The
    module's field limit is raised to :data:`CSV_FIELD_LIMIT` so that the cell
    limit is what refuses a long cell (with its row and column); any
    ``_csv.Error`` left becomes one *error* line naming the record. With
    ``rows=True`` (inventories) the row and column limits apply too, and the
    reading stops at the first record past the row limit.

    Raises
    ------
    InputError (the class given as *error*)
        A limit is broken, or the text is not CSV the module can read.
    """
    lim = limits or current()
    reader = _reader(text, delimiter)
    number = 0
    while True:
        try:
            record = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise _unreadable(label, number + 1, exc, error) from None
        number += 1
        check_row(label, number, record, error=error, limits=lim, rows=rows)
        yield number, record


#: Records read before their limits are checked together (:func:`csv_grid`).
GRID_CHUNK = 4096


def csv_grid(
    text: str,
    label: str,
    *,
    error: type[InputError],
    delimiter: str = ",",
    limits: Limits | None = None,
) -> list[tuple[int, list[str]]]:
    """Every record of CSV *text*, as ``list(csv_records(..., rows=True))``
    gives them, with the same first error: the row, column and cell limits are
    checked :data:`GRID_CHUNK` records at a time at C speed (a record at a
    time only in a chunk that breaks one), so the reading stops at most one
    chunk past the row limit."""
    lim = limits or current()
    reader = _reader(text, delimiter)
    grid: list[tuple[int, list[str]]] = []
    while True:
        chunk: list[list[str]] = []
        bad: csv.Error | None = None
        try:
            for record in reader:
                chunk.append(record)
                if len(chunk) == GRID_CHUNK:
                    break
        except csv.Error as exc:
            bad = exc
        first = len(grid) + 1
        if (first + len(chunk) - 1 > lim.max_rows
                or max(map(len, chunk), default=0) > lim.max_columns
                or max(map(len, chain.from_iterable(chunk)), default=0) > lim.max_cell_chars):
            for k, record in enumerate(chunk):  # the first record over, as csv_records
                check_row(label, first + k, record, error=error, limits=lim)
        grid.extend(zip(range(first, first + len(chunk)), chunk, strict=True))
        if bad is not None:
            raise _unreadable(label, len(grid) + 1, bad, error) from None
        if len(chunk) < GRID_CHUNK:
            return grid


def _reader(text: str, delimiter: str) -> Iterator[list[str]]:
    """The :mod:`csv` reader of *text*, its field limit raised to
    :data:`CSV_FIELD_LIMIT` (the cell limit words a long cell)."""
    if csv.field_size_limit() < CSV_FIELD_LIMIT:
        csv.field_size_limit(CSV_FIELD_LIMIT)
    return csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)


def _unreadable(label: str, row: int, exc: csv.Error, error: type[InputError]) -> InputError:
    """The one line for a record the :mod:`csv` module cannot read."""
    return error(f"{label} row {row:,}: cannot read the CSV record ({exc}).")


def check_unzipped_size(
    path: Path, *, error: type[InputError], limits: Limits | None = None
) -> None:
    """Refuse an ``.xlsx`` whose zip directory declares more than ``max_xlsx_mib``.

    Only the central directory is read; nothing is decompressed. A file that
    is not a zip archive passes (the workbook reader then says so).

    Raises
    ------
    InputError (the class given as *error*)
        The declared uncompressed size is over the limit.
    """
    cap = (limits or current()).max_xlsx_mib
    try:
        with zipfile.ZipFile(path) as archive:
            infos = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError):
        return
    total = sum(i.file_size for i in infos)
    if total > cap * _MIB:
        biggest = max(infos, key=lambda i: i.file_size)
        raise error(
            f"{path.name}: {total / _MIB:,.0f} MiB uncompressed (the largest member, "
            f"'{biggest.filename}', {biggest.file_size / _MIB:,.0f} MiB), over the "
            f"limit of {cap:,} MiB for an .xlsx; raise it with --max-xlsx-mib."
        )



_TAG = re.compile(rb"<(?:\w+:)?(row|v|is)\b([^>]*)>")
_ROW_NUMBER = re.compile(rb"""\br=["'](\d+)["']""")
_CHUNK = 1 << 20
_TAIL = 4096  # longer than any row or value tag


def _numbered_within(text: bytes, past: re.Pattern[bytes]) -> bool:
    """Every row of ``text`` is written ``<row r="n"`` (as every XLSX writer
    writes it), there is one, and none is numbered past the limit (``past``):
    the chunk needs no tag by tag scan (ten times faster: literal patterns)."""
    rows = text.count(b"<row")
    return (
        rows > 0
        and rows == text.count(b'<row r="')
        and b":row" not in text
        and past.search(text) is None
    )


def _last_row_number(text: bytes, number: int) -> int:
    """The number of the last whole ``<row r="n"`` of ``text`` (the last may be
    cut by the chunk's end), else ``number``."""
    at = len(text)
    while (at := text.rfind(b'<row r="', 0, at)) >= 0:
        found = _ROW_NUMBER.match(text, at + 5)
        if found is not None:
            return int(found.group(1))
    return number


def at_least(n: int) -> bytes:
    """A regular expression for the decimal whole numbers >= ``n`` (``n >= 0``)."""
    digits = str(n)
    k = len(digits)
    alts = [rf"[1-9][0-9]{{{k},}}", digits]
    for i, d in enumerate(digits):
        if d != "9":
            alts.append(digits[:i] + f"[{int(d) + 1}-9]" + f"[0-9]{{{k - i - 1}}}")
    return ("(?:" + "|".join(alts) + ")").encode()


def check_sheet_xml_rows(
    source: IO[bytes],
    label: str,
    *,
    error: type[InputError],
    limits: Limits | None = None,
) -> None:
    """Refuse a worksheet's XML that has a value in a row past ``max_rows``.

    A byte scan of the sheet XML for its ``<row r="n">`` elements and their
    ``<v>``/``<is>`` values (SpreadsheetML, ECMA-376 Part 1, 18.3.1.73,
    18.3.1.96, 18.3.1.53): far faster than reading cells, so an over-long
    sheet is refused before its rows are read. Rows without ``r`` are counted
    in order. A row past the limit whose only value is an empty string counts
    as data here.

    Raises
    ------
    InputError (the class given as *error*)
        As :func:`check_row`, for the first row past the limit with a value.
    """
    cap = (limits or current()).max_rows
    past = re.compile(rb'<row r="' + at_least(cap + 1) + rb'"')
    buf, number = b"", 0
    while True:
        chunk = source.read(_CHUNK)
        buf += chunk
        if chunk and _numbered_within(buf, past):
            number = _last_row_number(buf, number)
            buf = buf[len(buf) - _TAIL:]
            continue
        end = 0
        for m in _TAG.finditer(buf):
            end = m.end()
            if m.group(1) == b"row":
                found = _ROW_NUMBER.search(m.group(2))
                number = int(found.group(1)) if found else number + 1
            elif number > cap and not m.group(2).endswith(b"/"):
                raise error(
                    f"{label}: row {number:,} has data, past the limit of {cap:,} "
                    "rows per sheet or file; raise it with --max-rows."
                )
        if not chunk:
            return
        buf = buf[max(end, len(buf) - _TAIL):]


#: Most steps of a time grid, whatever the servers: ten 365-day years of
#: 5-minute steps. A grid stretched past it by a few samples far from the rest
#: (a clock reset to 1970, a date in 2262) is refused before it is built.
MAX_GRID_STEPS = 1_051_200


def check_grid(
    n_steps: int,
    n_servers: int,
    what: str,
    *,
    error: type[Exception] = ValueError,
    limits: Limits | None = None,
) -> None:
    """Refuse a time grid of more than ``max_grid_cells`` steps x servers.

    Called with the step count computed from the first and last step, before
    anything of the grid's size is allocated. *what* describes the grid (its
    step and span) in the message.

    Raises
    ------
    Exception (the class given as *error*, ValueError by default)
        One line: the steps, servers, cells, the limit and its flag.
    """
    if int(n_steps) > MAX_GRID_STEPS:
        raise error(
            f"the time grid would be {n_steps:,} steps ({what}), over the limit of "
            f"{MAX_GRID_STEPS:,} steps (ten years of 5-minute steps); keep the series "
            "to the period to plan, or plan on a coarser --step."
        )
    cap = (limits or current()).max_grid_cells
    cells = int(n_steps) * int(n_servers)
    if cells > cap:
        raise error(
            f"the time grid would be {n_steps:,} steps ({what}) x {n_servers:,} "
            f"server(s) = {cells:,} cells, over the limit of {cap:,} cells; "
            "raise it with --max-grid-cells, or keep the series to the period to plan."
        )
