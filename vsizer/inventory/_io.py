"""File access shared by the inventory readers: CSV decoding and XLSX row iteration.

Both return a *grid*: ``(row_number, cells)`` pairs where ``row_number`` is the
spreadsheet row (1-based, counting every line of the file including titles and
headers) and ``cells`` the raw values. Nothing here interprets a value.
"""

from __future__ import annotations

import contextlib
import io
import re
import warnings
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from vsizer._textio import decode, read_bytes, sniff_delimiter
from vsizer.errors import InventoryError
from vsizer.inventory._xlsx_values import sheet_values
from vsizer.limits import (
    check_row,
    check_sheet_xml_rows,
    check_unzipped_size,
    csv_grid,
)

__all__ = [
    "CSV_ENCODINGS",
    "PercentValue",
    "decode_csv",
    "open_workbook",
    "read_csv_grid",
    "sheet_rows",
    "sniff_delimiter",
]

#: Stop reading a sheet after this many consecutive empty rows. RVTools
#: formats ranges down to row 1,048,576; real data never has such gaps.
MAX_EMPTY_RUN = 100

#: Encodings tried, in order, for CSV files (Japanese Excel saves cp932).
CSV_ENCODINGS: tuple[str, ...] = ("utf-8-sig", "cp932", "shift_jis")

Grid = list[tuple[int, list[Any]]]


class PercentValue(float):
    """A number Excel stores as a fraction and shows as a percentage (0.45 -> 45%)."""

    def __str__(self) -> str:
        return f"{float(self) * 100:g}%"


def decode_csv(path: Path) -> tuple[str, str]:
    """Text of a CSV file and the encoding that decoded it.

    A ``.gz``, ``.bz2``, ``.xz`` or one-file ``.zip`` is decompressed first
    (told by its first bytes, :mod:`vsizer._textio`). Tries UTF-16 when the
    text starts with its byte-order mark, else :data:`CSV_ENCODINGS` in order.
    """
    data = read_bytes(path, error=InventoryError)
    return decode(data, path.name, encodings=CSV_ENCODINGS, error=InventoryError)


def read_csv_grid(path: Path) -> tuple[Grid, dict[str, Any]]:
    """All records of a CSV file as a grid, plus ``encoding`` and ``delimiter``.

    Read within the limits in force (:mod:`vsizer.limits`), checked a chunk of
    records at a time (:func:`~vsizer.limits.csv_grid`): the reading stops at
    most a chunk past ``--max-rows``, with the error of the first record past it.
    """
    text, encoding = decode_csv(path)
    delimiter = sniff_delimiter(text)
    grid: Grid = csv_grid(text, path.name, error=InventoryError, delimiter=delimiter)
    return grid, {"encoding": encoding, "delimiter": delimiter}


def open_workbook(path: Path) -> Any:
    """Open an XLSX read-only with cached formula values (else InventoryError).

    An archive declaring more than ``--max-xlsx-mib`` uncompressed is refused
    before anything is decompressed (:func:`vsizer.limits.check_unzipped_size`).
    A styles part openpyxl cannot read (other spreadsheet programs' extensions,
    e.g. SoftMaker's ``<extLst>`` in fills and fonts) does not stop the reading:
    :func:`_open_restyled` reads the cells without it, and the workbook's
    ``vsizer_repair`` attribute says so (a warning of the readers). The
    worksheets are mended alike: their extension blocks and data validations
    (drop-down lists; SoftMaker writes a ``view`` attribute openpyxl refuses)
    are not read.
    """
    import openpyxl

    from vsizer.inventory._xlsx_dims import install

    check_unzipped_size(path, error=InventoryError)
    install()  # a sheet without <dimension> is not parsed whole at open
    # openpyxl's UserWarnings are about parts vsizer does not read (extensions,
    # validations, conditional formats); printed, they are two lines of noise
    warnings.filterwarnings("ignore", category=UserWarning, module="openpyxl")
    try:
        with contextlib.redirect_stdout(io.StringIO()):  # openpyxl prints some
            wb = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except _OPEN_ERRORS as exc:
        raise InventoryError(
            f"{path.name}: cannot open as an Excel workbook (.xlsx): {exc}"
        ) from exc
    except _STYLE_ERRORS as exc:  # in openpyxl's stylesheet reader
        wb = _open_restyled(path, exc)
    wb.vsizer_path = path  # the file itself (a mended workbook is read from memory)
    return wb


