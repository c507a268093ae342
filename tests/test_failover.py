"""N+k failover check."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

from tests.placement_helpers import problem
from vsizer.placement import failover
from vsizer.placement.result import Placement


def _placement(p, assignment, n):
    return Placement(p, n, np.asarray(assignment, dtype=np.int64), "feasible", "given")


def test_one_failure_spreads_load_hand_computed():
    # 4 hosts, each with two VMs of 0.25 (host at 0.5). Host 1 fails: its two VMs go
    # to two different survivors -> 0.75 there, 0.5 on the third.
    p = problem([[0.25]] * 8, [1.0], failures=1)
    pl = _placement(p, [0, 0, 1, 1, 2, 2, 3, 3], 4)
    r = failover.check(pl)
    assert r.survives and r.scenarios == 4
    assert_allclose(r.worst_survivor_util, 0.75)
    sc = r.detail[0]
    assert sc.failed == ["p-01"]
    assert sorted(m["to"] for m in sc.moves) == ["p-02", "p-03"]
    assert_allclose(
        sorted(sc.survivor_util[h]["cpu"] for h in sc.survivor_util), [0.75, 0.75]
    )


def test_failure_that_cannot_be_absorbed_lists_unplaced_vms():
    # 2 hosts at 0.6 each with one VM of 0.6: a failure would put 1.2 on the survivor.
    p = problem([[0.6], [0.6]], [1.0], failures=1, min_hosts=1)
    r = failover.check(_placement(p, [0, 1], 2))
    assert not r.survives
    assert [s.unplaced for s in r.failed_scenarios] == [["vm0"], ["vm1"]]


def test_two_failures_count_all_pairs():
    p = problem([[0.1]] * 10, [1.0], failures=2)
    r = failover.check(_placement(p, [0, 1, 2, 3, 4] * 2, 5))
    assert r.scenarios == 10 == len(r.detail)
    assert r.survives


def test_no_failures_reports_normal_worst():
    p = problem([[0.2], [0.5]], [1.0], failures=0, ceiling=0.6)
    r = failover.check(_placement(p, [0, 1], 2))
    assert r.survives and r.scenarios == 0
    assert_allclose(r.worst_survivor_util, 0.5)


def test_check_does_not_mutate_placement():
    p = problem([[0.25]] * 8, [1.0])
    a = np.array([0, 0, 1, 1, 2, 2, 3, 3])
    pl = _placement(p, a.copy(), 4)
    failover.check(pl)
    assert (pl.assignment == a).all()


@pytest.mark.parametrize("n,k,expected", [(3, 1, 3), (10, 2, 45), (4, 0, 0), (2, 3, 0)])
def test_scenario_count(n, k, expected):
    assert failover.scenario_count(n, k) == expected


def test_failover_budget_takes_the_heaviest_scenarios_first_and_says_so():
    # 5 hosts at loads 0.1, 0.5, 0.2, 0.4, 0.3 (one VM each); N+2 has C(5,2) = 10
    # scenarios = 10 x 5 hosts x 2 = 100 host-scenarios. A budget of 30 allows
    # 30 // (5 x 2) = 3: the heaviest host (1, at 0.5) with the next ones in
    # load order (3, 4, 2): {1,3}, {1,4}, {1,2}.
    import dataclasses

    p = problem([[0.1], [0.5], [0.2], [0.4], [0.3]], [1.0], failures=2)
    pl = _placement(p, [0, 1, 2, 3, 4], 5)
    full = failover.check(pl)
    assert full.exhaustive and len(full.detail) == full.scenarios == 10
    small = dataclasses.replace(p, failover_budget=30)
    r = failover.check(_placement(small, [0, 1, 2, 3, 4], 5))
    assert r.scenarios == 10 and not r.exhaustive
    assert [s.failed for s in r.detail] == [
        ["p-02", "p-04"], ["p-02", "p-05"], ["p-02", "p-03"]
    ]
    assert list(failover.failure_sets(_placement(small, [0, 1, 2, 3, 4], 5), 2)) == [
        (1, 3), (1, 4), (1, 2)
    ]
    assert failover.scenario_limit(5, 2, 30) == 3
    assert failover.scenario_limit(10**5, 1, 5_000_000) == 50
    assert failover.scenario_limit(10**9, 8, 1) == 1  # never zero


def test_the_plan_lists_the_failed_and_worst_scenarios_beyond_the_cap(monkeypatch):
    from vsizer.placement.failover_report import FailoverReport, Scenario
    from vsizer.study import _pools

    def sc(i: int, util: float, unplaced: list[str]) -> Scenario:
        return Scenario([f"p-{i:02d}"], [], unplaced, "p-99", util, "cpu", {})

    detail = [
        sc(1, 0.5, []), sc(2, 0.9, []), sc(3, 0.4, ["vm7"]), sc(4, 0.95, []),
        sc(5, 0.1, []),
    ]
    fo = FailoverReport(1, False, 5, 0.95, "cpu", None, detail)
    monkeypatch.setattr(_pools, "MAX_LISTED_SCENARIOS", 3)
    # the failed one (3), then the highest utilizations (4: 0.95, 2: 0.9), in order
    assert [s.failed for s in _pools.listed_scenarios(fo)] == [
        ["p-02"], ["p-03"], ["p-04"]
    ]
    doc = _pools._failover(fo, None)
    assert doc["scenarios_listed"] == {"listed": 3, "checked": 5}
    assert [s["failed"] for s in doc["scenarios"]] == [["p-02"], ["p-03"], ["p-04"]]
    monkeypatch.setattr(_pools, "MAX_LISTED_SCENARIOS", 5)
    assert "scenarios_listed" not in _pools._failover(fo, None)  # all listed: as before


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_scenario_with_the_displaced_groups_alone_is_the_scenario_with_every_group(seed):
    """failover._PeakReplacer.scenario re-places the failed host's VMs with the
    occupancy of their own anti-affinity groups alone: the same moves as with the
    occupancy of every group (the reference below, as the scenario was made
    before), on pools with many small groups."""
    from vsizer.placement.heuristics import best_fit_decreasing, greedy_assign

    rng = np.random.default_rng(seed)
    n = 60
    demand = rng.uniform(0.02, 0.2, size=(n, 2)).round(3).tolist()
    groups = [int(g) if g < 25 else -1 for g in rng.integers(0, 35, size=n)]
    p = problem(demand, [1.0, 1.0], ceiling=0.8, failures=1, min_hosts=1, groups=groups)
    hosts = 12
    pl = best_fit_decreasing(p, hosts)
    assert pl.feasible
    r = failover._PeakReplacer(pl)
    for h in range(hosts):
        got = r.scenario((h,))
        # the reference: the hosts of every group, copied
        allowed = np.ones(hosts, dtype=bool)
        allowed[h] = False
        displaced = r._displaced((h,))
        displaced = displaced[np.argsort(r.rank[displaced], kind="stable")]
        loads = r.base_loads.copy()
        occ = r.base_occ.subset(np.arange(r.base_occ.n_groups), [h])
        chosen = greedy_assign(displaced, p.demand, loads, r.max_load, p.anti_affinity,
                               occ, allowed, None, "balanced")
        want = [{"vm": p.vm_names[v], "to": r.host_ids[c]}
                for v, c in zip(displaced.tolist(), chosen.tolist(), strict=True) if c >= 0]
        assert got.moves == want
        assert got.unplaced == [p.vm_names[v] for v, c in
                                zip(displaced.tolist(), chosen.tolist(), strict=True) if c < 0]
