"""Today's estate as the baseline of a plan (issue 23, part B).

A virtualized source (an RVTools export with its vHost tab, or any inventory
with :attr:`~vsizer.inventory.model.Inventory.hosts_before`) says what runs
where today. Per cluster of those hosts, and over all of them:

- ``hosts``, ``cores`` (physical cores; hosts without a core count add none);
- ``vcpus``, ``vms``: the powered-on VMs of the inventory on the cluster's
  hosts (the vHost host each matched, ``metadata['vm_hosts']``; a VM without
  a matched host counts in the cluster its pool names, when every planned VM
  is powered on; other inventories: the cluster their pool names);
- ``vcpu_per_core`` = vcpus / cores, the overcommit the cluster runs at [1]
  (as a limit, at least 1: :data:`MIN_TODAY_LIMIT`);
- ``mem_alloc_ratio`` = memory configured for those VMs / memory installed in
  the cluster's hosts [fraction] (hosts without memory size add none);
- ``cpu_usage``: the hosts' measured CPU usage, weighted by their cores
  [fraction of cores x clock]; null when no host gives one (unknown is not 0).

The totals count every powered-on VM of the inventory, also those that map to
no cluster of the hosts (``vms_without_cluster``): they run on the estate too.

:func:`resolve_vcpu_per_core` turns ``vcpu_per_core = "today"`` into numbers:
the ratio of the cluster a pool is named after, else the ratio over all hosts.
:func:`versus_today` says, when a plan needs more hosts than today, which rule
decided (the pools' count reasons) and how many hosts the plan needs with the
vCPU:core limit at today's measured ratio.

References
----------
.. [1] VMware, "Performance Best Practices for VMware vSphere 6.7," 2018,
   section "ESXi CPU Considerations" (CPU overcommitment: "running more vCPUs
   on a host than the total number of physical processor cores in that host"),
   https://www.vmware.com/content/dam/digitalmarketing/vmware/en/pdf/techpaper/performance/vsphere-esxi-vcenter-server-67-performance-best-practices.pdf.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from vsizer._jsonable import jsonable as _r
from vsizer.errors import ConfigError
from vsizer.inventory import Inventory
from vsizer.placement.pool import CurveRules, size_pool_for
from vsizer.quality import QualityReport

if TYPE_CHECKING:
    from vsizer.study.results import PoolResult, SeriesInfo

#: The word that makes ``vcpu_per_core`` today's measured ratio.
TODAY = "today"

#: Where a pool's ratio comes from when no cluster has its name.
ALL_HOSTS = "all hosts"

#: Lowest vCPU:core limit taken from today: below 1 the hosts have more cores
#: than vCPUs, and a limit under 1 would reserve cores no vCPU can use (a VM of
#: 13 vCPUs would need 86 cores at an estate's 0.15).
MIN_TODAY_LIMIT = 1.0


def today_limit(ratio: float) -> float:
    """The vCPU:core limit a measured ``ratio`` gives (at least :data:`MIN_TODAY_LIMIT`)."""
    return max(float(ratio), MIN_TODAY_LIMIT)


@dataclass(frozen=True)
class Estate:
    """One cluster of today's hosts (``name``), or all of them (name None)."""

    name: str | None
    hosts: int
    cores: int | None
    vcpus: int
    vms: int
    mem_alloc_ratio: float | None
    cpu_usage: float | None

    @property
    def vcpu_per_core(self) -> float | None:
        return self.vcpus / self.cores if self.cores else None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {} if self.name is None else {"name": self.name}
        out.update(
            hosts=self.hosts, cores=self.cores, vcpus=self.vcpus,
            vcpu_per_core=_r(self.vcpu_per_core),
            mem_alloc_ratio=_r(self.mem_alloc_ratio), cpu_usage=_r(self.cpu_usage),
            vms=self.vms,
        )
        return out


@dataclass(frozen=True)
class PoolToday:
    """One pool against today: its count, today's ratio and the count at it."""

    name: str
    hosts: int
    binding: str
    vcpu_per_core_today: float | None
    ratio_from: str
    hosts_at_today_ratio: int | None


