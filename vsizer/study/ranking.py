"""Ranking of host-model candidates (``--host-model auto``): value objects,
the stated criterion and the ``choice`` section of the plan document.

Criterion (stated in the document):

1. when every candidate that could be planned has a total cost of ownership
   (:mod:`vsizer.study.tco`: no part missing), the lowest TCO over the years
   among the candidates whose plan survives its failover check (candidates
   that do not survive rank after those that do);
2. otherwise (some candidate lacks a price): survives failover, then fewer
   hosts, then lower energy cost (the power after consolidation: one price per
   kWh for every candidate, so the order is the same), and the document says
   which candidates lack which prices;
3. ties: fewer hosts, then lower power, then the model name.

Candidates that could not be planned (a VM larger than the host, ...) rank
last with their error.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from vsizer._jsonable import jsonable as _r
from vsizer.errors import ConfigError
from vsizer.study.tco import Tco

__all__ = ["BY_TCO", "FALLBACK", "Candidate", "Choice", "choice_doc", "rank"]

#: Criterion names (``choice.ranked_by``).
BY_TCO = "lowest_tco"
FALLBACK = "survives_hosts_energy"

_CRITERIA = {
    BY_TCO: (
        "lowest total cost of ownership over {years} years among the candidates "
        "that survive failover; ties: fewer hosts, lower power, name"
    ),
    FALLBACK: (
        "not every candidate has a price (TCO incomplete): survives failover, "
        "then fewer hosts, then lower energy cost (power after); ties: name"
    ),
}


@dataclass(frozen=True)
class Candidate:
    """One host model planned: its hosts, failover, power and TCO, or its error."""

    model: str
    hosts: int | None = None
    survives: bool = False
    power_w: float | None = None
    tco: Tco | None = None
    error: str | None = None

    def part(self, name: str) -> float | None:
        return None if self.tco is None else getattr(self.tco, name)


@dataclass(frozen=True)
class Choice:
    """The candidates in rank order, the winner, the criterion and why."""

    candidates: tuple[Candidate, ...]
    winner: str
    ranked_by: str
    criterion: str
    why: str
    years: int
    currency: str


def _key_tco(c: Candidate) -> tuple[Any, ...]:
    total = c.tco.total if c.tco is not None else None
    return (not c.survives, total, c.hosts, c.power_w, c.model)


def _key_fallback(c: Candidate) -> tuple[Any, ...]:
    return (not c.survives, c.hosts, c.power_w, c.model)


def rank(candidates: Sequence[Candidate], years: int, currency: str) -> Choice:
    """Rank ``candidates`` by the stated criterion (module docstring).

    Raises
    ------
    ConfigError
        No candidate could be planned (each one's error listed).
    """
    ok = [c for c in candidates if c.error is None]
    failed = sorted((c for c in candidates if c.error is not None), key=lambda c: c.model)
    if not ok:
        raise ConfigError(
            [f"--host-model auto: no candidate could be planned ({len(failed)} tried)."]
            + [f"candidate '{c.model}': {c.error}" for c in failed]
        )
    by_tco = all(c.tco is not None and c.tco.total is not None for c in ok)
    ranked_by = BY_TCO if by_tco else FALLBACK
    ordered = sorted(ok, key=_key_tco if by_tco else _key_fallback)
    return Choice(
        candidates=tuple(ordered + failed),
        winner=ordered[0].model,
        ranked_by=ranked_by,
        criterion=_CRITERIA[ranked_by].format(years=years),
        why=_why(ordered, ranked_by, years, currency),
        years=years,
        currency=currency,
    )


def _money(value: float | None, currency: str) -> str:
    return "—" if value is None else f"{value:,.0f} {currency}"


def _why(ordered: list[Candidate], ranked_by: str, years: int, currency: str) -> str:
    """One sentence: why the first of ``ordered`` won."""
    w = ordered[0]
    fo = "survives failover" if w.survives else "does NOT survive failover (none does)"
    head = f"{w.model}: {w.hosts} hosts, {fo}"
    if ranked_by == BY_TCO:
        assert w.tco is not None
        text = f"{head}, lowest TCO over {years} years ({_money(w.tco.total, currency)})"
    else:
        lacking = [c for c in ordered if c.tco is None or c.tco.total is None]
        parts = sorted({p for c in lacking if c.tco for p in c.tco.missing})
        text = (
            f"{head}, fewest hosts then lowest power ({_num(w.power_w)} W); "
            f"ranked without TCO: {len(lacking)} of {len(ordered)} candidates "
            f"lack a price ({', '.join(parts)}; see candidates[].missing)"
        )
    if len(ordered) > 1:
        n = ordered[1]
        key = _key_tco if ranked_by == BY_TCO else _key_fallback
        tie = key(w)[:2] == key(n)[:2]
        nxt = (
            _money(n.tco.total if n.tco else None, currency)
            if ranked_by == BY_TCO
            else f"{n.hosts} hosts, {_num(n.power_w)} W"
        )
        text += f"; next: {n.model} ({nxt}{', tie broken by the next key' if tie else ''})"
    return text + "."


def _num(value: float | None) -> str:
    return "—" if value is None else f"{value:,.0f}"


def choice_doc(choice: Choice) -> dict[str, Any]:
    """The ``choice`` section of the plan document (formatting only)."""
    return {
        "winner": choice.winner,
        "ranked_by": choice.ranked_by,
        "criterion": choice.criterion,
        "why": choice.why,
        "years": choice.years,
        "currency": choice.currency,
        "candidates": [
            {
                "rank": i + 1,
                "model": c.model,
                "hosts": c.hosts,
                "survives": c.survives if c.error is None else None,
                "power_w": _r(c.power_w),
                "capex": _r(c.part("capex")),
                "support": _r(c.part("support")),
                "licences": _r(c.part("licences")),
                "energy_cost": _r(c.part("energy")),
                "rack_cost": _r(c.part("rack")),
                "tco": _r(c.tco.total if c.tco is not None else None),
                "known_tco": _r(c.tco.known_total if c.tco is not None else None),
                "missing": list(c.tco.missing) if c.tco is not None else [],
                "error": c.error,
            }
            for i, c in enumerate(choice.candidates)
        ],
    }
