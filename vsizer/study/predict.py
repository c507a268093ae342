"""Per-VM and per-host performance predictions for a consolidation plan.

:func:`predict_plan` is the single entry point: it reads a plan document (the
dict of ``Plan.to_dict()``, see ``docs/plan-schema.md``), applies the overhead
models of :mod:`vsizer.models` with an optional :class:`~vsizer.models.profile.Profile`,
and returns the ``predictions`` section. Pure and deterministic: same plan and
profile, same dict (floats rounded to 6 decimals, lists in plan order, warnings
sorted).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

from vsizer._jsonable import rounded as _r
from vsizer.errors import InputError, ModelRangeWarning
from vsizer.models import cpu, disk, network, queueing
from vsizer.models.parameters import OVERHEAD_MODEL_PARAMETERS
from vsizer.models.profile import ENVIRONMENT_DEFAULTS, Profile
from vsizer.study.predict_interval import add_cpu_intervals, cpu_interval_basis

_VM_SATURATION = OVERHEAD_MODEL_PARAMETERS["cpu"]["vm_saturation_util"]["value"]


def _num(value: Any) -> float | None:
    return None if value is None else float(value)


def _models(profile: Profile) -> dict[str, Any]:
    coeff = profile.cpu_coefficients()
    p = OVERHEAD_MODEL_PARAMETERS
    band = cpu_interval_basis(profile)
    return {
        "cpu": {
            "function": "vsizer.models.cpu.relative_to_single_vm",
            "coefficients": {k: _r(v) for k, v in coeff.items()},
            "source": band["source"],
            "validity": "at most 3 VMs per physical CPU; overcommit at most 1.5",
            "interval": {"relative_error": band["relative_error"], "basis": band["basis"]},
        },
        "cpu_saturation": {
            "threshold": _VM_SATURATION,
            "source": p["cpu"]["vm_saturation_util"]["source"],
        },
        "response_time": {
            "function": "vsizer.models.queueing.mmc_response_time",
            "source": "L. Kleinrock, Queueing Systems, Vol. 1, Wiley, 1975, Sec. 3.5 "
            "(M/M/c, Erlang C)",
            "validity": "Poisson arrivals, exponential service, utilization < 1",
        },
        "disk": {
            "function": "vsizer.models.disk.throughput_ratio, volume_share, "
            "format_risk, nfs_ratio",
            "source": p["disk"]["queue_depth"]["source"] + " " + p["disk"]["contention"]["source"]
            + " " + p["disk"]["format"]["source"] + " " + p["disk"]["nfs"]["source"],
            "validity": "queue depths 1-32; ESX volume sharing; pgbench on NFS",
        },
        "network": {
            "function": "vsizer.models.network.wire_limit_mbps, xen_relative_throughput",
            "source": p["network"]["wire"]["source"] + " " + p["network"]["xen"]["source"],
            "validity": "1 GbE and 10 GbE NICs",
        },
        "profile": profile.source,
    }


def _assumptions(env: dict[str, Any], profile: Profile) -> list[str]:
    said = "from the profile" if profile.environment else "default"
    out = [
        f"CPU: VMs counted by {env['cpu_count']} (the ESX 2.5.2 measurement's VMs had 1 vCPU each); "
        f"demand at the {env['cpu_demand']} utilization of each server.",
        "CPU: the 4-CPU ESX 2.5.2 slope is scaled by VMs per physical core; hosts with "
        "fewer VMs per core than 1 VM on 4 cores get the single-VM value.",
        "Response time: each VM is an M/M/c queue with c = its vCPUs, compared with "
        "the source server (c = its cores) at the same request rate.",
        f"Disk ({said}): {env['disk_backing']} virtual disks, {env['disk_format']} "
        f"format, write cache {'on' if env['write_cache'] else 'off'}, access "
        f"'{env['access_spec']}' at queue depth {env['queue_depth']:g}, "
        f"{env['write_fraction']:g} writes, {env['volumes_per_host']} volume(s) per "
        "host shared by its VMs.",
    ]
    if env["nfs"]:
        out.append(
            f"NFS ({said}): VM disks on NFS, server cache {env['nfs_server_cache_gib']:g} "
            "GiB; each VM's working set taken as its memory size."
        )
    else:
        out.append(f"NFS ({said}): VM disks not on NFS; NFS cache pressure not assessed.")
    out.append(
        f"Network ({said}): {env['nics_per_host']} x {env['nic_gbps']:g} GbE per host, "
        f"VMQ {'on' if env['vmq'] else 'off'}, hypervisor '{env['hypervisor']}'."
    )
    return out


def _range_warnings(caught: list[warnings.WarningMessage], scope: str, name: str) -> list[dict[str, str]]:
    out = []
    for w in caught:
        if issubclass(w.category, ModelRangeWarning):
            text = str(w.message)
            out.append({"scope": scope, "name": name, "model": text.split(":", 1)[0],
                        "kind": "model-range", "reason": text})
    return out


def _host_cpu(
    n_count: float, cores: int, demand_pct: float, coeff: dict[str, float]
) -> tuple[float, float, list[warnings.WarningMessage]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rel = float(cpu.relative_to_single_vm(
            max(n_count, 1.0), cores, demand_pct, intercept=coeff["intercept"],
            slope=coeff["slope"], reference_cpus=coeff["reference_cpus"],
            contention_exponent=coeff["contention_exponent"]))
        guest = float(cpu.guest_reported_util_pct(
            demand_pct, cores, contention_exponent=coeff["contention_exponent"]))
    return rel, guest, list(caught)


@dataclass(frozen=True)
class _Setting:
    """What every host of a plan shares: its host model, the environment and
    the environment-level ratios (disk, format, wire limit)."""

    env: dict[str, Any]
    coeff: dict[str, float]
    nfs_p: Any
    cores: int
    logical: int
    per_core: float  # capacity units per physical core
    demand_key: str
    util_key: str
    disk_ratio: float
    fmt_risk: str
    fmt_reason: str
    nic_limit: float


class _Warnings:
    """The predictions' warnings, collected in order of discovery."""

    def __init__(self) -> None:
        self.items: list[dict[str, str]] = []

    def risk(self, scope: str, name: str, model: str, reason: str) -> None:
        self.items.append({"scope": scope, "name": name, "model": model,
                           "kind": "risk", "reason": reason})

    def ranges(self, caught: list[warnings.WarningMessage], scope: str, name: str) -> None:
        self.items += _range_warnings(caught, scope, name)

    def ordered(self) -> list[dict[str, str]]:
        """Unique warnings, hosts first, then VMs, then the plan; by name, model, reason."""
        order = {"host": 0, "vm": 1, "plan": 2}
        unique = {tuple(w.items()): w for w in self.items}
        return sorted(unique.values(), key=lambda w: (
            order.get(w["scope"], 3), w["name"], w["model"], w["reason"]))


