"""Ingestion choices of a server-list table, each stated (issue 23, part D).

A spreadsheet can be read more than one way; vsizer never picks one silently.
This module holds the choices that are not about one cell:

- **decimal commas** (:func:`decimal_comma_grid`): a ``;``-separated CSV as
  European Excel saves it writes ``1,024`` for 1.024; a column whose numbers
  look so is read with ``,`` as the decimal mark, and the reader says so;
- **two columns meaning one field** (:func:`compare_duplicates`): equal on
  every row is fine (one note); different on any row is an error naming both
  headers and the first row where they differ (a descriptive field such as
  the OS or the group keeps the first column, with a warning);
- **which sheet of a workbook** (:func:`xlsx_grid`): hidden sheets are
  skipped, other visible sheets that also hold a server list are named in a
  warning;
- **the unit of a column** (:func:`column_units`): a %-column whose values are
  all at most 1 is read as fractions;
- **a CPU column of core counts** (:func:`cpu_counts_as_vcpus`): read as vCPUs.

Every choice becomes a counted warning or note of the
:class:`~vsizer.quality.QualityReport`, so it shows in the terminal, the JSON,
the Excel ``Warnings`` sheet and the HTML report.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any

from vsizer.errors import InventoryError
from vsizer.inventory._build import ProblemLog, ServerRecord
from vsizer.inventory._cell_keys import column_of, each_distinct
from vsizer.inventory._io import (
    Grid,
    PercentValue,
    iter_sheet,
    open_workbook,
    sheet_rows,
)
from vsizer.inventory.headers import (
    HEADER_SCAN_ROWS,
    HeaderMatch,
    accepted_headers,
    find_header,
    header_cells,
    header_choice,
    match_header,
)
from vsizer.quality import QualityReport
from vsizer.units import is_blank, normalize_text, parse_quantity

__all__ = [
    "DEFAULT_UNIT",
    "UTIL_FIELDS",
    "BadCell",
    "Duplicate",
    "column_units",
    "compare_duplicates",
    "cpu_counts_as_vcpus",
    "decimal_comma_grid",
    "decimal_commas",
    "looks_like_server_list",
    "sheet_states",
    "total_cores",
    "xlsx_grid",
]

#: Utilization fields: a column of them without a unit is in % (or fractions).
UTIL_FIELDS = ("cpu_avg_util", "cpu_peak_util")
#: Default unit of a field whose header and cell state none.
DEFAULT_UNIT = {
    "mem_gib": "GiB", "mem_used_gib": "GiB", "disk_gib": "GB", "disk_used_gib": "GB",
    "net_mbps": "Mbit/s", "disk_mb_s": "MB/s", "power_w": "W",
}
# '1,024', '0,6', '1.024,5', '12,5 GB': digits (dots before each group of three
# allowed), one comma, digits, then an optional unit.
_DECIMAL_COMMA = re.compile(
    r"^(?P<sign>[+-]?)(?P<int>\d{1,3}(?:\.\d{3})+|\d+),(?P<frac>\d+)(?P<rest>\s*[^\d.,]*)$"
)
# '1.024' with no comma: in a decimal-comma column, a thousands separator.
_DOT_THOUSANDS = re.compile(r"^(?P<sign>[+-]?)(?P<int>\d{1,3}(?:\.\d{3})+)(?P<rest>\s*[^\d.,]*)$")
# '1,234,567' or '1,024.5': commas that group thousands (the column is not decimal-comma).
_COMMA_THOUSANDS = re.compile(r"\d,\d{3}(?:,\d{3})+(?!\d)|\d,\d{3}\.\d")


def _decimal_text(text: str) -> str | None:
    """``text`` rewritten with a decimal point, or None when it is not such a number."""
    m = _DECIMAL_COMMA.match(text)
    if m:
        whole = m.group("int").replace(".", "")
        return f"{m.group('sign')}{whole}.{m.group('frac')}{m.group('rest')}"
    m = _DOT_THOUSANDS.match(text)
    if m:
        return f"{m.group('sign')}{m.group('int').replace('.', '')}{m.group('rest')}"
    return None


def _comma_columns(grid: Grid, header_at: int) -> tuple[list[int], list[int]]:
    """The decimal-comma columns below ``grid[header_at]`` and, among them, the
    ambiguous ones: every comma followed by exactly three digits and no '.'
    (``1,024`` only), which could also be thousands separators."""
    rows = grid[header_at + 1 :]
    width = max((len(c) for _, c in rows), default=0)
    columns: list[int] = []
    ambiguous: list[int] = []
    for j in range(width):
        texts = [
            c[j].strip() for _, c in rows
            if j < len(c) and isinstance(c[j], str) and c[j].strip()
        ]
        if any(_COMMA_THOUSANDS.search(t) for t in texts):
            continue
        found = [m for m in map(_DECIMAL_COMMA.match, texts) if m]
        if found:
            columns.append(j)
            if all(len(m.group("frac")) == 3 and "." not in m.group("int")
                   for m in found):
                ambiguous.append(j)
    return columns, ambiguous


def decimal_comma_grid(grid: Grid, header_at: int) -> tuple[Grid, list[int], list[int]]:
    """The rows below ``grid[header_at]`` with decimal commas read as decimal points.

    Called for ``;``-separated files only. A column is read with ``,`` as the
    decimal mark when at least one of its cells is a number with one comma
    (``1,024``, ``0,6``, ``1.024,5``) and none groups thousands with commas
    (``1,234,567``, ``1,024.5``). In such a column a ``.`` before three digits is a
    thousands separator: ``1.024,5`` = 1024.5, ``1.024`` = 1024; any other cell is
    left as written.

    Returns the new grid, the indices of the columns so read (in order) and,
    among them, those where every comma has three digits after it (``1,024``
    could there be a thousands separator: the reading is stated as a guess).
    """
    columns, ambiguous = _comma_columns(grid, header_at)
    if not columns:
        return grid, [], []
    out: Grid = list(grid[: header_at + 1])
    for r, cells in grid[header_at + 1 :]:
        new = list(cells)
        for j in columns:
            if j < len(new) and isinstance(new[j], str):
                fixed = _decimal_text(new[j].strip())
                if fixed is not None:
                    new[j] = fixed
        out.append((r, new))
    return out, columns, ambiguous


@dataclass(frozen=True)
class Duplicate:
    """A column whose field an earlier column already gives."""

    field: str
    index: int
    match: HeaderMatch


#: Descriptive fields: two differing columns keep the first, with a warning
#: (a CMDB has both a 'Name' and a 'Host name'; a VM list a 'CPU' and a
#: 'Processor'; a Japanese list a 'システム名' and a '業務名').
SOFT_FIELDS = frozenset({"name", "model", "cpu_name", "os", "group"})


def _same(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return abs(float(a) - float(b)) <= 1e-3 * max(abs(float(a)), abs(float(b)))
    return str(a).casefold() == str(b).casefold()


class BadCell(ValueError):
    """A cell that cannot be read: what was expected and the text found."""

    def __init__(self, expected: str, text: str):
        super().__init__(expected)
        self.expected, self.text = expected, text


def compare_duplicates(
    records: list[ServerRecord],
    duplicates: list[Duplicate],
    first: dict[str, tuple[int, HeaderMatch]],
    value_at: Callable[[str, int, ServerRecord], tuple[str, Any]],
    problems: ProblemLog,
    quality: QualityReport,
) -> None:
    """Check that every column given twice agrees with the first on every row.

    ``first[field] = (column, match)`` of the column read. ``value_at(field,
    column, record)`` reads the record's cell of a column: ``(text as written,
    value in the canonical unit or None when blank)``, raising :class:`BadCell`
    for a bad cell. A bad cell of the second column is a problem line; a row
    whose first cell is bad is skipped (that cell is reported already). A blank
    cell differs from a given one.
    """
    for dup in duplicates:
        first_index, first_match = first[dup.field]
        differ: list[tuple[int, str, str]] = []
        for rec in records:
            try:
                text, value = value_at(dup.field, dup.index, rec)
            except BadCell as bad:
                problems.cell(rec.row, dup.match.header, bad.expected, bad.text)
                continue
            try:
                first_text, mine = value_at(dup.field, first_index, rec)
            except BadCell:
                continue
            if not _same(mine, value):
                differ.append((rec.row, first_text, text))
        _state_duplicate(dup, first_match.header, differ, problems, quality)


def _state_duplicate(
    dup: Duplicate,
    first_header: str,
    differ: list[tuple[int, str, str]],
    problems: ProblemLog,
    quality: QualityReport,
) -> None:
    header = dup.match.header
    if not differ:
        quality.note(
            f"columns '{first_header}' and '{header}' both give '{dup.field}' and "
            f"agree on every row; '{first_header}' read"
        )
        return
    row, a, b = differ[0]
    more = f" ({len(differ)} rows differ, the first shown)" if len(differ) > 1 else ""
    if dup.field in SOFT_FIELDS:
        quality.warn(
            "duplicate_column",
            f"{problems.prefix}: columns '{first_header}' and '{header}' both give "
            f"'{dup.field}' and differ on row {row}: '{a}' and '{b}'{more}; "
            f"'{first_header}' read, '{header}' ignored",
        )
        return
    problems.line(
        row,
        f"columns '{first_header}' and '{header}' both give '{dup.field}' and differ: "
        f"'{a}' and '{b}'{more}; delete one of them or make them agree.",
    )


# '8', '8 cores', '16 core', '4 vCPU', '2 CPUs', '8コア': a count of cores, not a name.
_CORE_COUNT = re.compile(
    r"^\d+\s*(?:cores?|core\(s\)|vcpus?|cpus?|threads?|コア|個)?$", re.IGNORECASE
)


def cpu_counts_as_vcpus(
    grid: Grid,
    header_at: int,
    cols: dict[str, int],
    matches: dict[str, HeaderMatch],
    metadata: dict[str, Any],
    where: str,
) -> None:
    """A ``CPU`` column of core counts (``8 cores``) is the vCPU count, not the
    CPU name.

    When the file has no ``vcpus`` column and every non-blank cell of the
    column read as ``cpu_name`` is a whole number, optionally followed by
    ``cores``/``vCPU``/``CPUs``/``コア``, the column is read as ``vcpus``
    instead, and ``metadata['warnings']`` gets a ``cpu_column_counts`` warning
    saying so (``where`` names the file in it). Found with a real server list (tests/data/real/tables/README.md).
    """
    i = cols.get("cpu_name")
    if i is None or "vcpus" in cols:
        return
    texts = [
        normalize_text(c[i]) for _, c in grid[header_at + 1 :]
        if i < len(c) and not is_blank(c[i])
    ]
    if not texts or not all(_CORE_COUNT.match(t) for t in texts):
        return
    header = matches.pop("cpu_name").header
    del cols["cpu_name"]
    cols["vcpus"], matches["vcpus"] = i, HeaderMatch(header, "vcpus")
    metadata["columns"][header] = "vcpus"
    metadata.setdefault("warnings", []).append((
        "cpu_column_counts",
        f"{where}: column '{header}' holds core counts ('{texts[0]}'), not CPU names: read "
        "as vcpus (the cores each server has)",
    ))


#: Headers of a server's total core count (not a field of its own: it is
#: sockets x cores per socket, or the vCPU count of a VM).
_TOTAL_CORES = frozenset(normalize_text(h).casefold() for h in (
    "cores", "core count", "# cores", "#cores", "total cores", "num cores",
    "number of cores", "cpu cores", "physical cores", "コア数", "CPUコア数",
    "総コア数", "合計コア数", "物理コア数", "コア",
    "CPU.NumberOfCores",  # AWS Application Discovery Service import template
))


def total_cores(
    grid: Grid, header_at: int, header: list[Any], cols: dict[str, int],
    matches: dict[str, HeaderMatch], metadata: dict[str, Any], where: str,
) -> Grid:
    """A total core count column (``Cores``, ``コア数``) in a list without
    cores-per-socket or vCPU columns: with ``sockets`` it gives cores per socket
    = cores / sockets (a column appended to the grid, named ``'C / S'`` after
    both headers; a count not divisible is a cell error there); without, it is
    the vCPU count. Either way a warning ``total_cores_column`` says so."""
    if "cores_per_socket" in cols or "vcpus" in cols:
        return grid
    i = next((k for k, h in enumerate(header) if not is_blank(h) and
              normalize_text(h).casefold() in _TOTAL_CORES), None)
    if i is None:
        return grid
    name = str(header[i])
    metadata["unmapped"] = [h for h in metadata.get("unmapped", []) if h != name]
    if "sockets" not in cols:
        cols["vcpus"], matches["vcpus"] = i, HeaderMatch(name, "vcpus")
        metadata["columns"][name] = "vcpus"
        said = f"column '{name}' (total cores) read as vcpus, there being no sockets"
    else:
        s = cols["sockets"]
        both = f"{name} / {matches['sockets'].header}"
        grid = [(r, [*c, _per_socket(c, i, s)] if n > header_at else [*c, both])
                for n, (r, c) in enumerate(grid)]
        cols["cores_per_socket"] = len(grid[header_at][1]) - 1
        matches["cores_per_socket"] = HeaderMatch(both, "cores_per_socket")
        metadata["columns"][name] = "cores_per_socket"
        said = (f"column '{name}' is each server's total cores: cores per socket = "
                f"'{name}' / '{matches['sockets'].header}'")
    metadata.setdefault("warnings", []).append(("total_cores_column", f"{where}: {said}"))
    return grid


def _per_socket(cells: list[Any], cores: int, sockets: int) -> Any:
    """``cores / sockets`` of a row: a whole number, blank, or the text
    ``'C/S'`` (then reported as not a whole number of cores per socket)."""
    raw = [cells[k] if k < len(cells) else None for k in (cores, sockets)]
    try:
        c, s = ((q[0] if (q := parse_quantity(x)) else None) for x in raw)
    except ValueError:
        return f"{raw[0]}/{raw[1]}"
    if c is None or s is None:
        return None if c is None else f"{raw[0]}/{raw[1]}"
    return int(c // s) if s > 0 and c % s == 0 else f"{raw[0]}/{raw[1]}"


def sheet_states(wb: Any) -> tuple[list[str], list[str], list[str]]:
    """A workbook's sheet names and, among them, the hidden ones (``hidden`` and
    ``veryHidden``: Excel shows neither in its tab bar) and the chart sheets (a
    tab that is one chart: ECMA-376 Part 1's chartsheet part; no cells to read)."""
    names = list(wb.sheetnames)
    charts = [n for n in names if not hasattr(wb[n], "iter_rows")]
    hidden = [n for n in names
              if n not in charts and getattr(wb[n], "sheet_state", "visible") != "visible"]
    return names, hidden, charts


def looks_like_server_list(ws: Any) -> bool:
    """Whether a worksheet's first rows hold a server-list header: a server-name
    column and at least one other field (only the first rows are read; a
    damaged sheet that is not read is not one)."""
    try:
        grid = list(islice(iter_sheet(ws), HEADER_SCAN_ROWS + 1))
    except InventoryError:
        return False
    at, score = find_header(grid)
    if at is None or score < 2:
        return False
    cells, _ = header_cells(grid, at)
    return any(match_header(c).field == "name" for c in cells if isinstance(c, str))


def decimal_commas(
    grid: Grid,
    header_at: int,
    headers: list[Any],
    metadata: dict[str, Any],
    problems: ProblemLog,
    quality: QualityReport,
) -> Grid:
    """The grid of a ``;``-separated file with its decimal commas read
    (:func:`decimal_comma_grid`), stated in a ``decimal_comma`` warning and in
    ``metadata['decimal_comma']`` (the headers so read)."""
    grid, columns, ambiguous = decimal_comma_grid(grid, header_at)

    def named(cols: list[int]) -> list[str]:
        return [str(headers[j]) for j in cols
                if j < len(headers) and not is_blank(headers[j])]

    if named(columns):
        metadata["decimal_comma"] = named(columns)
        listed = ", ".join(f"'{h}'" for h in named(columns))
        guess = ""
        if named(ambiguous):
            guess = (
                f"; in {_listed(named(ambiguous))} every comma has three digits after "
                "it, so they could be thousands separators: check those columns"
            )
        quality.warn(
            "decimal_comma",
            f"{problems.prefix}: ';'-separated with decimal commas: column(s) {listed} "
            "read with ',' as the decimal mark ('1,024' = 1.024; a '.' before three "
            f"digits is a thousands separator, '1.024,5' = 1024.5){guess}",
        )
    return grid


def _listed(names: list[str]) -> str:
    return ", ".join(f"'{n}'" for n in names)


def xlsx_grid(path: Path, sheet: str | None) -> tuple[Grid, dict[str, Any], str]:
    """The grid of the sheet of a table workbook to read, its metadata and name.

    ``sheet`` given: that sheet (hidden or not; an unknown name is an error
    listing the sheets). Otherwise the first *visible* sheet with a header of at
    least two recognized fields; hidden sheets are skipped (those that look like
    server lists, :func:`looks_like_server_list`, are named), and so are the
    other visible sheets that also look like server lists. Both facts go to
    ``metadata['sheet_warnings']`` as ``(code, message)`` pairs, and the lists to
    ``metadata['hidden_sheets']`` (every hidden sheet) and
    ``metadata['other_server_sheets']``.
    """
    wb = open_workbook(path)
    repair = [("xlsx_styles_repaired", r) for r in [getattr(wb, "vsizer_repair", None)]
              if r]
    try:
        names, hidden, charts = sheet_states(wb)
        meta: dict[str, Any] = {"format": "xlsx", "sheets": names, "hidden_sheets": hidden}
        if sheet is not None:
            if sheet not in names or sheet in charts:
                shown = ", ".join(
                    f"'{n}' (chart)" if n in charts else f"'{n}' (hidden)"
                    if n in hidden else f"'{n}'" for n in names
                )
                raise InventoryError(
                    f"{path.name}: sheet '{sheet}' is a chart sheet, it holds no "
                    f"table; sheets: {shown}" if sheet in charts else
                    f"{path.name}: no sheet named '{sheet}'; sheets: {shown}"
                )
            grid = list(sheet_rows(wb[sheet], f"{path.name} sheet '{sheet}'"))
            meta["sheet_warnings"] = repair + ([] if sheet not in hidden else [(
                "hidden_sheet_read",
                f"{path.name}: sheet '{sheet}' is hidden in the workbook; read "
                "because --sheet names it",
            )])
            return grid, {**meta, "sheet": sheet}, sheet
        found = _first_server_sheet(
            wb, path, [n for n in names if n not in hidden and n not in charts], charts
        )
        hidden_lists = [n for n in hidden if looks_like_server_list(wb[n])]
    finally:
        wb.close()
    name, grid, others = found
    warnings = list(repair)
    if hidden_lists:  # a hidden sheet of drop-down values is no news
        warnings.append(("hidden_sheets_skipped", (
            f"{path.name}: hidden sheet(s) {_listed(hidden_lists)} look like server "
            "lists and were skipped; read one with --sheet NAME")))
    if others:
        warnings.append(("other_server_sheets", (
            f"{path.name}: read sheet '{name}'; sheet(s) {_listed(others)} also look "
            "like server lists: use --sheet NAME to read another")))
    meta.update(sheet=name, other_server_sheets=others, sheet_warnings=warnings)
    return grid, meta, name


def _first_server_sheet(
    wb: Any, path: Path, visible: list[str], charts: list[str]
) -> tuple[str, Grid, list[str]]:
    """The first visible sheet with a header (its name and grid) and the other
    visible sheets that look like server lists; else the error naming what each
    sheet's best header row held."""
    seen: list[str] = []
    for k, name in enumerate(visible):
        grid = list(sheet_rows(wb[name], f"{path.name} sheet '{name}'"))
        at, score = find_header(grid)
        if score >= 2:
            others = [n for n in visible[k + 1 :] if looks_like_server_list(wb[n])]
            return name, grid, others
        if at is not None:
            cells, group_row = header_cells(grid, at)
            seen.append(f"sheet '{name}': " + header_choice(
                grid[at][0], group_row, cells, HEADER_SCAN_ROWS))
    hidden = [n for n in wb.sheetnames if n not in visible and n not in charts]
    skipped = f"; hidden, not read: {', '.join(hidden)}" if hidden else ""
    skipped += f"; charts, not read: {', '.join(charts)}" if charts else ""
    raise InventoryError(
        [f"{path.name}: no sheet has a recognizable header row in its first "
         f"{HEADER_SCAN_ROWS} rows (sheets: {', '.join(visible)}{skipped}); accepted "
         f"headers for 'name': {accepted_headers('name')}"]
        + [f"{path.name} {line}" for line in seen]
    )


def _bare_numbers(
    planned: list[ServerRecord], by_row: dict[int, list[Any]], i: int
) -> list[float]:
    """The numbers of column ``i`` written without a unit (nor as an Excel %)."""
    column = column_of(map(by_row.__getitem__, [rec.row for rec in planned]), i)
    return [x for x in each_distinct(column, _bare_number) if x is not None]


def _bare_number(cell: Any) -> float | None:
    """A cell's number when written without a unit (nor as an Excel %)."""
    try:
        q = parse_quantity(cell)
    except ValueError:
        return None
    if q is None or q[1] is not None or isinstance(cell, PercentValue):
        return None
    return q[0]


def column_units(
    planned: list[ServerRecord],
    by_row: dict[int, list[Any]],
    cols: dict[str, int],
    matches: dict[str, HeaderMatch],
    quality: QualityReport,
    where: str = "",
) -> dict[str, str | None]:
    """Unit of each column: stated in the header, else inferred, else default.

    A percentage column (stated ``%`` or no unit) whose numbers are all at most 1,
    one above 0, is read as fractions (0.6 = 60 %), with a warning (``where``
    names the file in it).
    """
    units: dict[str, str | None] = {}
    for f, m in matches.items():
        percent = f in UTIL_FIELDS or m.unit == "%"
        # only a percentage or a size column's unit depends on its numbers
        sized = percent or f in ("mem_gib", "mem_used_gib", "disk_gib", "disk_used_gib")
        bare = _bare_numbers(planned, by_row, cols[f]) if sized else []
        fractions = bool(bare) and all(0 <= x <= 1 for x in bare) and max(bare) > 0
        if percent and m.unit in (None, "%") and fractions:
            units[f] = "fraction"
            stated = "is in %" if m.unit == "%" else "has no unit"
            quality.warn(
                "percent_as_fraction",
                f"{where}: column '{m.header}' {stated} and every value is at most 1 "
                f"(largest {max(bare):g}): read as fractions, 0.6 = 60 %; write 60 "
                "for 60 % if the file means per cent",
            )
        elif m.unit is not None:
            units[f] = m.unit
        elif percent:
            units[f] = "%"
        elif f == "mem_gib" and bare and all(x >= 1024 for x in bare):
            units[f] = _memory_unit_from_values(m.header, bare, quality, where)
        elif f in ("mem_gib", "mem_used_gib", "disk_gib", "disk_used_gib") and bare:
            units[f] = DEFAULT_UNIT[f]
            quality.note(
                f"column '{m.header}' has no unit: read as {DEFAULT_UNIT[f]}"
            )
        else:
            units[f] = DEFAULT_UNIT.get(f)
    return units


#: Smallest memory size, as a number without unit, read as bytes: 2^26 MB
#: would be 64 TiB, more than any server (the reader's own limit), so such a
#: column cannot be in MB.
BYTES_FROM = 2**26


def _memory_unit_from_values(
    header: str, bare: list[float], quality: QualityReport, where: str
) -> str:
    """Unit of a memory column without unit whose every value is 1024 or more:
    bytes when every value is at least :data:`BYTES_FROM` (Foreman and
    libvirt lists give memory in bytes: ``8589934592`` = 8 GiB), else MB
    (= MiB: VMware, Proxmox and Hyper-V size a VM's memory in MB). A guess
    from the numbers, so warned (``memory_unit_from_values``)."""
    unit, said = ("B", "bytes") if min(bare) >= BYTES_FROM else ("MB", "MB (= MiB)")
    quality.warn(
        "memory_unit_from_values",
        f"{where}: column '{header}' has no unit and every value is "
        f"{'at least 2^26' if unit == 'B' else '1024 or more'} (smallest "
        f"{min(bare):,.0f}): read as {said}; write the unit in the header, "
        "e.g. 'memory (GB)', or say --mem-unit",
    )
    return unit

