"""Keys under which a column's cells are read once each (issue 25: a server list
repeats its sizes, clocks and percentages, so a column of 200,000 cells holds a
few hundred distinct ones)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["cell_keys", "column_of", "each_distinct"]


def cell_keys(column: list[Any]) -> list[tuple[Any, ...]]:
    """A key per cell of ``column``, equal for cells read alike: the cell's type
    and value (the number 16 and the text '16' apart, True apart from 1), a
    float zero with its sign (-0.0 == 0.0, yet written apart). A NaN is its own
    key (never equal to another NaN object)."""
    keys: list[tuple[Any, ...]] = list(zip(map(type, column), column, strict=True))
    if any(isinstance(v, float) and v == 0 for _, v in dict.fromkeys(keys)):
        keys = [(t, v, math.copysign(1.0, v)) if isinstance(v, float) and v == 0
                else (t, v) for t, v in keys]
    return keys


def column_of(rows: Iterable[list[Any]], i: int) -> list[Any]:
    """Cell ``i`` of each row (None past a short row)."""
    return [cells[i] if i < len(cells) else None for cells in rows]


def each_distinct(column: list[Any], fn: Callable[[Any], Any]) -> list[Any]:
    """``[fn(cell) for cell in column]``, ``fn`` called once per distinct key of
    :func:`cell_keys` (on the cell of its first row)."""
    keys = cell_keys(column)
    of = {key: fn(key[1]) for key in dict.fromkeys(keys)}
    return list(map(of.__getitem__, keys))
