"""Scalar plans at fleet scale (issue 15, item 2): the blocked greedy kernel
places exactly like the plain scan, the streamed JSON is byte for byte
``json.dumps``, the column-wise rounding is ``jsonable`` cell by cell."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np
import pandas as pd
import pytest

from tests.test_kernel import _fleet_problem
from vsizer._jsonable import jsonable, jsonable_column, write_json
from vsizer.placement import blocked, failover, heuristics
from vsizer.placement.heuristics import greedy_assign
from vsizer.placement.occupancy import GroupHosts
from vsizer.placement.sizing import size_pool

GOLDEN = Path(__file__).parent / "data" / "golden"


def _dumps(doc: Any) -> str:
    return json.dumps(doc, ensure_ascii=False, indent=2) + "\n"


def _streamed(doc: Any) -> str:
    fh = io.StringIO()
    write_json(doc, fh)
    return fh.getvalue()


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("*.json")), ids=lambda p: p.name)
def test_streamed_json_is_byte_identical_on_golden_plans(path: Path) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert _streamed(doc) == _dumps(doc) == path.read_text(encoding="utf-8")


def test_streamed_json_follows_json_on_every_kind_of_value() -> None:
    doc = {
        "scalars": [1, -2, 2.5, 1e-7, 1e22, 0.1 + 0.2, -0.0, True, False, None],
        "special": [math.nan, math.inf, -math.inf],
        "text": ["日本語", 'quote " back \\ slash', "ctl \x00 \n \u2028", ""],
        "empty": [[], {}, ()],
        "tuple": (1, (2, 3)),
        7: "int key", 2.5: "float key", True: "bool key", None: "none key",
        "long": list(range(300)),
        "wide": {f"k{i}": {"v": [i, {"w": i / 3}]} for i in range(100)},
        "deep": [[[[[{"a": [1, [2, {"b": []}]]}]]]]],
    }
    assert _streamed(doc) == _dumps(doc)
    assert _streamed([]) == "[]\n" and _streamed("x") == '"x"\n'


@pytest.mark.parametrize(
    "doc, message",
    [
        ({"a": {1, 2}}, "Object of type set is not JSON serializable"),
        ({(1,): 2}, "keys must be str, int, float, bool or None, not tuple"),
        ({"a": np.float64(1.0)}, None),  # a float subclass: json writes it too
    ],
)
def test_streamed_json_refuses_what_json_refuses(doc: Any, message: str | None) -> None:
    if message is None:
        assert _streamed(doc) == _dumps(doc)
        return
    with pytest.raises(TypeError, match=message):
        _dumps(doc)
    with pytest.raises(TypeError, match=message):
        _streamed(doc)


def test_jsonable_column_rounds_like_jsonable_cell_by_cell() -> None:
    df = pd.DataFrame(
        {
            "f": [1.23456789, -0.0000001, math.nan, math.inf, -math.inf, 2.0, 1e-7],
            "F": pd.array([0.1 + 0.2, None, -0.0, 3.0000004, 1.5, 2.0, 7.0], dtype="Float64"),
            "i": np.arange(7, dtype=np.int64),
            "I": pd.array([1, None, 3, 4, 5, None, 7], dtype="Int64"),
            "b": [True, False] * 3 + [True],
            "B": pd.array([True, None, False, True, None, False, True], dtype="boolean"),
            "s": pd.array(["a", None, "日本", "", "x", "y", "z"], dtype="string"),
            "o": ["a", None, 3, 2.5, np.float64(0.1234567891), np.int64(4), pd.NA],
        }
    )
    records = df.to_dict("records")
    for col in df:
        got = jsonable_column(df[col])
        want = [jsonable(r[col]) for r in records]
        assert got == want, col
        assert [type(v) for v in got] == [type(v) for v in want], col
    assert jsonable_column(df["f"])[:3] == [1.234568, 0.0, None]


def _instance(seed: int) -> tuple[Any, ...]:
    rng = np.random.default_rng(seed)
    hosts, vms, dims = int(rng.integers(40, 160)), int(rng.integers(100, 600)), int(
        rng.integers(1, 4)
    )
    demand = np.round(rng.random((vms, dims)) * rng.choice([0.05, 0.2, 0.5]), 2)
    groups = np.where(rng.random(vms) < 0.1, rng.integers(0, 4, vms), -1)
    pins = np.where(rng.random(vms) < 0.03, rng.integers(0, hosts + 2, vms), -1)
    loads = np.where(rng.random((hosts, dims)) < 0.3, rng.random((hosts, dims)) * 0.3, 0.0)
    allowed = rng.random(hosts) < 0.9
    order = np.argsort(-demand.max(axis=1), kind="stable")
    max_load = 0.9 * (1 + rng.random(dims))
    return order, demand, loads, max_load, groups, pins, allowed


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("rule", ["balanced", "best_fit"])
def test_blocked_kernel_places_exactly_like_the_plain_scan(seed: int, rule: str) -> None:
    """Same host per VM, same loads (bit for bit) and same anti-affinity
    occupancy, with groups, pins (some out of range), hosts not allowed,
    runs of identical VMs and VMs that fit nowhere."""
    order, demand, loads, max_load, groups, pins, allowed = _instance(seed)
    results = []
    with mock.patch.object(blocked, "MIN_HOSTS", 0):
        for use in (True, False):
            ld, occ = loads.copy(), GroupHosts.for_groups(groups, 4)
            out = greedy_assign(
                order, demand, ld, max_load, groups, occ, allowed, pins, rule, blocked=use,
                compiled=False,  # numpy's kernels (the compiled one: tests/test_kernel.py)
            )
            results.append((out, ld, occ.dense(len(loads))))
    (a, la, oa), (b, lb, ob) = results
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(la, lb)
    np.testing.assert_array_equal(oa, ob)


def test_stop_at_unplaced_stops_at_the_first_vm_that_fits_nowhere() -> None:
    demand = np.array([[0.6], [0.6], [0.6], [0.1]])
    args = (np.arange(4), demand)
    full = greedy_assign(*args, np.zeros((2, 1)), np.ones(1), np.full(4, -1),
                         GroupHosts.empty(np.ones(1, np.int64)), np.ones(2, bool), None, "balanced")
    cut = greedy_assign(*args, np.zeros((2, 1)), np.ones(1), np.full(4, -1),
                        GroupHosts.empty(np.ones(1, np.int64)), np.ones(2, bool), None, "balanced",
                        runs=False, stop_at_unplaced=True)
    assert full.tolist() == [0, 1, -1, 0]
    assert cut.tolist() == [0, 1, -1, -1]


def test_a_pool_of_many_hosts_is_sized_as_by_the_plain_scan() -> None:
    """Sizing (placement and the N+1 check on many hosts) gives the same plan
    with the blocked kernel as with the plain scan; its failover report is the
    full check of the chosen placement."""
    problem = _fleet_problem(2000)
    kernel = heuristics.greedy_assign

    def plain(*args: Any, **kwargs: Any) -> Any:
        return kernel(*args, **{**kwargs, "blocked": False, "compiled": False})

    def numpy_blocked(*args: Any, **kwargs: Any) -> Any:
        return kernel(*args, **{**kwargs, "compiled": False})

    with mock.patch.object(blocked, "MIN_HOSTS", 0), mock.patch.object(
        heuristics, "greedy_assign", numpy_blocked
    ), mock.patch.object(failover, "greedy_assign", numpy_blocked):
        fast = size_pool(problem)
    with mock.patch.object(heuristics, "greedy_assign", plain), mock.patch.object(
        failover, "greedy_assign", plain
    ):
        slow = size_pool(problem)
    assert fast.n_hosts == slow.n_hosts > 3 * blocked.BLOCK
    np.testing.assert_array_equal(fast.assignment, slow.assignment)
    assert fast.failover == slow.failover == failover.check(fast.placement)
    assert fast.failover.scenarios == fast.n_hosts and fast.survives


def test_the_benchmark_fleet_written_as_csv_plans_the_same(tmp_path: Path) -> None:
    """``bench_fleet.py --write-csv``: the CSV through ``vsizer plan`` gives the
    in-memory fleet's plan (the command-line figure of docs/performance.md uses it)."""
    from typer.testing import CliRunner

    from benchmarks.bench_fleet import HOST, fleet, write_csv
    from vsizer.cli import app
    from vsizer.study import ConsolidationStudy
    from vsizer.study.config import Rules

    servers, hosts = write_csv(tmp_path, 600)
    out = tmp_path / "plan.json"
    r = CliRunner().invoke(
        app, ["plan", str(servers), "--hosts", str(hosts), "--host-model", "fleet-host",
              "-q", "-o", str(out)],
    )
    assert r.exit_code == 0, r.output
    doc = json.loads(out.read_text(encoding="utf-8"))
    direct = ConsolidationStudy(fleet(600), HOST, Rules()).run().to_dict()
    assert doc["summary"]["hosts"] == direct["summary"]["hosts"]
    assert {p["name"]: p["host_count"] for p in doc["pools"]} == {
        p["name"]: p["host_count"] for p in direct["pools"]
    }


