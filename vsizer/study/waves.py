"""Migration waves from a plan document (issue 30, ``vsizer waves``).

**Move units.** VMs kept together: one RVTools vApp or folder (the plan's
``migration.vms[].move_group``), and the server pairs of a dependency CSV
(joined transitively). A move group holding redundant partners is split so that they
land in different waves. Blocked VMs (readiness) are not scheduled, nor the
other VMs of their unit (held back). Redundant partners: the plan's
``redundant_with`` and the pairs of ``--redundant``.

**Waves.** One wave moves at most the data of one window::

    window_gib = bandwidth [bit/s] / 8 x efficiency x window [s] / 2^30

with the data of a VM its used storage (``used_gib``; the provisioned size
when used is unknown, warned). Units are taken in risk order (``ready``,
``unknown``, ``needs work``; ``--order high-risk-first`` reverses it), larger
first within a level, and each goes into the first wave where its data and
``--max-vms`` fit and no redundancy partner (``redundant_with``) already is; a
unit larger than a window gets a wave of its own, longer than the window
(warned). Hours of a wave = its data at the effective rate.

**Source hosts released.** After each wave, per source cluster (the plan's
``before.hosts``), hosts are released smallest first while the VMs still on
the cluster fit N+k: with the k = ``failures`` largest remaining hosts lost,
the others hold the remaining demand, CPU at the plan's ``ceiling`` and memory
less ``host_memory_reserve_gib``::

    sum_VMs cpu_MHz <= ceiling x (sum_hosts cores x MHz - k largest)
    sum_VMs mem_GiB <= sum_hosts (mem - reserve) - k largest

VM CPU demand = vCPUs x clock x peak utilization (the plan's servers). A
cluster keeps at least k + 1 hosts while any of its VMs remains; a cluster
whose VMs all left releases every host. When the plan was made on demand
curves (``plan --series``; its ``migration.curves`` and each VM's
``cpu_shape``, :mod:`vsizer.study.migration_curves`), the CPU sum is a curve
and the check holds at its busiest point, so VMs whose peaks do not coincide
free hosts their summed peaks would keep (the scalar check otherwise, warned).

**Target hosts.** Per target pool, the hosts that hold the VMs moved so far
(the plan's placement) plus ``failures`` spare hosts, at most the pool's
count: they must be in place before the wave.

**Licences.** Per-core subscription of each host, at least 16 cores per CPU
(Broadcom KB 313548, "Counting Cores for VMware Cloud Foundation and vSphere
Foundation and TiBs for vSAN", https://knowledge.broadcom.com/external/article/313548);
stopped with a released source host, started with a target
host.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from vsizer.errors import ConfigError
from vsizer.study.readiness import STATUSES, os_assumed_warning, vm_readiness

__all__ = ["WaveOptions", "plan_waves", "window_gib"]

#: Broadcom KB 313548: per-core subscription, at least 16 cores per CPU.
LICENCE_MIN_CORES_PER_CPU = 16
_RISK = {"ready": 0, "unknown": 1, "needs work": 2}


@dataclass(frozen=True)
class WaveOptions:
    bandwidth_bit_s: float
    efficiency: float
    window_h: float
    start: dt.date | None = None
    max_vms: int | None = None
    blackout: tuple[tuple[dt.date, dt.date], ...] = ()
    dependencies: tuple[tuple[str, str], ...] = ()
    redundant: tuple[tuple[str, str], ...] = ()
    target: str | None = None
    order: str = "low-risk-first"
    notes: list[str] = field(default_factory=list)


def window_gib(opts: WaveOptions) -> float:
    """The data one window moves [GiB]."""
    return opts.bandwidth_bit_s / 8.0 * opts.efficiency * opts.window_h * 3600.0 / 2**30


def plan_waves(doc: dict[str, Any], opts: WaveOptions) -> dict[str, Any]:
    """The ``waves`` document of a plan document (module docstring).

    Raises
    ------
    ConfigError
        The plan has no ``migration`` section (not made from an RVTools export
        by this version), or a dependency names a VM the plan does not have.
    """
    mig = doc.get("migration")
    if not isinstance(mig, dict) or not isinstance(mig.get("vms"), list):
        raise ConfigError(
            "plan JSON: expected a 'migration' section (a plan of an RVTools export "
            "made by vsizer >= issue 30); found none: rerun 'vsizer plan' on the export"
        )
    warnings: list[dict[str, Any]] = [  # the OS warning is redone for waves' target
        w for w in mig.get("warnings") or [] if w.get("code") != "readiness_os_support_assumed"]
    cap = window_gib(opts)
    target = opts.target or mig.get("target") or "vsphere-8"
    vms, blocked = _ready_vms(mig, target, cap)
    assumed_os = os_assumed_warning(
        {v["name"]: v.get("facts") or {} for v in mig["vms"]},
        [v["name"] for v in mig["vms"]], target)
    warnings += [assumed_os] if assumed_os else []
    _add_partners(vms + blocked, opts.redundant)
    units, held = _hold(_units(vms + blocked, opts.dependencies, warnings))
    vms = [v for u in units for v in u]
    blocked += held
    waves = _pack(units, cap, opts, warnings)
    _left_behind(mig.get("hygiene") or {}, warnings)
    _dates(waves, opts)
    by_name = {v["name"]: v for v in vms}
    _source_release(doc, waves, vms + blocked, warnings)  # blocked VMs stay on the source
    _target_hosts(doc, waves, by_name)
    counts = {s: 0 for s in STATUSES}
    for v in vms + blocked:
        counts[v["status"]] += 1
    return {
        "parameters": {
            "bandwidth_gbit_s": opts.bandwidth_bit_s / 1e9, "efficiency": opts.efficiency,
            "window_h": opts.window_h, "window_gib": cap, "max_vms": opts.max_vms,
            "start": opts.start.isoformat() if opts.start else None, "order": opts.order,
            "target": target, "failures": _failures(doc),
            "ceiling": (doc.get("parameters") or {}).get("ceiling"),
        },
        "readiness": {"target": target, "counts": counts},
        "summary": _summary(waves, blocked),
        "waves": waves,
        "not_scheduled": [{"name": v["name"], "status": v["status"],
                           "reasons": v.get("held") or v["reasons"]}
                          for v in sorted(blocked, key=lambda x: x["name"])],
        "vms": [{k: v[k] for k in ("name", "status", "reasons", "unknown", "wave")}
                for v in sorted(vms + blocked, key=lambda x: x["name"])],
        "warnings": warnings + [{"code": n[0], "count": 1, "message": n[1]}
                                for n in _fixed_notes(opts)],
    }


def _fixed_notes(opts: WaveOptions) -> list[tuple[str, str]]:
    return [(f"waves_note_{i + 1}", n) for i, n in enumerate(opts.notes)]


def _failures(doc: dict[str, Any]) -> int:
    return int((doc.get("parameters") or {}).get("failures") or 0)


def _ready_vms(
    mig: dict[str, Any], target: str, cap: float
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    vms: list[dict[str, Any]] = []
    blocked: list[dict[str, Any]] = []
    export = mig.get("export_date")
    for v in mig["vms"]:
        r = vm_readiness(v.get("facts") or {}, target, export, cap) if v.get(
            "facts") else {"status": v.get("status", "unknown"),
                           "reasons": v.get("reasons", []), "unknown": ["all"]}
        row = {**v, **r, "wave": None}
        (blocked if r["status"] == "blocked" else vms).append(row)
    return vms, blocked


def _units(
    vms: list[dict[str, Any]], deps: tuple[tuple[str, str], ...],
    warnings: list[dict[str, Any]],
) -> list[list[dict[str, Any]]]:
    """Move units: union of move groups and dependency pairs."""
    parent = {v["name"]: v["name"] for v in vms}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(a: str, b: str) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)

    # a move group splits where it holds redundant partners (they go in different
    # waves): each member joins the group's first part holding none of its partners
    parts: dict[str, list[set[str]]] = {}
    for v in vms:
        g = v.get("move_group")
        if not g:
            continue
        mine = set(v.get("redundant_with") or [])
        part = next((p for p in parts.setdefault(g, []) if not p & mine), None)
        if part is None:
            part = set()
            parts[g].append(part)
        if part:
            union(min(part), v["name"])
        part.add(v["name"])
    skipped = [f"{a}-{b}" for a, b in deps if a not in parent or b not in parent]
    for a, b in deps:
        if a in parent and b in parent:
            union(a, b)
    if skipped:
        warnings.append({"code": "waves_dependency_not_scheduled", "count": len(skipped),
                         "message": "dependency pairs naming a VM the plan does not move "
                                    "(excluded or unknown): " + ", ".join(skipped[:5])})
    groups: dict[str, list[dict[str, Any]]] = {}
    for v in vms:
        groups.setdefault(find(v["name"]), []).append(v)
    return [sorted(g, key=lambda x: x["name"]) for _, g in sorted(groups.items())]


def _add_partners(vms: list[dict[str, Any]], pairs: tuple[tuple[str, str], ...]) -> None:
    """Add the ``--redundant`` pairs to each VM's ``redundant_with`` (both ways)."""
    by = {v["name"]: v for v in vms}
    for a, b in pairs:
        for x, y in ((a, b), (b, a)):
            if x in by and y not in (by[x].get("redundant_with") or []):
                by[x]["redundant_with"] = [*(by[x].get("redundant_with") or []), y]