_OPEN_ERRORS = (
    zipfile.BadZipFile, KeyError, OSError, ValueError, zlib.error, EOFError,
    SyntaxError,  # XML ParseError of a damaged member (lxml's too)
    NotImplementedError,  # a member compressed with an unsupported method
)

#: What openpyxl's stylesheet reader raises on styles other programs write: an
#: unknown attribute (TypeError), a font id past 2**31 (OverflowError, NPOI's
#: HugeStyles.xlsx), a named style that is not there (IndexError, node-xlsx-stream).
_STYLE_ERRORS = (TypeError, AttributeError, OverflowError, IndexError)

#: The smallest stylesheet Excel accepts: one font, fill, border and format.
_PLAIN_STYLES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
    '<fonts count="1"><font/></fonts><fills count="1"><fill/></fills>'
    '<borders count="1"><border/></borders>'
    '<cellStyleXfs count="1"><xf/></cellStyleXfs><cellXfs count="1"><xf/></cellXfs>'
    "</styleSheet>"
)


_EXTENSIONS = re.compile(r"<(\w+:)?extLst\b.*?</(\w+:)?extLst>", re.S)
_VALIDATIONS = re.compile(r"<(\w+:)?dataValidations\b.*?</(\w+:)?dataValidations>", re.S)


def _without(data: bytes, *blocks: re.Pattern[str]) -> str:
    """The XML text of a package part without the ``blocks``."""
    text = data.decode("utf-8", "replace")
    for block in blocks:
        text = block.sub("", text)
    return text


def _open_restyled(path: Path, first: Exception) -> Any:
    """The workbook at ``path`` read with its styles part mended: first without
    its ``<extLst>`` extension blocks (number formats kept), else replaced by a
    plain stylesheet (cell values kept, number formats lost: a date may read
    as its serial number). Sets ``wb.vsizer_repair`` to the one-line account."""
    import openpyxl

    with zipfile.ZipFile(path) as z:
        parts = {i.filename: z.read(i) for i in z.infolist()}
    name = next((n for n in parts if n.lower() == "xl/styles.xml"), None)
    if name is None:
        raise InventoryError(
            f"{path.name}: cannot open as an Excel workbook (.xlsx): {first}"
        ) from first
    text = _without(parts[name], _EXTENSIONS)
    for n in [n for n in parts if re.match(r"xl/worksheets/[^/]+\.xml$", n, re.I)]:
        parts[n] = _without(parts[n], _EXTENSIONS, _VALIDATIONS).encode("utf-8")
    tries = (
        (text, "without its extension blocks (<extLst>); values and number "
         "formats kept"),
        (_PLAIN_STYLES, "without its cell formats; values kept, a date may read "
         "as its serial number"),
    )
    for styles, how in tries:
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as out:
            for n, data in parts.items():
                out.writestr(n, styles.encode("utf-8") if n == name else data)
        buf.seek(0)
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                wb = openpyxl.load_workbook(buf, read_only=True, data_only=True)
        except (*_STYLE_ERRORS, *_OPEN_ERRORS):
            continue
        wb.vsizer_formats_kept = styles is text  # cell formats as in the file
        wb.vsizer_repair = (
            f"{path.name}: its styles part could not be read ({type(first).__name__}: "
            f"{first}); the workbook was read {how} (its data validations and "
            "extension blocks not read)"
        )
        return wb
    raise InventoryError(
        f"{path.name}: cannot open as an Excel workbook (.xlsx): {first}"
    ) from first


def iter_sheet(
    ws: Any, *, max_rows: int | None = None, whole: bool = False
) -> Iterator[tuple[int, list[Any]]]:
    """Non-empty rows of a read-only worksheet as ``(row_number, values)``.

    Numbers formatted as percentages come back as :class:`PercentValue`.
    Stops after :data:`MAX_EMPTY_RUN` consecutive empty rows, or after
    ``max_rows`` rows when given. ``whole``: the sheet is to be read to its end,
    so calamine reads it when it can (:mod:`vsizer.inventory._xlsx_values`), the
    same values ten times faster.
    """
    if hasattr(ws, "reset_dimensions"):
        ws.reset_dimensions()  # stored dimensions may be wrong or absurd
    fast = sheet_values(ws, PercentValue) if whole and max_rows is None else None
    rows = enumerate(fast, start=1) if fast is not None else _cell_rows(ws)
    empty_run = 0
    for number, values in rows:
        if max_rows is not None and number > max_rows:
            return
        if all(v is None or (isinstance(v, str) and not v.strip()) for v in values):
            empty_run += 1
            if empty_run >= MAX_EMPTY_RUN:
                return
            continue
        empty_run = 0
        yield number, values


