"""A worksheet's cell values read by calamine: the fast path of whole-sheet reads.

openpyxl builds a Python cell object per cell, about 100 µs a row of nine
cells; python-calamine [1]_ parses the sheet in Rust, about ten times faster
(``benchmarks/bench_xlsx_read.py``). Its values are made to be the ones openpyxl
gives (:func:`vsizer.inventory._io.iter_sheet`), so both readers make the same
grid:

- a whole number stored as a float is an ``int`` (openpyxl reads ``<v>4</v>``
  as 4);
- a date at midnight is a ``datetime`` (openpyxl gives no ``date``);
- an empty cell is None, not ``""``;
- an error cell (``#N/A``, ``#DIV/0!``) is its text: calamine gives it as
  empty, so such cells are found in the sheet's XML [2]_ (``t="e"``);
- a number whose cell format shows a percentage is a
  :class:`~vsizer.inventory._io.PercentValue`: calamine gives no formats, so
  the cells with such a style (``s="n"``) are found in the sheet's XML.

Where the two still differ, found on 40 real workbooks of 17 repositories and
1,693 test files of spreadsheet libraries, calamine's reading is kept; none
changes what a server-list reader takes from a cell:

- an empty text cell is None here, ``""`` in openpyxl (both blank to the
  readers), and text written without ``xml:space="preserve"`` comes without its
  outer spaces (the readers strip cells);
- ``_x000D_`` and the other ``_xHHHH_`` escapes of cell text are the characters
  they stand for (ECMA-376 Part 1, 22.9.2.19), where openpyxl keeps them as
  written;
- the East Asian built-in date formats (``numFmtId`` 27-36 and 50-58, used
  without a ``<numFmt>`` by Japanese Excel) read as dates, as Excel shows them;
  openpyxl reads their numbers;
- rare ones: a negative serial in a time format is a time, a whole number past
  2**53 a float, a ``t="d"`` date a datetime, a date serial past year 9999 a
  number (openpyxl: ``#VALUE!``), and a row written twice is merged (openpyxl
  keeps one of the two).

:func:`sheet_values` returns None, and the caller reads the sheet with openpyxl,
when python-calamine is not installed, the workbook was not opened by
:func:`~vsizer.inventory._io.open_workbook`, its styles part had to be replaced
(cell formats lost), or calamine cannot read it (openpyxl's reading
then words the error), or a cell to be found in the XML has no ``r`` reference.

.. [1] python-calamine, Python bindings of the calamine Rust crate
   (https://github.com/dimastbk/python-calamine).
.. [2] ECMA-376 Part 1, 18.3.1.4 (``c``: attributes ``r``, ``s``, ``t``) and
   18.18.11 (``ST_CellType``: ``e`` is an error).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from typing import Any
from xml.parsers import expat

from vsizer.limits import at_least

__all__ = ["sheet_values"]

_CHUNK = 1 << 24
_REF = re.compile(rb"""\br\s*=\s*["']([A-Z]+)([0-9]+)["']""")
_ERROR_VALUE = re.compile(rb"<(?:\w+:)?v>([^<]*)<")
_WHOLE = float(2**53)


def sheet_values(
    ws: Any, percent: Callable[[float], Any] = float
) -> list[list[Any]] | None:
    """Every row of read-only openpyxl worksheet ``ws`` as values (row 1 first,
    empty rows included), as openpyxl reads them, a number in a percent format
    given to ``percent`` (:class:`~vsizer.inventory._io.PercentValue`); None when
    calamine cannot stand in (see the module's docstring)."""
    wb = getattr(ws, "parent", None)
    path = getattr(wb, "vsizer_path", None)
    mended = getattr(wb, "vsizer_repair", None)
    if path is None or (mended and not getattr(wb, "vsizer_formats_kept", False)):
        return None  # not a file, or its cell formats lost: openpyxl's reading
    book = _calamine_book(wb, str(path))
    if book is None:
        return None
    try:
        rows = book.get_sheet_by_name(ws.title).to_python(skip_empty_area=False)
    except Exception:  # noqa: BLE001 - any failure: openpyxl reads it and words it
        return None
    marks = _marked_cells(ws, _percent_styles(wb), len(getattr(wb, "_cell_styles", ())))
    if marks is None or marks.last > max([len(rows), *(r + 1 for r, _ in marks)]):
        return None  # a value calamine did not read: a damaged sheet
    w = _WHOLE
    out = [_trimmed([  # _value, its two common cases written out (a call a cell is slow)
        (int(v) if v.is_integer() and -w <= v <= w else v) if type(v) is float
        else (v or None) if type(v) is str else _value(v)
        for v in row]) for row in rows]
    for (r, c), mark in marks.items():
        if r < len(out):
            row = out[r]
            if c >= len(row):
                row.extend([None] * (c + 1 - len(row)))
            row[c] = _marked(row[c], mark, percent)
    return out


def _calamine_book(wb: Any, path: str) -> Any:
    """The calamine workbook of ``path``, opened once per openpyxl workbook."""
    book = getattr(wb, "_vsizer_calamine", False)
    if book is False:
        try:
            import python_calamine

            book = python_calamine.CalamineWorkbook.from_path(path)
        except Exception:  # noqa: BLE001 - not installed, or unreadable by it
            book = None
        wb._vsizer_calamine = book
    return book


def _trimmed(row: list[Any]) -> list[Any]:
    """``row`` without its trailing empty cells (calamine pads every row)."""
    while row and row[-1] is None:
        row.pop()
    return row


def _value(v: Any) -> Any:
    t = type(v)
    if t is float:
        return int(v) if v.is_integer() and -_WHOLE <= v <= _WHOLE else v
    if t is str:
        return v if v else None
    if t is dt.date:
        return dt.datetime(v.year, v.month, v.day)
    return v


def _marked(value: Any, mark: Any, percent: Callable[[float], Any]) -> Any:
    if mark is _PERCENT:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        return percent(value) if ok else value
    return mark  # an error cell's text


_PERCENT = object()


def _percent_styles(wb: Any) -> frozenset[bytes]:
    """The cell style indexes (``s``) whose number format shows a percentage,
    by openpyxl's rule (``%`` in the format code)."""
    from openpyxl.styles.numbers import BUILTIN_FORMATS, BUILTIN_FORMATS_MAX_SIZE

    found = []
    custom = getattr(wb, "_number_formats", [])
    for index, style in enumerate(getattr(wb, "_cell_styles", [])):
        fmt_id = style.numFmtId
        if fmt_id < BUILTIN_FORMATS_MAX_SIZE:
            code = BUILTIN_FORMATS.get(fmt_id, "General")
        elif fmt_id - BUILTIN_FORMATS_MAX_SIZE < len(custom):
            code = custom[fmt_id - BUILTIN_FORMATS_MAX_SIZE]
        else:
            continue
        if "%" in code:
            found.append(str(index).encode())
    return frozenset(found)


def _marked_cells(ws: Any, percent: frozenset[bytes], styles: int) -> _Marks | None:
    """The sheet's cells calamine does not tell, from its XML: those in a percent
    style and the error cells (their text), and the last row with a value.
    None when the XML is one openpyxl must read: a marked cell without a
    reference, a cell style past the ``styles`` of the styles part (openpyxl
    refuses it as damage), a last row with a value that has no number, XML
    that is not well-formed (calamine reads past some of it, dropping cells)."""
    over = at_least(styles)
    ids = b"|".join(sorted(percent))
    canonical = _Canonical(ids) if percent else None
    finds = {
        # the attribute as writers put it: a literal start, ten times faster
        False: [(_style_attr(_WRITTEN, over), b"!")]
        + ([(_style_attr(_WRITTEN, ids), b"s")] if percent else []),
        # spaces around "=" (well-formed XML too): the slower pattern
        True: [(_style_attr(rb"\ss\s*=\s*[\"']", over), b"!")]
        + ([(_style_attr(rb"\ss\s*=\s*[\"']", ids), b"s")] if percent else []),
    }
    marks = _Marks()
    buf = b""
    check = expat.ParserCreate()  # well-formed, as openpyxl's parser needs it
    with ws._get_source() as source:
        while True:
            chunk = source.read(_CHUNK)
            try:
                check.Parse(chunk, not chunk)
            except expat.ExpatError:
                return None  # calamine would read past it: openpyxl words it
            buf += chunk
            cut = buf.rfind(b"row>") + 4 if chunk else len(buf)
            if chunk and cut < 4:  # no whole row yet
                continue
            text, buf = buf[:cut], buf[cut:]
            spaced = any(odd in text for odd in _SPACED)
            done = not spaced and canonical is not None and canonical.mark(text, marks)
            for find, kind in finds[spaced][: 1 if done else None]:
                if not _mark(text, find, kind, marks):
                    return None
            if (b'"e"' in text or b"'e'" in text) and not _mark(
                text, _ERROR_CELL, b"e", marks
            ):
                return None
            if not _last_row(text, marks):
                return None
            if not chunk:
                return marks


class _Marks(dict):
    """``{(row index, column index): mark}``, and ``last``: the number of the
    last row holding a value (``<v>`` or ``<is>``)."""

    last = 0


def _last_row(text: bytes, marks: _Marks) -> bool:
    at = max(text.rfind(b"v>"), text.rfind(b"is>"))
    if at < 0:
        return True
    start = max(text.rfind(b"<row", 0, at), text.rfind(b":row", 0, at))
    found = _ROW_NUMBER.match(text, start + 1) if start >= 0 else None
    if found is None:
        return False
    marks.last = max(marks.last, int(found.group(1)))
    return True


_ROW_NUMBER = re.compile(rb"""row\b[^>]*?\br\s*=\s*["']([0-9]+)["']""")


class _Canonical:
    """The percent-styled cells of a text whose every such cell's tag starts as
    the writers of XLSX write it, ``<c r="I5" s="1"``: found by one pattern with
    a literal start (0.1 s for 200,000 cells; the tag by tag way takes 2 s)."""

    def __init__(self, ids: bytes) -> None:
        self.cells = re.compile(rb'<c r="([A-Z]+)([0-9]+)" s="(?:' + ids + rb')"')
        self.attrs = _style_attr(_WRITTEN, ids)  # every such one
        self.columns: dict[bytes, int] = {}

    def mark(self, text: bytes, marks: dict) -> bool:
        """Mark the cells; False (nothing marked) when some tag is written
        otherwise, or a row has such a style."""
        found = self.cells.findall(text)
        if len(found) != len(self.attrs.findall(text)):
            return False
        columns = self.columns
        for letters, row in found:
            col = columns.get(letters)
            if col is None:
                col = columns[letters] = _column(letters)
            marks[(int(row) - 1, col)] = _PERCENT
        return True


#: An ``s`` attribute with white space around its "=".
_SPACED = (b"s =", b"s\t=", b"s\n=", b"s\r=")


#: An ``s`` attribute up to its quote as writers put it, after white space: the
#: literal ``s=`` first, the white space checked behind it (a pattern starting
#: with the class scans 206 MB of sheet XML in 1.1 s, this one in 0.09 s).
_WRITTEN = rb"s=[\"'](?<=[ \t\r\n]s=[\"'])"


def _style_attr(start: bytes, ids: bytes) -> re.Pattern[bytes]:
    """An ``s`` attribute (``start`` up to its quote) whose value is one of ``ids``
    (a regular expression)."""
    return re.compile(start + rb"(?:" + ids + rb")[\"']")


def _cell_with(attribute: bytes) -> re.Pattern[bytes]:
    """A cell's start tag having ``attribute``; group 1 its attributes."""
    return re.compile(rb"<(?:\w+:)?c\s(?=[^>]*\b" + attribute + rb")([^>]*)>")


_ERROR_CELL = _cell_with(rb"t\s*=\s*[\"']e[\"']")


def _mark(text: bytes, find: re.Pattern[bytes], kind: bytes, marks: dict) -> bool:
    """Record the cells whose start tag ``find`` matches in (an attribute of
    theirs, or, for ``kind`` e, the tag); False when one has no reference or,
    for ``kind`` !, when there is one."""
    for m in find.finditer(text):
        start = m.start() if kind == b"e" else text.rfind(b"<", 0, m.start())
        end = text.find(b">", m.start())
        if _CELL_TAG.match(text, start) is None:
            continue  # a row's style (s), not a cell's
        if kind == b"!":
            return False
        ref = _REF.search(text, start, end)
        if ref is None:
            return False
        key = (int(ref.group(2)) - 1, _column(ref.group(1)))
        if kind == b"s":
            marks[key] = _PERCENT
        else:
            v = None if text[end - 1:end] == b"/" else _ERROR_VALUE.search(
                text, end, text.find(b"c>", end))
            if v is not None:
                marks[key] = v.group(1).decode("utf-8", "replace")
    return True


_CELL_TAG = re.compile(rb"<(?:\w+:)?c\s")


def _column(letters: bytes) -> int:
    n = 0
    for ch in letters:
        n = n * 26 + ch - 64
    return n - 1
