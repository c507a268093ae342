"""Host-model choice: ``vsizer plan INV --host-model auto``.

Every candidate host model is planned through the whole chain
(:func:`vsizer.study.core.plan`: normalization, sizing, N+k failover -- on the
demand curves when series are given -- and economics) in a process pool
(:class:`concurrent.futures.ProcessPoolExecutor`; results are taken in
candidate order, so the outcome does not depend on which worker finishes
first), each gets its total cost of ownership (:mod:`vsizer.study.tco`), and
:func:`vsizer.study.ranking.rank` picks the winner by the stated criterion.
The plan returned is the winner's, with ``choice`` (every candidate) and
``tco`` set.

Candidates: ``--candidates FILE`` (every model of that host catalog CSV), else
``[hosts] candidates = [...]`` (names in the host catalog: ``--hosts`` merged
over the shipped one), else every model of ``--hosts`` FILE, else every model
of the shipped catalog. ``--candidates`` or ``candidates`` without
``--host-model`` means ``auto``.
"""

from __future__ import annotations

import dataclasses
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from vsizer.catalogs.cpu_catalog import read_cpu_catalog
from vsizer.catalogs.host_catalog import HostCatalog, read_host_catalog
from vsizer.catalogs.licences import Licence
from vsizer.catalogs.model import HostModel
from vsizer.engines import Engine
from vsizer.errors import ConfigError, VsizerError
from vsizer.inventory import Inventory, read_inventory
from vsizer.models.profile import Profile
from vsizer.series.model import SeriesSet
from vsizer.study import core
from vsizer.study.config import Rules
from vsizer.study.consolidation import ConsolidationPlan
from vsizer.study.ranking import Candidate, rank
from vsizer.study.tco import load_licences, plan_tco, vms_on_hosts
from vsizer.study.tco_growth import growth_warning, tco_years

__all__ = ["AUTO", "candidate_hosts", "choose", "is_auto", "plan", "with_tco"]

#: The ``--host-model`` value that asks for the choice.
AUTO = "auto"


def is_auto(rules: Rules) -> bool:
    """``host_model = 'auto'``, or candidates given without a host model."""
    if rules.host_model is not None and rules.host_model.casefold() == AUTO:
        return True
    return rules.host_model is None and bool(rules.candidates or rules.candidates_file)


def candidate_hosts(
    rules: Rules, hosts: HostCatalog | str | Path | None = None
) -> tuple[list[HostModel], str]:
    """The candidate host models (module docstring) and where they came from.

    Raises
    ------
    ConfigError
        A named host model together with candidates; no candidate.
    CatalogLookupError
        A candidate name not in the catalog (the valid names listed).
    """
    if not is_auto(rules) and (rules.candidates or rules.candidates_file):
        raise ConfigError(
            f"--host-model '{rules.host_model}' names one model; candidates "
            "(--candidates, [hosts] candidates) are chosen among with "
            "--host-model auto (or without --host-model)."
        )
    cpus = read_cpu_catalog(rules.cpu_catalog, merge=True) if rules.cpu_catalog else None
    own: list[str] | None = None
    source = hosts if hosts is not None else rules.host_catalog
    if rules.candidates_file:
        catalog = read_host_catalog(rules.candidates_file, cpu_catalog=cpus)
        own, name = catalog.models, Path(rules.candidates_file).name
    elif isinstance(source, HostCatalog):
        catalog, name = source, "given"
    elif source is not None:
        catalog = read_host_catalog(source, merge=True, cpu_catalog=cpus)
        own, name = read_host_catalog(source, cpu_catalog=cpus).models, Path(source).name
    else:
        catalog, name = read_host_catalog(), "builtin"
    names = list(rules.candidates) or own or catalog.models
    unique = list(dict.fromkeys(catalog.get(n).model for n in names))
    return [catalog.get(n) for n in unique], name


def wants_tco(rules: Rules, host: HostModel) -> bool:
    """A plan has a ``tco`` section when any cost beyond energy is given."""
    return (
        host.price is not None
        or host.support_per_year is not None
        or bool(rules.licences)
        or rules.rack_cost_per_u_year is not None
    )


def with_tco(
    result: ConsolidationPlan, licences: tuple[Licence, ...] | None = None
) -> ConsolidationPlan:
    """``result`` with its total cost of ownership (``result.tco``)."""
    if licences is None:
        licences = load_licences(result.rules)
    e = result.economics
    stacked = any(lic.vms_per_licence is not None for lic in licences)
    per_host = (
        vms_on_hosts([(pr.sizing.placement, pr.sizing.failover) for pr in result.pools])
        if stacked
        else None
    )
    years = (
        tco_years(e, result.growth, result.host, result.rules)
        if result.growth is not None
        else ()
    )
    tco = plan_tco(
        result.host, e.hosts, len(result.servers), float(e.rack_u_after),
        e.annual_cost_after, result.rules, licences, per_host, years,
    )
    if not years:
        return dataclasses.replace(result, tco=tco)
    warning = growth_warning(result.rules.years, stacked)
    return dataclasses.replace(result, tco=tco, warnings=[*result.warnings, warning])


def _candidate(result: ConsolidationPlan, licences: tuple[Licence, ...]) -> Candidate:
    result = with_tco(result, licences)
    return Candidate(
        model=result.host.model,
        hosts=result.economics.hosts,
        survives=all(pr.sizing.failover.survives for pr in result.pools),
        power_w=float(result.economics.after_w),
        tco=result.tco,
    )


