"""Plausible ranges of the per-server numbers every inventory reader produces.

A number read from a file is checked once, in its canonical unit
(``docs/nomenclature.md``), by :func:`check`: it must be finite and lie within
the field's hard limits (:data:`FIELD_RANGES`), else the reader reports an error
line; a value within the limits but outside the field's usual band makes a
plan warning that names the band. The limits are wide on purpose: they catch
a wrong unit (memory in bytes read as GiB, power in mW) and overflowing cells
(``1e400``, ``1e20`` sockets), not large servers. The table is published in
``docs/reliability.md``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["FIELD_RANGES", "FieldRange", "check", "warning_message"]

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


def check(field: str, value: float) -> tuple[str | None, bool]:
    """Check one canonical value: ``(error, unusual)``.

    ``error`` is the *expected* part of an error line (``"a finite number"``,
    ``"a memory size from 0 to 65,536 GiB (64 TiB)"``) or ``None``; ``unusual``
    is true for an accepted value outside the usual band. A field without an
    entry in :data:`FIELD_RANGES` is only checked to be finite.
    """
    x = float(value)
    if not math.isfinite(x):
        return "a finite number", False
    r = FIELD_RANGES.get(field)
    if r is None:
        return None, False
    if not r.low <= x <= r.high:
        return f"{r.label} from {r.limits_text()}", False
    return None, not r.usual_low <= x <= r.usual_high


def warning_message(field: str) -> str:
    """The plan warning for values of ``field`` outside the usual band."""
    r = FIELD_RANGES[field]
    return (
        f"{field} outside the usual {r.usual_text()} (the limits are "
        f"{r.limits_text()}): check the unit and the value of these servers."
    )
