"""The declared metadata of a rule and the constraints the rules share.

Each field of :class:`vsizer.study.config.Rules` carries a :class:`RuleMeta`
(help text, TOML section and key, CLI flag, constraint): the one table that
the TOML reader, the ``vsizer plan`` flags and the checks are generated from.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Any

from vsizer._validation import Constraint, Interval, Satisfies
from vsizer.plausible import FIELD_RANGES

#: Largest number of host failures a plan may be asked to survive (N+k): far
#: beyond any real cluster, small enough that the failover check stays finite.
MAX_FAILURES = 1000

#: Largest minimum number of hosts per pool (``min_hosts``), for the same reason.
MAX_MIN_HOSTS = 100_000


@dataclass(frozen=True)
class RuleMeta:
    """The declared metadata of one :class:`Rules` field (one row of the table).

    Attributes
    ----------
    help : str
        What the rule means; the ``--help`` text of its flag.
    section : str
        TOML section the rule is read from (``[sizing]``).
    key : str or None
        Key in that section; None: the field's name.
    flag : str or None
        The ``vsizer plan`` flag that overrides it; None: TOML only.
    constraint : Constraint or None
        The values accepted (:mod:`vsizer._validation`). A field whose default
        is None also accepts None ("not given").
    path : bool
        A file name: a relative one in a TOML file is read from the file's folder.
    """

    help: str
    section: str
    key: str | None = None
    flag: str | None = None
    constraint: Constraint | None = None
    path: bool = False


def rule(help: str, section: str, **meta: Any) -> dict[str, RuleMeta]:
    """Field metadata declaring a rule; see :class:`RuleMeta`."""
    return {"rule": RuleMeta(help, section, **meta)}


#: Durations pandas reads as positive without a warning ('5min', '30s', '1h',
#: '250ms'; at most 9999 units: far from pandas' limit of 106,751 days), known
#: without importing pandas (0.4 s): the default step is checked by every plan.
_PLAIN_DURATION = re.compile(r"[1-9][0-9]{0,3}(?:ms|s|min|h)")


def is_duration(text: object) -> bool:
    """A positive pandas duration: '5min', '30s', '1h'."""
    if isinstance(text, str) and _PLAIN_DURATION.fullmatch(text):
        return True
    import pandas as pd  # on use: the CLI imports the rules to print its help

    try:
        return bool(pd.Timedelta(text) > pd.Timedelta(0))  # type: ignore[arg-type]
    except (ValueError, TypeError):
        return False


def is_percentile(text: object) -> bool:
    return text == "max" or percentile_quantile(text) is not None  # type: ignore[arg-type]


def is_currency(text: object) -> bool:
    """1 to 8 letters (ISO 4217 'JPY', '円') or currency signs ('¥', '$')."""
    return (
        isinstance(text, str)
        and 1 <= len(text) <= 8
        and all(c.isalpha() or unicodedata.category(c) == "Sc" for c in text)
    )


FRACTION = Interval(float, 0, 1, "right")
POSITIVE = Interval(float, 0, None, "neither")
NON_NEGATIVE = Interval(float, 0, None)
FAILURES = Interval(int, 0, MAX_FAILURES)
MIN_HOSTS = Interval(int, 1, MAX_MIN_HOSTS)
CURRENCY = Satisfies(
    is_currency,
    "a currency code such as 'JPY' or 'USD' (1 to 8 letters, or a currency sign "
    "such as '¥')",
    valid="JPY",
    invalid="-1",
)
DURATION = Satisfies(
    is_duration, "a positive duration like '5min' or '30s'", valid="5min", invalid="soon"
)
PERCENTILE = Satisfies(
    is_percentile,
    "'max' or 'pNN' with 0 < NN < 100 (e.g. 'p95', 'p99.9')",
    valid="p99",
    invalid="p100",
)


def is_vcpu_per_core(value: object) -> bool:
    """A positive finite number (or its text), or the word 'today'."""
    if value == "today":
        return True
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False
    return not isinstance(value, bool) and 0 < number < float("inf")


#: vCPU : core limit: a number, or 'today' (vsizer.study.baseline).
VCPU_PER_CORE = Satisfies(
    is_vcpu_per_core,
    "a positive number, or 'today' (the vCPU:core ratio the source's hosts run "
    "at today)",
    valid="today",
    invalid="-1",
)


def up_to_plausible(field_name: str) -> Interval:
    """Positive and within the inventory limits of ``field_name`` (vsizer.plausible)."""
    return Interval(float, 0, FIELD_RANGES[field_name].high, "right")


def percentile_quantile(text: str) -> float | None:
    """'p95' -> 0.95, 'p99.9' -> 0.999; 'max' or anything else -> None."""
    if not isinstance(text, str) or not text.startswith("p"):
        return None
    try:
        value = float(text[1:])
    except ValueError:
        return None
    return value / 100.0 if 0 < value < 100 else None
