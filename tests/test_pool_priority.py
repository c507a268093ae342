"""Pool priority (issue 28): production pools placed first, development last;
on a host failure the importance-rank-A VMs restart first, so the VM left
without a place is the lower-ranked one."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

import vsizer
from tests.placement_helpers import problem
from vsizer.placement import failover
from vsizer.placement.result import Placement
from vsizer.study.pool_priority import (
    DEVELOPMENT,
    OTHER,
    PRODUCTION,
    placement_order,
    pool_class,
    restart_priority,
)


def test_pool_class_by_name() -> None:
    assert [pool_class(n) for n in ("本番", "本番環境", "Production", "prod-db", "PRD")] == [
        PRODUCTION] * 5
    assert [pool_class(n) for n in ("開発", "検証", "dev", "Test", "staging", "qa-1")] == [
        DEVELOPMENT] * 6
    # whole words only: 'product' and 'devops' are not classes; 'default' other
    assert [pool_class(n) for n in ("default", "product", "devops", "web")] == [OTHER] * 4


def test_placement_order_is_stable_within_a_class() -> None:
    assert placement_order(["開発", "web", "本番", "db", "test", "prod"]) == [
        "本番", "prod", "web", "db", "開発", "test"]


def test_restart_priority_by_importance_rank() -> None:
    assert restart_priority(["C", "a", None, "B", "", "Z"]).tolist() == [2, 0, 3, 1, 3, 3]


def _two_hosts(priority: list[int] | None) -> failover.FailoverReport:
    # Host p-01: vm0 0.5 (rank C), vm1 0.3 (rank A); host p-02: vm2 0.5.
    # p-01 fails, p-02 has 0.5 free. Largest first: vm0 fits (1.0), vm1 is left
    # out; rank A first: vm1 fits (0.8), vm0 (1.3 > 1.0) is left out.
    p = problem([[0.5], [0.3], [0.5]], [1.0], failures=1, min_hosts=1)
    if priority is not None:
        p = dataclasses.replace(p, restart_priority=np.asarray(priority, dtype=np.int64))
    pl = Placement(p, 2, np.asarray([0, 0, 1], dtype=np.int64), "feasible", "given")
    return failover.check(pl)


def test_failover_restarts_rank_a_first_and_leaves_the_lower_rank_out() -> None:
    by_size = {tuple(s.failed): s.unplaced for s in _two_hosts(None).detail}
    assert by_size[("p-01",)] == ["vm1"]
    by_rank = {tuple(s.failed): s.unplaced for s in _two_hosts([2, 0, 3]).detail}
    assert by_rank[("p-01",)] == ["vm0"]


def test_plan_places_production_before_development(tmp_path: Path) -> None:
    path = tmp_path / "inv.csv"
    path.write_text(
        "name,sockets,cores_per_socket,cpu_mhz,cpu_avg_pct,cpu_peak_pct,mem_gib,power_w,pool\n"
        "d1,2,4,2400,10,20,16,300,開発\n"
        "w1,2,4,2400,10,20,16,300,web\n"
        "p1,2,4,2400,10,20,16,300,本番\n",
        encoding="utf-8",
    )
    doc = vsizer.plan(path).to_dict()
    assert [p["name"] for p in doc["pools"]] == ["本番", "web", "開発"]


def test_failover_on_curves_restarts_rank_a_first() -> None:
    # The same two hosts with flat curves (4 steps): the re-placement on curves
    # leaves out the rank-C VM too.
    p = problem([[0.5], [0.3], [0.5]], [1.0], failures=1, min_hosts=1)
    p = dataclasses.replace(p, restart_priority=np.asarray([2, 0, 3], dtype=np.int64))
    pl = Placement(p, 2, np.asarray([0, 0, 1], dtype=np.int64), "feasible", "given")
    curves = np.repeat(np.asarray([[0.5], [0.3], [0.5]])[:, None, :], 4, axis=1)
    r = failover.check(pl, curves=curves)
    by_rank = {tuple(s.failed): s.unplaced for s in r.detail}
    assert by_rank[("p-01",)] == ["vm0"]
