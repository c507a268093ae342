"""``vsizer plan``'s rule flags, generated from the declared table of :class:`Rules`.

Each :class:`~vsizer.study.config.Rules` field with a ``flag`` in its metadata
becomes one option (its help text, its type, default None: "from the config"),
and each of :data:`~vsizer.study.config.TARGET_FLAGS` a ``--target-*`` option.
Adding a rule is adding one field.
"""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from vsizer.study.config import TARGET_FLAGS, Rules, rule_fields

F = TypeVar("F", bound=Callable[..., Any])

_TARGET_PREFIX = "target_"


def _cli_type(hint: Any, is_path: bool) -> Any:
    """The option type of a Rules field type: None dropped, a tuple as a list."""
    if is_path:
        return Path
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    if isinstance(hint, types.UnionType) and len(args) == 1:
        hint = args[0]
    elif isinstance(hint, types.UnionType) and str in args:
        hint = str  # a number or a word ('--vcpu-per-core today'): Rules converts
    if typing.get_origin(hint) is tuple:
        return list[typing.get_args(hint)[0]]  # type: ignore[misc]
    return hint


#: Help panel of the rule flags of each TOML section (``plan --help`` groups them).
RULE_PANELS = {
    "hosts": "Rules: hosts", "sizing": "Rules: sizing", "overhead": "Rules: overhead",
    "power": "Rules: power and cost", "space": "Rules: power and cost",
    "inventory": "Rules: inventory", "platform": "Rules: target platform",
    "series": "Rules: demand curves", "storage": "Rules: storage", "growth": "Rules: growth",
}


def _option(
    name: str, kind: Any, flag: str, help: str, panel: str | None = None
) -> inspect.Parameter:
    """One keyword parameter carrying a typer option; a switch defaults to off."""
    switch = kind is bool
    annotation = Annotated[  # type: ignore[valid-type]
        kind if switch else kind | None,
        typer.Option(flag, help=help, rich_help_panel=panel),
    ]
    return inspect.Parameter(
        name,
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
        default=False if switch else None,
        annotation=annotation,
    )


def rule_parameters() -> list[inspect.Parameter]:
    """One parameter per flagged rule, then one per target flag (table order)."""
    hints = typing.get_type_hints(Rules)
    params = [
        _option(name, _cli_type(hints[name], meta.path), meta.flag, meta.help,
                RULE_PANELS.get(meta.section, "Rules"))
        for name, meta in rule_fields().items()
        if meta.flag is not None
    ]
    params += [
        _option(
            _TARGET_PREFIX + key, float, "--target-" + key.replace("_", "-"), help,
            "Rules: target platform",
        )
        for key, help in TARGET_FLAGS.items()
    ]
    return params


def with_rule_flags(after: str) -> Callable[[F], F]:
    """Give a command the rule flags, placed after its parameter ``after``.

    The command takes them as ``**flags`` and passes them to :func:`rules_of`.
    """

    def decorate(fn: F) -> F:
        own = [
            p
            for p in inspect.signature(fn, eval_str=True).parameters.values()
            if p.kind is not inspect.Parameter.VAR_KEYWORD
        ]
        at = [p.name for p in own].index(after) + 1
        params = [*own[:at], *rule_parameters(), *own[at:]]
        fn.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
        return fn

    return decorate


def rules_of(config: Path | None, flags: Mapping[str, Any]) -> Rules:
    """The scenario file's rules (or the defaults) with the flags over them."""
    from vsizer.study.config import load_rules

    rules = load_rules(config) if config else Rules()
    targets = {
        k.removeprefix(_TARGET_PREFIX): v
        for k, v in flags.items()
        if k.startswith(_TARGET_PREFIX)
    }
    values = {k: v for k, v in flags.items() if not k.startswith(_TARGET_PREFIX)}
    return rules.with_flags(values, targets)
