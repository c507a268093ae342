"""Hosts freed by the budgeted breakout search (vsizer/placement/breakout_reduce.py):
hand-computed cases, determinism, the Python twin, pins, anti-affinity and the budget."""

from __future__ import annotations

import numpy as np
import pytest

from vsizer.placement import _breakout, breakout_reduce
from vsizer.placement.breakout_reduce import reduce_hosts, slots_of
from vsizer.placement.series_fit import first_fit_series

# Sum 2.98, optimum 3 hosts of 1.0: {0.65, 0.34}, {0.52, 0.28, 0.2}, {0.44, 0.28, 0.27};
# first-fit decreasing needs 4.
BINS = [0.65, 0.52, 0.44, 0.34, 0.28, 0.28, 0.27, 0.2]


def _loads(curves: np.ndarray, assign: np.ndarray, n: int) -> np.ndarray:
    """Summed curves per host, by hand."""
    out = np.zeros((n,) + curves.shape[1:])
    for v, h in enumerate(assign.tolist()):
        out[h] += curves[v]
    return out


def _none(n: int) -> np.ndarray:
    return np.full(n, -1, dtype=np.int64)


def _random_curves(seed: int, n: int = 60, steps: int = 24) -> np.ndarray:
    rng = np.random.default_rng(seed)
    cpu = rng.beta(1.2, 6.0, size=(n, steps)) * rng.choice([0.3, 0.5, 0.8], (n, 1))
    return np.stack([cpu, np.full_like(cpu, 0.02)], axis=2)


def _reduce(curves: np.ndarray, **kw: object) -> tuple[np.ndarray, int, object]:
    a, n = first_fit_series(curves, np.ones(curves.shape[2]))
    kw = {"groups": _none(len(a)), "pins": _none(len(a)),
          "base_load": np.zeros(curves.shape[2]), **kw}
    res = reduce_hosts(curves, np.ones(curves.shape[2]), a, n, **kw)  # type: ignore[arg-type]
    return a, n, res


def test_frees_the_host_first_fit_decreasing_wastes():
    curves = np.array(BINS)[:, None, None]
    _, n, res = _reduce(curves)
    assert n == 4 and res.n_hosts == 3 and res.freed == 1
    assert (_loads(curves, res.assignment, 3) <= 1.0 + 1e-9).all()
    assert sorted(set(res.assignment.tolist())) == [0, 1, 2]


def test_flat_dimensions_are_one_slot():
    curves = _random_curves(0, n=5, steps=7)
    q = slots_of(curves, np.ones(2))
    assert q.shape == (5, 7 + 1)
    assert (q[:, -1] == 20_000_000).all()  # 0.02 of a host, in units of 1e9


@pytest.mark.parametrize("seed", [1, 2])
def test_fewer_hosts_every_step_fits_and_the_same_twice(seed: int):
    curves = _random_curves(seed)
    _, n, res = _reduce(curves)
    _, _, again = _reduce(curves)
    assert res.n_hosts < n
    assert np.array_equal(res.assignment, again.assignment)
    assert (_loads(curves, res.assignment, res.n_hosts) <= 1.0 + 1e-6).all()


def test_without_numba_the_python_search_gives_the_same_placement(monkeypatch):
    curves = _random_curves(3, n=40, steps=12)
    work = breakout_reduce.WORK_BUDGET // breakout_reduce.PYTHON_SHARE
    _, _, res = _reduce(curves, work=work)
    twin = getattr(_breakout.run, "py_func", _breakout.run)
    monkeypatch.setattr(_breakout, "get", lambda: None)
    monkeypatch.setattr(_breakout, "run", twin)
    _, _, plain = _reduce(curves)  # the default budget without numba: the same work
    assert np.array_equal(res.assignment, plain.assignment)
    assert (res.iterations, res.evaluations) == (plain.iterations, plain.evaluations)


def test_the_budget_is_counted_work():
    curves = _random_curves(4)
    _, n, res = _reduce(curves, work=1)
    assert res.n_hosts == n and res.freed == 0  # one search call, stopped at once
    budget = breakout_reduce.WORK_BUDGET
    assert breakout_reduce.work_budget(100) == budget
    assert breakout_reduce.work_budget(4 * breakout_reduce.BUDGET_VMS) == 2 * budget


def test_pins_stay_and_hosts_up_to_the_last_pinned_keep_their_index():
    curves = np.array(BINS)[:, None, None]
    a, n = first_fit_series(curves, np.ones(1))
    pins = _none(8)
    pins[0] = int(a[0])  # 0.65 pinned where first-fit put it
    res = reduce_hosts(curves, np.ones(1), a, n, groups=_none(8), pins=pins,
                       base_load=np.zeros(1))
    assert res.assignment[0] == a[0]
    assert (_loads(curves, res.assignment, res.n_hosts) <= 1.0 + 1e-9).all()


