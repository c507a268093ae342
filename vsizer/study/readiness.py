"""Migration readiness per VM and estate hygiene (issue 30).

Input: the per-VM facts an RVTools export gives
(:mod:`vsizer.inventory._rvtools_facts`, ``Inventory.metadata['vm_facts']``),
each ``None`` where the export cannot tell. Output per VM: ``ready``,
``needs work``, ``blocked`` or ``unknown``, with one reason per finding.

Checks (the worst finding wins: blocked > needs work > unknown > ready):

=====================  ==========================================  ============
check                  finding                                     status
=====================  ==========================================  ============
raw device mapping     a vDisk row with ``Raw`` true or a raw      blocked
                       compatibility mode (the disk is a LUN, not
                       a file the move copies)
shared disk            ``Sharing mode`` multi-writer or a shared   blocked
                       SCSI bus (a guest cluster: moves as a unit,
                       with downtime)
fault tolerance        ``FT State`` other than notConfigured       blocked
                       (FT must be turned off to migrate)
guest OS               not supported by the target (the shipped    blocked;
                       guest OS table, :mod:`vsizer.catalogs.      legacy: needs
                       migration_data`)                            work
USB devices            vUSB rows                                   needs work
virtual hardware       ``HW version`` below :data:`HW_MIN`         needs work
snapshots              any snapshot (consolidate before the copy)  needs work
VMware Tools           not ``toolsOk`` (not running, not           needs work
                       installed, old)
large disk             the largest disk needs more than one        needs work
                       window at the bandwidth (``waves`` only)
=====================  ==========================================  ============

A check whose tab or column is absent is *unknown* (e.g. no vSnapshot tab:
snapshot status unknown). PCI passthrough and vGPU devices are not in an
RVTools export: they are not checked, which the result states once.

**Old virtual hardware.** :data:`HW_MIN` = 11, the hardware version of ESXi
6.0 (VMware, *vSphere Virtual Machine Administration*, vSphere 6.0, "Virtual
Machine Hardware Versions": a VM upgraded on an ESXi 6.0 host gets version
11); ESXi 6.0 is past its end of general support, so a VM below it was created
on, and never upgraded past, an unsupported release. Chosen, so warned.

**Old snapshot.** Older than :data:`SNAPSHOT_MAX_DAYS` = 3 days: VMware's
snapshot best practices (VMware KB 1025279, "Best practices for virtual
machine snapshots in the VMware environment", now Broadcom KB 318825) advise
using a single snapshot no longer than 24 to 72 hours. Ages count to the export's date (vMetaData);
without it the age is unknown.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from vsizer.catalogs.migration_data import DEFAULT_TARGET, guest_os_support, os_targets

__all__ = [
    "os_assumed_warning",
    "DISK_MIN_GIB",
    "DISK_USED_MAX",
    "HW_MIN",
    "NOT_CHECKED",
    "SNAPSHOT_MAX_DAYS",
    "STATUSES",
    "hygiene",
    "readiness",
    "vm_readiness",
]

HW_MIN = 11
SNAPSHOT_MAX_DAYS = 3
#: Oversized disks: a VM of at least this many provisioned GiB that uses less
#: than :data:`DISK_USED_MAX` of it (chosen, warned).
DISK_MIN_GIB, DISK_USED_MAX = 100.0, 0.25
STATUSES = ("ready", "needs work", "blocked", "unknown")
NOT_CHECKED = (
    "PCI passthrough and vGPU devices: an RVTools export does not list them; "
    "check them in vCenter (VM > Edit Settings > PCI device)"
)
_RANK = {"ready": 0, "unknown": 1, "needs work": 2, "blocked": 3}


def vm_readiness(
    facts: dict[str, Any], target: str = DEFAULT_TARGET, export_date: str | None = None,
    window_gib: float | None = None,
) -> dict[str, Any]:
    """One VM's status and reasons (module docstring); ``window_gib`` is the data
    one wave's window moves (the large-disk check), None to skip it."""
    found: list[tuple[str, str, str]] = []  # (status, check, reason)

    def add(status: str, check: str, reason: str) -> None:
        found.append((status, check, reason))

    _disk_checks(facts, add, window_gib)
    if facts.get("ft") is None:
        add("unknown", "fault_tolerance", "fault tolerance unknown (no vInfo FT State)")
    elif facts["ft"]:
        add("blocked", "fault_tolerance", "fault tolerance on: turn it off to migrate")
    _os_check(facts.get("os"), target, add)
    usb = facts.get("usb_devices")
    if usb is None:
        add("unknown", "usb", "USB devices unknown (no vUSB tab)")
    elif usb:
        add("needs work", "usb", f"{usb} USB device(s) attached: detach or re-map")
    hw = facts.get("hw_version")
    if hw is None:
        add("unknown", "hw_version", "virtual hardware version unknown")
    elif hw < HW_MIN:
        add("needs work", "hw_version", f"virtual hardware {hw} < {HW_MIN}: upgrade")
    _snapshot_check(facts, export_date, add)
    tools = facts.get("tools")
    if tools is None:
        add("unknown", "tools", "VMware Tools status unknown (no vTools row)")
    elif tools.casefold() != "toolsok":
        add("needs work", "tools", f"VMware Tools {tools}")
    status = max((s for s, _, _ in found), key=_RANK.__getitem__, default="ready")
    return {
        "status": status,
        "reasons": [r for s, _, r in found if s == status] + [
            r for s, _, r in found if s != status and s != "unknown"],
        "unknown": sorted(c for s, c, _ in found if s == "unknown"),
    }


