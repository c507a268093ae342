"""Plausible ranges of the per-server numbers every inventory reader produces.

A number read from a file is checked once, in its canonical unit
(``docs/nomenclature.md``), by :func:`check`: it must be finite and lie within
the field's hard limits (:data:`FIELD_RANGES`), else the reader reports an error
line; a value within the limits but outside the field's usual band makes a
plan warning that names the band. The limits are wide on purpose: they catch
a wrong unit (memory in bytes read as GiB, power in mW) and overflowing cells
(``1e400``, ``1e20`` sockets), not large servers. The table is published in
``docs/reliability.md``.

**Kinds.** A virtual machine is not a physical server: its sockets, cores and
memory are configuration values bounded by the hypervisor, not by a mainboard.
``kind='vm'`` (every reader whose rows are VMs: RVTools and its family) checks
against :data:`VM_FIELD_RANGES`, the hypervisors' published per-VM maxima; other
fields fall back to :data:`FIELD_RANGES` (``kind='server'``, the default).
Sources of the VM limits (per VM, as published by the vendors; [1] and [2]
checked in the vendor's page, [3] and the 24 TB and Windows Server 2025
figures as the vendors announce them, to be re-checked at each release):

.. [1] Broadcom (VMware), *vSphere Virtual Machine Administration* 8.0, "Virtual
   CPU Limitations": at most 768 virtual CPUs per VM; 7.0 (VMs compatible with
   ESXi 7.0 U1 and later): 768 vCPUs and at most 128 virtual CPU sockets per VM
   (more vCPUs need multicore virtual sockets). *vSphere 8.0 Configuration
   Maximums*, https://configmax.broadcom.com/: 24 TB of memory per VM.
.. [2] Microsoft, *Plan for Hyper-V scalability in Windows Server*,
   https://learn.microsoft.com/windows-server/virtualization/hyper-v/plan/plan-hyper-v-scalability-in-windows-server
   (Windows Server 2016-2022: 12 TB of memory for a generation 2 VM; Windows
   Server 2025: 2,048 virtual processors and 240 TB for a generation 2 VM).
.. [3] Linux KVM, ``CONFIG_KVM_MAX_NR_VCPUS`` (x86, kernel commit f10a570b093e,
   2023): up to 4,096 vCPUs per guest with ``MAXSMP``, 1,024 before.

Virtual sockets per VM are bounded by the vCPU maximum (KVM lets each vCPU be
its own socket); vSphere allows 128 of them. So for a VM the limits (error)
are the largest of these maxima and the usual band (warning) is vSphere's, the
most common hypervisor of the exports read: a VM with 32 sockets x 1 core is
ordinary.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = [
    "FIELD_RANGES",
    "KINDS",
    "VM_FIELD_RANGES",
    "FieldRange",
    "check",
    "ranges",
    "warning_message",
]

#: Kinds of server a reader produces: physical servers, or virtual machines.
KINDS: tuple[str, ...] = ("server", "vm")

#: GiB in one decimal petabyte (10^15 bytes).
_PB_GIB = 1e15 / 2**30


@dataclass(frozen=True)
class FieldRange:
    """Hard limits and usual band of one field, in its canonical unit.

    ``low``..``high`` (inclusive) is what a file may state at all;
    ``usual_low``..``usual_high`` is the band outside which a value, though
    accepted, is flagged with a warning. ``label`` names the quantity in
    messages, ``unit`` is the canonical unit and ``aside`` a friendlier spelling
    of the upper limits (``"64 TiB"``), shown in brackets.
    """

    label: str
    unit: str
    low: float
    high: float
    usual_low: float
    usual_high: float
    aside: str = ""
    usual_aside: str = ""

    def limits_text(self) -> str:
        return _span(self.low, self.high, self.unit, self.aside)

    def usual_text(self) -> str:
        return _span(self.usual_low, self.usual_high, self.unit, self.usual_aside)


def _fmt(x: float) -> str:
    return f"{x:,.0f}" if float(x).is_integer() or x >= 100 else f"{x:g}"


def _span(lo: float, hi: float, unit: str, aside: str) -> str:
    u = "" if unit == "count" else f" {unit}"
    text = f"{_fmt(lo)} to {_fmt(hi)}{u}"
    return f"{text} ({aside})" if aside else text


#: Field -> limits, in the canonical unit of the field (docs/nomenclature.md).
FIELD_RANGES: dict[str, FieldRange] = {
    "sockets": FieldRange("a number of sockets", "count", 1, 16, 1, 8),
    "cores_per_socket": FieldRange("a number of cores per socket", "count",
                                   1, 512, 1, 128),
    "vcpus": FieldRange("a number of vCPUs", "count", 1, 4096, 1, 768),
    "cpu_mhz": FieldRange("a clock rate", "MHz", 100, 10_000, 1_000, 6_000),
    "mem_gib": FieldRange("a memory size", "GiB", 0, 65_536, 0, 12_288,
                          "64 TiB", "12 TiB"),
    "mem_used_gib": FieldRange("a memory size", "GiB", 0, 65_536, 0, 12_288,
                               "64 TiB", "12 TiB"),
    "disk_gib": FieldRange("a disk size", "GiB", 0, round(_PB_GIB), 0,
                           round(_PB_GIB / 5), "1 PB", "200 TB"),
    "disk_used_gib": FieldRange("a disk size", "GiB", 0, round(_PB_GIB), 0,
                                round(_PB_GIB / 5), "1 PB", "200 TB"),
    "disk_iops": FieldRange("a number of IOPS", "count", 0, 10_000_000,
                            0, 1_000_000),
    "disk_mb_s": FieldRange("a disk throughput", "MB/s", 0, 100_000, 0, 20_000,
                            "100 GB/s", "20 GB/s"),
    "net_mbps": FieldRange("a network rate", "Mbit/s", 0, 1_000_000, 0, 200_000,
                           "1 Tbit/s", "200 Gbit/s"),
    "power_w": FieldRange("a power", "W", 0, 20_000, 0, 5_000, "20 kW", "5 kW"),
    "rack_u": FieldRange("a height", "U", 0, 60, 0, 10),
    "cpu_score_per_core": FieldRange("a CPU score per core", "count",
                                     0, 1_000_000, 0, 100_000),
    "cpu_avg_util": FieldRange("a utilization", "fraction", 0, 1, 0, 1,
                               "100 %", "100 %"),
    "cpu_peak_util": FieldRange("a utilization", "fraction", 0, 1, 0, 1,
                                "100 %", "100 %"),
}


#: GiB in one TiB (the vendors' "TB" of VM memory are binary).
_TIB = 1024

#: VM per-field limits (see the module docstring for the sources [1]-[3]):
#: vCPUs and virtual sockets up to KVM's 4,096 [3] (usual: vSphere's 768 vCPUs,
#: 128 virtual sockets [1]); memory up to Hyper-V's 240 TB [2] (usual: vSphere's
#: 24 TB [1]).
VM_FIELD_RANGES: dict[str, FieldRange] = {
    "sockets": FieldRange("a number of virtual sockets", "count", 1, 4096, 1, 128),
    "cores_per_socket": FieldRange("a number of cores per virtual socket", "count",
                                   1, 4096, 1, 768),
    "vcpus": FieldRange("a number of vCPUs", "count", 1, 4096, 1, 768),
    "mem_gib": FieldRange("a VM memory size", "GiB", 0, 240 * _TIB, 0, 24 * _TIB,
                          "240 TiB", "24 TiB"),
    "mem_used_gib": FieldRange("a VM memory size", "GiB", 0, 240 * _TIB, 0,
                               24 * _TIB, "240 TiB", "24 TiB"),
}


def ranges(kind: str = "server") -> dict[str, FieldRange]:
    """The field ranges of ``kind`` ('server' or 'vm'): VMs use
    :data:`VM_FIELD_RANGES` where it has the field, else :data:`FIELD_RANGES`."""
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}; expected one of {KINDS}")
    return FIELD_RANGES if kind == "server" else {**FIELD_RANGES, **VM_FIELD_RANGES}


def check(field: str, value: float, kind: str = "server") -> tuple[str | None, bool]:
    """Check one canonical value: ``(error, unusual)``.

    ``error`` is the *expected* part of an error line (``"a finite number"``,
    ``"a memory size from 0 to 65,536 GiB (64 TiB)"``) or ``None``; ``unusual``
    is true for an accepted value outside the usual band. A field without an
    entry in :data:`FIELD_RANGES` is only checked to be finite. ``kind``
    ('server' or 'vm') chooses the ranges (:func:`ranges`).
    """
    x = float(value)
    if not math.isfinite(x):
        return "a finite number", False
    r = ranges(kind).get(field)
    if r is None:
        return None, False
    if not r.low <= x <= r.high:
        return f"{r.label} from {r.limits_text()}", False
    return None, not r.usual_low <= x <= r.usual_high


def warning_message(field: str, kind: str = "server") -> str:
    """The plan warning for values of ``field`` outside the usual band of ``kind``."""
    r = ranges(kind)[field]
    if kind == "vm" and field in VM_FIELD_RANGES:
        return (
            f"{field} outside the usual {r.usual_text()} for a VM (VMware vSphere 8 "
            f"per-VM maximums; the limits are {r.limits_text()}, the largest "
            "hypervisor maxima): check the value of these VMs."
        )
    return (
        f"{field} outside the usual {r.usual_text()} (the limits are "
        f"{r.limits_text()}): check the unit and the value of these servers."
    )
