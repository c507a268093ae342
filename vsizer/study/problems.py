"""The placement problem of one pool from the plan's servers: demand, capacity,
limits, anti-affinity groups (``redundant_with``) and pins (``pin_host``).
Moved out of :mod:`vsizer.study.core` (issue 23) unchanged."""

from __future__ import annotations

import numpy as np
import pandas as pd

from vsizer.errors import InventoryError
from vsizer.placement.problem import PlacementProblem
from vsizer.quality import QualityReport
from vsizer.study.config import Rules
from vsizer.study.pool_priority import restart_priority

__all__ = ["anti_affinity_groups", "pool_problem"]


def anti_affinity_groups(servers: pd.DataFrame, quality: QualityReport) -> np.ndarray:
    """Group id per server from ``redundant_with`` (partners of partners share a group)."""
    names = servers["name"].astype(str).tolist()
    index = {n: i for i, n in enumerate(names)}
    parent = list(range(len(names)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    linked = np.zeros(len(names), dtype=bool)
    col = (
        servers["redundant_with"]
        if "redundant_with" in servers
        else pd.Series(dtype=object)
    )
    for i, partners in enumerate(col):
        if partners is None or partners is pd.NA or (isinstance(partners, float)):
            continue
        for partner in str(partners).replace("、", ";").replace(",", ";").split(";"):
            partner = partner.strip()
            if not partner:
                continue
            j = index.get(partner)
            if j is None:
                quality.warn(
                    "partner_not_planned",
                    f"server '{names[i]}' is redundant with '{partner}', which is not "
                    "planned (excluded or absent); no anti-affinity applied for it.",
                    [names[i]],
                )
                continue
            linked[i] = linked[j] = True
            parent[find(i)] = find(j)
    roots: dict[int, int] = {}
    out = np.full(len(names), -1, dtype=np.int64)
    for k in np.flatnonzero(linked).tolist():
        out[k] = roots.setdefault(find(k), len(roots))
    return out


def pool_problem(
    pool: str,
    servers: pd.DataFrame,
    idx: np.ndarray,
    dims: tuple[str, ...],
    demand: np.ndarray,
    capacity: dict[str, float],
    rules: Rules,
    ceiling: float,
    failures: int,
    min_hosts: int,
    groups: np.ndarray,
) -> PlacementProblem:
    cap = np.array([capacity[d] for d in dims])
    base = np.array(
        [rules.host_memory_reserve_gib if d == "mem" else 0.0 for d in dims]
    )
    limit = np.array([1.0 if d == "vcpu" else ceiling for d in dims])
    fo_limit = np.array([1.0 if d == "vcpu" else rules.failover_limit for d in dims])
    # Renumber groups within the pool so ids are dense.
    local = np.full(len(idx), -1, dtype=np.int64)
    _, dense = np.unique(groups[groups >= 0], return_inverse=True)
    local[groups >= 0] = dense
    pins = _pins(pool, servers.iloc[idx])
    return PlacementProblem(
        pool=pool,
        vm_names=tuple(servers["name"].astype(str).iloc[idx].tolist()),
        dims=dims,
        demand=demand,
        capacity=cap,
        base_load=base,
        limit=limit,
        failover_limit=fo_limit,
        failures=failures,
        min_hosts=min_hosts,
        anti_affinity=local,
        pins=pins,
        failover_budget=rules.failover_budget,
        restart_priority=restart_priority(
            servers["rank"].iloc[idx].tolist() if "rank" in servers
            else [None] * len(idx)
        ),
    )


def _pins(pool: str, rows: pd.DataFrame) -> np.ndarray:
    pins = np.full(len(rows), -1, dtype=np.int64)
    if "pin_host" not in rows:
        return pins
    column = rows["pin_host"]
    if isinstance(column.dtype, pd.StringDtype) and column.isna().all():
        return pins  # no pin (each NA is skipped below): not read one by one
    problems = []
    for i, (name, pin) in enumerate(zip(rows["name"], rows["pin_host"], strict=True)):
        if pin is None or pin is pd.NA or (isinstance(pin, float) and np.isnan(pin)):
            continue
        prefix, _, number = str(pin).rpartition("-")
        if prefix != pool or not number.isdigit() or int(number) < 1:
            problems.append(
                f"server '{name}', column 'pin_host': expected a host id of its pool "
                f"like '{pool}-01', got '{pin}'."
            )
            continue
        pins[i] = int(number) - 1
    if problems:
        raise InventoryError(problems)
    return pins
