"""Large-neighbourhood search on demand curves with CP-SAT: empty hosts of a feasible plan.

The exact model of :mod:`vsizer.placement.cpsat` is far too big at a thousand VMs
(one Boolean per VM and host, one row per host, step and dimension). Here it is
solved only on *sub-problems*: a few hosts (2 to 12) of a feasible placement
are chosen, their VMs freed, and CP-SAT re-places those VMs on the same hosts
with every other host fixed, asking for one host fewer. When it succeeds a
host is freed and the search goes on from the smaller plan; otherwise another
neighbourhood is tried. The placement only ever gets smaller, so the result
is never worse than the start (the heuristic's plan).

Choosing the hosts (residual complementarity): the *target* is the
least-loaded host not yet tried (mean over steps of its busiest dimension).
Partners are added greedily: each time the host whose residual curve
(1 - load, per step and dimension) best covers what the target and the
partners so far still lack, i.e. that maximizes
min over steps and dimensions of (sum of the partners' residuals - target
load). A host whose residual is high exactly where the target is busy is
anti-correlated with it and is chosen first. Only sets whose summed load stays
within k - 1 hosts at every step can give up one (the per-step bound of the
sub-problem): they are tried smallest first, up to :data:`MAX_HOSTS` hosts
(with small items the slack of one host is spread over eight or more).

Two sub-problems per set. *Empty the target* (:mod:`vsizer.placement.lns_empty`):
the target's VMs leave it, on each partner only the few VMs busiest where the
target is busy may move, the others stay and leave a room curve; a model of a
few dozen VMs that CP-SAT solves or proves infeasible in a fraction of a
second (then more partner VMs are freed). *Re-place every VM* of the set on
one host fewer, for sets of up to :data:`FULL_FREE_HOSTS` hosts.

Draining: when no set up to :data:`MAX_HOSTS` hosts can give up one, the
:data:`DRAIN_HOSTS` first hosts are solved for the least mean load left on the
target (the current placement as hint) and the move is kept when that load
drops, so later rounds find the target nearly empty.

Sub-problem model: the same bin-packing rows as ``cpsat.py``, on the chosen
hosts only, with ``sum y <= k - 1``; rows only on the critical steps of the
sub-problem (the busiest steps of its summed load and of each chosen host),
then row generation: each solution is replayed on every step and the worst
steps of every host that is over are added, until it holds or the
sub-problem is proven infeasible (a model on fewer steps is a relaxation, so
its infeasibility holds for the full curves). Demand is in integer units of
one host's usable load (capacity x ceiling - base load) scaled by
:data:`SCALE` and rounded up, so an accepted move holds on the real numbers.

Stopping: when the host count reaches the lower bound (status ``optimal``),
when :data:`PATIENCE` neighbourhoods in a row free nothing or every
neighbourhood has been tried since the last improvement, when the work
budget (CP-SAT's deterministic time, by default :data:`WORK_SHARE` of the
time limit) is spent, or when the wall clock reaches ``time_limit`` (checked
between rounds and before each solve, model building included). Every stop
but the last is deterministic (one CP-SAT worker, a fixed seed, deterministic
time limits, a seeded choice of neighbourhoods); ``stopped_by`` in the result
says which one ended the search, and only ``"time_limit"`` makes the plan
depend on the machine's speed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from vsizer.placement.cpsat import _cp_model
from vsizer.placement.cpsat_model import (
    BinModel,
    flat_dims,
)
from vsizer.placement.lns_empty import empty_host

#: Integer scale of one host's usable load (rounding up loses at most 1e-6 per VM).
SCALE = 1_000_000
#: VMs converted to integer units at a time.
CHUNK = 4096
#: Sub-problems in a row that free no host before the search stops.
PATIENCE = 60
#: Largest neighbourhood (hosts re-placed together).
MAX_HOSTS = 12
#: Hosts of a drain (when no set up to MAX_HOSTS can give up a host).
DRAIN_HOSTS = 4
#: Largest neighbourhood also re-placed whole (every VM of every chosen host free).
FULL_FREE_HOSTS = 4
#: Deterministic time of CP-SAT for emptying one host.
EMPTY_WORK = 0.5
#: Largest pool (VMs x hosts of the start) solved first with the full model of
#: ``cpsat.py``, which can prove a bound above the per-step one.
FULL_MODEL = 1_000
#: Share of ``time_limit`` given to CP-SAT's deterministic time by default (the
#: rest is model building, replays and a slower or busier machine).
WORK_SHARE = 0.25
#: Deterministic time of CP-SAT per solve of a sub-problem.
SUB_WORK = 1.0
#: The same for a drain (an optimization: it rarely proves, so it takes all of it).
DRAIN_WORK = 0.2
#: Deterministic time of all the row-generation rounds of one sub-problem, in solves.
SUB_SHARE = 4
#: Busiest steps of the sub-problem's summed load in its first model, per dimension.
TOP_STEPS = 32
#: Busiest steps of each chosen host in the first model, per dimension.
HOST_STEPS = 8
#: Steps added per host and dimension that is over, per row-generation round.
ADD_STEPS = 4
#: Row-generation rounds per sub-problem.
SUB_ROUNDS = 12


@dataclass
class LnsResult:
    """The best placement found, and how the search went."""

    assignment: npt.NDArray[np.int64]
    n_hosts: int
    start_hosts: int
    bound: int
    status: str  # "optimal" | "improved" | "hint"
    stopped_by: str  # "optimal" | "no_improvement" | "work_budget" | "time_limit"
    rounds: int  # neighbourhoods examined
    solves: int  # CP-SAT solves (row-generation rounds included)
    freed: int  # hosts freed
    work: float  # CP-SAT deterministic time spent [s]
    #: The overflow search (:mod:`vsizer.placement.lns_overflow`) when it ran: the last
    #: target count it tried, the overflow left there (host-steps of load above the usable
    #: load; 0 when reached) and the counts it reached.
    overflow: dict[str, Any] | None = None

    def info(self) -> dict[str, Any]:
        """The plan's ``solver`` entry (no wall-clock figure: the plan stays byte-stable)."""
        return {
            "name": "cp-sat",
            "method": "lns",
            "status": self.status,
            "hosts": self.n_hosts,
            "start_hosts": self.start_hosts,
            "bound": self.bound,
            "gap": self.n_hosts - self.bound,
            "rounds": self.rounds,
            "solves": self.solves,
            "stopped_by": self.stopped_by,
            "overflow": self.overflow,
        }


