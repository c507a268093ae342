"""ConsolidationStudy: inventory -> normalized demand -> pools sized and placed ->
failover checked -> power, cost, space, targets. The chain behind ``vsizer plan``.
"""

from __future__ import annotations

import dataclasses
import functools
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from vsizer.catalogs.cpu_catalog import CpuCatalog, read_cpu_catalog
from vsizer.catalogs.host_catalog import HostCatalog
from vsizer.catalogs.hosts_before import estimate_hosts_before, vm_power_on_hosts
from vsizer.catalogs.model import HostModel
from vsizer.catalogs.normalize import normalize_cpu
from vsizer.catalogs.server_power import (
    ServerPowerCatalog,
    estimate_server_power,
    read_server_power_catalog,
)
from vsizer.engines import Engine
from vsizer.errors import ConfigError
from vsizer.inventory import Inventory, read_inventory
from vsizer.inventory.assume import fill_memory
from vsizer.inventory.degenerate import require_servers, warn_zero_utilization
from vsizer.models.memory_overhead import esxi_vm_overhead_mib
from vsizer.models.profile import Profile, load_profile
from vsizer.placement.pool import size_pool_for
from vsizer.placement.problem import DIMENSIONS
from vsizer.placement.sizing import Placed
from vsizer.quality import QualityReport
from vsizer.series.align import AlignedSeries
from vsizer.series.model import SeriesSet
from vsizer.study import count_reason
from vsizer.study.baseline import (
    Baseline,
    measure_baseline,
    pool_vcpu_capacity,
    resolve_vcpu_per_core,
    versus_today,
)
from vsizer.study.config import Rules
from vsizer.study.consolidation import ConsolidationPlan
from vsizer.study.count_reason import (
    CountReason,
    MergeCandidate,
    explain_pool,
    relaxes,
    suggest_merges,
)
from vsizer.study.economics import plan_economics
from vsizer.study.growth import with_growth
from vsizer.study.host_bound import bound_by_hosts
from vsizer.study.host_bounds import check_host_bounds
from vsizer.study.hosts import host_capacity, platform_adjustment, resolve_host
from vsizer.study.load_rank import derive_load_rank
from vsizer.study.plan_warnings import plan_warnings
from vsizer.study.pool_overrides import match_pool_overrides
from vsizer.study.pool_priority import placement_order
from vsizer.study.predict import predict_plan
from vsizer.study.problems import anti_affinity_groups, pool_problem
from vsizer.study.results import PoolResult, SeriesInfo
from vsizer.study.rightsizing import apply as apply_rightsizing
from vsizer.study.rightsizing import recommend, with_short_of_vcpus
from vsizer.study.serialize import plan_to_dict
from vsizer.study.series_match import align_for_plan, match_series, plan_curves
from vsizer.study.storage import plan_storage

#: Progress callback: (event, detail) with events 'pool' (a pool starts; detail =
#: (name, vm count, worst-case scenarios)) and 'scenario' (one failover scenario done).
Progress = Callable[[str, Any], None]

#: Demand column of each placement dimension (cpu: see :func:`_demand_columns`).
_DEMAND_COLUMNS = {
    "mem": "vm_mem_gib",
    "vcpu": "vcpus",
    "disk_iops": "disk_iops",
    "disk_mb_s": "disk_mb_s",
    "net_mbps": "net_mbps",
}


@dataclass(frozen=True)
class _Sized:
    """Host and capacity of a plan after platform adjustment, with the demand
    matrix of its servers (one column per placed dimension)."""

    host: HostModel
    capacity: dict[str, float]
    dims: tuple[str, ...]
    demand: np.ndarray


