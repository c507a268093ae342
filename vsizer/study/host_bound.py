"""A VM whose CPU use is unknown needs no more than its host delivers today.

Without utilization, normalization takes every vCPU as ``assume_util`` busy
(default 1.0: fully busy). On an over-committed host that asks for more CPU
than the host has: 12 hosts with 396 cores whose VMs have 2,520 vCPUs would
need 2,520 cores of demand, although those 12 hosts run the same VMs today.
The VMs of one host cannot together use more than the host's physical CPU
(their vCPUs are scheduled on its cores [1], whose capacity is cores x
clock [2]), so for each source host ``h``::

    capacity_h = cores_h x per-core capacity of its CPU   (capacity unit)
    known_h    = sum of the peak demand of its VMs with measured or estimated use
    assumed_h  = sum of the peak demand of its VMs whose use is assumed
    if known_h + assumed_h > capacity_h:
        f_h = max(capacity_h - known_h, 0) / assumed_h
        each assumed VM's average and peak demand (and utilization) x f_h

The per-core capacity is the median ``cpu_score_per_core`` of the host's VMs
(they run on its CPU: the RVTools reader takes a VM's CPU from its host). Only
powered-on VMs matched to a host (``metadata['vm_hosts']``) are bounded; the
scaled VMs keep status ``assumed`` with a note naming the host and the
factor, and the counted warning ``assumed_cpu_bounded_by_host`` lists them.

References
----------
.. [1] VMware, "vSphere Resource Management," vSphere 6.0, "CPU Virtualization
   Basics" (the VMkernel schedules a virtual machine's virtual CPUs on the
   host's physical processors),
   https://docs.vmware.com/en/VMware-vSphere/6.0/com.vmware.vsphere.resmgmt.doc/GUID-9986F393-4D36-48AB-B839-8FF25ECEEF94.html.
.. [2] VMware (Broadcom), "vSphere Web Services API," data object
   ``HostHardwareSummary``: ``cpuMhz`` x ``numCpuCores`` approximately equals
   the sum of the MHz of all cores of the host (its CPU capacity),
   https://developer.broadcom.com/xapis/virtual-infrastructure-json-api/latest/data-structures/HostListSummaryQuickStats.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from vsizer.inventory import Inventory
from vsizer.quality import QualityReport

__all__ = ["bound_by_hosts"]

#: Hosts named in the warning's message (the VMs are all listed).
NAMED_HOSTS = 5


def _assumed(servers: pd.DataFrame, quality: QualityReport) -> np.ndarray:
    """Servers whose average and peak CPU use are both assumed (assume_util)."""
    return np.array([
        quality.status(n, "cpu_avg_util") == "assumed"
        and quality.status(n, "cpu_peak_util") == "assumed"
        for n in servers["name"].astype(str)
    ], dtype=bool)


def _f(col: pd.Series) -> np.ndarray:
    return pd.to_numeric(col, errors="coerce").to_numpy(dtype=float, na_value=np.nan)


def bound_by_hosts(
    servers: pd.DataFrame, inventory: Inventory, quality: QualityReport
) -> pd.DataFrame:
    """``servers`` (normalized: ``cpu_*_demand``, ``cpu_score_per_core``) with
    the assumed demand on over-committed source hosts scaled down (see the
    module docstring); unchanged when no host is over-committed."""
    hosts = inventory.hosts_before
    vm_hosts: Mapping[str, str] | None = inventory.metadata.get("vm_hosts")
    if hosts is None or not vm_hosts or not len(servers):
        return servers
    assumed = _assumed(servers, quality)
    if not assumed.any():
        return servers
    names = servers["name"].astype(str).to_numpy()
    on = np.array([vm_hosts.get(n, "") for n in names], dtype=object)
    cores = dict(zip(hosts["name"].astype(str), _f(hosts["cores"]), strict=True))
    peak, per_core = _f(servers["cpu_peak_demand"]), _f(servers["cpu_score_per_core"])
    factor = np.ones(len(servers))
    capped: dict[str, tuple[float, float]] = {}
    for host in sorted({h for h in on[assumed] if h}):
        idx = np.flatnonzero(on == host)
        scores = per_core[idx][~np.isnan(per_core[idx])]
        n_cores = cores.get(host, np.nan)
        if not scores.size or not n_cores > 0:
            continue
        capacity = float(n_cores) * float(np.median(scores))
        a = assumed[idx]
        known, asked = np.nansum(peak[idx][~a]), np.nansum(peak[idx][a])
        if asked <= 0 or known + asked <= capacity * (1 + 1e-9):
            continue
        f = max(capacity - known, 0.0) / asked
        factor[idx[a]] = f
        capped[host] = (f, n_cores)
    if not capped:
        return servers
    return _scaled(servers, factor, on, capped, quality)


def _scaled(
    servers: pd.DataFrame,
    factor: np.ndarray,
    on: np.ndarray,
    capped: dict[str, tuple[float, float]],
    quality: QualityReport,
) -> pd.DataFrame:
    """The servers with ``factor`` applied; notes and the counted warning."""
    out = servers.copy()
    for col in ("cpu_avg_demand", "cpu_peak_demand", "cpu_avg_util", "cpu_peak_util"):
        values = _f(out[col]) * factor
        out[col] = pd.array(values, dtype="Float64") if col.endswith("util") else values
    scaled = np.flatnonzero(factor < 1.0)
    names = out["name"].astype(str).to_numpy()
    util = _f(out["cpu_peak_util"])
    for i in scaled:
        f, n_cores = capped[str(on[i])]
        note = (f"no CPU utilization given: assumed, then bounded by what host "
                f"{on[i]} ({n_cores:g} cores) delivers today: x {f:.3g} = "
                f"{util[i]:.3g}")
        quality.record(str(names[i]), "cpu_avg_util", "assumed", note)
        quality.record(str(names[i]), "cpu_peak_util", "assumed", note)
    listed = sorted(capped)
    named = ", ".join(f"{h} (x {capped[h][0]:.3g})" for h in listed[:NAMED_HOSTS])
    if len(listed) > NAMED_HOSTS:
        named += f" and {len(listed) - NAMED_HOSTS} more"
    quality.warn(
        "assumed_cpu_bounded_by_host",
        f"{len(scaled)} VM(s) without CPU utilization ask, at the assumed use, for "
        f"more CPU than their source host has on {len(listed)} host(s): {named}. "
        "Their assumed demand is scaled down so that the VMs of a host need at most "
        "its cores x per-core capacity (a host cannot deliver more CPU than it has; "
        "VMware vSphere Resource Management, 'CPU Virtualization Basics'). Give "
        "utilization (RVTools vCPU tab, series) to size them on measurements.",
        names[scaled].tolist(),
    )
    return out
