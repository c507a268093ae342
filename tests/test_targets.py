"""Tests of the target platform profiles (issue 29): licences, storage,
reserves, the plan through a target, the side-by-side comparison and its
error paths. Figures are hand-computed from the profile values cited in
docs/targets.md."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from openpyxl import load_workbook
from typer.testing import CliRunner

from vsizer.catalogs.licences import (
    Licence,
    licence_count,
    licences_per_host,
    read_licences,
)
from vsizer.catalogs.model import HostModel
from vsizer.catalogs.targets import get_target, read_target, read_targets
from vsizer.cli import app
from vsizer.errors import ConfigError
from vsizer.study.config import Rules
from vsizer.study.target_compare import compare_targets, pick_targets, recommend_target
from vsizer.study.target_rules import (
    target_licences,
    target_reserves,
    target_rules,
    usable_gib,
    with_cpu_reserve,
)

REPO = Path(__file__).resolve().parents[1]
SMALL = REPO / "tests/data/real/rvtools/rvtools-layout-generated_ibm-small-complete.xlsx"
SAMPLE = REPO / "vsizer/data/samples/rvtools_export.xlsx"
TARGETS = read_targets()
runner = CliRunner()


def _host(sockets: int, cores: int) -> HostModel:
    return HostModel("h", sockets, cores, 2, 2000.0, None, 512.0, 100.0, 400.0)


def _licence(target: str, unit: str | None = None) -> Licence:
    lics = TARGETS[target].licences
    return next(lic for lic in lics if unit is None or lic.unit == unit)


# --- licences -------------------------------------------------------------


def test_vcf_two_by_eight_core_host_licenses_32_and_no_order_minimum_is_applied():
    vcf, host = _licence("vcf"), _host(2, 8)
    assert licences_per_host(vcf, host) == 32  # 16-core minimum per CPU (Broadcom KB 313548)
    assert vcf.min_per_order is None  # the reported 72-core order minimum: unverified, not applied
    assert licence_count(vcf, host, 1, 10) == 32  # one host: 2 x 16
    assert licence_count(vcf, host, 2, 10) == 64
    assert licence_count(vcf, host, 3, 10) == 96
    shipped = {lic.name: lic for lic in read_licences()}
    for name in ("VMware Cloud Foundation", "VMware vSphere Foundation"):
        assert shipped[name].min_per_order is None
        assert licence_count(shipped[name], host, 2, 10) == 64
    assert licence_count(_licence("vvf"), _host(2, 32), 2, 10) == 128
    # a user's own order minimum still applies: 2 hosts x 32 = 64, raised to 72
    assert licence_count(replace(vcf, min_per_order=72), host, 2, 10) == 72


def test_windows_server_datacenter_16_core_minimum_per_host_and_8_per_cpu():
    ws = _licence("hyperv-s2d")
    assert ws.name == "Windows Server 2025 Datacenter"
    assert licences_per_host(ws, _host(1, 8)) == 16  # 16 per host
    assert licences_per_host(ws, _host(2, 4)) == 16  # 8 per CPU, 16 per host
    assert licences_per_host(ws, _host(2, 12)) == 24
    assert licences_per_host(ws, _host(4, 6)) == 32  # 4 CPUs x 8
    assert licences_per_host(ws, _host(3, 9)) == 28  # 27 cores, sold in 2-core packs
    shipped = {lic.name: lic for lic in read_licences()}
    assert licences_per_host(shipped["Windows Server 2025 Datacenter"], _host(3, 9)) == 28


def test_per_socket_and_socket_pair_subscriptions():
    pve = _licence("proxmox-ceph")
    assert [licences_per_host(pve, _host(s, 16)) for s in (1, 2, 4)] == [1, 2, 4]
    ocp = _licence("openshift-virt")
    assert ocp.sockets_per_licence == 2
    assert [licences_per_host(ocp, _host(s, 16)) for s in (1, 2, 4)] == [1, 1, 2]
    azl = _licence("azure-local")  # per physical core, no minimum
    assert licences_per_host(azl, _host(2, 8)) == 16
    assert licence_count(azl, _host(1, 4), 3, 0) == 12


def test_user_licence_rows_fill_prices_by_name_and_add_the_others():
    priced = Licence("vmware cloud FOUNDATION", "core", "year", price=350.0)
    veeam = Licence("Veeam", "vm", "year", price=50.0)
    got = target_licences(TARGETS["vcf"], [priced, veeam])
    assert [g.price for g in got] == [350.0, 50.0]
    assert (got[0].min_per_cpu, got[0].min_per_order) == (16, None)  # the profile's rules


def test_licence_prices_give_the_cost_per_year_and_the_tco_part():
    from vsizer.inventory import read_inventory

    priced = Licence("VMware Cloud Foundation", "core", "year", price=350.0)
    doc = compare_targets(read_inventory(SMALL), [TARGETS["vcf"], TARGETS["vvf"]],
                          user_licences=[priced])
    vcf, vvf = doc["targets"]
    assert vcf["licence_cost_per_year"] == vcf["cores_licensed"] * 350.0
    assert vcf["cores_licensed"] == vcf["hosts"] * 56  # 2 x 28-core R740, above 16 per CPU
    assert vvf["licence_cost_per_year"] is None  # no price given
    tco = doc["plans"]["vcf"]["tco"]
    assert tco["parts"]["licences"] == vcf["cores_licensed"] * 350.0 * 5



def test_comparison_reports_in_japanese(tmp_path):
    """--lang ja: every row label, the fixed words and "price not given" in
    Japanese; the figures are the English report's."""
    from vsizer.inventory import read_inventory
    from vsizer.reporting._targets_rows import ROW_JA, ROWS
    from vsizer.reporting.html_targets import targets_html
    from vsizer.reporting.xlsx_targets import write_targets_xlsx

    assert sorted(ROW_JA) == sorted(label for label, _, _ in ROWS)
    doc = compare_targets(read_inventory(SMALL), [TARGETS["vcf"], TARGETS["vvf"]])
    ja, en = targets_html(doc, "ja"), targets_html(doc, "en")
    assert '<html lang="ja"' in ja and "移行先基盤の比較" in ja and "並べて比較" in ja
    assert "年間ライセンス費用" in ja and "価格未指定" in ja and "price not given" not in ja
    assert "Licence cost per year" in en and "price not given" in en
    write_targets_xlsx(doc, tmp_path / "ja.xlsx", "ja")
    wb = load_workbook(tmp_path / "ja.xlsx")
    assert wb.sheetnames == ["移行先比較", "仮定値"]
    ws = wb["移行先比較"]
    labels = [ws.cell(row=r, column=1).value for r in range(1, ws.max_row + 1)]
    assert "ホスト数合計" in labels and "障害時も収容可能" in labels
    hosts = labels.index("ホスト数合計") + 1
    assert [ws.cell(row=hosts, column=c).value for c in (2, 3)] == [
        e["hosts_total"] for e in doc["targets"]]


