"""Declared parameter constraints (scikit-learn style) with one message template."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from vsizer.errors import ConfigError


@dataclass(frozen=True)
class Interval:
    """A numeric range. ``closed`` is one of 'both', 'left', 'right', 'neither'."""

    kind: type
    low: float | None
    high: float | None
    closed: str = "both"

    def contains(self, value: Any) -> bool:
        if isinstance(value, bool):
            return False
        if self.kind is int and not (isinstance(value, int)):
            return False
        if self.kind is float and not isinstance(value, (int, float)):
            return False
        if isinstance(value, float) and not math.isfinite(value):
            return False  # nan, and inf even where no upper bound is set
        lo_ok = self.low is None or (
            value >= self.low if self.closed in ("both", "left") else value > self.low
        )
        hi_ok = self.high is None or (
            value <= self.high
            if self.closed in ("both", "right")
            else value < self.high
        )
        return lo_ok and hi_ok

    def describe(self) -> str:
        name = "an int" if self.kind is int else "a float"
        # An infinite end is never included: inf and -inf are not accepted.
        left = "[" if self.closed in ("both", "left") and self.low is not None else "("
        right = (
            "]" if self.closed in ("both", "right") and self.high is not None else ")"
        )
        lo = "-inf" if self.low is None else f"{self.low:g}"
        hi = "inf" if self.high is None else f"{self.high:g}"
        return f"{name} in the range {left}{lo}, {hi}{right}"


@dataclass(frozen=True)
class OneOf:
    """A value from a fixed set."""

    options: tuple[Any, ...]

    def contains(self, value: Any) -> bool:
        return value in self.options

    def describe(self) -> str:
        return "one of " + ", ".join(repr(o) for o in self.options)


def check_param(name: str, value: Any, constraint: Interval | OneOf, where: str) -> Any:
    """Return ``value`` if it satisfies ``constraint``, else raise :class:`ConfigError`.

    The message follows one template:
    ``The 'ceiling' parameter of plan must be a float in the range (0, 1]. Got 1.2 instead.``
    """
    if not constraint.contains(value):
        raise ConfigError(
            f"The '{name}' parameter of {where} must be {constraint.describe()}. "
            f"Got {value!r} instead."
        )
    return value


def quoted_list(names: Sequence[str], limit: int = 5) -> str:
    """Names for a message: "'a', 'b' and 3 more" (at most ``limit`` shown)."""
    shown = ", ".join(f"'{n}'" for n in names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")