class ConsolidationStudy:
    """Run the whole chain for one inventory, one host model and one set of rules."""

    def __init__(
        self,
        inventory: Inventory,
        host: HostModel,
        rules: Rules,
        *,
        cpu_catalog: CpuCatalog | None = None,
        host_catalog_name: str = "builtin",
        series: SeriesSet | None = None,
        aligned: AlignedSeries | None = None,
        engine: Engine | None = None,
    ) -> None:
        self.engine = engine
        self.series = series
        self.aligned = aligned
        if series is not None and aligned is None:
            self.aligned = align_for_plan(series, rules)
        self.inventory = inventory
        self.host = host
        self.rules = rules
        self.cpu_catalog = (
            cpu_catalog if cpu_catalog is not None else _shipped_cpu_catalog()
        )
        self.host_catalog_name = host_catalog_name
        #: The rules as given (``self.rules``: vcpu_per_core resolved by run),
        #: and today's baseline (set by run).
        self._rules_given = rules
        self._baseline: Baseline | None = None

    def run(self, progress: Progress | None = None) -> ConsolidationPlan:
        """Normalize, estimate power, size and place every pool, check failover,
        and compute the plan's economics."""
        require_servers(self.inventory)
        if progress:
            progress("stage", f"sizing {len(self.inventory)} servers on {self.host.model}")
        quality = self.inventory.quality.copy()
        baseline = measure_baseline(
            self.inventory, quality, include_powered_off=self.rules.include_powered_off
        )
        # vcpu_per_core = "today": today's measured ratios
        rules, baseline = resolve_vcpu_per_core(
            self._rules_given, baseline, self.inventory, quality
        )
        self.rules, self._baseline = rules, baseline
        inv_servers, series_info = self._matched_servers(quality)
        rules = self.rules = match_pool_overrides(rules, inv_servers["pool"], quality)
        servers, unit = self._normalized(inv_servers, quality)
        before = self._hosts_before(quality)
        self._add_power(servers, before, quality)
        rs = recommend(servers, quality)
        if rules.rightsize and rs.vms:
            _, apart = self._place(
                servers.copy(), unit, series_info, quality.copy(), None
            )
            servers = apply_rightsizing(servers, rs)
            sized, pools = self._place(servers, unit, series_info, quality, progress)
            rs = dataclasses.replace(
                rs, applied=True, hosts_before=sum(p.sizing.n_hosts for p in apart),
                hosts_after=sum(p.sizing.n_hosts for p in pools),
            )
        else:
            sized, pools = self._place(servers, unit, series_info, quality, progress)
            rs = dataclasses.replace(rs, applied=rules.rightsize)
        pools = _explain(pools, servers, series_info, rules, quality)
        baseline = versus_today(
            baseline, pools, rules, series_info, servers["pool"].astype(str).to_numpy()
        )
        inv = self.inventory
        economics = plan_economics(
            pools, servers, sized.host, sized.capacity, series_info, before,
            _vms_already(inv, before), rules,
        )
        storage = plan_storage(servers, pools, rules)
        for text in storage.assumptions() if storage is not None else ():
            quality.warn("storage_assumed", text)
        return ConsolidationPlan(
            inventory=inv,
            host=sized.host,
            host_catalog=self.host_catalog_name,
            rules=rules,
            servers=servers,
            capacity_unit=unit,
            host_capacity=sized.capacity,
            pools=pools,
            quality=quality,
            economics=economics,
            warnings=plan_warnings(quality, servers, series_info, rules, sized.host, pools),
            series=series_info,
            before=before,
            baseline=baseline,
            rightsizing=rs,
            storage=storage,
        )

    def _place(
        self,
        servers: pd.DataFrame,
        unit: str,
        series_info: SeriesInfo | None,
        quality: QualityReport,
        progress: Progress | None,
    ) -> tuple[_Sized, list[PoolResult]]:
        """Size and place every pool of ``servers`` (sets their ``vm_mem_gib``,
        ``pool`` and ``host`` columns)."""
        rules, baseline = self.rules, self._baseline
        servers["vm_mem_gib"] = servers["mem_gib"].astype(float) + _vm_overhead_gib(
            servers, rules
        )
        if servers["pool"].isna().any():
            servers["pool"] = servers["pool"].fillna("default")
        sized = _sized(self.host, unit, rules, servers, quality)
        curves_all: np.ndarray | None = None
        if series_info is not None:
            curves_all = plan_curves(
                servers, series_info, sized.dims, sized.demand, unit, sized.host,
                rules,
            )
        groups = anti_affinity_groups(servers, quality)
        per_pool = pool_vcpu_capacity(
            baseline, sized.capacity, float(rules.vcpu_per_core)
        )
        pools = _size_pools(
            servers, sized, curves_all, groups, series_info, rules, quality, progress,
            self.engine, per_pool,
        )
        return sized, pools

    def _matched_servers(
        self, quality: QualityReport
    ) -> tuple[pd.DataFrame, SeriesInfo | None]:
        """The inventory's servers, with CPU utilization from their series when given."""
        if self.series is None:
            return self.inventory.servers, None
        assert self.aligned is not None
        return match_series(self.inventory.servers, self.series, self.aligned, quality)

    def _normalized(
        self, inv_servers: pd.DataFrame, quality: QualityReport
    ) -> tuple[pd.DataFrame, str]:
        """Memory filled in, CPU demand in the host's capacity unit."""
        rules = self.rules
        from_series = self.inventory.source_format == "series"
        inv_servers = fill_memory(
            inv_servers, quality, None if from_series else rules.vm_mem_gib
        )
        servers, unit = normalize_cpu(
            inv_servers,
            self.host,
            self.cpu_catalog,
            quality,
            assume_util=rules.assume_util,
            # Series-only plans already sized every VM from --vm-cpu-mhz.
            assume_mhz=None if from_series else rules.vm_cpu_mhz,
        )
        servers = servers.reset_index(drop=True)
        servers = bound_by_hosts(servers, self.inventory, quality)  # assumed CPU demand bounded by the source host
        warn_zero_utilization(servers, quality)
        servers = derive_load_rank(servers, quality)
        return servers, unit

    def _hosts_before(self, quality: QualityReport) -> pd.DataFrame | None:
        """The source hosts with their power and rack space (virtualized sources)."""
        if self.inventory.hosts_before is None:
            return None
        return estimate_hosts_before(
            self.inventory.hosts_before, _shipped_power_catalog(), quality,
            assume_util=self.rules.assume_util,
        )

    def _add_power(
        self, servers: pd.DataFrame, before: pd.DataFrame | None, quality: QualityReport
    ) -> None:
        """Columns ``power_w`` and ``power_source`` of the servers before."""
        if before is not None or self.inventory.metadata.get("virtualized"):
            # VMs: no power of their own
            pw = vm_power_on_hosts(servers, quality, hosts_known=before is not None)
        else:
            pw = estimate_server_power(
                servers, _shipped_power_catalog(), quality=quality
            )
        servers["power_w"] = pw["power_w"].to_numpy()
        servers["power_source"] = pw["power_source"].to_numpy()


