"""Declared parameter constraints (scikit-learn style) with one message template."""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

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


@dataclass(frozen=True)
class OrNone:
    """``None`` (meaning "not given"), or a value satisfying ``inner``."""

    inner: Interval | OneOf

    def contains(self, value: Any) -> bool:
        return value is None or self.inner.contains(value)

    def describe(self) -> str:
        return f"None or {self.inner.describe()}"


@dataclass(frozen=True)
class Satisfies:
    """A value passing ``test``, for rules no range or set expresses.

    ``description`` completes "must be ..." in the message; ``valid`` and
    ``invalid`` are examples for the generic constraint test.
    """

    test: Callable[[Any], bool]
    description: str
    valid: Any
    invalid: Any

    def contains(self, value: Any) -> bool:
        return bool(self.test(value))

    def describe(self) -> str:
        return self.description


@dataclass(frozen=True)
class EachOf:
    """A sequence whose every item satisfies ``inner``.

    The message names the first item that does not (:func:`param_problem`).
    """

    inner: Interval | OneOf | Satisfies

    def contains(self, value: Any) -> bool:
        return self.culprit(value) is None

    def culprit(self, value: Any) -> tuple[Any] | None:
        """``(item,)`` for the first rejected item, None if all pass."""
        for item in value:
            if not self.inner.contains(item):
                return (item,)
        return None

    def describe(self) -> str:
        return self.inner.describe()


Constraint = Interval | OneOf | OrNone | Satisfies | EachOf


def invalid_example(constraint: Constraint) -> Any:
    """A value that ``constraint`` rejects (for the generic constraint test)."""
    if isinstance(constraint, OrNone):
        return invalid_example(constraint.inner)
    if isinstance(constraint, EachOf):
        return (invalid_example(constraint.inner),)
    if isinstance(constraint, Satisfies):
        return constraint.invalid
    if isinstance(constraint, OneOf):
        return "<not-an-option>"
    return float("nan")


def valid_example(constraint: Constraint) -> Any:
    """A value that ``constraint`` accepts (for the generic constraint test)."""
    if isinstance(constraint, OrNone):
        return None
    if isinstance(constraint, EachOf):
        return (valid_example(constraint.inner),)
    if isinstance(constraint, Satisfies):
        return constraint.valid
    if isinstance(constraint, OneOf):
        return constraint.options[0]
    lo, hi = constraint.low, constraint.high
    if lo is not None and hi is not None:
        v: float = (lo + hi) / 2
    elif lo is not None:
        v = lo + 1
    elif hi is not None:
        v = hi - 1
    else:
        v = 0
    return int(math.ceil(v)) if constraint.kind is int else float(v)


def param_problem(name: str, value: Any, constraint: Constraint, where: str) -> str | None:
    """The one-line message for a value outside its constraint, or None."""
    if constraint.contains(value):
        return None
    if isinstance(constraint, EachOf):
        (value,) = constraint.culprit(value) or (value,)
    return (
        f"The '{name}' parameter of {where} must be {constraint.describe()}. "
        f"Got {value!r} instead."
    )


def param_problems(
    values: Mapping[str, Any], constraints: Mapping[str, Constraint], where: str
) -> list[str]:
    """One line per declared parameter of ``values`` outside its constraint.

    Parameters missing from ``values`` are not checked.
    """
    return [
        p
        for name, c in constraints.items()
        if name in values
        and (p := param_problem(name, values[name], c, where)) is not None
    ]


def check_params(
    values: Mapping[str, Any],
    constraints: Mapping[str, Constraint],
    where: str,
    error: type[Exception] = ConfigError,
) -> None:
    """Check every declared parameter; raise ``error`` listing all problems, one per line.

    Parameters missing from ``values`` are not checked.
    """
    problems = param_problems(values, constraints, where)
    if problems:
        raise error("\n".join(problems))


F = TypeVar("F", bound=Callable[..., Any])

#: Every function declared with :func:`validate_params`, for the generic test.
DECLARED: list[Callable[..., Any]] = []


def validate_params(
    constraints: Mapping[str, Constraint],
    where: str | None = None,
    error: type[Exception] = ConfigError,
) -> Callable[[F], F]:
    """Declare a function's parameter constraints (scikit-learn style).

    The wrapped function checks every declared argument before running and
    raises ``error`` naming all that are out of range. The constraints are
    kept as data on ``fn.parameter_constraints``.
    """

    def decorate(fn: F) -> F:
        sig = inspect.signature(fn)
        unknown = set(constraints) - set(sig.parameters)
        if unknown:
            raise TypeError(f"{fn.__qualname__} has no parameter(s) {sorted(unknown)}")
        label = where or fn.__name__

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            bound = sig.bind(*args, **kwargs)
            bound.apply_defaults()
            check_params(bound.arguments, constraints, label, error)
            return fn(*args, **kwargs)

        wrapper.parameter_constraints = dict(constraints)  # type: ignore[attr-defined]
        wrapper.parameter_where = label  # type: ignore[attr-defined]
        wrapper.parameter_error = error  # type: ignore[attr-defined]
        DECLARED.append(wrapper)
        return wrapper  # type: ignore[return-value]

    return decorate


def check_param(name: str, value: Any, constraint: Constraint, where: str) -> Any:
    """Return ``value`` if it satisfies ``constraint``, else raise :class:`ConfigError`.

    The message follows one template:
    ``The 'ceiling' parameter of plan must be a float in the range (0, 1]. Got 1.2 instead.``
    """
    problem = param_problem(name, value, constraint, where)
    if problem is not None:
        raise ConfigError(problem)
    return value


def quoted_list(names: Sequence[str], limit: int = 5) -> str:
    """Names for a message: "'a', 'b' and 3 more" (at most ``limit`` shown)."""
    shown = ", ".join(f"'{n}'" for n in names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")
