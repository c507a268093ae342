"""Alignment of tidy series to one grid: hand-computed cases."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from vsizer.series.align import align


def tidy(rows):
    df = pd.DataFrame(rows, columns=["server", "timestamp", "metric", "value"])
    df["timestamp"] = pd.to_datetime(df["timestamp"], utc=True)
    df["unit"] = "fraction"
    return df


def test_mean_and_max_within_a_step():
    df = tidy(
        [
            ("a", "2024-01-01T00:00:00Z", "cpu_util", 0.2),
            ("a", "2024-01-01T00:02:00Z", "cpu_util", 0.4),
            ("a", "2024-01-01T00:05:00Z", "cpu_util", 0.5),
        ]
    )
    m = align(df, step="5min")
    assert_allclose(m.values["cpu_util"], [[0.3, 0.5]])
    assert_allclose(align(df, step="5min", how="max").values["cpu_util"], [[0.4, 0.5]])
    assert m.index[0] == pd.Timestamp("2024-01-01T00:00:00Z")
    assert m.units == {"cpu_util": "fraction"}


def test_time_zones_normalized_to_utc():
    df = tidy([("a", "2024-01-01T09:00:00+09:00", "cpu_util", 0.1)])
    assert align(df).index[0] == pd.Timestamp("2024-01-01T00:00:00Z")


def test_gaps_flagged_not_invented_and_short_gaps_filled_on_request():
    # samples at steps 0, 1, 4 (gap of 2 steps), 8 (gap of 3 steps)
    t0 = pd.Timestamp("2024-01-01T00:00:00Z")
    rows = [
        ("a", t0 + pd.Timedelta(minutes=5 * k), "cpu_util", v)
        for k, v in [(0, 0.1), (1, 0.2), (4, 0.5), (8, 0.9)]
    ]
    m = align(tidy(rows))
    assert np.isnan(m.values["cpu_util"]).sum() == 5
    assert m.report["gaps"] == {"cpu_util": 5} and m.report["filled"] == {"cpu_util": 0}
    f = align(tidy(rows), fill="ffill", max_fill=2)
    assert_allclose(f.values["cpu_util"][0, :5], [0.1, 0.2, 0.2, 0.2, 0.5])
    assert np.isnan(f.values["cpu_util"][0, 5:8]).all()  # 3-step gap stays a gap
    assert f.report["filled"] == {"cpu_util": 2} and f.report["gaps"] == {"cpu_util": 3}


def test_overlap_window_and_clip():
    t0 = pd.Timestamp("2024-01-01T00:00:00Z")
    rows = [("a", t0 + pd.Timedelta(minutes=5 * k), "cpu_util", 0.1) for k in range(6)]
    rows += [
        ("b", t0 + pd.Timedelta(minutes=5 * k), "cpu_util", 0.2) for k in range(3, 10)
    ]
    m = align(tidy(rows))
    assert m.n_steps == 10
    assert m.overlap == (t0 + pd.Timedelta(minutes=15), t0 + pd.Timedelta(minutes=25))
    c = align(tidy(rows), clip="overlap")
    assert c.n_steps == 3 and c.servers == ["a", "b"]
    assert not np.isnan(c.values["cpu_util"]).any()


def test_parameter_errors():
    df = tidy([("a", "2024-01-01T00:00:00Z", "cpu_util", 0.1)])
    with pytest.raises(
        ValueError,
        match="The 'how' parameter of align must be one of 'mean', 'max'. Got 'median' instead.",
    ):
        align(df, how="median")
    with pytest.raises(
        ValueError, match="The 'step' parameter of align must be positive"
    ):
        align(df, step="0min")
