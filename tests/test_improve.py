"""Local search after construction (vsizer/placement/improve.py, repair.py) and the
Martello-Toth L2 bound (series_fit.l2_bound): hand-computed cases and properties."""

from __future__ import annotations

import numpy as np
import pytest

from vsizer.errors import ConfigError
from vsizer.placement import failover
from vsizer.placement.curve_sizing import curve_lower_bounds, size_pool_on_curves
from vsizer.placement.improve import improve_placement
from vsizer.placement.problem import PlacementProblem
from vsizer.placement.series_fit import first_fit_series, l2_bound, step_l2_bound

# Sum 2.98, optimum 3 hosts of 1.0: {0.65, 0.34}, {0.52, 0.28, 0.2}, {0.44, 0.28, 0.27};
# first-fit decreasing needs 4.
BINS = [0.65, 0.52, 0.44, 0.34, 0.28, 0.28, 0.27, 0.2]


def host_loads(demand: np.ndarray, assign: np.ndarray, n: int) -> np.ndarray:
    """Summed curves per host, by hand (independent of the module's state)."""
    loads = np.zeros((n,) + demand.shape[1:])
    for v, h in enumerate(assign.tolist()):
        loads[h] += demand[v]
    return loads


def test_improvement_reaches_the_optimum_first_fit_misses():
    demand = np.array(BINS)[:, None, None]
    assign, n = first_fit_series(demand, np.array([1.0]))
    assert n == 4
    res = improve_placement(demand, np.array([1.0]), assign, n)
    assert (res.n_hosts, res.start_hosts) == (3, 4)
    loads = host_loads(demand, res.assignment, 3)
    assert sorted(np.round(loads[:, 0, 0], 2).tolist()) == [0.99, 0.99, 1.0]
    assert set(res.assignment.tolist()) == {0, 1, 2}  # renumbered, no gap


def test_curves_complementary_peaks_are_merged():
    # One VM per host to start. a and b peak at step 0, c and d at step 1: pairing
    # a step-0 VM with a step-1 VM gives 0.6 at every step, two hosts.
    demand = np.array([[0.5, 0.1], [0.5, 0.1], [0.1, 0.5], [0.1, 0.5]])[:, :, None]
    assign = np.array([0, 1, 2, 3])
    res = improve_placement(demand, np.array([0.6]), assign, 4)
    assert res.n_hosts == 2
    loads = host_loads(demand, res.assignment, 2)
    assert np.allclose(loads[:, :, 0], 0.6)


def test_anti_affinity_pins_and_flat_memory_hold():
    # cpu (0.2) would fit five per host, flat memory (0.5) only two; a and b are
    # in one anti-affinity group; e is pinned on host 3, so hosts 0-3 keep their
    # index and only host 4 (d) can be closed.
    cpu = np.array([0.2, 0.2, 0.2, 0.2, 0.2])
    mem = np.array([0.5, 0.5, 0.5, 0.5, 0.5])
    demand = np.stack([np.tile(cpu[:, None], (1, 3)), np.tile(mem[:, None], (1, 3))], axis=2)
    groups = np.array([7, 7, -1, -1, -1])
    pins = np.array([-1, -1, -1, -1, 3])
    res = improve_placement(demand, np.array([1.0, 1.0]), np.array([0, 1, 2, 4, 3]), 5,
                            groups=groups, pins=pins)
    a = res.assignment
    assert a[0] != a[1]
    assert a[4] == 3  # pinned VM and its host index kept
    loads = host_loads(demand, a, res.n_hosts)
    assert (loads <= 1.0 + 1e-9).all()
    assert res.n_hosts == 4
    assert np.bincount(a, minlength=4).max() == 2  # memory: two per host at most


@pytest.mark.slow
def test_random_instances_stay_feasible_and_deterministic():
    rng = np.random.default_rng(5)
    for trial in range(4):
        demand = rng.uniform(0, 0.3, (40, 24, 2)) * rng.uniform(0, 1, (40, 1, 1))
        assign, n = first_fit_series(demand, np.array([1.0, 1.0]))
        one = improve_placement(demand, np.array([1.0, 1.0]), assign, n, seed=trial)
        two = improve_placement(demand, np.array([1.0, 1.0]), assign, n, seed=trial)
        assert np.array_equal(one.assignment, two.assignment)
        assert one.n_hosts <= n
        assert (host_loads(demand, one.assignment, one.n_hosts) <= 1.0 + 1e-6).all()
        bound = int(np.ceil(demand.sum(axis=0).max(axis=0).max() - 1e-9))
        assert one.n_hosts >= bound


