"""RVTools sheets: each as rows of cells keyed by normalized header.

Header spellings vary between RVTools versions (case, spacing, a trailing
space); :func:`key` normalizes them so a header is found however it is written.

An export is read from an ``.xlsx`` workbook (one sheet per tab) or from
RVTools' per-tab CSV export [1]: a folder of ``vInfo.csv``, ``vCPU.csv``, ...
(or ``RVTools_tabvInfo.csv``, ``RVTools_tabvCPU.csv``, ...), given as the
folder or as its ``vInfo`` file (the other tabs are its siblings). Both give
the same rows: the CSV cells are text, parsed by the same number rules.

.. [1] Dell Technologies (Robware), *RVTools* command line ``-c ExportAll2csv``
   and the GUI's "Export all to csv": one file per tab, ``RVTools_tab<tab>.csv``.
   Its option ``-DBColumnNames`` writes database column names (``vInfoVMName``)
   instead of the display names; such an export is refused with that said.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from vsizer._small_file import not_a_file
from vsizer._textio import sniff_delimiter
from vsizer.errors import InventoryError
from vsizer.inventory._io import decode_csv, open_workbook, sheet_rows, undamaged_rows
from vsizer.limits import csv_records

#: The sheets read, in this order.
SHEETS = ("vInfo", "vCPU", "vMemory", "vDisk", "vPartition", "vSnapshot", "vHost")

#: Tabs read only for migration readiness (:mod:`vsizer.inventory._rvtools_facts`).
EXTRA_SHEETS = ("vTools", "vUSB", "vHealth", "vMetaData")

#: Suffixes of a CSV file (a lone vInfo tab written by another tool).
_CSV_SUFFIXES = (".csv", ".tsv", ".txt")
#: File-name prefixes of RVTools' per-tab CSV export (``RVTools_tabvInfo.csv``).
_CSV_PREFIXES = ("", "rvtools_tab")


def csv_tab(path: Path) -> str | None:
    """The tab a CSV file of RVTools' per-tab export holds (``'vInfo'`` for
    ``vInfo.csv`` or ``RVTools_tabvInfo.csv``, case-insensitive), else None."""
    if path.suffix.casefold() != ".csv":
        return None
    stem = path.stem
    for prefix in _CSV_PREFIXES:
        if stem.casefold().startswith(prefix):
            rest = stem[len(prefix):]
            if re.fullmatch(r"[vV][A-Za-z]+", rest):
                return rest
    return None


def csv_tabs(folder: Path) -> dict[str, Path]:
    """Tab (case-folded) -> CSV file of the per-tab export in ``folder``."""
    out: dict[str, Path] = {}
    for f in sorted(folder.iterdir()):
        tab = csv_tab(f) if f.is_file() else None
        if tab is not None:
            out.setdefault(tab.casefold(), f)
    return out


def is_csv_export(path: Path) -> bool:
    """A folder holding a vInfo CSV of the per-tab export, or that vInfo CSV."""
    if path.is_dir():
        return "vinfo" in csv_tabs(path)
    tab = csv_tab(path)
    return tab is not None and tab.casefold() == "vinfo"


@functools.lru_cache(maxsize=4096, typed=True)
def key(text: Any) -> str:
    """A header compared case-insensitively with runs of spaces as one.

    Remembered: the readers look the same few headers up once per row of
    every tab (1.7 million calls, 9 of 27 CPU s, for a 12,000-VM export)."""
    return re.sub(r"\s+", " ", str(text)).strip().casefold()


class Sheet:
    """A sheet as header -> value dicts keyed by normalized header text."""

    def __init__(
        self, name: str, headers: list[str], rows: list[tuple[int, dict]],
        file: str = "",
    ):
        self.name, self.headers, self.rows = name, headers, rows
        self.file = file  # the CSV file of a per-tab export ('' in a workbook)
        self.notes: list[str] = []  # how the workbook had to be read (one line each)
        self.by_key = {key(h): h for h in headers}

    def has(self, header: str) -> bool:
        return key(header) in self.by_key

    def header(self, header: str) -> str:
        return self.by_key.get(key(header), header)


#: vInfo's header as every producer writes it (normalized by :func:`key`).
_VINFO_HEADER = frozenset({"vm", "powerstate", "cpus", "memory"})


def is_vinfo_header(cells: list[Any]) -> bool:
    """A header row that is vInfo's: ``VM``, ``Powerstate``, ``CPUs`` and
    ``Memory`` (any case and spacing), as RVTools and the tools that write its
    layout put it."""
    return _VINFO_HEADER.issubset(key(c) for c in cells if c is not None)


def vinfo_like_sheet(wb: Any) -> str | None:
    """The first visible sheet of ``wb`` whose first row is vInfo's header, for a
    workbook written in RVTools' layout under other sheet names; else None."""
    for name in wb.sheetnames:
        ws = wb[name]
        if getattr(ws, "sheet_state", "visible") != "visible" or not hasattr(
            ws, "iter_rows"
        ):
            continue  # hidden, or a chart sheet (no cells)
        first = next(undamaged_rows(ws), ())  # a damaged sheet: one line, as when read
        if is_vinfo_header([getattr(c, "value", None) for c in first]):
            return str(name)
    return None


