"""The compiled greedy kernel (issue 15, fleet scale): numba's kernel makes
exactly the choices of the numpy kernels (plain scan and blocked), host for
host, with bit-for-bit the same loads and anti-affinity occupancy, on seeded
and hypothesis-drawn instances with ties, groups, pins, hosts not allowed and
VMs that fit nowhere; without numba the numpy path runs unchanged."""

from __future__ import annotations

import time
from typing import Any
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.numba_helpers import without_numba
from vsizer.placement import _kernel, blocked, failover, heuristics
from vsizer.placement.heuristics import greedy_assign
from vsizer.placement.occupancy import GroupHosts
from vsizer.placement.problem import PlacementProblem
from vsizer.placement.sizing import size_pool

needs_numba = pytest.mark.skipif(not _kernel.available(), reason="numba not installed")

#: The kernels compared: (compiled, blocked) as greedy_assign's flags.
NUMPY = ((False, True), (False, False))
COMPILED = ((True, True), (True, False))


def _instance(seed: int, ties: bool = False) -> tuple[Any, ...]:
    rng = np.random.default_rng(seed)
    hosts, vms = int(rng.integers(1, 260)), int(rng.integers(0, 700))
    dims = int(rng.integers(1, 4))
    scale = rng.choice([0.05, 0.2, 0.5])
    if ties:  # few distinct values: equal keys on many hosts, runs of identical VMs
        demand = rng.choice([0.0, 0.125, 0.25], size=(vms, dims)) * scale
    else:
        demand = np.round(rng.random((vms, dims)) * scale, 2)
    groups = np.where(rng.random(vms) < 0.1, rng.integers(0, 4, vms), -1)
    pins = np.where(rng.random(vms) < 0.03, rng.integers(0, hosts + 2, vms), -1)
    loads = np.where(rng.random((hosts, dims)) < 0.3, rng.random((hosts, dims)) * 0.3, 0.0)
    if ties:
        loads = np.round(loads * 4) / 4
    allowed = rng.random(hosts) < 0.9
    order = np.argsort(-demand.max(axis=1), kind="stable") if vms else np.zeros(0, np.int64)
    max_load = 0.9 * (1 + rng.random(dims)) if not ties else np.ones(dims)
    return order, demand, loads, max_load, groups, pins, allowed


def _run(args: tuple[Any, ...], rule: str, compiled: bool, use_blocks: bool,
         stop: bool = False, pins: bool = True) -> tuple[Any, ...]:
    order, demand, loads, max_load, groups, pin_of, allowed = args
    ld, occ = loads.copy(), GroupHosts.for_groups(groups, 4)
    with mock.patch.object(blocked, "MIN_HOSTS", 0):
        out = greedy_assign(
            order, demand, ld, max_load, groups, occ, allowed, pin_of if pins else None,
            rule, blocked=use_blocks, compiled=compiled, stop_at_unplaced=stop,
        )
    return out, ld, occ.dense(len(loads))


def _same(results: list[tuple[Any, ...]]) -> None:
    a, la, oa = results[0]
    for b, lb, ob in results[1:]:
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(la, lb)  # bit for bit: same sums in the same order
        np.testing.assert_array_equal(oa, ob)


@needs_numba
@pytest.mark.parametrize("seed", range(30))
@pytest.mark.parametrize("rule", ["balanced", "best_fit"])
@pytest.mark.parametrize("stop", [False, True])
def test_compiled_kernel_places_exactly_like_the_numpy_kernels(
    seed: int, rule: str, stop: bool
) -> None:
    """Seeded instances (1-259 hosts, up to 699 VMs, 1-3 dimensions): the
    compiled kernel, with and without blocks, against numpy's blocked kernel
    and plain scan; half of the seeds with ties everywhere."""
    args = _instance(seed, ties=seed % 2 == 1)
    for pins in (True, False):
        _same([_run(args, rule, c, b, stop, pins) for c, b in NUMPY + COMPILED])


