"""Energy and money arithmetic (DESIGN §7), hand-computed."""

from numpy.testing import assert_allclose

from vsizer.study import economics as cost


def test_annual_cost_arithmetic():
    # 1,000 W for a year = 8,760 kWh; at 30 per kWh and PUE 1.5: 8,760 x 30 x 1.5 = 394,200.
    assert_allclose(cost.annual_energy_kwh(1000.0), 8760.0)
    assert_allclose(cost.annual_energy_kwh(1000.0, pue=1.5), 13140.0)
    assert_allclose(cost.annual_cost(1000.0, 30.0, pue=1.5), 394200.0)


def test_saving_over_years():
    # Before 5 kW, after 1.2 kW at 0.2/kWh: (5000-1200)/1000*8760*0.2 = 6657.6 per year.
    saving = cost.annual_cost(5000.0, 0.2) - cost.annual_cost(1200.0, 0.2)
    assert_allclose(saving, 6657.6)
    assert_allclose(cost.saving_over_years(saving, 5), 33288.0)


def test_design_section7_low_power_blade():
    # DESIGN §7: L5520 blade 135 W max vs E5405 224 W: 89 W less at full load
    # = 779.64 kWh a year.
    assert_allclose(cost.annual_energy_kwh(224.0 - 135.0), 779.64)
