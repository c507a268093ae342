"""The ``growth`` section of a plan document as rows, shared by the terminal
summary, the Excel sheet and the HTML report (``docs/plan-schema.md``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

Label = Callable[..., str]


def growth(plan: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The plan's growth section, or None when the plan was made without growth."""
    g = plan.get("growth")
    return g if isinstance(g, Mapping) and g.get("years") else None


def pool_names(g: Mapping[str, Any]) -> list[str]:
    """Pools in plan order."""
    return [str(p) for p in g.get("plan_hosts") or {}]


def rate_text(g: Mapping[str, Any]) -> str:
    """'10 %', '10 %, 15 %, 5 %' (a table), or the pools' own rates."""
    rate = g.get("rate")
    rates = rate if isinstance(rate, list) else [rate]
    if rate is None or not rates:
        rates = sorted({r for v in (g.get("pool_rates") or {}).values() for r in v[:1]})
    return ", ".join(f"{100 * float(r):.4g} %" for r in rates if r is not None)


def year_headers(g: Mapping[str, Any], t: Label, unit: str | None) -> list[str]:
    """Year, CPU demand [unit], hosts needed, then one column per pool."""
    demand = t("growth_demand_cpu") + (f" [{unit}]" if unit else "")
    return [
        t("growth_year"),
        demand,
        t("growth_hosts"),
        *[t("growth_pool_hosts", pool=p) for p in pool_names(g)],
    ]


def year_rows(g: Mapping[str, Any]) -> list[list[Any]]:
    """One row per year end (0 = day one): year, CPU demand, hosts, hosts per pool."""
    pools = pool_names(g)
    return [
        [
            y.get("year"),
            y.get("demand_cpu"),
            y.get("hosts"),
            *[(y.get("pools") or {}).get(p) for p in pools],
        ]
        for y in g.get("years") or ()
    ]


def pool_rows(g: Mapping[str, Any], t: Label) -> list[list[Any]]:
    """Per pool: name, hosts of the plan, the year it runs out (or 'not within N years')."""
    never = t("growth_never", years=g.get("horizon"))
    runs_out = g.get("runs_out") or {}
    return [
        [p, n, runs_out.get(p) if runs_out.get(p) is not None else never]
        for p, n in (g.get("plan_hosts") or {}).items()
    ]


def purchase_rows(g: Mapping[str, Any]) -> list[list[Any]]:
    """(year, pool, hosts added) in schedule order."""
    return [
        [p.get("year"), p.get("pool"), p.get("hosts_added")]
        for p in g.get("purchases") or ()
    ]


def summary_line(g: Mapping[str, Any], t: Label) -> str:
    """One sentence: the rate, the last year's need against the plan, what is bought."""
    years = g.get("years") or [{}]
    last = years[-1]
    fields = {
        "rate": rate_text(g),
        "years": last.get("year"),
        "plan": sum(int(n) for n in (g.get("plan_hosts") or {}).values()),
        "bought": g.get("hosts_bought"),
    }
    if last.get("hosts") is None:
        first = next(y.get("year") for y in years if y.get("hosts") is None)
        return t("growth_summary_no_count", first=first, **fields)
    return t("growth_summary", hosts=last.get("hosts"), **fields)