def test_anti_affinity_holds():
    curves = _random_curves(5, n=40)
    groups = _none(40)
    groups[:6] = 0  # six VMs on six different hosts
    a, n = first_fit_series(curves, np.ones(2), groups=groups)
    res = reduce_hosts(curves, np.ones(2), a, n, groups=groups, pins=_none(40),
                       base_load=np.zeros(2))
    assert len(set(res.assignment[:6].tolist())) == 6
    assert (_loads(curves, res.assignment, res.n_hosts) <= 1.0 + 1e-6).all()


def test_base_load_counts():
    curves = np.array(BINS)[:, None, None]
    a, n = first_fit_series(curves, np.ones(1), base_load=np.array([0.02]))
    res = reduce_hosts(curves, np.ones(1), a, n, groups=_none(8), pins=_none(8),
                       base_load=np.array([0.02]))
    assert (_loads(curves, res.assignment, res.n_hosts) + 0.02 <= 1.0 + 1e-9).all()
    assert res.n_hosts == n  # 2.98 + 3 x 0.02 = 3.04: three hosts cannot hold it


def test_an_empty_host_at_the_end_is_freed_first():
    curves = np.array(BINS)[:, None, None]
    a, n = first_fit_series(curves, np.ones(1))
    res = reduce_hosts(curves, np.ones(1), a, n + 1, groups=_none(8), pins=_none(8),
                       base_load=np.zeros(1))
    assert res.n_hosts == 3 and res.freed == 2
    assert (_loads(curves, res.assignment, 3) <= 1.0 + 1e-9).all()


def test_a_race_tries_hosts_least_loaded_first_alternating_the_smoothing(monkeypatch):
    # Five VMs of 0.9, 0.8, 0.7, 0.6, 0.5 alone on hosts of 1.0: no host can be freed.
    # The race starts RACE (4) tries, the least-loaded host first (4, 3, 2, 1), their
    # smoothing alternating 20, 200; as each stalls the next host joins (0), up to
    # TRIES; then the count is given up and the placement returned unchanged.
    monkeypatch.setattr(breakout_reduce, "STALL", 50)
    started = []
    start = breakout_reduce._Try.start.__func__

    def spy(cls, ctx, trial, h, live, smooth, loads=None):
        started.append((h, smooth))
        return start(cls, ctx, trial, h, live, smooth, loads)

    monkeypatch.setattr(breakout_reduce._Try, "start", classmethod(spy))
    curves = np.array([0.9, 0.8, 0.7, 0.6, 0.5])[:, None, None]
    a, n, res = _reduce(curves)
    assert n == 5 and res.n_hosts == 5 and res.freed == 0
    np.testing.assert_array_equal(res.assignment, a)
    assert started == [(4, 20), (3, 200), (2, 20), (1, 200), (0, 20)]


@pytest.mark.parametrize("seed", [3, 4])
def test_a_spread_on_given_loads_is_the_spread_and_leaves_its_loads(seed: int):
    """A race sums the hosts' loads once and hands each try a copy: the spread on
    them is the spread that sums them itself, the copy ends as the loads of the
    spread placement (the removed host's row keeps its VMs), and the try starts from
    the same overflow either way."""
    from vsizer.placement.breakout_reduce import (
        TOLERANCE,
        UNIT,
        _Context,
        _spread,
        _Try,
    )

    curves = _random_curves(seed)
    q = slots_of(curves, np.ones(2))
    a, n = first_fit_series(curves, np.ones(2))
    group = _none(len(a))
    cap = UNIT + TOLERANCE
    h = int(np.argmin(np.bincount(a, minlength=n)))
    live = np.flatnonzero(np.arange(n) != h)
    loads = np.zeros((n, q.shape[1]), dtype=np.int64)
    np.add.at(loads, a, q)
    before_h = loads[h].copy()
    plain = _spread(q, a, h, live, group, cap)
    given = _spread(q, a, h, live, group, cap, loads)
    assert plain is not None and given is not None
    assert given.tolist() == plain.tolist() and (given != h).all()
    expected = np.zeros_like(loads)
    np.add.at(expected, given, q)
    assert (loads[live] == expected[live]).all() and (loads[h] == before_h).all()
    ctx = _Context(_breakout.run, q, cap, np.ones(len(a), bool), group,
                   np.zeros(8), 10**9)
    summed = _Try.start(ctx, given, h, live, 20)
    handed = _Try.start(ctx, given, h, live, 20, loads)
    assert summed.stats.tolist() == handed.stats.tolist()
    assert summed.assign.tolist() == handed.assign.tolist()