# --- storage ----------------------------------------------------------------


def test_ceph_three_replicas_at_the_085_nearfull_ratio():
    t = TARGETS["proxmox-ceph"]
    assert (t.v("storage.ftt"), t.v("storage.full_ratio")) == (2, 0.85)
    assert usable_gib(3000.0, 3, 0.85) == pytest.approx(850.0)  # raw / 3 x 0.85
    rules = target_rules(t, Rules(), target_reserves(t))
    assert (rules.storage_mode, rules.protection, rules.ftt) == ("hyperconverged", "mirror", 2)
    assert rules.slack == pytest.approx(0.15)


def test_s2d_three_way_mirror_and_its_reserve():
    t = TARGETS["azure-local"]
    rules = target_rules(t, Rules(), target_reserves(t))
    assert (rules.protection, rules.ftt, rules.slack) == ("mirror", 2, 0.25)
    # three copies: 33.3 % efficiency; one of four drives per server kept free
    assert usable_gib(1200.0, 3, 0.75) == pytest.approx(300.0)
    assert rules.min_hosts == 3  # 1-16 machines, but a three-way mirror needs 3


# --- reserves ---------------------------------------------------------------


def test_reserves_per_host_per_disk_and_per_cluster():
    r = target_reserves(TARGETS["nutanix-ahv"])  # AHV 2 GiB + CVM 32 GiB, 8 vCPUs
    assert (r.memory_gib, r.cpu_cores, r.dedicated_hosts) == (34.0, 8.0, 0)
    r = target_reserves(TARGETS["proxmox-ceph"])
    # 2 GiB + 4 OSDs x 4 GiB + monitors 8 GiB / 3; 1 core + 4 x 1 + 4 / 3
    assert r.memory_gib == pytest.approx(2 + 16 + 8 / 3, abs=1e-6)
    assert r.cpu_cores == pytest.approx(1 + 4 + 4 / 3, abs=1e-6)
    vcf = TARGETS["vcf"]
    assert target_reserves(vcf).memory_gib == pytest.approx(4 + 10 + 109 / 3, abs=1e-6)
    assert target_reserves(vcf, 10).memory_gib == pytest.approx(4 + 10 + 10.9, abs=1e-6)
    ocp = target_reserves(TARGETS["openshift-virt"])
    assert ocp.dedicated_hosts == 3  # control plane on its own hosts
    assert ocp.memory_gib == pytest.approx(1 + 360 / 1024 + 4 * 5.0)  # 360 MiB per node
    assert ocp.cpu_cores == pytest.approx(0.5 + 2 + 4 * 2.0)  # 2 cores per node for OCP Virt


