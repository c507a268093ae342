"""Lower bound on hosts from the configuration LP, by column generation (small pools).

A *configuration* is a set of VMs whose summed curve stays within the usable load at
every step of every dimension (and holds at most one VM of an anti-affinity group).
Every placement on the curves is a choice of configurations covering each VM, so the
fewest hosts is at least the optimum of the configuration LP of P. C. Gilmore and
R. E. Gomory, "A linear programming approach to the cutting-stock problem",
Operations Research 9(6), 1961::

    min sum_c lambda_c   s.t.  sum_{c ∋ v} lambda_c >= 1 for every VM v,  lambda >= 0.

It is solved by column generation: the restricted master LP (scipy's HiGHS) gives
duals ``pi`` >= 0; the pricing problem, a multi-dimensional 0-1 knapsack over the
(step, dimension) rows (max sum pi_v x_v with every row's load <= 1), finds the
configuration of largest dual value, first greedily (cheap) and, when the greedy
finds none worth adding, exactly with scipy's MILP (HiGHS, ``node_limit`` nodes).

The bound is valid whatever the budgets stop: for any ``pi`` >= 0 and any ``U`` at or
above the pricing optimum, ``pi / U`` is dual feasible, so the LP optimum is at least
sum(pi) / U (A. A. Farley, "A note on bounding a class of linear programming
problems, including cutting stock problems", Operations Research 38(5), 1990). ``U``
is the MILP's proven dual bound or the pricing LP relaxation's by weak duality (never
a primal value), so the bound needs no convergence; with no such bound there is no bound from that ``pi``. The host count is
an integer: ceil(sum(pi) / U - 1e-6). Rows are a relaxation of the placement's own
test (a load up to the usable load plus 1e-4 of the host's max load fits, looser than
:mod:`vsizer.placement.series_fit`'s check), pins and failover are left out (a relaxation
too), so the bound never exceeds the fewest hosts of a placement at the ceiling.

Budgets are counts, never time, so the bound is the same on every run:
:data:`MAX_ITERATIONS` master solves, :data:`MAX_EXACT` exact pricings of
:data:`NODE_LIMIT` branch-and-bound nodes each, the :data:`MAX_ROWS` busiest
(step, dimension) rows, :data:`MAX_VMS` VMs in the pool (above, no bound is tried).
"""

from __future__ import annotations

import contextlib
import ctypes
import math
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

#: Most VMs of a pool the configuration LP is tried on. Measured on PlanetLab VMs in the
#: CloudSim setting (benchmarks/bench_cg_bound.py; 288 steps, budgets below): 3-13 CPU s
#: at 100 VMs when the generation runs to its budget, the MILP pricing most of it
#: (about 1-2 s each); 200 VMs gain nothing there (the bound stays the per-step one).
MAX_VMS = 100
#: Restricted master LP solves (column generation iterations).
MAX_ITERATIONS = 60
#: Branch-and-bound nodes of each exact pricing MILP (scipy.optimize.milp node_limit).
NODE_LIMIT = 50
#: Most exact (MILP) pricings in all: each costs about 1 CPU s at 100 VMs x 288 steps.
MAX_EXACT = 5
#: An exact pricing every this many iterations even while the greedy still finds columns,
#: so that a Farley bound is available if the iterations run out.
EXACT_EVERY = 20
#: Most (step, dimension) rows kept, the busiest (largest summed load): a configuration
#: then need only fit at those, a relaxation, so the bound stays valid on long curves
#: while its cost stays that of a day at 5-minute steps (288 rows). Measured at 100 VMs
#: with every row kept: 288 rows 7 CPU s, 2,016 rows 35 s, 8,640 rows 170 s.
MAX_ROWS = 300
#: Greedy pricings started from each of this many VMs of largest dual.
SEEDS = 8
#: Weight of the stabilization center in the smoothed duals (Wentges 1997).
SMOOTHING = 0.8
#: A configuration may exceed the usable load by this much (units of the host's max load,
#: capacity x ceiling): looser than the placement's own check (1e-6 of the max load on
#: float32 sums, :mod:`vsizer.placement.series_fit`) with its round-off, so no set of
#: VMs a placement accepts on one host is left out (the bound stays a relaxation).
SLACK = 1e-4
#: And the rows (units of that widened load) by this much more: the solvers' tolerance.
TOL = 1e-6
#: A column is worth adding when its dual value is above 1 + this.
IMPROVE = 1e-7
#: Relative widening of the MILP's dual bound (its tolerances).
SAFETY = 1e-6
#: The bound is ceil(value - ROUND): guards the LP and MILP tolerances.
ROUND = 1e-6