@dataclass
class _State:
    """The current placement: integer demand, host of each VM, load of each host."""

    q: npt.NDArray[np.int32]  # (V, T, D) in units of SCALE
    assign: npt.NDArray[np.int64]  # (V,)
    loads: npt.NDArray[np.int64]  # (H, T, D)
    pins: npt.NDArray[np.int64]
    groups: npt.NDArray[np.int64]
    flat: npt.NDArray[np.bool_]  # (D,) dimensions with one value at every step
    tried: set[frozenset[int]] = field(default_factory=set)

    @classmethod
    def of(
        cls, q: npt.NDArray[np.int32], assign: npt.NDArray[np.int64],
        pins: npt.NDArray[np.int64], groups: npt.NDArray[np.int64],
    ) -> _State:
        n_hosts = int(assign.max()) + 1 if assign.size else 0
        loads = np.zeros((n_hosts,) + q.shape[1:], dtype=np.int64)
        np.add.at(loads, assign, q)
        return cls(q, assign.copy(), loads, pins, groups, flat_dims(q))

    def used(self) -> list[int]:
        """Hosts carrying at least one VM, in index order."""
        return sorted(set(self.assign.tolist()))

    def move(self, vms: npt.NDArray[np.int64], hosts: npt.NDArray[np.int64]) -> None:
        """Put ``vms`` on ``hosts`` (one host each) and refresh the loads."""
        np.subtract.at(self.loads, self.assign[vms], self.q[vms])
        np.add.at(self.loads, hosts, self.q[vms])
        self.assign[vms] = hosts


