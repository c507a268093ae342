"""Parquet input of the public-trace readers: named columns, batch by batch.

A trace written to Parquet (by the user, or by a previous run) keeps the
dataset's column names; each reader names the columns it needs and the names
each may go by (e.g. ``vmid`` or ``vm_id``). Batches are read with
:meth:`pyarrow.parquet.ParquetFile.iter_batches` restricted to those columns,
so memory is one batch, never the file. Problems use the house lines with
``row`` (1-based, over the whole file) where CSV readers say ``line``:
``{file} row {n}, column '{c}': expected {what}, got '{value}'.``
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from vsizer.series._tidy import FloatArray, Problems

__all__ = ["PARQUET_SUFFIXES", "is_parquet", "number_cells", "parquet_batches", "text_cells", "text_series"]

#: Names of Parquet files.
PARQUET_SUFFIXES = (".parquet", ".pq")

#: Rows per batch (a batch is the unit of memory of a worker).
BATCH_ROWS = 1 << 18


def is_parquet(path: Path) -> bool:
    """True when ``path`` is named as Parquet or starts with the Parquet magic."""
    if path.name.lower().endswith(PARQUET_SUFFIXES):
        return True
    try:
        with open(path, "rb") as fh:
            return fh.read(4) == b"PAR1"
    except OSError:
        return False


def _resolve(
    names: Sequence[str], wanted: Mapping[str, Sequence[str]]
) -> tuple[dict[str, str], list[str]]:
    """File column per canonical name, and the canonical names not found."""
    lower = {n.lower(): n for n in names}
    found: dict[str, str] = {}
    missing = []
    for canon, aliases in wanted.items():
        hit = next((lower[a.lower()] for a in aliases if a.lower() in lower), None)
        if hit is None:
            missing.append(canon)
        else:
            found[canon] = hit
    return found, missing


def parquet_batches(
    path: Path,
    *,
    file: str,
    wanted: Mapping[str, Sequence[str]],
    problems: Problems,
    batch_rows: int = BATCH_ROWS,
    dictionary: Sequence[str] = (),
) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(first row, {canonical name: pyarrow array})`` per batch of ``path``.

    ``wanted`` maps each canonical column to the names it may have in the file
    (first match wins, case-insensitive). A file that is not Parquet, or lacks
    a column, is one problem and yields nothing. ``dictionary`` columns are
    read dictionary-encoded (ids repeated on every row cost one index each).
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        pf = pq.ParquetFile(path, read_dictionary=None)
        cols, missing = _resolve(pf.schema_arrow.names, wanted)
        if missing:
            problems.whole(
                file,
                f"expected Parquet columns {', '.join(wanted)}, found "
                f"{', '.join(pf.schema_arrow.names) or 'none'} "
                f"(missing {', '.join(missing)}).",
            )
            return
        dict_cols = [cols[c] for c in dictionary if c in cols]
        pf = pq.ParquetFile(path, read_dictionary=dict_cols or None)
        row = 1
        for batch in pf.iter_batches(
            batch_size=batch_rows, columns=list(dict.fromkeys(cols.values()))
        ):
            arrays = {c: batch.column(batch.schema.get_field_index(n)) for c, n in cols.items()}
            yield row, arrays
            row += batch.num_rows
    except (OSError, pa.ArrowException) as exc:
        problems.whole(file, f"cannot read the file as Parquet: {exc}.")


def _type_problem(
    arr: Any, file: str, column: str, expected: str, problems: Problems
) -> bool:
    """True (and one problem) when ``arr`` is neither numeric nor text."""
    import pyarrow as pa

    t = arr.type
    if pa.types.is_dictionary(t):
        t = t.value_type
    if pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_null(t):
        return False
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return False
    problems.whole(
        file, f"column '{column}': expected {expected} (a number column), found type {t}."
    )
    return True


def number_cells(
    arr: Any,
    *,
    file: str,
    row0: int,
    column: str,
    expected: str,
    problems: Problems,
    allow_empty: bool,
) -> FloatArray | None:
    """Numbers of a Parquet column (NaN where null or empty); None after a type problem.

    Text columns are parsed; a cell that is not a number (or, unless
    ``allow_empty``, an empty or null cell) is a problem naming its row.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    if _type_problem(arr, file, column, expected, problems):
        return None
    t = arr.type
    if pa.types.is_dictionary(t):
        arr = arr.cast(t.value_type)
        t = t.value_type
    if not (pa.types.is_string(t) or pa.types.is_large_string(t)):
        out = pc.cast(arr, pa.float64()).to_numpy(zero_copy_only=False)
        values = np.asarray(out, dtype=np.float64)
        if not allow_empty:
            for pos in np.flatnonzero(np.isnan(values)):
                problems.cell(file, row0 + int(pos), expected, "", column=column, unit="row")
        return values
    text = text_series(arr)
    num = pd.to_numeric(text, errors="coerce").to_numpy(dtype=np.float64)
    bad = np.isnan(num) & ((text != "").to_numpy() | (not allow_empty))
    for pos in np.flatnonzero(bad):
        problems.cell(file, row0 + int(pos), expected, text.iloc[pos], column=column, unit="row")
    return num


def text_cells(
    arr: Any, *, file: str, row0: int, column: str, what: str, problems: Problems
) -> tuple[np.ndarray, np.ndarray] | None:
    """Codes and distinct values of an id column (dictionary-encoded or not).

    Returns ``(codes, values)`` with ``values[codes]`` the ids, stripped; a null
    or blank id is a problem naming its row (its code is -1). None after a type
    problem.
    """
    import pyarrow as pa

    t = arr.type
    if pa.types.is_dictionary(t):
        t = t.value_type
    if not (pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_integer(t)):
        problems.whole(file, f"column '{column}': expected {what} (text), found type {t}.")
        return None
    if pa.types.is_dictionary(arr.type):
        idx = arr.indices.to_numpy(zero_copy_only=False)
        valid = np.logical_not(arr.is_null().to_numpy(zero_copy_only=False))
        values: Any = np.empty(len(arr.dictionary), dtype=object)
        values[:] = [str(v).strip() for v in arr.dictionary.to_pylist()]
        codes = np.where(valid, np.nan_to_num(idx, nan=-1), -1).astype(np.int64)
    else:
        import pyarrow.compute as pc

        text = pc.fill_null(pc.cast(arr, pa.string()), "").to_numpy(zero_copy_only=False)
        codes, uniq = pd.factorize(pd.Series(text, dtype=object).str.strip())
        values = np.asarray(uniq, dtype=object)
        codes = codes.astype(np.int64)
    blank = codes < 0
    if len(values):
        empty = np.flatnonzero(values == "")
        if len(empty):
            blank |= np.isin(codes, empty)
    for pos in np.flatnonzero(blank):
        problems.cell(file, row0 + int(pos), what, "", column=column, unit="row")
    return np.where(blank, -1, codes), values


def text_series(arr: Any) -> pd.Series:
    """Stripped text of each cell ('' where null)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    text = pc.fill_null(pc.cast(arr, pa.string()), "").to_numpy(zero_copy_only=False)
    return pd.Series(text, dtype=object).str.strip()