@dataclass(frozen=True)
class ConfigLpBound:
    """What the column generation proved.

    ``bound``: ceil of the best Farley bound, at least the per-step one it starts from
    (None when not tried); ``lp``: the last restricted master's value (an upper bound
    on the LP optimum); ``farley``: the best Farley value (a lower bound on it);
    ``iterations``: master solves; ``exact``: MILP pricings; ``status``: "optimal"
    (the LP optimum reached), "target" (the bound reached ``target`` or the master's
    ceiling), "no-gain" (the master shows the LP cannot beat ``floor``), "budget"
    (master solves or MILP pricings ran out), "stalled" (no column found, none proven
    absent: the MILP stopped at its node limit), "no-scipy", "too-large".
    """

    bound: int | None
    lp: float
    farley: float
    iterations: int
    exact: int
    status: str


def available() -> bool:
    """Whether scipy (its HiGHS LP and MILP) is importable."""
    try:
        import scipy.optimize  # noqa: F401
    except ImportError:  # pragma: no cover - scipy ships with the 'fit' extra
        return False
    return True


def rows_of(
    demand: npt.NDArray[np.floating], usable: npt.NDArray[np.float64],
    max_load: npt.NDArray[np.float64] | None = None,
) -> npt.NDArray[np.float64]:
    """The knapsack rows, shape (n_vms, n_rows): each (step, dimension) load in units
    of the usable load plus :data:`SLACK` x ``max_load`` (default: ``usable``), without
    rows no set of VMs can exceed and duplicates, the :data:`MAX_ROWS` busiest of them
    without those another row dominates (every VM at or above it there)."""
    n = demand.shape[0]
    load = usable + SLACK * (usable if max_load is None else max_load)
    a = (np.asarray(demand, dtype=np.float64) / load).reshape(n, -1)
    a = a[:, a.sum(axis=0) > 1.0 + TOL]  # never binding: all VMs together fit there
    if not a.shape[1]:
        return a
    a = np.unique(a.T, axis=0).T  # sorted: deterministic
    if a.shape[1] > MAX_ROWS:  # the busiest rows (fewer rows: a relaxation, still valid)
        busiest = np.argsort(-a.sum(axis=0), kind="stable")[:MAX_ROWS]
        a = a[:, np.sort(busiest)]
    keep = np.ones(a.shape[1], dtype=bool)
    for r in range(a.shape[1]):  # drop r when another kept row is >= it everywhere
        others = keep.copy()
        others[r] = False
        cols = a[:, others]
        if cols.size and bool((cols >= a[:, r : r + 1]).all(axis=0).any()):
            keep[r] = False
    return a[:, keep]


def _group_rows(groups: npt.NDArray[np.int64] | None, n: int) -> npt.NDArray[np.float64]:
    """One row per anti-affinity group of two or more VMs: at most one of them a host."""
    if groups is None:
        return np.zeros((n, 0))
    ids = [g for g in np.unique(groups[groups >= 0]) if int((groups == g).sum()) > 1]
    return np.stack([(groups == g).astype(float) for g in ids], axis=1) if ids else (
        np.zeros((n, 0)))


