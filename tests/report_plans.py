"""Plans for the report tests: the hand-written schema "1" plan and a schema "2"
version of it with time-series curves, built here by a documented rule.

``plan_small.json`` (tests/data) has 2 pools, 5 hosts, 10 servers and formula/XSS
probes in names. :func:`with_series` turns it into the schema "2" shape of
``docs/plan-schema.md`` (series, host curves and stacks, replay, failover
scenario rows, lower bound object) with curves that are easy to check by hand:
host ``h`` (0-based over the plan) at step ``i`` of 24 hourly steps has CPU
``util_cpu(h) * (0.5 + 0.5 * (i % 12) / 11)`` — a ramp from half its planned
utilization to all of it, twice a day — and memory flat at its planned value.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data"
STEPS = 24


def small_plan() -> dict[str, Any]:
    """tests/data/plan_small.json (schema "1")."""
    return json.loads((DATA / "plan_small.json").read_text(encoding="utf-8"))


def ramp(util: float, i: int) -> float:
    """The synthetic CPU curve value at step ``i`` (see the module docstring)."""
    return round(util * (0.5 + 0.5 * (i % 12) / 11), 6)


def with_series(plan: dict[str, Any]) -> dict[str, Any]:
    """A schema "2" copy of ``plan`` with synthetic curves (module docstring)."""
    doc = copy.deepcopy(plan)
    doc["schema_version"] = "2"
    doc["series"] = {
        "source": "synthetic.csv",
        "format": "tabular-long",
        "step_seconds": 3600,
        "start": "2024-04-01T00:00:00Z",
        "end": "2024-04-01T23:00:00Z",
        "steps": STEPS,
        "percentile": 1.0,
        "servers": len(doc["servers"]),
        "stride": 1,
    }
    for pool in doc["pools"]:
        rep_hosts = []
        for host in pool["hosts"]:
            cpu = host["util"]["cpu"]
            host["curves"] = {
                "cpu": [ramp(cpu, i) for i in range(STEPS)],
                "mem": [host["util"]["mem"]] * STEPS,
            }
            vms = host["vms"]
            n = max(len(vms), 1)
            stack = [
                {"vm": vm, "values": [round(v / n, 6) for v in host["curves"]["cpu"]]}
                for vm in vms[:2]
            ]
            if len(vms) > 2:
                stack.append(
                    {
                        "vm": "(other)",
                        "values": [
                            round(v * (len(vms) - 2) / n, 6)
                            for v in host["curves"]["cpu"]
                        ],
                    }
                )
            host["stack"] = {"cpu": stack}
            rep_hosts.append(
                {
                    "id": host["id"],
                    "steps_over_ceiling": 0,
                    "steps_over_100": 0,
                    "worst_util": max(host["curves"]["cpu"] + host["curves"]["mem"]),
                    "worst_dimension": "cpu" if cpu >= host["util"]["mem"] else "mem",
                    "worst_step": "2024-04-01T11:00:00Z",
                }
            )
        pool["replay"] = {
            "steps_over_ceiling": 0,
            "steps_over_100": 0,
            "hosts": rep_hosts,
        }
        pool["lower_bound"] = {
            "hosts": pool["lower_bound"],
            "detail": pool.pop("lower_bound_detail"),
            "series": {"cpu": 1, "mem": 1},
            "peak_sum": pool["lower_bound"],
        }
        fo = pool["failover"]
        unplaced = {tuple(f["failed"]): f["unplaced"] for f in fo["failed_scenarios"]}
        fo["scenario_count"] = fo.pop("scenarios")
        fo["scenarios"] = [
            {
                "failed": d["failed"],
                "moves": d["moves"],
                "unplaced": unplaced.get(tuple(d["failed"]), []),
                "worst_host": d["worst_host"],
                "worst_dimension": fo["worst_dimension"],
                "worst_util": d["worst_util"],
                "worst_step": "2024-04-01T11:00:00Z",
                "steps_over_100": 0,
                "survivor_util": d["survivor_util"],
            }
            for d in fo.pop("detail")
        ]
    return doc
