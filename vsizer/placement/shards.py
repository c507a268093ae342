"""Pools too large for one process: shard, place the shards in parallel, merge,
refine across the shard boundaries, then N+k on the whole pool.

Stages of :func:`size_sharded` (each timed into ``timings`` when given):

``split``
    :func:`~vsizer.placement.shard_split.assign_shards`: curve-shape clusters
    dealt round-robin, so every shard is a miniature of the pool (complementary
    peaks kept together in every shard).
``place``
    Each shard sized on its curves at the ceiling (no failures, no minimum:
    redundancy is the whole pool's business) by
    :func:`~vsizer.placement.curve_sizing.size_pool_on_curves`, through
    ``engine.map`` (:mod:`vsizer.engines`): shards run on as many workers as
    the engine has; results come back in shard order.
``merge``
    Shard 0's hosts first, then shard 1's, ...: host numbers depend on the data
    only, never on the engine or the number of workers.
``refine``
    Every shard ends with a few partly filled hosts. The least-loaded hosts of
    all shards (load = area of the curve; :data:`REFINE_PER_SHARD` per shard,
    at most :data:`REFINE_HOST_STEPS` host x steps x dimensions) are taken
    together and their VMs re-packed: host elimination, close-and-repair and
    first-fit decreasing of those hosts' VMs together (kept when it needs fewer
    hosts than they had), then, when small enough, host elimination,
    close-and-repair and ruin-and-recreate
    (:func:`~vsizer.placement.improve.improve_placement`) from the better of
    the two; the result replaces those hosts when it frees any.
``failover``
    The lower bound of the whole pool (failover, minimum) is topped up with
    empty hosts, then every k-host failure is re-placed on the curves of the
    whole pool (:func:`~vsizer.placement.failover.check`); while one is not
    absorbed, an empty spare host is added.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any, overload

import numpy as np
import numpy.typing as npt

from vsizer.engines import Engine, LocalEngine
from vsizer.errors import InfeasiblePlacementError
from vsizer.placement import failover
from vsizer.placement.breakout_reduce import WORK_BUDGET, work_budget
from vsizer.placement.curve_failover import host_curves
from vsizer.placement.curve_sizing import (
    IMPROVE_MAX_HOST_STEPS,
    curve_lower_bounds,
    size_pool_on_curves,
)
from vsizer.placement.improve import improve_placement
from vsizer.placement.problem import PlacementProblem
from vsizer.placement.result import Placement
from vsizer.placement.series_fit import fit_curves, replay
from vsizer.placement.shard_split import assign_shards, shard_count
from vsizer.placement.sizing import PoolSizing

__all__ = ["SHARD_VMS", "ShardTask", "place_shard", "size_sharded", "shard_count"]

#: Default largest shard (``Rules.shard_vms``): pools above it are sharded.
SHARD_VMS = 20_000
#: Least-loaded hosts re-packed together per shard (at least :data:`REFINE_MIN`).
REFINE_PER_SHARD = 2
REFINE_MIN = 16
#: Most host x steps x dimensions re-packed together (first-fit decreasing).
REFINE_HOST_STEPS = 120_000
#: Most host x steps x dimensions the local search then works on (its cost grows
#: fast with the hosts; above it the first-fit re-packing stands).
REFINE_SEARCH_HOST_STEPS = 12_000
#: Ruin-and-recreate rounds of the refine search (a fifth of a pool's own search:
#: the hosts it works on are the few left partly filled by the shards).
REFINE_ROUNDS = 20


@dataclass(frozen=True, eq=False)
class ShardTask:
    """One shard to place: picklable, so it can go to a Ray or Dask worker."""

    problem: PlacementProblem
    curves: npt.NDArray[np.floating]
    quantile: float | None
    solver: str
    time_limit: float
    scalar_demand: npt.NDArray[np.floating] | None
    search_work: int = WORK_BUDGET  # slot evaluations of the breakout search


@dataclass(frozen=True)
class ShardResult:
    """What a worker sends back: the shard's placement, no curves."""

    assignment: npt.NDArray[np.int64]
    n_hosts: int
    strategy: str
    attempts: int
    notes: tuple[str, ...]


def place_shard(task: ShardTask) -> ShardResult:
    """Place one shard on its curves at the ceiling (runs on a worker)."""
    s = size_pool_on_curves(
        task.problem, task.curves, quantile=task.quantile, solver=task.solver,
        time_limit=task.time_limit, scalar_demand=task.scalar_demand,
        search_work=task.search_work,
    )
    return ShardResult(
        s.assignment.astype(np.int64), s.n_hosts, s.strategy, s.attempts, s.notes
    )


