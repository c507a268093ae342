"""Declared metadata of the storage fields of :class:`~vsizer.study.config.Rules`
(TOML section ``[storage]``): keyword arguments of :func:`~vsizer.study.config.rule`,
kept here so the rules table stays one declaration per field in ``config.py``.

A scenario TOML::

    [storage]
    mode = "hyperconverged"   # or "external" (an array: totals only)
    protection = "mirror"     # none, raid1, raid10, raid5[-N+1], raid6[-N+2], ec-K+M, mirror
    ftt = 1                   # failures to tolerate of "mirror" (copies = ftt + 1)
    provisioning = "thin"     # "thick": raw for the provisioned size
    thin_ratio = 2.0          # provisioned / used for VMs whose use is unknown
    slack = 0.25              # share of raw capacity kept free
    host_raw_gib = 15360      # raw disk per host (hyperconverged)
    read_share = 0.7          # share of I/Os that are reads
"""

from __future__ import annotations

from typing import Any

from vsizer._validation import Interval, OneOf
from vsizer.models.storage import PROTECTION

#: Storage modes: disks in the hosts (vSAN-like) or an external array.
STORAGE_MODES = ("external", "hyperconverged")

#: Field name -> keyword arguments of ``rule(...)``.
STORAGE_RULES: dict[str, dict[str, Any]] = {
    "storage_mode": dict(
        help="Storage: external (an array; totals) or hyperconverged (disks in the "
        "hosts bound the host count). Default external.",
        section="storage", key="mode", flag="--storage",
        constraint=OneOf(STORAGE_MODES)),
    "protection": dict(
        help="Data protection: none, raid1, raid10, raid5 (4+1), raid5-N+1, raid6 "
        "(4+2), raid6-N+2, ec-K+M, mirror (ftt + 1 copies; vSAN FTT=1 RAID-5 is "
        "raid5-3+1). Default raid5 for external, mirror for hyperconverged.",
        section="storage", flag="--protection", constraint=PROTECTION),
    "ftt": dict(
        help="Failures to tolerate of the 'mirror' protection (copies = ftt + 1). "
        "Default 1.",
        section="storage", flag="--ftt", constraint=Interval(int, 0, 3)),
    "provisioning": dict(
        help="thin (raw for the used space) or thick (for the provisioned size). "
        "Default thin.",
        section="storage", flag="--provisioning", constraint=OneOf(("thin", "thick"))),
    "thin_ratio": dict(
        help="Provisioned / used space of VMs whose used space is unknown. Default: "
        "they count at their provisioned size.",
        section="storage", flag="--thin-ratio", constraint=Interval(float, 1, 1000)),
    "slack": dict(
        help="Share of raw capacity kept free [fraction]. Default 0.25.",
        section="storage", flag="--slack", constraint=Interval(float, 0, 1, "left")),
    "host_raw_gib": dict(
        help="Raw disk per host [GiB] (hyperconverged): bounds the host count.",
        section="storage", flag="--host-raw-gib",
        constraint=Interval(float, 0, 1e9, "right")),
    "read_share": dict(
        help="Share of disk I/Os that are reads [fraction]. Default 0.67 (the "
        "67 %-read access specifications of the disk model).",
        section="storage", flag="--read-share", constraint=Interval(float, 0, 1)),
}