@dataclass(frozen=True)
class VersusToday:
    """A plan that needs more hosts than today: why, and the count at today's ratio."""

    hosts_before: int
    hosts: int
    vcpu_per_core_limit: float
    pools: tuple[PoolToday, ...]

    @property
    def hosts_at_today_ratio(self) -> int | None:
        counts = [p.hosts_at_today_ratio for p in self.pools]
        return None if any(c is None for c in counts) else sum(c or 0 for c in counts)

    def to_dict(self) -> dict[str, Any]:
        return {
            "hosts_before": self.hosts_before,
            "hosts": self.hosts,
            "vcpu_per_core_limit": _r(self.vcpu_per_core_limit),
            "decided_by": decided_by(self.pools),
            "hosts_at_today_ratio": self.hosts_at_today_ratio,
            "pools": [
                {"name": p.name, "hosts": p.hosts, "binding": p.binding,
                 "vcpu_per_core_today": _r(p.vcpu_per_core_today),
                 "ratio_from": p.ratio_from,
                 "hosts_at_today_ratio": p.hosts_at_today_ratio}
                for p in self.pools
            ],
        }


@dataclass(frozen=True)
class Baseline:
    """Today's clusters and totals; the ratios a ``today`` plan used; the
    comparison with today (set after sizing)."""

    clusters: tuple[Estate, ...]
    totals: Estate
    vms_without_cluster: int
    #: pool -> (ratio used, where from) when ``vcpu_per_core = "today"``.
    used: dict[str, tuple[float, str]] | None = None
    versus: VersusToday | None = None

    def ratio_for(self, pool: str) -> tuple[float | None, str]:
        """Today's vCPU:core ratio of ``pool``: its cluster's, else all hosts'."""
        for c in self.clusters:
            if c.name == pool and c.vcpu_per_core:
                return c.vcpu_per_core, c.name
        return self.totals.vcpu_per_core, ALL_HOSTS

    def used_doc(self) -> dict[str, Any]:
        """``inputs.vcpu_per_core_today``: the limit each pool used, and whence."""
        return {
            pool: {"vcpu_per_core": _r(ratio), "from": source}
            for pool, (ratio, source) in (self.used or {}).items()
        }

    def to_dict(self) -> dict[str, Any]:
        totals = self.totals.to_dict()
        totals["vms_without_cluster"] = self.vms_without_cluster
        return {
            "clusters": [c.to_dict() for c in self.clusters],
            "totals": totals,
            "versus_today": None if self.versus is None else self.versus.to_dict(),
        }


def decided_by(pools: tuple[PoolToday, ...]) -> list[dict[str, Any]]:
    """The rules that set the pools' counts, most hosts first: ``{rule, pools,
    hosts}`` (``rule``: a count-reason binding, or ``demand:<dimension>``)."""
    by: dict[str, list[PoolToday]] = {}
    for p in pools:
        by.setdefault(p.binding, []).append(p)
    rows = [
        {"rule": rule, "pools": [p.name for p in ps], "hosts": sum(p.hosts for p in ps)}
        for rule, ps in by.items()
    ]
    return sorted(rows, key=lambda r: -r["hosts"])


def _num(col: pd.Series) -> np.ndarray:
    return pd.to_numeric(col, errors="coerce").to_numpy(dtype=float, na_value=np.nan)


def _vm_clusters(
    inventory: Inventory, hosts: pd.DataFrame, include_powered_off: bool
) -> list[str | None]:
    """Cluster of each planned server, in the order of ``inventory.servers``
    (see :func:`measure_baseline` for ``""`` and None)."""
    servers = inventory.servers
    cluster_of_host = dict(
        zip(hosts["name"].astype(str), hosts["cluster"].astype(object), strict=True)
    )
    clusters = {str(c) for c in hosts["cluster"].dropna()}
    pools = servers["pool"].astype(object).tolist()
    vm_hosts: Mapping[str, str] | None = inventory.metadata.get("vm_hosts")
    out: list[str | None] = []
    for name, pool in zip(servers["name"].astype(str), pools, strict=True):
        if vm_hosts is not None and name in vm_hosts:
            c = cluster_of_host.get(vm_hosts[name])
            out.append(None if c is None or c is pd.NA else str(c))
        elif vm_hosts is not None and include_powered_off:
            out.append(None)  # not matched: maybe powered off, not counted
        else:
            out.append(str(pool) if isinstance(pool, str) and pool in clusters else "")
    return out


