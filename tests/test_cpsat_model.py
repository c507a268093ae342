"""The CP-SAT model of ``--solver cp-sat`` (issue 15): written from numpy arrays, flat
dimensions one row per host, memory-bounded with a one-line refusal, and OR-Tools'
out-of-memory turned into the same kind of line."""

from __future__ import annotations

import numpy as np
import pytest

from tests.placement_helpers import problem

pytest.importorskip("ortools")

from ortools.sat.python import cp_model  # noqa: E402

from vsizer.errors import ConfigError  # noqa: E402
from vsizer.placement import cpsat_model  # noqa: E402
from vsizer.placement.cpsat_model import (  # noqa: E402
    BinModel,
    flat_dims,
    memory_guard,
    model_terms,
    search_bytes,
)
from vsizer.placement.curve_sizing import size_pool_on_curves  # noqa: E402
from vsizer.placement.lns_empty import empty_host  # noqa: E402
from vsizer.placement.lns_exact import solve_exact  # noqa: E402

NONE = np.full(4, -1, dtype=np.int64)


def two_dims() -> np.ndarray:
    """Four VMs x 3 steps x (cpu varying, mem flat), in units of 1/1,000 host."""
    cpu = np.array([[600, 100, 300], [500, 200, 300], [100, 600, 400], [100, 500, 400]])
    mem = np.full((4, 3), 300)
    return np.stack([cpu, mem], axis=2)


def test_flat_dimension_is_one_row_per_host() -> None:
    q = two_dims()
    assert flat_dims(q).tolist() == [False, True]
    bm = BinModel.build(cp_model, q, [0, 1, 2], flat_dims(q), 2, scale=1000,
                        groups=NONE, pins=NONE)
    # cpu: 3 steps x 2 hosts (each step's total is above one host: 1,300, 1,400, 1,400);
    # mem: 1 row x 2 hosts (1,200 > 1,000), not 3 x 2; plus 2 "host used" rows.
    assert bm.rows == 3 * 2 + 1 * 2 + 2
    assert bm.terms == bm.rows * 5  # 4 VMs + y per row
    assert model_terms(q, [0, 1, 2], flat_dims(q), 2) == 3 * 4 * 2 + 2 + 4 * 2 * 4
    bm.minimize_hosts(1, 2)
    cp = cp_model.CpSolver()
    assert cp.solve(bm.model) == cp_model.OPTIMAL
    assign = bm.assignment(cp)
    # a and b peak at step 0, c and d at step 1: {a, c} and {b, d} (or the mirror)
    assert assign[0] == assign[2] != assign[1] == assign[3]


def test_search_estimate_is_values_and_terms() -> None:
    assert search_bytes(1_000, 10) == 1_000 * 4 + 10 * 64


def coarse_pool(n: int = 24, steps: int = 4):
    rng = np.random.default_rng(0)
    curves = rng.uniform(100, 300, (n, steps, 1)).round()
    p = problem(curves.max(axis=1).tolist(), [1000.0], dims=("cpu",), ceiling=1.0,
                failures=0, min_hosts=1)
    return p, curves


def test_too_large_a_search_is_refused_in_one_line(monkeypatch) -> None:
    p, curves = coarse_pool()
    monkeypatch.setattr(cpsat_model, "MAX_MODEL_BYTES", 1_000)
    with pytest.raises(ConfigError) as err:
        size_pool_on_curves(p, curves, solver="cp-sat", time_limit=5)
    msg = str(err.value)
    assert "\n" not in msg
    assert msg.startswith("--solver cp-sat: the search of 24 VMs on ")
    assert "above the limit of 0.0 GB (vsizer.placement.cpsat_model.MAX_MODEL_BYTES); " \
           "use --solver heuristic, split the pool (fewer VMs per pool), or a coarser " \
           "--step; --time-limit does not bound memory." in msg


@pytest.mark.parametrize("error", [MemoryError(), RuntimeError("std::bad_alloc")])
def test_out_of_memory_in_or_tools_is_one_line(monkeypatch, error) -> None:
    p, curves = coarse_pool()

    def boom(*args, **kwargs):
        raise error

    monkeypatch.setattr(BinModel, "build", boom)
    free = np.full(24, -1, dtype=np.int64)
    with pytest.raises(ConfigError) as err:  # one VM per host: the model is built
        solve_exact(curves, np.array([1000.0]), base_load=np.zeros(1), groups=free,
                    pins=free, start=np.arange(24), bound=1, time_limit=5)
    assert str(err.value).startswith("--solver cp-sat: the model of 24 VMs on 24 hosts ")
    assert "ran out of memory (std::bad_alloc); use --solver heuristic" in str(err.value)


def test_other_runtime_errors_are_not_hidden() -> None:
    with pytest.raises(RuntimeError, match="something else"), memory_guard("x"):
        raise RuntimeError("something else")


def test_cli_refusal_is_one_error_line(monkeypatch, tmp_path) -> None:
    from tests.test_plan_series import run, write_planetlab

    folder = write_planetlab(tmp_path / "20260105",
                             {f"vm{i}": [10 + i, 50, 20 + i] * 96 for i in range(30)})
    monkeypatch.setattr(cpsat_model, "MAX_MODEL_BYTES", 1_000)
    r = run("plan", "--series", str(folder), "--series-format", "planetlab",
            "--vm-cpu-mhz", "1000", "--vm-mem-gib", "1", "--solver", "cp-sat", "-q")
    assert r.exit_code == 2, r.output
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: --solver cp-sat: the search of 30 VMs")
    assert "Traceback" not in r.output


def test_empty_host_moves_a_partner_vm_to_make_room() -> None:
    # Target 0 holds 400; host 1 holds 600 + 300, host 2 holds 700 (units of 1/1,000).
    # The 400 fits nowhere as things stand; {600, 400} and {700, 300} do: the 300 moves
    # from host 1 to host 2 and the 400 takes its place.
    q = np.array([400, 600, 300, 700], dtype=np.int32)[:, None, None].repeat(2, axis=1)
    assign = np.array([0, 1, 1, 2], dtype=np.int64)
    loads = np.zeros((3, 2, 1), dtype=np.int64)
    np.add.at(loads, assign, q)
    res = empty_host(cp_model, q, assign, loads, flat_dims(q), NONE, NONE, [0, 1, 2],
                     scale=1000, work=5.0, wall_left=lambda: 10.0)
    assert res.move is not None
    vms, hosts = res.move
    after = assign.copy()
    after[vms] = hosts
    assert 0 not in after.tolist()  # {400, 600} and {300, 700}, on either partner
    assert after[0] == after[1] != after[2] == after[3]


def test_empty_host_keeps_anti_affinity_with_vms_that_stay() -> None:
    # As above, but the 300 shares a group with the 700: it may not join it, and
    # nothing else empties the target (proven).
    q = np.array([400, 600, 300, 700], dtype=np.int32)[:, None, None].repeat(2, axis=1)
    assign = np.array([0, 1, 1, 2], dtype=np.int64)
    loads = np.zeros((3, 2, 1), dtype=np.int64)
    np.add.at(loads, assign, q)
    groups = np.array([-1, -1, 5, 5], dtype=np.int64)
    res = empty_host(cp_model, q, assign, loads, flat_dims(q), NONE, groups, [0, 1, 2],
                     scale=1000, work=5.0, wall_left=lambda: 10.0)
    assert res.move is None and res.infeasible
