"""Reading, validating and writing catalog CSV files.

Every catalog reader declares its columns as :class:`Column` objects and calls
:func:`read_rows`, which checks the header and every value, collects *all*
problems of the file and raises one :class:`~vsizer.errors.CatalogError`:
``hosts.csv row 4, column 'sockets': expected a positive integer, got 'two'.``
Row numbers are spreadsheet rows: the header is row 1, the first data row 2.
"""

from __future__ import annotations

import csv
import math
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import pandas as pd

from vsizer._small_file import read_small_text
from vsizer.errors import CatalogError
from vsizer.limits import csv_records
from vsizer.plausible import FIELD_RANGES, check

Kind = Literal["str", "int", "float", "curve"]

#: Number of points of a SPECpower curve (active idle, 10 %, ..., 100 %).
CURVE_POINTS = 11


@dataclass(frozen=True)
class Column:
    """One declared catalog column.

    ``required``: the column must be in the header. ``nullable``: a cell may be
    empty. ``low``/``low_open``: lower bound of numbers (``low_open`` excludes it).
    """

    name: str
    kind: Kind = "str"
    required: bool = False
    nullable: bool = True
    low: float | None = 0.0
    low_open: bool = True
    description: str = ""
    #: Field of :data:`vsizer.plausible.FIELD_RANGES` whose limits the numbers
    #: must also respect (``power_w`` for ``power_max_w``), or None.
    limits: str | None = None

    def what(self) -> str:
        """Expected value, as said in error messages."""
        if self.kind == "str":
            return "a non-empty text"
        if self.kind == "curve":
            return (
                f"{CURVE_POINTS} non-negative numbers [W] separated by ';' "
                "(0 %, 10 %, ..., 100 % load)"
            )
        noun = "integer" if self.kind == "int" else "number"
        if self.low == 0.0:
            return f"a positive {noun}" if self.low_open else f"a non-negative {noun}"
        return f"an {noun}" if self.kind == "int" else f"a {noun}"


def shipped_path(file_name: str) -> Path:
    """Path of a catalog CSV shipped in ``vsizer/catalogs/data``."""
    return Path(str(resources.files("vsizer.catalogs").joinpath("data", file_name)))


def _parse(value: str, col: Column) -> tuple[Any, bool]:
    """Parse one cell; return (value, ok). Empty cells give (None, nullable)."""
    text = value.strip()
    if text == "":
        return None, col.nullable
    if col.kind == "str":
        return text, True
    if col.kind == "curve":
        parts = [p.strip() for p in text.split(";")]
        try:
            points = tuple(float(p) for p in parts)
        except ValueError:
            return None, False
        ok = len(points) == CURVE_POINTS and all(
            math.isfinite(p) and p >= 0 for p in points
        )
        return (points, True) if ok else (None, False)
    try:
        number = float(text)
    except ValueError:
        return None, False
    if not math.isfinite(number):
        return None, False
    if col.kind == "int":
        if not number.is_integer():
            return None, False
        number = int(number)
    if col.low is not None and (
        number < col.low or (col.low_open and number == col.low)
    ):
        return None, False
    if col.limits is not None and check(col.limits, number)[0] is not None:
        return number, False  # the caller names the limits
    return number, True


def _expected(cell: str, col: Column) -> str:
    """What a bad ``cell`` of ``col`` should have been, for the error line."""
    if col.kind not in ("int", "float"):
        return col.what()
    try:
        number = float(cell.strip())
    except ValueError:
        return col.what()
    if not math.isfinite(number):  # inf, -inf, 1e400
        return "a finite number"
    if col.limits is not None and _parse(cell, col) == (number, False):
        return f"{col.what()} from {FIELD_RANGES[col.limits].limits_text()}"
    return col.what()