def measure_baseline(
    inventory: Inventory,
    quality: QualityReport | None = None,
    *,
    include_powered_off: bool = False,
) -> Baseline | None:
    """Today's clusters of a virtualized source (None without hosts before).

    A server maps to ``""`` (counted in the totals only) when it is powered on
    but no cluster of the hosts is known for it, to None when it may be
    powered off (``include_powered_off`` and no host matched: not counted).
    ``quality`` gets the warning ``before_vms_not_on_a_host`` naming the VMs
    counted without a matched host (by their pool), or not counted.
    """
    hosts = inventory.hosts_before
    if hosts is None or not len(hosts):
        return None
    where = _vm_clusters(inventory, hosts, include_powered_off)
    if quality is not None:
        _warn_unmatched(inventory, where, quality)
    servers = inventory.servers
    vcpus = np.nan_to_num(_num(servers["vcpus"]))
    mem = np.nan_to_num(_num(servers["mem_gib"]))
    counted = np.array([w is not None for w in where], dtype=bool)
    cluster = np.array([w or "" for w in where], dtype=object)
    names = [str(c) for c in pd.unique(hosts["cluster"].dropna().astype(str))]
    out = []
    for name in names:
        on = (hosts["cluster"].astype(object) == name).fillna(False).to_numpy(bool)
        vm = counted & (cluster == name)
        out.append(_estate(name, hosts[on], vcpus[vm], mem[vm]))
    totals = _estate(None, hosts, vcpus[counted], mem[counted])
    return Baseline(tuple(out), totals, int((counted & (cluster == "")).sum()))


def _warn_unmatched(
    inventory: Inventory, where: list[str | None], quality: QualityReport
) -> None:
    """State how VMs without a matched source host count in today's estate."""
    vm_hosts: Mapping[str, str] = inventory.metadata.get("vm_hosts") or {}
    names = inventory.servers["name"].astype(str).tolist()
    pool = [n for n, w in zip(names, where, strict=True) if w and n not in vm_hosts]
    total = [n for n, w in zip(names, where, strict=True) if w == ""]
    left = [n for n, w in zip(names, where, strict=True) if w is None]
    if not vm_hosts:
        return  # an inventory without matched hosts: every VM counts by its pool
    for who, how in ((pool, "count in today's cluster their pool names"),
                     (total, "count in the totals over all hosts only (their pool "
                      "names no cluster of the hosts)"),
                     (left, "are not counted (--include-powered-off: they may be "
                      "powered off)")):
        if who:
            quality.warn(
                "before_vms_not_on_a_host",
                f"today's estate (before.clusters): {len(who)} planned VM(s) matched "
                f"to no source host {how}.",
                who,
            )


def _estate(
    name: str | None, hosts: pd.DataFrame, vcpus: np.ndarray, mem: np.ndarray
) -> Estate:
    cores = _num(hosts["cores"])
    mem_gib = _num(hosts["mem_gib"])
    usage = _num(hosts["cpu_util"])
    known_cores = ~np.isnan(cores)
    n_cores = int(cores[known_cores].sum()) if known_cores.any() else None
    installed = float(np.nansum(mem_gib)) if (~np.isnan(mem_gib)).any() else 0.0
    weighted = known_cores & ~np.isnan(usage)
    cpu_usage = (
        float((usage[weighted] * cores[weighted]).sum() / cores[weighted].sum())
        if weighted.any() and cores[weighted].sum() > 0 else None
    )
    return Estate(
        name=name, hosts=len(hosts), cores=n_cores or None,
        vcpus=int(vcpus.sum()), vms=len(vcpus),
        mem_alloc_ratio=float(mem.sum() / installed) if installed > 0 else None,
        cpu_usage=cpu_usage,
    )


