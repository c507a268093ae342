"""What-if evaluations of one model, as JSON-ready dicts (behind ``vsizer model``).

Each function evaluates one model for scalar inputs, records the inputs, the
result, the source, and every :class:`~vsizer.errors.ModelRangeWarning` raised,
so the CLI only formats. Their parameters are declared
(:func:`vsizer._validation.validate_params`) under the name of the ``vsizer
model`` command, so a bad value reads "The 'vms' parameter of model cpu must be
...", every problem on its own line.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

from vsizer._jsonable import rounded as _r
from vsizer._validation import Interval, OneOf, OrNone, validate_params
from vsizer.errors import ModelRangeWarning
from vsizer.models import cpu, disk, network, queueing
from vsizer.models.parameters import OVERHEAD_MODEL_PARAMETERS

_P = OVERHEAD_MODEL_PARAMETERS
_COUNT = Interval(int, 1, None)


def _capture(fn: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn()
    result["warnings"] = sorted(
        {str(w.message) for w in caught if issubclass(w.category, ModelRangeWarning)}
    )
    return result


@validate_params(
    {
        "vms": _COUNT,
        "physical_cpus": _COUNT,
        "total_util_pct": Interval(float, 0, None),
        "basis": OneOf(cpu.BASES),
    },
    where="model cpu",
)
def cpu_whatif(
    vms: int,
    physical_cpus: int,
    total_util_pct: float,
    basis: str = "demand",
    coefficients: dict[str, float] | None = None,
) -> dict[str, Any]:
    """Per-VM CPU performance for N VMs on P CPUs at a total utilization."""
    coeff = coefficients or {
        k: _P["cpu"]["esx252"][k]
        for k in ("intercept", "slope", "reference_cpus", "contention_exponent")
    }
    k = coeff["contention_exponent"]
    err = float(_P["cpu"]["esx252"]["prediction_rms_error"])

    def run() -> dict[str, Any]:
        demand = (
            float(total_util_pct)
            if basis == "demand"
            else float(cpu.demand_from_guest_util_pct(total_util_pct, physical_cpus, contention_exponent=k))
        )
        guest = float(cpu.guest_reported_util_pct(demand, physical_cpus, contention_exponent=k))
        a, b, ref = coeff["intercept"], coeff["slope"], coeff["reference_cpus"]
        rel = float(cpu.relative_performance(
            vms, physical_cpus, demand, intercept=a, slope=b, reference_cpus=ref,
            contention_exponent=k))
        single = float(cpu.relative_to_single_vm(
            vms, physical_cpus, demand, intercept=a, slope=b, reference_cpus=ref,
            contention_exponent=k))
        return {
            "model": "cpu",
            "inputs": {"vms": vms, "physical_cpus": physical_cpus,
                       "total_util_pct": total_util_pct, "basis": basis},
            "demand_pct": _r(demand),
            "guest_reported_util_pct": _r(guest),
            "overcommit": _r(demand / (100.0 * physical_cpus)),
            "relative_performance": _r(rel),
            "relative_performance_interval": [_r(rel * (1 - err)), _r(rel * (1 + err))],
            "relative_to_single_vm": _r(single),
            "published_host_share_per_logical_cpu": _r(cpu.per_logical_cpu_share()),
            "per_vm_guest_util": _r(guest / vms / 100.0),
            "coefficients": {kk: _r(v) for kk, v in coeff.items()},
            "source": _P["cpu"]["esx252"]["source"],
        }

    return _capture(run)


@validate_params(
    {
        "access_spec": OneOf(disk.ACCESS_SPECS),
        "queue_depth": Interval(float, 1, None),
        "backing": OneOf(disk.BACKINGS),
        "vms_on_volume": _COUNT,
        "volumes": _COUNT,
        "format": OneOf(disk.FORMATS),
        "write_fraction": Interval(float, 0, 1),
        "nfs": OrNone(OneOf(disk.NFS_WORKLOADS)),
    },
    where="model disk",
)
def disk_whatif(
    access_spec: str,
    queue_depth: float,
    backing: str = "file",
    vms_on_volume: int = 1,
    volumes: int = 1,
    format: str = "preallocated",
    write_cache: bool = True,
    write_fraction: float = 0.33,
    nfs: str | None = None,
    rsize_wsize_kb: float | None = None,
    nfs_cache_short: bool = False,
) -> dict[str, Any]:
    """Disk ratio VM / native, volume share, format risk and NFS ratio.

    ``format`` is named as the ``--format`` option and the ``inputs`` key.
    """
    disk_format = format

    def run() -> dict[str, Any]:
        ratio = float(disk.throughput_ratio(queue_depth, access_spec, backing))
        share = float(disk.volume_share(vms_on_volume, volumes))
        per_volume = max(math.ceil(vms_on_volume / volumes), 1)
        risk, reason = disk.format_risk(disk_format, write_cache, write_fraction)
        out: dict[str, Any] = {
            "model": "disk",
            "inputs": {"access_spec": access_spec, "queue_depth": queue_depth,
                       "backing": backing, "vms_on_volume": vms_on_volume,
                       "volumes": volumes, "format": disk_format,
                       "write_cache": write_cache, "write_fraction": write_fraction,
                       "nfs": nfs},
            "throughput_ratio": _r(ratio),
            "volume_share": _r(share),
            "guest_util_inflation": _r(float(per_volume)),
            "guest_util_trustworthy": bool(disk.guest_util_trustworthy(per_volume)),
            "format_risk": risk,
            "format_reason": reason,
            "nfs_ratio": None,
            "source": _P["disk"]["queue_depth"]["source"],
        }
        if nfs is not None:
            out["nfs_ratio"] = _r(disk.nfs_ratio(
                nfs, rsize_wsize_kb=rsize_wsize_kb,
                cache_covers_working_set=not nfs_cache_short))
            out["nfs_source"] = _P["disk"]["nfs"]["source"]
        return out

    return _capture(run)


@validate_params(
    {
        "nic_gbps": Interval(float, 0, None, "neither"),
        "direction": OneOf(network.DIRECTIONS),
        "senders": _COUNT,
        "receivers": _COUNT,
        "xen_vms": OrNone(_COUNT),
    },
    where="model network",
)
def network_whatif(
    nic_gbps: float = 1.0,
    direction: str = "send",
    vmq: bool = False,
    senders: int = 1,
    receivers: int = 1,
    xen_vms: int | None = None,
) -> dict[str, Any]:
    """Wire limit, VM-to-VM throughput and (for Xen) the VM / physical ratio."""

    def run() -> dict[str, Any]:
        out: dict[str, Any] = {
            "model": "network",
            "inputs": {"nic_gbps": nic_gbps, "direction": direction, "vmq": vmq,
                       "senders": senders, "receivers": receivers, "xen_vms": xen_vms},
            "wire_limit_mbps": _r(network.wire_limit_mbps(nic_gbps, direction, vmq=vmq)),
            "vm_to_vm_mbps": _r(network.vm_to_vm_mbps(senders, receivers)),
            "xen_relative_throughput": None,
            "source": _P["network"]["wire"]["source"] + " " + _P["network"]["vm_to_vm"]["source"],
        }
        if xen_vms is not None:
            out["xen_relative_throughput"] = _r(network.xen_relative_throughput(xen_vms))
        return out

    return _capture(run)


@validate_params(
    {
        "service_ms": Interval(float, 0, None, "neither"),
        "servers": _COUNT,
        "think_ms": Interval(float, 0, None),
        "arrival_rate": OrNone(Interval(float, 0, None)),
        "clients": OrNone(_COUNT),
    },
    where="model queue",
)
def queue_whatif(
    service_ms: float,
    arrival_rate: float | None = None,
    servers: int = 1,
    clients: int | None = None,
    think_ms: float = 0.0,
) -> dict[str, Any]:
    """Open M/M/c (with ``arrival_rate``) or closed MVA (with ``clients``) response time."""

    def run() -> dict[str, Any]:
        s = service_ms / 1000.0
        out: dict[str, Any] = {
            "model": "queue",
            "inputs": {"service_ms": service_ms, "arrival_rate": arrival_rate,
                       "servers": servers, "clients": clients, "think_ms": think_ms},
        }
        if clients is not None:
            res = queueing.mva(clients, [s], think_ms / 1000.0, [servers])
            out.update({
                "kind": "closed (MVA)",
                "throughput_per_s": _r(float(res.throughput[-1])),
                "response_time_ms": _r(1000.0 * float(res.response_time[-1])),
                "utilization": _r(float(res.utilizations[0])),
                "source": "Reiser & Lavenberg, J. ACM 27(2), 1980, doi:10.1145/322186.322195",
            })
        else:
            lam = float(arrival_rate or 0.0)
            r = queueing.mmc_response_time(lam, s, servers)
            out.update({
                "kind": "open M/M/c" if servers > 1 else "open M/M/1",
                "utilization": _r(lam * s / servers),
                "wait_probability": _r(queueing.erlang_c(servers, lam * s)),
                "response_time_ms": _r(1000.0 * r),
                "inflation": _r(r / s),
                "source": "Kleinrock, Queueing Systems Vol. 1, 1975, Sec. 3.2 and 3.5",
            })
        return out

    return _capture(run)
