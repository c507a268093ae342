"""Per-VM demand curves from aligned series: hand-computed conversions and gap policy."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from vsizer._validation import quoted_list
from vsizer.series.align import align
from vsizer.series.demand import demand_curves, downsample_max, series_max

T0 = pd.Timestamp("2026-01-05T00:00:00Z")


def aligned(rows):
    data = pd.DataFrame(
        [(s, T0 + i * pd.Timedelta("5min"), m, v, "u") for s, m, values in rows
         for i, v in enumerate(values) if v is not None],
        columns=["server", "timestamp", "metric", "value", "unit"],
    )
    return align(data, step="5min")


def test_cpu_mem_conversions_and_flat_fallback():
    a = aligned([
        ("a", "cpu_util", [0.5, 0.25, 0.0]),
        ("b", "cpu_mhz", [500.0, 1000.0, 250.0]),
        ("b", "cpu_capacity_mhz", [2000.0, 2000.0, 2000.0]),
        ("a", "mem_used_gib", [2.0, 3.0, 4.0]),
    ])
    curves, report = demand_curves(
        a, ["a", "b", "c"], ("cpu", "mem", "vcpu"),
        flat=np.array([[9.0, 9.0, 2.0], [9.0, 8.0, 4.0], [7.0, 6.0, 1.0]]),
        cpu_capacity=np.array([100.0, 40.0, 10.0]),
        capacity_mhz=np.array([np.nan, np.nan, np.nan]),
        mem_gib=np.array([16.0, 8.0, 4.0]),
        mem_overhead_gib=np.array([0.5, 0.25, 0.0]),
    )
    # a: util x capacity; b: MHz / provisioned MHz x capacity; c: no series -> flat
    np.testing.assert_allclose(curves[:, :, 0], [[50, 25, 0], [10, 20, 5], [7, 7, 7]])
    # memory: used + overhead for a; configured-size flat value for b and c
    np.testing.assert_allclose(curves[:, :, 1], [[2.5, 3.5, 4.5], [8, 8, 8], [6, 6, 6]])
    np.testing.assert_allclose(curves[:, :, 2], [[2] * 3, [4] * 3, [1] * 3])
    assert report["from_series"] == {"cpu": 2, "mem": 1, "vcpu": 0}
    assert report["flat"] == {"cpu": 1, "mem": 2, "vcpu": 3}


@pytest.mark.parametrize("how,filled", [("peak", 0.8), ("zero", 0.0)])
def test_gap_steps_are_filled_and_counted(how, filled):
    a = aligned([("a", "cpu_util", [0.2, 0.8, None, 0.4]), ("b", "cpu_util", [0.1] * 4)])
    curves, report = demand_curves(
        a, ["a", "b"], ("cpu",), flat=np.zeros((2, 1)),
        cpu_capacity=np.array([1.0, 1.0]), capacity_mhz=np.full(2, np.nan),
        mem_gib=np.ones(2), mem_overhead_gib=np.zeros(2), gap_fill=how,
    )
    np.testing.assert_allclose(curves[0, :, 0], [0.2, 0.8, filled, 0.4])
    assert report["gap_steps_filled"] == {"cpu": 1}


def test_configured_memory_basis_ignores_the_used_curve():
    a = aligned([("a", "mem_used_gib", [1.0, 2.0])])
    curves, _ = demand_curves(
        a, ["a"], ("mem",), flat=np.array([[16.5]]), cpu_capacity=np.ones(1),
        capacity_mhz=np.full(1, np.nan), mem_gib=np.array([16.0]),
        mem_overhead_gib=np.array([0.5]), mem_basis="configured",
    )
    np.testing.assert_allclose(curves[0, :, 0], [16.5, 16.5])


def test_series_max_and_downsample_max():
    a = aligned([("a", "mem_capacity_gib", [4.0, 8.0])])
    np.testing.assert_allclose(series_max(a, "mem_capacity_gib", ["a", "x"]), [8.0, np.nan])
    values = np.array([[1.0], [5.0], [2.0], [3.0], [4.0]])
    down, stride = downsample_max(values, 2)  # 5 steps -> blocks of 3 (last padded)
    assert stride == 3
    np.testing.assert_allclose(down[:, 0], [5.0, 4.0])
    same, one = downsample_max(values, 10)
    assert one == 1 and same is values


def test_quoted_list():
    assert quoted_list(["a", "b"]) == "'a', 'b'"
    assert quoted_list(list("abcdefg"), limit=2) == "'a', 'b' and 5 more"