@dataclass
class _Columns:
    """The configurations of the restricted master, as a 0-1 matrix (VMs x columns)."""

    cols: list[npt.NDArray[np.bool_]]
    seen: set[bytes]

    def add(self, col: npt.NDArray[np.bool_]) -> bool:
        key = np.packbits(col).tobytes()
        if key in self.seen or not col.any():
            return False
        self.seen.add(key)
        self.cols.append(col)
        return True

    def matrix(self) -> npt.NDArray[np.float64]:
        return np.stack(self.cols, axis=1).astype(np.float64)


def _master(cols: _Columns) -> tuple[float, npt.NDArray[np.float64]]:
    """The restricted master's value and duals (clipped at 0)."""
    from scipy.optimize import linprog

    a = cols.matrix()
    n, m = a.shape
    res = linprog(np.ones(m), A_ub=-a, b_ub=-np.ones(n), bounds=(0, None), method="highs")
    if res.status != 0:  # pragma: no cover - singletons make it feasible and bounded
        raise RuntimeError(f"configuration LP master: {res.message}")
    pi = np.maximum(-np.asarray(res.ineqlin.marginals, dtype=np.float64), 0.0)
    return float(res.fun), pi


def _greedy(
    rows: npt.NDArray[np.float64], pi: npt.NDArray[np.float64]
) -> list[npt.NDArray[np.bool_]]:
    """Configurations packed greedily by pi per size (peak row, mean row, pi alone),
    and by pi per peak from each of the :data:`SEEDS` VMs of largest pi put first;
    those of dual value above 1."""
    n = rows.shape[0]
    peak = rows.max(axis=1) if rows.shape[1] else np.zeros(n)
    mean = rows.mean(axis=1) if rows.shape[1] else np.zeros(n)
    tiny = 1e-12
    by_peak = np.lexsort((np.arange(n), -pi / (peak + tiny)))
    orders = [
        by_peak,
        np.lexsort((np.arange(n), -pi / (mean + tiny))),
        np.lexsort((np.arange(n), -pi)),
    ]
    for seed in orders[2][:SEEDS].tolist():
        orders.append(np.concatenate([[seed], by_peak[by_peak != seed]]))
    found = []
    for order in orders:
        col = _pack(rows, pi, order)
        if float(pi[col].sum()) > 1.0 + IMPROVE:
            found.append(col)
    return found


def _pack(
    rows: npt.NDArray[np.float64], pi: npt.NDArray[np.float64], order: npt.NDArray[np.int64]
) -> npt.NDArray[np.bool_]:
    """VMs of positive pi taken in ``order`` while the rows hold."""
    load = np.zeros(rows.shape[1])
    col = np.zeros(rows.shape[0], dtype=bool)
    for v in order.tolist():
        if pi[v] <= 0:
            continue
        nxt = load + rows[v]
        if bool((nxt <= 1.0 + TOL).all()):
            load = nxt
            col[v] = True
    return col


def _relaxed_bound(rows: npt.NDArray[np.float64], pi: npt.NDArray[np.float64]) -> float:
    """An upper bound on max pi.x over configurations from the pricing's LP relaxation
    (max pi.x, rows' loads <= 1 + TOL, 0 <= x <= 1), certified by weak duality: for any
    row duals y >= 0, pi.x <= (1 + TOL) sum(y) + sum(max(0, pi_v - rows_v.y)), however
    accurately the LP was solved."""
    from scipy.optimize import linprog

    if not rows.shape[1]:
        return float(pi.sum())
    res = linprog(-pi, A_ub=rows.T, b_ub=np.full(rows.shape[1], 1.0 + TOL), bounds=(0, 1),
                  method="highs")
    y = np.zeros(rows.shape[1])
    if res.status == 0:
        y = np.maximum(-np.asarray(res.ineqlin.marginals, dtype=np.float64), 0.0)
    z = np.maximum(pi - rows @ y, 0.0)
    return float((1.0 + TOL) * y.sum() + z.sum())


