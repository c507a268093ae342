"""The configuration-LP bound (column generation, Farley's bound): hand-computed
instances, validity against brute force (hypothesis), determinism, budgets, and the
pool's lower bound in the plan."""

from __future__ import annotations

import ctypes
import io
import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console

from vsizer.placement.config_lp import _quiet_stdout, configuration_lp_bound, rows_of
from vsizer.placement.curve_sizing import size_pool_on_curves
from vsizer.placement.problem import PlacementProblem
from vsizer.placement.series_fit import series_lower_bounds
from vsizer.reporting.terminal import _series_pools
from vsizer.study.config import Rules

LO, HI = 0.05, 0.55
ONE = np.ones(1)


def triangle() -> np.ndarray:
    """3 VMs, 3 steps: each pair is at 0.55 + 0.55 = 1.1 at one step (they conflict
    pairwise), the third VM at 0.05; every step sums to 1.15."""
    return np.array([[HI, HI, LO], [HI, LO, HI], [LO, HI, HI]])[:, :, None]


def cycle5() -> np.ndarray:
    """5 VMs, 5 steps: VMs i and i+1 (mod 5) at 0.55 at step i, the others at 0.05
    (sum 1.25). Only neighbours conflict; a host holds at most 2 of the 5 VMs (no 3
    are pairwise apart on a 5-cycle), so the LP is 5/2 and 3 hosts are needed."""
    d = np.full((5, 5), LO)
    for i in range(5):
        d[i, i] = d[(i + 1) % 5, i] = HI
    return d[:, :, None]


def test_pairwise_conflicts_need_three_hosts_where_per_step_bounds_say_two():
    # per step: ceil(1.15) = 2; L2 at a step: two items above half a host, one
    # below (0.05 <= the 2 x 1 - 1.1 = 0.9 left): 2. Every configuration holds one
    # VM, so the LP is 3: duals 1 each, sum 3, pricing optimum 1.
    assert series_lower_bounds(triangle(), ONE) == {"series": [2], "peak_sum": [2], "l2": [2]}
    res = configuration_lp_bound(triangle(), ONE)
    assert res.bound == 3
    assert res.farley == pytest.approx(3.0, rel=1e-5)
    assert res.status == "optimal"


def test_a_fractional_lp_of_five_halves_rounds_up_to_three():
    assert series_lower_bounds(cycle5(), ONE) == {"series": [2], "peak_sum": [3], "l2": [2]}
    res = configuration_lp_bound(cycle5(), ONE)
    assert res.farley == pytest.approx(2.5, rel=1e-5)  # duals 1/2 each, pricing optimum 1
    assert res.bound == 3
    assert res.lp == pytest.approx(2.5, rel=1e-9)


def test_the_bound_equals_the_per_step_one_where_sizes_pack_exactly():
    # four flat VMs of half a host: 2 hosts by the sum, and 2 by the LP (pairs)
    d = np.full((4, 3, 1), 0.5)
    res = configuration_lp_bound(d, ONE)
    assert res.bound == 2
    # 2 / (1 + SLACK): rows are in units of the usable load widened by SLACK = 1e-4
    assert res.farley == pytest.approx(2.0 / 1.0001, rel=1e-5)
    assert series_lower_bounds(d, ONE)["series"] == [2]


def test_anti_affinity_rows_count_in_the_configurations():
    # four VMs of a quarter host fit on one host, but a group of 3 needs 3 hosts
    d = np.full((4, 2, 1), 0.25)
    res = configuration_lp_bound(d, ONE, groups=np.array([0, 0, 0, -1]))
    assert res.bound == 3
    assert configuration_lp_bound(d, ONE).bound == 1


def test_rows_that_never_bind_or_are_dominated_are_dropped():
    # step 0 sums to 0.3 (never binding); step 2 is at or below step 1 for every VM
    d = np.array([[0.1, 0.6, 0.5], [0.1, 0.6, 0.6], [0.1, 0.0, 0.0]])[:, :, None]
    rows = rows_of(d, ONE) * 1.0001  # units of the usable load widened by SLACK = 1e-4
    assert rows == pytest.approx(np.array([[0.6], [0.6], [0.0]]), rel=1e-12)


def test_no_gain_and_size_limits_stop_early():
    # with 3 already known, the generation stops once the master is at or below 3
    # (it starts at 5, the singletons); the bound then is the per-step one it started at
    res = configuration_lp_bound(cycle5(), ONE, floor=3)
    assert (res.bound, res.status) == (2, "no-gain")
    assert res.lp <= 3.0
    too_large = configuration_lp_bound(cycle5(), ONE, max_vms=4)
    assert (too_large.bound, too_large.status, too_large.iterations) == (None, "too-large", 0)


