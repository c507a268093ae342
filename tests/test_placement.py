"""Placement strategies and pool sizing: hand-computed cases and known optima."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from numpy.testing import assert_allclose

from tests.placement_helpers import problem
from vsizer.errors import InfeasiblePlacementError
from vsizer.placement.heuristics import STRATEGIES
from vsizer.placement.sizing import lower_bound, size_pool


def test_sixty_percent_rule_three_hosts_carry_ninety_percent_after_one_failure():
    # DESIGN §5: N = 3 hosts at ceiling 0.6 -> survivors carry 0.6 * 3 / 2 = 0.9.
    p = problem([[0.3]] * 6, [1.0], failures=1, min_hosts=3)
    r = size_pool(p)
    assert r.placement.n_hosts == 3
    assert_allclose(r.placement.host_utilization()[:, 0], [0.6, 0.6, 0.6])
    assert r.failover.survives
    assert_allclose(r.failover.worst_survivor_util, 0.9)
    assert r.lower_bound == 3 and r.gap == 0


def test_design_section4_worked_example_vms_per_host_before_ceiling():
    # DESIGN §4: 1200 MHz and 2048 MB per VM; host 8 x 2260 MHz, 48 GB.
    # CPU allows floor(18080 / 1200) = 15 VMs, memory 49152 / 2048 = 24: CPU binds.
    def hosts_for(n_vms, mem_gib=2.0, mhz=1200.0):
        p = problem(
            [[mhz, mem_gib]] * n_vms,
            [8 * 2260.0, 48.0],
            ceiling=1.0,
            failures=0,
            min_hosts=1,
        )
        return size_pool(p)

    assert hosts_for(15).placement.n_hosts == 1
    assert hosts_for(16).placement.n_hosts == 2
    assert hosts_for(16).binding_dimension == "cpu"
    # Memory alone (negligible CPU) allows 24 per host:
    assert hosts_for(24, mhz=1.0).placement.n_hosts == 1
    assert hosts_for(25, mhz=1.0).placement.n_hosts == 2
    assert hosts_for(25, mhz=1.0).binding_dimension == "mem"


def test_lower_bound_reasons_hand_computed():
    # 10 VMs of 0.25 cpu, 0.1 mem on hosts of 1.0 at ceiling 0.5:
    # cpu: ceil(2.5 / 0.5) = 5; mem: ceil(1.0 / 0.5) = 2;
    # failover k=1 at 100 %: ceil(2.5 / 1.0) + 1 = 4; min_hosts 3.
    p = problem([[0.25, 0.1]] * 10, [1.0, 1.0], ceiling=0.5, failures=1, min_hosts=3)
    lb, detail, binding = lower_bound(p)
    assert detail["cpu"] == 5 and detail["mem"] == 2
    assert detail["failover"] == 4 and detail["min_hosts"] == 3
    assert lb == 5 and binding == "cpu"


def test_base_load_reserves_memory_on_every_host():
    # Host 64 GiB, reserve 4 GiB, ceiling 0.5 -> 28 GiB usable for VMs per host.
    p = problem(
        [[0.01, 14.0]] * 4,
        [1.0, 64.0],
        ceiling=0.5,
        failures=0,
        min_hosts=1,
        base=[0.0, 4.0],
    )
    r = size_pool(p)
    assert r.placement.n_hosts == 2
    assert_allclose(r.placement.host_utilization()[:, 1], [32 / 64, 32 / 64])


def test_anti_affinity_pairs_never_share_a_host_even_after_failover():
    # Two tiny redundant pairs: capacity allows one host but the pairs need 2 (+1 for k).
    p = problem([[0.01]] * 4, [1.0], failures=1, min_hosts=1, groups=[0, 0, 1, 1])
    r = size_pool(p)
    a = r.placement.assignment
    assert a[0] != a[1] and a[2] != a[3]
    assert r.placement.n_hosts == 3  # pair size 2 + k 1
    for sc in r.failover.detail:
        final = dict(zip(p.vm_names, (p.host_id(h) for h in a), strict=True))
        for m in sc.moves:
            final[m["vm"]] = m["to"]
        assert final["vm0"] != final["vm1"] and final["vm2"] != final["vm3"]


def test_pinned_vm_starts_on_its_host():
    p = problem(
        [[0.1]] * 6, [1.0], failures=0, min_hosts=1, pins=[-1, -1, -1, -1, -1, 3]
    )
    r = size_pool(p)
    assert r.placement.assignment[5] == 3
    assert r.placement.n_hosts == 4


def test_vm_larger_than_a_host_at_the_ceiling_is_named():
    p = problem([[0.1, 40.0]], [1.0, 64.0], ceiling=0.6)
    with pytest.raises(
        InfeasiblePlacementError,
        match=r"VM 'vm0' needs 40 mem but one host offers 38\.4 at its limit",
    ):
        size_pool(p)


def test_conflicting_anti_affinity_and_pins_raise():
    p = problem([[0.1]] * 2, [1.0], failures=0, min_hosts=1, groups=[0, 0], pins=[0, 0])
    with pytest.raises(InfeasiblePlacementError, match="anti-affinity or pinning"):
        size_pool(p)


@pytest.mark.parametrize("name", list(STRATEGIES))
def test_strategy_contract_every_vm_once_within_limits(name):
    rng = np.random.default_rng(7)
    d = rng.uniform(0.01, 0.3, size=(40, 2))
    p = problem(d.tolist(), [1.0, 1.0], failures=0, min_hosts=1)
    pl = STRATEGIES[name](p, 30)
    assert pl.feasible
    assert ((pl.assignment >= 0) & (pl.assignment < 30)).all()
    assert (pl.host_utilization() <= 0.6 + 1e-9).all()


def test_known_optimum_one_dimension():
    # 0.6, 0.4 / 0.5, 0.5 / 0.7, 0.3 (sum 3.0) into bins of 1.0: optimum 3 = lower bound.
    items = [[0.6], [0.4], [0.5], [0.5], [0.7], [0.3]]
    r = size_pool(problem(items, [1.0], ceiling=1.0, failures=0, min_hosts=1))
    assert r.placement.n_hosts == 3 == r.lower_bound
    assert r.gap == 0


def test_gap_is_reported_where_the_heuristics_miss_the_optimum():
    # 0.5, 0.5, 0.4, 0.4, 0.3 x 4 (sum 3.0): optimum 3 bins ({.5,.5} {.4,.3,.3} x 2),
    # but best-fit and balanced decreasing both need 4 (Johnson 1973's classic
    # counter-example shape). The plan must say so: lower bound 3, gap 1.
    items = [[0.5], [0.5], [0.4], [0.4], [0.3], [0.3], [0.3], [0.3]]
    r = size_pool(problem(items, [1.0], ceiling=1.0, failures=0, min_hosts=1))
    assert (r.placement.n_hosts, r.lower_bound, r.gap) == (4, 3, 1)


def test_deterministic_assignment():
    rng = np.random.default_rng(1)
    d = rng.uniform(0.01, 0.2, size=(200, 3)).tolist()
    a1 = size_pool(problem(d, [1, 1, 1])).placement.assignment
    a2 = size_pool(problem(d, [1, 1, 1])).placement.assignment
    assert (a1 == a2).all()


def test_best_fit_is_placed_twice_per_sizing() -> None:
    """The sizing reads best fit on every count from one placement on as many
    hosts as it opens: placed on the first count tried, then once more on that
    count plus the VMs left over. 30 VMs of 0.35 on hosts of 1.0 at a 0.6 ceiling
    (one per host; lower bound ceil(10.5 / 0.6) = 18): best fit is placed on 18
    hosts (12 VMs left over), then on 30; the counts tried after that (19, 20, 22,
    26, 34, then down to 30) are read from it, and the pool gets 30 hosts."""
    import dataclasses
    from unittest import mock

    from vsizer.placement import heuristics, sizing

    p = problem([[0.35]] * 30, [1.0], failures=0, min_hosts=1)
    calls: list[int] = []
    real = heuristics.STRATEGIES["best-fit-decreasing"]

    def counted(problem_, n, **kw):
        calls.append(n)
        return real(problem_, n, **kw)

    def refused(problem_, n, **kw):  # balanced fits nowhere: every count asks best fit
        out = real(problem_, n, **kw)
        return dataclasses.replace(
            out, assignment=np.full(problem_.n_vms, -1), status="infeasible")

    with mock.patch.dict(sizing.STRATEGIES, {"balanced-decreasing": refused,
                                             "best-fit-decreasing": counted}):
        r = sizing.size_pool(p)
    assert calls == [18, 30]
    assert r.placement.n_hosts == 30 and r.lower_bound == 18
    assert sorted(r.placement.assignment.tolist()) == list(range(30))


def _dense_reference(demand, groups, n_hosts, max_load, rule):
    """The greedy placement as first written: a hosts x groups table of bools,
    every host scanned per VM, in the kernels' arithmetic (the oracle of the
    per-group occupancy)."""
    from vsizer.placement.problem import EPS

    inv = 1.0 / max_load
    norm = np.zeros((n_hosts, demand.shape[1]))
    occ = np.zeros((n_hosts, int(groups.max()) + 1), dtype=bool)
    out = []
    for v in range(len(demand)):
        new = norm + demand[v] * inv
        peak = new.max(axis=1)
        fits = peak <= 1.0 + EPS
        if groups[v] >= 0:
            fits &= ~occ[:, groups[v]]
        if not fits.any():
            out.append(-1)
            continue
        key = np.where(fits, peak, np.inf if rule == "balanced" else -np.inf)
        h = int(np.argmin(key) if rule == "balanced" else np.argmax(key))
        out.append(h)
        norm[h] = new[h]
        if groups[v] >= 0:
            occ[h, groups[v]] = True
    return out, occ


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("rule", ["balanced", "best_fit"])
def test_the_hosts_of_each_group_place_as_a_hosts_x_groups_table(
    rule: str, compiled: bool
) -> None:
    """Pairs, triples and one group of 40 (more members than hosts can part):
    the same host per VM and the same occupancy as the dense table."""
    from vsizer.placement import blocked
    from vsizer.placement.heuristics import greedy_assign
    from vsizer.placement.occupancy import GroupHosts

    rng = np.random.default_rng(11)
    for n_vms, n_hosts in ((300, 20), (500, 40)):
        demand = rng.uniform(0.02, 0.25, size=(n_vms, 2)).round(3)
        groups = np.where(rng.random(n_vms) < 0.7, rng.integers(0, n_vms // 3, n_vms), -1)
        groups[:40] = n_vms // 3  # one large group
        max_load = np.array([0.9, 0.9])
        want, want_occ = _dense_reference(demand, groups, n_hosts, max_load, rule)
        occ = GroupHosts.for_groups(groups)
        with mock.patch.object(blocked, "MIN_HOSTS", 0):
            got = greedy_assign(np.arange(n_vms), demand, np.zeros((n_hosts, 2)),
                                max_load, groups, occ, np.ones(n_hosts, bool), None,
                                rule, compiled=compiled)
        assert got.tolist() == want
        assert (got < 0).any() and (got >= 0).any()  # both cases met
        np.testing.assert_array_equal(occ.dense(n_hosts), want_occ)


def test_the_hosts_of_each_group_take_a_slot_per_member() -> None:
    """175,000 redundancy pairs take 2 slots each (5.6 MB with the offsets),
    whatever the hosts: the hosts x groups table of a 149,050-host pool was
    24.3 GiB. Marking is once per host; a group has room for its members."""
    from vsizer.placement.occupancy import GroupHosts, placed

    pairs = np.repeat(np.arange(175_000), 2)
    occ = GroupHosts.for_groups(pairs)
    assert occ.hosts.nbytes + occ.start.nbytes + occ.count.nbytes == 5_600_008
    occ = GroupHosts.for_groups([0, 0, 1, -1, 1, 1])
    occ.mark(7, 0)
    occ.mark(7, 0)
    occ.mark(3, 0)
    assert sorted(occ.of(0).tolist()) == [3, 7] and occ.holds(3, 0)
    assert not occ.holds(7, 1)
    with pytest.raises(ValueError, match="^group 0 has room for 2 hosts, all taken$"):
        occ.mark(9, 0)
    sub = occ.subset(np.array([0]), [7])
    assert sub.of(0).tolist() == [3] and sub.start.tolist() == [0, 2]
    # from a placement: a group twice on one host is held once (as the table did)
    base = placed(GroupHosts.for_groups([0, 0, 1, -1, 1, 1]), [2, 2, 5, 1, 4, -1],
                  [0, 0, 1, -1, 1, 1])
    assert base.of(0).tolist() == [2] and sorted(base.of(1).tolist()) == [4, 5]
