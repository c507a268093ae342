"""What a target platform profile changes in a plan: its reserves, rules,
host capacity and licences (:mod:`vsizer.catalogs.targets`).

Stated rules, where the issue left a choice:

- A rule the user set (a value other than :class:`Rules`' default) wins over
  the profile's default; otherwise the profile's value is used (vCPU : core,
  memory reserve and per-VM overhead, storage mode, protection, copies, free
  share). Fewest hosts per pool: the user's, raised to the cluster's fewest
  nodes (hyperconverged: at least one host per copy, ftt + 1); unset,
  ``max(that, failures + 1)``.
- Reserve per host = the hypervisor's reserve + every per-host service +
  per-disk services x ``storage.disks_per_host`` + per-cluster services
  spread over the hosts (``cluster_hosts``: first the cluster's fewest nodes,
  which over-reserves, then the planned count: :mod:`vsizer.study.target_plan`).
  A per-cluster service with ``dedicated_hosts`` runs on that many hosts of
  its own, added to the count and not to the reserve.
- Memory reserve is the plan's per-host memory reserve; CPU reserve lowers
  each host model's CPU capacity by ``reserved cores / cores``
  (:attr:`vsizer.catalogs.model.HostModel.cpu_reserve_cores`); services'
  vCPUs count as cores.
- Storage: ``free share = 1 - full_ratio`` (Ceph's nearfull 0.85 leaves 15 %
  free) and ``copies = ftt + 1`` of ``mirror``: usable = raw x full_ratio /
  copies.
- Licences: the profile's counting rules, priced by a ``--licences`` file's
  rows of the same name (case-insensitive: price and currency); the file's
  other rows are added.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from vsizer.catalogs.licences import Licence
from vsizer.catalogs.model import HostModel
from vsizer.catalogs.targets import Target
from vsizer.study.config import Rules

__all__ = ["Reserves", "target_licences", "target_reserves", "target_rules", "usable_gib"]

_DEFAULTS = Rules()


@dataclass(frozen=True)
class Reserves:
    """What the platform keeps per host, and the hosts it runs on alone."""

    memory_gib: float
    cpu_cores: float
    dedicated_hosts: int
    cluster_hosts: int
    lines: tuple[dict, ...]


def target_reserves(target: Target, cluster_hosts: int | None = None) -> Reserves:
    """The per-host reserve of ``target`` with per-cluster services spread over
    ``cluster_hosts`` hosts (default: the profile's fewest nodes).

    >>> from vsizer.catalogs.targets import read_targets
    >>> r = target_reserves(read_targets()["nutanix-ahv"])
    >>> r.memory_gib, r.cpu_cores   # AHV 2 GiB (assumed) + CVM 32 GiB, 8 vCPUs
    (34.0, 8.0)
    """
    n = max(1, int(cluster_hosts or target.v("cluster.min_nodes", 1)))
    disks = int(target.v("storage.disks_per_host", 0) or 0)
    mem = float(target.v("reserve.host_memory_gib"))
    cpu = float(target.v("reserve.host_cpu_cores"))
    lines = [{"name": "hypervisor", "per": "host", "memory_gib": mem, "cpu_cores": cpu}]
    dedicated = 0
    for s in target.services:
        if s.dedicated_hosts is not None:
            dedicated += int(s.dedicated_hosts.value)
            lines.append({"name": s.name, "per": "dedicated hosts",
                          "hosts": int(s.dedicated_hosts.value)})
            continue
        times = {"host": 1.0, "disk": float(disks), "cluster": 1.0 / n}[s.per]
        m, c = float(s.memory_gib.value) * times, float(s.cpu_cores.value) * times
        mem, cpu = mem + m, cpu + c
        lines.append({"name": s.name, "per": s.per, "memory_gib": round(m, 6),
                      "cpu_cores": round(c, 6)})
    return Reserves(round(mem, 6), round(cpu, 6), dedicated, n, tuple(lines))


def _set(rules: Rules, name: str) -> bool:
    """The user set rule ``name`` (it differs from the default)."""
    return bool(getattr(rules, name) != getattr(_DEFAULTS, name))


def target_rules(target: Target, rules: Rules, reserves: Reserves) -> Rules:
    """``rules`` with the target's defaults where the user set none."""
    overhead = target.v("reserve.vm_memory_overhead_mib")
    change: dict[str, Any] = {}
    if not _set(rules, "host_memory_reserve_gib"):
        change["host_memory_reserve_gib"] = reserves.memory_gib
    if not _set(rules, "vm_memory_overhead_mib"):
        change["vm_memory_overhead_mib"] = None if overhead == "esxi-table" else float(overhead)
    if not _set(rules, "vcpu_per_core"):
        change["vcpu_per_core"] = float(target.v("overcommit.vcpu_per_core"))
    if not _set(rules, "storage_mode"):
        change["storage_mode"] = target.v("storage.mode")
        if target.v("storage.protection") and not _set(rules, "protection"):
            change["protection"] = target.v("storage.protection")
        if target.v("storage.ftt") is not None and not _set(rules, "ftt"):
            change["ftt"] = int(target.v("storage.ftt"))
        if target.v("storage.full_ratio") is not None and not _set(rules, "slack"):
            change["slack"] = round(1.0 - float(target.v("storage.full_ratio")), 9)
    low = int(target.v("cluster.min_nodes"))
    if change.get("storage_mode", rules.storage_mode) == "hyperconverged":
        low = max(low, int(change.get("ftt", rules.ftt)) + 1)  # a host per copy
    if rules.min_hosts is None:
        change["min_hosts"] = max(low, rules.failures + 1)
    elif rules.min_hosts < low:
        change["min_hosts"] = low
    return rules.replace(**change) if change else rules


def with_cpu_reserve(host: HostModel, reserves: Reserves) -> HostModel:
    """``host`` whose CPU capacity excludes the platform's reserved cores."""
    return dataclasses.replace(host, cpu_reserve_cores=reserves.cpu_cores)


def target_licences(target: Target, user: Sequence[Licence] = ()) -> tuple[Licence, ...]:
    """The target's licences (its counting rules), priced by a user's rows of
    the same name; the user's other rows added."""
    mine = {" ".join(u.name.casefold().split()): u for u in user}
    out = []
    for t in target.licences:
        u = mine.pop(" ".join(t.name.casefold().split()), None)
        out.append(t if u is None else dataclasses.replace(
            t, price=u.price, currency=u.currency or t.currency))
    return (*out, *mine.values())


def usable_gib(raw_gib: float, copies: int, full_ratio: float) -> float:
    """Usable capacity of ``raw_gib`` with ``copies`` replicas filled to
    ``full_ratio``: ``raw / copies x full_ratio``.

    >>> round(usable_gib(3000.0, 3, 0.85), 6)   # Ceph: 3 replicas, nearfull 0.85
    850.0
    """
    return raw_gib / copies * full_ratio if copies else math.nan