def to_units(
    curves: npt.NDArray[np.floating], max_load: npt.NDArray[np.float64],
    base_load: npt.NDArray[np.float64],
) -> npt.NDArray[np.int32]:
    """Demand in integer units of one host's usable load (x SCALE), rounded up; int32,
    converted :data:`CHUNK` VMs at a time (no float64 copy of every value)."""
    usable = np.asarray(max_load, dtype=np.float64) - base_load
    curves = np.asarray(curves)
    q = np.empty(curves.shape, dtype=np.int32)
    for i in range(0, curves.shape[0], CHUNK):
        part = np.ceil(curves[i:i + CHUNK].astype(np.float64) / usable * SCALE - 1e-9)
        q[i:i + CHUNK] = np.clip(part, 0, np.iinfo(np.int32).max)
    return q


def solve_lns(
    curves: npt.NDArray[np.floating],
    max_load: npt.NDArray[np.float64],
    *,
    base_load: npt.NDArray[np.float64],
    groups: npt.NDArray[np.int64],
    pins: npt.NDArray[np.int64],
    start: npt.NDArray[np.int64],
    bound: int,
    time_limit: float = 30.0,
    work: float | None = None,
    seed: int = 0,
    clock: Callable[[], float] = time.perf_counter,
) -> LnsResult:
    """Free hosts of the feasible placement ``start`` by exact re-placement of a few hosts.

    ``curves`` (n_vms, n_steps, n_dims); ``start`` a host index per VM, feasible
    on every step; ``bound`` a lower bound on hosts. ``time_limit`` is wall-clock
    seconds for the whole call; ``work`` the CP-SAT deterministic-time budget
    (default: ``WORK_SHARE`` of ``time_limit``). Returns hosts renumbered 0..n-1 (pinned
    hosts keep their index).
    """
    t_end = clock() + float(time_limit)
    budget = WORK_SHARE * float(time_limit) if work is None else float(work)
    cp_model = _cp_model()
    state = _State.of(to_units(curves, max_load, base_load), start, pins, groups)
    start_hosts = len(state.used())
    rng = np.random.default_rng(seed)
    run = _Run(budget)
    while True:
        stop = run.stop(len(state.used()), bound, clock() >= t_end)
        if stop:
            break
        chosen = _neighbourhood(state, rng)
        if chosen is None:
            run.stopped_by = "no_improvement"
            break
        run.rounds += 1
        state.tried.add(frozenset(chosen))
        moved = None
        fits = _fits_fewer(state, chosen)
        if fits:
            moved = _empty(cp_model, state, chosen, run, t_end, clock)
        if fits and moved is None and len(chosen) <= FULL_FREE_HOSTS:
            moved = _resolve(cp_model, state, chosen, run, t_end, clock, free=True)
        if moved is not None and _compactable(state, *moved):
            state.move(*moved)
            state.tried.clear()
            run.freed, run.idle = run.freed + 1, 0
            continue
        run.idle += 1
        if len(chosen) > FULL_FREE_HOSTS:
            continue
        drained = _resolve(cp_model, state, chosen, run, t_end, clock, free=False)
        if drained is not None:
            state.move(*drained)
    assign = _compact(state.assign, pins)
    n_hosts = int(assign.max()) + 1 if assign.size else 0
    status = "optimal" if n_hosts <= bound else ("improved" if n_hosts < start_hosts else "hint")
    return LnsResult(
        assign, n_hosts, start_hosts, min(bound, n_hosts), status, run.stopped_by,
        run.rounds, run.solves, run.freed, run.work,
    )


@dataclass
class _Run:
    """Counters of the search and its stopping rule."""

    budget: float
    rounds: int = 0
    solves: int = 0
    freed: int = 0
    idle: int = 0
    work: float = 0.0
    stopped_by: str = ""

    def stop(self, n_used: int, bound: int, late: bool) -> bool:
        if n_used <= bound:
            self.stopped_by = "optimal"
        elif late:
            self.stopped_by = "time_limit"
        elif self.work >= self.budget:
            self.stopped_by = "work_budget"
        elif self.idle >= PATIENCE:
            self.stopped_by = "no_improvement"
        return bool(self.stopped_by)


def _neighbourhood(state: _State, rng: np.random.Generator) -> list[int] | None:
    """The next hosts to re-place together (see the module docstring), or None when
    every target has been tried with every size since the last improvement."""
    used = state.used()
    if len(used) <= FULL_FREE_HOSTS:
        chosen = used
        return None if frozenset(chosen) in state.tried else chosen
    loads = state.loads[used]
    frac = loads.astype(np.float64) / SCALE  # (H, T, D)
    busy = frac.max(axis=2).mean(axis=1)
    for i in np.argsort(busy, kind="stable").tolist():
        for chosen in _growing(loads, frac, i, rng):
            key = frozenset(used[j] for j in chosen)
            if key not in state.tried:
                return [used[j] for j in chosen]
    return None