class _Tasks(Sequence[ShardTask]):
    """The shard tasks, each built when the engine asks for it (a local engine
    then holds one shard's copy of the curves at a time)."""

    def __init__(
        self,
        problem: PlacementProblem,
        curves: npt.NDArray[np.floating],
        members: list[npt.NDArray[np.int64]],
        options: dict[str, Any],
    ) -> None:
        self.problem, self.curves, self.members, self.options = problem, curves, members, options

    def __len__(self) -> int:
        return len(self.members)

    @overload
    def __getitem__(self, i: int) -> ShardTask: ...

    @overload
    def __getitem__(self, i: slice) -> Sequence[ShardTask]: ...

    def __getitem__(self, i: int | slice) -> ShardTask | Sequence[ShardTask]:
        if isinstance(i, slice):
            return [self[j] for j in range(len(self))[i]]
        idx = self.members[i]
        scalar = self.options["scalar_demand"]
        return ShardTask(
            subproblem(self.problem, idx), np.ascontiguousarray(self.curves[idx]),
            self.options["quantile"], self.options["solver"], self.options["time_limit"],
            None if scalar is None else np.asarray(scalar)[idx],
            self.options["search_work"],
        )

    def __iter__(self) -> Iterator[ShardTask]:
        return (self[i] for i in range(len(self)))


def subproblem(problem: PlacementProblem, idx: npt.NDArray[np.int64]) -> PlacementProblem:
    """The VMs ``idx`` of the pool, at the ceiling only (no failures, no minimum)."""
    p = problem
    return replace(
        p, vm_names=tuple(p.vm_names[i] for i in idx.tolist()), demand=p.demand[idx],
        anti_affinity=p.anti_affinity[idx], pins=p.pins[idx], failures=0, min_hosts=0,
    )


