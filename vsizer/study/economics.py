"""Energy and money (DESIGN §7).

Annual energy [kWh] = average power [W] / 1000 x 8760 h x PUE; annual cost =
energy x price per kWh. PUE (power usage effectiveness, The Green Grid) scales
IT power to facility power; 1.0 counts the IT load only.
"""

from __future__ import annotations

HOURS_PER_YEAR = 8760.0


def annual_energy_kwh(power_w: float, pue: float = 1.0) -> float:
    """Energy drawn in a year at constant average ``power_w`` [W] -> [kWh]."""
    return power_w / 1000.0 * HOURS_PER_YEAR * pue


def annual_cost(power_w: float, price_kwh: float, pue: float = 1.0) -> float:
    """Cost of a year at ``power_w`` [W] and ``price_kwh`` [currency/kWh]."""
    return annual_energy_kwh(power_w, pue) * price_kwh


def saving_over_years(annual_saving: float, years: int) -> float:
    """Undiscounted saving over the system's life."""
    return annual_saving * years