def _cell_rows(ws: Any) -> Iterator[tuple[int, list[Any]]]:
    """Every row of ``ws`` as ``(row_number, values)``, read by openpyxl."""
    for number, row in enumerate(undamaged_rows(ws), start=1):
        try:
            values = [_cell_value(c) for c in row]
        except IndexError:  # a cell's style id past the styles part (damaged)
            raise InventoryError(
                f"{_workbook_file(ws)}: the workbook is damaged (sheet '{ws.title}' "
                f"row {number}: a cell refers to a style that is not there); open "
                "it in Excel and save it again."
            ) from None
        yield number, values


def sheet_rows(ws: Any, label: str) -> Iterator[tuple[int, list[Any]]]:
    """:func:`iter_sheet` within the limits in force (:mod:`vsizer.limits`).

    *label* names the file and sheet in messages. Reading stops at the first
    row past ``--max-rows`` (an error), so a long sheet is never read whole; a
    byte scan of the sheet's XML refuses it before any row is parsed
    (:func:`vsizer.limits.check_sheet_xml_rows`).
    """
    source = getattr(ws, "_get_source", None)  # openpyxl read-only worksheet
    if source is not None:
        try:
            with source() as xml:
                check_sheet_xml_rows(xml, label, error=InventoryError)
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError) as exc:
            raise InventoryError(
                f"{label}: cannot read the sheet, the workbook is damaged ({exc}); "
                "open it in Excel and save it again."
            ) from None
    for number, values in iter_sheet(ws, whole=True):
        check_row(label, number, values, error=InventoryError)
        yield number, values


def _cell_value(cell: Any) -> Any:
    value = getattr(cell, "value", None)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        fmt = getattr(cell, "number_format", "") or ""
        if "%" in fmt:
            return PercentValue(value)
    return value


#: What a damaged sheet member raises while its rows are read: corrupt deflate
#: data, a bad CRC or a truncated member (zlib, zipfile), malformed XML
#: (xml.etree's ParseError and lxml's XMLSyntaxError are SyntaxErrors).
_DAMAGE = (zlib.error, zipfile.BadZipFile, EOFError, SyntaxError)


def _workbook_file(ws: Any) -> str:
    """The file name of a read-only worksheet's workbook, for messages."""
    wb = getattr(ws, "parent", None)
    path = getattr(wb, "vsizer_path", None) or getattr(
        getattr(wb, "_archive", None), "filename", None)
    return Path(str(path or "the workbook")).name


#: What openpyxl raises on an element it cannot build: an unknown attribute
#: (TypeError), a chart sheet (AttributeError), a cell reference ``r="0"``
#: (ValueError, ExcelDataReader's Fillreport.xlsx), a conditional format's
#: unknown operator (ValueError, ClosedXML's formats.xlsx).
_ELEMENT_ERRORS = (TypeError, AttributeError, ValueError, IndexError, OverflowError)


def undamaged_rows(ws: Any) -> Iterator[Any]:
    """``ws.iter_rows()``, a damaged member raising :class:`InventoryError`
    ``FILE: the workbook is damaged (sheet 'S': ...); ...``."""
    try:
        yield from ws.iter_rows()
    except _ELEMENT_ERRORS as exc:  # an element openpyxl cannot build
        raise InventoryError(
            f"{_workbook_file(ws)}: sheet '{ws.title}' holds an element this reader "
            f"cannot read ({type(exc).__name__}: {exc}), written by another "
            "spreadsheet program; open it in Excel (or LibreOffice) and save it "
            "again as .xlsx."
        ) from None
    except _DAMAGE as exc:
        file = _workbook_file(ws)
        reason = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        raise InventoryError(
            f"{file}: the workbook is damaged (sheet '{ws.title}': {reason}); "
            "open it in Excel and save it again."
        ) from None
