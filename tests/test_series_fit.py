"""Placement on demand curves: hand-computed cases and a rule check (hypothesis)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_array_equal

from vsizer.placement.series_fit import (
    count_bound,
    first_fit_series,
    hosts_needed_peak_sum,
    replay,
    series_lower_bounds,
)


def test_peaks_that_do_not_coincide_share_a_host():
    # DESIGN §3: two servers that each peak at 80 % at different hours fit together
    # where their peak sum says they do not. Host capacity 1, ceiling 0.9.
    d = np.full((2, 24, 1), 0.05)
    d[0, 9, 0] = 0.8
    d[1, 21, 0] = 0.8
    assign, hosts = first_fit_series(d, np.array([0.9]))
    assert hosts == 1
    assert_array_equal(assign, [0, 0])
    assert hosts_needed_peak_sum(d, np.array([0.9])) == 2
    assert series_lower_bounds(d, np.array([0.9])) == {
        "series": [1], "peak_sum": [2], "l2": [1]
    }


def test_coinciding_peaks_do_not_share():
    d = np.full((2, 24, 1), 0.05)
    d[:, 9, 0] = 0.8
    _, hosts = first_fit_series(d, np.array([0.9]))
    assert hosts == 2


def test_quantile_ignores_the_rarest_steps():
    # Summed load exceeds 0.9 at 1 step of 100: fits at p95, not at max.
    d = np.full((2, 100, 1), 0.3)
    d[:, 0, 0] = 0.5
    assert first_fit_series(d, np.array([0.9]))[1] == 2
    assert first_fit_series(d, np.array([0.9]), quantile=0.95)[1] == 1


def test_every_dimension_counts():
    d = np.zeros((2, 3, 2))
    d[:, :, 0] = 0.1  # cpu small
    d[:, :, 1] = 0.5  # memory binds on every step
    assert first_fit_series(d, np.array([0.6, 0.6]))[1] == 2


def test_anti_affinity_on_curves():
    d = np.full((2, 4, 1), 0.01)
    assert first_fit_series(d, np.array([0.6]), groups=np.array([0, 0]))[1] == 2


def test_replay_counts_steps_over_ceiling_and_full():
    d = np.zeros((2, 4, 1))
    d[0, :, 0] = [0.5, 0.7, 0.2, 1.1]
    d[1, :, 0] = [0.0, 0.0, 0.5, 0.0]
    r = replay(d, np.array([0, 0]), 1, np.array([1.0]), np.array([0.6]))
    assert r == {"over_ceiling": [3], "over_100": [1]}


@settings(max_examples=80, deadline=None)
@given(
    st.integers(1, 12),
    st.integers(1, 20),
    st.integers(1, 2),
    st.sampled_from([0.5, 0.6, 1.0]),
    st.integers(0, 2**31 - 1),
)
def test_series_placement_never_exceeds_the_limit_at_any_step(n, t, d, ceiling, seed):
    rng = np.random.default_rng(seed)
    dem = rng.uniform(0, ceiling, size=(n, t, d))
    assign, hosts = first_fit_series(dem, np.full(d, ceiling))
    assert ((assign >= 0) & (assign < hosts)).all()
    r = replay(dem, assign, hosts, np.ones(d), np.full(d, ceiling))
    assert sum(r["over_ceiling"]) == 0
    lb = max(series_lower_bounds(dem, np.full(d, ceiling))["series"])
    assert lb <= hosts <= n


def test_failover_on_curves_uses_non_coinciding_peaks():
    from tests.placement_helpers import problem
    from vsizer.placement import failover
    from vsizer.placement.result import Placement

    # 3 hosts; VM0 on host 0 peaks 0.6 at step 0; host 1 runs 0.5 flat except 0.9 at step 0;
    # host 2 runs 0.3 flat. Peak-sum says host 2 (0.3 + 0.6 = 0.9); host 1 would hit 1.5.
    d = np.zeros((3, 4, 1))
    d[0, :, 0] = [0.6, 0.1, 0.1, 0.1]
    d[1, :, 0] = [0.9, 0.5, 0.5, 0.5]
    d[2, :, 0] = 0.3
    p = problem(d.max(axis=1).tolist(), [1.0], ceiling=1.0, failures=1)
    pl = Placement(p, 3, np.array([0, 1, 2]), "feasible", "given")
    rows = failover.check(pl, d).detail
    first = rows[0]
    assert first.failed == ["p-01"] and first.moves == [{"vm": "vm0", "to": "p-03"}]
    assert first.unplaced == [] and first.steps_over_100 == 0
    assert abs(first.worst_util - 0.9) < 1e-6
    # Host 1 failing: VM1 (0.9 at step 0) + host 2 (0.3) = 1.2 > 1 -> over on 1 step.
    second = rows[1]
    assert second.failed == ["p-02"]
    assert second.unplaced == ["vm1"]
    assert abs(second.worst_util - 1.2) < 1e-6 and second.worst_step == 0
    assert second.steps_over_100 == 1


def test_count_bound_counts_vms_a_host_holds_in_a_flat_dimension():
    # memory flat: 10 VMs of 1 GiB on 2.5 GiB usable hold 2 a host -> 5 hosts (sum: 4)
    cpu = np.tile(np.array([0.1, 0.2]), (10, 1))
    demand = np.stack([cpu, np.ones_like(cpu)], axis=2)
    assert count_bound(demand, np.array([1.0, 2.5])) == 5
    # the 3 smallest (0.5 + 0.5 + 1) fit together: ceil(4 / 3) = 2
    sizes = np.array([1.0, 0.5, 2.0, 0.5])[:, None, None] * np.ones((1, 3, 1))
    assert count_bound(sizes, np.array([2.0])) == 2
    # CPU varies over time, memory absent: no flat dimension, no bound
    assert count_bound(cpu[:, :, None], np.array([1.0])) == 0
