"""The ``growth`` section of the plan document (formatting only)."""

from __future__ import annotations

from typing import Any

from vsizer._jsonable import jsonable as _r
from vsizer.models.growth import Growth

#: Dimensions the growth scales (every VM demand, vCPU count included).
GROWN_DIMENSIONS = ("cpu", "mem", "vcpu", "disk_iops", "disk_mb_s", "net_mbps")


def growth_section(g: Growth) -> dict[str, Any]:
    """``growth``: the rates, the mode, the hosts of each year end, when each
    pool runs out on the plan's hosts, and the purchases (docs/plan-schema.md)."""
    rate: Any = _r(g.rate) if isinstance(g.rate, float) else [_r(x) for x in g.rate]
    return {
        "rate": rate,
        "pool_rates": {p.name: [_r(x) for x in p.rates] for p in g.pools},
        "horizon": g.horizon,
        "size_for": g.size_for,
        "grows": list(GROWN_DIMENSIONS),
        "plan_hosts": {p.name: p.owned for p in g.pools},
        "years": [_year(g, y) for y in range(g.horizon + 1)],
        "runs_out": {p.name: p.runs_out for p in g.pools},
        "purchases": [
            {"year": year, "pool": p.name, "hosts_added": added}
            for year in range(g.horizon + 1)
            for p in g.pools
            for y, added in p.purchases
            if y == year
        ],
        "hosts_bought": sum(added for p in g.pools for _, added in p.purchases),
        "notes": list(g.notes),
    }


def _year(g: Growth, y: int) -> dict[str, Any]:
    needed = [p.needed[y] for p in g.pools]
    return {
        "year": y,
        "demand_cpu": _r(sum(p.demand_cpu[y] for p in g.pools)),
        "hosts": None if any(n is None for n in needed) else sum(n or 0 for n in needed),
        "pools": {p.name: p.needed[y] for p in g.pools},
        "factor": {p.name: _r(p.factors[y]) for p in g.pools},
        "binding": {p.name: p.binding[y] for p in g.pools},
    }