def _left_behind(hyg: dict[str, Any], warnings: list[dict[str, Any]]) -> None:
    n = sum(int((hyg.get(k) or {}).get("count") or 0) for k in ("powered_off", "templates"))
    if n:
        warnings.append({"code": "waves_not_planned_vms_left", "count": n, "message":
                         f"{n} powered-off VMs and templates are not planned, so not moved "
                         "(see hygiene): delete or move them before their hosts go"})


def _hold(
    units: list[list[dict[str, Any]]],
) -> tuple[list[list[dict[str, Any]]], list[dict[str, Any]]]:
    """Units without a blocked VM, and the other VMs of units with one (held back:
    a move group or dependency moves together or not at all)."""
    keep, held = [], []
    for u in units:
        stuck = sorted(v["name"] for v in u if v["status"] == "blocked")
        if not stuck:
            keep.append(u)
            continue
        for v in u:
            if v["status"] != "blocked":
                v["held"] = [f"held back: its move group or dependency has blocked "
                             f"VM(s) {', '.join(stuck)}"]
                held.append(v)
    return keep, held


def _data(v: dict[str, Any], warned: list[str]) -> float:
    if v.get("used_gib") is not None:
        return float(v["used_gib"])
    warned.append(v["name"])
    return float(v.get("provisioned_gib") or 0.0)


