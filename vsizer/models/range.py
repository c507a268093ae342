"""Validity-range checks shared by the model functions.

A model evaluated outside the range its source measured still returns a value,
but warns with :class:`~vsizer.errors.ModelRangeWarning` naming the model, the
quantity, the measured range and the source, so no extrapolation is silent.
"""

from __future__ import annotations

import warnings

import numpy as np
import numpy.typing as npt

from vsizer.errors import ModelRangeWarning


def warn_outside(
    model: str,
    quantity: str,
    value: npt.ArrayLike,
    low: float | None,
    high: float | None,
    source: str,
) -> bool:
    """Warn when any finite ``value`` lies outside ``[low, high]``.

    Parameters
    ----------
    model : str
        Dotted model name, e.g. ``'cpu.relative_performance'``.
    quantity : str
        Name of the checked input.
    value : array_like
        The input value(s).
    low, high : float or None
        Measured range; ``None`` = unbounded on that side.
    source : str
        Where the range comes from (DESIGN.md section/table).

    Returns
    -------
    bool
        True when a warning was issued.
    """
    v = np.asarray(value, dtype=float)
    finite = v[np.isfinite(v)]
    if finite.size == 0:
        return False
    below = low is not None and bool(np.any(finite < low))
    above = high is not None and bool(np.any(finite > high))
    if not (below or above):
        return False
    worst = float(finite.min() if below else finite.max())
    if low is None:
        span = f"at most {high:g}"
    elif high is None:
        span = f"at least {low:g}"
    else:
        span = f"[{low:g}, {high:g}]"
    warnings.warn(
        ModelRangeWarning(
            f"{model}: {quantity} = {worst:g} is outside the measured range "
            f"({span}; {source}); the result extrapolates."
        ),
        stacklevel=3,
    )
    return True
