"""Platform scenarios (DESIGN.md §6.4), host power helper, and model docstrings."""

from __future__ import annotations

import inspect

import pytest

from vsizer.errors import CatalogLookupError
from vsizer.models import cpu, disk, network, platform, power, queueing


@pytest.mark.parametrize(
    ("name", "factor"),
    [
        ("hyperv-r2-java", 1.161),
        ("hyperv-r2-db-1core", 1.44),
        ("hyperv-r2-db-2core", 1.32),
        ("xeon5500-java", 1.405),
        ("xeon5500-db-2core", 1.76),
        ("xeon5500-tiles-light", 1.61),
        ("xeon5500-tiles-full", 2.70),
        ("db-2vcpu-xeon5500-old", 1.92),
        ("db-2vcpu-xeon5500-new", 1.75),
        ("db-2vcpu-xeon5400", 1.44),
        ("hyperthreading-x5570", 1.038),
        ("power-plan-high-performance", 1.36),
        ("power-plan-balanced-min-100", 1.26),
    ],
)
def test_published_factors(name, factor):
    assert platform.platform_factor(name) == pytest.approx(factor)
    assert platform.SCENARIOS[name].source.startswith("published platform comparisons")


def test_power_side_of_scenarios():
    s = platform.SCENARIOS
    assert s["hyperthreading-x5570"].power_ratio == pytest.approx(1.094)
    assert s["power-plan-high-performance"].power_delta_w == 16
    assert s["power-plan-balanced-min-100"].power_delta_w == 10
    assert s["hyperv-r2-web"].lower_bound


def test_unknown_scenario_names_where_to_look():
    with pytest.raises(CatalogLookupError, match="unknown platform scenario 'vmware7'.*vsizer model platform"):
        platform.platform_factor("vmware7")


def test_host_power_picks_curve_or_linear():
    curve = [50, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150]
    assert float(power.host_power_w(0.55, 0, 0, curve)) == pytest.approx(105)
    assert float(power.host_power_w(0.5, 100, 300)) == pytest.approx(200)
    # existing signatures keep working
    assert float(power.linear(0.5, 100, 300)) == pytest.approx(200)
    assert float(power.specpower_curve(1.2, curve)) == pytest.approx(150)


MODEL_FUNCTIONS = [
    f
    for module in (cpu, disk, network, queueing, platform, power)
    for name, f in inspect.getmembers(module, inspect.isfunction)
    if f.__module__ == module.__name__ and not name.startswith("_")
]


@pytest.mark.parametrize("func", MODEL_FUNCTIONS, ids=lambda f: f"{f.__module__}.{f.__name__}")
def test_every_model_function_cites_references_and_a_validity_range(func):
    doc = inspect.getdoc(func) or ""
    assert "References\n----------" in doc, func.__name__
    assert ".. [1]" in doc or ".. [2]" in doc, func.__name__
    assert "Validity:" in doc, func.__name__
    assert "Notes\n-----" in doc, func.__name__
