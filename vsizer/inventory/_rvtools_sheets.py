"""RVTools workbook sheets: each as rows of cells keyed by normalized header.

Header spellings vary between RVTools versions (case, spacing, a trailing
space); :func:`key` normalizes them so a header is found however it is written.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from vsizer.errors import InventoryError
from vsizer.inventory._io import open_workbook, sheet_rows

#: The sheets read, in this order.
SHEETS = ("vInfo", "vCPU", "vMemory", "vDisk", "vHost")


def key(text: Any) -> str:
    """A header compared case-insensitively with runs of spaces as one."""
    return re.sub(r"\s+", " ", str(text)).strip().casefold()


class Sheet:
    """A sheet as header -> value dicts keyed by normalized header text."""

    def __init__(self, name: str, headers: list[str], rows: list[tuple[int, dict]]):
        self.name, self.headers, self.rows = name, headers, rows
        self.by_key = {key(h): h for h in headers}

    def has(self, header: str) -> bool:
        return key(header) in self.by_key

    def header(self, header: str) -> str:
        return self.by_key.get(key(header), header)


def load(wb: Any, name: str, file: str) -> Sheet | None:
    """Sheet ``name`` (matched case-insensitively) of ``wb``, or None."""
    actual = next((s for s in wb.sheetnames if s.casefold() == name.casefold()), None)
    if actual is None:
        return None
    grid = sheet_rows(wb[actual], f"{file} sheet '{actual}'")
    first = next(grid, None)
    if first is None:
        return Sheet(actual, [], [])
    headers = [str(h).strip() if h is not None else "" for h in first[1]]
    rows = []
    for number, cells in grid:
        rows.append(
            (number, {key(h): v for h, v in zip(headers, cells, strict=False) if h})
        )
    return Sheet(actual, headers, rows)


def read_sheets(
    path: str | os.PathLike[str],
) -> tuple[dict[str, Sheet | None], Sheet, list[str]]:
    """The :data:`SHEETS` of an RVTools export (None where absent), its vInfo
    sheet and the names of all its sheets.

    Raises
    ------
    InventoryError
        Missing file, or no vInfo sheet with a VM column.
    """
    p = Path(path)
    if not p.is_file():
        raise InventoryError(f"{p.name}: file not found: {os.fspath(path)}")
    wb = open_workbook(p)
    try:
        sheets = {n: load(wb, n, p.name) for n in SHEETS}
        all_sheets = list(wb.sheetnames)
    finally:
        wb.close()
    vinfo = sheets["vInfo"]
    if vinfo is None or not vinfo.has("VM"):
        raise InventoryError(
            f"{p.name}: no 'vInfo' sheet with a 'VM' column; this is not an RVTools "
            f"export (sheets: {', '.join(all_sheets)})"
        )
    return sheets, vinfo, all_sheets