def test_the_budget_stops_the_generation_with_a_valid_bound():
    # 40 VMs uniform in [0.05, 0.45) of a host at each of 24 steps: the busiest step
    # sums to 11.39 hosts (bound 12); no host holds 4 of them at every step, so the LP
    # is 40 / 3 = 13.33 and the bound 14. Two master solves only: the generation
    # stops with the bound it started from, the per-step one (still valid)
    rng = np.random.default_rng(7)
    d = rng.uniform(0.05, 0.45, size=(40, 24, 1))
    assert series_lower_bounds(d, ONE)["series"] == [12]
    full = configuration_lp_bound(d, ONE)
    assert (full.bound, full.status) == (14, "optimal")
    assert full.farley == pytest.approx(40 / 3, rel=1e-5)
    short = configuration_lp_bound(d, ONE, max_iterations=2, node_limit=1)
    assert (short.bound, short.status, short.iterations) == (12, "budget", 2)
    assert short.farley == pytest.approx(float(d.sum(axis=0).max()) / 1.0001 / (1 + 1e-6))


def test_the_bound_is_deterministic():
    rng = np.random.default_rng(3)
    d = rng.uniform(0.0, 0.6, size=(30, 12, 2))
    usable = np.array([1.0, 1.5])
    assert configuration_lp_bound(d, usable) == configuration_lp_bound(d, usable)


def _optimum(d: np.ndarray, usable: np.ndarray, groups: np.ndarray) -> int:
    """Fewest hosts by brute force: every assignment of n VMs to k hosts."""
    n = d.shape[0]
    for k in range(1, n + 1):
        for assign in itertools.product(range(k), repeat=n):
            a = np.array(assign)
            loads = np.zeros((k,) + d.shape[1:])
            np.add.at(loads, a, d)
            if not (loads <= usable * (1 + 1e-6)).all():
                continue
            if all(len(set(a[groups == g].tolist())) == int((groups == g).sum())
                   for g in set(groups[groups >= 0].tolist())):
                return k
    return n


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(1, 5), st.integers(1, 4), st.integers(1, 2), st.integers(0, 2**31 - 1),
    st.booleans(),
)
def test_the_bound_never_exceeds_the_optimum(n, t, dims, seed, with_groups):
    rng = np.random.default_rng(seed)
    d = rng.uniform(0.0, 1.0, size=(n, t, dims)).round(2)
    usable = np.ones(dims)
    groups = rng.integers(-1, 2, size=n) if with_groups else np.full(n, -1)
    res = configuration_lp_bound(d, usable, groups=groups)
    assert res.bound is None or res.bound <= _optimum(d, usable, groups)


def test_the_pool_reports_the_configuration_lp_bound_and_no_gap():
    d = cycle5()
    n = d.shape[0]
    p = PlacementProblem(
        pool="c5", vm_names=tuple(f"v{i}" for i in range(n)), dims=("cpu",),
        demand=d.max(axis=1), capacity=ONE, base_load=np.zeros(1), limit=ONE,
        failover_limit=ONE, failures=0, min_hosts=0,
    )
    s = size_pool_on_curves(p, d)
    assert s.n_hosts == 3
    assert (s.lower_bound, s.gap) == (3, 0)
    assert s.lower_bound_detail["configuration_lp"] == 3
    assert s.lower_bound_detail["l2"] == 2
    # --bound-lp-vms below the pool's 5 VMs (or 0): no configuration LP, the gap shows
    for vms in (4, 0):
        off = size_pool_on_curves(p, d, bound_lp_vms=vms)
        assert (off.n_hosts, off.lower_bound, off.gap) == (3, 2, 1)
        assert "configuration_lp" not in off.lower_bound_detail
    assert size_pool_on_curves(p, d, bound_lp_vms=5).lower_bound == 3


def test_bound_lp_vms_rule():
    assert Rules().bound_lp_vms == 100
    with pytest.raises(ValueError) as exc:
        Rules(bound_lp_vms=-1)
    assert "'bound_lp_vms' parameter of plan (--bound-lp-vms, [series] bound_lp_vms)" in str(
        exc.value)


