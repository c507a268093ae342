"""Total cost of ownership of one plan over ``rules.years``.

Five parts, each in the plan's currency (``rules.currency``):

- ``capex``: hosts x the host model's ``price``;
- ``support``: hosts x ``support_per_year`` x years;
- ``energy``: the plan's annual electricity cost after consolidation
  (:mod:`vsizer.study.economics`: power curve x PUE x price per kWh) x years;
- ``rack``: rack units x ``rules.rack_cost_per_u_year`` x years;
- ``licences``: per licence of ``rules.licences``
  (:mod:`vsizer.catalogs.licences`), units counted for the host model x
  price, x years for a subscription (``term = year``). A licence that covers a
  few VMs per licensing of the host's cores (``vms_per_licence``: Windows
  Server Standard) is counted per host from the most VMs that host runs,
  failover scenarios included (:func:`vms_on_hosts`).

Stated criterion for what is not known: a part whose input is not given for the
whole plan (no price per kWh, no rack cost, no licence file) is *not counted*
(``not_counted``: it is the same for every host model, so a comparison stays
fair); a part given but without a price for this host model or licence (the
host's ``price`` or ``support_per_year`` empty, a licence's ``price`` empty) is
*missing* (``missing``), and then ``total`` is None (``known_total`` sums the
parts that are known). Enter 0 where a cost is included elsewhere (support in
the price).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from vsizer._jsonable import jsonable as _r
from vsizer._validation import Interval, OrNone, validate_params
from vsizer.catalogs.licences import (
    Licence,
    licence_count,
    licences_per_host,
    read_licences,
)
from vsizer.catalogs.model import HostModel
from vsizer.errors import ConfigError
from vsizer.placement.failover_report import FailoverReport
from vsizer.placement.result import Placement
from vsizer.study.config import Rules
from vsizer.study.tco_growth import TcoYear

__all__ = [
    "PARTS", "LicenceCost", "Tco", "load_licences", "plan_tco", "tco_doc", "vms_on_hosts",
]

#: The parts of a TCO, in document order.
PARTS: tuple[str, ...] = ("capex", "support", "energy", "rack", "licences")

#: The criterion stated in the document.
CRITERION = (
    "total = capex + support + energy + rack + licences over the years; a part "
    "whose input is not given for the plan is not counted (not_counted); a part "
    "without a price for this host model or licence is missing (missing) and "
    "then total is null"
)
#: Added to it when the plan has a growth study.
GROWTH_CRITERION = (
    "; with growth, each year is counted on the hosts in service that year (bought "
    "when needed, never retired) and on that year's grown demand (per_year)"
)


@dataclass(frozen=True)
class LicenceCost:
    """One licence of a plan: units counted and their cost over the years."""

    name: str
    unit: str
    term: str
    per_host: int
    count: int
    price: float | None
    cost: float | None
    source: str
    date: str
    #: VMs one licensing covers (None: unlimited), and then the most VMs on one host.
    vms_per_licence: int | None = None
    most_vms_on_a_host: int | None = None


@dataclass(frozen=True)
class Tco:
    """The total cost of one plan; a part is None when missing or not counted."""

    years: int
    currency: str
    hosts: int
    vms: int
    rack_u: float
    capex: float | None
    support: float | None
    energy: float | None
    rack: float | None
    licences: float | None
    licence_lines: tuple[LicenceCost, ...]
    missing: tuple[str, ...]
    not_counted: tuple[str, ...]
    #: Under growth: each year's hosts in service and electricity (else empty).
    per_year: tuple[TcoYear, ...] = ()

    @property
    def known_total(self) -> float:
        """Sum of the parts that are known."""
        return float(sum(v for p in PARTS if (v := getattr(self, p)) is not None))

    @property
    def total(self) -> float | None:
        """Sum of the counted parts; None when a part is missing."""
        return None if self.missing else self.known_total


def vms_on_hosts(pools: Sequence[tuple[Placement, FailoverReport]]) -> list[int]:
    """The most VMs each host of the plan runs: in normal operation or in any
    failover scenario of its pool (the VMs it takes over added, a failed host
    counted as in normal operation). Hosts in pool order, then host order.

    """
    out: list[int] = []
    for placement, report in pools:
        p = placement.problem
        a = placement.assignment
        base = np.bincount(a[a >= 0], minlength=placement.n_hosts)
        most = base.copy()
        index = {p.host_id(h): h for h in range(placement.n_hosts)}
        for sc in report.detail:
            taken = np.bincount(
                [index[m["to"]] for m in sc.moves], minlength=placement.n_hosts
            ).astype(base.dtype)
            np.maximum(most, base + taken, out=most)
        out += most.tolist()
    return out


def load_licences(rules: Rules) -> tuple[Licence, ...]:
    """The licences of ``rules.licences`` (none without it), checked against
    the plan's currency."""
    if not rules.licences:
        return ()
    licences = read_licences(rules.licences)
    problems = [
        f"{rules.licences}: licence '{lic.name}', column 'currency': expected the "
        f"plan's currency '{rules.currency}' (--currency) or empty, got "
        f"'{lic.currency}'."
        for lic in licences
        if lic.currency and lic.currency != rules.currency
    ]
    if problems:
        raise ConfigError(problems)
    return tuple(licences)


