"""ConsolidationStudy: inventory -> normalized demand -> pools sized and placed ->
failover checked -> power, cost, space, targets. The chain behind ``vsizer plan``.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from vsizer.catalogs.cpu_catalog import CpuCatalog, read_cpu_catalog
from vsizer.catalogs.host_catalog import HostCatalog, read_host_catalog
from vsizer.catalogs.hosts_before import estimate_hosts_before, vm_power_on_hosts
from vsizer.catalogs.model import HostModel
from vsizer.catalogs.normalize import host_cpu_capacity, normalize_cpu
from vsizer.catalogs.server_power import (
    ServerPowerCatalog,
    estimate_server_power,
    read_server_power_catalog,
)
from vsizer.errors import ConfigError, InputError, InventoryError, SeriesError
from vsizer.inventory import Inventory, read_inventory
from vsizer.inventory.assume import fill_memory
from vsizer.inventory.degenerate import require_servers, warn_zero_utilization
from vsizer.models import power as power_model
from vsizer.models.memory_overhead import esxi_vm_overhead_mib
from vsizer.placement.pool import size_pool_for
from vsizer.placement.problem import DIMENSIONS, IO_DIMS, PlacementProblem
from vsizer.placement.sizing import PoolSizing
from vsizer.quality import PlanWarning, QualityReport, assumption_warnings
from vsizer.series.align import AlignedSeries, align, step_mismatch_notes
from vsizer.series.coverage import (
    ambiguity_message,
    coverage_warnings,
    match_names,
    scalar_demand,
)
from vsizer.series.demand import cpu_util_stats, demand_curves
from vsizer.series.model import SeriesQuality, SeriesSet
from vsizer.study.config import Rules

#: Progress callback: (event, detail) with events 'pool' (a pool starts; detail =
#: (name, vm count, worst-case scenarios)) and 'scenario' (one failover scenario done).
Progress = Callable[[str, Any], None]


@dataclass
class PoolResult:
    name: str
    ceiling: float
    failures: int
    min_hosts: int
    sizing: PoolSizing  # scalar or curve sizing (curve fields set: sizing.on_curves)
    problem: PlacementProblem | None = None
    vm_curves: np.ndarray | None = None  # (n_vms, T, D) demand, pool order


@dataclass
class SeriesInfo:
    """What the plan's time series were and how they were used."""

    source: str
    source_format: str
    aligned: AlignedSeries
    demand_report: dict[str, Any]
    matched: int
    series_only: list[str]
    inventory_only: list[str]
    quality: SeriesQuality
    #: (inventory name, series name) pairs matched ignoring case or domain suffix.
    loose: list[tuple[str, str]] = field(default_factory=list)
    #: Inventory (average, peak) CPU utilization of servers with series [fraction].
    inventory_util: dict[str, tuple[float, float]] = field(default_factory=dict)
    #: Per server, plan order: demand as without series (series.coverage.scalar_demand).
    scalar_demand: np.ndarray | None = None
    #: Per server, plan order: True when it has no CPU curve (placed flat).
    cpu_flat: np.ndarray | None = None


