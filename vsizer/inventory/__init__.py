"""Inventory readers: server lists from spreadsheets, RVTools and Azure Migrate.

Every reader returns an :class:`Inventory` with canonical columns
(``docs/nomenclature.md``) in canonical units, the servers not to plan in
``excluded`` with a reason, and a :class:`~vsizer.quality.QualityReport` saying
for each server which fields the file gave, which were derived and which
assumed. :func:`read_inventory` picks the reader from the file.
"""

from __future__ import annotations

import os
from pathlib import Path

from vsizer._small_file import not_a_file
from vsizer._textio import plain_name
from vsizer._validation import OneOf, check_param
from vsizer.errors import InventoryError
from vsizer.inventory._io import decode_csv, open_workbook, sniff_delimiter
from vsizer.inventory._rvtools_sheets import (
    is_csv_export,
    is_vinfo_header,
    vinfo_like_sheet,
)
from vsizer.inventory.azure_migrate import VARIABLE_MAP as AZURE_MIGRATE_VARIABLE_MAP
from vsizer.inventory.azure_migrate import is_azure_migrate_header, read_azure_migrate
from vsizer.inventory.headers import VARIABLE_MAP
from vsizer.inventory.model import COLUMNS, Inventory, empty_frame
from vsizer.inventory.rvtools import VARIABLE_MAP as RVTOOLS_VARIABLE_MAP
from vsizer.inventory.rvtools import read_rvtools
from vsizer.inventory.tabular import read_table
from vsizer.limits import csv_records

__all__ = [
    "AZURE_MIGRATE_VARIABLE_MAP",
    "COLUMNS",
    "RVTOOLS_VARIABLE_MAP",
    "SOURCE_FORMATS",
    "VARIABLE_MAP",
    "Inventory",
    "detect_format",
    "empty_frame",
    "read_azure_migrate",
    "read_inventory",
    "read_rvtools",
    "read_table",
]

#: Formats :func:`read_inventory` knows.
SOURCE_FORMATS: tuple[str, ...] = ("table", "rvtools", "azure_migrate")

_CSV_SUFFIXES = (".csv", ".tsv", ".txt")
_XLSX_SUFFIXES = (".xlsx", ".xlsm")

#: Spreadsheet files read by none of the readers: what to call them in the error.
_OTHER_SPREADSHEETS = {
    ".xls": "Excel 97-2003 workbooks (.xls)",
    ".xlsb": "Excel binary workbooks (.xlsb)",
    ".ods": "OpenDocument spreadsheets (.ods)",
    ".numbers": "Apple Numbers documents (.numbers)",
}


def detect_format(path: str | os.PathLike[str]) -> str:
    """Which reader a file needs: 'table', 'rvtools' or 'azure_migrate'.

    RVTools and the tools that write its layout: an XLSX with a ``vInfo``
    sheet; a folder of RVTools' per-tab CSV export (``vInfo.csv`` or
    ``RVTools_tabvInfo.csv`` with its sibling tabs), or that vInfo file; a
    CSV, or a workbook sheet under another name, whose header is vInfo's
    (``VM``, ``Powerstate``, ``CPUs`` and ``Memory``). A CSV whose first non-empty line has ``Server name`` (with or
    without ``*``) and ``Cores`` is an Azure Migrate import file; anything else
    is a table.

    Raises
    ------
    InventoryError
        The file does not exist, a folder holds no RVTools CSV export, or the
        file type is not supported.
    """
    p = Path(path)
    if p.is_dir():
        if is_csv_export(p):
            return "rvtools"
        raise InventoryError(
            f"{p.name}: expected a server-list file, or a folder with RVTools' "
            "per-tab CSV export (vInfo.csv or RVTools_tabvInfo.csv); this folder "
            f"holds neither: {os.fspath(path)}"
        )
    if not p.is_file():
        raise InventoryError(f"{p.name}: {not_a_file(path)}")
    if is_csv_export(p):
        return "rvtools"
    suffix = Path(plain_name(p)).suffix.lower()
    if suffix in _XLSX_SUFFIXES:
        wb = open_workbook(p)
        try:
            names = {n.casefold() for n in wb.sheetnames}
            found = "vinfo" in names or vinfo_like_sheet(wb) is not None
        finally:
            wb.close()
        return "rvtools" if found else "table"
    if suffix in _CSV_SUFFIXES:
        text, _ = decode_csv(p)
        first = next((line for line in text.splitlines() if line.strip()), "")
        records = csv_records(
            first, p.name, error=InventoryError, delimiter=sniff_delimiter(text)
        )
        cells = next(records, (1, []))[1]
        if is_azure_migrate_header(cells):
            return "azure_migrate"
        return "rvtools" if is_vinfo_header(cells) else "table"
    if suffix in _OTHER_SPREADSHEETS:
        raise InventoryError(
            f"{p.name}: {_OTHER_SPREADSHEETS[suffix]} are not supported; "
            "save it as .xlsx or .csv"
        )
    raise InventoryError(
        f"{p.name}: unsupported file type '{suffix or '(none)'}'; expected "
        ".csv or .xlsx (a table, an RVTools export or an Azure Migrate CSV)"
    )


def read_inventory(
    path: str | os.PathLike[str],
    *,
    sheet: str | None = None,
    include_powered_off: bool = False,
    source_format: str | None = None,
    mem_unit: str | None = None,
) -> Inventory:
    """Read a server list, choosing the reader from the file (:func:`detect_format`).

    Parameters
    ----------
    path : str or path-like
        ``.csv``/``.xlsx`` table, RVTools ``.xlsx`` export or per-tab CSV export
        (its folder or its vInfo file), or Azure Migrate CSV.
    sheet : str, optional
        Worksheet of a table workbook (default: the first with a header).
    include_powered_off : bool, default False
        RVTools only: plan powered-off VMs too.
    source_format : {'table', 'rvtools', 'azure_migrate'}, optional
        Skip detection and use this reader.
    mem_unit : {'GiB', 'GB', 'MiB', 'MB'}, optional
        Table only: the unit of a memory column whose header states none
        (default GiB; a warning says when every value looks like MB:
        :mod:`vsizer.inventory.mem_unit`).

    Returns
    -------
    Inventory

    Raises
    ------
    InventoryError
        The file is missing, unsupported or holds invalid values.
    ConfigError
        ``source_format`` is not one of :data:`SOURCE_FORMATS`.

    Examples
    --------
    >>> from vsizer.inventory import read_inventory
    >>> inv = read_inventory("vsizer/data/samples/inventory_ja.xlsx")  # doctest: +SKIP
    """
    if source_format is not None:
        fmt = check_param(
            "source_format", source_format, OneOf(SOURCE_FORMATS), "read_inventory"
        )
    else:
        fmt = detect_format(path)
    if sheet is not None and fmt != "table":  # --sheet is never ignored
        raise InventoryError(
            f"{Path(path).name}: sheet '{sheet}' given, but the file is read as "
            f"{fmt}; a sheet is chosen only in a server-list workbook"
        )
    if fmt == "rvtools":
        return read_rvtools(path, include_powered_off=include_powered_off)
    if fmt == "azure_migrate":
        return read_azure_migrate(path)
    from vsizer.inventory.mem_unit import apply_mem_unit

    return apply_mem_unit(read_table(path, sheet=sheet), mem_unit)
