"""The years of a TCO when the demand grows: hosts in service and electricity, year by year.

Without growth a plan's TCO multiplies one year by ``rules.years``. With a
growth study (:mod:`vsizer.study.growth`) the pools need more hosts as the
years go by (``size_for = "now"``: bought when needed, never retired), and the
hosts they have work harder, so each year y = 1..N of the TCO is counted on
its own:

- hosts in service in year y: the pool's purchases up to year y (the hosts
  needed at the end of year y are bought during it); after the growth
  horizon, those of its last year;
- electricity of year y: every host's average CPU utilization of day one
  scaled by the pool's demand factor at the end of year y (its rate
  compounded) and spread over the hosts then in service, i.e.
  ``u_h * f * H0 / H`` on the day-one hosts and the pool's mean
  ``f * U / H`` on each host added, then the host model's power curve
  (:func:`vsizer.models.power.host_power_w`) x PUE x price per kWh. With
  no growth this is exactly the plan's own annual cost.

A year in which a pool has no host count (a VM outgrew one host: the growth
study's notes say which) has no hosts and no watts (None): what it costs is
not known, and the TCO says so rather than count the day-one hosts at 100 %.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vsizer.catalogs.model import HostModel
from vsizer.models.growth import Growth, PoolGrowth
from vsizer.models.power import host_power_w
from vsizer.quality import PlanWarning
from vsizer.study.config import Rules
from vsizer.study.economics import Economics, PoolPower, annual_cost

__all__ = ["TcoYear", "growth_warning", "tco_years"]


@dataclass(frozen=True)
class TcoYear:
    """One year of a TCO under growth."""

    year: int
    #: Hosts in service (None: a pool has no count that year).
    hosts: int | None
    #: Average electrical power of the hosts over the year [W] (PUE not applied).
    watts: float | None
    #: Cost of that year's electricity (None: no price per kWh, or no count).
    energy: float | None


def tco_years(
    economics: Economics, growth: Growth, host: HostModel, rules: Rules
) -> tuple[TcoYear, ...]:
    """Years 1..``rules.years`` of the TCO of a plan with a growth study."""
    power = {p.pool: p for p in economics.pools}
    out = []
    for y in range(1, rules.years + 1):
        years = [_pool_year(pg, power[pg.name], host, y) for pg in growth.pools]
        if any(h is None for h, _ in years):
            out.append(TcoYear(y, None, None, None))
            continue
        hosts = sum(h or 0 for h, _ in years)
        watts = float(sum(w for _, w in years))
        cost = (
            None if rules.price_kwh is None else annual_cost(watts, rules.price_kwh, rules.pue)
        )
        out.append(TcoYear(y, hosts, watts, cost))
    return tuple(out)


def growth_warning(years: int, stacked: bool) -> PlanWarning:
    """The counted warning of a TCO counted year by year under growth: its later
    years are estimates (how, and what firms them up)."""
    licence = (
        " A licence that covers a few VMs per licensing (vms_per_licence, e.g. Windows "
        "Server Standard) counts each host added later at one licensing."
        if stacked
        else ""
    )
    return PlanWarning(
        "tco_growth_estimated",
        f"The total cost over {years} years follows the growth study: hosts are "
        "counted from the year it buys them, and each year's electricity is "
        "estimated from the hosts' day-one CPU utilization scaled by the pool's growth "
        "and spread evenly over the hosts then in service (tco.per_year)." + licence
        + " To firm up a year, plan its grown demand itself (--size-for horizon plans "
        "the last year's).",
    )


def _pool_year(
    pg: PoolGrowth, pp: PoolPower, host: HostModel, year: int
) -> tuple[int | None, float]:
    """Hosts in service and their watts in ``year`` for one pool (None: no count)."""
    k = min(year, len(pg.factors) - 1)
    if pg.needed and pg.needed[k] is None:
        return None, 0.0
    hosts = sum(n for y, n in pg.purchases if y <= k)
    day_one = np.asarray(pp.avg_cpu_util, dtype=np.float64)
    if hosts == 0:
        return 0, 0.0
    f = pg.factors[k]
    h0 = len(day_one)
    added = max(hosts - h0, 0)
    scale = f * h0 / max(hosts, h0)
    util = np.concatenate([day_one * scale, np.full(added, f * day_one.sum() / hosts)])
    util = np.minimum(util, 1.0)
    curve = host.power_curve_w or None
    watts = host_power_w(util, host.power_idle_w, host.power_max_w, curve)
    return hosts, float(watts.sum())

