"""What-if comparison: plan one inventory under several scenarios, side by side.

A *scenario* is a scenario TOML file (:func:`vsizer.study.config.load_rules`: host
model, ceiling, failures, pools, power price, ...) with an optional
``[scenario]`` table naming it::

    [scenario]
    name = "Current: PRIMERGY RX2530 M6"      # default: the file name's stem
    description = "2021 two-socket Ice Lake"
    inventory = "../samples/inventory_ja.xlsx" # relative to this file

:func:`compare` plans the same inventory under each scenario with
:func:`vsizer.study.plan` and returns a comparison document (one entry per
scenario with hosts, racks, power, cost, worst failover and predicted
performance when the plan has predictions) and a recommendation that states
the criterion it used:

1. only scenarios whose plan survives its failover check are candidates
   (DESIGN §5: with k hosts down no survivor exceeds its limit); among them,
   those meeting every stated target are preferred (DESIGN §2: targets are
   made visible and checked);
2. when every candidate has a host price and an electricity price in one
   currency over the same years: the lowest cost over those years
   (hosts x price + annual electricity cost after x years);
3. otherwise: the fewest hosts, then the lowest power after consolidation.

The document is deterministic (same inputs, same bytes as JSON).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vsizer._toml import read_toml
from vsizer._version import __version__
from vsizer.engines import Engine
from vsizer.errors import ConfigError
from vsizer.inventory import Inventory, read_inventory
from vsizer.study.config import Rules, rules_from_dict

__all__ = [
    "COMPARE_SCHEMA_VERSION",
    "Scenario",
    "compare",
    "load_scenario",
    "scenario_entry",
]

#: Version of the comparison document's layout (``docs/report.md``).
COMPARE_SCHEMA_VERSION = "1"

_SCENARIO_KEYS = ("name", "description", "inventory")

#: Numeric predictions summarized per scenario, first found wins.
_PREDICTION_KEYS = ("relative_cpu", "relative_performance", "relative")


@dataclass(frozen=True)
class Scenario:
    """One what-if: a name, the rules to plan with, optionally its inventory."""

    name: str
    rules: Rules
    description: str = ""
    source: str | None = None
    inventory: Path | None = None


def load_scenario(path: str | Path) -> Scenario:
    """Read a scenario TOML file: its ``[scenario]`` table and the rules.

    Parameters
    ----------
    path : str or Path
        The TOML file; every section but ``[scenario]`` goes to
        :func:`vsizer.study.config.rules_from_dict`.

    Returns
    -------
    Scenario
        Named after ``[scenario] name``, else the file's stem.

    Raises
    ------
    vsizer.errors.ConfigError
        The file is missing or not TOML, ``[scenario]`` has an unknown key or
        a non-text value, or the rules are invalid (every problem listed).
    """
    path = Path(path)
    data = read_toml(path)
    meta = data.pop("scenario", {})
    problems = []
    if not isinstance(meta, dict):
        problems.append(f"{path}: [scenario] must be a table.")
        meta = {}
    for key, value in meta.items():
        if key not in _SCENARIO_KEYS:
            problems.append(
                f"{path}: unknown key 'scenario.{key}'; accepted: "
                f"{', '.join(_SCENARIO_KEYS)}."
            )
        elif not isinstance(value, str) or not value.strip():
            problems.append(
                f"{path}: key 'scenario.{key}': expected a non-empty text, "
                f"got {value!r}."
            )
    try:
        rules = rules_from_dict(data, str(path))
    except ConfigError as exc:
        problems.extend(str(exc).splitlines())
        rules = None
    if problems or rules is None:
        raise ConfigError(problems)
    inventory = meta.get("inventory")
    inv_path = None
    if isinstance(inventory, str):
        inv_path = Path(inventory)
        if not inv_path.is_absolute():
            inv_path = path.parent / inv_path
    return Scenario(
        name=str(meta.get("name") or path.stem),
        rules=rules,
        description=str(meta.get("description") or ""),
        source=path.name,
        inventory=inv_path,
    )


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def _prediction_summary(plan: Mapping[str, Any]) -> dict[str, Any] | None:
    """Mean and minimum of the plan's per-VM predicted relative performance."""
    pred = plan.get("predictions")
    if not isinstance(pred, Mapping):
        return None
    rows = [r for r in pred.get("vms") or () if isinstance(r, Mapping)]
    for key in _PREDICTION_KEYS:
        values = [v for r in rows if (v := _number(r.get(key))) is not None]
        if values:
            return {
                "metric": key,
                "vms": len(values),
                "mean": round(sum(values) / len(values), 6),
                "min": round(min(values), 6),
                "vms_at_risk": sum(1 for r in rows if r.get("risks")),
            }
    return None