def _plan_one(job: tuple[Any, ...]) -> Candidate:
    """Plan one candidate (run in a worker process): its row, or its error."""
    inventory, host, rules, series, licences = job
    try:
        result = core.plan(inventory, host, rules=rules, series=series)
    except VsizerError as exc:
        lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
        more = f" (+{len(lines) - 1} more problems)" if len(lines) > 1 else ""
        return Candidate(model=host.model, error=(lines or ["failed"])[0] + more)
    return _candidate(result, licences)


def _workers(requested: int | None, jobs: int) -> int:
    if requested is not None:
        return max(1, min(requested, jobs))
    return max(1, min(os.cpu_count() or 1, jobs))


def _counted(
    rows: Any, candidates: list[HostModel], progress: core.Progress | None
) -> list[Any]:
    """The candidates' rows in order, a ``candidate`` progress event after each."""
    out = []
    for row in rows:
        out.append(row)
        if progress:
            progress("candidate", (len(out), len(candidates), candidates[len(out) - 1].model))
    return out


def choose(
    inventory: Inventory | str | Path | None,
    rules: Rules,
    *,
    hosts: HostCatalog | str | Path | None = None,
    series: SeriesSet | None = None,
    predict: bool = False,
    profile: Profile | str | Path | None = None,
    progress: core.Progress | None = None,
    workers: int | None = None,
    engine: Engine | None = None,
    licences: tuple[Licence, ...] | None = None,
) -> ConsolidationPlan:
    """Plan every candidate, rank them, return the winner's plan with ``choice``.

    ``workers``: processes of the pool (default: the CPUs, at most one per
    candidate; 1 plans in this process). ``engine``: a distributed engine
    (:func:`vsizer.engines.get_engine`, ``ray`` or ``dask``) plans the
    candidates on its workers instead (``workers`` is then unused) and the
    winner's growth years too. The result is the same for any number and any
    engine.
    """
    candidates, catalog_name = candidate_hosts(rules, hosts)
    licences = load_licences(rules) if licences is None else licences
    if isinstance(inventory, (str, Path)):
        inventory = read_inventory(inventory, include_powered_off=rules.include_powered_off)
    jobs = [(inventory, h, rules, series, licences) for h in candidates]
    n = _workers(workers, len(jobs))
    if progress:
        progress("stage", f"planning {len(jobs)} candidate host models ({n} at a time)")
    if engine is not None and engine.name != "local":
        rows = engine.map(_plan_one, jobs)
    elif n == 1:
        rows = _counted(map(_plan_one, jobs), candidates, progress)
    else:
        with ProcessPoolExecutor(max_workers=n) as pool:
            rows = _counted(pool.map(_plan_one, jobs), candidates, progress)
    choice = rank(rows, rules.years, rules.currency)
    if progress:
        progress("stage", f"planning the chosen host model {choice.winner}")
    winner = next(h for h in candidates if h.model == choice.winner)
    result = core.plan(
        inventory, winner, rules=rules, series=series, predict=predict,
        profile=profile, progress=progress, engine=engine,
    )
    result = with_tco(result, licences)
    return dataclasses.replace(result, choice=choice, host_catalog=catalog_name)


def plan(
    inventory: Inventory | str | Path | None = None,
    hosts: HostModel | HostCatalog | str | Path | None = None,
    *,
    rules: Rules | None = None,
    progress: core.Progress | None = None,
    series: SeriesSet | None = None,
    predict: bool = False,
    profile: Profile | str | Path | None = None,
    workers: int | None = None,
    engine: Engine | None = None,
    licences: tuple[Licence, ...] | None = None,
    **overrides: Any,
) -> ConsolidationPlan:
    """:func:`vsizer.study.core.plan`, with the host-model choice
    (``host_model='auto'`` or candidates: :func:`choose`) and the ``tco``
    section when any cost beyond energy is given (:func:`wants_tco`).

    Parameters are those of :func:`vsizer.study.core.plan`; ``workers`` is
    the process count of the choice; ``engine`` (:mod:`vsizer.engines`) runs
    the candidates of the choice and the growth years; ``licences`` replace
    those of ``rules.licences`` (a target platform's, :mod:`vsizer.study.target_plan`).
    """
    known = set(overrides) <= set(Rules.__dataclass_fields__)  # else core.plan says
    full = (rules or Rules()).replace(**overrides) if known else Rules()
    if known and is_auto(full) and not isinstance(hosts, HostModel) and not (
        _names_one_model(hosts)
    ):
        return choose(
            inventory, full, hosts=hosts, series=series, predict=predict,
            profile=profile, progress=progress, workers=workers, engine=engine,
            licences=licences,
        )
    result = core.plan(
        inventory, hosts, rules=rules, progress=progress, series=series,
        predict=predict, profile=profile, engine=engine, **overrides,
    )
    if licences is not None or wants_tco(result.rules, result.host):
        result = with_tco(result, licences)
    return result



def _names_one_model(hosts: object) -> bool:
    """``hosts`` is one host model (a HostModel, or a name that is not a CSV file)."""
    if isinstance(hosts, HostModel):
        return True
    return isinstance(hosts, (str, Path)) and Path(str(hosts)).suffix.lower() != ".csv"