def size_sharded(
    problem: PlacementProblem,
    curves: npt.NDArray[np.floating],
    n_shards: int,
    *,
    quantile: float | None = None,
    solver: str = "heuristic",
    time_limit: float = 30.0,
    scalar_demand: npt.NDArray[np.floating] | None = None,
    engine: Engine | None = None,
    on_scenario: Callable[[], None] | None = None,
    seed: int = 0,
    on_stage: Callable[[str, float], None] | None = None,
) -> PoolSizing:
    """Size a pool in ``n_shards`` shards (see the module text); one :class:`PoolSizing`.

    The plan depends on the curves, the rules and ``seed`` only: the same on
    every engine and every number of workers. ``on_stage`` (optional) is called
    with each stage's name and wall-clock seconds (never part of the plan).
    """
    p, clock = problem, _Clock(on_stage)
    max_load = p.capacity * p.limit
    shard = assign_shards(curves, max_load, n_shards, pins=p.pins, seed=seed)
    members = [np.flatnonzero(shard == s) for s in range(n_shards)]
    clock.lap("split")
    # each shard's share of the breakout search's budget: the pool's, whole
    options = {"quantile": quantile, "solver": solver, "time_limit": time_limit,
               "scalar_demand": scalar_demand, "search_work": work_budget(p.n_vms) // n_shards}
    results = (engine or LocalEngine()).map(place_shard, _Tasks(p, curves, members, options))
    clock.lap("place")
    assign, n_merged = _merge(members, results, p.n_vms)
    clock.lap("merge")
    assign, n_refined, refine_info = refine(curves, p, assign, n_merged, quantile, n_shards)
    clock.lap("refine")
    lb, detail, series_lb, peak_sum, binding = curve_lower_bounds(p, curves, quantile)
    placement, report, spares = _survive(p, curves, assign, max(n_refined, lb), quantile,
                                         on_scenario)
    clock.lap("failover")
    info = {
        "shards": n_shards, "largest_shard": max(len(m) for m in members), "seed": seed,
        "hosts_merged": n_merged, **refine_info,
        "hosts_added_for_bound": max(0, lb - n_refined), "spares_for_failover": spares,
    }
    notes = [_note(info, p)] + _shard_notes(results)
    sizing = PoolSizing(
        placement, report, lb, detail, binding,
        sum(r.attempts for r in results) + spares + 1, tuple(notes),
        series_bound=series_lb, peak_sum_bound=peak_sum,
        replay=replay(curves, placement.assignment, placement.n_hosts, p.capacity,
                      p.limit, base_load=p.base_load),
        host_curves=host_curves(curves, placement.assignment, placement.n_hosts,
                                p.base_load, p.capacity),
        solver={"name": solver, "sharded": info},
    )
    clock.lap("report")
    return sizing


class _Clock:
    """Wall-clock seconds per stage, told to ``on_stage`` (kept out of the plan)."""

    def __init__(self, on_stage: Callable[[str, float], None] | None) -> None:
        self.on_stage, self.t = on_stage, time.perf_counter()

    def lap(self, stage: str) -> None:
        now = time.perf_counter()
        if self.on_stage is not None:
            self.on_stage(stage, now - self.t)
        self.t = now


def _note(info: dict[str, Any], p: PlacementProblem) -> str:
    return (
        f"{p.n_vms:,} VMs sized in {info['shards']} shards of at most "
        f"{info['largest_shard']:,} (curve shapes clustered and dealt round-robin, so "
        f"each shard mixes peak times); {info['hosts_merged']} hosts merged, "
        f"{info['freed_by_refine']} freed by re-packing the {info['refined_hosts']} "
        f"least-loaded hosts across shards, {info['spares_for_failover']} spare(s) "
        f"added for N+{p.failures}. A sharded plan may use a few more hosts than one "
        "process would (measured: benchmarks/bench_shards.py)."
    )


def _shard_notes(results: list[ShardResult]) -> list[str]:
    """The shards' own notes, once each; the skipped local search counted in one line."""
    skipped = sum(any(n.startswith("local search after first-fit skipped") for n in r.notes)
                  for r in results)
    rest = sorted({n for r in results for n in r.notes
                   if not n.startswith("local search after first-fit skipped")})
    if skipped:
        rest.insert(0, f"local search after first-fit skipped in {skipped} of "
                       f"{len(results)} shards (above {IMPROVE_MAX_HOST_STEPS:,} "
                       "host-steps each).")
    return rest


def _merge(
    members: list[npt.NDArray[np.int64]], results: list[ShardResult], n_vms: int
) -> tuple[npt.NDArray[np.int64], int]:
    """One assignment: shard s's hosts numbered after those of shards 0..s-1."""
    assign = np.full(n_vms, -1, dtype=np.int64)
    offset = 0
    for idx, res in zip(members, results, strict=True):
        assign[idx] = res.assignment + offset
        offset += res.n_hosts
    return assign, offset


def refine(
    curves: npt.NDArray[np.floating],
    problem: PlacementProblem,
    assign: npt.NDArray[np.int64],
    n_hosts: int,
    quantile: float | None,
    n_shards: int,
) -> tuple[npt.NDArray[np.int64], int, dict[str, int]]:
    """Re-pack the VMs of the least-loaded hosts together (see the module text).

    Returns the assignment (hosts left alone keep their order; the re-packed
    hosts follow them), the host count and {refined_hosts, freed_by_refine}.
    """
    p = problem
    max_load = p.capacity * p.limit
    t, d = curves.shape[1:]
    inv = 1.0 / max_load
    area = np.zeros(p.n_vms, dtype=np.float64)
    for i in range(0, p.n_vms, 65_536):
        area[i : i + 65_536] = (np.asarray(curves[i : i + 65_536], dtype=np.float64)
                                * inv).sum(axis=(1, 2))
    host_area = np.bincount(assign, weights=area, minlength=n_hosts)
    pinned = p.pins[p.pins >= 0]
    first = int(pinned.max()) + 1 if pinned.size else 0  # hosts before it keep their VMs
    eligible = np.arange(first, n_hosts)
    r = min(eligible.size, max(REFINE_MIN, REFINE_PER_SHARD * n_shards),
            max(2, REFINE_HOST_STEPS // max(t * d, 1)))
    if r < 2:
        return assign, n_hosts, {"refined_hosts": 0, "freed_by_refine": 0}
    chosen = np.sort(eligible[np.argsort(host_area[eligible], kind="stable")[:r]])
    vms = np.flatnonzero(np.isin(assign, chosen))
    local = np.searchsorted(chosen, assign[vms])
    sub, groups = np.ascontiguousarray(curves[vms]), p.anti_affinity[vms]
    best_assign, best_n = local, r
    ffd, n_ffd = fit_curves(sub, max_load, quantile=quantile, groups=groups,
                            base_load=p.base_load)
    if ffd is not None and n_ffd < best_n:
        best_assign, best_n = ffd, n_ffd
    if best_n * t * d <= REFINE_SEARCH_HOST_STEPS:
        res = improve_placement(
            sub, max_load, best_assign, best_n, quantile=quantile, groups=groups,
            base_load=p.base_load, rounds=REFINE_ROUNDS,
            repair=max(20, 200 * 576 // max(t * d, 1)),
        )
        best_assign, best_n = res.assignment, res.n_hosts
    info = {"refined_hosts": int(r), "freed_by_refine": int(r - best_n)}
    if best_n >= r:
        return assign, n_hosts, info
    kept = np.setdiff1d(np.arange(n_hosts), chosen)
    new_index = np.full(n_hosts, -1, dtype=np.int64)
    new_index[kept] = np.arange(kept.size)
    out = new_index[assign]
    out[vms] = kept.size + best_assign
    return out, int(kept.size + best_n), info


def _survive(
    p: PlacementProblem,
    curves: npt.NDArray[np.floating],
    assign: npt.NDArray[np.int64],
    n_hosts: int,
    quantile: float | None,
    on_scenario: Callable[[], None] | None,
) -> tuple[Placement, failover.FailoverReport, int]:
    """The placement on ``n_hosts`` (empty hosts at the end) plus empty spares until
    every k-host failure is absorbed on the curves; its full report."""
    limit = n_hosts + p.failures + max(8, p.failures)
    for n in range(n_hosts, limit + 1):
        placement = Placement(p, n, assign, "feasible", "sharded+refine")
        report = failover.check(placement, curves, quantile=quantile,
                                on_scenario=on_scenario, stop_at_first_failure=True)
        if report.survives:  # every scenario ran: this is the full check
            return placement, report, n - n_hosts
    raise InfeasiblePlacementError(
        f"pool '{p.pool}': the sharded placement of {p.n_vms} VMs does not survive "
        f"{p.failures} host failure(s) even with {limit - n_hosts} spare hosts "
        "[anti-affinity constraints conflict; try --shard-vms 0]"
    )
