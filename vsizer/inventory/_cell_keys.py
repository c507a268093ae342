"""Keys under which a column's cells are read once each (issue 25: a server list
repeats its sizes, clocks and percentages, so a column of 200,000 cells holds a
few hundred distinct ones)."""

from __future__ import annotations

import math
from typing import Any

__all__ = ["cell_keys"]


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
