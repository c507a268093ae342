"""The cells of a server list read column by column (issue 25: a million rows).

:func:`convert_columns` reads each mapped column of the planned rows at once:
each distinct cell of a column (same type, same value) is read once, by the
same :func:`~vsizer.inventory._cells._convert_cell` as the row reader, and the
readings are handed to the records in the row reader's order, so values,
quality records and cell texts are those of
:func:`vsizer.inventory.tabular._convert_row`, entry for entry. A cell that
cannot be read makes it give up before anything is stored: the row reader
then reads the file and reports every bad cell, with its row and column, in
its order.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import compress
from typing import Any

from vsizer.inventory._build import ServerRecord, clean_text
from vsizer.inventory._cell_keys import cell_keys, column_of
from vsizer.inventory._cells import _Bad, _convert_cell, _display
from vsizer.quality import QualityReport
from vsizer.units import is_blank

#: Fields whose reading depends on the row's memory or disk size (a used size
#: in %): read cell by cell, with the row's value.
_ROW_FIELDS = {"mem_used_gib": "mem_gib", "disk_used_gib": "disk_gib"}

#: The quality pairs of a cell read without a note (one shared object each).
_PAIRS = {"given": ("given", ""), "derived": ("derived", "")}

_BLANK = object()  # the reading of a blank cell


def convert_columns(
    planned: list[ServerRecord],
    rows: list[list[Any]],
    fields: list[tuple[str, int, str, str | None]],
    quality: QualityReport,
    then: Callable[[ServerRecord], None],
) -> bool:
    """Read ``fields`` ``(field, column, header, unit)`` of ``rows`` (the cells
    of each record of ``planned``) into the records, as the row reader does,
    calling ``then`` on each record once its cells are stored (the row
    reader's next steps, in its order). False, and nothing stored or called,
    when a cell cannot be read."""
    readings = []
    known: dict[str, list[Any]] = {}
    for f, i, header, unit in fields:
        column = column_of(rows, i)
        base = known.get(_ROW_FIELDS.get(f, ""))
        got = _read_column(f, header, column, unit, base)
        if got is None:
            return False
        if f in ("mem_gib", "disk_gib"):
            known[f] = got[2]  # the values, None for a blank cell
        readings.append((f, column, *got))
    if not readings:
        for rec in planned:
            then(rec)
        return True
    _store(planned, readings, quality, then)
    return True


def _read_column(
    f: str, header: str, column: list[Any], unit: str | None, base: list[Any] | None
) -> _Column | None:
    """The ``(header, text)`` of each cell (one shared pair per distinct cell),
    its reading (``(value, status, note)`` or ``_BLANK``), value and quality
    pair (:func:`_hand_out`); None at the first cell that cannot be read. A
    used size (``base``: its row's size) is read once per distinct cell and
    size."""
    if f in _ROW_FIELDS and base is not None:
        keys = list(zip(cell_keys(column), cell_keys(base), strict=True))
        return _read_keyed(f, header, keys, unit, _ROW_FIELDS[f])
    if f not in _ROW_FIELDS and _TEXT_TYPES.issuperset(map(type, column)):
        return _read_texts(f, header, column, unit)
    return _read_keyed(f, header, cell_keys(column), unit, None)


#: Cell types read by distinct value (a CSV's cells: text, or None past a short row).
_TEXT_TYPES = frozenset({str, type(None)})


def _read_texts(
    f: str, header: str, column: list[Any], unit: str | None
) -> _Column | None:
    """:func:`_read_column` of a column of texts and Nones (a field read
    without its row): each distinct cell read once, in the order of its first
    row, the readings handed out by a dict look-up per row (a text or None is
    its own key: no text equals None)."""
    cell_of: dict[Any, tuple[str, str]] = {}
    result_of: dict[Any, Any] = {}
    for raw in dict.fromkeys(column):
        cell_of[raw] = (header, raw if type(raw) is str else _display(raw))
        if is_blank(raw):
            result_of[raw] = _BLANK
            continue
        try:
            result_of[raw] = _convert_cell(f, raw, unit, {})
        except _Bad:
            return None
    return _hand_out(column, cell_of, result_of)


def _read_keyed(
    f: str, header: str, keys: list[tuple[Any, ...]], unit: str | None,
    row_field: str | None,
) -> _Column | None:
    """:func:`_read_column` of a column of cells of any type, one reading per
    distinct key of :func:`~vsizer.inventory._cell_keys.cell_keys` (a sheet's
    numbers beside its texts), in the order of its first row, handed out by a
    dict look-up per row. With ``row_field`` (a used size), a key is the
    cell's and its row's size's, the size given to the reading as that field."""
    cell_of: dict[Any, tuple[str, str]] = {}
    result_of: dict[Any, Any] = {}
    for key in dict.fromkeys(keys):
        raw = key[0][1] if row_field else key[1]  # the cell of the key's first row
        cell_of[key] = (header, raw if type(raw) is str else _display(raw))
        if is_blank(raw):
            result_of[key] = _BLANK
            continue
        row = {row_field: key[1][1]} if row_field else {}
        try:
            result_of[key] = _convert_cell(f, raw, unit, row)
        except _Bad:
            return None
    return _hand_out(keys, cell_of, result_of)


#: A column read: each cell's ``(header, text)``, reading, value and quality pair.
_Column = tuple[list[tuple[str, str]], list[Any], list[Any], list[Any]]


def _hand_out(keys: list[Any], cell_of: dict[Any, tuple[str, str]],
              result_of: dict[Any, Any]) -> _Column:
    """Each row's cell, reading, value (None: blank) and quality pair (``_SKIP``:
    blank; None: a note to record; else the shared pair), by a dict look-up
    per row of what each distinct key gives."""
    value_of = {k: None if r is _BLANK else r[0] for k, r in result_of.items()}
    pair_of = {k: _SKIP if r is _BLANK else None if r[2] else _PAIRS.get(r[1])
               for k, r in result_of.items()}
    return (list(map(cell_of.__getitem__, keys)), list(map(result_of.__getitem__, keys)),
            list(map(value_of.__getitem__, keys)), list(map(pair_of.__getitem__, keys)))


def _store(
    planned: list[ServerRecord], readings: list[tuple[Any, ...]], quality: QualityReport,
    then: Callable[[ServerRecord], None],
) -> None:
    """The readings into the records and the quality report, record by record,
    field by field: the row reader's order of insertion. A record whose cells
    all hold a value read without a note is stored a row at a time."""
    names = tuple(r[0] for r in readings)
    values = [r[4] for r in readings]
    pairs = [r[5] for r in readings]
    slow = _partner_notes(readings)
    entries = quality.entries
    rows = zip(planned, zip(*(r[2] for r in readings), strict=True),
               zip(*values, strict=True), zip(*pairs, strict=True), strict=True)
    for k, (rec, row_cells, row_values, row_pairs) in enumerate(rows):
        rec.cells.update(zip(names, row_cells, strict=True))
        if None in row_pairs or k in slow:
            _store_one(rec, k, readings, quality)
        elif _SKIP not in row_pairs:
            rec.values.update(zip(names, row_values, strict=True))
            entries.setdefault(rec.name, {}).update(zip(names, row_pairs, strict=True))
        else:  # blank cells: the others, in field order, as _store_one stores them
            keep = [p is not _SKIP for p in row_pairs]
            if any(keep):
                rec.values.update(zip(compress(names, keep), compress(row_values, keep),
                                      strict=True))
                entries.setdefault(rec.name, {}).update(
                    zip(compress(names, keep), compress(row_pairs, keep), strict=True))
        then(rec)


#: A blank cell's place in a row's quality pairs (nothing stored for it).
_SKIP = object()


def _partner_notes(readings: list[tuple[Any, ...]]) -> set[int]:
    """The records whose partner cell is blank to the reader but holds text
    (``なし``, ``-``): :func:`_store_one` notes each ("no partner")."""
    for f, column, _, results, _, _ in readings:
        if f == "redundant_with":
            text = {raw: clean_text(raw) is not None for raw in dict.fromkeys(column)}
            return {k for k, (raw, r) in enumerate(zip(column, results, strict=True))
                    if r is _BLANK and text[raw]}
    return set()


def _store_one(
    rec: ServerRecord, k: int, readings: list[tuple[Any, ...]], quality: QualityReport
) -> None:
    """Record ``k``'s values and quality, field by field (a blank cell, a note)."""
    entry = None
    for f, column, cells, results, _, _ in readings:
        r = results[k]
        if r is _BLANK:
            if f == "redundant_with" and clean_text(column[k]) is not None:
                quality.record(rec.name, f, "given", f"'{cells[k][1]}': no partner")
            continue
        value, status, note = r
        rec.values[f] = value
        pair = None if note else _PAIRS.get(status)
        if pair is None:
            quality.record(rec.name, f, status, note)
            continue
        if entry is None:
            entry = quality.entries.setdefault(rec.name, {})
        entry[f] = pair