def test_quantile_placement_is_kept_within_the_quantile():
    rng = np.random.default_rng(1)
    demand = rng.uniform(0, 0.3, (30, 20, 1))
    assign, n = first_fit_series(demand, np.array([1.0]), quantile=0.9)
    res = improve_placement(demand, np.array([1.0]), assign, n, quantile=0.9)
    loads = host_loads(demand, res.assignment, res.n_hosts)
    q = np.quantile(loads, 0.9, axis=1, method="higher")
    assert (q <= 1.0 + 1e-6).all() and res.n_hosts <= n


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"rounds": -1}, "The 'rounds' parameter of improve_placement must be an int in "
                         "the range [0, inf). Got -1 instead."),
        ({"quantile": 1.5}, "The 'quantile' parameter of improve_placement must be None or "
                            "a float in the range (0, 1]. Got 1.5 instead."),
    ],
)
def test_bad_parameters_are_one_clear_line(kw, message):
    demand = np.ones((1, 1, 1)) * 0.5
    with pytest.raises(ConfigError) as err:
        improve_placement(demand, np.array([1.0]), np.zeros(1, dtype=np.int64), 1, **kw)
    assert str(err.value) == message


def test_l2_bound_hand_computed():
    # three items of 0.55: no two share a bin -> 3 (sum bound 2)
    assert l2_bound(np.array([0.55] * 3), 1.0) == 3
    # 0.7, 0.7 and three 0.35: a 0.35 never joins a 0.7, three 0.35 need 2 -> 4
    # (sum bound ceil(2.45) = 3); L2 at a = 0.35: |J1| = 2, J3 sum 1.05 -> 2 + 2
    assert l2_bound(np.array([0.7, 0.7, 0.35, 0.35, 0.35]), 1.0) == 4
    # six 0.6 and six 0.4 pair perfectly: 6 = the sum bound
    assert l2_bound(np.array([0.6] * 6 + [0.4] * 6), 1.0) == 6
    assert l2_bound(np.zeros(3), 1.0) == 0


def test_step_l2_bound_is_the_best_step_and_enters_the_plan_bound():
    # step 0: three items of 0.55 (L2 3, sum 1.65); step 1 all small.
    demand = np.array([[0.55, 0.1], [0.55, 0.1], [0.55, 0.1]])
    assert step_l2_bound(demand, 1.0) == 3
    p = PlacementProblem(
        pool="p", vm_names=("a", "b", "c"), dims=("cpu",), demand=demand.max(axis=1)[:, None],
        capacity=np.array([1.0]), base_load=np.zeros(1), limit=np.ones(1),
        failover_limit=np.ones(1), failures=0, min_hosts=1,
    )
    lb, detail, series, _, _ = curve_lower_bounds(p, demand[:, :, None], None)
    assert (lb, detail["l2"], series) == (3, 3, {"cpu": 2})


def test_step_l2_bound_computes_each_distinct_step_once_with_the_same_result():
    """make fuzz (series_time, yearly): five samples a year apart make a
    420,481-step grid of flat curves; L2 per step took 175 s of a plan, now
    each distinct step once (14 s). Same bound as step by step."""
    rng = np.random.default_rng(4)
    cols = rng.choice([0.2, 0.55, 0.7, 0.35], size=(6, 5))
    demand = np.repeat(cols, 20_000, axis=1)  # (6 VMs, 100,000 steps), 5 distinct
    expected = max(l2_bound(cols[:, t], 1.0) for t in range(5))
    assert step_l2_bound(demand, 1.0) == expected == 5


def test_n_plus_one_on_curves_uses_the_improved_packing_and_survives():
    demand = np.array(BINS)[:, None, None] * np.ones((1, 2, 1))
    p = PlacementProblem(
        pool="p", vm_names=tuple(f"v{i}" for i in range(8)), dims=("cpu",),
        demand=demand.max(axis=1), capacity=np.array([1.0]), base_load=np.zeros(1),
        limit=np.ones(1), failover_limit=np.ones(1), failures=1, min_hosts=1,
    )
    sizing = size_pool_on_curves(p, demand)
    assert sizing.placement.n_hosts == 4  # the optimum 3 + one spare
    # the compiled breakout search starts from first-fit; without numba improve.py runs
    from vsizer.placement import _breakout

    search = "breakout" if _breakout.available() else "improve"
    assert sizing.placement.strategy == f"first-fit-decreasing+{search}+spares"
    report = failover.check(sizing.placement, demand)
    assert report.survives


