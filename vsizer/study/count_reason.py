"""Why a pool has the hosts it has (issue 16 item 5).

For each pool: what each constraint alone requires (``by_constraint``: demand
= the hosts a placement needs with every rule relaxed; failover = demand plus
the k failures; min_hosts; anti_affinity = largest group + k; pinning =
highest pinned host), what the pool would need with each active rule relaxed
in turn (``relaxed``: failures = 0, min_hosts = 1, no anti-affinity, no pins;
the pool is sized again, on its curves when it has them), which rule bound the
count (``binding``) and a sentence saying so. Then pools that a rule alone
keeps apart are tried merged: two pools whose count a rule set, sized as one
pool with the stricter rules of both, are suggested for merging when that
needs fewer hosts.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from vsizer.errors import InfeasiblePlacementError
from vsizer.placement.pool import CurveRules, size_pool_for
from vsizer.placement.problem import PlacementProblem
from vsizer.placement.sizing import Placed, Tries, lower_bound

#: Constraints in the order they are reported and break ties.
CONSTRAINTS = ("demand", "failover", "min_hosts", "anti_affinity", "pinning")

#: Rules that can be relaxed, in tie-break order. ``vcpu_per_core`` (the
#: vCPU:core limit is a rule, not demand) is in force when the vCPU bound is
#: above every other dimension's; relaxed, the vCPUs never bind.
RULES = ("min_hosts", "failover", "anti_affinity", "pinning", "vcpu_per_core")

#: Most pools tried pairwise for a merge suggestion (pairs grow as n^2).
MERGE_POOLS = 12
#: Most VMs of two pools together tried for a merge suggestion: each try sizes
#: the merged pool again (about 15 sizings of a large N+k pool), which at fleet
#: scale costs more than the whole plan; the pools' own counts are unaffected.
MERGE_MAX_VMS = 10_000
#: Most VMs of a pool whose count is explained by sizing it again with each
#: active rule relaxed (each relaxed rule is a sizing of the whole pool, and a
#: sizing's greedy placements grow faster than the pool: a pool of 600,000 VMs
#: with redundancy pairs spent 160 of 520 s in them). A larger pool's reason
#: gives its bounds alone, and the plan warns (``count_reason_budget``).
RELAX_MAX_VMS = 250_000


@dataclass(frozen=True)
class CountReason:
    """Why a pool has ``hosts`` hosts (see the module docstring)."""

    hosts: int
    binding: str
    by_constraint: dict[str, int]
    by_dimension: dict[str, int]
    relaxed: dict[str, int | None]
    text: str
    suggestion: str | None = None


def _relax(problem: PlacementProblem, rule: str) -> PlacementProblem:
    n = problem.n_vms
    if rule == "failover":
        return dataclasses.replace(problem, failures=0)
    if rule == "min_hosts":
        return dataclasses.replace(problem, min_hosts=1)
    if rule == "anti_affinity":
        return dataclasses.replace(problem, anti_affinity=np.full(n, -1, dtype=np.int64))
    if rule == "vcpu_per_core":
        capacity = problem.capacity.copy()
        k = problem.dims.index("vcpu")
        capacity[k] = 2.0 * max(float(problem.demand[:, k].sum()), 1.0)
        return dataclasses.replace(problem, capacity=capacity)
    return dataclasses.replace(problem, pins=np.full(n, -1, dtype=np.int64))


def _active(problem: PlacementProblem, detail: dict[str, int]) -> dict[str, bool]:
    vcpu = int(detail.get("vcpu", 0))
    others = [int(detail[d]) for d in problem.dims if d != "vcpu" and d in detail]
    return {
        "failover": problem.failures > 0,
        "min_hosts": problem.min_hosts > 1,
        "anti_affinity": bool((problem.anti_affinity >= 0).any()),
        "pinning": bool((problem.pins >= 0).any()),
        "vcpu_per_core": "vcpu" in problem.dims and vcpu > max(others, default=0),
    }


def _count(
    problem: PlacementProblem,
    curves: np.ndarray | None,
    rules: CurveRules,
    scalar_demand: np.ndarray | None,
    tries: Tries | None = None,
    placed: Placed | None = None,
) -> int | None:
    """Hosts the pool needs under ``problem``'s rules (None: no placement).
    ``tries``, ``placed``: see :func:`~vsizer.placement.sizing.size_pool` (scalar only)."""
    try:
        return size_pool_for(  # only the count is read: no configuration-LP bound
            problem, curves, rules, scalar_demand=scalar_demand, tries=tries,
            placed=placed, bound_lp=False,
        ).n_hosts
    except InfeasiblePlacementError:
        return None


def explain_pool(
    problem: PlacementProblem,
    hosts: int,
    detail: dict[str, int],
    curves: np.ndarray | None,
    rules: CurveRules,
    scalar_demand: np.ndarray | None = None,
    placed: Placed | None = None,
) -> CountReason:
    """The count reason of a pool of ``hosts`` hosts sized on ``problem``
    (``detail``: its lower bound per reason, :func:`~vsizer.placement.sizing.lower_bound`).

    On scalar demand, sizings whose problems differ only in ``min_hosts`` (the
    rules relaxed apart from min_hosts are the same: e.g. failures = 0, and
    every rule relaxed when only failover and min_hosts are active) share
    their tries: each host count is placed once (same counts). ``placed``:
    the greedy placements of ``problem``'s sizing
    (:data:`~vsizer.placement.sizing.Placed`), reused by the sizings that
    relax only rules no placement reads (failures, min_hosts); the sizings
    that relax the same rules a placement reads (anti-affinity alone, then
    with failover and min_hosts too) share theirs alike."""
    active = _active(problem, detail)
    if not relaxes(problem):
        return _bounds_only(problem, hosts, detail, active)
    memo: dict[frozenset[str], Tries] = {}
    moved: dict[frozenset[str], Placed] = {}

    def count(relaxed_rules: frozenset[str], p: PlacementProblem) -> int | None:
        tries = memo.setdefault(relaxed_rules - {"min_hosts"}, {})
        placing = relaxed_rules - _PLACE_ALIKE  # the relaxed rules a placement reads
        # e.g. anti-affinity relaxed, then failover too: the same placements
        alike = moved.setdefault(placing, {}) if placing else placed
        return _count(p, curves, rules, scalar_demand, tries, alike)

    relaxed: dict[str, int | None] = {}
    for rule in RULES:
        if not active[rule]:
            continue
        if rule == "min_hosts" and problem.min_hosts < hosts:
            relaxed[rule] = hosts  # the minimum was not reached: relaxing it changes nothing
        else:
            relaxed[rule] = count(frozenset([rule]), _relax(problem, rule))
    bare = problem
    for rule in _DEMAND_RULES:
        if active[rule]:
            bare = _relax(bare, rule)
    every = frozenset(r for r in _DEMAND_RULES if active[r])
    demand = hosts if not every else count(every, bare)
    demand = demand if demand is not None else hosts
    if problem.n_vms == 0:
        demand = 0
    by = _by_constraint(problem, demand, detail, active)
    dims = {d: int(detail[d]) for d in problem.dims if d in detail}
    binding = _binding(hosts, by, relaxed)
    return CountReason(hosts, binding, by, dims, relaxed,
                       _text(hosts, binding, by, relaxed, problem, dims))


def _by_constraint(
    problem: PlacementProblem, demand: int, detail: dict[str, int],
    active: dict[str, bool],
) -> dict[str, int]:
    """What each constraint alone requires, given what demand alone needs."""
    return {
        "demand": demand,
        "failover": demand + problem.failures if active["failover"] else 0,
        "min_hosts": problem.min_hosts if problem.n_vms else 0,
        "anti_affinity": int(detail.get("anti_affinity", 0)),
        "pinning": int(detail.get("pinning", 0)),
    }


def relaxes(problem: PlacementProblem) -> bool:
    """Whether :func:`explain_pool` sizes ``problem`` again with each rule
    relaxed (at most :data:`RELAX_MAX_VMS` VMs)."""
    return problem.n_vms <= RELAX_MAX_VMS


def _bounds_only(
    problem: PlacementProblem, hosts: int, detail: dict[str, int],
    active: dict[str, bool],
) -> CountReason:
    """The count reason of a pool past :data:`RELAX_MAX_VMS`: what each
    constraint alone requires by the bounds (demand: the largest dimension's
    bound), no rule relaxed; bound by the constraint that requires most."""
    dims = {d: int(detail[d]) for d in problem.dims if d in detail}
    demand = max(dims.values(), default=0)
    by = _by_constraint(problem, demand, detail, active)
    most = max(by.values())
    binding = next(c for c in CONSTRAINTS if by[c] == most)  # the most demanding
    text = _text(hosts, binding, by, {}, problem, dims).replace(
        "demand alone needs", "demand alone needs at least", 1)
    return CountReason(hosts, binding, by, dims, {}, text + (
        f"; not sized again with each rule relaxed ({problem.n_vms:,} VMs, above "
        f"{RELAX_MAX_VMS:,})"))


def _binding(hosts: int, by: dict[str, int], relaxed: dict[str, int | None]) -> str:
    """The rule whose relaxation saves most hosts; else the constraint that
    alone requires the count (demand first); else 'placement' (packing)."""
    saving = {r: hosts - n for r, n in relaxed.items() if n is not None and n < hosts}
    if saving:
        best = max(saving.values())
        # a tie goes to the vCPU:core limit first: it set the demand the rest adds to
        return next(r for r in _TIE_ORDER if saving.get(r) == best)
    if by["demand"] >= hosts:
        return "demand"
    for c in ("failover", "min_hosts", "anti_affinity", "pinning"):
        if by[c] >= hosts:
            return c
    return "placement"


#: Rules whose relaxation leaves every greedy placement as it was.
_PLACE_ALIKE = frozenset({"failover", "min_hosts"})

#: Rules in the order a tie of savings is broken (the vCPU:core limit first).
_TIE_ORDER = ("vcpu_per_core", *RULES[:4])

#: Rules relaxed for "demand alone" (the vCPU:core limit stays: it is in the demand).
_DEMAND_RULES = RULES[:4]

_RULE_TEXT = {
    "vcpu_per_core": "without the vCPU:core limit",
    "failover": "with failures = 0",
    "min_hosts": "with min_hosts = 1",
    "anti_affinity": "without anti-affinity",
    "pinning": "without pins",
}


def _because(binding: str, by: dict[str, Any], problem: PlacementProblem) -> str:
    if binding == "min_hosts":
        return f"min_hosts = {problem.min_hosts}"
    if binding == "failover":
        return f"failures = {problem.failures} (N+{problem.failures})"
    if binding == "anti_affinity":
        return f"anti-affinity (a group needs {by['anti_affinity']} hosts)"
    if binding == "pinning":
        return f"pins (a VM is pinned to host {by['pinning']})"
    if binding == "vcpu_per_core":
        return f"the vCPU:core limit (vCPUs alone need {by['dims_vcpu']} hosts)"
    if binding == "placement":
        return "several rules together (no single relaxation saves a host)"
    dims = by.get("dims_top")
    return f"demand ({dims})" if dims else "demand"


def _text(
    hosts: int,
    binding: str,
    by: dict[str, int],
    relaxed: dict[str, int | None],
    problem: PlacementProblem,
    dims: dict[str, int],
) -> str:
    top = max(dims, key=lambda d: dims[d]) if dims else ""
    because = _because(
        binding, {**by, "dims_top": top, "dims_vcpu": dims.get("vcpu")}, problem
    )
    parts = [f"{hosts} host{'s' if hosts != 1 else ''} because {because}"]
    parts.append(f"demand alone needs {by['demand']}")
    for rule in RULES:
        if rule in relaxed:
            n = relaxed[rule]
            got = "no placement" if n is None else f"{n}"
            parts.append(f"{_RULE_TEXT[rule]} this pool needs {got}")
    return "; ".join(parts)


def _merged(a: PlacementProblem, b: PlacementProblem) -> PlacementProblem | None:
    """One pool of ``a`` and ``b`` with the stricter rules of both (None when
    pins tie VMs to one pool's hosts or the dimensions differ)."""
    if a.dims != b.dims or (a.pins >= 0).any() or (b.pins >= 0).any():
        return None
    shift = int(a.anti_affinity.max()) + 1 if a.anti_affinity.size else 0
    groups_b = np.where(b.anti_affinity >= 0, b.anti_affinity + max(shift, 0), -1)
    return PlacementProblem(
        pool=f"{a.pool}+{b.pool}",
        vm_names=a.vm_names + b.vm_names,
        dims=a.dims,
        demand=np.vstack([a.demand, b.demand]),
        capacity=a.capacity,
        base_load=np.maximum(a.base_load, b.base_load),
        limit=np.minimum(a.limit, b.limit),
        failover_limit=np.minimum(a.failover_limit, b.failover_limit),
        failures=max(a.failures, b.failures),
        min_hosts=max(a.min_hosts, b.min_hosts),
        anti_affinity=np.concatenate([a.anti_affinity, groups_b]).astype(np.int64),
        pins=np.full(a.n_vms + b.n_vms, -1, dtype=np.int64),
    )


class MergeCandidate(NamedTuple):
    """A sized pool as :func:`suggest_merges` reads it."""

    name: str
    problem: PlacementProblem
    n_hosts: int
    on_curves: bool
    reason: CountReason


def suggest_merges(pools: Sequence[MergeCandidate]) -> dict[str, str]:
    """The merge suggestion of each pool (on scalar demand) that a rule alone
    keeps apart and whose merge with another such pool needs fewer hosts than
    the two apart, by pool name. Pools on curves are not tried (their curves
    would be sized again as one), nor pairs above :data:`MERGE_MAX_VMS` VMs
    together."""
    held = [
        p for p in pools
        if p.reason.binding not in ("demand", "placement") and not p.on_curves
    ][:MERGE_POOLS]
    best: dict[str, tuple[int, str, int]] = {}
    for a, b in itertools.combinations(held, 2):
        if a.problem.n_vms + b.problem.n_vms > MERGE_MAX_VMS:
            continue
        merged = _merged(a.problem, b.problem)
        if merged is None:
            continue
        apart = a.n_hosts + b.n_hosts
        # Sizing never goes below the lower bound, so a pair that cannot save
        # more than both pools' best suggestions so far is not sized (same
        # suggestions, fewer sizings of large merged pools).
        most = apart - lower_bound(merged)[0]
        if most <= 0 or all(o.name in best and most <= best[o.name][0] for o in (a, b)):
            continue
        n = _count(merged, None, _NO_CURVES, None)
        if n is None or n >= apart:
            continue
        for one, two in ((a, b), (b, a)):
            if one.name not in best or apart - n > best[one.name][0]:
                best[one.name] = (apart - n, two.name, n)
    return {
        name: (
            f"merge with pool '{partner}': together {n} hosts instead of "
            f"{n + saved} apart (the stricter rules of both)"
        )
        for name, (saved, partner, n) in best.items()
    }


@dataclass(frozen=True)
class _Scalar:
    """Rules for sizing on scalar demand (the curve fields are unused)."""

    quantile: float | None = None
    solver: str = "heuristic"
    time_limit: float = 30.0
    shard_vms: int = 0  # never sharded
    bound_lp_vms: int = 0  # no configuration-LP bound


_NO_CURVES = _Scalar()


def count_reason_doc(cr: CountReason | None) -> dict[str, Any] | None:
    """The ``pools[].count_reason`` section (formatting only)."""
    if cr is None:
        return None
    return {
        "binding": cr.binding,
        "by_constraint": {c: cr.by_constraint[c] for c in CONSTRAINTS},
        "by_dimension": dict(cr.by_dimension),
        "relaxed": dict(cr.relaxed),
        "text": cr.text,
        "suggestion": cr.suggestion,
    }
