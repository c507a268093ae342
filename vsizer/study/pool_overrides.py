"""Match the ``[pools."NAME"]`` tables of a scenario to the pools the inventory has.

An override that names no pool used to change nothing and say nothing. Now:
the exact name applies; else the one pool whose name is equal ignoring case
applies, with a counted warning (``pool_override_case``); else the run stops
with one error line listing the pools there are.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from vsizer.errors import ConfigError
from vsizer.quality import QualityReport
from vsizer.study.config import Rules

__all__ = ["match_pool_overrides"]


def match_pool_overrides(
    rules: Rules, pool_names: Iterable[object], quality: QualityReport
) -> Rules:
    """``rules`` with its pool overrides keyed by the inventory's pool names.

    Raises
    ------
    ConfigError
        One line per override that matches no pool (or several, ignoring
        case), each listing the pools of the inventory.
    """
    if not rules.pools:
        return rules
    names = list(dict.fromkeys(str(p) for p in pool_names))
    folded: dict[str, list[str]] = {}
    for name in names:
        folded.setdefault(name.casefold(), []).append(name)
    listed = ", ".join(repr(n) for n in names) or "(none)"
    matched, problems = {}, []
    for key, pool_rules in rules.pools.items():
        candidates = [key] if key in names else folded.get(key.casefold(), [])
        if len(candidates) != 1:
            why = "matches no pool" if not candidates else "matches several pools"
            problems.append(
                f"[pools.{key!r}] {why} of the inventory; its pools are {listed} "
                "(names are matched exactly, else ignoring case)."
            )
            continue
        if candidates[0] != key:
            quality.warn(
                "pool_override_case",
                f"[pools.{key!r}] applied to pool {candidates[0]!r} (the names differ "
                "only in case).",
            )
        matched[candidates[0]] = pool_rules
    if problems:
        raise ConfigError(problems)
    return dataclasses.replace(rules, pools=matched)
