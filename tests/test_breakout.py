"""The compiled breakout search of the overflow at a fixed host count
(``vsizer/placement/_breakout.py``, issue 14): the compiled function and its Python
twin make the same choices, a swap escapes where no move helps, anti-affinity and
pinned VMs hold, a packing known to exist is found, the work budget and the chunking
do not change the result, and ``--solver cp-sat`` reaches the lower bound with it
where the CP-SAT sub-problems alone stopped one host above."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.numba_helpers import without_numba
from vsizer.placement import _breakout

needs_numba = pytest.mark.skipif(not _breakout.available(), reason="numba not installed")

#: The Python source of the search (what numba compiles), run uncompiled.
TWIN = getattr(_breakout.run, "py_func", _breakout.run)


def _state(q: np.ndarray, assign: np.ndarray, n_hosts: int, cap: int,
           group: np.ndarray | None = None, movable: np.ndarray | None = None,
           seed: int = 0) -> dict[str, Any]:
    n = q.shape[0]
    group = np.full(n, -1, dtype=np.int64) if group is None else group
    gcount = np.zeros((max(int(group.max()) + 1, 1), n_hosts), dtype=np.int64)
    np.add.at(gcount, (group[group >= 0], assign[group >= 0]), 1)
    loads = np.zeros((n_hosts, q.shape[1]), dtype=np.int64)
    np.add.at(loads, assign, q)
    stats = np.zeros(5, dtype=np.int64)
    stats[_breakout.LEAST] = int(np.clip(loads - cap, 0, None).sum())
    return {
        "q": q.astype(np.int64), "assign": assign.astype(np.int64).copy(), "cap": cap,
        "movable": np.ones(n, dtype=bool) if movable is None else movable,
        "group": group, "gcount": gcount,
        "weight": np.ones((n_hosts, q.shape[1]), dtype=np.int64),
        "rand": np.random.default_rng(seed).random(64), "stats": stats,
        "best": assign.astype(np.int64).copy(),
    }


def _run(fn: Any, st: dict[str, Any], iters: int = 10_000, evals: int = 10**12,
         stall: int = 10_000) -> dict[str, Any]:
    fn(st["q"], st["assign"], st["cap"], st["movable"], st["group"], st["gcount"],
       st["weight"], st["rand"], st["stats"], st["best"], iters, evals, stall)
    return st


def _over(q: np.ndarray, assign: np.ndarray, n_hosts: int, cap: int) -> int:
    """Independent replay: load above ``cap`` summed over hosts and slots."""
    return sum(int(np.clip(q[assign == h].sum(axis=0) - cap, 0, None).sum())
               for h in range(n_hosts))


def _packable(seed: int, hosts: int = 6, per_host: int = 8, slots: int = 24,
              cap: int = 1000, fill: float = 0.93) -> tuple[np.ndarray, np.ndarray]:
    """VMs built host by host so that each host's VMs sum to at most ``fill`` x cap at
    every slot (a packing on ``hosts`` is known), and a shuffled start on as many
    hosts that overflows."""
    rng = np.random.default_rng(seed)
    parts = []
    for _ in range(hosts):
        share = rng.dirichlet(np.ones(per_host), size=slots).T  # (per_host, slots)
        parts.append(np.floor(share * fill * cap).astype(np.int64))
    q = np.concatenate(parts)
    start = rng.permutation(np.repeat(np.arange(hosts), per_host))
    return q, start.astype(np.int64)


def test_a_swap_ends_the_overflow_where_no_move_helps() -> None:
    # Host 0 holds 6 + 5 = 11 over its 10, host 1 holds 4 + 4 = 8: every single move
    # makes it worse (13 or 14 on host 1); swapping the 6 with the first 4 gives 9 and 10.
    q = np.array([[6], [5], [4], [4]])
    st = _run(TWIN, _state(q, np.array([0, 0, 1, 1]), 2, 10))
    assert st["stats"][_breakout.LEAST] == 0
    assert st["best"].tolist() == [1, 0, 0, 1]
    # The 6 and the second 4 in one anti-affinity group: the 6 may not join it on host 1
    # (the swap with the first 4), so it trades places with its partner (9 and 10).
    st = _run(TWIN, _state(q, np.array([0, 0, 1, 1]), 2, 10, group=np.array([0, -1, -1, 0])))
    assert st["stats"][_breakout.LEAST] == 0
    assert st["best"].tolist() == [1, 0, 1, 0]


def test_a_local_minimum_raises_the_weights_of_the_slots_over() -> None:
    # Three VMs of 6 (two slots) on two hosts of 10: one host always holds 12. By hand:
    # 1 no move lowers the weighted overflow (gain 4, cost 4): host 0's weights -> 2;
    # 2 the first VM moves (gain 8, cost 4); 3, 4 host 1 is over and stuck: its weights
    # -> 2, 3; 5 the VM moves back (gain 12, cost 8); 6, 7 host 0 stuck: weights -> 3, 4.
    # The least overflow (2 x 2) never falls, so `stall` = 7 ends it with the start.
    q = np.array([[6, 6], [6, 6], [6, 6]])
    st = _run(TWIN, _state(q, np.array([0, 0, 1]), 2, 10), stall=7)
    its, least, _, bumps, last = st["stats"].tolist()
    assert (its, least, bumps, last) == (7, 4, 5, 0)
    assert st["weight"].tolist() == [[4, 4], [3, 3]]
    assert st["assign"].tolist() == [0, 0, 1] and st["best"].tolist() == [0, 0, 1]


@pytest.mark.slow  # 12 CPU s for the four seeds
@pytest.mark.parametrize("seed", range(4))
def test_finds_a_packing_known_to_exist(seed: int) -> None:
    q, start = _packable(seed)
    assert _over(q, start, 6, 1000) > 0
    st = _run(_breakout.get() or TWIN, _state(q, start, 6, 1000, seed=seed))
    assert st["stats"][_breakout.LEAST] == 0
    assert _over(q, st["best"], 6, 1000) == 0
    assert np.bincount(st["best"], minlength=6).sum() == q.shape[0]


@needs_numba
@pytest.mark.parametrize("seed", range(3))
def test_compiled_and_python_twin_make_the_same_choices(seed: int) -> None:
    q, start = _packable(seed, hosts=5, per_host=7, slots=12, fill=0.97)
    group = np.where(np.arange(q.shape[0]) % 9 == 0, np.arange(q.shape[0]) % 2, -1)
    movable = np.arange(q.shape[0]) % 11 != 3
    got = [_run(fn, _state(q, start, 5, 1000, group, movable, seed), iters=300)
           for fn in (_breakout.get(), TWIN)]
    for key in ("assign", "best", "weight", "stats", "gcount"):
        np.testing.assert_array_equal(got[0][key], got[1][key], err_msg=key)


def test_pinned_vms_stay_and_groups_stay_apart() -> None:
    q, start = _packable(5, hosts=5, per_host=8, slots=16, fill=0.9)
    movable = np.ones(q.shape[0], dtype=bool)
    movable[:6] = False
    group = np.full(q.shape[0], -1, dtype=np.int64)
    spread = [i for i in range(6, q.shape[0]) if start[i] != start[6]][:3]
    group[[6, *spread]] = 0  # four VMs on distinct hosts at the start
    assert len(set(start[[6, *spread]].tolist())) == 4
    st = _run(_breakout.get() or TWIN, _state(q, start, 5, 1000, group, movable))
    for key in ("assign", "best"):
        assert st[key][:6].tolist() == start[:6].tolist()
        assert len(set(st[key][[6, *spread]].tolist())) == 4
    assert st["gcount"].max() <= 1


def test_chunks_and_budget_do_not_change_the_search() -> None:
    q, start = _packable(2, fill=0.97)
    fn = _breakout.get() or TWIN
    whole = _run(fn, _state(q, start, 6, 1000), iters=400)
    chunked = _state(q, start, 6, 1000)
    for _ in range(8):
        _run(fn, chunked, iters=50)
    for key in ("assign", "best", "weight", "stats"):
        np.testing.assert_array_equal(whole[key], chunked[key], err_msg=key)
    # A budget of slot evaluations stops it where the count passes it, the same each time.
    a = _run(fn, _state(q, start, 6, 1000), evals=50_000)
    b = _run(fn, _state(q, start, 6, 1000), evals=50_000)
    assert 50_000 <= a["stats"][_breakout.EVALS] < whole["stats"][_breakout.EVALS]
    np.testing.assert_array_equal(a["best"], b["best"])


def test_without_numba_get_is_none() -> None:
    with without_numba(_breakout):
        assert _breakout.get() is None and not _breakout.available()


def test_a_pool_the_wall_clock_stopped_gets_a_counted_warning() -> None:
    """``solver.stopped_by == "time_limit"`` is the one plan that depends on the
    machine: it is a counted warning naming the pool, its counts and the flags."""
    from types import SimpleNamespace

    from vsizer.study.config import Rules
    from vsizer.study.plan_warnings import solver_warnings

    def pool(name: str, stopped_by: str) -> Any:
        info = {"name": "cp-sat", "method": "lns", "hosts": 19, "bound": 18,
                "stopped_by": stopped_by}
        return SimpleNamespace(name=name, sizing=SimpleNamespace(solver=info))

    pools = [pool("web", "time_limit"), pool("db", "work_budget"), pool("app", "optimal"),
             SimpleNamespace(name="x", sizing=SimpleNamespace(solver=None))]
    got = solver_warnings(pools, Rules(solver="cp-sat", time_limit=60.0))
    assert [w.to_dict() for w in got] == [{
        "code": "solver_time_limit",
        "message": "Pool web: --time-limit (60 s) stopped the cp-sat search before its "
                   "own work budget ran out, at 19 hosts against a lower bound of 18; the "
                   "plan depends on how fast this machine ran, and another run may "
                   "differ. For a plan that is the same on every run, plan again on a "
                   "less busy machine, or use --solver heuristic.",
        "servers": [],
    }]


def test_weights_are_halved_towards_one_every_smooth_local_minima() -> None:
    # One host, two VMs of 6 against 10: no move exists, every iteration is a local
    # minimum and raises slot 0's weight by one; at the SMOOTH-th (20) it is then halved
    # towards one: 21 -> 11. Slot 1 is never over and stays at 1.
    q = np.array([[6, 1], [6, 1]])
    for iters, want in ((_breakout.SMOOTH - 1, _breakout.SMOOTH),
                        (_breakout.SMOOTH, 1 + _breakout.SMOOTH // 2),
                        (_breakout.SMOOTH + 5, 1 + _breakout.SMOOTH // 2 + 5)):
        st = _run(TWIN, _state(q, np.array([0, 0]), 1, 10), iters=iters)
        assert st["weight"].tolist() == [[want, 1]]
        assert st["stats"][_breakout.BUMPS] == iters


def _py(name: str) -> Any:
    """The Python source of one of the search's functions (what numba compiles)."""
    fn = getattr(_breakout, name)
    return getattr(fn, "py_func", fn)


