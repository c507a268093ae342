"""Reading sysstat fields: one value (decimal comma, ``sar -h`` units), the
block devices whose I/O is counted once and the interfaces whose traffic is.

Private to :mod:`vsizer.series.sysstat`, which documents the forms.

``sar -h`` (``--human``, sysstat 11.7.1 and later) prints sizes with a unit
letter and percentages with ``%``: ``1.4G``, ``396.0k``, ``25.7B``, ``46.1%``,
one decimal. The letter is a power of 1024 of bytes (sysstat ``common.c``,
``cprintf_unit``: units ``B``, ``k``, ``M``, ``G``, ``T``, ``P``; a value is
divided by 1024 while it is 1024 or more), whatever the column's own unit
(``rxkB/s`` and ``kbmemfree`` alike), so a value is converted back to the
column's unit: KiB for ``kB``/``kb`` columns, MiB for ``MB`` columns, bytes for
``byt`` columns.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

__all__ = [
    "human_value",
    "is_numeric",
    "is_zero",
    "physical_interfaces",
    "read_number",
    "whole_disks",
]

_HUMAN_RE = re.compile(r"^(-?\d+(?:[.,]\d+)?)([BkMGTP%])$")
_POWER = {"B": 0, "k": 1, "M": 2, "G": 3, "T": 4, "P": 5}

_PARTITION_RE = re.compile(r"^(?P<parent>.+?)(?:p?\d+)$")
_DEVNUM_RE = re.compile(r"^dev(\d+)-(\d+)$")
_SCSI_DISK_MAJORS = frozenset({8, *range(65, 72), *range(128, 136)})
_STACKED_MAJORS = frozenset({9, 253})  # md, device-mapper
_SKIPPED_DEVICE_RE = re.compile(r"^(?:loop|ram|zram)\d+$|^dev(?:1|7)-\d+$")
_STACKED_DEVICE_RE = re.compile(r"^(?:dm-\d+|md\d+(?:p\d+)?)$")


def _column_bytes(name: str) -> int | None:
    """Bytes in one unit of a size column, None for a column that is no size."""
    if "kB" in name or name.startswith("kb"):
        return 1024
    if "MB" in name:
        return 1024**2
    if "byt" in name:
        return 1
    return None


def human_value(text: str, name: str) -> float | None:
    """The value of a ``sar -h`` field (``1.4G``, ``46.1%``) in the column's own
    unit; None when *text* has no unit, or one the column cannot have."""
    m = _HUMAN_RE.match(text)
    if m is None:
        return None
    number, unit = float(m.group(1).replace(",", ".")), m.group(2)
    if unit == "%":
        return number if "%" in name or name.startswith("pct") else None
    per = _column_bytes(name)
    if per is None:
        return None
    return number * 1024 ** _POWER[unit] / per


def read_number(raw: Any, name: str) -> tuple[float, bool]:
    """A field as float and whether it had a ``sar -h`` unit; ValueError if it is
    no number."""
    text = str(raw).strip()
    if "," in text and "." not in text:
        text = text.replace(",", ".")  # decimal comma of some locales
    try:
        return float(text), False
    except ValueError:
        value = human_value(text, name)
        if value is None:
            raise
        return value, True


def is_numeric(token: str) -> bool:
    """Whether a token of a sar line is a value (a header holds none)."""
    try:
        float(token.replace(",", "."))
    except ValueError:
        return _HUMAN_RE.match(token) is not None
    return True


def is_zero(raw: Any) -> bool:
    text = str(raw).replace(",", ".")
    m = _HUMAN_RE.match(text)
    try:
        return float(m.group(1) if m else text) == 0.0
    except ValueError:
        return False


def whole_disks(devices: dict[str, tuple[float, float]]) -> list[str]:
    """Devices whose I/O is not counted again in another listed device."""
    names = set(devices)
    keep = []
    for dev in names:
        if _SKIPPED_DEVICE_RE.match(dev):
            continue
        m = _DEVNUM_RE.match(dev)
        if m:
            major, minor = int(m.group(1)), int(m.group(2))
            if (
                major in _SCSI_DISK_MAJORS
                and minor % 16
                and f"dev{major}-{minor - minor % 16}" in names
            ):
                continue
        else:
            p = _PARTITION_RE.match(dev)
            if p and p.group("parent") in names:
                continue
        keep.append(dev)
    stacked = [d for d in keep if _STACKED_DEVICE_RE.match(d) or _stacked_devnum(d)]
    if len(stacked) < len(keep):
        keep = [d for d in keep if d not in stacked]
    return sorted(keep)


def _stacked_devnum(dev: str) -> bool:
    m = _DEVNUM_RE.match(dev)
    return m is not None and int(m.group(1)) in _STACKED_MAJORS


# Interfaces whose traffic also crosses another listed interface: bridges
# (docker0, br-*, virbr0, cni0, lxcbr0), their ports (veth*, vnet*, tap*,
# virbr0-nic), tunnels and overlays (tun, wg, vxlan, flannel, cali, cilium, genev,
# weave, kube-ipvs); named as Docker, libvirt, LXC/LXD, CNI plugins and the kernel
# name them.
_VIRTUAL_IFACE_RE = re.compile(
    r"^(?:veth|docker|br-|br\d|virbr|vnet|tap|tun|wg|cni|flannel|cali|cilium|"
    r"vxlan|genev|weave|kube-|lxcbr|lxdbr|podman)"
)


def physical_interfaces(names: Iterable[str]) -> tuple[list[str], list[str]]:
    """(counted, left out) of the interfaces of one interval, ``lo`` aside: bridges,
    their ports, tunnels and VLANs of a listed parent (``eth0.100``) are left out
    while another interface is listed, as their traffic crosses it too."""
    listed = [n for n in names if n != "lo"]
    virtual = [
        n for n in listed
        if _VIRTUAL_IFACE_RE.match(n) or ("." in n and n.split(".")[0] in listed)
    ]  # fmt: skip
    counted = [n for n in listed if n not in virtual]
    return (counted, virtual) if counted else (listed, [])