def _pack(
    units: list[list[dict[str, Any]]], cap: float, opts: WaveOptions,
    warnings: list[dict[str, Any]],
) -> list[dict[str, Any]]:
    warned: list[str] = []
    sized = [(u, sum(_data(v, warned) for v in u)) for u in units]
    sign = 1 if opts.order == "low-risk-first" else -1
    sized.sort(key=lambda x: (sign * max(_RISK[v["status"]] for v in x[0]), -x[1],
                              x[0][0]["name"]))
    waves: list[dict[str, Any]] = []
    for unit, data in sized:
        names = {v["name"] for v in unit}
        partners = {p for v in unit for p in v.get("redundant_with") or []}
        if partners & names:
            warnings.append({"code": "waves_partners_in_one_unit", "count": 1,
                             "message": f"redundant partners kept together by their move "
                                        f"group or dependencies: {sorted(partners & names)}"})
        wave = next((w for w in waves if _fits(w, unit, data, partners, cap, opts)), None)
        if wave is None:
            wave = {"wave": len(waves) + 1, "vms": [], "data_gib": 0.0}
            waves.append(wave)
        wave["vms"].extend(v["name"] for v in unit)
        wave["data_gib"] += data
        for v in unit:
            v["wave"] = wave["wave"]
    rate_gib_h = cap / opts.window_h
    for w in waves:
        w["vms"].sort()
        w["vm_count"] = len(w["vms"])
        w["hours"] = w["data_gib"] / rate_gib_h if rate_gib_h else None
        w["over_window"] = w["data_gib"] > cap + 1e-9
        w["windows"] = max(1, math.ceil(w["data_gib"] / cap - 1e-9)) if cap else 1
    long = [w["wave"] for w in waves if w["over_window"]]
    if long:
        warnings.append({"code": "waves_over_window", "count": len(long),
                         "message": f"wave(s) {long} hold a move unit larger than one "
                                    f"window ({cap:,.0f} GiB): each takes as many "
                                    "consecutive windows as its data needs"})
    crowded = [w["wave"] for w in waves
               if opts.max_vms is not None and w["vm_count"] > opts.max_vms]
    if crowded:
        warnings.append({"code": "waves_over_max_vms", "count": len(crowded),
                         "message": f"wave(s) {crowded} hold a move unit of more than "
                                    f"--max-vms {opts.max_vms} VMs (kept together)"})
    if warned:
        warnings.append({"code": "waves_used_storage_assumed", "count": len(warned),
                         "message": "used storage unknown: provisioned size moved for "
                                    + ", ".join(warned[:5])})
    return waves