@needs_numba
def test_compiled_kernel_breaks_ties_to_the_lowest_host_index() -> None:
    """Four empty hosts, equal VMs: balanced goes round the hosts in index
    order, best fit fills host 0 first; a pin and a group are honoured."""
    demand = np.full((6, 1), 0.25)
    args = (np.arange(6), demand, np.zeros((4, 1)), np.ones(1),
            np.array([-1, -1, -1, -1, 0, 0]), np.array([-1, 3, -1, -1, -1, -1]),
            np.ones(4, dtype=bool))
    balanced = _run(args, "balanced", True, True)[0]
    best_fit = _run(args, "best_fit", True, True)[0]
    assert balanced.tolist() == [0, 3, 1, 2, 0, 1]
    assert best_fit.tolist() == [0, 3, 0, 0, 0, 3]  # host 0 full of group 0
    assert _run(args, "balanced", False, False)[0].tolist() == balanced.tolist()
    assert _run(args, "best_fit", False, False)[0].tolist() == best_fit.tolist()


@st.composite
def instances(draw: Any) -> tuple[Any, ...]:
    hosts = draw(st.integers(1, 80))
    vms = draw(st.integers(0, 60))
    dims = draw(st.integers(1, 3))
    cell = st.sampled_from([0.0, 0.05, 0.1, 0.25, 0.3, 0.5, 0.7, 1.1])
    demand = np.array(draw(st.lists(st.lists(cell, min_size=dims, max_size=dims),
                                    min_size=vms, max_size=vms)), dtype=float)
    demand = demand.reshape(vms, dims)
    loads = np.array(draw(st.lists(st.sampled_from([0.0, 0.1, 0.25, 0.5]),
                                   min_size=hosts * dims, max_size=hosts * dims)))
    groups = np.array(draw(st.lists(st.integers(-1, 3), min_size=vms, max_size=vms)),
                      dtype=np.int64)
    pins = np.array(draw(st.lists(st.sampled_from([-1, -1, -1, 0, 1, hosts - 1, hosts]),
                                  min_size=vms, max_size=vms)), dtype=np.int64)
    allowed = np.array(draw(st.lists(st.booleans(), min_size=hosts, max_size=hosts)))
    order = np.arange(vms, dtype=np.int64)
    max_load = np.array(draw(st.lists(st.sampled_from([0.8, 1.0, 1.5]),
                                      min_size=dims, max_size=dims)))
    return order, demand, loads.reshape(hosts, dims), max_load, groups, pins, allowed


@pytest.mark.slow
@needs_numba
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances(), st.sampled_from(["balanced", "best_fit"]), st.booleans())
def test_compiled_kernel_matches_numpy_on_drawn_instances(
    args: tuple[Any, ...], rule: str, stop: bool
) -> None:
    """Hypothesis: coarse values (ties), VMs larger than any host, every host
    refused, pins out of range; the blocks of 32 hosts split the larger ones."""
    _same([_run(args, rule, c, b, stop) for c, b in NUMPY + COMPILED])


@needs_numba
@pytest.mark.parametrize("sup", [1, 2, 3, 16])
@pytest.mark.parametrize("rule", ["balanced", "best_fit"])
def test_super_blocks_place_exactly_like_the_plain_scan(sup: int, rule: str) -> None:
    """Blocks in super-blocks of 1, 2, 3 and 16 blocks (issue 25: a million
    servers): on the seeded instances (up to 17 blocks of 16 hosts, ties on
    half of them), the same hosts, loads and occupancy as numpy's plain scan."""
    for seed in range(30):
        args = _instance(seed, ties=seed % 2 == 1)
        want = _run(args, rule, False, False)
        with mock.patch.object(_kernel, "SUPER", sup):
            got = _run(args, rule, True, True)
        _same([want, got])


def test_python_twin_of_the_kernel_places_like_numpy() -> None:
    """The kernel's source run as plain Python (what numba compiles) gives
    the numpy kernels' hosts: checked even where numba is not installed."""
    for seed in range(4):
        order, demand, loads, max_load, groups, pins, allowed = _instance(seed)
        want = _run(_instance(seed), "balanced", False, False)
        inv = 1.0 / max_load
        for size, sup in ((0, 0), (32, 0), (16, 2)):
            ld, occ = loads.copy(), GroupHosts.for_groups(groups, 4)
            out = _kernel.assign.py_func(  # type: ignore[attr-defined]
                order, demand, ld, ld * inv, inv, groups, *occ.arrays(), allowed, pins,
                True, False, size, sup,
            ) if hasattr(_kernel.assign, "py_func") else _kernel.assign(
                order, demand, ld, ld * inv, inv, groups, *occ.arrays(), allowed, pins,
                True, False, size, sup,
            )
            _same([want, (out, ld, occ.dense(len(loads)))])