def _disk_checks(facts: dict[str, Any], add: Any, window_gib: float | None) -> None:
    rdm, shared = facts.get("rdm_disks"), facts.get("shared_disks")
    if rdm is None:
        add("unknown", "rdm", "raw device mappings unknown (no vDisk tab)")
    elif rdm:
        add("blocked", "rdm", f"{rdm} raw device mapping disk(s) (RDM)")
    if shared is None:
        add("unknown", "shared_disk", "shared disks unknown (no vDisk tab)")
    elif shared:
        add("blocked", "shared_disk", f"{shared} shared or multi-writer disk(s)")
    largest = facts.get("largest_disk_gib")
    if window_gib is not None and largest is not None and largest > window_gib:
        add("needs work", "large_disk",
            f"largest disk {largest:,.0f} GiB > {window_gib:,.0f} GiB one window moves")


def _os_check(os_name: str | None, target: str, add: Any) -> None:
    if target.strip().casefold() not in os_targets():  # a profile without an OS table
        add("unknown", "guest_os", f"guest OS support on {target} unknown: no table")
        return
    support = guest_os_support(target, os_name)
    if support.level == "unsupported":
        add("blocked", "guest_os", f"guest OS '{os_name}' not supported on {target}")
    elif support.level == "legacy":
        add("needs work", "guest_os", f"guest OS '{os_name}' legacy on {target}")
    elif support.level == "unknown":
        add("unknown", "guest_os", f"guest OS support on {target} unknown: {support.source}")


def os_assumed_warning(
    facts: dict[str, dict[str, Any]], names: list[str], target: str
) -> dict[str, Any] | None:
    """A counted warning for the VMs ``names`` whose guest OS support on ``target``
    comes from a row of the shipped table not verified against the vendor's list."""
    if target.strip().casefold() not in os_targets():
        return None
    hits = [n for n in names if (f := facts.get(n)) and f.get("os")
            and (s := guest_os_support(target, f["os"])).assumed and s.level != "unknown"]
    if not hits:
        return None
    return {"code": "readiness_os_support_assumed", "count": len(hits), "message":
            f"guest OS support on {target} of {len(hits)} VM(s) read from rows of "
            "vsizer/catalogs/data/guest_os_support.csv not verified against the vendor's "
            "list (assumed; see each row's source): " + ", ".join(hits[:5])}


def _snapshot_check(facts: dict[str, Any], export_date: str | None, add: Any) -> None:
    n = facts.get("snapshots")
    if n is None:
        add("unknown", "snapshots", "snapshot status unknown (no vSnapshot tab)")
        return
    if not n:
        return
    age = snapshot_age_days(facts, export_date)
    how_old = f", oldest {age} days" if age is not None else ", age unknown"
    add("needs work", "snapshots", f"{n} snapshot(s){how_old}: consolidate first")


def snapshot_age_days(facts: dict[str, Any], export_date: str | None) -> int | None:
    """Days from the VM's oldest snapshot to the export's date, or None."""
    oldest = facts.get("oldest_snapshot")
    if not oldest or not export_date:
        return None
    return (dt.date.fromisoformat(export_date) - dt.date.fromisoformat(oldest)).days


