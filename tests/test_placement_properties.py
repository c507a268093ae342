"""Property-based checks: a placement never breaks a rule (hypothesis)."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.placement_helpers import problem
from vsizer.placement.sizing import size_pool


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
