"""The plan's detail file written as CSV column by column (issue 25).

:meth:`pandas.DataFrame.to_csv` hands every row to the standard library's
``csv`` writer, which examines every character of every cell: for a
million-server plan (half a gigabyte of CSV, most of it the servers' quality
notes) that is tens of CPU seconds. :func:`write_csv` gives the same bytes
(checked against ``to_csv`` in tests/test_json_detail.py): each column's
cells turned into text as ``to_csv`` turns them (float64 by numpy's
``astype(str)``, which is Python's ``repr``, each distinct value once; missing
values empty; other objects by ``str``, Python floats by their ``repr``), each
distinct text quoted once, where the ``csv`` writer
quotes (its minimal quoting, probed from the module itself: a cell holding
the delimiter, the quote or a line-ending character), then the rows joined a
block at a time. A column of a type it does not know, or a frame of one
column (where the ``csv`` writer quotes an empty cell), is left to ``to_csv``.
"""

from __future__ import annotations

import csv
import io
import re
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["write_csv"]

#: Rows joined and written at once (bounds the text held in memory).
_BLOCK = 20_000


def _probe_specials() -> str:
    """The characters that make the ``csv`` writer (minimal quoting, ``\\n``
    line ends) quote a cell, as this Python's ``csv`` module does."""
    found = []
    for c in ',"\n\r\t ;':
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerow([f"a{c}b", "x"])
        if buf.getvalue().startswith('"'):
            found.append(c)
    return "".join(found)


_SPECIALS = _probe_specials()


_NEEDS_QUOTES = re.compile(f"[{re.escape(_SPECIALS)}]").search


def _quote(text: str) -> str:
    if _NEEDS_QUOTES(text):
        return '"' + text.replace('"', '""') + '"'
    return text


def _object_text(value: Any) -> str:
    """A non-missing object cell as the ``csv`` writer writes it."""
    if type(value) is str:
        return value
    if isinstance(value, float):
        return float.__repr__(value)
    return str(value)


def _kind(values: Any) -> str | None:
    """"f" for a numpy float64 column, "o" for a column of objects, integers,
    booleans or strings, None for a type :func:`write_csv` leaves to ``to_csv``."""
    if isinstance(values, np.ndarray) and values.dtype == np.float64:
        return "f"
    if isinstance(values, np.ndarray) and values.dtype.kind in "Oiub" or (
        isinstance(values, pd.api.extensions.ExtensionArray)
        and values.dtype.kind in "iubO"
    ):
        return "o"
    return None


def _cells(values: Any, kind: str) -> list[str]:
    """The column's cells as ``to_csv`` writes them (quoted where needed)."""
    if kind == "f":
        # each distinct float (by its bits: -0.0 is not 0.0) by its repr, which is
        # numpy's astype(str) of a float64; digits, a sign, "e", "inf": never quoted
        bits = np.ascontiguousarray(values).view(np.int64)
        unique, where = np.unique(bits, return_inverse=True)
        texts = np.array(["" if x != x else float.__repr__(x)
                          for x in unique.view(np.float64).tolist()], dtype=object)
        out: list[str] = texts[where.reshape(-1)].tolist()
        return out
    objects = np.asarray(values.astype(object), dtype=object)
    objects[pd.isna(objects)] = ""
    cells = objects.tolist()
    if not all(type(v) is str for v in cells):  # the text of 1, 1.0, True (equal keys)
        cells = [v if type(v) is str else _object_text(v) for v in cells]
    distinct = {v: _quote(v) for v in dict.fromkeys(cells)}  # each text quoted once
    if all(k is v for k, v in distinct.items()):
        return cells  # none quoted
    return [distinct[v] for v in cells]


def _values(column: pd.Series) -> Any:
    """The column's values: a numpy array, or its extension array."""
    values = column.array
    if isinstance(values, pd.arrays.NumpyExtensionArray):
        return values.to_numpy()
    return values


def write_csv(frame: pd.DataFrame, fh: Any) -> None:
    """``frame`` to the open binary file ``fh`` as
    ``frame.to_csv(fh, index=False, lineterminator="\\n", encoding="utf-8")``
    writes it, byte for byte; a block of rows at a time."""
    columns = [_values(frame.iloc[:, i]) for i in range(frame.shape[1])]
    kinds = [k for k in map(_kind, columns) if k is not None]
    if frame.shape[1] < 2 or len(kinds) < len(columns):
        frame.to_csv(fh, index=False, lineterminator="\n", encoding="utf-8")
        return
    header = ",".join(_quote(_object_text(c)) for c in frame.columns)
    fh.write((header + "\n").encode("utf-8"))
    for start in range(0, len(frame), _BLOCK):
        block = [_cells(v[start:start + _BLOCK], k)
                 for v, k in zip(columns, kinds, strict=True)]
        text = "\n".join(map(",".join, zip(*block, strict=True)))
        fh.write((text + "\n").encode("utf-8"))
