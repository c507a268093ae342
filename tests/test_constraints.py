"""Declared constraints: one generic walk over every one of them.

Every :class:`~vsizer.study.config.Rules` field that declares a constraint, every
pool override, and every function declared with
:func:`vsizer._validation.validate_params` (the model functions register when
their modules are imported) must reject an invalid value with the one message
template, and accept a valid one.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import vsizer.models
from vsizer._validation import (
    DECLARED,
    Constraint,
    EachOf,
    invalid_example,
    param_problems,
    valid_example,
)
from vsizer.errors import ConfigError
from vsizer.study.config import (
    POOL_CONSTRAINTS,
    PoolRules,
    Rules,
    rule_fields,
    rule_where,
)

for _module in pkgutil.iter_modules(vsizer.models.__path__, "vsizer.models."):
    importlib.import_module(_module.name)  # model functions register in DECLARED


def _line(name: str, constraint: Constraint, value: Any, where: str) -> str:
    """The one message template, for ``value`` rejected by ``constraint``."""
    if isinstance(constraint, EachOf):
        (value,) = constraint.culprit(value) or (value,)
    # A rule of plan also names its flag and TOML key (vsizer.study.config.rule_where).
    aka = f"({rule_where(name)}) " if where == "plan" and name in rule_fields() else ""
    return (
        f"The '{name}' parameter of {where} {aka}must be {constraint.describe()}. "
        f"Got {value!r} instead."
    )


def _problems(make: Callable[[], Any], error: type[Exception]) -> list[str]:
    """The problem lines ``make()`` raises (``[]`` when it does not raise)."""
    try:
        make()
    except error as exc:
        return str(exc).splitlines()
    return []


# One case: (label, constraints, where, error, build(values) -> anything).
Case = tuple[str, dict[str, Constraint], str, type[Exception], Callable[..., Any]]


def _declared_cases() -> Iterator[Case]:
    rule_constraints = {
        name: meta.constraint
        for name, meta in rule_fields().items()
        if meta.constraint is not None
    }
    for name, c in rule_constraints.items():
        yield f"Rules.{name}", {name: c}, "plan", ConfigError, lambda **v: Rules(**v)
    for name, c in POOL_CONSTRAINTS.items():
        yield (
            f"PoolRules.{name}",
            {name: c},
            "[pools.p]",
            ConfigError,
            lambda **v: Rules(pools={"p": PoolRules(**v)}),
        )
    for fn in DECLARED:
        sig = inspect.signature(fn)
        required = {
            p.name: None
            for p in sig.parameters.values()
            if p.default is p.empty
            and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        }

        def call(
            fn: Callable[..., Any] = fn, required: dict[str, None] = required, **v: Any
        ) -> Any:
            return fn(**{**required, **v})

        yield (
            fn.__qualname__,
            dict(fn.parameter_constraints),  # type: ignore[attr-defined]
            fn.parameter_where,  # type: ignore[attr-defined]
            fn.parameter_error,  # type: ignore[attr-defined]
            call,
        )


def test_every_declared_constraint_rejects_and_accepts() -> None:
    cases = list(_declared_cases())
    assert sum(label.startswith("Rules.") for label, *_ in cases) >= 20
    declared_functions = {fn.__qualname__ for fn in DECLARED}
    wrong: list[str] = []
    for label, constraints, where, error, build in cases:
        bad = {name: invalid_example(c) for name, c in constraints.items()}
        expected = [_line(n, c, bad[n], where) for n, c in constraints.items()]
        got = _problems(lambda b=bad, f=build: f(**b), error)
        if sorted(got) != sorted(expected):
            wrong.append(f"{label}: invalid {bad!r} gave {got!r}, expected {expected!r}")
        good = {name: valid_example(c) for name, c in constraints.items()}
        if label in declared_functions:  # its body needs real arguments: check the data
            named = param_problems(good, constraints, where)
        else:
            named = [
                line
                for line in _problems(lambda g=good, f=build: f(**g), error)
                if any(line.startswith(f"The '{n}' parameter of {where} ") for n in good)
            ]
        if named:
            wrong.append(f"{label}: valid {good!r} rejected: {named!r}")
    assert wrong == []


def test_two_bad_rules_give_two_lines() -> None:
    with pytest.raises(ConfigError) as exc:
        Rules(ceiling=1.2, failures=-1)
    assert exc.value.problems == [
        "The 'ceiling' parameter of plan (--ceiling, [sizing] ceiling) must be a float in the range (0, 1]. "
        "Got 1.2 instead.",
        "The 'failures' parameter of plan (--failures, [sizing] failures) must be an int in the range [0, 1000]. "
        "Got -1 instead.",
    ]


def test_every_problem_of_rules_is_listed_in_field_order() -> None:
    with pytest.raises(ConfigError) as exc:
        Rules(
            currency="x" * 9,
            step="soon",
            platform=("warp-drive",),
            targets={"speed": 1.0},
            pools={"dev": PoolRules(min_hosts=0)},
        )
    lines = str(exc.value).splitlines()
    assert [line.split("'")[1] for line in lines] == [
        "currency",
        "step",
        "platform",
        "speed",
        "min_hosts",
    ]
    assert lines[2].endswith("Got 'warp-drive' instead.")
    assert lines[4].startswith("The 'min_hosts' parameter of [pools.dev] must be ")