def _vms_already(inventory: Inventory, before: pd.DataFrame | None) -> bool:
    """The servers are VMs with no known host: nothing physical before."""
    return bool(inventory.metadata.get("from_series")) or (
        bool(inventory.metadata.get("virtualized")) and before is None
    )


def _sized(
    host: HostModel,
    unit: str,
    rules: Rules,
    servers: pd.DataFrame,
    quality: QualityReport,
) -> _Sized:
    """The host after platform adjustment, its capacity, and the demand matrix."""
    host, cpu_factor, platform_notes = platform_adjustment(host, rules)
    for text in platform_notes:
        quality.warn("platform_adjustment", text)
    capacity = host_capacity(host, unit, rules, servers, quality)
    capacity["cpu"] *= cpu_factor
    dims = tuple(d for d in DIMENSIONS if d in capacity)
    columns = {
        "cpu": "cpu_peak_demand" if rules.cpu_basis == "peak" else "cpu_avg_demand",
        **_DEMAND_COLUMNS,
    }
    demand = np.column_stack(
        [servers[columns[d]].astype(float).fillna(0.0).to_numpy() for d in dims]
    )
    return _Sized(host, capacity, dims, demand)


def _size_pools(
    servers: pd.DataFrame,
    sized: _Sized,
    curves_all: np.ndarray | None,
    groups: np.ndarray,
    series_info: SeriesInfo | None,
    rules: Rules,
    quality: QualityReport,
    progress: Progress | None,
    engine: Engine | None = None,
    pool_capacity: dict[str, dict[str, float]] | None = None,
) -> list[PoolResult]:
    """Size and place each pool (production first, development last, else in order of
    first appearance: :func:`~vsizer.study.pool_priority.placement_order`); sets the
    servers' ``host`` column. ``pool_capacity``: a pool's own host capacity
    (``vcpu_per_core = "today"``: its cluster's ratio)."""
    dims, demand_all, capacity = sized.dims, sized.demand, sized.capacity
    pools: list[PoolResult] = []
    servers["host"] = pd.Series([None] * len(servers), dtype="object")
    for pool in placement_order(pd.unique(servers["pool"])):
        idx = np.flatnonzero((servers["pool"] == pool).to_numpy())
        ceiling, failures, min_hosts = rules.for_pool(str(pool))
        problem = pool_problem(
            str(pool),
            servers,
            idx,
            dims,
            demand_all[idx],
            (pool_capacity or {}).get(str(pool), capacity),
            rules,
            ceiling,
            failures,
            min_hosts,
            groups[idx],
        )
        if progress:
            progress("pool", (str(pool), len(idx), failures))
        on_scenario = (lambda: progress("scenario", None)) if progress else None
        vm_curves = curves_all[idx] if curves_all is not None else None
        placed: Placed = {}
        lp_left = rules.bound_lp_pools - sum(p.sizing.bound_lp == "ran" for p in pools)
        sizing = size_pool_for(
            problem, vm_curves, rules, on_scenario=on_scenario,
            scalar_demand=_pool_scalar_demand(series_info, idx), engine=engine,
            placed=placed, bound_lp=lp_left > 0,
        )
        if (lp_left <= 0 < rules.bound_lp_pools and sizing.bound_lp == "off"
                and problem.n_vms <= rules.bound_lp_vms):  # past the plan's budget
            quality.warn("bound_lp_budget", (
                f"pool '{pool}': lower bound without the configuration LP: "
                f"--bound-lp-pools {rules.bound_lp_pools} pools of this plan "
                "already had it"))
        for n in sizing.notes:
            quality.warn("series_sizing", f"pool '{pool}': {n}")
        hosts_of = sizing.placement.assignment
        result = PoolResult(
            str(pool), ceiling, failures, min_hosts, sizing, problem, vm_curves,
            placed=placed,
        )
        servers.loc[idx, "host"] = [problem.host_id(int(h)) for h in hosts_of]
        pools.append(result)
    return pools