def test_an_ejection_chain_moves_a_vm_on_and_the_vm_it_displaces_where_it_fits() -> None:
    # One slot, hosts of 10: host 0 holds 6 + 5 (11), host 1 holds 5 + 4 (9), host 2 a 5.
    # Candidates by least load at host 0's slot over: host 2 (5), then host 1 (9).
    # The 6 to host 2 makes 11 there, and its 5 fits nowhere else whole (host 1: 14);
    # the 6 to host 1 makes 15: its first 5 covers the 5 over and fits on host 2 (10).
    q = np.array([[6], [5], [5], [4], [5]], dtype=np.int64)
    assign = np.array([0, 0, 1, 1, 2], dtype=np.int64)
    loads = np.array([[11], [9], [5]], dtype=np.int64)
    over = np.array([1, 0, 0], dtype=np.int64)
    stats = np.zeros(5, dtype=np.int64)
    got = _py("_eject")(q, loads, over, assign, np.ones(5, dtype=bool),
                        np.full(5, -1, dtype=np.int64), np.zeros((1, 3), dtype=np.int64),
                        np.array([0, 1]), 2, 0, 10, np.array([2, 1]), stats)
    assert got == (0, 1, 2, 2)
    # Host 2 already over: no chain.
    assert _py("_eject")(q, loads, np.array([1, 0, 1]), assign, np.ones(5, dtype=bool),
                         np.full(5, -1, dtype=np.int64), np.zeros((1, 3), dtype=np.int64),
                         np.array([0, 1]), 2, 0, 10, np.array([2, 1]),
                         stats) == (-1, -1, -1, -1)
    # Host 1's 5 in an anti-affinity group with host 2's 5: it may not go there, so
    # host 0's 5 goes to host 1 (14) and host 1's 4 on to host 2 (9).
    group = np.array([-1, -1, 0, -1, 0])
    gcount = np.array([[0, 1, 1]])
    assert _py("_eject")(q, loads, over, assign, np.ones(5, dtype=bool), group, gcount,
                         np.array([0, 1]), 2, 0, 10, np.array([2, 1]),
                         stats) == (1, 1, 3, 2)


def test_candidates_are_the_hosts_with_least_load_where_the_host_is_over() -> None:
    # Host 0 is over at slots 0 and 2 (cap 10): hosts 1-4 carry 9, 3, 3, 12 there,
    # so the two candidates are hosts 2 and 3 (a tie: lowest index first), then 1.
    loads = np.array([[12, 1, 11], [4, 0, 5], [1, 9, 2], [2, 0, 1], [6, 0, 6]])
    cand = np.empty(5, dtype=np.int64)
    is_cand = np.zeros(5, dtype=bool)
    stats = np.zeros(5, dtype=np.int64)
    n = _py("_candidates")(loads, 0, 10, cand, is_cand, 2, stats)
    assert (n, cand[:n].tolist(), is_cand.tolist()) == (2, [2, 3], [0, 0, 1, 1, 0])
    n = _py("_candidates")(loads, 0, 10, cand, is_cand, 3, stats)
    assert cand[:n].tolist() == [2, 3, 1]
    # At least every other host: all of them, in index order (the search without
    # candidates).
    n = _py("_candidates")(loads, 0, 10, cand, is_cand, 16, stats)
    assert cand[:n].tolist() == [1, 2, 3, 4]