def load(wb: Any, name: str, file: str) -> Sheet | None:
    """Sheet ``name`` (matched case-insensitively) of ``wb``, or None."""
    actual = next((s for s in wb.sheetnames if s.casefold() == name.casefold()), None)
    if actual is None:
        return None
    return _sheet(actual, sheet_rows(wb[actual], f"{file} sheet '{actual}'"))


def _sheet(name: str, grid: Iterator[tuple[int, list[Any]]]) -> Sheet:
    """A sheet from its records ``(row number, cells)``, the first the header."""
    first = next(grid, None)
    if first is None:
        return Sheet(name, [], [])
    headers = [str(h).strip() if h is not None else "" for h in first[1]]
    keys = [key(h) if h else "" for h in headers]  # once per sheet, not per row
    rows = []
    for number, cells in grid:
        if not any(c not in (None, "") for c in cells):
            continue  # a blank line, as openpyxl skips empty rows
        rows.append(
            (number, {k: v for k, v in zip(keys, cells, strict=False) if k})
        )
    return Sheet(name, headers, rows)


def load_csv(path: Path) -> Sheet:
    """One tab of the per-tab CSV export, named as the tab (``vInfo``)."""
    text, _ = decode_csv(path)
    records = csv_records(
        text, path.name, error=InventoryError, delimiter=sniff_delimiter(text),
        rows=True,
    )
    sheet = _sheet(csv_tab(path) or path.stem, records)
    sheet.file = path.name
    return sheet


def _read_csv_export(
    path: Path, names: tuple[str, ...] = SHEETS
) -> tuple[dict[str, Sheet | None], list[str], str]:
    """The :data:`SHEETS` of a per-tab CSV export (folder or its vInfo file),
    the tabs found and the name messages use for it."""
    if path.is_dir():
        tabs = csv_tabs(path)
    elif is_csv_export(path):  # vInfo.csv: its sibling tabs too
        tabs = {**csv_tabs(path.parent), "vinfo": path}
    else:  # a CSV in vInfo's layout written by another tool: that tab alone
        tabs = {"vinfo": path}
    sheets: dict[str, Sheet | None] = {
        n: load_csv(tabs[n.casefold()]) if n.casefold() in tabs else None
        for n in names
    }
    found = [csv_tab(f) or f.stem for f in tabs.values()]
    return sheets, found, tabs["vinfo"].name


def read_sheets(
    path: str | os.PathLike[str], extra: tuple[str, ...] = (),
) -> tuple[dict[str, Sheet | None], Sheet, list[str], str]:
    """The :data:`SHEETS` (and ``extra`` tabs) of an RVTools export (None where absent), its vInfo
    sheet, the names of all its sheets (tabs) and its format ('xlsx' or 'csv').

    ``path`` is a workbook, a folder of the per-tab CSV export, or the vInfo
    CSV of such a folder.

    Raises
    ------
    InventoryError
        Missing file, or no vInfo sheet with a VM column.
    """
    p = Path(path)
    if p.is_dir() or (p.is_file() and p.suffix.casefold() in _CSV_SUFFIXES):
        sheets, all_sheets, file = _read_csv_export(p, SHEETS + extra)
        fmt = "csv"
        if sheets["vInfo"] is None:
            raise InventoryError(
                f"{p.name}: expected a folder with RVTools' per-tab CSV export "
                "(vInfo.csv or RVTools_tabvInfo.csv); found no vInfo file in "
                f"{os.fspath(path)}"
            )
    elif not p.is_file():
        raise InventoryError(f"{p.name}: {not_a_file(path)}")
    else:
        file, fmt = p.name, "xlsx"
        wb = open_workbook(p)
        try:
            sheets = {n: load(wb, n, p.name) for n in SHEETS + extra}
            if sheets["vInfo"] is None:  # another producer's name for the tab
                other = vinfo_like_sheet(wb)
                sheets["vInfo"] = None if other is None else load(wb, other, p.name)
            all_sheets = list(wb.sheetnames)
            repair = getattr(wb, "vsizer_repair", None)
        finally:
            wb.close()
        if repair and sheets["vInfo"] is not None:
            sheets["vInfo"].notes.append(repair)
    vinfo = sheets["vInfo"]
    if vinfo is not None and not vinfo.has("VM") and vinfo.has("vInfoVMName"):
        raise InventoryError(
            f"{file}: vInfo has RVTools' database column names ('vInfoVMName', "
            "'vInfoPowerstate', ...: its -DBColumnNames option); expected its display "
            "names ('VM', 'Powerstate', 'CPUs', 'Memory'): export again without "
            "-DBColumnNames"
        )
    if vinfo is None or not vinfo.has("VM"):
        what = "sheet" if fmt == "xlsx" else "file"
        raise InventoryError(
            f"{file}: no 'vInfo' {what} with a 'VM' column; this is not an RVTools "
            f"export ({what}s: {', '.join(all_sheets)})"
        )
    return sheets, vinfo, all_sheets, fmt