def _explain(
    pools: list[PoolResult],
    servers: pd.DataFrame,
    series_info: SeriesInfo | None,
    rules: Rules,
    quality: QualityReport,
) -> list[PoolResult]:
    """The pools, each with its ``count_reason`` (merge suggestions included)."""
    pool_of = servers["pool"].astype(str).to_numpy()
    reasons: dict[str, CountReason] = {}
    candidates: list[MergeCandidate] = []
    for pr in pools:
        if pr.problem is None:
            continue
        idx = np.flatnonzero(pool_of == pr.name)
        reason = explain_pool(
            pr.problem, pr.sizing.n_hosts, pr.sizing.lower_bound_detail,
            pr.vm_curves, rules, _pool_scalar_demand(series_info, idx), pr.placed,
        )
        reasons[pr.name] = reason
        if not relaxes(pr.problem):
            quality.warn("count_reason_budget", (
                f"pool '{pr.name}': its count reason gives the bounds alone: "
                f"{pr.problem.n_vms:,} VMs are above {count_reason.RELAX_MAX_VMS:,}, "
                "past which the pool is not sized again with each rule relaxed"))
        candidates.append(MergeCandidate(
            pr.name, pr.problem, pr.sizing.n_hosts, pr.sizing.on_curves, reason
        ))
    suggestions = suggest_merges(candidates)
    return [
        dataclasses.replace(pr, placed=None, count_reason=dataclasses.replace(
            reasons[pr.name], suggestion=suggestions.get(pr.name)
        )) if pr.name in reasons else dataclasses.replace(pr, placed=None)
        for pr in pools
    ]


def _pool_scalar_demand(info: SeriesInfo | None, idx: np.ndarray) -> np.ndarray | None:
    if info is None or info.scalar_demand is None:
        return None
    return info.scalar_demand[idx]


@functools.cache
def _shipped_cpu_catalog() -> CpuCatalog:
    """The shipped CPU catalog, parsed once per process (read-only)."""
    return read_cpu_catalog()


@functools.cache
def _shipped_power_catalog() -> ServerPowerCatalog:
    """The shipped server power catalog, parsed once per process (read-only)."""
    return read_server_power_catalog()


def _vm_overhead_gib(servers: pd.DataFrame, rules: Rules) -> np.ndarray:
    if rules.vm_memory_overhead_mib is not None:
        return np.full(len(servers), rules.vm_memory_overhead_mib / 1024.0)
    mem_mib = servers["mem_gib"].astype(float).to_numpy() * 1024.0
    # Unknown vCPU count (VMs from series alone): the table's 1-vCPU row.
    vcpus = np.nan_to_num(servers["vcpus"].astype(float).to_numpy(), nan=1.0)
    return esxi_vm_overhead_mib(mem_mib, vcpus) / 1024.0


