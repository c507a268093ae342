"""Growth over the years: each pool re-sized at every year end with its demand
grown, the year it runs out on the plan's hosts, and the purchase schedule.

Every dimension of every VM grows at the pool's rate: CPU, memory (the VM's
overhead included), the I/O figures, and the vCPU count too (growth is taken as
more of the same workload, so the vCPU : core limit keeps its meaning). The
hypervisor's own memory per host does not grow. On curves, the curves are
scaled. Each year is sized by the plan's own sizing
(:func:`vsizer.placement.pool.size_pool_for`: ceiling, N+k failover, minimum,
anti-affinity and pinning), so the count of year 0 is the plan's.

``size_for = "now"`` keeps the plan sized for day one and schedules the hosts
each later year needs; ``"horizon"`` sizes the plan itself for the last year's
demand (all hosts bought on day one).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from vsizer.engines import Engine
from vsizer.errors import ConfigError, InfeasiblePlacementError, VsizerError
from vsizer.models.growth import (
    Growth,
    PoolGrowth,
    growth_factors,
    parse_rate,
    parse_rates,
    purchase_schedule,
    runs_out_year,
    year_rates,
)
from vsizer.placement.pool import size_pool_for
from vsizer.placement.sizing import PoolSizing
from vsizer.study.config import PoolRules, Rules
from vsizer.study.economics import plan_economics
from vsizer.study.results import PoolResult

if TYPE_CHECKING:
    from vsizer.study.consolidation import ConsolidationPlan


def growth_asked(rules: Rules) -> bool:
    """The rules state a growth (study-wide, per year, or for a pool)."""
    return (
        rules.growth is not None
        or bool(rules.growth_table)
        or any(p.growth is not None for p in rules.pools.values())
    )


def stated_rates(rules: Rules) -> tuple[float, ...]:
    """The study-wide rates as stated: one rate, or one per year; () for none.

    ``growth`` (flag or ``[growth] rate``) wins over ``[growth] years``.
    """
    if rules.growth is not None:
        return parse_rates(rules.growth) or ()
    return tuple(parse_rate(r) or 0.0 for r in rules.growth_table)


def horizon_years(rules: Rules) -> int:
    """Years studied: the table's length when one rate per year is given, else ``years``."""
    rates = stated_rates(rules)
    return len(rates) if len(rates) > 1 else rules.years


def pool_rates(rules: Rules, pool: str) -> tuple[float, ...]:
    """The rate of each year 1..N for ``pool`` (its own rate over the plan's)."""
    years = horizon_years(rules)
    own = rules.pools.get(pool, PoolRules()).growth
    if own is not None:
        return year_rates((own,), years)
    return year_rates(stated_rates(rules) or (0.0,), years)


def with_growth(plan: ConsolidationPlan, engine: Engine | None = None) -> ConsolidationPlan:
    """``plan`` with its growth study; sized for the horizon when the rules say so.

    Unchanged when the rules state no growth (:func:`growth_asked`). ``engine``
    (:mod:`vsizer.engines`, ``ray`` or ``dask``) sizes every pool's years in
    parallel on its workers; the study is the same on any engine.
    """
    rules = plan.rules
    if not growth_asked(rules):
        return plan
    grown = _sized_on(engine, plan) if engine is not None and engine.name != "local" else None
    horizon = rules.size_for == "horizon"
    notes: list[str] = []  # one line per pool and year that no count holds
    pools: list[PoolGrowth] = []
    results: list[PoolResult] = []
    for pr in plan.pools:
        rates = pool_rates(rules, pr.name)
        factors = growth_factors(rates)
        pool_notes: list[str] = []
        sizings = _year_sizings(plan, pr, factors, pool_notes, grown)
        notes += pool_notes
        result = pr
        if horizon:
            last = sizings[-1]
            if last is None:
                raise ConfigError(
                    f"--size-for horizon: pool '{pr.name}' cannot be sized for the "
                    f"demand of year {len(rates)} (x{factors[-1]:.3g}): "
                    + pool_notes[0]
                )
            result = _grown_result(pr, last, factors[-1])
        results.append(result)
        pools.append(_pool_growth(pr, rates, factors, sizings, result, horizon))
    stated = stated_rates(rules)
    growth = Growth(
        rate=stated[0] if len(stated) == 1 else stated,
        size_for=rules.size_for,
        horizon=horizon_years(rules),
        pools=tuple(pools),
        notes=tuple(notes),
    )
    if horizon:
        plan = _resized_plan(plan, results)
    return dataclasses.replace(plan, growth=growth)


