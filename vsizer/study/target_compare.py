"""The same estate planned for several target platforms, side by side
(``vsizer compare INV --targets a,b,c``).

Every target is planned on the same inventory, series and rules
(:func:`vsizer.study.target_plan.plan_target`); the recommendation states its
criterion, as ``choice`` does:

1. only targets whose plan survives its failover check are candidates;
2. when every candidate has a TCO total (host prices, electricity and every
   licence price given) in one currency over the same years: the lowest TCO;
3. otherwise: the fewest hosts (dedicated platform hosts included), then the
   least platform reserve per host (memory share), then the name.

The document is deterministic (same inputs, same bytes as JSON).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from vsizer._version import __version__
from vsizer.catalogs.licences import Licence
from vsizer.catalogs.targets import Target, get_target
from vsizer.errors import ConfigError
from vsizer.study.config import Rules
from vsizer.study.target_plan import plan_target, with_target_section

__all__ = ["TARGETS_SCHEMA_VERSION", "compare_targets", "pick_targets", "recommend_target"]

#: Version of the target comparison document (``docs/targets.md``).
TARGETS_SCHEMA_VERSION = "1"


def pick_targets(spec: str, known: Mapping[str, Target]) -> list[Target]:
    """The targets of ``--targets``: ``all`` or comma-separated names.

    Raises
    ------
    vsizer.errors.ConfigError
        An unknown name (with "did you mean"), a repeated one, or none.
    """
    if spec.strip().lower() == "all":
        return list(known.values())
    names = [n.strip() for n in spec.split(",") if n.strip()]
    if not names:
        raise ConfigError(f"--targets: expected 'all' or target names, got {spec!r}.")
    picked = [get_target(n, known) for n in names]
    seen = [t.name for t in picked]
    dup = sorted({n for n in seen if seen.count(n) > 1})
    if dup:
        raise ConfigError(f"--targets: target '{dup[0]}' is named twice.")
    return picked


def recommend_target(entries: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Pick one target and say by which criterion (module docstring)."""
    excluded = [{"target": e["name"], "reason": "does not survive its failover check"}
                for e in entries if not e["survives_failover"]]
    cands = [e for e in entries if e["survives_failover"]]
    if not cands:
        return {"target": None, "criterion": None, "value": None, "runner_up": None,
                "excluded": excluded,
                "reason": "no target survives its failover check; add hosts, lower the "
                "ceiling or choose a larger host model."}
    money = len({(e["currency"], e["years"]) for e in cands}) == 1 and all(
        e["tco_total"] is not None for e in cands)
    if money:
        crit = "tco_total"
        ranked = sorted(cands, key=lambda e: (e["tco_total"], e["hosts_total"], e["name"]))
    else:
        crit = "hosts_total"
        ranked = sorted(cands, key=lambda e: (
            e["hosts_total"], e["reserve"]["memory_share"], e["name"]))
    best, runner = ranked[0], (ranked[1] if len(ranked) > 1 else None)
    if money:
        reason = (f"lowest total cost of ownership over {best['years']} years (hosts, "
                  f"support, electricity, rack, licences): {best['tco_total']:,.0f} "
                  f"{best['currency']}")
        if runner:
            reason += f" against {runner['tco_total']:,.0f} for {runner['name']}"
    else:
        reason = (f"fewest hosts ({best['hosts_total']}, platform hosts included), then "
                  f"least platform reserve per host ({best['reserve']['memory_share']:.1%}"
                  " of memory)")
        if runner:
            reason += f"; next: {runner['name']} with {runner['hosts_total']} hosts"
        reason += (" (cost not ranked: not every target has host, electricity and "
                   "licence prices; give --price-kwh, host prices and --licences prices)")
    return {"target": best["name"], "criterion": crit, "value": best[crit],
            "runner_up": runner["name"] if runner else None,
            "runner_up_value": runner[crit] if runner else None,
            "excluded": excluded, "reason": reason + "."}


def compare_targets(
    inventory: Any,
    targets: Sequence[Target],
    rules: Rules | None = None,
    *,
    user_licences: Sequence[Licence] = (),
    progress: Callable[[str, Any], None] | None = None,
    **kw: Any,
) -> dict[str, Any]:
    """Plan ``inventory`` for each target and compare the plans.

    ``kw`` goes to :func:`vsizer.study.plan` (series, predict, profile,
    engine). Returns ``{"targets_schema_version", "vsizer_version",
    "inventory", "targets": [entry, ...], "recommendation", "plans": {name:
    plan}}``.
    """
    if isinstance(inventory, (str, Path)):
        from vsizer.inventory import read_inventory

        inclusive = (rules or Rules()).include_powered_off
        inventory = read_inventory(inventory, include_powered_off=inclusive)
    entries, plans = [], {}
    for t in targets:
        doc, entry = plan_target(inventory, t, rules, user_licences=user_licences,
                                 progress=progress, **kw)
        entries.append(entry)
        plans[t.name] = with_target_section(doc, entry, t)
    first = plans[entries[0]["name"]] if entries else {}
    return {
        "targets_schema_version": TARGETS_SCHEMA_VERSION,
        "vsizer_version": __version__,
        "inventory": first.get("inputs", {}).get("inventory"),
        "targets": entries,
        "recommendation": recommend_target(entries),
        "plans": plans,
    }
