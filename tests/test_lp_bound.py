"""The LP bound of the CP-SAT model (issue 14, item 3) is the per-step bound.

The LP relaxation of the bin-packing model of :mod:`vsizer.placement.cpsat`
(``sum_h x[v,h] = 1``, ``sum_v q[v,t] x[v,h] <= S y[h]``, ``x[v,h] <= y[h]``,
``y[h] >= y[h+1]``, ``0 <= x, y <= 1``) has the optimum
``max(max_t sum_v q[v,t] / S, 1)``: the uniform ``x = 1/H`` with
``y = max(max_t sum_v q[v,t] / (H S), 1/H)`` is feasible and attains it, and
summing the capacity rows over hosts shows nothing lower is. So the LP bound
adds nothing to the plan's ``lower_bound`` (``ceil(max_t sum / C)``); only the
integer search (CP-SAT's proven bound, reported where the full model solves)
can raise it. This test solves the relaxation with GLOP to check the algebra.
"""

from __future__ import annotations

import numpy as np
import pytest

pywraplp = pytest.importorskip("ortools.linear_solver.pywraplp")

SCALE = 10_000


def _lp_value(q: np.ndarray) -> float:
    n, steps = q.shape
    hosts = n
    lp = pywraplp.Solver.CreateSolver("GLOP")
    x = [[lp.NumVar(0, 1, f"x{v}_{h}") for h in range(hosts)] for v in range(n)]
    y = [lp.NumVar(0, 1, f"y{h}") for h in range(hosts)]
    for v in range(n):
        lp.Add(sum(x[v]) == 1)
        for h in range(hosts):
            lp.Add(x[v][h] <= y[h])
    for h in range(hosts):
        for t in range(steps):
            lp.Add(sum(int(q[v, t]) * x[v][h] for v in range(n)) <= SCALE * y[h])
    for h in range(hosts - 1):
        lp.Add(y[h] >= y[h + 1])
    lp.Minimize(sum(y))
    assert lp.Solve() == pywraplp.Solver.OPTIMAL
    return float(lp.Objective().Value())


@pytest.mark.parametrize("seed", range(12))
def test_lp_relaxation_equals_the_per_step_bound(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, steps = int(rng.integers(4, 12)), int(rng.integers(2, 8))
    top = SCALE if seed % 3 else SCALE // 8  # coarse items, and items of 1/8 host
    q = rng.integers(0, top, size=(n, steps))
    expected = max(q.sum(axis=0).max() / SCALE, 1.0)
    assert _lp_value(q) == pytest.approx(expected, rel=1e-7, abs=1e-7)


def test_hand_case_two_half_items_and_a_peak() -> None:
    # Step 0: 0.5 + 0.5 + 0.9 = 1.9 hosts; step 1: 0.5 + 0.5 + 0.1 = 1.1.
    q = np.array([[5_000, 5_000], [5_000, 5_000], [9_000, 1_000]])
    assert _lp_value(q) == pytest.approx(1.9)