def test_large_placements_are_improved_by_the_budgeted_breakout_search(monkeypatch):
    from vsizer.placement import curve_sizing

    monkeypatch.setattr(curve_sizing, "IMPROVE_MAX_HOST_STEPS", 3)
    # CPU varies over 2 steps (the second 1 % lower), memory is constant: 2 + 1 slots
    cpu = np.array(BINS)[:, None] * np.array([1.0, 0.99])[None, :]
    demand = np.stack([cpu, np.full_like(cpu, 0.1)], axis=2)
    p = PlacementProblem(
        pool="p", vm_names=tuple(f"v{i}" for i in range(8)), dims=("cpu", "mem"),
        demand=demand.max(axis=1), capacity=np.ones(2), base_load=np.zeros(2),
        limit=np.ones(2), failover_limit=np.ones(2), failures=0, min_hosts=1,
    )
    sizing = size_pool_on_curves(p, demand)
    assert sizing.placement.strategy == "first-fit-decreasing+breakout"
    assert sizing.placement.n_hosts == 3  # first-fit decreasing needs 4
    assert sizing.notes == ()
    loads = host_loads(demand, sizing.placement.assignment, 3)
    assert (loads <= 1.0 + 1e-9).all()


def test_no_search_runs_below_the_count_a_flat_dimension_allows(monkeypatch):
    """Memory flat at 0.35 of a host: 2 VMs a host, 8 VMs need 4 hosts (the sum bound
    says 3: 2.8); first-fit's 4 hosts are kept and neither the local search nor the
    breakout search runs (the fine PlanetLab days, 303 CPU s once)."""
    from vsizer.placement import curve_sizing

    def never(*args, **kwargs):
        raise AssertionError("no search at the count bound")

    monkeypatch.setattr(curve_sizing, "reduce_hosts", never)
    monkeypatch.setattr(curve_sizing, "improve_placement", never)
    cpu = np.full((8, 2), 0.05)
    demand = np.stack([cpu, np.full_like(cpu, 0.35)], axis=2)
    p = PlacementProblem(
        pool="p", vm_names=tuple(f"v{i}" for i in range(8)), dims=("cpu", "mem"),
        demand=demand.max(axis=1), capacity=np.ones(2), base_load=np.zeros(2),
        limit=np.ones(2), failover_limit=np.ones(2), failures=0, min_hosts=1,
    )
    sizing = size_pool_on_curves(p, demand)
    # the reported bound is 4: the configuration LP (pairs of VMs a host, 8 / 2)
    # closes the gap the sum bound (3) leaves
    assert (sizing.placement.n_hosts, sizing.lower_bound) == (4, 4)
    assert sizing.lower_bound_detail["configuration_lp"] == 4
    assert sizing.placement.strategy == "first-fit-decreasing"


def _state(demand: np.ndarray, assign: list[int], n: int):
    from vsizer.placement.improve_state import State

    return State(demand, np.array(assign), n, np.zeros(demand.shape[2]),
                 np.full(demand.shape[0], -1), None)


def test_close_and_repair_pairs_complementary_curves():
    # a, b peak at step 0 (host 0: 1.0, 0.2), c, d at step 1 (host 1: 0.2, 1.0), e flat
    # 0.3 alone on host 2. Closing host 2: e goes to host 0 (tie, first) at 1.3 on step 0;
    # the repair moves a to host 1 (1.1 on step 1), then c to host 0: hosts at
    # (0.9, 0.9) and (0.6, 0.6).
    from vsizer.placement.repair import close_one

    demand = np.array([[0.5, 0.1], [0.5, 0.1], [0.1, 0.5], [0.1, 0.5], [0.3, 0.3]])[:, :, None]
    state = _state(demand, [0, 0, 1, 1, 2], 3)
    ok = close_one(state, 2, np.ones(5, dtype=bool), np.random.default_rng(0), 50)
    assert ok
    assert state.alive.tolist() == [True, True, False]
    loads = host_loads(demand, state.assign, 3)
    assert np.allclose(sorted(loads[:2, :, 0].tolist()), [[0.6, 0.6], [0.9, 0.9]])
    assert np.allclose(state.loads, loads)


def test_close_and_repair_that_fails_leaves_the_state_as_it_was():
    from vsizer.placement.repair import close_one

    demand = np.array([[0.6, 0.6], [0.6, 0.6], [0.6, 0.6]])[:, :, None]
    state = _state(demand, [0, 1, 2], 3)
    before = state.loads.copy()
    ok = close_one(state, 2, np.ones(3, dtype=bool), np.random.default_rng(0), 200)
    assert not ok
    assert state.assign.tolist() == [0, 1, 2]
    assert state.alive.all()
    assert np.allclose(state.loads, before)
