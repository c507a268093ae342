"""Rows of RVTools' per-VM tabs joined to vInfo by the VM's identifier.

The tabs of an export are joined by VM name (:mod:`vsizer.inventory._rvtools_names`).
A name is a label, though: what identifies a VM is its managed-object ID (``VM
ID``, e.g. ``vm-1234``, unique within its vCenter) and its instance UUID (``VM
UUID``) [1], which RVTools writes on every per-VM tab. Real exports name one VM
differently in different tabs: a workbook anonymized by hand (vInfo
``nxtAPAIR01``, vDisk ``ntxAPAIR01``, the same ``vm-13555``), a tab whose ``VM``
header was overwritten (vPartition headed ``NEXT Data Center``), an exporter
that wrote a port group into vInfo's ``VM`` column but the VM's name elsewhere.
Joined by name only, such rows were silently left out: the VM's disks,
partitions or CPU figures missing, another source used instead.

So a row of a per-VM tab whose name is no vInfo VM's (or that has no ``VM``
column) is joined to the vInfo VM with the same identifier, first rule that
finds exactly one:

1. the same ``VM UUID``;
2. the same ``VM ID`` and vCenter (``VI SDK UUID``, else ``VI SDK Server``),
   when both rows give the vCenter;
3. the same ``VM ID``, when only one vInfo row has it.

Each tab so joined is stated in the warning ``rvtools_vm_matched_by_id`` (the
rows, an example, the VMs). A row that no rule places stays unmatched, as
before (``rvtools_vm_not_in_tab``).

.. [1] Broadcom (VMware), *vSphere Web Services API*, managed object
   ``VirtualMachine`` (``ManagedObjectReference`` value; ``config.instanceUuid``).
"""

from __future__ import annotations

from typing import Any

from vsizer.inventory._build import clean_text
from vsizer.inventory._rvtools_sheets import Sheet
from vsizer.quality import QualityReport

#: Tabs whose rows are VMs (or a VM's disks, partitions, snapshots...).
PER_VM_TABS = ("vCPU", "vMemory", "vDisk", "vPartition", "vSnapshot", "vTools", "vUSB")


def _vcenter(cells: dict[str, Any]) -> str | None:
    v = clean_text(cells.get("vi sdk uuid")) or clean_text(cells.get("vi sdk server"))
    return None if v is None else v.casefold()


def _keys(cells: dict[str, Any]) -> list[tuple[str, str]]:
    """A row's identifier keys, in the order of the rules (module docstring),
    each with the identifier shown in messages."""
    def get(k: str) -> str | None:
        v = clean_text(cells.get(k))
        return None if v is None else v.casefold()
    uuid, vm_id, vc = get("vm uuid"), get("vm id"), _vcenter(cells)
    keys = [] if uuid is None else [(f"uuid:{uuid}", uuid)]
    if vm_id is not None:
        if vc is not None:
            keys.append((f"id@vc:{vm_id}@{vc}", vm_id))
        keys.append((f"id:{vm_id}", vm_id))
    return keys


class _VinfoIds:
    """vInfo's VMs by each identifier that names exactly one vInfo row."""

    def __init__(self, vinfo: Sheet, shown: dict[int, str]):
        self.names: set[str] = set()  # vInfo's VM cells
        found: dict[str, list[tuple[str, str, str | None]]] = {}
        for row, cells in vinfo.rows:
            name = clean_text(cells.get("vm"))
            if name is None:
                continue
            self.names.add(name)
            for k, _ in _keys(cells):
                found.setdefault(k, []).append(
                    (name, shown.get(row, name), _vcenter(cells)))
        self.by = {k: v[0] for k, v in found.items() if len(v) == 1}

    def find(self, cells: dict[str, Any]) -> tuple[str, str, str] | None:
        """(vInfo VM cell, its name in the plan, identifier used) for a tab's
        row, or None."""
        vc = _vcenter(cells)
        for k, shown in _keys(cells):
            hit = self.by.get(k)
            if hit is not None and (k.startswith("uuid:") or None in (vc, hit[2])
                                    or vc == hit[2]):
                return hit[0], hit[1], shown
        return None


def join_by_id(
    vinfo: Sheet, names: dict[int, str], tabs: dict[str, Sheet | None],
    quality: QualityReport,
) -> None:
    """Set the ``VM`` cell of each per-VM tab row that names no vInfo VM to the
    vInfo VM with its identifier (module docstring); warn per tab so joined.
    ``names`` (vInfo row -> the VM's name in the plan) names the VMs warned."""
    ids = _VinfoIds(vinfo, names)
    for tab in PER_VM_TABS:
        sheet = tabs.get(tab)
        if sheet is None or not (sheet.has("VM ID") or sheet.has("VM UUID")):
            continue
        joined: list[tuple[str | None, str, str]] = []
        for _, cells in sheet.rows:
            own = clean_text(cells.get("vm"))
            if own in ids.names:
                continue
            hit = ids.find(cells)
            if hit is not None:
                cells["vm"] = hit[0]
                joined.append((own, hit[1], hit[2]))
        if joined:
            _warn(sheet, joined, quality)


def _warn(
    sheet: Sheet, joined: list[tuple[str | None, str, str]], quality: QualityReport
) -> None:
    own, name, ident = joined[0]
    why = (
        f"it has no 'VM' column (its first column is headed '{sheet.headers[0]}')"
        if not sheet.has("VM") and sheet.headers
        else "the VM name they give is not in vInfo"
    )
    example = (
        f"{sheet.name} '{own}' = vInfo '{name}'" if own is not None else f"vInfo '{name}'"
    )
    quality.warn(
        "rvtools_vm_matched_by_id",
        f"{len(joined)} row(s) of the {sheet.name} tab joined to vInfo by VM UUID or "
        f"VM ID, as {why}: e.g. {example} ({ident}). The tabs name these VMs "
        "differently (a renamed or hand-edited export); vInfo's name is used.",
        sorted({n for _, n, _ in joined}),
    )