def test_target_rules_apply_defaults_but_keep_what_the_user_set():
    t = TARGETS["nutanix-ahv"]
    r = target_reserves(t)
    rules = target_rules(t, Rules(), r)
    assert rules.host_memory_reserve_gib == 34.0
    assert rules.vm_memory_overhead_mib == 64.0
    assert target_rules(TARGETS["vcf"], Rules(), r).vm_memory_overhead_mib is None  # table
    mine = target_rules(t, Rules(host_memory_reserve_gib=8.0, vcpu_per_core=4.0), r)
    assert (mine.host_memory_reserve_gib, mine.vcpu_per_core) == (8.0, 4.0)
    assert target_rules(TARGETS["openshift-virt"], Rules(), r).vcpu_per_core == 10.0


def test_cpu_reserve_lowers_host_capacity():
    from vsizer.catalogs.normalize import host_cpu_capacity
    from vsizer.study.hosts import host_capacity

    host = with_cpu_reserve(_host(2, 28), target_reserves(TARGETS["nutanix-ahv"]))
    import pandas as pd

    from vsizer.quality import QualityReport

    cap = host_capacity(host, "MHz", Rules(), pd.DataFrame({"name": []}), QualityReport())
    assert cap["cpu"] == pytest.approx(host_cpu_capacity(host, "MHz") * 48 / 56)


# --- errors ---------------------------------------------------------------


def test_unknown_target_is_one_line_with_did_you_mean():
    with pytest.raises(ConfigError) as exc:
        get_target("proxmox", TARGETS)
    msg = str(exc.value)
    assert "\n" not in msg and "did you mean 'proxmox-ceph'" in msg
    with pytest.raises(ConfigError, match="named twice"):
        pick_targets("vcf,VCF", TARGETS)
    assert [t.name for t in pick_targets("vcf, azure-local", TARGETS)] == ["vcf", "azure-local"]


def _profile(tmp_path: Path, old: str, new: str) -> Path:
    text = (REPO / "vsizer/catalogs/data/targets/vvf.toml").read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "mine.toml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


def test_bad_profile_names_file_and_key(tmp_path):
    p = _profile(tmp_path, "value = 96", 'value = "many"')
    with pytest.raises(ConfigError) as exc:
        read_target(p)
    assert str(exc.value) == (
        "mine.toml: key 'cluster.max_nodes.value': expected a whole number >= 1, got 'many'."
    )
    p = _profile(tmp_path, 'date = "2017-01"\n', "")
    with pytest.raises(ConfigError,
                       match=r"mine.toml: key 'reserve.vm_memory_overhead_mib.date': expected"):
        read_target(p)
    p = _profile(tmp_path, "[cluster.max_nodes]", "[cluster.max_nodes")
    with pytest.raises(ConfigError, match=r"mine.toml: not valid TOML: .*line \d+"):
        read_target(p)
    p = _profile(tmp_path, 'unit = "core"', 'unit = "cpu"')
    with pytest.raises(ConfigError, match=r"key 'licences\[1\].unit': expected one of core"):
        read_target(p)


def test_a_user_profile_replaces_the_shipped_one_of_its_name(tmp_path):
    p = _profile(tmp_path, "value = 96", "value = 32")
    assert read_targets([p])["vvf"].v("cluster.max_nodes") == 32
    assert len(read_targets([tmp_path])) == len(TARGETS)