def test_the_japanese_benchmark_list_keeps_its_pairs_per_block(tmp_path: Path) -> None:
    """``bench_fleet.py --cli-only --ja`` (write_ja): the shipped 40-row list
    repeated, block k's names and partner names suffixed -k alike, so 80 rows
    plan 74 servers (37 of 40 a block) and no host holds both of a pair."""
    import csv

    from benchmarks.bench_fleet import write_ja
    from vsizer import plan

    servers, hosts = write_ja(tmp_path, 80)
    assert hosts is None and servers.read_bytes().count(b"\r\n") == 81
    rows = list(csv.reader(servers.read_text(encoding="utf-8").splitlines()))
    assert rows[0][0] == "サーバ名" and len(rows) == 81
    assert (rows[1][0], rows[1][24], rows[41][0], rows[41][24]) == (
        "hanbai-web01-0", "hanbai-web02-0", "hanbai-web01-1", "hanbai-web02-1")
    doc = plan(servers).to_dict()
    assert len(doc["servers"]) == 74
    host_of = {s["name"]: s["host"] for s in doc["servers"]}
    pairs = [(r[0], r[24]) for r in rows[1:] if r[24] and r[0] in host_of]
    # 13 partner cells a block (7 pairs: 6 named both ways, portal-web01 one way)
    assert len(pairs) == 26 and all(host_of[a] != host_of[b] for a, b in pairs)