def predict_plan(doc: dict[str, Any], profile: Profile | None = None) -> dict[str, Any]:
    """Predict per-VM performance and per-host risks of a plan.

    Parameters
    ----------
    doc : dict
        A plan document (``Plan.to_dict()`` or a parsed ``plan.json``).
    profile : Profile, optional
        Fitted coefficients and site facts; defaults to the published
        coefficients and :data:`vsizer.models.profile.ENVIRONMENT_DEFAULTS`.

    Returns
    -------
    dict
        ``{"models": {...}, "assumptions": [str], "vms": [...], "hosts": [...],
        "warnings": [...]}`` as documented in ``docs/plan-schema.md``
        ("predictions").

    Raises
    ------
    InputError
        The document lacks ``host_model``, ``servers`` or ``pools``.
    """
    profile = profile or Profile()
    env = {**ENVIRONMENT_DEFAULTS, **profile.environment}
    coeff = profile.cpu_coefficients()
    missing = [k for k in ("host_model", "servers", "pools") if k not in doc]
    if missing:
        raise InputError(
            "plan: missing key(s) " + ", ".join(f"'{k}'" for k in missing)
            + "; expected a document written by 'vsizer plan -o plan.json'."
        )
    warns = _Warnings()
    setting = _setting(doc["host_model"], env, coeff, profile, warns)
    servers = {s["name"]: s for s in doc["servers"]}
    vms_out: list[dict[str, Any]] = []
    hosts_out: list[dict[str, Any]] = []
    for pool in doc["pools"]:
        for host in pool["hosts"]:
            vms = [servers[n] for n in host["vms"] if n in servers]
            hid = str(host["id"])
            host_out, rel, share, on_volume, nfs_r = _predict_host(
                vms, hid, pool["name"], setting, warns
            )
            hosts_out.append(host_out)
            for s in vms:
                vms_out.append(_predict_vm(
                    s, hid, pool["name"], rel, setting.per_core, setting.demand_key,
                    setting.util_key, setting.disk_ratio, share, setting.fmt_risk,
                    setting.fmt_reason, on_volume, nfs_r, setting.nic_limit, warns.risk,
                ))
    error = cpu_interval_basis(profile)["relative_error"]
    add_cpu_intervals(vms_out, error)
    add_cpu_intervals(hosts_out, error)
    return {
        "models": _models(profile),
        "assumptions": _assumptions(env, profile),
        "vms": vms_out,
        "hosts": hosts_out,
        "warnings": warns.ordered(),
    }