def test_without_numba_the_numpy_path_runs_unchanged() -> None:
    """numba missing: get() is None, greedy_assign gives the numpy kernels'
    hosts, and the plan of a pool is the same."""
    with without_numba(_kernel):
        assert _kernel.get() is None and not _kernel.available()
        args = _instance(3)
        got = _run(args, "balanced", True, True)
        problem = _fleet_problem(600)
        without = size_pool(problem)
    _same([got, _run(args, "balanced", False, True)])
    with_kernel = size_pool(problem)
    assert without.n_hosts == with_kernel.n_hosts
    np.testing.assert_array_equal(without.assignment, with_kernel.assignment)
    assert without.failover == with_kernel.failover


def _fleet_problem(n_vms: int, groups: bool = False) -> PlacementProblem:
    rng = np.random.default_rng(7)
    vcpu = rng.choice([1, 2, 4, 8, 16], size=n_vms, p=[0.1, 0.3, 0.3, 0.2, 0.1])
    cpu = np.round(vcpu * 2600 * rng.uniform(0.05, 0.9, n_vms), 1)
    demand = np.column_stack([cpu, vcpu * rng.choice([2.0, 4.0, 8.0], n_vms), vcpu])
    aa = np.where(rng.random(n_vms) < 0.05, rng.integers(0, 6, n_vms), -1) if groups else \
        np.full(n_vms, -1)
    return PlacementProblem(
        pool="big", vm_names=tuple(f"vm{i}" for i in range(n_vms)),
        dims=("cpu", "mem", "vcpu"), demand=demand,
        capacity=np.array([64 * 2600.0, 1024.0, 256.0]),
        base_load=np.array([0.0, 32.0, 0.0]), limit=np.array([0.8, 0.8, 1.0]),
        failover_limit=np.ones(3), failures=1, min_hosts=3,
        anti_affinity=aa.astype(np.int64),
    )


@needs_numba
@pytest.mark.parametrize("groups", [False, True])
def test_a_pool_is_sized_and_checked_as_with_numpy(groups: bool) -> None:
    """Sizing (every try, both strategies) and the full N+1 check (each failed
    host's VMs re-placed on the survivors) give the same plan and the same
    failover report with the compiled kernel as with numpy's."""
    problem = _fleet_problem(1500, groups)
    kernel = heuristics.greedy_assign

    def numpy_only(*args: Any, **kwargs: Any) -> Any:
        return kernel(*args, **{**kwargs, "compiled": False})

    fast = size_pool(problem)
    with mock.patch.object(heuristics, "greedy_assign", numpy_only), mock.patch.object(
        failover, "greedy_assign", numpy_only
    ):
        slow = size_pool(problem)
        slow_check = failover.check(fast.placement)
    assert fast.n_hosts == slow.n_hosts > 2 * _kernel.BLOCK
    assert fast.attempts == slow.attempts
    np.testing.assert_array_equal(fast.assignment, slow.assignment)
    assert fast.failover == slow.failover == slow_check == failover.check(fast.placement)


@needs_numba
def test_compiled_kernel_is_faster_than_numpy_on_a_large_pool() -> None:
    """5,000 VMs on 300 hosts: the compiled kernel (already compiled) at
    least 5 times faster than numpy's blocked kernel (measured: ~20x)."""
    problem = _fleet_problem(5000)
    place = heuristics.STRATEGIES["balanced-decreasing"]
    place(problem, 300)  # compile (or load the cache) outside the timing
    start = time.perf_counter()
    fast = place(problem, 300)
    t_fast = time.perf_counter() - start
    with mock.patch.object(_kernel, "get", lambda: None):
        start = time.perf_counter()
        slow = place(problem, 300)
        t_slow = time.perf_counter() - start
    np.testing.assert_array_equal(fast.assignment, slow.assignment)
    assert t_slow > 5 * t_fast, (t_slow, t_fast)


