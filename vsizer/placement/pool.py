"""Size one pool: on its demand curves when the plan has time series, else on
each VM's scalar demand. Either way one :class:`~vsizer.placement.sizing.PoolSizing`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np
import numpy.typing as npt

from vsizer.engines import Engine
from vsizer.placement.curve_sizing import size_pool_on_curves
from vsizer.placement.problem import PlacementProblem
from vsizer.placement.shards import shard_count, size_sharded
from vsizer.placement.sizing import Placed, PoolSizing, Tries, size_pool


class CurveRules(Protocol):
    """The plan rules that sizing on curves reads (``vsizer.study.Rules`` has them)."""

    @property
    def quantile(self) -> float | None: ...

    @property
    def solver(self) -> str: ...

    @property
    def time_limit(self) -> float: ...

    @property
    def shard_vms(self) -> int: ...

    @property
    def bound_lp_vms(self) -> int: ...


def size_pool_for(
    problem: PlacementProblem,
    curves: npt.NDArray[np.floating] | None,
    rules: CurveRules,
    *,
    on_scenario: Callable[[], None] | None = None,
    scalar_demand: npt.NDArray[np.floating] | None = None,
    engine: Engine | None = None,
    tries: Tries | None = None,
    placed: Placed | None = None,
    bound_lp: bool = True,
) -> PoolSizing:
    """The pool sized on ``curves`` (n_vms, n_steps, n_dims) if given, else on ``problem.demand``.

    On curves, ``rules`` gives the percentile (``quantile``), the ``solver`` and
    its ``time_limit``, and ``scalar_demand`` each VM's demand as a plan
    without series would size it (see
    :func:`~vsizer.placement.curve_sizing.size_pool_on_curves`); both are
    unused on scalar demand, where ``tries`` may share host counts already
    tried and ``placed`` greedy placements already made
    (:func:`~vsizer.placement.sizing.size_pool`). A pool of more than ``rules.shard_vms`` VMs (0:
    never) on curves is sized in shards (:mod:`vsizer.placement.shards`), placed
    on ``engine`` (:mod:`vsizer.engines`; None: this process). ``bound_lp`` False:
    no configuration-LP bound on curves (a sizing whose bound is not reported);
    else on pools of at most ``rules.bound_lp_vms`` VMs.
    """
    if curves is None:
        return size_pool(problem, on_scenario=on_scenario, tries=tries, placed=placed)
    n_shards = shard_count(problem.n_vms, rules.shard_vms)
    if n_shards > 1:
        return size_sharded(
            problem, curves, n_shards, quantile=rules.quantile, solver=rules.solver,
            time_limit=rules.time_limit, scalar_demand=scalar_demand, engine=engine,
            on_scenario=on_scenario,
        )
    return size_pool_on_curves(
        problem,
        curves,
        quantile=rules.quantile,
        solver=rules.solver,
        time_limit=rules.time_limit,
        on_scenario=on_scenario,
        scalar_demand=scalar_demand,
        engine=engine,
        bound_lp_vms=rules.bound_lp_vms if bound_lp else 0,
    )