@dataclass
class ConsolidationPlan:
    """Everything a plan found; ``vsizer.study.serialize.plan_to_dict`` renders it as JSON."""

    inventory: Inventory
    host: HostModel
    host_catalog: str
    rules: Rules
    servers: pd.DataFrame
    capacity_unit: str
    host_capacity: dict[str, float]
    pools: list[PoolResult]
    quality: QualityReport
    warnings: list[PlanWarning] = field(default_factory=list)
    series: SeriesInfo | None = None
    #: The source hosts with power_w and rack_u (virtualized sources), else None.
    before: pd.DataFrame | None = None

    def to_dict(self) -> dict[str, Any]:
        from vsizer.study.serialize import plan_to_dict

        return plan_to_dict(self)

    def to_json(self) -> str:
        from vsizer.study.serialize import plan_to_json

        return plan_to_json(self)


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
    ) -> None:
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

    def run(self, progress: Progress | None = None) -> ConsolidationPlan:
        rules, host = self.rules, self.host
        require_servers(self.inventory)
        quality = copy.deepcopy(self.inventory.quality)
        inv_servers = self.inventory.servers
        series_info: SeriesInfo | None = None
        if self.series is not None:
            assert self.aligned is not None
            inv_servers, series_info = _match_series(
                inv_servers, self.series, self.aligned, quality
            )
        from_series = self.inventory.source_format == "series"
        inv_servers = fill_memory(
            inv_servers, quality, None if from_series else rules.vm_mem_gib
        )
        servers, unit = normalize_cpu(
            inv_servers,
            host,
            self.cpu_catalog,
            quality,
            assume_util=rules.assume_util,
            # Series-only plans already sized every VM from --vm-cpu-mhz.
            assume_mhz=None if from_series else rules.vm_cpu_mhz,
        )
        servers = servers.reset_index(drop=True)
        warn_zero_utilization(servers, quality)
        before = None
        if self.inventory.hosts_before is not None:
            before = estimate_hosts_before(
                self.inventory.hosts_before, _shipped_power_catalog(), quality,
                assume_util=rules.assume_util,
            )
        if before is not None or self.inventory.metadata.get("virtualized"):
            # VMs: no power of their own
            pw = vm_power_on_hosts(servers, quality, hosts_known=before is not None)
        else:
            pw = estimate_server_power(
                servers, _shipped_power_catalog(), quality=quality
            )
        servers["power_w"] = pw["power_w"].to_numpy()
        servers["power_source"] = pw["power_source"].to_numpy()
        servers["vm_mem_gib"] = servers["mem_gib"].astype(float) + _vm_overhead_gib(
            servers, rules
        )
        if servers["pool"].isna().any():
            servers["pool"] = servers["pool"].fillna("default")
        host, cpu_factor, platform_notes = platform_adjustment(host, rules)
        for text in platform_notes:
            quality.warn("platform_adjustment", text)
        capacity = _host_capacity(host, unit, rules, servers, quality)
        capacity["cpu"] *= cpu_factor
        dims = tuple(d for d in DIMENSIONS if d in capacity)
        demand_cols = {
            "cpu": "cpu_peak_demand" if rules.cpu_basis == "peak" else "cpu_avg_demand",
            "mem": "vm_mem_gib",
            "vcpu": "vcpus",
            "disk_iops": "disk_iops",
            "disk_mb_s": "disk_mb_s",
            "net_mbps": "net_mbps",
        }
        demand_all = np.column_stack(
            [servers[demand_cols[d]].astype(float).fillna(0.0).to_numpy() for d in dims]
        )
        curves_all: np.ndarray | None = None
        if series_info is not None:
            curves_all = _curves(
                servers, series_info, dims, demand_all, unit, host, rules
            )
        groups = _anti_affinity_groups(servers, quality)
        pools: list[PoolResult] = []
        servers["host"] = pd.Series([None] * len(servers), dtype="object")
        for pool in pd.unique(servers["pool"]):
            idx = np.flatnonzero((servers["pool"] == pool).to_numpy())
            ceiling, failures, min_hosts = rules.for_pool(str(pool))
            problem = _problem(
                str(pool),
                servers,
                idx,
                dims,
                demand_all[idx],
                capacity,
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
            sizing = size_pool_for(
                problem, vm_curves, rules, on_scenario=on_scenario,
                scalar_demand=_pool_scalar_demand(series_info, idx),
            )
            for n in sizing.notes:
                quality.warn("series_sizing", f"pool '{pool}': {n}")
            hosts_of = sizing.placement.assignment
            result = PoolResult(
                str(pool), ceiling, failures, min_hosts, sizing, problem, vm_curves
            )
            servers.loc[idx, "host"] = [problem.host_id(int(h)) for h in hosts_of]
            pools.append(result)
        return ConsolidationPlan(
            inventory=self.inventory,
            host=host,
            host_catalog=self.host_catalog_name,
            rules=rules,
            servers=servers,
            capacity_unit=unit,
            host_capacity=capacity,
            pools=pools,
            quality=quality,
            warnings=plan_warnings(quality, servers, series_info, rules),
            series=series_info,
            before=before,
        )


def align_for_plan(series: SeriesSet, rules: Rules) -> AlignedSeries:
    """Resample ``series`` to the plan's step (``rules.step``, ``rules.resample``)."""
    try:
        aligned = align(series.data, step=rules.step, how=rules.resample)
    except ValueError as exc:
        raise SeriesError(f"series {series.source}: {exc}") from None
    for note in step_mismatch_notes(series.data, rules.step):
        series.quality.note(note)
    return aligned


def _match_series(
    inv: pd.DataFrame,
    series: SeriesSet,
    aligned: AlignedSeries,
    quality: QualityReport,
) -> tuple[pd.DataFrame, SeriesInfo]:
    """Pair inventory rows with series by name, exactly or ignoring case and domain
    suffix (:func:`vsizer.series.coverage.match_names`); utilization from the CPU
    curves. The series are renamed to their inventory server's name."""
    names = inv["name"].astype(str).tolist()
    found = match_names(names, aligned.servers)
    if found.ambiguous:
        raise InputError(
            [ambiguity_message(series.source, i, s) for i, s in found.ambiguous]
        )
    if not found.pairs:
        raise InputError(
            f"series {series.source}: no server name matches the inventory, even "
            f"ignoring case and domain suffix ({len(names)} servers, e.g. "
            f"'{names[0] if names else ''}'; series has {len(aligned.servers)}, e.g. "
            f"'{aligned.servers[0] if aligned.servers else ''}')."
        )
    to_inventory = {s: n for n, s in found.pairs.items()}
    series_only = [s for s in aligned.servers if s not in to_inventory]
    aligned = dataclasses.replace(
        aligned, servers=[to_inventory.get(s, s) for s in aligned.servers]
    )
    inventory_only = [n for n in names if n not in found.pairs]
    coverage_warnings(quality, names, inventory_only, series_only, found.loose)
    inv = inv.copy()
    avg, peak = cpu_util_stats(aligned, names, _server_mhz(inv))
    has = ~np.isnan(peak)
    own_avg = pd.to_numeric(inv["cpu_avg_util"], errors="coerce").astype(float)
    own_peak = pd.to_numeric(inv["cpu_peak_util"], errors="coerce").astype(float)
    own = dict(zip(names, zip(own_avg, own_peak, strict=True), strict=True))
    if has.any():
        inv["cpu_avg_util"] = inv["cpu_avg_util"].astype("Float64")
        inv["cpu_peak_util"] = inv["cpu_peak_util"].astype("Float64")
        inv.loc[has, "cpu_avg_util"] = avg[has]
        inv.loc[has, "cpu_peak_util"] = peak[has]
        for i in np.flatnonzero(has).tolist():
            for f in ("cpu_avg_util", "cpu_peak_util"):
                quality.record(names[i], f, "derived", "from the CPU series")
    info = SeriesInfo(
        source=series.source,
        source_format=series.source_format,
        aligned=aligned,
        demand_report={},
        matched=len(found.pairs),
        series_only=series_only,
        inventory_only=inventory_only,
        quality=series.quality,
        loose=found.loose,
        inventory_util={n: own[n] for n in found.pairs},
    )
    return inv, info


def _server_mhz(servers: pd.DataFrame) -> np.ndarray:
    """CPU capacity in MHz per server (sockets x cores x clock; NaN without a clock),
    the divisor of ``cpu_mhz`` series."""
    def col(name: str, default: float) -> np.ndarray:
        return pd.to_numeric(servers[name], errors="coerce").fillna(default).to_numpy(float)

    return col("sockets", 1.0) * col("cores_per_socket", 1.0) * col("cpu_mhz", np.nan)


def _curves(
    servers: pd.DataFrame,
    info: SeriesInfo,
    dims: tuple[str, ...],
    flat: np.ndarray,
    unit: str,
    host: HostModel,
    rules: Rules,
) -> np.ndarray:
    names = servers["name"].astype(str).tolist()
    mhz = _server_mhz(servers)
    mem = servers["mem_gib"].to_numpy(dtype=np.float64, na_value=np.nan)
    overhead = servers["vm_mem_gib"].to_numpy(dtype=np.float64, na_value=np.nan) - mem
    curves, report = demand_curves(
        info.aligned,
        names,
        dims,
        flat,
        cpu_capacity=servers["cpu_capacity"].to_numpy(dtype=np.float64),
        capacity_mhz=mhz,
        mem_gib=mem,
        mem_overhead_gib=np.nan_to_num(overhead),
        mem_basis=rules.mem_basis,
        gap_fill=rules.gap_fill,
    )
    info.demand_report = report
    info.cpu_flat = np.isnan(cpu_util_stats(info.aligned, names, mhz)[1])
    k = 1 if rules.cpu_basis == "peak" else 0
    own = np.array([info.inventory_util.get(n, (np.nan, np.nan))[k] for n in names])
    info.scalar_demand = scalar_demand(
        flat,
        dims.index("cpu") if "cpu" in dims else None,
        servers["cpu_capacity"].to_numpy(dtype=np.float64, na_value=np.nan),
        own,
    )
    return curves


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


def _host_capacity(
    host: HostModel,
    unit: str,
    rules: Rules,
    servers: pd.DataFrame,
    quality: QualityReport,
) -> dict[str, float]:
    capacity = {
        "cpu": host_cpu_capacity(host, unit),
        "mem": float(host.mem_gib),
        "vcpu": host.cores * rules.vcpu_per_core,
    }
    unconstrained = []
    for dim in IO_DIMS:
        host_value = getattr(host, dim, None)
        given = int(servers[dim].notna().sum()) if dim in servers else 0
        if given and host_value:
            capacity[dim] = float(host_value)
            missing = len(servers) - given
            if missing and not any(
                w.code == f"unchecked_{dim}" for w in quality.warnings
            ):
                quality.warn(
                    f"missing_{dim}",
                    f"{missing} server(s) have no {dim}; they count as 0 in that "
                    "dimension.",
                    servers.loc[servers[dim].isna(), "name"].astype(str).tolist(),
                )
        elif given:
            unconstrained.append(f"{dim} ({given} servers)")
    if unconstrained:
        quality.warn(
            "unconstrained_dimension",
            f"not constrained: {', '.join(unconstrained)}: host model '{host.model}' "
            "states no capacity for them (add disk_iops / disk_mb_s / net_mbps to its "
            "host catalog row to place on them; totals are still reported)."
        )
    return capacity


def _anti_affinity_groups(servers: pd.DataFrame, quality: QualityReport) -> np.ndarray:
    """Group id per server from ``redundant_with`` (partners of partners share a group)."""
    names = servers["name"].astype(str).tolist()
    index = {n: i for i, n in enumerate(names)}
    parent = list(range(len(names)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    linked = np.zeros(len(names), dtype=bool)
    col = (
        servers["redundant_with"]
        if "redundant_with" in servers
        else pd.Series(dtype=object)
    )
    for i, partners in enumerate(col):
        if partners is None or partners is pd.NA or (isinstance(partners, float)):
            continue
        for partner in str(partners).replace("、", ";").replace(",", ";").split(";"):
            partner = partner.strip()
            if not partner:
                continue
            j = index.get(partner)
            if j is None:
                quality.warn(
                    "partner_not_planned",
                    f"server '{names[i]}' is redundant with '{partner}', which is not "
                    "planned (excluded or absent); no anti-affinity applied for it.",
                    [names[i]],
                )
                continue
            linked[i] = linked[j] = True
            parent[find(i)] = find(j)
    roots: dict[int, int] = {}
    out = np.full(len(names), -1, dtype=np.int64)
    for k in np.flatnonzero(linked).tolist():
        out[k] = roots.setdefault(find(k), len(roots))
    return out


def _problem(
    pool: str,
    servers: pd.DataFrame,
    idx: np.ndarray,
    dims: tuple[str, ...],
    demand: np.ndarray,
    capacity: dict[str, float],
    rules: Rules,
    ceiling: float,
    failures: int,
    min_hosts: int,
    groups: np.ndarray,
) -> PlacementProblem:
    cap = np.array([capacity[d] for d in dims])
    base = np.array(
        [rules.host_memory_reserve_gib if d == "mem" else 0.0 for d in dims]
    )
    limit = np.array([1.0 if d == "vcpu" else ceiling for d in dims])
    fo_limit = np.array([1.0 if d == "vcpu" else rules.failover_limit for d in dims])
    # Renumber groups within the pool so ids are dense.
    local = np.full(len(idx), -1, dtype=np.int64)
    _, dense = np.unique(groups[groups >= 0], return_inverse=True)
    local[groups >= 0] = dense
    pins = _pins(pool, servers.iloc[idx])
    return PlacementProblem(
        pool=pool,
        vm_names=tuple(servers["name"].astype(str).iloc[idx]),
        dims=dims,
        demand=demand,
        capacity=cap,
        base_load=base,
        limit=limit,
        failover_limit=fo_limit,
        failures=failures,
        min_hosts=min_hosts,
        anti_affinity=local,
        pins=pins,
    )


def _pins(pool: str, rows: pd.DataFrame) -> np.ndarray:
    pins = np.full(len(rows), -1, dtype=np.int64)
    if "pin_host" not in rows:
        return pins
    problems = []
    for i, (name, pin) in enumerate(zip(rows["name"], rows["pin_host"], strict=True)):
        if pin is None or pin is pd.NA or (isinstance(pin, float) and np.isnan(pin)):
            continue
        prefix, _, number = str(pin).rpartition("-")
        if prefix != pool or not number.isdigit() or int(number) < 1:
            problems.append(
                f"server '{name}', column 'pin_host': expected a host id of its pool "
                f"like '{pool}-01', got '{pin}'."
            )
            continue
        pins[i] = int(number) - 1
    if problems:
        raise InventoryError(problems)
    return pins


def resolve_host(
    hosts: HostModel | HostCatalog | str | Path | None, host_model: str | None
) -> tuple[HostModel, str]:
    """Pick the host model: a HostModel as is; a catalog (object or CSV path) and a
    model name (default: the catalog's default); or a model name in the shipped catalog.

    A host catalog CSV without ``host_model`` must list exactly one model,
    which is then used; with several models it is a
    :class:`~vsizer.errors.ConfigError` listing them (the shipped default is
    never taken silently in place of the user's hosts).
    """
    if isinstance(hosts, HostModel):
        return hosts, "given"
    if isinstance(hosts, HostCatalog):
        catalog, name = hosts, "given"
    elif hosts is not None and (Path(str(hosts)).suffix.lower() == ".csv"):
        catalog, name = read_host_catalog(hosts, merge=True), Path(str(hosts)).name
        if not host_model:
            own = read_host_catalog(hosts).models
            if len(own) > 1:
                raise ConfigError(
                    f"--hosts {name} lists {len(own)} host models: "
                    + "; ".join(own)
                    + f". Choose one with --host-model, e.g. --host-model "
                    f'"{own[0]}".'
                )
            host_model = own[0]
    else:
        catalog, name = read_host_catalog(), "builtin"
        if hosts is not None:
            host_model = str(hosts)
    model = catalog.get(host_model) if host_model else catalog.default
    return model, name


def plan(
    inventory: Inventory | str | Path | None = None,
    hosts: HostModel | HostCatalog | str | Path | None = None,
    *,
    rules: Rules | None = None,
    progress: Progress | None = None,
    series: SeriesSet | None = None,
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
    aligned = align_for_plan(series, rules) if series is not None else None
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

        inventory = inventory_from_series(
            aligned,
            source=series.source,
            vm_cpu_mhz=rules.vm_cpu_mhz,
            vm_mem_gib=rules.vm_mem_gib,
            machines=machines_from_metadata(series.metadata),
        )
    elif not isinstance(inventory, Inventory):
        inventory = read_inventory(
            inventory, include_powered_off=rules.include_powered_off
        )
    if hosts is None and rules.host_catalog is not None:
        hosts = rules.host_catalog
    host, catalog_name = resolve_host(hosts, rules.host_model)
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
    )
    return study.run(progress)


#: Hyper-Threading factor: the one published measurement (DESIGN §6.4), reused.
HT_SCENARIO = "hyperthreading-x5570"


def platform_adjustment(
    host: HostModel, rules: Rules
) -> tuple[HostModel, float, list[str]]:
    """Apply the rules' platform scenarios and Hyper-Threading choice to ``host``.

    Returns the host with its power scaled, the CPU capacity factor, and notes.
    Each named scenario multiplies CPU capacity by its published throughput
    ratio and applies its power change (ratio, or watts added at every load).
    ``hyperthreading="off"`` on a host with 2 threads per core divides capacity
    by 1.038 and power by 1.094 (the X5570 measurement inverted: catalog scores
    and power curves are measured with Hyper-Threading on); "on" on a host with
    one thread per core cannot add threads and is noted.
    """
    from vsizer.models.platform import SCENARIOS

    factor, ratio, delta = 1.0, 1.0, 0.0
    notes: list[str] = []
    for name in rules.platform:
        sc = SCENARIOS[name]
        factor *= sc.factor
        ratio *= sc.power_ratio or 1.0
        delta += sc.power_delta_w or 0.0
        notes.append(f"platform '{name}': CPU x {sc.factor:g} ({sc.source}).")
    if rules.hyperthreading == "off" and host.threads_per_core > 1:
        ht = SCENARIOS[HT_SCENARIO]
        factor /= ht.factor
        ratio /= ht.power_ratio or 1.0
        notes.append(
            f"Hyper-Threading off: CPU / {ht.factor:g}, power / {ht.power_ratio:g} "
            f"({ht.source})."
        )
    elif rules.hyperthreading == "on" and host.threads_per_core <= 1:
        notes.append(
            f"Hyper-Threading on was asked, but host model '{host.model}' has one "
            "thread per core; nothing changed."
        )
    if ratio != 1.0 or delta != 0.0:
        host = dataclasses.replace(
            host,
            power_idle_w=host.power_idle_w * ratio + delta,
            power_max_w=host.power_max_w * ratio + delta,
            power_curve_w=tuple(w * ratio + delta for w in host.power_curve_w)
            if host.power_curve_w
            else None,
        )
    return host, factor, notes


def host_power_w(host: HostModel, util: np.ndarray) -> np.ndarray:
    """Host power at CPU utilization ``util`` from its curve, else linear idle-max."""
    if host.power_curve_w:
        return power_model.specpower_curve(util, host.power_curve_w)
    return power_model.linear(util, host.power_idle_w, host.power_max_w)


def plan_warnings(
    quality: QualityReport,
    servers: pd.DataFrame,
    series: SeriesInfo | None,
    rules: Rules,
) -> list[PlanWarning]:
    """Every warning of a plan, in a fixed order: low confidence first, then the
    study's and readers' own warnings, every value assumed or estimated
    (:func:`~vsizer.quality.assumption_warnings`), then what the series readers
    clipped, dropped or guessed."""
    names = servers["name"].astype(str).tolist()
    out: list[PlanWarning] = []
    confidence = quality.confidence(names)
    if names and confidence < rules.min_confidence:
        out.append(
            PlanWarning(
                "low_confidence",
                f"Low data confidence: {confidence:.0%}, below {rules.min_confidence:.0%}. "
                "This plan rests on values that were not read from the inputs (see "
                "the other warnings); add the missing columns or utilization series "
                "to firm it up, or set the threshold with --min-confidence.",
            )
        )
    out.extend(quality.warnings)
    out.extend(assumption_warnings(quality, names))
    if series is not None:
        out.extend(_series_warnings(series))
    return out


def _series_warnings(series: SeriesInfo) -> list[PlanWarning]:
    """One warning per kind of series issue (clipped, dropped, gap, ...) with its
    servers and total count, and one per reader note."""
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for issue in series.quality.issues:
        by_kind.setdefault(str(issue["kind"]), []).append(issue)
    out = []
    for kind, issues in by_kind.items():
        who = list(dict.fromkeys(str(i["server"]) for i in issues))
        total = sum(int(i["count"]) for i in issues)
        details = list(dict.fromkeys(str(i["detail"]) for i in issues))
        shown = "; ".join(details[:3]) + (
            f"; and {len(details) - 3} other kinds" if len(details) > 3 else ""
        )
        out.append(
            PlanWarning(
                f"series_{kind}",
                f"series: {kind}: {total} point(s) in {len(who)} "
                f"series ({shown}).",
                tuple(who),
            )
        )
    for note in series.quality.notes:
        out.append(PlanWarning("series_note", f"series: {note}"))
    return out