def _growing(
    loads: npt.NDArray[np.int64], frac: npt.NDArray[np.float64], target: int,
    rng: np.random.Generator,
) -> list[list[int]]:
    """``target`` and partners added one at a time, each the host whose residual curve
    best covers what the target and the partners so far still lack (drawn among the best
    three, seeded, for variety). The sets that could give up a host (summed load within
    k - 1 hosts at every step), smallest first, up to :data:`MAX_HOSTS` hosts; when none
    can, the set of :data:`DRAIN_HOSTS` hosts (for a drain)."""
    chosen = [target]
    lack = -frac[target]  # residual of the partners minus the target's load
    total = loads[target].copy()
    sets: list[list[int]] = []
    drain: list[int] = []
    while len(chosen) < min(MAX_HOSTS, frac.shape[0]):
        score = (lack[None] + 1.0 - frac).min(axis=(1, 2))
        score[chosen] = -np.inf
        best = np.argsort(-score, kind="stable")[:3]
        best = best[np.isfinite(score[best])]
        pick = int(best[int(rng.integers(len(best)))])
        chosen.append(pick)
        lack = lack + 1.0 - frac[pick]
        total += loads[pick]
        if (total <= SCALE * (len(chosen) - 1)).all():
            sets.append(list(chosen))
        if len(chosen) == DRAIN_HOSTS:
            drain = list(chosen)
    return sets or ([drain] if drain else [])


def _fits_fewer(state: _State, chosen: list[int]) -> bool:
    """Whether the chosen hosts' summed load stays within k - 1 hosts at every step
    (necessary for freeing one)."""
    total = state.loads[chosen].sum(axis=0)
    return bool((total <= SCALE * (len(chosen) - 1)).all())


def _critical_steps(q: npt.NDArray[np.integer], loads: npt.NDArray[np.int64]) -> set[int]:
    """The busiest steps of the sub-problem's summed load, per dimension, and each
    chosen host's busiest steps."""
    total = q.sum(axis=0)  # (T, D)
    steps: set[int] = set()
    for d in range(q.shape[2]):
        steps.update(np.argsort(-total[:, d], kind="stable")[:TOP_STEPS].tolist())
        for h in range(loads.shape[0]):
            steps.update(np.argsort(-loads[h, :, d], kind="stable")[:HOST_STEPS].tolist())
    return steps


def _worst_steps(loads: npt.NDArray[np.int64]) -> set[int]:
    """The :data:`ADD_STEPS` steps of largest excess of every host and dimension that is over."""
    excess = loads - SCALE
    steps: set[int] = set()
    for h, d in zip(*np.nonzero((excess > 0).any(axis=1)), strict=True):
        worst = np.argsort(-excess[h, :, d], kind="stable")[:ADD_STEPS]
        steps.update(int(s) for s in worst if excess[h, s, d] > 0)
    return steps


def _empty(
    cp_model: Any, state: _State, chosen: list[int], run: _Run, t_end: float,
    clock: Callable[[], float],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]] | None:
    """Empty the target into its partners (:func:`~vsizer.placement.lns_empty.empty_host`)."""
    res = empty_host(
        cp_model, state.q, state.assign, state.loads, state.flat, state.pins, state.groups,
        chosen, scale=SCALE, work=min(EMPTY_WORK, run.budget - run.work),
        wall_left=lambda: t_end - clock(),
    )
    run.work += res.work
    run.solves += res.solves
    return res.move


