"""Plan an estate for one target platform (``vsizer plan --target NAME``).

The whole chain of :func:`vsizer.study.plan` runs with the target's rules,
reserves and licences (:mod:`vsizer.study.target_rules`): the reserve lowers
each host's memory and CPU, the per-VM overhead adds to demand, the storage
of a hyperconverged target is sized with its protection and full ratio, and
the TCO counts the target's licences. Per-cluster services spread over the
hosts are first reserved over the cluster's fewest nodes (more than needed);
when the plan needs more hosts, it is planned once more with the services
spread over that count, and that plan is kept only if it needs exactly as
many hosts (otherwise the first, over-reserved one is).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from vsizer.catalogs.host_catalog import HostCatalog
from vsizer.catalogs.licences import Licence
from vsizer.catalogs.targets import Target
from vsizer.study.config import Rules
from vsizer.study.target_rules import (
    Reserves,
    target_licences,
    target_reserves,
    target_rules,
    usable_gib,
    with_cpu_reserve,
)

__all__ = ["plan_target", "target_entry", "with_target_section"]


def _hosts(rules: Rules, reserves: Reserves) -> tuple[Any, Rules]:
    """The host model (or candidates) with the CPU reserve, and the rules to plan with."""
    from vsizer.study.choice import candidate_hosts, is_auto
    from vsizer.study.hosts import resolve_host

    if is_auto(rules):
        cands, name = candidate_hosts(rules, None)
        catalog = HostCatalog([with_cpu_reserve(h, reserves) for h in cands], path=name)
        return catalog, rules.replace(host_model="auto", candidates=(), candidates_file=None)
    host, _ = resolve_host(rules.host_catalog, rules.host_model)
    return with_cpu_reserve(host, reserves), rules


def _plan_once(
    inventory: Any, target: Target, rules: Rules, reserves: Reserves,
    licences: tuple[Licence, ...], kw: Mapping[str, Any],
) -> dict[str, Any]:
    from vsizer.study.choice import plan

    hosts, planned = _hosts(target_rules(target, rules, reserves), reserves)
    return plan(inventory, hosts, rules=planned, licences=licences, **kw).to_dict()


def plan_target(
    inventory: Any,
    target: Target,
    rules: Rules | None = None,
    *,
    user_licences: Sequence[Licence] = (),
    progress: Callable[[str, Any], None] | None = None,
    **kw: Any,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The plan document of ``inventory`` on ``target`` and its comparison entry.

    ``kw`` goes to :func:`vsizer.study.plan` (series, predict, profile, engine).
    """
    rules = rules or Rules()
    licences = target_licences(target, user_licences)
    reserves = target_reserves(target)
    if progress:
        progress("target", target.name)
    doc = _plan_once(inventory, target, rules, reserves, licences,
                     {"progress": progress, **kw})
    if any(s.per == "cluster" and s.dedicated_hosts is None for s in target.services):
        doc, reserves = _spread(inventory, target, rules, licences, kw, doc, reserves)
    return doc, target_entry(target, doc, reserves)


def _spread(
    inventory: Any, target: Target, rules: Rules, licences: tuple[Licence, ...],
    kw: Mapping[str, Any], doc: dict[str, Any], reserves: Reserves,
) -> tuple[dict[str, Any], Reserves]:
    """Per-cluster services spread over the planned hosts (module docstring):
    a plan whose reserve is spread over n hosts is kept when it needs at least
    n hosts (the whole service reserved); the one with the fewest hosts wins."""
    best, n, last = (doc, reserves), reserves.cluster_hosts, doc
    for _ in range(3):
        m = int(last["summary"]["hosts"])
        if m == n:
            break
        again = target_reserves(target, m)
        last, n = _plan_once(inventory, target, rules, again, licences, kw), m
        if m <= int(last["summary"]["hosts"]) <= int(best[0]["summary"]["hosts"]):
            best = (last, again)
    return best


def _licence_summary(target: Target, doc: Mapping[str, Any]) -> dict[str, Any]:
    tco = doc.get("tco") or {}
    years = max(int(tco.get("years") or 1), 1)
    lines = []
    for line in tco.get("licences") or ():
        cost = line.get("cost")
        lines.append({
            "name": line["name"], "unit": line["unit"], "term": line["term"],
            "count": line["count"], "price": line.get("price"),
            "cost_per_year": None if cost is None else round(cost / years, 6),
        })
    own = {lic.name.casefold() for lic in target.licences}
    cores = [x["count"] for x in lines if x["unit"] == "core" and x["name"].casefold() in own]
    sockets = [x["count"] for x in lines if x["unit"] == "socket" and x["name"].casefold() in own]
    costs = [x["cost_per_year"] for x in lines]
    return {
        "licences": lines,
        "cores_licensed": max(cores) if cores else None,
        "socket_licences": max(sockets) if sockets else None,
        "licence_cost_per_year": (
            round(sum(c for c in costs if c is not None), 6)
            if lines and None not in costs else None
        ),
        "licence_prices_given": bool(lines) and None not in costs,
    }


