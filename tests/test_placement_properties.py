"""Property-based checks: a placement never breaks a rule (hypothesis)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.placement_helpers import problem
from vsizer.placement.occupancy import GroupHosts
from vsizer.placement.sizing import size_pool

pytestmark = pytest.mark.slow


@st.composite
def problems(draw):
    n = draw(st.integers(1, 18))
    n_dims = draw(st.integers(1, 3))
    cell = st.floats(0.0, 0.55, allow_nan=False)
    demand = draw(
        st.lists(
            st.lists(cell, min_size=n_dims, max_size=n_dims), min_size=n, max_size=n
        )
    )
    ceiling = draw(st.sampled_from([0.5, 0.6, 0.8, 1.0]))
    demand = [[min(x, ceiling) for x in row] for row in demand]
    failures = draw(st.integers(0, 2))
    n_groups = draw(st.integers(0, 3))
    groups = [draw(st.integers(-1, n_groups - 1)) if n_groups else -1 for _ in range(n)]
    return problem(
        demand,
        [1.0] * n_dims,
        ceiling=ceiling,
        failures=failures,
        min_hosts=draw(st.integers(1, 4)),
        groups=groups,
    )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems())
def test_sized_pool_respects_every_rule(p):
    r = size_pool(p)
    pl = r.placement
    a = pl.assignment
    # Every VM placed exactly once, on an existing host.
    assert len(a) == p.n_vms and ((a >= 0) & (a < pl.n_hosts)).all()
    # Capacity at the ceiling, every dimension.
    loads = np.zeros((pl.n_hosts, len(p.dims)))
    np.add.at(loads, a, p.demand)
    assert (loads <= p.capacity * p.limit + 1e-9).all()
    # Anti-affinity.
    for g in set(p.anti_affinity[p.anti_affinity >= 0].tolist()):
        members = a[p.anti_affinity == g]
        assert len(set(members.tolist())) == len(members)
    # Host count obeys its lower bound and the pool minimum.
    assert pl.n_hosts >= r.lower_bound >= p.min_hosts
    # The failover claim, re-checked independently from the reported moves.
    assert r.failover.survives
    k = p.failures
    if k == 0:
        return
    by_failed = {tuple(sc.failed): sc for sc in r.failover.detail}
    assert len(by_failed) == len(list(itertools.combinations(range(pl.n_hosts), k)))
    for failed in itertools.combinations(range(pl.n_hosts), k):
        sc = by_failed[tuple(p.host_id(h) for h in failed)]
        where = {p.vm_names[v]: p.host_id(int(a[v])) for v in range(p.n_vms)}
        moved = {m["vm"]: m["to"] for m in sc.moves}
        displaced = {p.vm_names[v] for v in range(p.n_vms) if a[v] in failed}
        assert set(moved) == displaced and not sc.unplaced
        where.update(moved)
        survivors = {p.host_id(h) for h in range(pl.n_hosts) if h not in failed}
        assert set(where.values()) <= survivors
        load = {h: np.zeros(len(p.dims)) for h in survivors}
        for v in range(p.n_vms):
            load[where[p.vm_names[v]]] += p.demand[v]
        for h in survivors:
            assert (load[h] <= p.capacity * p.failover_limit + 1e-9).all()
        for g in set(p.anti_affinity[p.anti_affinity >= 0].tolist()):
            hosts = [where[p.vm_names[v]] for v in np.flatnonzero(p.anti_affinity == g)]
            assert len(set(hosts)) == len(hosts)


@st.composite
def runs_instances(draw):
    """VM orders with long runs of identical demand rows (fleets of identical
    servers), some grouped or pinned, on hosts with some load already."""
    n_dims = draw(st.integers(1, 3))
    n_hosts = draw(st.integers(1, 8))
    kinds = draw(
        st.lists(
            st.lists(st.sampled_from([0.0, 0.05, 0.1, 0.25, 0.3]), min_size=n_dims,
                     max_size=n_dims),
            min_size=1, max_size=4,
        )
    )
    counts = draw(st.lists(st.integers(1, 12), min_size=len(kinds), max_size=len(kinds)))
    demand = np.array([k for k, c in zip(kinds, counts, strict=True) for _ in range(c)])
    n = len(demand)
    groups = np.array([draw(st.sampled_from([-1, -1, -1, 0, 1])) for _ in range(n)])
    pins = np.array([draw(st.sampled_from([-1] * 6 + list(range(n_hosts))))
                     for _ in range(n)])
    loads = np.array([[draw(st.sampled_from([0.0, 0.1, 0.5])) for _ in range(n_dims)]
                      for _ in range(n_hosts)])
    allowed = np.array([draw(st.booleans()) or h == 0 for h in range(n_hosts)])
    return demand, groups, pins, loads, allowed


@settings(max_examples=300, deadline=None)
@given(runs_instances(), st.sampled_from(["balanced", "best_fit"]))
def test_run_kernel_places_exactly_like_one_by_one(inst, rule) -> None:
    """Runs of identical VMs (vsizer.placement.heuristics._assign_run) get the
    same hosts, loads and group occupancy as placing them one by one."""
    from vsizer.placement.heuristics import greedy_assign

    demand, groups, pins, loads, allowed = inst
    order = np.arange(len(demand))
    max_load = np.full(demand.shape[1], 0.9)
    results = []
    for runs in (True, False):
        ld = loads.copy()
        occ = GroupHosts.for_groups(groups, 2)
        out = greedy_assign(order, demand, ld, max_load, groups, occ, allowed, pins,
                            rule, runs=runs)
        results.append((out, ld, occ.dense(len(loads))))
    (a, la, oa), (b, lb, ob) = results
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(la, lb)
    np.testing.assert_array_equal(oa, ob)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(), st.integers(0, 3))
def test_best_fit_read_from_one_open_placement_is_best_fit_on_each_count(p, first):
    """sizing._best_fit answers every count as best fit placed on that count does,
    whichever count it is first asked (base load and anti-affinity included)."""
    from vsizer.placement.heuristics import best_fit_decreasing
    from vsizer.placement.sizing import _place

    placed: dict = {}
    counts = list(range(1, p.n_vms + 2))
    counts = counts[first % len(counts):] + counts[: first % len(counts)]
    for n in counts:
        got = _place("best-fit-decreasing", p, n, placed)
        direct = best_fit_decreasing(p, n, stop_at_unplaced=True)
        assert (got is not None) == direct.feasible
        if got is not None:
            assert got.n_hosts == n
            assert got.assignment.tolist() == direct.assignment.tolist()