@validate_params(
    {
        "hosts": Interval(int, 0, None),
        "vms": Interval(int, 0, None),
        "rack_u": Interval(float, 0, None),
        "annual_energy_cost": OrNone(Interval(float, 0, None)),
    },
    where="plan_tco",
)
def plan_tco(
    host: HostModel,
    hosts: int,
    vms: int,
    rack_u: float,
    annual_energy_cost: float | None,
    rules: Rules,
    licences: Sequence[Licence] = (),
    vms_on_hosts: Sequence[int] | None = None,
    per_year: Sequence[TcoYear] = (),
) -> Tco:
    """The TCO of ``hosts`` hosts of ``host`` running ``vms`` VMs in ``rack_u``
    rack units, with the annual electricity cost ``annual_energy_cost`` (None:
    no price per kWh), over ``rules.years`` (see the module docstring).

    >>> h = HostModel("h", 2, 12, 2, 2000.0, None, 512.0, 100.0, 400.0,
    ...               price=10_000.0, support_per_year=500.0)
    >>> t = plan_tco(h, 3, 20, 3.0, 1200.0, Rules(years=5))
    >>> t.capex, t.support, t.energy, t.total, t.not_counted
    (30000.0, 7500.0, 6000.0, 43500.0, ('rack', 'licences'))

    With ``per_year`` (a growth study: :func:`vsizer.study.tco_growth.tco_years`)
    the hosts bought are the last year's, support and rack are summed over
    each year's hosts in service, energy over each year's cost, and a
    subscription licence over each year's hosts.
    """
    years = rules.years
    missing: list[str] = []
    not_counted: list[str] = []
    unknown = any(y.hosts is None for y in per_year)  # a year no count holds
    host_years = sum(y.hosts or 0 for y in per_year) if per_year else hosts * years
    bought = (per_year[-1].hosts or 0) if per_year else hosts
    capex = None if host.price is None or unknown else bought * host.price
    support = (
        None if host.support_per_year is None or unknown
        else host_years * host.support_per_year
    )
    missing += [p for p, v in (("capex", capex), ("support", support)) if v is None]
    if per_year:
        costs = [y.energy for y in per_year]
        energy = None if None in costs else float(sum(c or 0.0 for c in costs))
    else:
        energy = None if annual_energy_cost is None else annual_energy_cost * years
    rate = rules.rack_cost_per_u_year
    u_per_host = rack_u / hosts if hosts else float(host.rack_u)
    rack = None if rate is None or unknown else u_per_host * host_years * rate
    given = {"energy": annual_energy_cost is not None, "rack": rate is not None}
    for part, value in (("energy", energy), ("rack", rack)):
        if value is None:
            (missing if given[part] else not_counted).append(part)
    lines = tuple(
        _licence_cost(lic, host, hosts, vms, years, vms_on_hosts, per_year)
        for lic in licences
    )
    if not lines:
        lic_total: float | None = None
        not_counted.append("licences")
    elif any(line.cost is None for line in lines):
        lic_total = None
        missing.append("licences")
    else:
        lic_total = float(sum(line.cost or 0.0 for line in lines))
    return Tco(
        years=years, currency=rules.currency, hosts=hosts, vms=vms, rack_u=rack_u,
        capex=capex, support=support, energy=energy, rack=rack, licences=lic_total,
        licence_lines=lines, missing=tuple(missing), not_counted=tuple(not_counted),
        per_year=tuple(per_year),
    )


def _licence_cost(
    lic: Licence, host: HostModel, hosts: int, vms: int, years: int,
    vms_on_hosts: Sequence[int] | None, per_year: Sequence[TcoYear] = (),
) -> LicenceCost:
    day_one = licence_count(lic, host, hosts, vms, vms_on_hosts)
    most = (
        max(vms_on_hosts, default=0)
        if lic.vms_per_licence is not None and vms_on_hosts is not None
        else None
    )
    # Under growth each host added later needs the per-host units (a stacked
    # licence: one licensing), and a subscription is paid on each year's hosts.
    per_host = licences_per_host(lic, host)  # 0 for a per-VM licence
    units = [day_one + max((y.hosts or 0) - hosts, 0) * per_host for y in per_year]
    count = units[-1] if units else day_one
    cost: float | None
    if lic.price is None or (per_host and any(y.hosts is None for y in per_year)):
        cost = None  # no price, or a year without a host count: unknown
    elif lic.term == "year":
        cost = (sum(units) if units else day_one * years) * lic.price
    else:
        cost = count * lic.price
    return LicenceCost(
        name=lic.name, unit=lic.unit, term=lic.term,
        per_host=per_host, count=count, price=lic.price,
        cost=cost, source=lic.source, date=lic.date,
        vms_per_licence=lic.vms_per_licence, most_vms_on_a_host=most,
    )


def tco_doc(tco: Tco) -> dict[str, Any]:
    """The ``tco`` section of the plan document (formatting only)."""
    doc: dict[str, Any] = {
        "years": tco.years,
        "currency": tco.currency,
        "hosts": tco.hosts,
        "vms": tco.vms,
        "rack_u": _r(tco.rack_u),
        "parts": {p: _r(getattr(tco, p)) for p in PARTS},
        "total": _r(tco.total),
        "known_total": _r(tco.known_total),
        "missing": list(tco.missing),
        "not_counted": list(tco.not_counted),
        "licences": [
            {
                "name": line.name,
                "unit": line.unit,
                "term": line.term,
                "per_host": line.per_host,
                "count": line.count,
                "price": _r(line.price),
                "cost": _r(line.cost),
                "source": line.source,
                "date": line.date,
                "vms_per_licence": line.vms_per_licence,
                "most_vms_on_a_host": line.most_vms_on_a_host,
            }
            for line in tco.licence_lines
        ],
        "criterion": CRITERION + (GROWTH_CRITERION if tco.per_year else ""),
    }
    if tco.per_year:
        doc["per_year"] = [
            {"year": y.year, "hosts": y.hosts, "watts": _r(y.watts), "energy": _r(y.energy)}
            for y in tco.per_year
        ]
    return doc