def readiness(
    facts: dict[str, dict[str, Any]], names: list[str], target: str = DEFAULT_TARGET,
    export_date: str | None = None, window_gib: float | None = None,
) -> dict[str, Any]:
    """Readiness of the VMs ``names`` (the planned ones): per VM and counted.
    A VM without facts (not an RVTools source) is unknown."""
    vms = []
    for name in names:
        f = facts.get(name)
        r = (vm_readiness(f, target, export_date, window_gib) if f is not None else
             {"status": "unknown", "reasons": ["the source gives no migration facts"],
              "unknown": ["all"]})
        vms.append({"name": name, **r})
    counts = {s: sum(v["status"] == s for v in vms) for s in STATUSES}
    return {
        "target": target,
        "hw_min": HW_MIN,
        "counts": counts,
        "not_checked": [NOT_CHECKED],
        "vms": vms,
    }


def hygiene(
    facts: dict[str, dict[str, Any]], export_date: str | None,
    zombies: list[str] | None, rightsized: list[dict[str, Any]],
) -> dict[str, Any]:
    """Estate hygiene: what can be reclaimed before or instead of moving it.

    ``rightsized``: the plan's right-sizing rows (``rightsizing.vms``); a VM
    counts when it frees at least half its vCPUs or memory. Old snapshots are
    unknown (count None), not none, when the source lists no snapshot at all.
    """
    off = [(n, f) for n, f in facts.items()
           if not f.get("template") and not f.get("srm_placeholder") and f.get("power") == "off"]
    tmpl = [(n, f) for n, f in facts.items() if f.get("template")]
    old = [(n, f, a) for n, f in facts.items()
           if (a := snapshot_age_days(f, export_date)) is not None and a > SNAPSHOT_MAX_DAYS]
    over = [r for r in rightsized if _halved(r)]
    big = [(n, f) for n, f in facts.items() if _oversized_disk(f)]
    listed = any(f.get("snapshots") is not None for f in facts.values())

    def gib(rows: list[Any], key: str) -> float:
        return round(sum((r[1].get(key) or 0.0) for r in rows), 3)

    return {
        "powered_off": {"count": len(off), "provisioned_gib": gib(off, "provisioned_gib"),
                        "vms": sorted(n for n, _ in off)},
        "templates": {"count": len(tmpl), "provisioned_gib": gib(tmpl, "provisioned_gib"),
                      "vms": sorted(n for n, _ in tmpl)},
        "old_snapshots": {
            "count": len(old), "older_than_days": SNAPSHOT_MAX_DAYS,
            "snapshot_gib": gib(old, "snapshot_gib"),
            "vms": [{"name": n, "snapshots": f["snapshots"], "oldest_days": a}
                    for n, f, a in sorted(old, key=lambda x: (-x[2], x[0]))],
        } if listed else {
            "count": None, "older_than_days": SNAPSHOT_MAX_DAYS, "snapshot_gib": None,
            "vms": [], "note": "the source lists no snapshots (RVTools: no vSnapshot "
                               "tab): not checked"},
        "orphaned_files": None if zombies is None else {
            "count": len(zombies), "gib": None, "files": zombies,
            "note": "vHealth 'zombie' files: on a datastore, in no VM; sizes are not in "
                    "the export"},
        "oversized_disks": {
            "count": len(big),
            "returnable_gib": round(sum(f["provisioned_gib"] - f["in_use_gib"]
                                        for _, f in big), 3),
            "rule": f"provisioned >= {DISK_MIN_GIB:g} GiB and in use < "
                    f"{DISK_USED_MAX:.0%} of it (returnable if thick-provisioned)",
            "vms": sorted(n for n, _ in big),
        },
        "oversized": {
            "count": len(over),
            "vcpus_freed": int(sum(_freed(r, "vcpus") for r in over)),
            "mem_gib_freed": round(sum(_freed(r, "mem_gib") for r in over), 3),
            "rule": "right-sizing frees at least half of the VM's vCPUs or memory",
            "vms": sorted(str(r.get("name")) for r in over),
        },
    }


def _oversized_disk(f: dict[str, Any]) -> bool:
    prov, used = f.get("provisioned_gib"), f.get("in_use_gib")
    return (prov is not None and used is not None and prov >= DISK_MIN_GIB
            and used < DISK_USED_MAX * prov)


def _freed(row: dict[str, Any], key: str) -> float:
    had, rec = row.get(key), row.get(f"{key}_recommended")
    return max(float(had) - float(rec), 0.0) if had and rec is not None else 0.0


def _halved(row: dict[str, Any]) -> bool:
    return any(row.get(k) and _freed(row, k) >= float(row[k]) / 2
               for k in ("vcpus", "mem_gib"))
