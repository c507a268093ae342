"""Pools sized in shards (issue 15, 3b): the split, a hand-checked plan, an
independent replay of every step and failure, the same plan on any engine."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np
import pytest

import vsizer
from tests.test_plan_series import HOST, cpu_series
from vsizer.engines import LocalEngine
from vsizer.errors import ConfigError
from vsizer.placement.pool import size_pool_for
from vsizer.placement.problem import PlacementProblem
from vsizer.placement.shard_split import assign_shards, curve_shapes, shard_count
from vsizer.placement.shards import size_sharded
from vsizer.study.config import Rules

T = TypeVar("T")
R = TypeVar("R")

DAY_VM = [0.6, 0.6, 0.2, 0.2]  # busy in the first half
NIGHT_VM = [0.2, 0.2, 0.6, 0.6]  # busy in the second half


def cpu_problem(curves: np.ndarray, failures: int = 0, min_hosts: int = 1,
                groups: list[int] | None = None) -> PlacementProblem:
    """One dimension (cpu), host capacity 1.0, ceiling 1.0, failover limit 1.0."""
    n = curves.shape[0]
    return PlacementProblem(
        "p", tuple(f"vm{i}" for i in range(n)), ("cpu",),
        curves.max(axis=1).astype(float), np.ones(1), np.zeros(1), np.ones(1),
        np.ones(1), failures=failures, min_hosts=min_hosts,
        anti_affinity=np.asarray(groups if groups is not None else [-1] * n,
                                 dtype=np.int64),
    )


def day_night(n_each: int) -> np.ndarray:
    rows = [DAY_VM] * n_each + [NIGHT_VM] * n_each
    return np.asarray(rows, dtype=np.float32)[:, :, None]


class ReversedEngine:
    """Runs the items last first (as workers finishing out of order would), returns
    them in item order like every engine."""

    name = "reversed"
    workers = 3

    def map(self, fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
        done = {i: fn(items[i]) for i in reversed(range(len(items)))}
        return [done[i] for i in range(len(items))]

    def close(self) -> None:
        return None

    def __enter__(self) -> ReversedEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def test_shard_count():
    assert [shard_count(n, 20_000) for n in (0, 20_000, 20_001, 100_000)] == [1, 1, 2, 5]
    assert shard_count(10**6, 0) == 1  # 0: never


def test_shapes_are_size_free():
    small = np.array([[[1.0], [3.0]]], dtype=np.float32)
    shapes = curve_shapes(np.concatenate([small, 10 * small]), points=2)
    assert shapes.tolist() == [[1 / 3, 1.0], [1 / 3, 1.0]]


def test_every_shard_gets_day_and_night_vms():
    curves = day_night(4)
    shard = assign_shards(curves, np.ones(1), 2)
    for s in (0, 1):
        members = np.flatnonzero(shard == s)
        assert sorted(members < 4) == [False, False, True, True]  # 2 day, 2 night


@pytest.mark.slow
def test_sharded_day_night_pool_hand_checked():
    # A day and a night VM sum to 0.8 at every step; two of a kind reach 1.2: each
    # host holds one of each, 4 hosts for 4 + 4 VMs, as one process finds.
    curves = day_night(4)
    s = size_sharded(cpu_problem(curves), curves, 2)
    assert s.n_hosts == 4
    assert sorted(np.bincount(s.assignment).tolist()) == [2, 2, 2, 2]
    for h in range(4):
        assert sorted((s.assignment == h).nonzero()[0] < 4) == [False, True]
    assert s.solver is not None and s.solver["sharded"]["shards"] == 2
    # N+1: the failover bound is ceil(3.2 / 1.0) + 1 = 5; the 5th host is the spare
    # that takes the day and night VMs of any failed host (0.8).
    s1 = size_sharded(cpu_problem(curves, failures=1), curves, 2)
    assert (s1.n_hosts, s1.lower_bound, s1.survives) == (5, 5, True)
    assert s1.solver is not None
    assert s1.solver["sharded"]["hosts_added_for_bound"] == 1


def synthetic(n: int, steps: int = 48, seed: int = 0) -> np.ndarray:
    """Curves of two shapes (day, night) with noise, 0-0.35 of a host."""
    rng = np.random.default_rng(seed)
    t = np.arange(steps)
    phase = rng.integers(0, 2, n)[:, None] * np.pi
    base = 0.5 + 0.5 * np.sin(2 * np.pi * t[None, :] / steps + phase)
    size = rng.uniform(0.05, 0.35, (n, 1))
    noise = rng.uniform(0.0, 0.2, (n, steps))
    return (size * np.clip(base + noise, 0, 1)).astype(np.float32)[:, :, None]


@pytest.mark.slow
def test_sharded_plan_holds_at_every_step_and_every_failure():
    curves = synthetic(240)
    groups = [i // 3 if i < 30 else -1 for i in range(240)]  # 10 groups of 3
    p = cpu_problem(curves, failures=1, min_hosts=3, groups=groups)
    p = PlacementProblem(p.pool, p.vm_names, p.dims, p.demand, p.capacity, p.base_load,
                         np.array([0.8]), np.ones(1), 1, 3, p.anti_affinity)
    s = size_sharded(p, curves, 3)
    a, n = s.assignment, s.n_hosts
    assert (a >= 0).all() and a.max() < n
    loads = np.zeros((n, curves.shape[1]))
    np.add.at(loads, a, curves[:, :, 0].astype(np.float64))
    assert (loads <= 0.8 + 1e-6).all()  # the ceiling at every step, replayed here
    for g in range(10):
        assert len(set(a[np.asarray(groups) == g].tolist())) == 3
    assert s.survives and s.failover.scenarios == n
    host = {p.host_id(h): h for h in range(n)}
    vm = {name: i for i, name in enumerate(p.vm_names)}
    for sc in s.failover.detail:  # every failure re-placed within 100 %, replayed
        (failed,) = [host[f] for f in sc.failed]
        after = loads.copy()
        after[failed] = 0
        for m in sc.moves:
            after[host[m["to"]]] += curves[vm[m["vm"]], :, 0]
        assert after.max() <= 1.0 + 1e-6
        assert sorted(vm[m["vm"]] for m in sc.moves) == np.flatnonzero(a == failed).tolist()
    lb = int(np.ceil(curves.sum(axis=0).max() / 0.8 - 1e-9))
    assert lb <= n <= lb + 4


@pytest.mark.slow
def test_same_plan_on_any_engine():
    curves = synthetic(150, seed=1)
    p = cpu_problem(curves, failures=1, min_hosts=3)
    a = size_sharded(p, curves, 3)
    b = size_sharded(p, curves, 3, engine=LocalEngine())
    c = size_sharded(p, curves, 3, engine=ReversedEngine())
    assert a.assignment.tolist() == b.assignment.tolist() == c.assignment.tolist()
    assert a.solver == c.solver and a.notes == c.notes


def run_doc(engine: Any = None, **kw: Any) -> str:
    curves = {f"v{i:03d}": [float(x) for x in synthetic(60, 24, seed=2)[i, :, 0]]
              for i in range(60)}
    return vsizer.plan(series=cpu_series(curves), hosts=HOST, vm_cpu_mhz=10_000.0,
                       vm_mem_gib=1.0, host_memory_reserve_gib=0.0, engine=engine,
                       **kw).to_json()


@pytest.mark.slow
def test_plan_says_the_pool_was_sharded_same_bytes_on_any_engine():
    local = run_doc(shard_vms=25)
    assert run_doc(ReversedEngine(), shard_vms=25) == local
    doc = json.loads(local)
    (pool,) = doc["pools"]
    assert pool["strategy"] == "sharded+refine"
    assert pool["solver"]["sharded"]["shards"] == 3
    assert pool["solver"]["sharded"]["largest_shard"] == 20
    assert any("60 VMs sized in 3 shards of at most 20" in w["message"]
               for w in doc["warnings"])
    assert doc["pools"][0]["replay"]["steps_over_ceiling"] == 0
    single = json.loads(run_doc())  # 60 VMs: below the default 20,000, not sharded
    assert single["pools"][0]["solver"] is None
    assert single["pools"][0]["strategy"] != "sharded+refine"


def test_shard_vms_rule():
    assert Rules().shard_vms == 20_000
    with pytest.raises(ConfigError) as exc:
        Rules(shard_vms=-1)
    assert "'shard_vms' parameter of plan" in str(exc.value)
    assert "Got -1 instead." in str(exc.value)


def test_size_pool_for_shards_only_above_the_rule():
    curves = synthetic(40, seed=3)
    p = cpu_problem(curves)

    class Curve:
        quantile, solver, time_limit, bound_lp_vms = None, "heuristic", 30.0, 100

        def __init__(self, shard_vms: int) -> None:
            self.shard_vms = shard_vms

    assert size_pool_for(p, curves, Curve(40)).solver is None
    assert size_pool_for(p, curves, Curve(0)).solver is None
    sharded = size_pool_for(p, curves, Curve(20)).solver
    assert sharded is not None and sharded["sharded"]["shards"] == 2


def test_failover_on_curves_when_every_survivor_holds_the_group():
    # Three VMs of one anti-affinity group, one per host, 0.3 each: a failed host's
    # VM can only join its group on a survivor; both are at 0.3, the first (lower
    # index) takes it: 0.6 within the 100 % failover limit, nothing unplaced.
    from vsizer.placement import failover
    from vsizer.placement.result import Placement

    curves = np.full((3, 4, 1), 0.3, dtype=np.float32)
    p = cpu_problem(curves, failures=1, min_hosts=3, groups=[0, 0, 0])
    report = failover.check(Placement(p, 3, np.arange(3), "feasible", "test"), curves)
    assert report.survives
    moves = [(sc.failed, sc.moves) for sc in report.detail]
    assert moves == [
        (["p-01"], [{"vm": "vm0", "to": "p-02"}]),
        (["p-02"], [{"vm": "vm1", "to": "p-01"}]),
        (["p-03"], [{"vm": "vm2", "to": "p-01"}]),
    ]
    assert [round(sc.worst_util, 6) for sc in report.detail] == [0.6, 0.6, 0.6]


def test_cli_shard_vms_error_is_one_line():
    from tests.test_plan_series import run

    r = run("plan", "--series", "s", "--shard-vms", "-1")
    assert r.exit_code == 2
    assert "error: The 'shard_vms' parameter of plan (--shard-vms, [series] shard_vms) must be" in r.output
    assert "Got -1 instead." in r.output
    assert "Traceback" not in r.output