# --- plan and compare -----------------------------------------------------


def test_recommendation_states_its_criterion():
    def e(name, hosts, tco, ok=True):
        return {"name": name, "hosts_total": hosts, "tco_total": tco, "survives_failover": ok,
                "currency": "USD", "years": 5, "reserve": {"memory_share": 0.01}}

    rec = recommend_target([e("a", 4, 100.0), e("b", 3, 200.0), e("c", 2, 50.0, False)])
    assert (rec["target"], rec["criterion"], rec["runner_up"]) == ("a", "tco_total", "b")
    assert rec["excluded"] == [{"target": "c", "reason": "does not survive its failover check"}]
    rec = recommend_target([e("a", 4, None), e("b", 3, 200.0)])
    assert (rec["target"], rec["criterion"]) == ("b", "hosts_total")
    assert "cost not ranked" in rec["reason"]


@pytest.mark.slow  # seven target plans of 112 VMs
def test_compare_all_targets_on_the_shipped_rvtools_sample(tmp_path):
    """The acceptance run: one column per target, the choice and its reason."""
    j, h, x = tmp_path / "cmp.json", tmp_path / "cmp.html", tmp_path / "cmp.xlsx"
    r = runner.invoke(app, ["compare", str(SAMPLE), "--targets", "all", "-o", str(j),
                            "-o", str(h), "-o", str(x)], env={"COLUMNS": "250"})
    assert r.exit_code == 0, r.output
    doc = json.loads(j.read_text(encoding="utf-8"))
    names = [e["name"] for e in doc["targets"]]
    assert names == sorted(TARGETS)
    rec = doc["recommendation"]
    assert rec["target"] in names and rec["criterion"] == "hosts_total" and rec["reason"]
    by = {e["name"]: e for e in doc["targets"]}
    ceph = by["proxmox-ceph"]["storage"]
    assert ceph["usable_gib"] == pytest.approx(ceph["raw_gib"] / 3 * 0.85, rel=1e-6)
    s2d = by["azure-local"]["storage"]
    assert s2d["usable_gib"] == pytest.approx(s2d["raw_gib"] / 3 * 0.75, rel=1e-6)
    assert by["openshift-virt"]["hosts_total"] == by["openshift-virt"]["hosts"] + 3
    vcf = by["vcf"]  # every core, at least 16 per CPU, no order minimum
    assert vcf["cores_licensed"] == vcf["hosts"] * max(vcf["host_cores"], 16 * vcf["host_sockets"])
    assert all(e["licence_cost_per_year"] is None for e in doc["targets"])
    assert doc["plans"]["vcf"]["target"]["name"] == "vcf"
    html = h.read_text(encoding="utf-8")
    assert "price not given" in html and rec["reason"].split(" (")[0] in html
    head = html.split("Side by side", 1)[1].split("</tr>", 1)[0]
    assert all(f"<th class=num>{n}</th>" in head for n in names)
    ws = load_workbook(x)["Targets"]
    assert [c.value for c in ws[1]][1:] == names
    assert "Recommendation:" in r.output


def test_target_comparison_is_deterministic():
    from vsizer.inventory import read_inventory

    inv = read_inventory(SMALL)
    picked = pick_targets("proxmox-ceph,vcf", TARGETS)
    a = compare_targets(inv, picked)
    b = compare_targets(inv, picked)
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def test_plan_target_counts_assumed_values_as_warnings(tmp_path):
    out, x, h = tmp_path / "plan.json", tmp_path / "plan.xlsx", tmp_path / "plan.html"
    r = runner.invoke(app, ["plan", str(SMALL), "--target", "nutanix-ahv", "-q", "-o", str(out),
                            "-o", str(x), "-o", str(h)])
    assert r.exit_code == 0, r.output
    ws = load_workbook(x)["Target platform"]
    assert [c.value for c in ws[2]][:2] == ["Title", "Nutanix AHV (NCI, distributed storage)"]
    assert 'id="target"' in h.read_text(encoding="utf-8")
    doc = json.loads(out.read_text(encoding="utf-8"))
    assumed = [w for w in doc["warnings"] if w["code"] == "target_assumed"]
    assert len(assumed) == len(TARGETS["nutanix-ahv"].assumed())
    assert doc["summary"]["warnings"] == len(doc["warnings"])
    assert doc["parameters"]["host_memory_reserve_gib"] == 34.0
    assert doc["target"]["reserve"]["per_host_cpu_cores"] == 8.0


