"""Property-based check of whole plans over random inventories (hypothesis).

Checks, on the JSON a user gets: capacity at the ceiling on every host and
dimension, pools (a VM only on its pool's hosts), anti-affinity of redundant
pairs, and the failover claim re-verified from the reported moves.
"""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import vsizer
from vsizer.catalogs.model import HostModel
from vsizer.inventory.model import Inventory, empty_frame
from vsizer.quality import QualityReport

pytestmark = pytest.mark.slow

HOST = HostModel(
    model="h",
    sockets=2,
    cores_per_socket=8,
    threads_per_core=2,
    cpu_mhz=2000.0,
    cpu_score_per_core=None,
    mem_gib=256.0,
    power_idle_w=100.0,
    power_max_w=300.0,
)


@st.composite
def inventories(draw):
    n = draw(st.integers(2, 24))
    df = empty_frame(n)
    df["name"] = [f"s{i:02d}" for i in range(n)]
    df["sockets"] = 1
    df["cores_per_socket"] = draw(
        st.lists(st.sampled_from([1, 2, 4]), min_size=n, max_size=n)
    )
    df["vcpus"] = df["cores_per_socket"]
    df["cpu_mhz"] = draw(
        st.lists(st.sampled_from([2000.0, 2600.0, 3000.0]), min_size=n, max_size=n)
    )
    avg = draw(st.lists(st.floats(0.0, 0.5), min_size=n, max_size=n))
    df["cpu_avg_util"] = avg
    df["cpu_peak_util"] = [
        min(1.0, a + d)
        for a, d in zip(
            avg, draw(st.lists(st.floats(0, 0.5), min_size=n, max_size=n)), strict=True
        )
    ]
    df["mem_gib"] = draw(
        st.lists(st.sampled_from([2.0, 8.0, 16.0, 64.0]), min_size=n, max_size=n)
    )
    df["pool"] = draw(
        st.lists(st.sampled_from(["prod", "dev"]), min_size=n, max_size=n)
    )
    partners = [pd.NA] * n
    for i in range(0, n - 1, 2):
        if draw(st.booleans()) and df.loc[i, "pool"] == df.loc[i + 1, "pool"]:
            partners[i], partners[i + 1] = df.loc[i + 1, "name"], df.loc[i, "name"]
    df["redundant_with"] = pd.array(partners, dtype="string")
    df["power_w"] = 200.0
    inv = Inventory(
        df,
        pd.DataFrame({"name": [], "reason": []}),
        QualityReport(),
        "gen.csv",
        "table",
    )
    rules = dict(
        ceiling=draw(st.sampled_from([0.5, 0.6, 0.8])),
        failures=draw(st.integers(0, 2)),
        host_memory_reserve_gib=draw(st.sampled_from([0.0, 4.0])),
    )
    return inv, rules


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(inventories())
def test_plan_never_breaks_a_rule(case):
    inv, rules = case
    p = vsizer.plan(inv, HOST, **rules).to_dict()
    pool_of = {s["name"]: s["pool"] for s in p["servers"]}
    partners = {
        (n, str(r))
        for n, r in zip(inv.servers["name"], inv.servers["redundant_with"], strict=True)
        if not pd.isna(r)
    }
    demand = {s["name"]: s for s in p["servers"]}
    cap = p["host_model"]["capacity"]
    for pool in p["pools"]:
        host_of = {}
        for h in pool["hosts"]:
            assert h["id"].startswith(pool["name"] + "-")
            for vm in h["vms"]:
                assert pool_of[vm] == pool["name"]
                host_of[vm] = h["id"]
            for dim in ("cpu", "mem"):
                assert h["util"][dim] <= rules["ceiling"] + 1e-6
            assert h["util"]["vcpu"] <= 1 + 1e-6
        for a, b in partners:
            if a in host_of:
                assert host_of[a] != host_of[b]
        assert pool["failover"]["survives"]
        for sc in pool["failover"]["scenarios"]:
            where = dict(host_of)
            where.update({m["vm"]: m["to"] for m in sc["moves"]})
            assert not set(where.values()) & set(sc["failed"])
            for a, b in partners:
                if a in where:
                    assert where[a] != where[b]
            load: dict[str, list[float]] = {}
            for vm, h in where.items():
                s = demand[vm]
                cur = load.setdefault(h, [rules["host_memory_reserve_gib"], 0.0])
                cur[0] += s["vm_mem_gib"]
                cur[1] += s["cpu_peak_demand"]
            for mem, cpu in load.values():
                assert mem <= cap["mem"] * 1.000001 and cpu <= cap["cpu"] * 1.000001
    placed = sorted(vm for pool in p["pools"] for h in pool["hosts"] for vm in h["vms"])
    assert placed == sorted(pool_of)