def read_rows(
    path: str | os.PathLike[str], columns: Mapping[str, Column]
) -> tuple[list[dict[str, Any]], list[str], str]:
    """Read a catalog CSV and parse every cell by its declared column.

    Parameters
    ----------
    path : path-like
        The CSV file (UTF-8, optional BOM).
    columns : mapping of str to Column
        Accepted columns.

    Returns
    -------
    rows : list of dict
        One dict per data row, every declared column present (None if empty),
        plus ``_row``, the spreadsheet row number.
    problems : list of str
        Every value problem found, in file order. Header problems raise at once.
    file_name : str
        The file's name as used in messages.

    Raises
    ------
    CatalogError
        The file cannot be read, or a required column is missing, or a column
        is unknown (a typo would otherwise be ignored silently).
    """
    p = Path(path)
    name = p.name
    try:
        text = read_small_text(p, what="a catalog", error=CatalogError,
                               encoding="utf-8-sig")
    except OSError as exc:
        raise CatalogError(
            f"{p}: cannot read the catalog file ({exc.strerror})."
        ) from exc
    except UnicodeDecodeError as exc:
        raise CatalogError(f"{p}: expected a UTF-8 CSV file ({exc.reason}).") from exc
    reader = csv_records(text, name, error=CatalogError)
    header = [h.strip() for h in next(reader, (1, []))[1]]
    accepted = ", ".join(columns)
    header_problems = [
        f"{name}: missing required column '{c.name}'; accepted columns: {accepted}."
        for c in columns.values()
        if c.required and c.name not in header
    ]
    header_problems += [
        f"{name}: unknown column '{h}'; accepted columns: {accepted}."
        for h in header
        if h and h not in columns
    ]
    if header_problems:
        raise CatalogError(header_problems)
    rows: list[dict[str, Any]] = []
    problems: list[str] = []
    for row_no, record in reader:
        if not any(cell.strip() for cell in record):
            continue  # blank line
        row: dict[str, Any] = {c: None for c in columns}
        row["_row"] = row_no
        cells = list(record) + [""] * (len(header) - len(record))
        for col_name, cell in zip(header, cells, strict=False):
            if not col_name:
                continue
            col = columns[col_name]
            value, ok = _parse(cell, col)
            if not ok:
                value = None
                problems.append(
                    f"{name} row {row_no}, column '{col_name}': "
                    f"expected {_expected(cell, col)}, got '{cell.strip()}'."
                )
            row[col_name] = value
        rows.append(row)
    return rows, problems, name


_ROW = re.compile(r" row (\d+), ")


def by_row(problems: list[str]) -> list[str]:
    """Problems in row order (file-level ones first), stable within a row."""

    def key(text: str) -> int:
        found = _ROW.search(text)
        return int(found.group(1)) if found else 0

    return sorted(problems, key=key)


def format_curve(curve: Iterable[float] | None) -> str:
    """Write a power curve as the ``;``-separated text of ``power_curve_w``."""
    if curve is None:
        return ""
    return ";".join(_format_number(_scalar(v)) for v in curve)


def _format_number(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if value is pd.NA:
        return ""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)  # shortest text that reads back as the same float
    return str(value)


def write_catalog_csv(df: pd.DataFrame, path: str | os.PathLike[str]) -> Path:
    """Write a catalog frame (CPU, host or server-power columns) as CSV.

    Parameters
    ----------
    df : DataFrame
        Frame from an importer or a catalog's ``to_frame()``.
    path : path-like
        Destination; parent directories are created.

    Returns
    -------
    Path
        The written file.

    Notes
    -----
    Missing values become empty cells; whole numbers are written without a
    decimal point (``469``) and other floats as the shortest text that reads
    back as the same value (``5.107142857142857``), so a file round-trips.
    """
    from vsizer._atomic import atomic_write

    out = Path(path)
    with atomic_write(out, "w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(list(df.columns))
        for record in df.itertuples(index=False, name=None):
            writer.writerow([_format_number(_scalar(v)) for v in record])
    return out


def _scalar(value: Any) -> Any:
    """Plain Python scalar of a pandas/numpy cell (NA -> None)."""
    if value is None or value is pd.NA:
        return None
    if isinstance(value, tuple):
        return format_curve(value)
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return int(value)
    return value
