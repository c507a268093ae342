"""Exact placement on curves with CP-SAT (OR-Tools), for pools up to a few hundred VMs.

Model (bin packing with one capacity row per host, step and dimension; written
into CP-SAT's proto from numpy arrays by :class:`~vsizer.placement.cpsat_model.BinModel`)::

    x[v, h] in {0, 1}   VM v on host h          y[h] in {0, 1}   host h used
    sum_h x[v, h] = 1                           (every VM placed once)
    sum_v q[v, t, d] x[v, h] <= S y[h]          (every host, step t, dimension d;
                                                 one step only for a flat dimension)
    sum_{v in g} x[v, h] <= 1                   (anti-affinity group g)
    x[v, pin(v)] = 1                            (pinned VMs)
    y[h] >= y[h + 1]                            (symmetry: use hosts in order)
    minimize sum_h y[h]

``q`` is the demand in units of the host's usable load (capacity x limit minus
the hypervisor's base load), scaled to integers by ``S`` and rounded *up*, so an
integer-feasible placement is feasible on the real numbers too.

Steps are added lazily (row generation): the model starts with the busiest
steps of every dimension and every VM's peak step; each solution is replayed on
every step, the steps where some host is over are added, and the model is
solved again, until no host is over or the time is spent. A model with fewer
steps is a relaxation, so its proven bound is a valid lower bound for the full
problem (the LP relaxation's bound is no better than max_t sum q / S: the
uniform x = 1/H attains it, see ``tests/test_lp_bound.py``); the answer is the best full-step-feasible placement found, with the
gap to that bound. The heuristic placement is given as a hint and kept when the
solver finds nothing better.

Deterministic: one search worker and a deterministic time limit
(``max_deterministic_time``; wall-clock time is capped at four times it, or
at ``deadline``, as a safety net), so the same inputs give the same plan.
At fleet scale the full model is too big: :mod:`vsizer.placement.lns` solves
it on a few hosts at a time.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from vsizer.errors import ConfigError
from vsizer.placement.cpsat_model import (
    BinModel,
    flat_dims,
    memory_guard,
    model_terms,
    over_limit,
    too_large,
)

#: Integer scale of one host's usable load.
SCALE = 10_000
#: Most solve rounds (each adds the steps where the last solution was over).
MAX_ROUNDS = 20


@dataclass
class CpSatResult:
    assignment: npt.NDArray[np.int64]
    n_hosts: int
    best_bound: int
    status: str  # "optimal" | "feasible" | "hint" (solver found nothing better)
    rounds: int
    steps_used: int

    def info(self, other_bound: int) -> dict[str, Any]:
        bound = max(self.best_bound, other_bound)
        return {
            "name": "cp-sat",
            "status": self.status,
            "hosts": self.n_hosts,
            "bound": bound,
            "gap": self.n_hosts - bound,
            "rounds": self.rounds,
            "steps_in_model": self.steps_used,
        }


def _initial_steps(q: npt.NDArray[np.int64]) -> set[int]:
    total = q.sum(axis=0)  # (T, D)
    steps = set(np.argmax(total, axis=0).tolist())
    for dim in range(q.shape[2]):
        top = np.argsort(-total[:, dim], kind="stable")[:8]
        steps.update(top.tolist())
    steps.update(np.unique(q.max(axis=2).argmax(axis=1)).tolist())
    return steps


def solve_curves(
    curves: npt.NDArray[np.floating],
    max_load: npt.NDArray[np.float64],
    *,
    base_load: npt.NDArray[np.float64],
    groups: npt.NDArray[np.int64],
    pins: npt.NDArray[np.int64],
    hint: npt.NDArray[np.int64],
    n_max: int,
    min_hosts: int = 1,
    time_limit: float = 30.0,
    deadline: float | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> CpSatResult:
    """Fewest hosts for ``curves`` (n_vms, n_steps, n_dims) within ``max_load`` per host.

    ``hint`` is a feasible placement on ``n_max`` hosts (the heuristic's); the
    search never needs more. ``min_hosts`` is a known lower bound.
    ``time_limit`` is CP-SAT's deterministic time; ``deadline`` (a ``clock()``
    value) a wall-clock end checked between rounds and passed to each solve.
    A round whose model would be above
    :data:`~vsizer.placement.cpsat_model.MAX_MODEL_BYTES`
    is not built (the first one: :class:`~vsizer.errors.ConfigError`, one line).
    """
    cp_model = _cp_model()
    usable = max_load - base_load
    q = np.ceil(curves.astype(np.float64) / usable * SCALE - 1e-9).astype(np.int64)
    q = np.maximum(q, 0)
    flat = flat_dims(q)
    search = _Search(_initial_steps(q), (hint.copy(), n_max), min_hosts, float(time_limit))
    end = clock() + 4 * float(time_limit) if deadline is None else deadline
    while search.rounds < MAX_ROUNDS and search.budget > 0.05 and clock() < end:
        steps = sorted(search.steps)
        need = over_limit(q.size, model_terms(q, steps, flat, n_max))
        if need:
            if search.rounds == 0:
                raise too_large(f"the model of {q.shape[0]:,} VMs on {n_max} hosts", need)
            break
        search.rounds += 1
        with memory_guard(f"the model of {q.shape[0]:,} VMs on {n_max} hosts"):
            loads = _round(cp_model, q, steps, flat, groups, pins, n_max, min_hosts, search, end,
                           clock)
        if loads is None:
            break
        over = loads > SCALE
        if not over.any():
            break
        search.steps.update(_worst_steps(loads, over))
    # Hosts in use form a prefix (y[h] >= y[h + 1]; the hint is first-fit), so
    # host ids need no renumbering and pins keep their host.
    assign, _ = search.best
    n_hosts = int(assign.max()) + 1 if assign.size else 0
    bound = max(search.bound, min_hosts) if search.status == "hint" else search.bound
    return CpSatResult(
        assign, n_hosts, min(bound, n_hosts), search.status, search.rounds, len(search.steps)
    )


def _round(
    cp_model: Any, q: npt.NDArray[np.int64], steps: list[int], flat: npt.NDArray[np.bool_],
    groups: npt.NDArray[np.int64], pins: npt.NDArray[np.int64], n_max: int, min_hosts: int,
    search: _Search, end: float, clock: Callable[[], float],
) -> npt.NDArray[np.int64] | None:
    """One row-generation round: build, solve, replay on every step. The hosts' loads
    (accepted into ``search`` when nothing is over), or None when the solver found nothing."""
    bm = BinModel.build(cp_model, q, steps, flat, n_max, scale=SCALE, groups=groups, pins=pins)
    bm.symmetry()
    bm.minimize_hosts(min_hosts, n_max)
    # hint: the best known placement, hosts renumbered in order of first use
    best = search.best[0]
    order = {h: i for i, h in enumerate(dict.fromkeys(best.tolist()))}
    bm.hint(np.array([order[int(h)] for h in best.tolist()], dtype=np.int64))
    cp = cp_model.CpSolver()
    cp.parameters.num_workers = 1
    cp.parameters.max_deterministic_time = search.budget
    cp.parameters.max_time_in_seconds = max(min(4 * search.budget, end - clock()), 0.01)
    cp.parameters.random_seed = 0
    result = cp.solve(bm.model)
    search.budget -= cp.deterministic_time
    if result not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None
    search.bound = max(search.bound, int(np.ceil(cp.best_objective_bound - 1e-9)))
    assign = bm.assignment(cp)
    loads = np.zeros((n_max,) + q.shape[1:], dtype=np.int64)
    np.add.at(loads, assign, q)
    if not (loads > SCALE).any():
        search.accept(assign, result == cp_model.OPTIMAL)
    return loads


@dataclass
class _Search:
    """State of the row-generation rounds."""

    steps: set[int]  # steps in the model
    best: tuple[npt.NDArray[np.int64], int]  # best full-step-feasible (assignment, hosts)
    bound: int  # proven lower bound
    budget: float  # deterministic time left
    status: str = "hint"
    rounds: int = 0

    def accept(self, assign: npt.NDArray[np.int64], optimal: bool) -> None:
        """A solution that holds on every step."""
        n_used = int(assign.max()) + 1
        if n_used < self.best[1] or self.status == "hint":
            self.best = (assign, n_used)
        self.status = "optimal" if optimal and n_used <= self.bound else "feasible"


def _cp_model() -> Any:
    try:
        from ortools.sat.python import cp_model
    except ImportError:  # pragma: no cover - depends on the extra
        raise ConfigError(
            "--solver cp-sat needs OR-Tools: pip install 'vsizer[solver]'"
        ) from None
    return cp_model


def _worst_steps(loads: npt.NDArray[np.int64], over: npt.NDArray[np.bool_]) -> set[int]:
    """The worst step of every host that is over, per dimension."""
    excess = np.where(over, loads - SCALE, 0)
    steps: set[int] = set()
    for h in np.flatnonzero(over.any(axis=(1, 2))).tolist():
        for j in range(loads.shape[2]):
            if over[h, :, j].any():
                steps.add(int(np.argmax(excess[h, :, j])))
    return steps
