"""predict_plan: per-VM and per-host predictions, warnings, determinism."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from vsizer.errors import InputError
from vsizer.models.profile import Profile
from vsizer.study.predict import predict_plan

PLAN = Path(__file__).parent / "data" / "plan_small.json"


def _plan() -> dict:
    return json.loads(PLAN.read_text(encoding="utf-8"))


def _tiny(vms: list[dict], cores_per_socket: int = 2) -> dict:
    """A one-host plan: 2 sockets x ``cores_per_socket`` cores, 10 capacity units per core."""
    cores = 2 * cores_per_socket
    return {
        "host_model": {"sockets": 2, "cores_per_socket": cores_per_socket,
                       "threads_per_core": 2, "capacity": {"cpu": 10.0 * cores}},
        "servers": [{"host": "h1", **v} for v in vms],
        "pools": [{"name": "p", "hosts": [{"id": "h1", "vms": [v["name"] for v in vms]}]}],
    }


def _vm(name: str, demand: float, vcpus: int = 1, **kw) -> dict:
    return {"name": name, "vcpus": vcpus, "cpu_peak_demand": demand, "sockets": 1,
            "cores_per_socket": vcpus, "cpu_capacity": 10.0 * vcpus,
            "cpu_peak_util": demand / (10.0 * vcpus), **kw}


def test_small_plan_has_every_vm_and_host():
    doc = _plan()
    pred = predict_plan(doc)
    assert [v["name"] for v in pred["vms"]] == [
        n for p in doc["pools"] for h in p["hosts"] for n in h["vms"]]
    assert len(pred["hosts"]) == sum(len(p["hosts"]) for p in doc["pools"])
    assert set(pred["models"]) >= {"cpu", "disk", "network", "response_time"}
    assert "published VMware ESX 2.5.2 measurement" in pred["models"]["cpu"]["source"]
    assert any("NFS" in a for a in pred["assumptions"])
    for v in pred["vms"]:
        assert 0 < v["relative_cpu"] <= 1.0


def test_deterministic_and_pure():
    doc = _plan()
    before = copy.deepcopy(doc)
    a = json.dumps(predict_plan(doc), ensure_ascii=False)
    b = json.dumps(predict_plan(copy.deepcopy(doc)), ensure_ascii=False)
    assert a == b and doc == before


def test_hand_computed_host_within_the_cpus():
    # 4 cores x 10 units; 2 VMs of 1 vCPU at 10 and 20 units: demand 3 cores of 4
    pred = predict_plan(_tiny([_vm("a", 10.0), _vm("b", 20.0)]))
    h = pred["hosts"][0]
    assert h["cpu_demand_cores"] == pytest.approx(3.0)
    assert h["overcommit"] == pytest.approx(0.75)
    rel = (2.0918 - 0.0710 * 2) / (2.0918 - 0.0710)  # 2 vCPUs on the 4-core reference
    assert h["relative_cpu"] == pytest.approx(rel, abs=1e-6)
    b = pred["vms"][1]
    assert b["cpu_util"] == pytest.approx(2.0 / rel, abs=1e-6)  # 20 / (1 x 10) / rel
    assert "cpu-saturated" in b["risks"]
    w = [x for x in pred["warnings"] if x["name"] == "b"]
    assert w[0]["model"] == "cpu.vm_saturation_util" and "published VMware ESX 2.5.2 measurement" in w[0]["reason"]
    # VM a: 10 units on 1 vCPU of 10 units -> 1.0 / rel; the source server ran at
    # 100 %, so no response-time baseline exists (null, not a number)
    a = pred["vms"][0]
    assert a["cpu_util"] == pytest.approx(1.0 / rel, abs=1e-6)
    assert a["response_time_inflation"] is None


def test_response_time_inflation_hand_computed():
    # old server: 1 core at 50 % -> R_old = 1 / (1 - 0.5) = 2; new: same core speed,
    # 1 VM alone (rel = 1): R_new = 2 -> inflation 1. With a 2 x faster host: S = 0.5,
    # rho = 0.25, R = 0.5 / 0.75 -> inflation 1/3.
    doc = _tiny([_vm("a", 5.0)])
    assert predict_plan(doc)["vms"][0]["response_time_inflation"] == pytest.approx(1.0)
    doc["host_model"]["capacity"]["cpu"] = 80.0
    assert predict_plan(doc)["vms"][0]["response_time_inflation"] == pytest.approx(1 / 3)


def test_overcommitted_host_warns_and_reports_the_range():
    # 12 one-vCPU VMs of 5 units (half a core) on 4 cores: demand 6 cores
    vms = [_vm(f"v{i:02d}", 5.0) for i in range(12)]
    pred = predict_plan(_tiny(vms))
    h = pred["hosts"][0]
    assert h["overcommit"] == pytest.approx(1.5)
    assert "cpu-overcommit" in h["risks"]
    # k = 1.72: 1.5^1.72 = exp(0.405465 * 1.72) = 2.00852
    assert h["relative_cpu"] == pytest.approx((2.0918 - 0.0710 * 12) / 2.00852 / 2.0208, abs=1e-4)
    models = {w["model"] for w in pred["warnings"]}
    assert "cpu.contention_factor" in models
    assert h["guest_reported_util_pct"] == pytest.approx(600 * 2.00852, rel=1e-5)
    # 13 VMs on 4 cores is beyond 3 VMs per core: a model-range warning, not silence
    pred = predict_plan(_tiny([_vm(f"v{i:02d}", 1.0) for i in range(13)]))
    rng = [w for w in pred["warnings"] if w["kind"] == "model-range"]
    assert rng and rng[0]["model"] == "cpu.linear_relative" and "at most 3" in rng[0]["reason"]


def test_environment_from_profile_nfs_and_network():
    vms = [_vm("a", 5.0, mem_gib=48.0, net_mbps=700.0, disk_iops=100.0),
           _vm("b", 5.0, mem_gib=48.0, net_mbps=300.0, disk_iops=100.0)]
    prof = Profile(environment={"nfs": True, "nfs_server_cache_gib": 64.0,
                                "nic_gbps": 1.0, "vmq": False})
    pred = predict_plan(_tiny(vms), prof)
    h = pred["hosts"][0]
    assert h["nfs_cache_pressure"] == pytest.approx(96 / 64)
    assert h["net_limit_mbps"] == pytest.approx(800)
    assert {"nfs-cache-pressure", "network-wire-limit"} <= set(h["risks"])
    assert pred["vms"][0]["disk_ratio"] == pytest.approx(0.17)
    assert pred["vms"][0]["disk_risk"] == "high"
    assert any("server cache 64 GiB" in a for a in pred["assumptions"])


def test_sparse_without_write_cache_is_flagged():
    prof = Profile(environment={"disk_format": "sparse", "write_cache": False,
                                "write_fraction": 0.5})
    pred = predict_plan(_tiny([_vm("a", 5.0, disk_iops=100.0)]), prof)
    assert pred["vms"][0]["disk_risk"] == "high"
    assert any(w["model"] == "disk.format_risk" for w in pred["warnings"])


def test_missing_keys_raise_input_error():
    with pytest.raises(InputError, match="plan: missing key\\(s\\) 'host_model', 'pools'"):
        predict_plan({"servers": []})
