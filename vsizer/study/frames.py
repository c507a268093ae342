"""The plan as pandas DataFrames for notebooks (issue 27): hosts, placement,
pools and warnings, one row per item, built from the plan document
(``docs/plan-schema.md``) so that they hold what ``plan.json`` holds."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

__all__ = ["hosts_frame", "placement_frame", "pools_frame", "warnings_frame"]


def hosts_frame(doc: Mapping[str, Any]) -> pd.DataFrame:
    """One row per planned host: pool, host, VMs, utilization per dimension
    (``util_cpu``, ``util_mem``, ...), power [W]."""
    rows = []
    for p in doc["pools"]:
        for h in p["hosts"]:
            row: dict[str, Any] = {"pool": p["name"], "host": h["id"], "vms": len(h["vms"])}
            row.update({f"util_{d}": u for d, u in (h.get("util") or {}).items()})
            row["power_w"] = h.get("power_w")
            rows.append(row)
    return pd.DataFrame(rows, columns=None if rows else ["pool", "host", "vms", "power_w"])


def placement_frame(doc: Mapping[str, Any]) -> pd.DataFrame:
    """One row per placed VM: its name, pool and host."""
    rows = [{"vm": vm, "pool": p["name"], "host": h["id"]}
            for p in doc["pools"] for h in p["hosts"] for vm in h["vms"]]
    return pd.DataFrame(rows, columns=["vm", "pool", "host"])


def pools_frame(doc: Mapping[str, Any]) -> pd.DataFrame:
    """One row per pool: servers, hosts, failures tolerated, binding dimension,
    whether it survives failover and the worst survivor utilization."""
    rows = [{
        "pool": p["name"], "servers": p["servers"], "hosts": p["host_count"],
        "failures": p["failures"], "binding_dimension": p.get("binding_dimension"),
        "survives_failover": (p.get("failover") or {}).get("survives"),
        "worst_survivor_util": (p.get("failover") or {}).get("worst_survivor_util"),
    } for p in doc["pools"]]
    return pd.DataFrame(rows, columns=["pool", "servers", "hosts", "failures",
                                       "binding_dimension", "survives_failover",
                                       "worst_survivor_util"])


def warnings_frame(doc: Mapping[str, Any]) -> pd.DataFrame:
    """One row per warning: code, number of servers named, the servers, message."""
    rows = []
    for w in doc.get("warnings") or ():
        if not isinstance(w, Mapping):
            w = {"code": "", "message": str(w)}
        servers = [str(s) for s in w.get("servers") or ()]
        rows.append({"code": w.get("code", ""), "servers": len(servers),
                     "names": servers, "message": w.get("message", "")})
    return pd.DataFrame(rows, columns=["code", "servers", "names", "message"])
