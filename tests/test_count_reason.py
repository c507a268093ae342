"""Why a pool has its host count (issue 16 item 5): pinned, hand-computed cases."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import vsizer
from vsizer.placement.problem import PlacementProblem
from vsizer.placement.sizing import size_pool
from vsizer.reporting.excel import plan_workbook
from vsizer.reporting.html import plan_html
from vsizer.study.count_reason import CONSTRAINTS, explain_pool
from vsizer.study.rightsizing import HEADROOM

GOLDEN = Path(__file__).parent / "data" / "golden"

#: Five small VMs at 4-7 % CPU peak (the issue's example).
SMALL = """name,pool,vcpus,cpu_mhz,mem_gib,mem_used_gib,cpu_avg_util,cpu_peak_util
web1,web,4,2400,8,2.5,0.02,0.04
web2,web,4,2400,8,3.0,0.03,0.05
web3,web,2,2400,4,1.0,0.03,0.06
web4,web,4,2400,8,2.0,0.04,0.07
web5,web,2,2400,4,1.5,0.02,0.05
"""


class _Rules:
    quantile = None
    solver = "heuristic"
    time_limit = 30.0


def _problem(demand, *, failures=0, min_hosts=1, groups=None, pins=None):
    d = np.array(demand, dtype=float).reshape(-1, 1)
    n = len(d)
    return PlacementProblem(
        pool="p",
        vm_names=tuple(f"vm{i}" for i in range(n)),
        dims=("cpu",),
        demand=d,
        capacity=np.array([100.0]),
        base_load=np.array([0.0]),
        limit=np.array([0.6]),
        failover_limit=np.array([1.0]),
        failures=failures,
        min_hosts=min_hosts,
        anti_affinity=np.array(groups if groups is not None else [-1] * n, dtype=np.int64),
        pins=np.array(pins if pins is not None else [-1] * n, dtype=np.int64),
    )


def _explain(problem):
    s = size_pool(problem)
    return explain_pool(problem, s.n_hosts, s.lower_bound_detail, None, _Rules())


@pytest.fixture(scope="module")
def small_plan(tmp_path_factory):
    f = tmp_path_factory.mktemp("cr") / "small.csv"
    f.write_text(SMALL)
    return vsizer.plan(f, min_hosts=3).to_dict()


def test_min_hosts_bound_pool_says_the_rule_decided(small_plan):
    cr = small_plan["pools"][0]["count_reason"]
    assert small_plan["pools"][0]["host_count"] == 3
    assert cr["binding"] == "min_hosts"
    assert cr["by_constraint"]["demand"] == 1
    assert cr["by_constraint"]["min_hosts"] == 3
    # failures = 1: demand 1 + 1 spare
    assert cr["by_constraint"]["failover"] == 2
    assert cr["relaxed"] == {"min_hosts": 2, "failover": 3}
    assert cr["text"].startswith(
        "3 hosts because min_hosts = 3; demand alone needs 1; "
        "with min_hosts = 1 this pool needs 2; with failures = 0 this pool needs 3"
    )
    assert list(cr["by_constraint"]) == list(CONSTRAINTS)


def test_failover_bound_pool():
    # 4 VMs of 30 on hosts of 100 at a 0.6 ceiling: 2 per host -> demand 2 hosts;
    # N+1 on survivors at 100 %: ceil(120 / 100) + 1 = 3.
    cr = _explain(_problem([30, 30, 30, 30], failures=1, min_hosts=1))
    assert (cr.hosts, cr.binding) == (3, "failover")
    assert cr.by_constraint["demand"] == 2
    assert cr.by_constraint["failover"] == 3
    assert cr.relaxed == {"failover": 2}
    assert "3 hosts because failures = 1 (N+1)" in cr.text


def test_demand_bound_pool_names_the_dimension():
    cr = _explain(_problem([50, 50, 50]))
    assert (cr.hosts, cr.binding, cr.by_constraint["demand"]) == (3, "demand", 3)
    assert cr.relaxed == {}
    assert cr.text == "3 hosts because demand (cpu); demand alone needs 3"


def test_anti_affinity_bound_pool():
    cr = _explain(_problem([1, 1, 1], groups=[0, 0, 0]))
    assert (cr.hosts, cr.binding) == (3, "anti_affinity")
    assert cr.by_constraint["anti_affinity"] == 3
    assert cr.relaxed == {"anti_affinity": 1}
    assert "without anti-affinity this pool needs 1" in cr.text


def test_pinning_bound_pool():
    cr = _explain(_problem([1, 1], pins=[3, -1]))
    assert (cr.hosts, cr.binding) == (4, "pinning")
    assert cr.by_constraint["pinning"] == 4
    assert cr.relaxed == {"pinning": 1}


def test_merge_of_two_pools_held_at_min_hosts(tmp_path):
    rows = SMALL.splitlines()
    body = [rows[0]] + [r.replace(",web,", ",api,") if i > 2 else r
                        for i, r in enumerate(rows[1:], 1)]
    f = tmp_path / "two.csv"
    f.write_text("\n".join(body) + "\n")
    doc = vsizer.plan(f, min_hosts=3).to_dict()
    pools = {p["name"]: p for p in doc["pools"]}
    assert [p["host_count"] for p in pools.values()] == [3, 3]
    assert pools["web"]["count_reason"]["suggestion"] == (
        "merge with pool 'api': together 3 hosts instead of 6 apart "
        "(the stricter rules of both)"
    )
    assert "merge with pool 'web'" in pools["api"]["count_reason"]["suggestion"]


def test_curve_pool_golden_has_its_reason():
    doc = json.loads((GOLDEN / "series-wide.json").read_text(encoding="utf-8"))
    cr = doc["pools"][0]["count_reason"]
    assert cr["binding"] == "min_hosts"
    assert cr["by_constraint"]["demand"] == 1


def test_reports_say_the_rule_decided(small_plan):
    html = plan_html(small_plan)
    assert "Rule: minimum hosts" in html
    assert "3 hosts because min_hosts = 3" in html
    wb = plan_workbook(small_plan)
    assert "Count and right-sizing" in wb.sheetnames
    cells = [c.value for row in wb["Summary"].iter_rows() for c in row]
    assert "Rule: minimum hosts" in cells
    ws = wb["Count and right-sizing"]
    texts = [c.value for row in ws.iter_rows() for c in row if isinstance(c.value, str)]
    assert any(t.startswith("3 hosts because min_hosts = 3") for t in texts)


def test_plan_without_count_reason_still_renders(small_plan):
    old = json.loads(json.dumps(small_plan))
    for p in old["pools"]:
        del p["count_reason"]
    del old["rightsizing"]
    assert "Binding dimension" in plan_html(old)
    assert "Count and right-sizing" not in plan_workbook(old).sheetnames


def test_headroom_is_the_declared_rule():
    assert HEADROOM == 1.2


def test_no_merge_tried_above_the_size_cap(tmp_path, monkeypatch):
    from vsizer.study import count_reason

    rows = SMALL.splitlines()
    body = [rows[0]] + [r.replace(",web,", ",api,") if i > 2 else r
                        for i, r in enumerate(rows[1:], 1)]
    f = tmp_path / "two.csv"
    f.write_text("\n".join(body) + "\n")
    n = len(body) - 1
    monkeypatch.setattr(count_reason, "MERGE_MAX_VMS", n - 1)
    doc = vsizer.plan(f, min_hosts=3).to_dict()
    assert [p["count_reason"]["suggestion"] for p in doc["pools"]] == [None, None]
    monkeypatch.setattr(count_reason, "MERGE_MAX_VMS", n)
    doc = vsizer.plan(f, min_hosts=3).to_dict()
    assert doc["pools"][0]["count_reason"]["suggestion"].startswith("merge with pool")


def _vcpu_problem(vcpus, *, failures=1, min_hosts=1):
    """VMs of 1 % CPU and ``vcpus`` vCPUs on hosts of 8 vCPUs (8 cores x 1)."""
    n = len(vcpus)
    return PlacementProblem(
        pool="p",
        vm_names=tuple(f"vm{i}" for i in range(n)),
        dims=("cpu", "vcpu"),
        demand=np.column_stack([np.ones(n), np.array(vcpus, dtype=float)]),
        capacity=np.array([100.0, 8.0]),
        base_load=np.zeros(2),
        limit=np.array([0.6, 1.0]),
        failover_limit=np.array([1.0, 1.0]),
        failures=failures,
        min_hosts=min_hosts,
        anti_affinity=np.full(n, -1, dtype=np.int64),
        pins=np.full(n, -1, dtype=np.int64),
    )


def test_vcpu_limit_is_the_rule_not_failover():
    """issue 23: 10 VMs of 4 vCPUs on hosts of 8 vCPUs: 5 hosts by vCPUs + N+1 = 6.
    Relaxing failover saves 1, relaxing the vCPU:core limit saves 4 (one host
    carries the 10 % of CPU, + N+1): the vCPU:core limit decided."""
    cr = _explain(_vcpu_problem([4] * 10))
    assert (cr.hosts, cr.binding) == (6, "vcpu_per_core")
    assert cr.relaxed == {"failover": 5, "vcpu_per_core": 2}
    assert cr.by_constraint["demand"] == 5 and cr.by_dimension["vcpu"] == 5
    assert cr.text == (
        "6 hosts because the vCPU:core limit (vCPUs alone need 5 hosts); demand "
        "alone needs 5; with failures = 0 this pool needs 5; without the vCPU:core "
        "limit this pool needs 2")


def test_vcpu_limit_wins_a_tie_with_failover():
    """3 VMs of 4 vCPUs: 2 hosts by vCPUs (1 by CPU) + N+1 = 3; relaxing
    failover gives 2, relaxing the vCPU:core limit 1 + N+1 = 2: a tie."""
    cr = _explain(_vcpu_problem([4, 4, 4]))
    assert cr.hosts == 3
    assert cr.relaxed == {"failover": 2, "vcpu_per_core": 2}
    assert cr.binding == "vcpu_per_core"


def test_vcpu_limit_not_in_force_when_another_dimension_binds_as_much():
    """The vCPU bound (1) is not above the CPU bound (1): no vcpu_per_core rule."""
    cr = _explain(_vcpu_problem([1, 1], failures=0))
    assert "vcpu_per_core" not in cr.relaxed and cr.binding == "demand"


def test_a_pool_above_the_relax_budget_gives_its_bounds_alone(monkeypatch):
    """RELAX_MAX_VMS: the anti-affinity pool above (3 VMs, budget 2) is not
    sized again; its reason is the bounds' (anti-affinity: 3 hosts), and the
    plan warns, naming the pool."""
    from vsizer.study import count_reason

    monkeypatch.setattr(count_reason, "RELAX_MAX_VMS", 2)
    cr = _explain(_problem([1, 1, 1], groups=[0, 0, 0]))
    assert (cr.hosts, cr.binding) == (3, "anti_affinity")
    assert cr.relaxed == {}
    assert cr.by_constraint["demand"] == 1
    assert cr.text == (
        "3 hosts because anti-affinity (a group needs 3 hosts); demand alone needs "
        "at least 1; not sized again with each rule relaxed (3 VMs, above 2)")
    # a pool its bounds do not explain: the demand bound named, not "several rules"
    cr = _explain(_problem([35, 35, 35, 35, 35]))  # 60 a host: 3 hosts, bound 3
    assert (cr.hosts, cr.binding) == (5, "demand")
    assert cr.text.startswith("5 hosts because demand (cpu); demand alone needs at least 3;")


def test_the_relax_budget_is_a_plan_warning(tmp_path, monkeypatch):
    from vsizer.study import count_reason

    f = tmp_path / "small.csv"
    f.write_text(SMALL)
    monkeypatch.setattr(count_reason, "RELAX_MAX_VMS", 4)
    doc = vsizer.plan(f, min_hosts=3).to_dict()
    got = [w for w in doc["warnings"] if w["code"] == "count_reason_budget"]
    assert [w["message"] for w in got] == [
        "pool 'web': its count reason gives the bounds alone: 5 VMs are above 4, past "
        "which the pool is not sized again with each rule relaxed"]
    assert doc["pools"][0]["count_reason"]["relaxed"] == {}
    monkeypatch.setattr(count_reason, "RELAX_MAX_VMS", 5)
    doc = vsizer.plan(f, min_hosts=3).to_dict()
    assert not [w for w in doc["warnings"] if w["code"] == "count_reason_budget"]
    assert doc["pools"][0]["count_reason"]["relaxed"] == {"min_hosts": 2, "failover": 3}


def test_sizings_relaxing_anti_affinity_share_their_placements(monkeypatch):
    """Anti-affinity relaxed alone, then with failover and min_hosts too: the two
    sizings place alike, so each (strategy, host count) is placed once; the
    counts are those of sizing each relaxed pool on its own."""
    from vsizer.placement import heuristics, sizing
    from vsizer.study import count_reason as cr

    demand = [20, 20, 15, 15, 10, 10, 25, 25, 5, 5, 30, 12]
    groups = [0, 0, 1, 1, 2, 2, 3, 3, -1, -1, 4, 4]
    problem = _problem(demand, failures=1, min_hosts=3, groups=groups)
    s = size_pool(problem)
    calls: list[tuple[str, int, bool]] = []
    for name, fn in list(heuristics.STRATEGIES.items()):
        def spy(p, n, *a, _fn=fn, _name=name, **k):
            calls.append((_name, n, bool((p.anti_affinity >= 0).any())))
            return _fn(p, n, *a, **k)
        monkeypatch.setitem(sizing.STRATEGIES, name, spy)
    reason = explain_pool(problem, s.n_hosts, s.lower_bound_detail, None, _Rules())
    relaxed = [c for c in calls if not c[2]]
    assert relaxed and len(relaxed) == len(set(relaxed))  # none placed twice
    alone = size_pool(cr._relax(problem, "anti_affinity")).n_hosts
    bare = cr._relax(cr._relax(cr._relax(problem, "min_hosts"), "failover"), "anti_affinity")
    assert reason.relaxed["anti_affinity"] == alone
    assert reason.by_constraint["demand"] == size_pool(bare).n_hosts