def _fits(
    wave: dict[str, Any], unit: list[dict[str, Any]], data: float, partners: set[str],
    cap: float, opts: WaveOptions,
) -> bool:
    if wave["data_gib"] + data > cap + 1e-9:
        return False
    if opts.max_vms is not None and len(wave["vms"]) + len(unit) > opts.max_vms:
        return False
    return not partners & set(wave["vms"])


def _dates(waves: list[dict[str, Any]], opts: WaveOptions) -> None:
    """One window a day from ``start``, skipping blackout days; a wave of several
    windows takes that many days (``date`` its first, ``end_date`` its last)."""
    day = opts.start
    for w in waves:
        days = []
        for _ in range(w["windows"]):
            while day is not None and any(a <= day <= b for a, b in opts.blackout):
                day += dt.timedelta(days=1)
            if day is not None:
                days.append(day)
                day += dt.timedelta(days=1)
        w["date"] = days[0].isoformat() if days else None
        w["end_date"] = days[-1].isoformat() if days else None


def _licence_cores(cores: float, sockets: float) -> float:
    return max(cores, LICENCE_MIN_CORES_PER_CPU * max(sockets, 1))


def _source_release(
    doc: dict[str, Any], waves: list[dict[str, Any]], all_vms: list[dict[str, Any]],
    warnings: list[dict[str, Any]],
) -> None:
    """Fill each wave's ``source`` block (VMs never scheduled stay on the source)."""
    params = doc.get("parameters") or {}
    ceiling = float(params.get("ceiling") or 1.0)
    reserve = float(params.get("host_memory_reserve_gib") or 0.0)
    k = _failures(doc)
    hosts = [h for h in ((doc.get("before") or {}).get("hosts") or [])]
    servers = {s["name"]: s for s in doc.get("servers") or []}
    by_cluster: dict[str, list[dict[str, Any]]] = {}
    for h in hosts:
        by_cluster.setdefault(str(h.get("cluster") or ""), []).append(h)
    left = {c: sorted(hs, key=lambda h: (_cap(h, ceiling, reserve), h["name"]))
            for c, hs in by_cluster.items()}
    host_cluster = {h["name"]: str(h.get("cluster") or "") for h in hosts}
    remaining: dict[str, list[dict[str, Any]]] = {c: [] for c in by_cluster}
    curves = ((doc.get("migration") or {}).get("curves") or {}).get("points")
    for v in all_vms:
        c = host_cluster.get(v.get("source_host") or "", v.get("source_cluster") or "")
        if c in remaining:
            shape = v.get("cpu_shape") if curves else None
            remaining[c].append({**v, **_demand(servers.get(v["name"], {}), shape)})
    warnings.append(_check_note(doc) if curves else {
        "code": "waves_scalar_source_check", "count": 1, "message":
        "source hosts are released on scalar N+k sizing (CPU at the ceiling, memory "
        "less the reserve): the plan was made without --series, no demand curves to "
        "replay"})
    if not hosts:
        warnings.append({"code": "waves_no_source_hosts", "count": 1,
                         "message": "the plan has no hosts before (no vHost tab): no "
                                    "source host can be released"})
    for w in waves:
        moved = set(w["vms"])
        released: list[dict[str, Any]] = []
        for c in sorted(left):
            remaining[c] = [v for v in remaining[c] if v["name"] not in moved]
            released += _release(left[c], remaining[c], k, ceiling, reserve)
        w["source"] = {
            "released_hosts": [h["name"] for h in released],
            "released_cores": sum(int(h.get("cores") or 0) for h in released),
            "licence_cores_stopped": sum(
                _licence_cores(h.get("cores") or 0, h.get("sockets") or 1) for h in released),
            "hosts_left": {c: len(hs) for c, hs in sorted(left.items())},
            "hosts_needed": {c: _needed(left[c], remaining[c], k, ceiling, reserve)
                             for c in sorted(left)},
        }


