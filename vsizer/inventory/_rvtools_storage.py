r"""Used disk space of a VM in an RVTools export: which figure, and why.

vInfo's ``In Use MiB`` is the datastore view: every file of the VM, its swap
file (``.vswp``, the configured memory less its reservation, while powered on)
and its snapshot delta disks included [1]. It can exceed the provisioned size
and is not what the guest stores. Best source first:

1. **vPartition** (guest view, from VMware Tools): the sum of the VM's
   partitions' ``Consumed MiB`` (``Consumed MB`` in older exports), status
   *derived*, note "guest view: sum of N vPartition rows";
2. **vInfo ``In Use`` less what is not the guest's data**, status *estimated*:
   the VM's snapshots when ``vSnapshot`` lists them (``Size MiB (total)``,
   ``Size MB (total)`` in older exports), and the swap file of a powered-on VM
   when ``vMemory`` gives its ``Reservation``: ESXi sizes the ``.vswp`` file as
   the configured memory less the reservation [2]. Without a reservation
   the swap file is still counted (RVTools gives no swap size);
3. **vInfo ``In Use``** alone, status *estimated*, the note saying it
   includes swap and snapshot files.

**One filesystem, several mount points.** VMware Tools lists every mount
point: a bind mount (``/opt/sentinelone/rpm_mount`` of ``/``), a btrfs
subvolume, the kubelet's volume subpaths (``/`` listed 13 times), a Windows
volume mounted as a drive and a folder (``F:\`` = ``E:\Backup\Disk1\``).
Each repeats the capacity and consumed space of its filesystem, and summing
them counts it several times (4 TiB too much in a 133-VM export). So a VM's
partitions with the same capacity and consumed space [MiB] count once, except
that distinct drive letters (``I:\``, ``L:\``) are distinct volumes; the
warning ``rvtools_partitions_shared`` gives the VMs and the MiB not counted.

Each VM's quality note names its source, the *estimated* ones are counted in
the plan warning ``estimated_disk_used_gib``, and the file-level note gives
the number of VMs per source.

References
----------
.. [1] Broadcom (VMware), *vSphere Web Services API*, data object
   ``VirtualMachineStorageSummary`` (``committed``: storage space used by the
   VM on all datastores, including the swap and snapshot files).
.. [2] Broadcom (VMware), *vSphere Resource Management*, "Swap Space and
   Memory Overcommitment": a virtual machine's swap file is the difference
   between its configured memory and its memory reservation.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from vsizer.inventory._build import ProblemLog, clean_text
from vsizer.inventory._rvtools_names import sums, vm_keys
from vsizer.inventory._rvtools_sheets import Sheet
from vsizer.inventory._rvtools_sheets import key as _key
from vsizer.quality import QualityReport
from vsizer.units import NonFiniteError, memory_to_gib, parse_number

#: (sheet, headers in order of preference) of the per-VM sums.
_PARTITION = ("Consumed MiB", "Consumed MB")
_SNAPSHOT = ("Size MiB (total)", "Size MB (total)")
_CAPACITY = ("Capacity MiB", "Capacity MB")
#: A Windows drive root (``C:\``): distinct ones are distinct volumes.
_DRIVE_ROOT = re.compile(r"^[A-Za-z]:\\?$")

#: Source -> words of the file-level note.
SOURCES = {
    "vPartition": "guest view (vPartition Consumed)",
    "In Use - snapshots": "vInfo In Use less vSnapshot sizes (swap file included)",
    "In Use - swap": "vInfo In Use less the swap file (and vSnapshot sizes)",
    "In Use": "vInfo In Use (swap and snapshot files included)",
}

Sums = dict[str, tuple[float, int]]


def partition_sums(
    sheet: Sheet | None, problems: ProblemLog
) -> tuple[Sums, dict[str, tuple[float, list[str]]]]:
    """vPartition's per-VM ``Consumed`` sums, each filesystem counted once
    (module docstring), and key -> (MiB not counted, its mount points)."""
    total = sums(sheet, _PARTITION, problems)
    if sheet is None or not any(sheet.has(h) for h in _CAPACITY):
        return total, {}
    cap_h = next(h for h in _CAPACITY if sheet.has(h))
    con_h = next((h for h in _PARTITION if sheet.has(h)), None)
    groups: dict[str, dict[tuple[float, float], list[str]]] = {}
    for _, cells in sheet.rows:
        cap, con = (cells.get(_key(h)) if h else None for h in (cap_h, con_h))
        try:
            c, u = parse_number(cap), parse_number(con)
        except (ValueError, NonFiniteError):
            continue  # the bad cell is a problem line of sums()
        if c is None or u is None or u <= 0:
            continue
        sig = (c, u)
        disk = clean_text(cells.get("disk")) or "?"
        for k in vm_keys(cells):
            groups.setdefault(k, {}).setdefault(sig, []).append(disk)
    shared: dict[str, tuple[float, list[str]]] = {}
    for k, by_sig in groups.items():
        for (_, con), disks in by_sig.items():
            roots = len({d.upper() for d in disks if _DRIVE_ROOT.match(d)})
            extra = len(disks) - max(roots, 1)
            if extra > 0 and k in total:
                mib, where = shared.get(k, (0.0, []))
                shared[k] = (mib + extra * con, where + disks)
                t, n = total[k]
                total[k] = (t - extra * con, n - extra)
    return total, shared


class UsedDisk:
    """The used-disk sources of one export: vPartition and vSnapshot sums."""

    def __init__(
        self, sheets: dict[str, Sheet | None], problems: ProblemLog
    ) -> None:
        self.partitions, self.shared = partition_sums(sheets.get("vPartition"), problems)
        self.shared_used: dict[str, tuple[float, list[str]]] = {}
        self.snapshots = sums(sheets.get("vSnapshot"), _SNAPSHOT, problems)
        self.counts: dict[str, int] = {}

    def put(
        self, name: str, in_use: tuple[float | None, str],
        put: Callable[[str, Any, Any, str], None], swap: float | None = None,
    ) -> None:
        """Set the VM's ``disk_used_gib`` from the best source (module docstring);
        ``in_use`` is vInfo's ``(In Use [MiB] or None, its source)``, ``swap``
        the VM's swap file [MiB] when known (powered on, reservation given)."""
        value, source_header = in_use
        header = source_header.replace(":", " ", 1)  # 'vInfo:In Use MiB' as words
        if name in self.partitions:
            total, n = self.partitions[name]
            note = f"guest view: sum of {n} vPartition rows (Consumed)"
            if name in self.shared:
                self.shared_used[name] = self.shared[name]
                note += ("; mount points of a filesystem already counted left out "
                         f"({self.shared[name][0]:g} MiB)")
            put("disk_used_gib", memory_to_gib(total, "MiB"), "derived", note)
            source = "vPartition"
        elif value is None:
            return
        elif name in self.snapshots or swap is not None:
            snap, n = self.snapshots.get(name, (0.0, 0))
            less = [f"{n} snapshot(s) in vSnapshot"] if n else []
            if swap is not None:
                less.append(f"its swap file ({swap:g} MiB: memory less reservation)")
            note = f"{header} less " + " and ".join(less)
            if swap is None:
                note += "; the VM's swap file is still counted (no swap size given)"
            used = max(value - snap - (swap or 0.0), 0.0)
            put("disk_used_gib", memory_to_gib(used, "MiB"), "estimated", note)
            source = "In Use - snapshots" if swap is None else "In Use - swap"
        else:
            put("disk_used_gib", memory_to_gib(value, "MiB"), "estimated",
                f"{header}: the datastore view, which includes the swap and "
                "snapshot files (no vPartition row for this VM)")
            source = "In Use"
        self.counts[source] = self.counts.get(source, 0) + 1

    def note(self, quality: QualityReport) -> None:
        """The file-level note: how many VMs took their used space from where."""
        if self.counts:
            parts = [f"{SOURCES[s]} for {n} VM(s)" for s, n in self.counts.items()]
            quality.note("RVTools used disk space: " + "; ".join(parts))
        if self.shared_used:
            mib = sum(m for m, _ in self.shared_used.values())
            name, (m, where) = max(self.shared_used.items(), key=lambda kv: kv[1][0])
            quality.warn(
                "rvtools_partitions_shared",
                f"{len(self.shared_used)} VM(s) list vPartition mount points with the "
                "same capacity and consumed space (bind mounts, btrfs subvolumes, "
                "volume subpaths, a volume mounted twice: one filesystem): each "
                f"filesystem counted once, {mib / 1024:,.1f} GiB less than the plain "
                "sum; most in "
                f"'{name}' ({m / 1024:,.1f} GiB; {', '.join(where[:3])}"
                f"{' ...' if len(where) > 3 else ''}).",
                sorted(self.shared_used),
            )