def _setting(
    hm: dict[str, Any], env: dict[str, Any], coeff: dict[str, float],
    profile: Profile, warns: _Warnings,
) -> _Setting:
    """The host model's cores and the environment's disk and network ratios."""
    cores = int(hm["sockets"]) * int(hm["cores_per_socket"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        disk_ratio = float(disk.throughput_ratio(
            env["queue_depth"], env["access_spec"], env["disk_backing"],
            parameters=profile.section("disk", "queue_depth")))
        fmt_risk, fmt_reason = disk.format_risk(
            env["disk_format"], bool(env["write_cache"]), float(env["write_fraction"]))
        nic_limit = network.wire_limit_mbps(
            env["nic_gbps"], "send", vmq=bool(env["vmq"]),
            parameters=profile.section("network", "wire"))
        if env["hypervisor"] == "xen":
            nic_limit *= network.xen_relative_throughput(
                1, parameters=profile.section("network", "xen"))
    warns.ranges(list(caught), "plan", "environment")
    peak = env["cpu_demand"] == "peak"
    return _Setting(
        env=env, coeff=coeff, nfs_p=profile.section("disk", "nfs"), cores=cores,
        logical=cores * int(hm.get("threads_per_core") or 1),
        per_core=float(hm["capacity"]["cpu"]) / cores,
        demand_key="cpu_peak_demand" if peak else "cpu_avg_demand",
        util_key="cpu_peak_util" if peak else "cpu_avg_util",
        disk_ratio=disk_ratio, fmt_risk=fmt_risk, fmt_reason=fmt_reason,
        nic_limit=nic_limit,
    )


def _predict_host(
    vms: list[dict[str, Any]], hid: str, pool: str, st: _Setting, warns: _Warnings
) -> tuple[dict[str, Any], float, float, int, float | None]:
    """One host's predictions, and what its VMs' share: (host entry, relative
    CPU, volume share, VMs on a volume, NFS ratio)."""
    env, cores = st.env, st.cores
    vcpus = sum(int(s.get("vcpus") or 1) for s in vms)
    n_count = float(vcpus if env["cpu_count"] == "vcpus" else len(vms))
    demand_cu = sum(float(s.get(st.demand_key) or 0.0) for s in vms)
    demand_pct = 100.0 * demand_cu / st.per_core
    overcommit = demand_pct / (100.0 * cores)
    rel, guest_pct, cw = _host_cpu(n_count, cores, demand_pct, st.coeff)
    warns.ranges(cw, "host", hid)
    risks: list[str] = []
    if overcommit > 1.0:
        risks.append("cpu-overcommit")
        warns.risk("host", hid, "cpu.contention_factor",
                   f"total VM CPU demand {demand_pct / 100:.3g} cores exceeds the "
                   f"{cores} physical cores (overcommit {overcommit:.3g}); per-VM "
                   "performance collapses beyond the physical CPUs (published VMware ESX 2.5.2 measurement).")
    on_volume, share = _volume_share(vms, env, hid, risks, warns)
    nfs_pressure, nfs_r = _nfs(vms, env, st.nfs_p, hid, risks, warns)
    net = sum(float(s.get("net_mbps") or 0.0) for s in vms)
    host_limit = st.nic_limit * max(int(env["nics_per_host"]), 1)
    if net > host_limit:
        risks.append("network-wire-limit")
        warns.risk("host", hid, "network.wire_limit_mbps",
                   f"VM network traffic {net:.4g} Mbit/s exceeds the planned wire "
                   f"limit {host_limit:.4g} Mbit/s (published Xen and Hyper-V R2 network measurements).")
    host_out = {
        "id": hid, "pool": pool, "vm_count": len(vms), "vcpus": vcpus,
        "physical_cores": cores, "logical_cpus": st.logical,
        "cpu_demand_cores": _r(demand_pct / 100.0),
        "overcommit": _r(overcommit),
        "guest_reported_util_pct": _r(guest_pct),
        "relative_cpu": _r(rel),
        "vms_on_volume": on_volume, "volume_share": _r(share),
        "disk_iops": _r(sum(float(s.get("disk_iops") or 0.0) for s in vms)),
        "nfs_cache_pressure": _r(nfs_pressure) if nfs_pressure is not None else None,
        "net_mbps": _r(net), "net_limit_mbps": _r(host_limit),
        "risks": risks,
    }
    return host_out, rel, share, on_volume, nfs_r


def _volume_share(
    vms: list[dict[str, Any]], env: dict[str, Any], hid: str, risks: list[str],
    warns: _Warnings,
) -> tuple[int, float]:
    """VMs with disk I/O per volume of the host, and each one's share of it."""
    io_vms = [s for s in vms if (s.get("disk_iops") or 0) > 0] or vms
    volumes = max(int(env["volumes_per_host"]), 1)
    on_volume = max(math.ceil(len(io_vms) / volumes), 1) if vms else 0
    share = float(disk.volume_share(on_volume, 1)) if on_volume else 1.0
    if on_volume and not bool(disk.guest_util_trustworthy(on_volume)):
        risks.append("disk-volume-contention")
        warns.risk("host", hid, "disk.guest_util_trustworthy",
                   f"{on_volume} VMs share a volume: each gets about 1/{on_volume} of it "
                   "and guest-reported disk utilization is not trustworthy with 4 or "
                   "more (published ESX, Hyper-V R2 and Xen disk measurements).")
    return on_volume, share


def _nfs(
    vms: list[dict[str, Any]], env: dict[str, Any], nfs_p: Any, hid: str,
    risks: list[str], warns: _Warnings,
) -> tuple[float | None, float | None]:
    """NFS cache pressure of the host's VMs and their NFS throughput ratio
    (None, None when VM disks are not on NFS)."""
    if not env["nfs"]:
        return None, None
    ws = [float(s.get("mem_gib") or 0.0) for s in vms]
    cache = float(env["nfs_server_cache_gib"])
    nfs_pressure = disk.nfs_cache_pressure(ws, cache) if cache > 0 else math.inf
    short = nfs_pressure > 1.0
    nfs_r = disk.nfs_ratio(
        "read-write", rsize_wsize_kb=env["nfs_rsize_wsize_kb"] or None,
        cache_covers_working_set=not short, parameters=nfs_p)
    if short:
        risks.append("nfs-cache-pressure")
        warns.risk("host", hid, "disk.nfs_cache_pressure",
                   f"VM working sets ({sum(ws):.4g} GiB) exceed the NFS server "
                   f"cache ({cache:g} GiB): read-write throughput about "
                   f"{nfs_r:.2f} of local disk (published PostgreSQL pgbench on NFS measurement).")
    return nfs_pressure, nfs_r


def _predict_vm(
    s: dict[str, Any], hid: str, pool: str, rel: float, per_core: float,
    demand_key: str, util_key: str, disk_ratio: float, share: float, fmt_risk: str,
    fmt_reason: str, on_volume: int, nfs_r: float | None, nic_limit: float, warn: Any,
) -> dict[str, Any]:
    name = str(s["name"])
    vcpus = int(s.get("vcpus") or 1)
    demand = float(s.get(demand_key) or 0.0)
    util = demand / (vcpus * per_core) / rel  # guest-visible utilization of its vCPUs
    risks: list[str] = []
    if util >= _VM_SATURATION:
        risks.append("cpu-saturated")
        warn("vm", name, "cpu.vm_saturation_util",
             f"the VM will run at {util:.0%} of its {vcpus} vCPUs; a VM near 100 % "
             "fails even when the host is idle (published VMware ESX 2.5.2 measurement): give it more vCPUs.")
    # response time now (source server, c = its cores) and after (VM, c = vCPUs)
    old_cores = int(s.get("sockets") or 1) * int(s.get("cores_per_socket") or 1)
    old_util = float(s.get(util_key) or 0.0)
    old_capacity = _num(s.get("cpu_capacity"))
    inflation: float | None = None
    if old_capacity and 0 < old_util < 1:
        s_old = 1.0  # service time unit on the source server [-]
        lam = old_util * old_cores / s_old
        s_new = s_old * (old_capacity / old_cores) / per_core / rel
        r_old = queueing.mmc_response_time(lam, s_old, old_cores)
        r_new = queueing.mmc_response_time(lam, s_new, vcpus)
        inflation = r_new / r_old
        if not math.isfinite(inflation):
            risks.append("response-time-unbounded")
            warn("vm", name, "queueing.mmc_response_time",
                 "utilization of its vCPUs reaches 100 %: response time grows without "
                 "bound (M/M/c).")
    disk_risk = fmt_risk
    reasons = [fmt_reason] if fmt_risk != "low" else []
    if on_volume >= 4 and (s.get("disk_iops") or 0) > 0:
        disk_risk = "high" if disk_risk != "low" else "medium"
        reasons.append(f"shares a volume with {on_volume - 1} other VMs (1/{on_volume} each)")
    if nfs_r is not None and nfs_r < 0.5:
        disk_risk = "high"
        reasons.append(f"NFS server cache short: about {nfs_r:.2f} of local disk")
    if disk_risk != "low":
        risks.append(f"disk-{disk_risk}")
    if fmt_risk == "high":
        warn("vm", name, "disk.format_risk", fmt_reason + " (published ESX, Hyper-V R2 and Xen disk measurements).")
    net = float(s.get("net_mbps") or 0.0)
    net_risk = "high" if net > nic_limit else "low"
    if net_risk == "high":
        risks.append("network-high")
        warn("vm", name, "network.wire_limit_mbps",
             f"{net:.4g} Mbit/s exceeds one NIC's planned limit {nic_limit:.4g} Mbit/s "
             "(published Xen and Hyper-V R2 network measurements).")
    return {
        "name": name, "host": hid, "pool": pool, "vcpus": vcpus,
        "relative_cpu": _r(rel),
        "cpu_util": _r(util),
        "response_time_inflation": _r(inflation) if inflation is not None else None,
        "disk_ratio": _r(disk_ratio * (nfs_r if nfs_r is not None else 1.0)),
        "volume_share": _r(share),
        "disk_risk": disk_risk,
        "disk_notes": reasons,
        "net_mbps": _r(net),
        "network_risk": net_risk,
        "risks": risks,
    }