def resolve_vcpu_per_core(
    rules: Any, baseline: Baseline | None, inventory: Inventory, quality: QualityReport
) -> tuple[Any, Baseline | None]:
    """``rules`` with ``vcpu_per_core = "today"`` made a number (all hosts'
    ratio), and the baseline with the ratio each pool uses (``used``).

    Raises
    ------
    ConfigError
        ``today`` for a source with no hosts before, or whose hosts' ratio is
        unknown (no cores, or no powered-on VM).
    """
    if rules.vcpu_per_core != TODAY:
        return rules, baseline
    overall = baseline.totals.vcpu_per_core if baseline is not None else None
    if baseline is None or not overall:
        why = ("has no hosts before (the hypervisor hosts its VMs run on today, e.g. "
               "RVTools vHost)" if baseline is None else
               "gives no vCPU:core ratio today (no host with a core count, or no "
               "powered-on VM)")
        raise ConfigError(
            f"--vcpu-per-core today ([sizing] vcpu_per_core): inventory "
            f"'{inventory.source}' {why}; give the limit as a number, e.g. "
            "--vcpu-per-core 4."
        )
    pools = [str(p) for p in pd.unique(inventory.servers["pool"].fillna("default"))]
    used: dict[str, tuple[float, str]] = {}
    said = []
    for pool in pools:
        ratio, source = baseline.ratio_for(pool)
        used[pool] = (today_limit(ratio or overall), source)
        where = f"cluster '{source}'" if source != ALL_HOSTS else source
        said.append(f"pool '{pool}': {used[pool][0]:.3g} ({where} runs at "
                    f"{ratio or overall:.3g})")
    text = "; ".join(said)
    quality.warn(
        "vcpu_per_core_today",
        f"--vcpu-per-core today: the vCPU:core limit is the ratio the source's hosts "
        f"run at today (vCPUs of the powered-on VMs / physical cores; at least "
        f"{MIN_TODAY_LIMIT:g}, no vCPU uses more than a core): {text}; all hosts: "
        f"{overall:.3g}.",
    )
    return rules.replace(vcpu_per_core=today_limit(overall)), dataclasses.replace(
        baseline, used=used
    )


def pool_vcpu_capacity(
    baseline: Baseline | None, capacity: Mapping[str, float], limit: float
) -> dict[str, dict[str, float]]:
    """Per pool, the host capacity with its own vCPU:core ratio (``today``);
    empty when the plan uses one ratio for all."""
    if baseline is None or not baseline.used or "vcpu" not in capacity:
        return {}
    per_ratio = capacity["vcpu"] / limit
    return {
        pool: {**capacity, "vcpu": per_ratio * ratio}
        for pool, (ratio, _) in baseline.used.items()
        if ratio != limit
    }


def _binding(pr: PoolResult) -> str:
    cr = pr.count_reason
    if cr is None or cr.binding == "demand":
        return f"demand:{pr.sizing.binding_dimension}"
    return cr.binding


def versus_today(
    baseline: Baseline | None,
    pools: list[PoolResult],
    rules: Any,
    series_info: SeriesInfo | None,
    pool_of: np.ndarray,
) -> Baseline | None:
    """The baseline with :class:`VersusToday` when the plan needs more hosts
    than today's; each pool is sized again with its vCPU capacity at today's
    ratio (not when the plan already used today's ratios)."""
    if baseline is None:
        return None
    hosts = sum(p.sizing.n_hosts for p in pools)
    if hosts <= baseline.totals.hosts:
        return baseline
    limit = float(rules.vcpu_per_core)
    rows = []
    for pr in pools:
        ratio, source = baseline.ratio_for(pr.name)
        if baseline.used is not None:  # sized at today's ratios already
            ratio, source = baseline.used.get(pr.name, (ratio, source))
            at: int | None = pr.sizing.n_hosts
        else:
            at = _count_at(pr, ratio, limit, rules, series_info, pool_of)
        rows.append(PoolToday(pr.name, pr.sizing.n_hosts, _binding(pr), ratio, source, at))
    versus = VersusToday(baseline.totals.hosts, hosts, limit, tuple(rows))
    return dataclasses.replace(baseline, versus=versus)


def _count_at(
    pr: PoolResult,
    ratio: float | None,
    limit: float,
    rules: CurveRules,
    series_info: SeriesInfo | None,
    pool_of: np.ndarray,
) -> int | None:
    """Hosts of pool ``pr`` with its vCPU capacity at ``ratio`` vCPUs per core."""
    from vsizer.errors import InfeasiblePlacementError

    problem = pr.problem
    if problem is None or not ratio:
        return None
    ratio = today_limit(ratio)
    if "vcpu" not in problem.dims or np.isclose(ratio, limit):
        return pr.sizing.n_hosts
    capacity = problem.capacity.copy()
    capacity[problem.dims.index("vcpu")] *= ratio / limit
    scalar = None
    if series_info is not None and series_info.scalar_demand is not None:
        scalar = series_info.scalar_demand[np.flatnonzero(pool_of == pr.name)]
    try:
        return size_pool_for(
            dataclasses.replace(problem, capacity=capacity), pr.vm_curves, rules,
            scalar_demand=scalar,
        ).n_hosts
    except InfeasiblePlacementError:
        return None