def scenario_entry(scenario: Scenario, plan: Mapping[str, Any]) -> dict[str, Any]:
    """The comparison row of one scenario from its plan document.

    Parameters
    ----------
    scenario : Scenario
        The scenario planned.
    plan : dict
        Its plan (``docs/plan-schema.md``).

    Returns
    -------
    dict
        See ``docs/report.md`` ("Comparison document").
    """
    s, power, space, hm = (
        plan["summary"],
        plan["power"],
        plan["space"],
        plan["host_model"],
    )
    price = _number(hm.get("price"))
    annual = _number(power.get("annual_cost_after"))
    years = int(power["years"])
    hosts_cost = round(price * s["hosts"], 6) if price is not None else None
    total = (
        round(hosts_cost + annual * years, 6)
        if hosts_cost is not None and annual is not None
        else None
    )
    targets = plan["targets"]
    evaluated = [t for t in targets if t.get("met") is not None]
    return {
        "name": scenario.name,
        "description": scenario.description,
        "source": scenario.source,
        "host_model": hm["model"],
        "host_cores": hm["sockets"] * hm["cores_per_socket"],
        "host_threads_per_core": hm.get("threads_per_core"),
        "host_mem_gib": hm["mem_gib"],
        "ceiling": plan["parameters"]["ceiling"],
        "failures": plan["parameters"]["failures"],
        "servers": s["servers"],
        "pools": s["pools"],
        "hosts": s["hosts"],
        "lower_bound": s["lower_bound"],
        "consolidation_ratio": s["consolidation_ratio"],
        "survives_failover": s["survives_failover"],
        "worst_survivor_util": s["worst_survivor_util"],
        "rack_u_after": space["rack_u_after"],
        "racks_after": space["racks_after"],
        "power_before_w": power["before_w"],
        "power_after_w": power["after_w"],
        "annual_kwh_after": power["annual_kwh_after"],
        "annual_cost_after": power.get("annual_cost_after"),
        "annual_saving": power.get("annual_saving"),
        "saving_over_years": power.get("saving_over_years"),
        "currency": power["currency"],
        "years": years,
        "host_price": price,
        "hosts_cost": hosts_cost,
        "total_cost_over_years": total,
        "targets_met": sum(1 for t in evaluated if t["met"]),
        "targets_evaluated": len(evaluated),
        "predicted_performance": _prediction_summary(plan),
        "warnings": len(plan["warnings"]),
    }


def _recommend(entries: list[dict[str, Any]]) -> dict[str, Any]:
    """Pick one scenario and say by which criterion (module docstring)."""
    excluded = [
        {"scenario": e["name"], "reason": "does not survive its failover check"}
        for e in entries
        if not e["survives_failover"]
    ]
    candidates = [e for e in entries if e["survives_failover"]]
    all_met = [e for e in candidates if e["targets_met"] == e["targets_evaluated"]]
    if all_met and len(all_met) < len(candidates):
        excluded += [
            {"scenario": e["name"], "reason": "misses a stated target"}
            for e in candidates
            if e not in all_met
        ]
        candidates = all_met
    if not candidates:
        return {
            "scenario": None,
            "criterion": None,
            "value": None,
            "runner_up": None,
            "runner_up_value": None,
            "excluded": excluded,
            "reason": "no scenario survives its failover check; add hosts, lower "
            "the ceiling or choose a larger host model.",
        }
    same_money = len({(e["currency"], e["years"]) for e in candidates}) == 1 and all(
        e["total_cost_over_years"] is not None for e in candidates
    )
    if same_money:
        criterion = "total_cost_over_years"

        def key(e: dict[str, Any]) -> tuple:
            return (e["total_cost_over_years"], e["hosts"], e["name"])

    else:
        criterion = "hosts"

        def key(e: dict[str, Any]) -> tuple:
            return (e["hosts"], e["power_after_w"], e["name"])

    ranked = sorted(candidates, key=key)
    best = ranked[0]
    runner = ranked[1] if len(ranked) > 1 else None
    if criterion == "total_cost_over_years":
        reason = (
            f"lowest cost over {best['years']} years (host purchase + electricity): "
            f"{best['total_cost_over_years']:,.0f} {best['currency']}"
        )
        if runner:
            reason += (
                f" against {runner['total_cost_over_years']:,.0f} for {runner['name']}"
            )
    else:
        reason = (
            f"fewest hosts ({best['hosts']}), then lowest power after "
            f"consolidation ({best['power_after_w']:,.0f} W)"
        )
        if runner:
            reason += (
                f"; next: {runner['name']} with {runner['hosts']} hosts, "
                f"{runner['power_after_w']:,.0f} W"
            )
        if not same_money:
            reason += " (no host price in every scenario, so cost is not ranked)"
    return {
        "scenario": best["name"],
        "criterion": criterion,
        "value": best[criterion],
        "runner_up": runner["name"] if runner else None,
        "runner_up_value": runner[criterion] if runner else None,
        "excluded": excluded,
        "reason": reason + ".",
    }


def _inventory_for(
    scenarios: Sequence[Scenario], inventory: Inventory | str | Path | None
) -> Inventory | Path:
    if inventory is not None:
        return inventory if isinstance(inventory, Inventory) else Path(inventory)
    given = {s.inventory for s in scenarios if s.inventory is not None}
    if not given:
        raise ConfigError(
            "compare: no inventory: give --inventory, or name one in a scenario's "
            '[scenario] table (inventory = "servers.xlsx").'
        )
    if len(given) > 1:
        names = ", ".join(sorted(str(p) for p in given))
        raise ConfigError(
            f"compare: the scenarios name different inventories ({names}); a "
            "comparison plans one inventory: give --inventory."
        )
    return given.pop()