def _check_note(doc: dict[str, Any]) -> dict[str, Any]:
    c = doc["migration"]["curves"]
    return {"code": "waves_curve_source_check", "count": 1, "message":
            f"source hosts are released on the plan's demand curves: at every one of "
            f"{c['points']} points (each the maximum of {c.get('steps_per_point', 1)} "
            "steps) the VMs left hold with the k largest hosts lost; a VM's CPU curve "
            "is its shape times its peak demand, memory its allocated size"}


def _demand(server: dict[str, Any], shape: list[float] | None = None) -> dict[str, Any]:
    """Peak CPU demand [MHz] (a curve: times ``shape``) and memory [GiB] of a VM."""
    vcpus = float(server.get("vcpus") or 0)
    mhz = float(server.get("cpu_mhz") or 0)
    util = server.get("cpu_peak_util")
    util = 1.0 if util is None else float(util)
    mem = server.get("vm_mem_gib") or server.get("mem_gib") or 0
    peak = vcpus * mhz * util
    cpu = peak if shape is None else peak * np.asarray(shape, dtype=np.float64)
    return {"cpu_mhz_demand": cpu, "mem_demand": float(mem)}


def _cap(h: dict[str, Any], ceiling: float, reserve: float) -> tuple[float, float]:
    cpu = float(h.get("cores") or 0) * float(h.get("cpu_mhz") or 0) * ceiling
    return cpu, max(float(h.get("mem_gib") or 0) - reserve, 0.0)


def _survives(
    hosts: list[dict[str, Any]], vms: list[dict[str, Any]], k: int, ceiling: float,
    reserve: float,
) -> bool:
    if not vms:
        return True
    if len(hosts) < k + 1:
        return False
    caps = [_cap(h, ceiling, reserve) for h in hosts]
    for i, key in enumerate(("cpu_mhz_demand", "mem_demand")):
        dim = sorted((c[i] for c in caps), reverse=True)
        # on curves: the busiest point of the summed curves (a scalar: itself)
        if float(np.max(sum(v[key] for v in vms))) > sum(dim[k:]) + 1e-9:
            return False
    return True


