"""The ``migration`` section of the plan document (issue 30).

Present when the inventory gives per-VM migration facts (an RVTools export):
readiness per planned VM and counted (:mod:`vsizer.study.readiness`), estate
hygiene, and what ``vsizer waves`` needs per VM: the source host and cluster,
the move group (the RVTools vApp, else its folder, the inventory group of an
RVTools export; vCenter's default folders ``vm`` and ``Discovered virtual
machine`` group nothing), used and
provisioned storage, the largest disk, the target pool and host, vCPUs and
memory, and the raw facts (so ``waves --target`` can re-check readiness).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from vsizer._jsonable import jsonable
from vsizer.catalogs.migration_data import DEFAULT_TARGET, os_targets
from vsizer.study.migration_curves import cpu_shapes
from vsizer.study.readiness import (
    DISK_MIN_GIB,
    DISK_USED_MAX,
    HW_MIN,
    SNAPSHOT_MAX_DAYS,
    hygiene,
    os_assumed_warning,
    readiness,
)
from vsizer.study.rightsizing import rightsizing_doc

if TYPE_CHECKING:
    from vsizer.study.plan_result import PlanResult

__all__ = ["deep_jsonable", "migration_doc", "migration_warnings"]


def migration_warnings() -> list[dict[str, Any]]:
    """The chosen thresholds of readiness, as counted warnings."""
    return [
        {"code": "readiness_hw_min_chosen", "count": 1,
         "message": f"old virtual hardware: below version {HW_MIN} (ESXi 6.0, vSphere 6.0 "
                    "'Virtual Machine Hardware Versions'), a chosen threshold"},
        {"code": "readiness_snapshot_age_chosen", "count": 1,
         "message": f"old snapshot: older than {SNAPSHOT_MAX_DAYS} days (72 hours, "
                    "VMware snapshot best practices, KB 1025279 / Broadcom KB 318825), a "
                    "chosen threshold"},
        {"code": "hygiene_oversized_disk_chosen", "count": 1,
         "message": f"oversized disks: provisioned >= {DISK_MIN_GIB:g} GiB and in use < "
                    f"{DISK_USED_MAX:.0%} of it, a chosen threshold"},
        {"code": "readiness_passthrough_not_checked", "count": 1,
         "message": "PCI passthrough and vGPU are not in an RVTools export: not checked"},
    ]


def migration_doc(plan: PlanResult) -> dict[str, Any] | None:
    """The section, or None when the inventory gives no migration facts."""
    meta = plan.inventory.metadata
    facts: dict[str, dict[str, Any]] | None = meta.get("vm_facts")
    if facts is None:
        return None
    target = _target_name(getattr(plan.rules, "target", None))
    export = meta.get("export_date")
    names = plan.servers["name"].astype(str).tolist()
    warnings = migration_warnings()
    if target not in os_targets():  # a target profile without a guest OS table
        warnings.append({"code": "readiness_no_os_table", "count": 1, "message":
                         f"no guest OS support table for target '{target}': guest OS "
                         f"support unknown (tables: {', '.join(os_targets())})"})
    ready = readiness(facts, names, target, export)
    assumed_os = os_assumed_warning(facts, names, target)
    if assumed_os is not None:
        warnings.append(assumed_os)
    status = {v["name"]: v for v in ready["vms"]}
    vm_hosts: dict[str, str] = meta.get("vm_hosts") or {}
    rows: list[dict[str, Any]] = plan.servers.to_dict("records")  # type: ignore[assignment]
    vms = [_vm(r, facts.get(str(r["name"]), {}), status[str(r["name"])], vm_hosts)
           for r in rows]
    rs = rightsizing_doc(plan.rightsizing) or {}
    curves = cpu_shapes(plan.pools)  # a plan on demand curves: what waves replays
    if curves is not None:
        for v in vms:
            v["cpu_shape"] = curves[0].get(v["name"])
    clean = hygiene(facts, export, meta.get("zombie_files"), rs.get("vms") or [])
    if clean["old_snapshots"]["count"] is None:
        warnings.append({"code": "hygiene_snapshots_not_checked", "count": 1,
                         "message": "old snapshots: the source lists no snapshots "
                                    "(RVTools: no vSnapshot tab): not checked"})
    return deep_jsonable({
        "target": target,
        "export_date": export,
        "readiness": {k: v for k, v in ready.items() if k != "vms"},
        "hygiene": clean,
        "warnings": warnings,
        "vms": vms,
        **({"curves": {**curves[1], "basis": "CPU demand per VM / its peak, block "
                       "maximum (vsizer.study.migration_curves)"}} if curves else {}),
    })


#: vCenter's default VM folders: no move group (vsizer.inventory.rvtools does the same).
_NO_FOLDER = frozenset({"vm", "discovered virtual machine"})


def _target_name(target: Any) -> str:
    """The plan's target as a name (a string, or a profile's ``name``), else the
    current host's hypervisor."""
    if isinstance(target, str) and target.strip():
        return target.strip().casefold()
    name = getattr(target, "name", None)
    return str(name).casefold() if name else DEFAULT_TARGET


def deep_jsonable(x: Any) -> Any:
    """:func:`~vsizer._jsonable.jsonable` through dicts and lists."""
    if isinstance(x, dict):
        return {str(k): deep_jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [deep_jsonable(v) for v in x]
    return jsonable(x)


def _num(x: Any) -> float | None:
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(v) else v


def _vm(
    row: dict[str, Any], f: dict[str, Any], ready: dict[str, Any], vm_hosts: dict[str, str]
) -> dict[str, Any]:
    name = str(row["name"])
    used = _num(row.get("disk_used_gib"))
    if used is None:
        used = f.get("in_use_gib")
    folder = f.get("folder")
    if folder and folder.casefold() in _NO_FOLDER:
        folder = None
    return {
        "name": name,
        "status": ready["status"],
        "reasons": ready["reasons"],
        "unknown": ready["unknown"],
        "source_host": vm_hosts.get(name) or f.get("host"),
        "source_cluster": f.get("cluster"),
        "move_group": f.get("vapp") or folder,
        "pool": None if row.get("pool") is None else str(row.get("pool")),
        "host": None if row.get("host") is None else str(row.get("host")),
        "vcpus": _num(row.get("vcpus")),
        "mem_gib": _num(row.get("mem_gib")),
        "used_gib": used,
        "provisioned_gib": _num(row.get("disk_gib")) or f.get("provisioned_gib"),
        "largest_disk_gib": f.get("largest_disk_gib"),
        "redundant_with": _partners(row.get("redundant_with")),
        "facts": f,
    }


def _partners(value: Any) -> list[str]:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return []
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value]
    return [p.strip() for p in str(value).split(";") if p.strip()]