def _jobs(
    loaded: Sequence[Scenario], source: Inventory | Path, sheet: str | None
) -> list[tuple[Inventory, Rules]]:
    """One (inventory, rules) per scenario; a file is read once per value of
    ``include_powered_off`` among the scenarios."""
    read: dict[bool, Inventory] = {}
    jobs: list[tuple[Inventory, Rules]] = []
    for s in loaded:
        if isinstance(source, Inventory):
            inv = source
        else:
            flag = s.rules.include_powered_off
            if flag not in read:
                read[flag] = read_inventory(
                    source, sheet=sheet, include_powered_off=flag
                )
            inv = read[flag]
        jobs.append((inv, s.rules))
    return jobs


def compare(
    scenarios: Sequence[Scenario | str | Path],
    inventory: Inventory | str | Path | None = None,
    *,
    progress: Callable[[str, Any], None] | None = None,
    engine: Engine | None = None,
    sheet: str | None = None,
) -> dict[str, Any]:
    """Plan one inventory under each scenario and compare the plans.

    Parameters
    ----------
    scenarios : sequence of Scenario or path
        At least two scenarios (TOML paths are read with
        :func:`load_scenario`); names must differ.
    inventory : Inventory or path, optional
        The server list; default: the one named in the scenarios' ``[scenario]``
        tables (they must agree).
    progress : callable, optional
        Receives ``("scenario", name)`` before each plan, then the study's own
        events; on a distributed engine, ``("scenario", name)`` as each plan
        completes, and no study event.
    engine : Engine, optional
        Where the scenarios are planned (:func:`vsizer.engines.get_engine`):
        None or ``local`` one after the other here; ``ray`` or ``dask`` in
        parallel on the workers. The document is the same byte for byte.
    sheet : str, optional
        Worksheet of a server-list workbook (:func:`vsizer.read_inventory`).

    Returns
    -------
    dict
        ``{"compare_schema_version", "vsizer_version", "inventory",
        "scenarios": [entry, ...], "recommendation": {...}, "plans": {name:
        plan dict}}``; see ``docs/report.md``.

    Raises
    ------
    vsizer.errors.ConfigError
        Fewer than two scenarios, duplicate names, no or conflicting inventory,
        or a scenario file's problems.
    vsizer.errors.VsizerError
        Any error of reading the inventory or planning.
    """
    loaded = [s if isinstance(s, Scenario) else load_scenario(s) for s in scenarios]
    if len(loaded) < 2:
        raise ConfigError(f"compare: expected at least 2 scenarios, got {len(loaded)}.")
    seen: dict[str, str | None] = {}
    problems = []
    for s in loaded:
        if s.name in seen:
            problems.append(
                f"compare: scenario name {s.name!r} is used by {seen[s.name]} and "
                f"{s.source}; set [scenario] name to tell them apart."
            )
        seen[s.name] = s.source
    if problems:
        raise ConfigError(problems)
    jobs = _jobs(loaded, _inventory_for(loaded, inventory), sheet)
    docs = _plan_all(loaded, jobs, progress, engine)
    entries = [scenario_entry(s, doc) for s, doc in zip(loaded, docs, strict=True)]
    plans = {s.name: doc for s, doc in zip(loaded, docs, strict=True)}
    return {
        "compare_schema_version": COMPARE_SCHEMA_VERSION,
        "vsizer_version": __version__,
        "inventory": entries and plans[entries[0]["name"]]["inputs"]["inventory"],
        "scenarios": entries,
        "recommendation": _recommend(entries),
        "plans": plans,
    }


def _plan_scenario(job: tuple[Inventory, Rules]) -> dict[str, Any]:
    """The plan document of one scenario (module-level: run on an engine's
    workers, one process each, so the host-model choice inside runs in it)."""
    from vsizer.study import plan as run_plan

    inventory, rules = job
    return run_plan(inventory, rules=rules, workers=1).to_dict()


def _plan_all(
    loaded: Sequence[Scenario],
    jobs: list[tuple[Inventory, Rules]],
    progress: Callable[[str, Any], None] | None,
    engine: Engine | None,
) -> list[dict[str, Any]]:
    """The plan document of every scenario, in scenario order."""
    if engine is None or engine.name == "local":
        from vsizer.study import plan as run_plan

        docs = []
        for s, (inv, rules) in zip(loaded, jobs, strict=True):
            if progress:
                progress("scenario", s.name)
            docs.append(run_plan(inv, rules=rules, progress=progress).to_dict())
        return docs

    def done(i: int) -> None:  # runs here, in the driver, as scenario i completes
        if progress:
            progress("scenario", loaded[i].name)

    return engine.map(_plan_scenario, jobs, done=done)
