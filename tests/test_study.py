"""The whole chain on real inputs: the bundled sample and the real RVTools export."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from numpy.testing import assert_allclose

import vsizer
from vsizer.study.config import load_rules

SAMPLES = Path(vsizer.__file__).parent / "data" / "samples"


@pytest.fixture(scope="module")
def sample_plan() -> dict:
    rules = load_rules(SAMPLES / "scenario.toml")
    return vsizer.plan(SAMPLES / "inventory_ja.xlsx", rules=rules).to_dict()


def test_contract_keys(sample_plan):
    p = sample_plan
    for key in ("servers", "hosts", "consolidation_ratio"):
        assert key in p["summary"]
    for key in ("capacity", "average", "peak"):
        assert isinstance(p["demand"]["totals"][key], float)
    for pool in p["pools"]:
        assert {"name", "hosts", "lower_bound", "failover"} <= set(pool)
        assert {"survives", "worst_survivor_util"} <= set(pool["failover"])
        for h in pool["hosts"]:
            assert {"id", "vms"} <= set(h)
    for key in (
        "before_w",
        "after_w",
        "annual_cost_before",
        "annual_cost_after",
        "annual_saving",
        "saving_over_years",
    ):
        assert key in p["power"]
    assert "confidence" in p["quality"]


def test_sample_plan_places_every_server_once_in_its_pool(sample_plan):
    p = sample_plan
    assert p["summary"]["servers"] == 37 and p["summary"]["excluded"] == 3
    placed = [vm for pool in p["pools"] for h in pool["hosts"] for vm in h["vms"]]
    assert sorted(placed) == sorted(s["name"] for s in p["servers"])
    assert len(placed) == len(set(placed))
    pool_of = {s["name"]: s["pool"] for s in p["servers"]}
    for pool in p["pools"]:
        for h in pool["hosts"]:
            assert h["id"].startswith(pool["name"] + "-")
            assert all(pool_of[vm] == pool["name"] for vm in h["vms"])
    assert [pool["name"] for pool in p["pools"]] == ["本番", "開発"]
    assert p["summary"]["hosts"] == sum(pool["host_count"] for pool in p["pools"])
    assert_allclose(
        p["summary"]["consolidation_ratio"], 37 / p["summary"]["hosts"], rtol=1e-6
    )


def test_sample_plan_rules_hold(sample_plan):
    p = sample_plan
    for pool in p["pools"]:
        ceiling = pool["ceiling"]
        for h in pool["hosts"]:
            assert h["util"]["cpu"] <= ceiling + 1e-6
            assert h["util"]["mem"] <= ceiling + 1e-6
            assert h["util"]["vcpu"] <= 1 + 1e-6
        assert pool["failover"]["survives"]
        assert pool["failover"]["worst_survivor_util"] <= 1 + 1e-6
        assert pool["host_count"] >= pool["lower_bound"]["hosts"] >= pool["min_hosts"]
    prod = p["pools"][0]
    assert prod["failures"] == 1 and prod["min_hosts"] == 3
    assert prod["failover"]["scenario_count"] == prod["host_count"] == len(prod["failover"]["scenarios"])
    dev = p["pools"][1]
    assert (dev["failures"], dev["ceiling"], dev["min_hosts"]) == (0, 0.8, 1)
    # Redundant pairs never share a host (7 pairs in the sample).
    host_of = {s["name"]: s["host"] for s in p["servers"]}
    partners = {
        (s["name"], other) for s in sample_plan_servers(p) for other in s["partners"]
    }
    assert len(partners) == 14
    for a, b in partners:
        assert host_of[a] != host_of[b]


def sample_plan_servers(p: dict) -> list[dict]:
    inv = vsizer.read_inventory(SAMPLES / "inventory_ja.xlsx").servers
    rows = inv[inv["redundant_with"].notna()]
    return [
        {"name": n, "partners": str(r).split(";")}
        for n, r in zip(rows["name"], rows["redundant_with"], strict=True)
    ]


def test_sample_plan_power_and_cost_arithmetic(sample_plan):
    pw = sample_plan["power"]
    assert (pw["price_kwh"], pw["pue"], pw["years"], pw["currency"]) == (
        31.0,
        1.5,
        5,
        "JPY",
    )
    assert_allclose(
        pw["annual_cost_before"], pw["before_w"] / 1000 * 8760 * 31 * 1.5, rtol=1e-6
    )
    assert_allclose(
        pw["annual_cost_after"], pw["after_w"] / 1000 * 8760 * 31 * 1.5, rtol=1e-6
    )
    assert_allclose(
        pw["annual_saving"],
        pw["annual_cost_before"] - pw["annual_cost_after"],
        rtol=1e-6,
    )
    assert_allclose(pw["saving_over_years"], 5 * pw["annual_saving"], rtol=1e-6)
    host_w = sum(h["power_w"] for pool in sample_plan["pools"] for h in pool["hosts"])
    assert_allclose(pw["after_w"], host_w, rtol=1e-5)
    assert sum(pw["servers_power_from"].values()) == 37


def test_targets_reported_met_or_not(sample_plan):
    t = {x["name"]: x for x in sample_plan["targets"]}
    s = sample_plan["summary"]
    assert_allclose(t["host_ratio"]["actual"], s["hosts"] / s["servers"], rtol=1e-5)
    assert t["host_ratio"]["met"] is (t["host_ratio"]["actual"] <= 0.5)
    sp = sample_plan["space"]
    assert_allclose(
        t["rack_ratio"]["actual"], sp["rack_u_after"] / sp["rack_u_before"], rtol=1e-5
    )


def test_plan_json_is_deterministic():
    rules = load_rules(SAMPLES / "scenario.toml")
    a = vsizer.plan(SAMPLES / "inventory_ja.xlsx", rules=rules).to_json()
    b = vsizer.plan(SAMPLES / "inventory_ja.xlsx", rules=rules).to_json()
    assert a == b
    json.loads(a)


def test_csv_and_xlsx_sample_give_the_same_plan():
    a = vsizer.plan(SAMPLES / "inventory_ja.xlsx").to_dict()
    b = vsizer.plan(SAMPLES / "inventory_ja.csv").to_dict()
    assert a["pools"] == b["pools"]


def test_ceiling_change_moves_the_host_count():
    base = vsizer.plan(SAMPLES / "inventory_ja.csv").to_dict()["summary"]["hosts"]
    loose = vsizer.plan(SAMPLES / "inventory_ja.csv", ceiling=0.9).to_dict()["summary"][
        "hosts"
    ]
    assert loose < base


def test_rvtools_every_vm_planned_or_excluded(shared_data):
    path = (
        shared_data / "formats" / "rvtools" / "kubev2v_migration-planner_example1.xlsx"
    )
    p = vsizer.plan(path).to_dict()
    planned = {s["name"] for s in p["servers"]}
    excluded = {e["name"]: e["reason"] for e in p["excluded"]}
    assert planned | set(excluded) == {f"vm-{i}" for i in range(1, 10)}
    assert not planned & set(excluded)
    assert all(reason for reason in excluded.values())
    assert "powered off" in excluded["vm-1"]
    assert p["inputs"]["source_format"] == "rvtools"


def test_unknown_plan_parameter_is_named():
    with pytest.raises(
        vsizer.ConfigError, match=r"Unknown parameter\(s\) of plan: cieling"
    ):
        vsizer.plan(SAMPLES / "inventory_ja.csv", cieling=0.6)


def test_unknown_host_model_lists_valid_ones():
    with pytest.raises(
        vsizer.CatalogLookupError,
        match=r"Host model 'Nope' is not in the host catalog\. Valid models: .*vsizer catalog list",
    ):
        vsizer.plan(SAMPLES / "inventory_ja.csv", host_model="Nope")


def test_network_and_disk_are_placed_on_when_the_host_states_capacity():
    from vsizer.catalogs import read_host_catalog

    base = read_host_catalog().default
    p0 = vsizer.plan(SAMPLES / "inventory_ja.csv", base).to_dict()
    assert any(
        w.startswith(
            "not constrained: disk_iops (37 servers), disk_mb_s (37 servers), "
            "net_mbps (37 servers)"
        )
        for w in (x["message"] for x in p0["warnings"])
    )
    assert "net_mbps" not in p0["pools"][0]["hosts"][0]["util"]
    total_net = p0["demand"]["totals"]["net_mbps"]
    # A host whose network carries only a fifth of the pool's traffic at the ceiling.
    import dataclasses

    small_net = dataclasses.replace(base, net_mbps=total_net / 5 / 0.6)
    p1 = vsizer.plan(SAMPLES / "inventory_ja.csv", small_net).to_dict()
    for pool in p1["pools"]:
        for h in pool["hosts"]:
            assert h["util"]["net_mbps"] <= pool["ceiling"] + 1e-6
    assert p1["pools"][0]["lower_bound"]["detail"]["net_mbps"] >= 4
    assert not any("net_mbps (37 servers)" in w["message"] for w in p1["warnings"])


def test_platform_factors_scale_cpu_capacity_and_host_power():
    base = vsizer.plan(SAMPLES / "inventory_ja.xlsx").to_dict()
    doc = vsizer.plan(
        SAMPLES / "inventory_ja.xlsx",
        platform=("power-plan-high-performance",),
        hyperthreading="off",
    ).to_dict()
    cap0, cap = base["host_model"]["capacity"]["cpu"], doc["host_model"]["capacity"]["cpu"]
    assert cap == pytest.approx(cap0 * 1.36 / 1.038, rel=1e-6)  # DESIGN §6.4
    idle0, idle = base["host_model"]["power_idle_w"], doc["host_model"]["power_idle_w"]
    assert idle == pytest.approx(idle0 / 1.094 + 16.0, rel=1e-6)  # HT off, +16 W plan
    assert doc["parameters"]["platform"] == ["power-plan-high-performance"]
    assert any(w["message"].startswith("Hyper-Threading off: CPU / 1.038") for w in doc["warnings"])


def test_running_a_study_twice_gives_the_same_plan():
    # platform factors change the host's power: they must not compound per run
    from vsizer.catalogs.host_catalog import read_host_catalog
    from vsizer.study import ConsolidationStudy
    from vsizer.study.config import Rules

    inv = vsizer.read_inventory(SAMPLES / "inventory_ja.xlsx")
    rules = Rules(platform=("power-plan-high-performance",), hyperthreading="off")
    study = ConsolidationStudy(inv, read_host_catalog().default, rules)
    assert study.run().to_json() == study.run().to_json()


# --- --hosts with one or several models, no --host-model ---------------------


def _hosts_csv(tmp_path, *models):
    lines = ["model,sockets,cores_per_socket,cpu_mhz,mem_gib,power_idle_w,power_max_w"]
    lines += [f"{m},2,16,2400,512,70,350" for m in models]
    path = tmp_path / "hosts.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_resolve_host_single_model_csv_is_used(tmp_path):
    from vsizer.study import resolve_host

    host, name = resolve_host(_hosts_csv(tmp_path, "Lab A"), None)
    assert (host.model, name) == ("Lab A", "hosts.csv")


def test_resolve_host_several_models_need_host_model(tmp_path):
    from vsizer.errors import ConfigError
    from vsizer.study import resolve_host

    path = _hosts_csv(tmp_path, "Lab A", "Lab B")
    with pytest.raises(ConfigError) as info:
        resolve_host(path, None)
    assert str(info.value) == (
        '--hosts hosts.csv lists 2 host models: Lab A; Lab B. Choose one with '
        '--host-model, e.g. --host-model "Lab A".'
    )
    assert resolve_host(path, "Lab B")[0].model == "Lab B"


# -- the library returns what the CLI writes (issue 13) ------------------------------


def test_library_plan_with_predictions_is_what_the_cli_writes(tmp_path):
    """``vsizer.plan(..., predict=True).to_json()`` is, character for character,
    the file ``vsizer plan --predict -o plan.json`` writes."""
    from typer.testing import CliRunner

    from vsizer.cli import app

    out = tmp_path / "plan.json"
    res = CliRunner().invoke(
        app,
        ["plan", str(SAMPLES / "inventory_ja.xlsx"), "--config",
         str(SAMPLES / "scenario.toml"), "--predict", "-q", "-o", str(out)],
    )
    assert res.exit_code == 0, res.output
    rules = load_rules(SAMPLES / "scenario.toml")
    p = vsizer.plan(SAMPLES / "inventory_ja.xlsx", rules=rules, predict=True)
    assert p.to_json() == out.read_text(encoding="utf-8")
    doc = p.to_dict()
    assert list(doc)[-1] == "predictions"
    assert doc["predictions"] == p.predictions


def test_predictions_only_when_asked_and_a_profile_implies_them():
    from vsizer.models.profile import Profile

    rules = load_rules(SAMPLES / "scenario.toml")
    plain = vsizer.plan(SAMPLES / "inventory_ja.xlsx", rules=rules)
    assert plain.predictions is None
    assert "predictions" not in plain.to_dict()
    with_profile = vsizer.plan(SAMPLES / "inventory_ja.xlsx", rules=rules, profile=Profile())
    asked = vsizer.plan(SAMPLES / "inventory_ja.xlsx", rules=rules, predict=True)
    assert with_profile.predictions is not None
    assert with_profile.to_json() == asked.to_json()


def test_plan_object_holds_the_economics_the_document_prints():
    """Power, cost, space and targets are facts of the plan object; the document
    only rounds them."""
    from vsizer._jsonable import jsonable

    rules = load_rules(SAMPLES / "scenario.toml")
    p = vsizer.plan(SAMPLES / "inventory_ja.xlsx", rules=rules)
    doc, e = p.to_dict(), p.economics
    assert doc["summary"]["hosts"] == e.hosts == sum(x.hosts for x in e.pools)
    assert doc["power"]["after_w"] == jsonable(e.after_w)
    assert doc["power"]["before_w"] == jsonable(e.before_w)
    assert doc["power"]["annual_saving"] == jsonable(e.annual_saving)
    assert doc["space"]["racks_after"] == e.racks_after
    assert [t["name"] for t in doc["targets"]] == [t.name for t in e.targets]
    assert [t["met"] for t in doc["targets"]] == [t.met for t in e.targets]
    for pool_doc in doc["pools"]:
        power = e.pool(pool_doc["name"])
        assert [h["power_w"] for h in pool_doc["hosts"]] == [
            jsonable(w) for w in power.watts
        ]
        assert e.after_w == pytest.approx(sum(float(x.watts.sum()) for x in e.pools))


def test_predict_and_profile_are_not_rules_fields():
    with pytest.raises(vsizer.ConfigError, match="Unknown parameter"):
        vsizer.plan(SAMPLES / "inventory_ja.xlsx", predictions=True)
