"""Power, energy, money, rack space and targets of a plan.

Annual energy [kWh] = average power [W] / 1000 x 8760 h x PUE; annual cost =
energy x price per kWh. PUE (power usage effectiveness) is total facility
energy over IT equipment energy, so multiplying IT power by it gives facility
power; 1.0 counts the IT load only.

References
----------
.. [1] The Green Grid, "PUE: A Comprehensive Examination of the Metric,"
   White Paper #49, 2012 (PUE = total facility energy / IT equipment energy,
   measured over a year).
.. [2] L. A. Barroso and U. Hölzle, "The Case for Energy-Proportional Computing,"
   IEEE Computer, vol. 40, no. 12, pp. 33-37, 2007, :doi:`10.1109/MC.2007.443`
   (host power between idle and peak as a function of utilization, see
   :func:`vsizer.models.power.host_power_w`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from vsizer.catalogs.model import HostModel
from vsizer.models.power import host_power_w
from vsizer.series.coverage import host_avg_cpu
from vsizer.study.config import TARGETS, Rules

if TYPE_CHECKING:
    from vsizer.study.results import PoolResult, SeriesInfo

HOURS_PER_YEAR = 8760.0

#: What each target checks, for people (``{t}`` = the target).
TARGET_TEXT = {
    "host_ratio": "hosts / servers at most {t:g}",
    "rack_ratio": "rack units after / before at most {t:g}",
    "power_ratio": "power after / before at most {t:g}",
    "consolidation_ratio": "servers per host at least {t:g}",
}


def annual_energy_kwh(power_w: float, pue: float = 1.0) -> float:
    """Energy drawn in a year at constant average ``power_w`` [W] -> [kWh].

    Facility energy: IT energy x PUE (The Green Grid, WP#49, 2012 [1]_).
    """
    return power_w / 1000.0 * HOURS_PER_YEAR * pue


def annual_cost(power_w: float, price_kwh: float, pue: float = 1.0) -> float:
    """Cost of a year at ``power_w`` [W] and ``price_kwh`` [currency/kWh]
    (facility energy, :func:`annual_energy_kwh`)."""
    return annual_energy_kwh(power_w, pue) * price_kwh


def saving_over_years(annual_saving: float, years: int) -> float:
    """Undiscounted saving over the system's life."""
    return annual_saving * years


@dataclass(frozen=True, eq=False)
class PoolPower:
    """Average CPU utilization and power of each host of one pool."""

    pool: str
    #: Per host: average CPU demand / host CPU capacity [fraction].
    avg_cpu_util: np.ndarray
    #: Per host: power at that utilization [W] (:func:`vsizer.models.power.host_power_w`).
    watts: np.ndarray

    @property
    def hosts(self) -> int:
        return len(self.watts)


@dataclass(frozen=True)
class TargetCheck:
    """One target of the rules (``rules.targets``) against the plan."""

    name: str
    target: float
    #: The plan's value; None when it cannot be computed (e.g. nothing before).
    actual: float | None
    #: None when ``actual`` is None.
    met: bool | None

    @property
    def description(self) -> str:
        return TARGET_TEXT[self.name].format(t=self.target)


@dataclass(frozen=True, eq=False)
class Economics:
    """Power, energy, cost and space before and after, and the target checks.

    Values "before" are None when the servers are VMs with no known hosts
    (nothing physical before); costs are None without a price per kWh.
    """

    pools: tuple[PoolPower, ...]
    hosts: int
    before_w: float | None
    after_w: float
    annual_kwh_before: float | None
    annual_kwh_after: float
    annual_cost_before: float | None
    annual_cost_after: float | None
    annual_saving: float | None
    saving_over_years: float | None
    #: Servers by where their power came from ("inventory", "catalog", "assumed").
    servers_power_from: dict[str, int]
    rack_u_before: float
    rack_u_after: float
    racks_before: int
    racks_after: int
    rack_size_u: int
    #: Servers per host; None without hosts.
    consolidation_ratio: float | None
    targets: tuple[TargetCheck, ...]

    def pool(self, name: str) -> PoolPower:
        """The power of pool ``name``."""
        return next(p for p in self.pools if p.pool == name)


def plan_economics(
    pools: list[PoolResult],
    servers: pd.DataFrame,
    host: HostModel,
    host_capacity: dict[str, float],
    series: SeriesInfo | None,
    before: pd.DataFrame | None,
    vms_already: bool,
    rules: Rules,
) -> Economics:
    """The economics of a sized plan.

    Parameters
    ----------
    pools : list of PoolResult
        The sized pools, plan order.
    servers : DataFrame
        The planned servers (``power_w``, ``power_source``, ``rack_u``,
        ``cpu_avg_demand``, ``pool``).
    host : HostModel
        The host model after platform adjustment.
    host_capacity : dict
        Capacity per dimension of one host.
    series : SeriesInfo or None
        The plan's series (curve pools).
    before : DataFrame or None
        The source hosts (virtualized sources), else None.
    vms_already : bool
        The servers are VMs with no known hosts: nothing physical before.
    rules : Rules
        ``price_kwh``, ``pue``, ``years``, ``rack_size_u``, ``targets``.
    """
    power = tuple(_pool_power(pr, servers, host, host_capacity, series) for pr in pools)
    after_w = 0.0
    for p in power:
        after_w += float(p.watts.sum())
    n_hosts = sum(p.hosts for p in power)
    before_w, rack_before, n_before = _before(servers, before)
    rack_after = n_hosts * float(host.rack_u)
    pue = rules.pue
    cost_before, cost_after, saving, saving_years = _costs(before_w, after_w, rules)
    if vms_already:
        cost_before = saving = saving_years = None
    actual = {
        "host_ratio": n_hosts / n_before if n_before else None,
        "rack_ratio": rack_after / rack_before if rack_before else None,
        "power_ratio": after_w / before_w if before_w else None,
        "consolidation_ratio": len(servers) / n_hosts if n_hosts else None,
    }
    sources = servers["power_source"].value_counts()
    return Economics(
        pools=power,
        hosts=n_hosts,
        before_w=None if vms_already else before_w,
        after_w=after_w,
        annual_kwh_before=None if vms_already else annual_energy_kwh(before_w, pue),
        annual_kwh_after=annual_energy_kwh(after_w, pue),
        annual_cost_before=cost_before,
        annual_cost_after=cost_after,
        annual_saving=saving,
        saving_over_years=saving_years,
        servers_power_from={
            k: int(sources.get(k, 0)) for k in ("inventory", "catalog", "assumed")
        },
        rack_u_before=rack_before,
        rack_u_after=rack_after,
        racks_before=_racks(rack_before, rules.rack_size_u),
        racks_after=_racks(rack_after, rules.rack_size_u),
        rack_size_u=rules.rack_size_u,
        consolidation_ratio=actual["consolidation_ratio"],
        targets=target_checks(actual, rules.targets),
    )


def target_checks(
    actual: dict[str, float | None], targets: dict[str, float]
) -> tuple[TargetCheck, ...]:
    """Each target asked (in :data:`~vsizer.study.config.TARGETS` order) against
    ``actual``: ratios at most the target, ``consolidation_ratio`` at least."""
    out = []
    for name in TARGETS:
        if name not in targets:
            continue
        t, a = targets[name], actual[name]
        met = (
            None if a is None else (a >= t if name == "consolidation_ratio" else a <= t)
        )
        out.append(TargetCheck(name, t, a, met))
    return tuple(out)


def _before(
    servers: pd.DataFrame, before: pd.DataFrame | None
) -> tuple[float, float, int]:
    """Power [W], rack units and machine count before: the servers', or the
    source hosts' for a virtualized source."""
    if before is not None:
        return float(before["power_w"].sum()), float(before["rack_u"].sum()), len(before)
    return (
        float(servers["power_w"].astype(float).fillna(0).sum()),
        float(servers["rack_u"].astype(float).fillna(0).sum()),
        len(servers),
    )


def _costs(
    before_w: float, after_w: float, rules: Rules
) -> tuple[float | None, float | None, float | None, float | None]:
    """Annual cost before and after, annual saving and saving over
    ``rules.years``; all None without ``rules.price_kwh``."""
    price = rules.price_kwh
    if price is None:
        return None, None, None, None
    cost_before = annual_cost(before_w, price, rules.pue)
    cost_after = annual_cost(after_w, price, rules.pue)
    saving = cost_before - cost_after
    return cost_before, cost_after, saving, saving_over_years(saving, rules.years)


def _racks(rack_u: float, size_u: int) -> int:
    """Racks of ``size_u`` units needed for ``rack_u`` units."""
    return math.ceil(rack_u / size_u - 1e-9) if rack_u else 0


def _pool_power(
    pr: PoolResult,
    servers: pd.DataFrame,
    host: HostModel,
    host_capacity: dict[str, float],
    series: SeriesInfo | None,
) -> PoolPower:
    idx = np.flatnonzero((servers["pool"] == pr.name).to_numpy())
    if pr.sizing.on_curves:
        n_hosts = pr.sizing.n_hosts
        avg_util = _curve_avg_cpu(pr, servers, series, idx) if n_hosts else np.zeros(0)
    else:
        pl = pr.sizing.placement
        n_hosts = pl.n_hosts
        avg_demand = servers["cpu_avg_demand"].astype(float).fillna(0).to_numpy()[idx]
        avg_load = np.zeros(pl.n_hosts)
        np.add.at(avg_load, pl.assignment, avg_demand)
        avg_util = avg_load / host_capacity["cpu"]
    watts = (
        host_power_w(
            avg_util, host.power_idle_w, host.power_max_w, host.power_curve_w or None
        )
        if n_hosts
        else np.zeros(0)
    )
    return PoolPower(pr.name, avg_util, watts)


def _curve_avg_cpu(
    pr: PoolResult, servers: pd.DataFrame, series: SeriesInfo | None, idx: np.ndarray
) -> np.ndarray:
    """Average CPU utilization per host; a VM without a CPU series counts at its
    inventory average, as in a plan without series (it is placed at its peak)."""
    c, prob = pr.sizing, pr.problem
    assert c.host_curves is not None and prob is not None and pr.vm_curves is not None
    cpu_i = list(prob.dims).index("cpu")
    host_mean = c.host_curves[:, :, cpu_i].mean(axis=1)
    flat = series.cpu_flat if series is not None else None
    if flat is None:
        return np.asarray(host_mean)
    avg = servers["cpu_avg_demand"].astype(float).to_numpy()[idx]
    return host_avg_cpu(
        host_mean, c.assignment, pr.vm_curves[:, :, cpu_i].mean(axis=1, dtype=np.float64),
        avg, flat[idx], float(prob.capacity[cpu_i]),
    )
