"""Used disk space of a VM in an RVTools export: which figure, and why.

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

from collections.abc import Callable
from typing import Any

from vsizer.inventory._build import ProblemLog
from vsizer.inventory._rvtools_names import sums
from vsizer.inventory._rvtools_sheets import Sheet
from vsizer.quality import QualityReport
from vsizer.units import memory_to_gib

#: (sheet, headers in order of preference) of the per-VM sums.
_PARTITION = ("Consumed MiB", "Consumed MB")
_SNAPSHOT = ("Size MiB (total)", "Size MB (total)")

#: Source -> words of the file-level note.
SOURCES = {
    "vPartition": "guest view (vPartition Consumed)",
    "In Use - snapshots": "vInfo In Use less vSnapshot sizes (swap file included)",
    "In Use - swap": "vInfo In Use less the swap file (and vSnapshot sizes)",
    "In Use": "vInfo In Use (swap and snapshot files included)",
}

Sums = dict[str, tuple[float, int]]


class UsedDisk:
    """The used-disk sources of one export: vPartition and vSnapshot sums."""

    def __init__(
        self, sheets: dict[str, Sheet | None], problems: ProblemLog
    ) -> None:
        self.partitions = sums(sheets.get("vPartition"), _PARTITION, problems)
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
            put("disk_used_gib", memory_to_gib(total, "MiB"), "derived",
                f"guest view: sum of {n} vPartition rows (Consumed)")
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