@contextlib.contextmanager
def _quiet_stdout() -> Iterator[None]:
    """File descriptor 1 sent to the null device for the block: HiGHS's MILP (scipy
    1.17) prints a debug line ("HighsMipSolverData::transformNewIntegerFeasibleSolution
    tmpSolver.run();") from C to stdout whatever its display option, which would reach
    the plan's terminal output and a JSON written to stdout."""
    sys.stdout.flush()
    try:
        saved, null = os.dup(1), os.open(os.devnull, os.O_WRONLY)
    except OSError:  # pragma: no cover - no descriptor 1 to silence
        yield
        return
    os.dup2(null, 1)
    try:
        yield
    finally:
        _flush_c_stdout()
        os.dup2(saved, 1)
        os.close(saved)
        os.close(null)


def _flush_c_stdout() -> None:
    """The C library's stdout buffer written out (to the null device, in
    :func:`_quiet_stdout`), so no line of the solver's comes out later."""
    with contextlib.suppress(OSError, AttributeError, TypeError):  # no C library handle
        ctypes.CDLL(None).fflush(None)


def _exact(
    rows: npt.NDArray[np.float64], pi: npt.NDArray[np.float64], node_limit: int
) -> tuple[float | None, npt.NDArray[np.bool_] | None]:
    """Pricing by MILP: (proven upper bound U on max pi.x over configurations, the best
    configuration found); U None when the solver gives no finite dual bound. The dual
    bound is widened by :data:`SAFETY` for the solver's tolerances."""
    from scipy.optimize import Bounds, LinearConstraint, milp

    n = rows.shape[0]
    cons = [LinearConstraint(rows.T, -np.inf, 1.0 + TOL)] if rows.shape[1] else []
    with _quiet_stdout():
        res = milp(
            -pi, constraints=cons, integrality=np.ones(n), bounds=Bounds(0, 1),
            options={"node_limit": node_limit, "presolve": False},
        )
    dual = getattr(res, "mip_dual_bound", None)
    bound = None
    if dual is not None and math.isfinite(dual):
        bound = -float(dual) * (1.0 + SAFETY) + SAFETY
    if res.x is None:
        return bound, None
    col = np.asarray(res.x) > 0.5
    ok = bool((rows[col].sum(axis=0) <= 1.0 + TOL).all()) if rows.shape[1] else True
    return bound, col if ok else None


def configuration_lp_bound(
    demand: npt.NDArray[np.floating],
    usable: npt.NDArray[np.float64],
    *,
    groups: npt.NDArray[np.int64] | None = None,
    max_load: npt.NDArray[np.float64] | None = None,
    start: npt.NDArray[np.int64] | None = None,
    floor: int = 0,
    target: int | None = None,
    max_iterations: int = MAX_ITERATIONS,
    node_limit: int = NODE_LIMIT,
    max_vms: int = MAX_VMS,
) -> ConfigLpBound:
    """The configuration LP bound on hosts for placing ``demand`` (n_vms, n_steps,
    n_dims) within ``usable`` (n_dims,) per host at every step.

    ``groups``: anti-affinity ids (-1 none); ``max_load``: capacity x ceiling
    (default ``usable``; with a base load it is larger, see :data:`SLACK`); ``start``: a placement (host per VM)
    whose hosts seed the master with the singletons; ``floor``: a bound already
    known (the search stops once the master shows it cannot be beaten);
    ``target``: hosts of a known placement (no need to prove more). See the module
    docstring for the method and budgets.
    """
    n = demand.shape[0]
    if n > max_vms:
        return ConfigLpBound(None, math.inf, 0.0, 0, 0, "too-large")
    if not available():  # pragma: no cover - scipy ships with the 'fit' extra
        return ConfigLpBound(None, math.inf, 0.0, 0, 0, "no-scipy")
    rows = np.concatenate([rows_of(demand, usable, max_load), _group_rows(groups, n)], axis=1)
    if not rows.shape[1]:  # every VM fits on one host at every step
        return ConfigLpBound(1 if n else None, float(n > 0), float(n > 0), 0, 0, "optimal")
    cols = _Columns([], set())
    for v in range(n):
        cols.add(np.arange(n) == v)
    if start is not None:
        for h in np.unique(start).tolist():
            cols.add(start == h)
    return _generate(rows, cols, floor, target, max_iterations, node_limit)


