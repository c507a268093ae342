"""Declared metadata of the carbon fields of :class:`~vsizer.study.config.Rules`
(TOML section ``[power]``, issue 30): keyword arguments of
:func:`~vsizer.study.config.rule`, kept here so ``config.py`` stays one line per field.

A scenario TOML::

    [power]
    grid_region = "Germany"    # a country of vsizer/catalogs/data/grid_intensity.csv
    # grid_gco2_kwh = 381      # or the intensity itself [gCO2e/kWh], location-based

Neither given: the plan has no ``carbon`` section (no grid is assumed: the
intensity differs more than tenfold between countries).
"""

from __future__ import annotations

from typing import Any

from vsizer._validation import Interval, Satisfies


def _known_region(value: object) -> bool:
    from vsizer.catalogs.migration_data import grid_regions

    return isinstance(value, str) and value.strip().casefold() in {
        r.casefold() for r in grid_regions()}


#: Field name -> keyword arguments of ``rule(...)``.
CARBON_RULES: dict[str, dict[str, Any]] = {
    "grid_gco2_kwh": dict(
        help="Grid emission intensity [gCO2e/kWh], location-based: adds operational "
        "and embodied carbon before and after (the 'carbon' section).",
        section="power", flag="--grid-gco2-kwh", constraint=Interval(float, 0, None)),
    "grid_region": dict(
        help="Country for the grid intensity from the shipped table (e.g. Germany, "
        "'United States', World) instead of --grid-gco2-kwh.",
        section="power", flag="--grid-region",
        constraint=Satisfies(
            _known_region, "a country or region of the shipped grid intensity table "
            "(vsizer/catalogs/data/grid_intensity.csv), e.g. 'Germany' or 'World'",
            valid="Germany", invalid="Atlantis")),
}