def plan(
    inventory: Inventory | str | Path | None = None,
    hosts: HostModel | HostCatalog | str | Path | None = None,
    *,
    rules: Rules | None = None,
    progress: Progress | None = None,
    series: SeriesSet | None = None,
    predict: bool = False,
    profile: Profile | str | Path | None = None,
    engine: Engine | None = None,
    **overrides: Any,
) -> ConsolidationPlan:
    """Plan the consolidation of ``inventory`` onto ``hosts``.

    Parameters
    ----------
    inventory : Inventory or path, optional
        A server list, or a file for :func:`vsizer.read_inventory`. May be
        omitted when ``series`` gives every VM's size (Bitbrains) or
        ``vm_cpu_mhz`` and ``vm_mem_gib`` give one size for all (PlanetLab).
    hosts : HostModel, HostCatalog, path to a host catalog CSV, model name, or None
        None = the shipped catalog's default host model.
    rules : Rules, optional
        Base rules (e.g. from a scenario TOML); ``overrides`` replace fields,
        e.g. ``ceiling=0.7, failures=2, host_model="..."``.
    series : SeriesSet, optional
        Utilization series (see :mod:`vsizer.series`): VMs are then placed on
        their demand curves (``rules.step``, ``rules.percentile``,
        ``rules.solver``), failover is checked on the curves and the curves are
        replayed on the plan.
    predict : bool, default False
        Add per-VM and per-host performance predictions
        (:func:`vsizer.study.predict.predict_plan`): ``plan.predictions``, the
        last section of ``to_dict()``, as ``vsizer plan --predict`` writes.
    profile : Profile or path, optional
        A fitted profile (``.json`` / ``.toml``, :func:`vsizer.models.profile.load_profile`)
        for the predictions; implies ``predict``.
    engine : Engine, optional
        Where independent work runs (:func:`vsizer.engines.get_engine`); None: here.

    Examples
    --------
    >>> import vsizer
    >>> inv = vsizer.read_inventory("servers.xlsx")            # doctest: +SKIP
    >>> p = vsizer.plan(inv, ceiling=0.6, failures=1)          # doctest: +SKIP
    >>> p.to_dict()["summary"]["hosts"]                        # doctest: +SKIP
    """
    unknown = set(overrides) - {f for f in Rules.__dataclass_fields__}
    if unknown:
        raise ConfigError(
            f"Unknown parameter(s) of plan: {', '.join(sorted(unknown))}; accepted: "
            + ", ".join(Rules.__dataclass_fields__)
            + "."
        )
    rules = (rules or Rules()).replace(**overrides)
    if hosts is None and rules.host_catalog is not None:
        hosts = rules.host_catalog
    host, catalog_name = resolve_host(hosts, rules.host_model)
    check_host_bounds(rules, host)  # as soon as the host is known
    if progress and series is not None:
        progress("stage", f"aligning the series of {series.source}")
    aligned = align_for_plan(series, rules) if series is not None else None
    if progress and isinstance(inventory, (str, os.PathLike)):
        progress("stage", f"reading {os.path.basename(inventory)}")
    inventory = _plan_inventory(inventory, series, aligned, rules)
    cpu_catalog = (
        read_cpu_catalog(rules.cpu_catalog, merge=True) if rules.cpu_catalog else None
    )
    study = ConsolidationStudy(
        inventory,
        host,
        rules,
        cpu_catalog=cpu_catalog,
        host_catalog_name=catalog_name,
        series=series,
        aligned=aligned,
        engine=engine,
    )
    result = with_growth(study.run(progress), engine)
    if predict or profile is not None:
        result = with_predictions(result, profile)
    return result


def with_predictions(
    result: ConsolidationPlan, profile: Profile | str | Path | None = None
) -> ConsolidationPlan:
    """``result`` with its performance predictions
    (:func:`vsizer.study.predict.predict_plan` over its document).

    ``profile``: a :class:`~vsizer.models.profile.Profile`, a path to one, or
    None for the published coefficients.
    """
    if profile is not None and not isinstance(profile, Profile):
        profile = load_profile(profile)
    doc = plan_to_dict(dataclasses.replace(result, predictions=None))
    predictions = predict_plan(doc, profile)
    rs = result.rightsizing
    if rs is not None:
        rs = with_short_of_vcpus(rs, predictions)
    return dataclasses.replace(result, predictions=predictions, rightsizing=rs)


def _plan_inventory(
    inventory: Inventory | str | Path | None,
    series: SeriesSet | None,
    aligned: AlignedSeries | None,
    rules: Rules,
) -> Inventory:
    """The inventory to plan: as given, read from a file, or built from the series."""
    if inventory is None:
        if series is None or aligned is None:
            raise ConfigError(
                "plan needs an inventory file, or time series that give every VM's "
                "size (or --vm-cpu-mhz and --vm-mem-gib for one size for all)."
            )
        from vsizer.series.as_inventory import (
            inventory_from_series,
            machines_from_metadata,
        )

        return inventory_from_series(
            aligned,
            source=series.source,
            vm_cpu_mhz=rules.vm_cpu_mhz,
            vm_mem_gib=rules.vm_mem_gib,
            machines=machines_from_metadata(series.metadata),
        )
    if not isinstance(inventory, Inventory):
        return read_inventory(inventory, include_powered_off=rules.include_powered_off)
    return inventory