def test_cli_unknown_target_is_one_line():
    r = runner.invoke(app, ["compare", str(SMALL), "--targets", "vcff,proxmox"])
    assert r.exit_code == 2
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and "did you mean 'vcf'" in lines[0]


def test_docs_targets_is_current():
    import importlib.util

    spec = importlib.util.spec_from_file_location("mtd", REPO / "scripts/make_targets_doc.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    text = (REPO / "docs/targets.md").read_text(encoding="utf-8")
    assert text == mod.render(), "run scripts/make_targets_doc.py"
    for t in TARGETS.values():  # every value with its source and date, or its reason
        for key, c in t.values.items():
            assert c.assumed or (c.source and c.date), (t.name, key)


# --- calibration (vsizer bench calibrate) ------------------------------------


def _store(tmp_path: Path, emulated: bool) -> Path:
    from vsizer.bench.samples import Sample, append_samples

    store = tmp_path / "s.jsonl"
    base = {"workload": "cpu", "aggregate": "trimmed_mean", "threads": 1, "min": None,
            "max": None, "n_runs": 3}
    vm = {**base, "environment": "vm", "emulated": emulated, "accelerator": "kvm"}
    append_samples(store, [
        Sample("events_per_s_host", 1000.0, "events/s", {**base, "environment": "physical"},
               1_764_200_000.0),
        Sample("events_per_s_host", 950.0, "events/s", vm, 1_764_200_100.0),
        Sample("events_per_s_host", 2000.0, "events/s",
               {**base, "threads": 2, "environment": "physical"}, 1_764_200_200.0),
        Sample("events_per_s_host", 1800.0, "events/s", {**vm, "threads": 2}, 1_764_200_300.0),
    ])
    return store


def test_bench_calibrate_writes_a_profile_with_measured_overheads(tmp_path):
    store, out = _store(tmp_path, emulated=False), tmp_path / "proxmox-ceph.toml"
    r = runner.invoke(app, ["bench", "calibrate", "proxmox-ceph", "--store", str(store),
                            "-o", str(out)])
    assert r.exit_code == 0, r.output
    mine = read_targets([out])["proxmox-ceph"]
    cpu = mine.values["performance.cpu"]
    assert cpu.value == pytest.approx(0.925)  # median of 950/1000 and 1800/2000
    assert (cpu.basis, cpu.date) == ("measured", "2025-11")
    assert mine.values["performance.disk"].basis == "assumed"  # not measured: kept
    assert len(mine.assumed()) == len(TARGETS["proxmox-ceph"].assumed()) - 1


def test_bench_calibrate_refuses_emulated_runs(tmp_path):
    r = runner.invoke(app, ["bench", "calibrate", "vcf", "--store",
                            str(_store(tmp_path, emulated=True)), "-o", str(tmp_path / "x.toml")])
    assert r.exit_code == 2
    assert "no VM / physical ratio measured with hardware virtualization" in r.output
    assert not (tmp_path / "x.toml").exists()


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["compare", str(SMALL), str(SMALL), "--targets", "all"],
         "compare --targets: expected one inventory file, got 2"),
        (["compare", str(SMALL), "--targets", "all", "--targets-file", "nope.toml"],
         "--targets-file nope.toml: no such file or folder."),
        (["compare", str(SMALL), "--targets", " , "],
         "--targets: expected 'all' or target names, got ' , '."),
        (["plan", str(SMALL), "--targets-file", "x.toml"],
         "--targets-file needs --target (or compare --targets)."),
    ],
)
def test_cli_target_argument_errors_are_one_line(args, expected):
    r = runner.invoke(app, args, env={"COLUMNS": "250"})
    assert r.exit_code == 2
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and expected in lines[0], r.output


def test_cli_bad_user_profile_names_file_and_key(tmp_path):
    p = _profile(tmp_path, "value = 96", "value = 0")
    r = runner.invoke(app, ["compare", str(SMALL), "--targets", "vvf", "--targets-file", str(p)])
    assert r.exit_code == 2
    assert "mine.toml: key 'cluster.max_nodes.value': expected a whole number >= 1, got 0." in r.output
