"""Reader of server lists kept as spreadsheets: CSV and XLSX, Japanese or English.

The table has one row per server and a header row that need not be the first
row (titles above it are common): the header is the row, among the first
:data:`HEADER_SCAN_ROWS` non-empty ones, in which most cells are recognized
headers (:data:`~vsizer.inventory.headers.VARIABLE_MAP`). Units come from the
header (``メモリ(MB)``), from the cell (``"16GB"``, ``"45%"``, a percent-formatted
Excel cell), or from the documented defaults, and are converted once here
(:mod:`vsizer.units`).

Validation collects every problem of the file and raises one
:class:`~vsizer.errors.InventoryError`, one line per problem, e.g.
``servers.csv row 7, column 'CPU数': expected a positive whole number, got 'two'.``
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any

from vsizer._small_file import not_a_file
from vsizer._textio import plain_name
from vsizer.errors import InventoryError
from vsizer.inventory._build import (
    ProblemLog,
    ServerRecord,
    clean_text,
    finish,
)
from vsizer.inventory._cell_keys import column_of, each_distinct
from vsizer.inventory._cells import (
    _EXPECT,
    _TEXT_FIELDS,
    _Bad,
    _convert_cell,
    _display,
)
from vsizer.inventory._choices import (
    BadCell,
    Duplicate,
    column_units,
    compare_duplicates,
    cpu_counts_as_vcpus,
    decimal_commas,
    total_cores,
    xlsx_grid,
)
from vsizer.inventory._columns import convert_columns
from vsizer.inventory._cpu_meaning import cpu_count_meaning
from vsizer.inventory._disk_columns import sum_disk_columns
from vsizer.inventory._io import (
    Grid,
    read_csv_grid,
)
from vsizer.inventory._name_columns import name_columns
from vsizer.inventory.headers import (
    HEADER_SCAN_ROWS,
    VARIABLE_MAP,
    HeaderMatch,
    accepted_headers,
    comment_row,
    find_header,
    header_cells,
    header_choice,
    looks_like_size,
    match_header,
)
from vsizer.inventory.model import COLUMNS, Inventory
from vsizer.quality import QualityReport
from vsizer.units import (
    clock_mhz_in_name,
    is_blank,
    parse_bool,
    parse_quantity,
)

__all__ = ["HEADER_SCAN_ROWS", "VARIABLE_MAP", "read_table"]

_xlsx_grid = xlsx_grid  # the name tests/fuzz/oracle.py uses

_TOTAL_LABELS = frozenset({"合計", "小計", "総計", "計", "total", "sum", "subtotal"})
_EXPECT_MIGRATE = "yes or no (yes/no, true/false, 1/0, ○/×, はい/いいえ, 対象/対象外)"


def read_table(path: str | os.PathLike[str], *, sheet: str | None = None) -> Inventory:
    """Read a server list from a CSV or XLSX table.

    Parameters
    ----------
    path : str or path-like
        ``.csv``/``.tsv``/``.txt`` (UTF-8 with or without BOM, or cp932/Shift_JIS
        as saved by Japanese Excel; comma, tab or semicolon separated) or
        ``.xlsx``/``.xlsm``.
    sheet : str, optional
        Worksheet to read; default: the first sheet with a recognizable header.

    Returns
    -------
    Inventory
        ``source_format='table'``; servers with ``migrate`` false are in
        ``excluded``. ``metadata`` holds the sheet, header row, the header ->
        field mapping, units, and the unmapped and ignored derived columns.

    Raises
    ------
    InventoryError
        Missing file, no required column, or any invalid cell (all at once).
    """
    p = Path(path)
    if not p.is_file():
        raise InventoryError(f"{p.name}: {not_a_file(path)}")
    suffix = Path(plain_name(p)).suffix.lower()
    if suffix in (".xlsx", ".xlsm"):
        grid, meta, sheet_name = xlsx_grid(p, sheet)
    elif suffix in (".csv", ".tsv", ".txt"):
        if sheet is not None:
            raise InventoryError(f"{p.name}: sheet='{sheet}' given for a CSV file")
        grid, meta = read_csv_grid(p)
        meta = {"format": "csv", **meta}
        sheet_name = None
    else:
        raise InventoryError(
            f"{p.name}: unsupported file type '{suffix}'; expected .csv or .xlsx"
        )
    header_at, _ = find_header(grid)
    if header_at is None:
        where = f" sheet '{sheet_name}'" if sheet_name else ""
        raise InventoryError(f"{p.name}{where}: no data")
    return table_from_grid(
        grid, header_at, file=p.name, sheet=sheet_name, source=os.fspath(path),
        metadata=meta,
    )


def table_from_grid(
    grid: Grid,
    header_at: int,
    *,
    file: str,
    sheet: str | None,
    source: str,
    metadata: dict[str, Any],
) -> Inventory:
    """Turn a grid whose header is ``grid[header_at]`` into an :class:`Inventory`.

    ``metadata['sheet_warnings']`` (``(code, message)`` pairs of the sheet
    choice) become warnings; a ``;``-separated CSV (``metadata['delimiter']``)
    has its decimal commas read (:func:`~vsizer.inventory._choices.decimal_comma_grid`).
    """
    header_row = grid[header_at][0]
    cells, group_row = header_cells(grid, header_at)
    metadata = {**metadata, "header_row": header_row, "group_row": group_row}
    problems = ProblemLog(file, sheet)
    cols, matches, derived, dups = _map_columns(cells, metadata)
    grid = total_cores(grid, header_at, cells, cols, matches, metadata, problems.prefix)
    cpu_counts_as_vcpus(grid, header_at, cols, matches, metadata, problems.prefix)
    cpu_count_meaning(grid, header_at, cols, matches, metadata, problems.prefix)
    name_columns(grid, header_at, cols, matches, metadata, problems.prefix)
    grid = sum_disk_columns(grid, header_at, cells, cols, matches, metadata,
                            problems.prefix)
    dups = _follow_moves(dups, cols)
    _require_columns(cols, problems)
    if problems.lines:
        problems.whole_file(
            header_choice(header_row, group_row, cells, HEADER_SCAN_ROWS)
        )
    problems.raise_if_any()

    quality = QualityReport()
    for code, message in metadata.pop("warnings", []) + metadata.pop(
        "sheet_warnings", []
    ):
        quality.warn(code, message)
    unread = [h for h in metadata["unmapped"] if looks_like_size(h)]
    if unread:
        quality.warn(
            "size_columns_not_read",
            f"{problems.prefix}: column(s) {', '.join(repr(h) for h in unread)} look "
            "like sizes but are not read (one column per disk or an unknown name); "
            "give the total in one column, e.g. 'disk (GB)'",
        )
    if metadata.get("delimiter") == ";":
        grid = decimal_commas(grid, header_at, cells, metadata, problems, quality)
    rows = [(r, c) for r, c in grid[header_at + 1 :] if not all(map(is_blank, c))]
    comments = [r for r, c in rows if comment_row(c)]
    if comments:
        skip = set(comments)
        rows = [(r, c) for r, c in rows if r not in skip]
        quality.note(f"{problems.prefix}: {len(comments)} comment line(s) starting "
                     f"with '#' not read (row(s) {', '.join(map(str, comments))})")
    metadata["data_rows"] = len(rows)  # totals and notes included
    records = _records(rows, cols, matches, problems, quality)
    planned = [rec for rec in records if rec.reason is None]
    by_row = {r: cells for r, cells in rows}
    units = column_units(planned, by_row, cols, matches, quality, problems.prefix)
    metadata["units"] = {matches[f].header: u for f, u in units.items() if u}
    fields = [(f, cols[f], matches[f].header, units.get(f)) for f in COLUMNS
              if f in cols and f not in ("name", "migrate")]  # canonical order
    def then(rec: ServerRecord) -> None:
        _require_values(rec, cols, matches, problems, quality)
        _fill_from_row(rec, matches, quality)

    if not convert_columns(planned, [by_row[rec.row] for rec in planned], fields,
                           quality, then):  # a bad cell: the row reader reports them all
        for rec in planned:
            _convert_row(rec, by_row[rec.row], fields, problems, quality)
            then(rec)
    if dups:
        _check_duplicates(
            records, planned, by_row, dups, cols, matches, units, problems, quality
        )
    _cross_check(planned, by_row, derived, metadata, quality)
    return finish(
        records, problems=problems, quality=quality, source=source,
        source_format="table", metadata=metadata, name_header=matches["name"].header,
        has_pool="pool" in cols, has_group="group" in cols,
    )


def _records(
    rows: Grid,
    cols: dict[str, int],
    matches: dict[str, HeaderMatch],
    problems: ProblemLog,
    quality: QualityReport,
) -> list[ServerRecord]:
    """One record per server row (names and the migrate flag read); totals,
    notes and empty rows skipped with a note."""

    def cell(cells: list[Any], f: str) -> Any:
        i = cols.get(f)
        return cells[i] if i is not None and i < len(cells) else None

    records: list[ServerRecord] = []
    at = cols.get("name")
    has_migrate = "migrate" in cols  # without it, every flag is None: nothing to do
    for r, cells in rows:
        name = clean_text(cells[at] if at is not None and at < len(cells) else None)
        if name is not None and (name.casefold() in _TOTAL_LABELS or name[0] == "※"):
            quality.note(f"row {r}: '{name}' is a total or a note, skipped")
            continue
        if name is None:
            if all(is_blank(cell(cells, f)) for f in cols):
                quality.note(f"row {r}: no server name and no mapped value, skipped")
            else:
                problems.cell(r, matches["name"].header, "a server name", "")
            continue
        rec = ServerRecord(name=name, row=r)
        records.append(rec)
        if not has_migrate:
            continue
        raw = cell(cells, "migrate")
        try:
            migrate = parse_bool(raw)
        except ValueError:
            problems.cell(r, matches["migrate"].header, _EXPECT_MIGRATE, raw)
            continue
        if migrate is False:
            rec.reason = f"migrate = {_display(raw)} (row {r})"
        elif migrate is True:
            rec.values["migrate"] = True
            quality.record(name, "migrate", "given")
    return records


def _check_duplicates(
    records: list[ServerRecord],
    planned: list[ServerRecord],
    by_row: dict[int, list[Any]],
    dups: list[Duplicate],
    cols: dict[str, int],
    matches: dict[str, HeaderMatch],
    units: dict[str, str | None],
    problems: ProblemLog,
    quality: QualityReport,
) -> None:
    """Columns given twice must agree (:func:`~vsizer.inventory._choices.compare_duplicates`);
    each is read in its own unit."""
    col_units = {cols[f]: units.get(f) for f in cols}
    for d in dups:
        own = column_units(planned, by_row, {d.field: d.index}, {d.field: d.match},
                            quality, problems.prefix)
        col_units[d.index] = own[d.field]

    def value_at(f: str, i: int, rec: ServerRecord) -> tuple[str, Any]:
        cells = by_row[rec.row]
        raw = cells[i] if i < len(cells) else None
        text = _display(raw)
        if is_blank(raw):
            return text, None
        if f == "name" or f in _TEXT_FIELDS:
            return text, clean_text(raw)
        if f == "migrate":
            try:
                return text, parse_bool(raw)
            except ValueError:
                raise BadCell(_EXPECT_MIGRATE, text) from None
        try:
            return text, _convert_cell(f, raw, col_units[i], rec.values)[0]
        except _Bad as bad:
            raise BadCell(str(bad), text) from None

    first = {d.field: (cols[d.field], matches[d.field]) for d in dups}
    # the migrate flag on every row (an excluded row too), the values on planned rows
    for rows, group in ((records, [d for d in dups if d.field == "migrate"]),
                        (planned, [d for d in dups if d.field != "migrate"])):
        compare_duplicates(rows, group, first, value_at, problems, quality)


def _follow_moves(dups: list[Duplicate], cols: dict[str, int]) -> list[Duplicate]:
    """A second ``CPU`` column follows the first when that one was read as vCPUs
    (:func:`~vsizer.inventory._choices.cpu_counts_as_vcpus`): both compare as
    ``vcpus`` (equal: fine; different: an error naming both)."""
    if "cpu_name" in cols or "vcpus" not in cols:
        return dups
    return [
        replace(d, field="vcpus", match=HeaderMatch(d.match.header, "vcpus"))
        if d.field == "cpu_name" else d
        for d in dups
    ]  # fmt: skip


def _map_columns(
    header_cells: list[Any], metadata: dict[str, Any]
) -> tuple[dict[str, int], dict[str, HeaderMatch], dict[str, int], list[Duplicate]]:
    cols: dict[str, int] = {}
    matches: dict[str, HeaderMatch] = {}
    mapping: dict[str, str] = {}
    unmapped: list[str] = []
    derived: dict[str, int] = {}
    duplicates: list[Duplicate] = []
    for i, h in enumerate(header_cells):
        if is_blank(h):
            continue
        m = match_header(h)
        if m.derived is not None:
            derived[str(h)] = i
        elif m.field is None:
            unmapped.append(str(h))
        elif m.field in cols:
            duplicates.append(Duplicate(m.field, i, m))
        else:
            cols[m.field], matches[m.field] = i, m
            mapping[str(h)] = m.field
    metadata.update(
        columns=mapping,
        unmapped=unmapped,
        ignored_derived={h: match_header(h).derived for h in derived},
        duplicate_columns=[d.match.header for d in duplicates],
        score_basis=matches["cpu_score_per_core"].basis
        if "cpu_score_per_core" in matches else None,
    )
    return cols, matches, derived, duplicates


def _require_columns(cols: dict[str, int], problems: ProblemLog) -> None:
    for f in ("name", "mem_gib"):
        if f not in cols:
            problems.whole_file(
                f"no column for '{f}'; accepted headers: {accepted_headers(f)}"
            )
    if "vcpus" not in cols:
        for f in ("sockets", "cores_per_socket"):
            if f not in cols:
                problems.whole_file(
                    f"no column for '{f}' (needed unless 'vcpus' is given); "
                    f"accepted headers: {accepted_headers(f)}"
                )


def _convert_row(
    rec: ServerRecord,
    cells: list[Any],
    fields: list[tuple[str, int, str, str | None]],
    problems: ProblemLog,
    quality: QualityReport,
) -> None:
    """Read the cells of ``fields`` ``(field, column, header, unit)``, in the
    canonical order (memory before memory used), into ``rec``."""
    n = len(cells)
    entry: dict[str, tuple[str, str]] | None = None  # rec's quality entry
    for f, i, header, unit in fields:
        raw = cells[i] if i < n else None
        text = raw if type(raw) is str else _display(raw)
        rec.cells[f] = (header, text)
        if is_blank(raw):  # missing: vsizer.missing says what it becomes
            if f == "redundant_with" and clean_text(raw) is not None:
                quality.record(rec.name, f, "given", f"'{text}': no partner")
            continue
        try:
            value, status, note = _convert_cell(f, raw, unit, rec.values)
        except _Bad as bad:
            problems.cell(rec.row, header, str(bad), text)
            continue
        rec.values[f] = value
        pair = None if note else _PAIRS.get(status)
        if pair is None:
            quality.record(rec.name, f, status, note)
            continue
        if entry is None:
            entry = quality.entries.setdefault(rec.name, {})
        entry[f] = pair  # = quality.record(rec.name, f, status), 650,000 times a fleet


#: The quality pairs of a cell read without a note (one shared object each).
_PAIRS = {"given": ("given", ""), "derived": ("derived", "")}


def _require_values(
    rec: ServerRecord,
    cols: dict[str, int],
    matches: dict[str, HeaderMatch],
    problems: ProblemLog,
    quality: QualityReport,
) -> None:
    """CPU count is required: report a missing cell (empty or blank-like such
    as 'N/A'), quoting it. A missing memory cell is left missing, located in the
    quality note, for ``plan --vm-mem-gib``
    (:func:`vsizer.inventory.assume.fill_memory`)."""

    cells = rec.cells

    def blank(f: str) -> bool:  # column absent or cell missing (bad cells reported)
        return f not in cols or is_blank(cells[f][1])

    if ("vcpus" not in cols or is_blank(cells["vcpus"][1])) and (
        blank("sockets") or blank("cores_per_socket")
    ):
        missing: list[str] = [
            f for f in ("sockets", "cores_per_socket") if f in cols and blank(f)
        ]
        for f in missing or ["vcpus"]:
            got = cells[f][1] if f in cells else ""
            problems.cell(rec.row, matches[f].header, _EXPECT[f], got)
    if "mem_gib" not in cols or is_blank(cells["mem_gib"][1]):
        where = f"{problems.prefix} row {rec.row}, column '{matches['mem_gib'].header}'"
        got = rec.cells["mem_gib"][1] if "mem_gib" in rec.cells else ""
        what = f"holds '{got}'" if got else "is empty"
        quality.record(rec.name, "mem_gib", "missing", f"{where} {what}")


def _fill_from_row(
    rec: ServerRecord, matches: dict[str, HeaderMatch], quality: QualityReport
) -> None:
    v = rec.values
    if v.get("cpu_score_per_core") is not None and v.get("cpu_score_basis") is None:
        m = matches["cpu_score_per_core"]
        v["cpu_score_basis"] = m.basis
        if m.basis == "unstated":
            quality.record(rec.name, "cpu_score_basis", "assumed",
                           f"header '{m.header}' does not name the benchmark")
        else:
            quality.record(rec.name, "cpu_score_basis", "given", f"header '{m.header}'")
    if v.get("cpu_mhz") is None and v.get("cpu_name"):
        mhz = clock_mhz_in_name(v["cpu_name"])
        if mhz is not None:
            v["cpu_mhz"] = mhz
            quality.record(rec.name, "cpu_mhz", "derived",
                           f"clock in CPU name '{v['cpu_name']}'")


def _cross_check(
    planned: list[ServerRecord],
    by_row: dict[int, list[Any]],
    derived: dict[str, int],
    metadata: dict[str, Any],
    quality: QualityReport,
) -> None:
    """Compare computed columns (CPU性能, CPU性能×CPU平均 ...) with our own product."""
    for header, i in derived.items():
        what = metadata["ignored_derived"][header]
        column = column_of(map(by_row.__getitem__, [rec.row for rec in planned]), i)
        for rec, q in zip(planned, each_distinct(column, _quantity_or_none), strict=True):
            if q is None:
                continue
            expected = _expected_derived(what, rec.values)
            if expected is None:
                continue
            if abs(q[0] - expected) > 0.01 * max(abs(expected), 1e-9) + 0.05:
                quality.note(
                    f"{rec.name}: column '{header}' = {q[0]:g} but the other columns "
                    f"give {expected:g} (row {rec.row}); the column is ignored"
                )


def _quantity_or_none(cell: Any) -> tuple[float, str | None] | None:
    """:func:`parse_quantity` of a cell, None for one that is not a number."""
    try:
        return parse_quantity(cell)
    except ValueError:
        return None


def _expected_derived(what: str, v: dict[str, Any]) -> float | None:
    s, c = v.get("sockets"), v.get("cores_per_socket")
    score = v.get("cpu_score_per_core")
    if s is None or c is None or score is None:
        return None
    capacity = float(s * c * score)
    if what == "cpu_capacity":
        return capacity
    util = v.get({"cpu_avg_demand": "cpu_avg_util", "cpu_peak_demand": "cpu_peak_util"}
                 .get(what, ""))
    return None if util is None else capacity * util