def _year_sizings(
    plan: ConsolidationPlan,
    pr: PoolResult,
    factors: tuple[float, ...],
    notes: list[str],
    grown: dict[tuple[str, int], _Sized] | None = None,
) -> list[PoolSizing | None]:
    """The pool sized at each year end (index 0: the plan's own sizing).

    None from the first year no count of hosts holds (a VM outgrew a host).
    ``grown``: the years already sized on an engine (:func:`_sized_on`).
    """
    out: list[PoolSizing | None] = [pr.sizing]
    for year, factor in enumerate(factors[1:], start=1):
        if out[-1] is None or factor == factors[year - 1]:  # none holds, or no growth
            out.append(out[-1])
            continue
        if grown is not None:
            sizing, exc = grown[(pr.name, year)]
        else:
            sizing, exc = _size_grown(_grown_job(plan, pr, factor))
        if isinstance(exc, InfeasiblePlacementError):
            first = str(exc).splitlines()[0]
            notes.append(f"year {year} (x{factor:.3g}): {first}")
        elif exc is not None:
            raise exc
        out.append(sizing)
    return out


#: A year sized: the sizing, or the error of sizing it.
_Sized = tuple[PoolSizing | None, VsizerError | None]


def _size_grown(job: tuple[Any, ...]) -> _Sized:
    """Size one pool for one year's demand (module-level: run on an engine's workers)."""
    problem, curves, rules, scalar = job
    try:
        return size_pool_for(problem, curves, rules, scalar_demand=scalar), None
    except VsizerError as exc:
        return None, exc


def _sized_on(engine: Engine, plan: ConsolidationPlan) -> dict[tuple[str, int], _Sized]:
    """Every pool's every growing year sized on ``engine``, by (pool, year).

    Years after one that no count holds are sized too (the workers do not wait
    for each other); :func:`_year_sizings` keeps the serial study's results.
    """
    keys, jobs = [], []
    for pr in plan.pools:
        factors = growth_factors(pool_rates(plan.rules, pr.name))
        for year, factor in enumerate(factors[1:], start=1):
            if factor != factors[year - 1]:
                keys.append((pr.name, year))
                jobs.append(_grown_job(plan, pr, factor))
    return dict(zip(keys, engine.map(_size_grown, jobs), strict=True))


def _grown_job(plan: ConsolidationPlan, pr: PoolResult, factor: float) -> tuple[Any, ...]:
    """What sizes the pool with every VM's demand (and curve) times ``factor``."""
    assert pr.problem is not None
    problem = dataclasses.replace(pr.problem, demand=pr.problem.demand * factor)
    curves = pr.vm_curves * factor if pr.vm_curves is not None else None
    scalar = None
    info = plan.series
    if curves is not None and info is not None and info.scalar_demand is not None:
        idx = np.flatnonzero((plan.servers["pool"] == pr.name).to_numpy())
        scalar = info.scalar_demand[idx] * factor
    return problem, curves, plan.rules, scalar


def _grown_result(pr: PoolResult, sizing: PoolSizing, factor: float) -> PoolResult:
    """The pool's result sized for the horizon (its problem and curves grown)."""
    return dataclasses.replace(
        pr,
        sizing=sizing,
        problem=sizing.placement.problem,
        vm_curves=pr.vm_curves * factor if pr.vm_curves is not None else None,
    )


def _pool_growth(
    pr: PoolResult,
    rates: tuple[float, ...],
    factors: tuple[float, ...],
    sizings: list[PoolSizing | None],
    result: PoolResult,
    horizon: bool,
) -> PoolGrowth:
    """The pool's years, the year it runs out on the plan's hosts, its purchases."""
    assert pr.problem is not None
    dims = pr.problem.dims
    cpu = float(pr.problem.demand[:, dims.index("cpu")].sum()) if "cpu" in dims else 0.0
    needed = tuple(s.n_hosts if s is not None else None for s in sizings)
    owned = result.sizing.n_hosts
    bought = [(0, owned)] if owned else []
    if not horizon:
        bought += purchase_schedule(owned, needed)
    return PoolGrowth(
        name=pr.name,
        rates=rates,
        factors=factors,
        demand_cpu=tuple(cpu * f for f in factors),
        needed=needed,
        binding=tuple(s.binding_dimension if s is not None else None for s in sizings),
        owned=owned,
        runs_out=runs_out_year(owned, needed),
        purchases=tuple(bought),
    )


def _resized_plan(plan: ConsolidationPlan, pools: list[PoolResult]) -> ConsolidationPlan:
    """``plan`` with its pools re-placed (servers' hosts) and its economics redone."""
    servers = plan.servers.copy()
    servers["host"] = pd.Series([None] * len(servers), dtype="object")
    for pr in pools:
        assert pr.problem is not None
        idx = np.flatnonzero((servers["pool"] == pr.name).to_numpy())
        servers.loc[idx, "host"] = [
            pr.problem.host_id(int(h)) for h in pr.sizing.placement.assignment
        ]
    inv = plan.inventory
    # As vsizer.study.core._vms_already: VMs with no known host, nothing physical before.
    vms_already = bool(inv.metadata.get("from_series")) or (
        bool(inv.metadata.get("virtualized")) and plan.before is None
    )
    economics = plan_economics(
        pools, servers, plan.host, plan.host_capacity, plan.series, plan.before,
        vms_already, plan.rules,
    )
    return dataclasses.replace(plan, pools=pools, servers=servers, economics=economics)
