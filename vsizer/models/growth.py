"""Demand growth over the years: yearly rates, compound factors, the year a pool
runs out and the purchase schedule. Pure arithmetic, no fitted parameter.

Growth compounds: with the rate :math:`g_i` of year :math:`i` (0.10 for 10 %),
the demand at the end of year :math:`y` is

.. math::

    D_y = D_0 \\prod_{i=1}^{y} (1 + g_i)

(compound growth, the arithmetic of compound interest; the rates are the
user's forecast, nothing is fitted). A rate is written
``"10%"``, ``"10 %"``, ``"0.10"`` or ``0.10``; it must lie in [-100 %, 1000 %]
(-100 %: the demand vanishes; beyond that it would turn negative).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from vsizer._validation import EachOf, Interval, Satisfies, validate_params

#: Lowest yearly rate: -100 % (the demand vanishes); below it demand is negative.
MIN_RATE = -1.0
#: Highest yearly rate: +1000 % (x11 a year), far beyond any planned growth.
MAX_RATE = 10.0


def parse_rate(value: Any) -> float | None:
    """A yearly rate as a fraction: ``"10%"`` -> 0.1, ``"0.10"`` / 0.1 -> 0.1.

    None when ``value`` is not a rate (text, a bool, NaN, or outside
    [:data:`MIN_RATE`, :data:`MAX_RATE`]).
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        rate = float(value)
    elif isinstance(value, str):
        text = value.strip().replace("\uff05", "%")  # full-width percent sign
        percent = text.endswith("%")
        try:
            rate = float(text.removesuffix("%").strip())
        except ValueError:
            return None
        if percent:
            rate /= 100.0
    else:
        return None
    if not math.isfinite(rate) or not MIN_RATE <= rate <= MAX_RATE:
        return None
    return rate


def parse_rates(value: Any) -> tuple[float, ...] | None:
    """One rate, or a comma-separated list of yearly rates (``"10%,15%,5%"``).

    None when any item is not a rate (:func:`parse_rate`).
    """
    items = value.split(",") if isinstance(value, str) else [value]
    rates = [parse_rate(v) for v in items]
    if not rates or any(r is None for r in rates):
        return None
    return tuple(r for r in rates if r is not None)


def is_rate(value: Any) -> bool:
    """``value`` is one yearly rate (:func:`parse_rate`)."""
    return parse_rate(value) is not None


def is_rates(value: Any) -> bool:
    """``value`` is one rate or a comma-separated list of rates."""
    return parse_rates(value) is not None


#: The declared constraint of a rate, shared by the rules and the functions here.
RATE = Satisfies(
    is_rate,
    "a yearly growth rate such as '10%' or 0.10, from -100% to 1000%",
    valid="10%",
    invalid="ten percent",
)
#: A rate, or a comma-separated list of yearly rates ("10%,15%,5%").
RATES = Satisfies(
    is_rates,
    "a yearly growth rate such as '10%' or 0.10 (from -100% to 1000%), or a "
    "comma-separated list of one rate per year such as '10%,15%,5%'",
    valid="10%",
    invalid="-150%",
)


@validate_params({"years": Interval(int, 0, None), "rates": EachOf(RATE)})
def year_rates(rates: Sequence[Any], years: int) -> tuple[float, ...]:
    """The rate of each year 1..``years``: a single rate repeats; a table of one
    rate per year is used as given and sets the horizon (``years`` is then ignored).
    """
    parsed = tuple(parse_rate(r) or 0.0 for r in rates)
    if len(parsed) == 1:
        return parsed * years
    return parsed


@validate_params({"rates": EachOf(RATE)})
def growth_factors(rates: Sequence[Any]) -> tuple[float, ...]:
    """Demand at each year end over day one: (1, 1+g1, (1+g1)(1+g2), ...).

    One more entry than ``rates``: index ``y`` is year ``y``, 0 being day one.
    """
    factors = [1.0]
    for r in rates:
        factors.append(factors[-1] * (1.0 + (parse_rate(r) or 0.0)))
    return tuple(factors)


@validate_params({"owned": Interval(int, 0, None)})
def runs_out_year(owned: int, needed: Sequence[int | None]) -> int | None:
    """The first year (from 1) whose need exceeds the ``owned`` hosts, else None.

    ``needed[y]`` are the hosts year ``y`` needs (index 0: day one); None means
    no number of hosts holds it (a VM outgrew one host): it runs out then too.
    """
    for year, n in enumerate(needed):
        if year >= 1 and (n is None or n > owned):
            return year
    return None


@validate_params({"owned": Interval(int, 0, None)})
def purchase_schedule(owned: int, needed: Sequence[int | None]) -> list[tuple[int, int]]:
    """(year, hosts added) for each year 1.. whose need exceeds what is owned.

    Hosts are bought in the year whose year-end demand needs them and never
    retired; the schedule stops at the first year no count holds (None).
    """
    out: list[tuple[int, int]] = []
    for year, n in enumerate(needed):
        if year == 0:
            continue
        if n is None:
            break
        if n > owned:
            out.append((year, n - owned))
            owned = n
    return out


@dataclass(frozen=True)
class PoolGrowth:
    """One pool over the years (index ``y`` of each tuple: year ``y``, 0 = day one).

    Attributes
    ----------
    name : str
        The pool.
    rates : tuple of float
        Growth rate of each year 1..N.
    factors : tuple of float
        Demand over day one at each year end (:func:`growth_factors`).
    demand_cpu : tuple of float
        The pool's CPU demand (sum of each VM's sizing demand, capacity unit).
    needed : tuple of int or None
        Hosts the pool needs (same sizing as the plan, N+k and minimum
        included); None: no count holds it (a VM outgrew one host).
    binding : tuple of str or None
        The dimension that bounds the count that year.
    owned : int
        Hosts of the plan (sized for day one or for the horizon).
    runs_out : int or None
        First year the plan's hosts no longer hold the demand (:func:`runs_out_year`).
    purchases : tuple of (int, int)
        (year, hosts added); year 0 is the plan's own purchase.
    """

    name: str
    rates: tuple[float, ...]
    factors: tuple[float, ...]
    demand_cpu: tuple[float, ...]
    needed: tuple[int | None, ...]
    binding: tuple[str | None, ...]
    owned: int
    runs_out: int | None
    purchases: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Growth:
    """The growth study of a plan: the stated rates, the mode, every pool."""

    rate: float | tuple[float, ...]
    size_for: str
    horizon: int
    pools: tuple[PoolGrowth, ...]
    notes: tuple[str, ...] = ()