def _release(
    hosts: list[dict[str, Any]], vms: list[dict[str, Any]], k: int, ceiling: float,
    reserve: float,
) -> list[dict[str, Any]]:
    """Release hosts (smallest first) while the rest survive N+k; in place."""
    out = []
    while hosts and _survives(hosts[1:], vms, k, ceiling, reserve):
        out.append(hosts.pop(0))
    return out


def _needed(
    hosts: list[dict[str, Any]], vms: list[dict[str, Any]], k: int, ceiling: float,
    reserve: float,
) -> int:
    """The N+k count of the cluster now: fewest of its (largest) hosts that survive."""
    if not vms:
        return 0
    big = sorted(hosts, key=lambda h: _cap(h, ceiling, reserve), reverse=True)
    return next((n for n in range(1, len(big) + 1)
                 if _survives(big[:n], vms, k, ceiling, reserve)), len(big))


def _target_hosts(
    doc: dict[str, Any], waves: list[dict[str, Any]], by_name: dict[str, dict[str, Any]]
) -> None:
    k = _failures(doc)
    hm = doc.get("host_model") or {}
    cores = int(hm.get("sockets") or 0) * int(hm.get("cores_per_socket") or 0)
    lic = _licence_cores(cores, int(hm.get("sockets") or 1))
    counts = {p["name"]: int(p.get("host_count") or 0) for p in doc.get("pools") or []}
    used: dict[str, set[str]] = {}
    before = 0
    for w in waves:
        for name in w["vms"]:
            v = by_name[name]
            if v.get("pool") and v.get("host"):
                used.setdefault(v["pool"], set()).add(v["host"])
        in_place = {p: min(len(hs) + k, counts.get(p, len(hs) + k))
                    for p, hs in sorted(used.items())}
        total = sum(in_place.values())
        new = total - before
        before = total
        w["target"] = {"hosts_in_place": in_place, "new_hosts": new,
                       "cores_started": new * cores, "licence_cores_started": new * lic}


def _summary(waves: list[dict[str, Any]], blocked: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "waves": len(waves),
        "vms_scheduled": sum(w["vm_count"] for w in waves),
        "vms_not_scheduled": len(blocked),
        "data_gib": sum(w["data_gib"] for w in waves),
        "hours": sum(w["hours"] or 0.0 for w in waves),
        "source_hosts_released": sum(len(w["source"]["released_hosts"]) for w in waves),
        "source_cores_released": sum(w["source"]["released_cores"] for w in waves),
        "target_hosts": sum(w["target"]["new_hosts"] for w in waves),
        "last_date": waves[-1]["end_date"] if waves else None,
    }


def parse_bandwidth(text: str) -> float:
    """``10Gbit/s``, ``10 Gbps``, ``500Mbit/s``, ``1.25GB/s`` -> bit/s."""
    import re

    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([kmgt]?)(bit/s|bps|b/s|byte/s|B/s)\s*",
                     text, re.IGNORECASE)
    if not m:
        raise ConfigError(f"--bandwidth: expected e.g. 10Gbit/s, 500Mbit/s or 1.25GB/s; "
                          f"found '{text}'")
    x = float(m.group(1)) * {"": 1, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12}[
        m.group(2).lower()]
    unit = m.group(3)
    byte = unit in ("B/s",) or unit.lower() == "byte/s"
    if x <= 0 or not math.isfinite(x):
        raise ConfigError(f"--bandwidth: expected a positive rate; found '{text}'")
    return x * 8 if byte else x


def parse_hours(text: str, flag: str = "--window") -> float:
    """``8h``, ``90min``, ``1d`` -> hours."""
    import re

    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*(h|hours?|min|m|d|days?)\s*", text,
                     re.IGNORECASE)
    if not m or float(m.group(1)) <= 0:
        raise ConfigError(f"{flag}: expected a positive duration such as 8h, 90min or "
                          f"1d; found '{text}'")
    unit = m.group(2).lower()
    f = 1 / 60 if unit in ("min", "m") else 24 if unit.startswith("d") else 1
    return float(m.group(1)) * f