def _storage(target: Target, doc: Mapping[str, Any]) -> dict[str, Any] | None:
    st = doc.get("storage")
    if not st:
        return None
    raw = float(st["totals"]["required_raw_gib"])
    factor = float(st["overhead_factor"])
    full = 1.0 - float(st["slack"])
    return {
        "mode": st["mode"], "protection": st["protection"],
        "copies_or_overhead": factor, "full_ratio": round(full, 6),
        "raw_gib": round(raw, 6), "usable_gib": round(usable_gib(raw, 1, full) / factor, 6),
        "data_gib": st["totals"]["data_gib"],
        "hosts_for_storage": max(
            (p.get("hosts_for_storage") or 0 for p in st["pools"]), default=0) or None,
    }


def _performance(target: Target, doc: Mapping[str, Any]) -> dict[str, Any]:
    from vsizer.study.compare import _prediction_summary

    pred = _prediction_summary(doc)
    cpu = target.values["performance.cpu"]
    return {
        "by_resource": {r: target.values[f"performance.{r}"].to_dict()
                        for r in ("cpu", "disk", "network")},
        "predicted": None if pred is None else {
            **pred, "mean": round(pred["mean"] * float(cpu.value), 6),
            "min": round(pred["min"] * float(cpu.value), 6), "cpu_basis": cpu.basis,
        },
    }


def target_entry(target: Target, doc: Mapping[str, Any], reserves: Reserves) -> dict[str, Any]:
    """The side-by-side row of ``target`` from its plan document."""
    s, hm, tco = doc["summary"], doc["host_model"], doc.get("tco") or {}
    hosts = int(s["hosts"])
    cores = hm["sockets"] * hm["cores_per_socket"]
    max_nodes = int(target.v("cluster.max_nodes"))
    return {
        "name": target.name, "title": target.title, "hypervisor": target.hypervisor,
        "profile": Path(target.path).name,
        "host_model": hm["model"], "host_sockets": hm["sockets"], "host_cores": cores,
        "host_mem_gib": hm["mem_gib"],
        "hosts": hosts, "dedicated_hosts": reserves.dedicated_hosts,
        "hosts_total": hosts + reserves.dedicated_hosts,
        "clusters": max(1, math.ceil(hosts / max_nodes)),
        "min_nodes": int(target.v("cluster.min_nodes")), "max_nodes": max_nodes,
        "vcpu_per_core": doc["parameters"].get("vcpu_per_core"),
        "memory_overcommit": target.v("overcommit.memory"),
        **_licence_summary(target, doc),
        "storage": _storage(target, doc),
        "reserve": {
            "per_host_memory_gib": reserves.memory_gib,
            "per_host_cpu_cores": reserves.cpu_cores,
            "memory_share": round(reserves.memory_gib / float(hm["mem_gib"]), 6),
            "cpu_share": round(min(reserves.cpu_cores / cores, 1.0), 6),
            "total_memory_gib": round(reserves.memory_gib * hosts, 3),
            "total_cpu_cores": round(reserves.cpu_cores * hosts, 3),
            "cluster_services_spread_over": reserves.cluster_hosts,
            "lines": list(reserves.lines),
        },
        "performance": _performance(target, doc),
        "survives_failover": bool(s["survives_failover"]),
        "worst_survivor_util": s["worst_survivor_util"],
        "power_after_w": doc["power"]["after_w"],
        "years": int(tco.get("years") or doc["power"]["years"]),
        "currency": tco.get("currency") or doc["power"]["currency"],
        "tco_total": tco.get("total"), "tco_known_total": tco.get("known_total"),
        "tco_missing": list(tco.get("missing") or ()),
        "assumed": [f"{k}: {c.assumed}" for k, c in target.assumed()],
        "warnings": len(doc["warnings"]) + len(target.assumed()),
    }


def with_target_section(doc: dict[str, Any], entry: Mapping[str, Any], target: Target) -> dict[str, Any]:
    """``doc`` with its ``target`` section and one counted warning per assumed
    profile value (``target_assumed``)."""
    warnings = [
        {"code": "target_assumed",
         "message": f"target '{target.name}' {key} = {c.value!r} is assumed: {c.assumed}",
         "servers": []}
        for key, c in target.assumed()
    ]
    doc = {**doc, "target": dict(entry), "warnings": [*doc["warnings"], *warnings]}
    doc["summary"] = {**doc["summary"], "warnings": len(doc["warnings"])}
    return doc