@dataclass
class _Center:
    """The duals of the best Farley bound so far (the stabilization center)."""

    pi: npt.NDArray[np.float64]
    value: float = 0.0

    def offer(self, pi: npt.NDArray[np.float64], u: float | None) -> None:
        """Farley's bound sum(pi) / u; kept when above the best."""
        if u is not None and u > 0 and float(pi.sum()) / u > self.value:
            self.pi, self.value = pi, float(pi.sum()) / u


def _generate(
    rows: npt.NDArray[np.float64], cols: _Columns, floor: int, target: int | None,
    max_iterations: int, node_limit: int,
) -> ConfigLpBound:
    """The column generation loop (see :func:`configuration_lp_bound`).

    Duals are smoothed (Wentges, "Weighted Dantzig-Wolfe decomposition for linear
    mixed-integer programming", Int. Trans. Oper. Res. 4(2), 1997): the pricing runs at
    SMOOTHING x center + (1 - SMOOTHING) x the master's duals, the center being the
    duals of the best Farley bound, first the busiest row's loads (whose bound is the
    per-step one). Each iteration adds the greedy columns of both duals and bounds the
    pricing at the smoothed duals by its LP relaxation; the MILP bounds it every
    :data:`EXACT_EVERY` iterations, and whenever the greedy finds no column for the
    master's duals (its column is added).
    """
    busiest = int(np.argmax(rows.sum(axis=0)))
    center = _Center(rows[:, busiest].copy())
    center.offer(center.pi, 1.0 + TOL)
    value, exact, it, status = math.inf, 0, 0, "budget"
    while it < max_iterations:
        it += 1
        value, pi = _master(cols)
        top = math.ceil(value - ROUND)  # no LP bound above the master's value
        if top <= floor:
            status = "no-gain"
            break
        sep = SMOOTHING * center.pi + (1.0 - SMOOTHING) * pi
        new = [c for c in _greedy(rows, pi) + _greedy(rows, sep) if cols.add(c)]
        center.offer(sep, _relaxed_bound(rows, sep))
        if it % EXACT_EVERY == 0 and exact < MAX_EXACT:
            exact += 1
            center.offer(sep, _exact(rows, sep, node_limit)[0])
        if not any(float(pi[c].sum()) > 1.0 + IMPROVE for c in new):
            u = _relaxed_bound(rows, pi)
            if u <= 1.0 + 10 * SAFETY:  # no column prices out: the master is optimal
                center.offer(pi, u)
                status = "optimal"
                break
            if exact >= MAX_EXACT:
                break  # the greedy finds no column and no MILP is left: "budget"
            exact += 1
            u_milp, col = _exact(rows, pi, node_limit)
            center.offer(pi, u_milp)
            if u_milp is not None and u_milp <= 1.0 + 10 * SAFETY:
                status = "optimal"
                break
            if col is None or not (float(pi[col].sum()) > 1.0 + IMPROVE and cols.add(col)):
                status = "stalled"  # no column found, none proven absent (MILP's nodes)
                break
        if math.ceil(center.value - ROUND) >= min(top, target or top):
            status = "target"
            break
    best = center.value
    bound = math.ceil(best - ROUND) if best > 0 else None
    return ConfigLpBound(bound, value, best, it, exact, status)


__all__ = ["ConfigLpBound", "available", "configuration_lp_bound", "rows_of"]