@needs_numba
@pytest.mark.parametrize("rule", ["balanced", "best_fit"])
def test_non_finite_loads_or_steps_place_like_numpy(rule: str) -> None:
    """A zero limit (inv = inf: NaN and inf keys) and a NaN load: the bounds
    would not be exact, the compiled kernel scans every host, as numpy does."""
    base = _instance(5)
    order, demand, loads, max_load, groups, pins, allowed = base
    zero = max_load.copy()
    zero[0] = 0.0
    nan_loads = loads.copy()
    nan_loads[::7, 0] = np.nan
    for args in ((order, demand, loads, zero, groups, pins, allowed),
                 (order, demand, nan_loads, max_load, groups, pins, allowed)):
        with np.errstate(divide="ignore", invalid="ignore"):
            _same([_run(args, rule, c, b) for c, b in NUMPY + COMPILED])


def test_sizings_differing_only_in_min_hosts_share_their_tries() -> None:
    """size_pool(tries=): the second sizing (min_hosts 1 instead of 3) places
    nothing new and finds the count a fresh sizing finds; the placement it
    returns is of its own problem."""
    import dataclasses

    from vsizer.placement import sizing

    base = dataclasses.replace(_fleet_problem(800), failures=0)
    bare = dataclasses.replace(base, min_hosts=1)
    tries: sizing.Tries = {}
    first = size_pool(base, tries=tries)
    calls = []
    strategies = {k: (lambda *a, _f=f, **kw: calls.append(1) or _f(*a, **kw))
                  for k, f in sizing.STRATEGIES.items()}
    with mock.patch.dict(sizing.STRATEGIES, strategies):
        shared = size_pool(bare, tries=tries)
    assert calls == []
    fresh = size_pool(bare)
    assert shared.n_hosts == fresh.n_hosts == first.n_hosts
    assert shared.attempts == fresh.attempts
    assert shared.placement.problem is bare
    np.testing.assert_array_equal(shared.assignment, fresh.assignment)


def test_count_reason_is_the_same_with_shared_tries() -> None:
    """explain_pool with the tries shared gives the reason computed with every
    sizing fresh (N+1, min_hosts 3: failures = 0 and every rule relaxed share)."""
    from vsizer.study import count_reason

    problem = _fleet_problem(800)
    sized = size_pool(problem)
    rules = count_reason._NO_CURVES
    shared = count_reason.explain_pool(problem, sized.n_hosts, sized.lower_bound_detail,
                                       None, rules)
    real = count_reason._count

    def fresh_count(p: Any, curves: Any, r: Any, sd: Any, tries: Any = None,
                    placed: Any = None) -> Any:
        return real(p, curves, r, sd, None, None)

    with mock.patch.object(count_reason, "_count", fresh_count):
        fresh = count_reason.explain_pool(problem, sized.n_hosts, sized.lower_bound_detail,
                                          None, rules)
    assert shared == fresh
    assert shared.relaxed["failover"] == shared.by_constraint["demand"] < sized.n_hosts


def test_count_reason_is_the_same_with_the_sizings_placements() -> None:
    """explain_pool reusing the greedy placements of the pool's own sizing
    (sizing.Placed: failures = 0 and min_hosts = 1 place alike) gives the same
    reason as with every placement made again, and places fewer times."""
    from vsizer.placement import sizing
    from vsizer.study import count_reason

    problem = _fleet_problem(800)
    placed: sizing.Placed = {}
    sized = size_pool(problem, placed=placed)
    assert size_pool(problem).n_hosts == sized.n_hosts
    assert sized.placement.assignment.tolist() == (
        size_pool(problem).placement.assignment.tolist())
    made = len(placed)
    rules = count_reason._NO_CURVES
    calls: list[int] = []
    real = dict(sizing.STRATEGIES)

    def counted(name: str) -> Any:
        def place(*args: Any, **kwargs: Any) -> Any:
            calls.append(1)
            return real[name](*args, **kwargs)
        return place

    with mock.patch.dict(sizing.STRATEGIES, {k: counted(k) for k in real}):
        reused = count_reason.explain_pool(problem, sized.n_hosts,
                                           sized.lower_bound_detail, None, rules,
                                           None, placed)
        n_reused = len(calls)
        calls.clear()
        fresh = count_reason.explain_pool(problem, sized.n_hosts,
                                          sized.lower_bound_detail, None, rules)
    assert reused == fresh
    assert made > 0 and n_reused < len(calls)


