"""Validity-range checks shared by the model functions.

A model evaluated outside the range its source measured still returns a value,
but warns with :class:`~vsizer.errors.ModelRangeWarning` naming the model, the
quantity, the measured range and the source, so no extrapolation is silent.

Scalar parameters are declared with :func:`vsizer._validation.validate_params`;
array parameters, which a declaration cannot hold, are checked element-wise by
:func:`check_array_bounds` with the same message template.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping

import numpy as np
import numpy.typing as npt

from vsizer._validation import Interval, param_problem
from vsizer.errors import ConfigError, ModelRangeWarning


def _first_outside(value: npt.ArrayLike, bounds: Interval) -> float | None:
    """The first element of ``value`` outside ``bounds`` (NaN is not checked), or None."""
    v = np.atleast_1d(np.asarray(value, dtype=float))
    bad = np.zeros(v.shape, dtype=bool)
    if bounds.low is not None:
        bad |= v < bounds.low if bounds.closed in ("both", "left") else v <= bounds.low
    if bounds.high is not None:
        bad |= v > bounds.high if bounds.closed in ("both", "right") else v >= bounds.high
    return float(v[bad].flat[0]) if bad.any() else None


def check_array_bounds(
    arrays: Mapping[str, tuple[npt.ArrayLike, Interval]], where: str
) -> None:
    """Raise one :class:`~vsizer.errors.ConfigError` for array parameters out of bounds.

    Parameters
    ----------
    arrays : mapping
        Parameter name -> (its value(s), the bounds every element must keep).
    where : str
        The function named in the message, e.g. ``'cpu.linear_relative'``.

    Raises
    ------
    ConfigError
        One line per parameter with an element outside its bounds, naming the
        first such element, in the template of :func:`vsizer._validation.check_params`.
    """
    problems = []
    for name, (value, bounds) in arrays.items():
        worst = _first_outside(value, bounds)
        if worst is not None:
            problems.append(param_problem(name, worst, bounds, where))
    if problems:
        raise ConfigError([p for p in problems if p is not None])


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
        Where the range comes from (the publication and its table).

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
