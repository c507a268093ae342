"""Shipped tables for migration readiness and carbon (issue 30).

- ``guest_os_support.csv``: per target (``vsphere-8``, the current host's
  hypervisor, and ``openshift-virtualization-4``), regular expressions over the
  guest OS name as vSphere writes it (``Microsoft Windows Server 2003 (32-bit)``)
  with the support level (``supported``, ``legacy``, ``unsupported``) and the
  vendor's list it is read from or is to be checked in, and a ``status``:
  ``assumed`` where the row was not verified against that list (warned when
  it decides a VM). An OS no row matches is *unknown* for that target, never
  supported.
- ``grid_intensity.csv``: location-based grid emission intensity
  [gCO2e/kWh] by country, with year, source and ``status`` (``verified``, or
  ``assumed``: warned when used): Ember's 2023 figures (via Our World in Data
  and Statista), and the U.S. EIA's 2022 figure for the United States.
- The embodied emissions of a rack server (:func:`embodied_kgco2e`): Cloud
  Carbon Footprint's coefficients [1]_, from the Dell PowerEdge R740 life-cycle
  assessment: 1000 kgCO2e for a one-socket server with 16 GB of memory and no
  local disks, plus 100 kgCO2e per further CPU and 533 kgCO2e per 384 GB of
  memory beyond 16 GB.

.. [1] Cloud Carbon Footprint, *Methodology: embodied emissions* and
   ``cloud-carbon-coefficients/ccfcoef/constants.py`` (BASE_MANUFACTURING_EMISSIONS
   = 1000, CPU_MANUFACTURING_EMISSIONS = 100, DRAM 533 kgCO2e per 384 GB).
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from functools import lru_cache

from vsizer.catalogs._csv import shipped_path
from vsizer.errors import ConfigError

__all__ = [
    "DEFAULT_TARGET",
    "EMBODIED_SOURCE",
    "GridIntensity",
    "OsSupport",
    "embodied_kgco2e",
    "grid_intensity",
    "grid_regions",
    "guest_os_support",
    "os_targets",
]

#: The current host's hypervisor: readiness is checked for it unless a target is named.
DEFAULT_TARGET = "vsphere-8"
EMBODIED_SOURCE = (
    "Cloud Carbon Footprint embodied-emissions coefficients (ccfcoef/constants.py, "
    "from the Dell PowerEdge R740 LCA): 1000 kgCO2e base (1 CPU, 16 GB, no disks) "
    "+ 100 per further CPU + 533 per 384 GB of memory beyond 16 GB; local disks "
    "not counted"
)
_BASE_KG, _CPU_KG, _DRAM_KG_PER_GB, _DRAM_FREE_GB = 1000.0, 100.0, 533.0 / 384.0, 16.0


@dataclass(frozen=True)
class OsSupport:
    """A guest OS's support on a target: level and the list it comes from."""

    level: str  # 'supported', 'legacy', 'unsupported' or 'unknown'
    source: str
    assumed: bool = False  # the row is not verified against the vendor's list


@dataclass(frozen=True)
class GridIntensity:
    region: str
    gco2_kwh: float
    year: int
    source: str
    assumed: bool = False  # no primary figure verified (the table's status column)


@lru_cache(maxsize=1)
def _os_rows() -> tuple[tuple[str, re.Pattern[str], str, str, bool], ...]:
    text = shipped_path("guest_os_support.csv").read_text(encoding="utf-8")
    return tuple(
        (r["target"], re.compile(r["os_pattern"], re.IGNORECASE), r["support"], r["source"],
         (r.get("status") or "").strip() == "assumed")
        for r in csv.DictReader(io.StringIO(text))
    )


def os_targets() -> list[str]:
    """The targets the guest OS table knows."""
    return sorted({r[0] for r in _os_rows()})


def guest_os_support(target: str, os_name: str | None) -> OsSupport:
    """The support level of ``os_name`` on ``target`` (first matching row).

    Raises
    ------
    ConfigError
        A target the table does not have.
    """
    key = target.strip().casefold()
    rows = [r for r in _os_rows() if r[0] == key]
    if not rows:
        raise ConfigError(
            f"--target: expected one of {', '.join(os_targets())} (guest OS support "
            f"table); found '{target}'"
        )
    if not os_name:
        return OsSupport("unknown", "no guest OS in the export")
    for _, pattern, level, source, assumed in rows:
        if pattern.search(os_name):
            return OsSupport(level, source, assumed)
    return OsSupport("unknown", f"'{os_name}' is not in the {key} guest OS table")


@lru_cache(maxsize=1)
def _grid_rows() -> dict[str, GridIntensity]:
    text = shipped_path("grid_intensity.csv").read_text(encoding="utf-8")
    return {
        r["region"].casefold(): GridIntensity(
            r["region"], float(r["gco2_kwh"]), int(r["year"]), r["source"],
            (r.get("status") or "").strip() == "assumed",
        )
        for r in csv.DictReader(io.StringIO(text))
    }


def grid_regions() -> list[str]:
    """The countries and regions of the shipped grid intensity table (its order)."""
    return [g.region for g in _grid_rows().values()]


def grid_intensity(region: str) -> GridIntensity:
    """The shipped grid intensity of a country or region (case-insensitive).

    Raises
    ------
    ConfigError
        A region the table does not have (the message lists them).
    """
    found = _grid_rows().get(region.strip().casefold())
    if found is None:
        names = ", ".join(g.region for g in _grid_rows().values())
        raise ConfigError(
            f"--grid-region: expected one of {names} (or give --grid-gco2-kwh); "
            f"found '{region}'"
        )
    return found


def embodied_kgco2e(sockets: int, mem_gib: float) -> float:
    """Embodied emissions of one rack server [kgCO2e] (module docstring)."""
    extra_mem = max(mem_gib - _DRAM_FREE_GB, 0.0)
    return _BASE_KG + _CPU_KG * max(sockets - 1, 0) + _DRAM_KG_PER_GB * extra_mem