@needs_numba
@pytest.mark.parametrize("sup", [1, 2, 16])
@pytest.mark.parametrize("seed", range(8))
def test_compiled_survival_check_answers_as_the_full_check(seed: int, sup: int) -> None:
    """failover.survives (compiled, no scenarios built) against check().survives
    on balanced and best-fit placements from the lower bound up: some survive
    N+1, some do not; with anti-affinity groups on odd seeds; its block bounds
    kept up to date host after host, in super-blocks of 1, 2 and 16 blocks."""
    import dataclasses

    from vsizer.placement.sizing import lower_bound

    rng = np.random.default_rng(seed)
    problem = _fleet_problem(int(rng.integers(200, 900)), groups=seed % 2 == 1)
    problem = dataclasses.replace(
        problem, demand=problem.demand * rng.uniform(0.7, 1.3),
        failover_limit=np.full(3, rng.uniform(0.8, 0.9)),  # tight: some fail
    )
    lb = lower_bound(problem)[0] - 3
    answers = set()
    for n in range(lb, lb + 12):
        for place in heuristics.STRATEGIES.values():
            pl = place(problem, n)
            if not pl.feasible:
                continue
            want = failover.check(pl).survives
            with mock.patch.object(_kernel, "SUPER", sup):
                assert failover.survives(pl) is want, (n, pl.strategy)
            answers.add(want)
    assert answers == {True, False}


def test_survival_check_defers_to_check_where_it_does_not_apply() -> None:
    """N+2, an empty pool, one host: None (the caller runs check)."""
    import dataclasses

    problem = _fleet_problem(300)
    pl = heuristics.STRATEGIES["balanced-decreasing"](problem, 30)
    assert failover.survives(dataclasses.replace(
        pl, problem=dataclasses.replace(problem, failures=2))) is None
    one = heuristics.STRATEGIES["balanced-decreasing"](_fleet_problem(3), 1)
    assert failover.survives(one) is None
    with mock.patch.object(_kernel, "get", lambda: None):
        assert failover.survives(pl) is None


def test_small_passes_run_on_numpy_until_the_budget_is_spent() -> None:
    """Before the kernel is loaded, passes go to numpy (None) while their
    estimated cost, added up, stays within NUMPY_BUDGET_US (300,000 µs); the
    next one loads the kernel, and from then on every pass is compiled. A check
    within the budget is numpy's too (failover.survives: None) and spends
    nothing (check()'s passes are counted)."""
    cost = _kernel.numpy_cost(1000, 64)  # 1000 x (15 + 64 // 32) µs
    assert cost == 17_000
    assert _kernel.numpy_cost(20, 3, scenarios=3) == 20 * 15 + 3 * _kernel.SCENARIO_US
    pl = heuristics.STRATEGIES["balanced-decreasing"](_fleet_problem(300), 30)
    with mock.patch.object(_kernel, "_TRIED", False), mock.patch.object(
        _kernel, "_COMPILED", None
    ), mock.patch.object(_kernel, "_SPENT_US", 0), mock.patch.object(
        _kernel, "get", lambda: "kernel"
    ):
        assert failover.survives(pl) is None and _kernel._SPENT_US == 0
        for spent in range(cost, 300_000 + 1, cost):  # 17 passes: 289,000 µs
            assert _kernel.for_pass(cost) is None
            assert spent == _kernel._SPENT_US
        assert _kernel.for_pass(cost) == "kernel"  # 306,000 > 300,000
        assert _kernel.for_pass(11_000) is None  # still fits: 300,000
        assert _kernel.for_pass(1) == "kernel"
        _kernel._TRIED = True  # loaded (get() ran): every pass compiled
        assert _kernel.for_pass(0) == "kernel"


def test_a_small_pool_is_sized_as_with_the_kernel() -> None:
    """A pool sized on numpy's kernels within the budget (kernel not loaded) is
    the pool sized with the kernel loaded: same hosts, same failover report."""
    problem = _fleet_problem(120, groups=True)
    with mock.patch.object(_kernel, "_TRIED", False), mock.patch.object(
        _kernel, "_COMPILED", None
    ), mock.patch.object(_kernel, "_SPENT_US", 0):
        small = size_pool(problem)
        assert not _kernel._TRIED and 0 < _kernel._SPENT_US <= _kernel.NUMPY_BUDGET_US
    loaded = size_pool(problem)
    assert small.n_hosts == loaded.n_hosts and small.attempts == loaded.attempts
    np.testing.assert_array_equal(small.assignment, loaded.assignment)
    assert small.failover == loaded.failover