def _pool_doc(name: str, detail: dict[str, int]) -> dict:
    return {
        "name": name, "host_count": 3,
        "lower_bound": {"hosts": max(detail.values()), "detail": detail,
                        "series": {"cpu": 2}, "peak_sum": {"cpu": 3}},
        "replay": {"steps_over_ceiling": 0, "steps_over_100": 0}, "series_coverage": None,
    }


def _table_text(plan: dict, lang: str) -> str:
    out = io.StringIO()
    Console(file=out, width=200).print(_series_pools(plan, lang))
    return out.getvalue()


def test_the_terminal_shows_the_configuration_lp_bound_where_a_pool_has_one():
    with_lp = {"pools": [_pool_doc("c5", {"cpu": 2, "l2": 2, "configuration_lp": 3}),
                         _pool_doc("flat", {"cpu": 2, "l2": 2})]}
    text = _table_text(with_lp, "en")
    assert "Lower bound (configuration LP)" in text
    rows = {line.split("│")[-2].strip(): [c.strip() for c in line.split("│")[1:-1]]
            for line in text.splitlines() if "│ c5" in line or "│ flat" in line}
    assert rows["c5"][:4] == ["3", "3", "2", "3"]
    assert rows["flat"][:4] == ["3", "3", "2", "—"]
    assert "下限 (構成LP)" in _table_text(with_lp, "ja")
    # no pool with the bound: no column (the summary is as before)
    without = _table_text({"pools": [_pool_doc("flat", {"cpu": 2})]}, "en")
    assert "configuration LP" not in without


def test_the_solvers_c_level_prints_do_not_reach_stdout(capfd):
    # HiGHS's MILP prints a debug line from C whatever its display option; the
    # pricing runs it with descriptor 1 on the null device (buffer flushed there)
    libc = ctypes.CDLL(None)
    print("before", flush=True)
    with _quiet_stdout():
        libc.printf(b"HighsMipSolverData::transformNewIntegerFeasibleSolution\n")
    print("after", flush=True)
    assert capfd.readouterr().out == "before\nafter\n"


def test_long_curves_keep_the_busiest_rows(monkeypatch):
    from vsizer.placement import config_lp

    monkeypatch.setattr(config_lp, "MAX_ROWS", 2)
    # steps sum to 1.3, 1.4 and 1.25, none dominating another: the last is dropped
    d = np.array([[0.7, 0.6, 0.0], [0.6, 0.0, 0.65], [0.0, 0.8, 0.6]])[:, :, None]
    rows = rows_of(d, ONE) * 1.0001
    assert rows == pytest.approx(np.array([[0.6, 0.7], [0.0, 0.6], [0.8, 0.0]]), rel=1e-12)


def test_bound_lp_pools_rule():
    assert Rules().bound_lp_pools == 10
    with pytest.raises(ValueError) as exc:
        Rules(bound_lp_pools=-1)
    assert ("'bound_lp_pools' parameter of plan (--bound-lp-pools, [series] "
            "bound_lp_pools)") in str(exc.value)


@pytest.mark.parametrize(("budget", "asked", "warned"), [
    (1, [True, False], ["開発"]),  # the second pool is past the plan's budget
    (2, [True, True], []),
    (0, [False, False], []),  # none asked for: nothing to warn about
])
def test_a_plan_seeks_the_configuration_lp_on_at_most_bound_lp_pools_pools(
    monkeypatch, budget, asked, warned
):
    """The study lets at most ``--bound-lp-pools`` pools of a plan run the
    configuration LP (in placement order) and warns, by pool, for each pool after them
    that would have run it (0: none, as asked, no warning). The sizing is the real one, reported as if every pool
    had a gap the configuration LP was asked to close ("ran" when allowed, "off" when
    not)."""
    import dataclasses
    from pathlib import Path

    import vsizer
    from vsizer.study import core

    real = core.size_pool_for
    calls: list[bool] = []

    def spy(problem, curves, rules, **kw):
        calls.append(kw["bound_lp"])
        s = real(problem, curves, rules, **kw)
        return dataclasses.replace(s, bound_lp="ran" if kw["bound_lp"] else "off")

    monkeypatch.setattr(core, "size_pool_for", spy)
    samples = Path(vsizer.__file__).parent / "data" / "samples"
    plan = vsizer.plan(samples / "inventory_ja.csv", rules=Rules(bound_lp_pools=budget))
    assert calls == asked
    got = [w for w in plan.to_dict()["warnings"] if w["code"] == "bound_lp_budget"]
    assert [w["message"] for w in got] == [
        f"pool '{p}': lower bound without the configuration LP: --bound-lp-pools "
        f"{budget} pools of this plan already had it" for p in warned]
