"""Columns of a wide CSV that are an aggregate of the others, not a server.

A dashboard panel often draws, next to one series per server or pod, their
average or total (a query such as ``avg(...)`` or a series named ``avg``,
``Total``); its CSV export then holds that series as one more column. Read as
a server it would be planned twice over. A column counts as such an aggregate
only when its header names one (:data:`AGGREGATE_NAMES`) *and* each of its
values is that aggregate of the other columns' values at the same row
(relative tolerance :data:`RTOL`, for values printed to 9 or more digits).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["AGGREGATE_NAMES", "RTOL", "aggregate_columns"]

#: Header (case-folded) -> the aggregate it names.
AGGREGATE_NAMES = {
    "avg": "mean",
    "average": "mean",
    "mean": "mean",
    "sum": "sum",
    "total": "sum",
    "max": "max",
    "min": "min",
}

#: Relative tolerance of the comparison.
RTOL = 1e-6

_HOW: dict[str, Callable[..., Any]] = {
    "mean": np.nanmean,
    "sum": np.nansum,
    "max": np.nanmax,
    "min": np.nanmin,
}


def aggregate_columns(
    names: list[str],
    values: list[npt.NDArray[np.float64]],
    blanks: list[npt.NDArray[np.bool_]],
) -> dict[int, str]:
    """Position -> what it is (``"the mean of the other 5 columns at all 116
    rows"``) of each column that is an aggregate of the other columns.

    The other columns are those not named as an aggregate (a panel may draw
    both ``avg`` and ``max``), or all others when every one is so named.
    """
    named = [AGGREGATE_NAMES.get(n.strip().casefold()) for n in names]
    found: dict[int, str] = {}
    for j, how in enumerate(named):
        others = [i for i in range(len(names)) if i != j and named[i] is None]
        others = others or [i for i in range(len(names)) if i != j]
        if how is None or not others:
            continue
        mat = np.vstack([np.where(blanks[i], np.nan, values[i]) for i in others])
        has = ~blanks[j]
        some = np.isfinite(mat).any(axis=0)
        if not has.any() or not some[has].all():
            continue  # a value where no other column has one: no aggregate of them
        with np.errstate(all="ignore"):
            agg = _HOW[how](mat[:, has], axis=0)
        if np.allclose(values[j][has], agg, rtol=RTOL, atol=0.0):
            found[j] = (
                f"the {how} of the other {len(others)} columns at all "
                f"{int(has.sum()):,} rows"
            )
    return found