def _resolve(
    cp_model: Any, state: _State, chosen: list[int], run: _Run, t_end: float,
    clock: Callable[[], float], *, free: bool,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]] | None:
    """Re-place the VMs of ``chosen`` (row generation): on k - 1 of them (``free``),
    else with less work on the first (the target: drained for a later round).
    The VMs and their new hosts, or None."""
    vms = np.flatnonzero(np.isin(state.assign, chosen))
    q = state.q[vms]
    steps = _critical_steps(q, state.loads[chosen])
    local0 = np.array([chosen.index(int(h)) for h in state.assign[vms].tolist()],
                      dtype=np.int64)
    weight = q.sum(axis=(1, 2)) // q.shape[1]
    before = int(weight[local0 == 0].sum())
    per_solve = SUB_WORK if free else DRAIN_WORK
    sub_end = run.work + SUB_SHARE * per_solve
    for _ in range(SUB_ROUNDS):
        left = t_end - clock()
        if left <= 0 or run.work >= min(run.budget, sub_end):
            return None
        sub = _SubModel.build(cp_model, q, sorted(steps), state, vms, chosen)
        if free:
            sub.free_one()
        else:
            sub.drain(weight, local0)
        cp = cp_model.CpSolver()
        cp.parameters.num_workers = 1
        cp.parameters.random_seed = 0
        cp.parameters.cp_model_presolve = False  # small models: presolve costs more
        cp.parameters.max_deterministic_time = (
            min(run.budget, sub_end, run.work + per_solve) - run.work
        )
        cp.parameters.max_time_in_seconds = max(left, 0.01)
        result = cp.solve(sub.model)
        run.solves += 1
        run.work += cp.deterministic_time
        if result not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            return None
        local = sub.assignment(cp)
        loads = np.zeros((len(chosen),) + q.shape[1:], dtype=np.int64)
        np.add.at(loads, local, q)
        over = loads > SCALE
        if not over.any():
            if not free and int(weight[local == 0].sum()) >= before:
                return None
            return vms, np.asarray(chosen, dtype=np.int64)[local]
        steps |= _worst_steps(loads)
    return None


@dataclass
class _SubModel:
    """CP-SAT model of one sub-problem: VMs ``vms`` on the ``chosen`` hosts."""

    bm: BinModel
    pinned: bool  # some VM of the sub-problem is pinned

    @classmethod
    def build(
        cls, cp_model: Any, q: npt.NDArray[np.int32], steps: list[int], state: _State,
        vms: npt.NDArray[np.int64], chosen: list[int],
    ) -> _SubModel:
        pins = state.pins[vms]
        local_pins = np.array(
            [chosen.index(int(p)) if p >= 0 else -1 for p in pins.tolist()], dtype=np.int64
        )
        bm = BinModel.build(
            cp_model, q, steps, state.flat, len(chosen), scale=SCALE,
            groups=state.groups[vms], pins=local_pins,
        )
        return cls(bm, bool((pins >= 0).any()))

    @property
    def model(self) -> Any:
        return self.bm.model

    def free_one(self) -> None:
        """Ask for one host fewer (fewest used)."""
        if not self.pinned:
            self.bm.symmetry()  # hosts are interchangeable
        k = len(self.bm.y)
        self.bm.minimize_hosts(0, k - 1)

    def drain(self, weight: npt.NDArray[np.int64], local0: npt.NDArray[np.int64]) -> None:
        """Least mean load on the target (position 0), the current placement as hint."""
        self.bm.minimize(self.bm.x[:, 0].tolist(), weight.tolist())
        self.bm.hint(local0)

    def assignment(self, cp: Any) -> npt.NDArray[np.int64]:
        """Chosen-host position of every VM of the sub-problem."""
        return self.bm.assignment(cp)


def _compactable(
    state: _State, vms: npt.NDArray[np.int64], hosts: npt.NDArray[np.int64]
) -> bool:
    """Whether the plan after the move can be numbered 0..n-1 with pinned hosts kept."""
    pinned = state.pins[state.pins >= 0]
    if pinned.size == 0:
        return True
    after = state.assign.copy()
    after[vms] = hosts
    return int(pinned.max()) < len(set(after.tolist()))


def _compact(assign: npt.NDArray[np.int64], pins: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Number the used hosts 0..n-1: pinned hosts keep their index, the others fill the
    free indices in their own order."""
    used = sorted(set(assign.tolist()))
    keep = sorted(set(pins[pins >= 0].tolist()))
    free = [i for i in range(len(used)) if i not in set(keep)]
    others = [h for h in used if h not in set(keep)]
    mapping = {h: h for h in keep} | dict(zip(others, free, strict=True))
    return np.array([mapping[int(h)] for h in assign.tolist()], dtype=np.int64)
