"""Carbon before and after a plan (issue 30).

Operational emissions, location-based::

    kgCO2e/yr = annual kWh x grid intensity [gCO2e/kWh] / 1000

from the plan's ``power.annual_kwh_before`` and ``annual_kwh_after`` (PUE
already applied by the plan). The intensity is given (``--grid-gco2-kwh``) or
looked up by country in the shipped table (Ember 2023, U.S. EIA 2022;
:mod:`vsizer.catalogs.migration_data`).

Embodied emissions of the new hosts (:func:`~vsizer.catalogs.migration_data.
embodied_kgco2e`, Cloud Carbon Footprint's coefficients) are amortized over
``years``::

    net saving/yr = (before - after) - embodied / years
    payback year  = ceil(embodied / (before - after))   (None when no saving)

The old hosts' embodied emissions are spent already (sunk) and not counted.
"""

from __future__ import annotations

import math
from typing import Any

from vsizer.catalogs.migration_data import (
    EMBODIED_SOURCE,
    embodied_kgco2e,
    grid_intensity,
)
from vsizer.errors import ConfigError

__all__ = ["carbon", "carbon_warnings", "plan_carbon"]


def carbon(
    doc: dict[str, Any], *, gco2_kwh: float | None = None, region: str | None = None,
    years: int | None = None,
) -> dict[str, Any]:
    """The ``carbon`` section from a plan document (module docstring).

    Raises
    ------
    ConfigError
        Neither an intensity nor a region, a bad value, or no energy in the plan.
    """
    assumed = False
    if gco2_kwh is not None:
        if not math.isfinite(gco2_kwh) or gco2_kwh < 0:
            raise ConfigError(f"--grid-gco2-kwh: expected a non-negative number; "
                              f"found {gco2_kwh}")
        factor, source = float(gco2_kwh), "given (--grid-gco2-kwh)"
        region = None  # the number wins over a region (warned, carbon_warnings)
    elif region is not None:
        g = grid_intensity(region)
        factor, source, assumed = g.gco2_kwh, f"{g.region} {g.year}: {g.source}", g.assumed
        region = g.region
    else:
        raise ConfigError("carbon: expected --grid-gco2-kwh or --grid-region")
    power = doc.get("power") or {}
    years = int(years or power.get("years") or 5)
    if years < 1:
        raise ConfigError(f"--years: expected a whole number >= 1; found {years}")
    before, after = power.get("annual_kwh_before"), power.get("annual_kwh_after")
    if after is None:
        raise ConfigError("plan JSON: power.annual_kwh_after is empty: no energy to convert")
    hm = doc.get("host_model") or {}
    hosts = int((doc.get("summary") or {}).get("hosts") or 0)
    per_host = embodied_kgco2e(int(hm.get("sockets") or 1), float(hm.get("mem_gib") or 0))
    embodied = hosts * per_host
    op_before = None if before is None else before * factor / 1000.0
    op_after = after * factor / 1000.0
    saving = None if op_before is None else op_before - op_after
    return {
        "grid_gco2_kwh": factor,
        "grid_source": source,
        "grid_region": region,
        "grid_assumed": assumed,
        "basis": "location-based",
        "years": years,
        "annual_kwh_before": before,
        "annual_kwh_after": after,
        "operational_kgco2e_before": op_before,
        "operational_kgco2e_after": op_after,
        "operational_saving_kgco2e": saving,
        "new_hosts": hosts,
        "embodied_kgco2e_per_host": per_host,
        "embodied_kgco2e": embodied,
        "embodied_kgco2e_per_year": embodied / years,
        "embodied_source": EMBODIED_SOURCE,
        "net_saving_kgco2e_per_year": None if saving is None else saving - embodied / years,
        "payback_year": (math.ceil(embodied / saving) if saving and saving > 0 else None),
        "sunk": "the old hosts' embodied emissions are spent already: not counted",
    }


def carbon_warnings(section: dict[str, Any], both_given: bool = False) -> list[dict[str, Any]]:
    """The estimated and assumed values of a ``carbon`` section, as counted
    warnings (``code``, ``count``, ``message``)."""
    out = [{"code": "carbon_embodied_estimated", "count": 1, "message":
            f"embodied emissions of a new host estimated at "
            f"{section['embodied_kgco2e_per_host']:,.0f} kgCO2e from Cloud Carbon "
            "Footprint's coefficients (Dell PowerEdge R740 LCA; local disks not "
            "counted), not from the host model's own life-cycle assessment"}]
    if section.get("grid_assumed"):
        out.append({"code": "carbon_grid_assumed", "count": 1, "message":
                    f"grid intensity {section['grid_gco2_kwh']:g} gCO2e/kWh assumed: "
                    f"{section['grid_source']} (no primary figure verified; give "
                    "--grid-gco2-kwh)"})
    if both_given:
        out.append({"code": "carbon_grid_both_given", "count": 1, "message":
                    "--grid-gco2-kwh and --grid-region both given: the number used"})
    return out


def plan_carbon(
    doc: dict[str, Any], gco2_kwh: float | None, region: str | None
) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """The plan's ``carbon`` section and its warnings (plan warning shape:
    ``code``, ``message``, ``servers``); (None, []) when no grid is given: no
    intensity is assumed, it differs more than tenfold between countries."""
    if gco2_kwh is None and region is None:
        return None, []
    if (doc.get("power") or {}).get("annual_kwh_after") is None:
        return None, [{"code": "carbon_not_computed", "servers": [], "message":
                       "carbon: the plan has no energy after (power.annual_kwh_after)"}]
    section = carbon(doc, gco2_kwh=gco2_kwh, region=region)
    notes = carbon_warnings(section, gco2_kwh is not None and region is not None)
    return section, [{"code": w["code"], "message": w["message"], "servers": []}
                     for w in notes]
