"""Today's estate as the baseline (issue 23 part B): the clusters of a
virtualized source, the rule that decided a plan needing more hosts than
today and its count at today's vCPU:core ratio, ``--vcpu-per-core today``,
and assumed CPU demand bounded by what the source host delivers.

Figures are counted by hand from the fixtures (tests/rvtools_estate.py,
tests/rvtools_fixture.py) and from the real RVTools export of
kubev2v/migration-planner (/work/shared/data/formats/rvtools/README.md).
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from rich.console import Console
from typer.testing import CliRunner

import vsizer
from vsizer.errors import ConfigError
from vsizer.reporting.excel import plan_workbook
from vsizer.reporting.html import plan_html
from vsizer.reporting.terminal import print_summary
from vsizer.study.config import Rules

KUBEV2V = Path(
    "/work/shared/data/formats/rvtools/kubev2v_migration-planner_example1.xlsx"
)


def _estate(tmp: Path, **kw: Any) -> Path:
    from tests.rvtools_estate import write_estate

    return write_estate(tmp / "estate.xlsx", **kw)


@pytest.fixture(scope="module")
def estate_doc(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return vsizer.plan(_estate(tmp_path_factory.mktemp("estate"))).to_dict()


@pytest.fixture(scope="module")
def today_doc(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    path = _estate(tmp_path_factory.mktemp("today"))
    return vsizer.plan(path, vcpu_per_core="today").to_dict()


@pytest.fixture(scope="module")
def unknown_doc(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    path = _estate(tmp_path_factory.mktemp("unknown"), with_usage=False)
    return vsizer.plan(path).to_dict()


def _cluster(doc: dict[str, Any], name: str) -> dict[str, Any]:
    return next(c for c in doc["before"]["clusters"] if c["name"] == name)


# -- today's clusters --------------------------------------------------------------
def test_estate_clusters_hand_counted(estate_doc: dict[str, Any]) -> None:
    # tests/rvtools_estate.py: 4 x 44 cores, 160 VMs x 4 vCPUs x 4 GiB, ...
    assert _cluster(estate_doc, "Prod") == {
        "name": "Prod", "hosts": 4, "cores": 176, "vcpus": 640,
        "vcpu_per_core": 3.636364, "mem_alloc_ratio": 0.416667, "cpu_usage": 0.45,
        "vms": 160,
    }
    assert _cluster(estate_doc, "Dev")["vcpu_per_core"] == 1.515152
    assert _cluster(estate_doc, "Dev")["mem_alloc_ratio"] == 0.173611  # 200 / 1152
    assert _cluster(estate_doc, "Test")["vcpu_per_core"] == 1.704545
    assert _cluster(estate_doc, "Test")["cpu_usage"] == 0.2
    # the two powered-off VMs (8 vCPUs each) are not counted
    assert estate_doc["before"]["totals"] == {
        "hosts": 9, "cores": 396, "vcpus": 990, "vcpu_per_core": 2.5,
        "mem_alloc_ratio": 0.277778, "cpu_usage": 0.277778, "vms": 240,
        "vms_without_cluster": 0,
    }


def test_old_layout_clusters_hand_counted(tmp_path: Path) -> None:
    """tests/rvtools_fixture.py: VMs on hosts vHost lacks (prod99, leg09) count
    in their cluster; vmsp-05 has no CPU usage (left out of the weighting)."""
    from tests.rvtools_fixture import write_old_layout

    doc = vsizer.plan(write_old_layout(tmp_path / "old.xlsx")).to_dict()
    assert _cluster(doc, "Prod") == {
        "name": "Prod", "hosts": 2, "cores": 24, "vcpus": 20,  # 4+2+8+4+2
        "vcpu_per_core": 0.833333,
        "mem_alloc_ratio": 0.088542,  # 34 GiB / 384 GiB
        "cpu_usage": 0.325,  # (25 x 12 + 40 x 12) / 24 %
        "vms": 5,
    }
    assert _cluster(doc, "Legacy") == {
        "name": "Legacy", "hosts": 3, "cores": 36, "vcpus": 10,  # 2+2+1+4+1
        "vcpu_per_core": 0.277778, "mem_alloc_ratio": 0.034722,  # 10 / 288 GiB
        "cpu_usage": 0.25, "vms": 5,  # vmsp-03 20 %, vmsp-04 30 %, vmsp-05 unknown
    }
    unmatched = next(w for w in doc["warnings"] if w["code"] == "before_vms_not_on_a_host")
    assert unmatched["servers"] == ["prod99", "leg09"]
    assert "2 planned VM(s) matched to no source host count in today's cluster " \
        "their pool names" in unmatched["message"]
    totals = doc["before"]["totals"]
    assert (totals["cores"], totals["vcpus"], totals["vcpu_per_core"]) == (60, 30, 0.5)
    assert totals["cpu_usage"] == 0.2875  # (300 + 480 + 240 + 360) / 48 %
    # 3 + 3 hosts for 5 today: the minimum of 3 hosts per pool decided, and at
    # today's ratios (0.83 and 0.28, as limits 1) each pool still needs 3
    vt = doc["before"]["versus_today"]
    assert (vt["hosts_before"], vt["hosts"], vt["hosts_at_today_ratio"]) == (5, 6, 6)
    assert vt["decided_by"] == [
        {"rule": "min_hosts", "pools": ["Prod", "Legacy"], "hosts": 6}]


def _sheet_rows(wb: Any, name: str) -> list[dict[str, Any]]:
    rows = wb[name].iter_rows(values_only=True)
    header = next(rows)
    out = []
    for r in rows:
        if all(c is None for c in r):
            break  # the formatted range reaches row 1,048,576 (README)
        out.append(dict(zip(header, r, strict=False)))
    return out


@pytest.mark.skipif(not KUBEV2V.exists(), reason="shared RVTools sample not present")
def test_kubev2v_real_export_clusters() -> None:
    """Counted with openpyxl: vHost hosts and '# Cores', the powered-on VMs of
    vInfo with their vCPU 'CPUs' and vMemory 'Size MiB'."""
    wb = openpyxl.load_workbook(KUBEV2V, read_only=True)
    hosts = _sheet_rows(wb, "vHost")
    on = {r["VM"] for r in _sheet_rows(wb, "vInfo") if r["Powerstate"] == "poweredOn"}
    vcpus = sum(r["CPUs"] for r in _sheet_rows(wb, "vCPU") if r["VM"] in on)
    mem = sum(r["Size MiB"] for r in _sheet_rows(wb, "vMemory") if r["VM"] in on)
    cores = sum(h["# Cores"] for h in hosts)
    assert (len(hosts), cores, sorted(on), vcpus) == (
        7, 224, ["vm-3", "vm-8", "vm-9"], 34)  # 3 + 13 + 18
    installed = sum(h["# Memory"] for h in hosts)
    usage = sum(h["CPU usage %"] * h["# Cores"] for h in hosts) / cores / 100

    doc = vsizer.plan(KUBEV2V).to_dict()
    assert doc["before"]["clusters"] == [{
        "name": "Cluster", "hosts": 7, "cores": 224, "vcpus": 34,
        "vcpu_per_core": round(34 / 224, 6),  # 0.151786
        "mem_alloc_ratio": round(mem / installed, 6),  # 86016 / 1832579 MiB
        "cpu_usage": round(usage, 6),  # 97 / 7 % = 0.138571
        "vms": 3,
    }]
    assert doc["before"]["clusters"][0]["mem_alloc_ratio"] == 0.046937
    assert doc["summary"]["hosts"] == 3 and doc["before"]["versus_today"] is None


# -- more hosts than today: the rule and the count at today's ratio ---------------
def test_vcpu_limit_named_as_the_rule(estate_doc: dict[str, Any]) -> None:
    """Prod: 640 vCPUs / (56 cores x 2) = 5.7 -> 6, + N+1 = 7; without the
    vCPU:core limit 3. The rule is the vCPU:core limit, not N+k failover."""
    prod = next(p for p in estate_doc["pools"] if p["name"] == "Prod")
    cr = prod["count_reason"]
    assert (prod["host_count"], cr["binding"]) == (7, "vcpu_per_core")
    assert cr["relaxed"]["vcpu_per_core"] == 3 and cr["relaxed"]["failover"] == 6
    assert cr["text"].startswith(
        "7 hosts because the vCPU:core limit (vCPUs alone need 6 hosts)")


def test_versus_today_counts(estate_doc: dict[str, Any]) -> None:
    """At today's ratios: Prod 640 / (56 x 3.636) = 3.1 -> 4 + 1 = 5; Dev
    200 / (56 x 1.515) = 2.4 -> 3 + 1 = 4; Test 150 / (56 x 1.705) = 1.6 -> 2 + 1
    = 3 (min 3): 12 hosts, against 13 at vCPU:core <= 2 and 9 today."""
    vt = estate_doc["before"]["versus_today"]
    assert (vt["hosts_before"], vt["hosts"], vt["hosts_at_today_ratio"]) == (9, 13, 12)
    assert vt["decided_by"][0] == {"rule": "vcpu_per_core", "pools": ["Prod"], "hosts": 7}
    assert [(p["name"], p["hosts_at_today_ratio"], p["ratio_from"])
            for p in vt["pools"]] == [("Prod", 5, "Prod"), ("Dev", 4, "Dev"),
                                       ("Test", 3, "Test")]


def test_headline_in_terminal_html_excel(estate_doc: dict[str, Any]) -> None:
    out = io.StringIO()
    print_summary(estate_doc, Console(file=out, width=200))
    lines = out.getvalue().splitlines()
    head = next(i for i, line in enumerate(lines) if "new hosts for" in line)
    assert head < 20  # in the first screen, right after the key figures
    assert lines[head].startswith(
        "13 new hosts for 9 today, decided by vCPU:core ≤ 2 (Prod: 7)")
    assert "at today's ratios the plan needs 12 hosts." in lines[head]
    assert any(line.startswith("Today Prod: 4 hosts, 176 cores, 640 vCPUs = 3.64/core")
               for line in lines)
    assert "Rule: vCPU:core limit" in out.getvalue()
    assert "Rule: N+k failover │" not in out.getvalue().split("Prod")[1][:200]
    html = plan_html(estate_doc)
    summary = html[html.index('id="summary"'):html.index('id="explain"')]
    assert "13 new hosts for 9 today, decided by vCPU:core ≤ 2" in summary
    assert "<td>Prod</td>" in html and "3.64" in html
    ws = plan_workbook(estate_doc).worksheets[0]
    items = {r[0]: r[1] for r in ws.iter_rows(values_only=True) if r[0]}
    assert items["Hosts at today's vCPU:core ratio"] == 12
    assert items["vCPUs per core today"] == 2.5
    assert str(items["Decided by"]).startswith("vCPU:core ≤ 2 (Prod: 7)")


# -- --vcpu-per-core today ---------------------------------------------------------
def test_vcpu_per_core_today_uses_each_clusters_ratio(today_doc: dict[str, Any]) -> None:
    assert today_doc["inputs"]["vcpu_per_core_today"] == {
        "Prod": {"vcpu_per_core": 3.636364, "from": "Prod"},
        "Dev": {"vcpu_per_core": 1.515152, "from": "Dev"},
        "Test": {"vcpu_per_core": 1.704545, "from": "Test"},
    }
    assert today_doc["parameters"]["vcpu_per_core"] == 2.5
    assert [p["host_count"] for p in today_doc["pools"]] == [5, 4, 3]
    warning = next(w for w in today_doc["warnings"] if w["code"] == "vcpu_per_core_today")
    assert "pool 'Prod': 3.64 (cluster 'Prod' runs at 3.64)" in warning["message"]
    assert today_doc["before"]["versus_today"]["hosts_at_today_ratio"] == 12
    ws = plan_workbook(today_doc).worksheets[0]
    by_key = {r[2]: r[1] for r in ws.iter_rows(values_only=True) if r[2]}
    assert json.loads(by_key["inputs.vcpu_per_core_today"])["Prod"] == {
        "from": "Prod", "vcpu_per_core": 3.636364}
    assert "vcpu_per_core_today" in plan_html(today_doc)


@pytest.mark.skipif(not KUBEV2V.exists(), reason="shared RVTools sample not present")
def test_vcpu_per_core_today_below_one_is_one() -> None:
    """kubev2v runs at 34 / 224 = 0.152 vCPUs per core: the limit is 1."""
    doc = vsizer.plan(KUBEV2V, vcpu_per_core="today").to_dict()
    assert doc["inputs"]["vcpu_per_core_today"] == {
        "Cluster": {"vcpu_per_core": 1.0, "from": "Cluster"}}
    assert doc["host_model"]["capacity"]["vcpu"] == 56.0
    message = next(w["message"] for w in doc["warnings"]
                   if w["code"] == "vcpu_per_core_today")
    assert "pool 'Cluster': 1 (cluster 'Cluster' runs at 0.152)" in message


def test_vcpu_per_core_today_without_hosts_before_is_an_error() -> None:
    with pytest.raises(ConfigError, match=r"--vcpu-per-core today .* inventory "
                       r"'.*inventory_ja.xlsx' has no hosts before"):
        vsizer.plan("vsizer/data/samples/inventory_ja.xlsx", vcpu_per_core="today")


def test_vcpu_per_core_flag_values() -> None:
    assert Rules(vcpu_per_core="2.5").vcpu_per_core == 2.5  # a flag's text
    assert Rules(vcpu_per_core="today").vcpu_per_core == "today"
    with pytest.raises(ConfigError, match=r"The 'vcpu_per_core' parameter of plan "
                       r"\(--vcpu-per-core, \[sizing\] vcpu_per_core\) must be a "
                       r"positive number, or 'today'"):
        Rules(vcpu_per_core="soon")
    with pytest.raises(ConfigError, match="must be a positive number"):
        Rules(vcpu_per_core=0.0)


def test_cli_vcpu_per_core_today(tmp_path: Path) -> None:
    from vsizer.cli import app

    runner = CliRunner()
    out = tmp_path / "plan.json"
    res = runner.invoke(app, ["plan", str(_estate(tmp_path)), "--vcpu-per-core",
                              "today", "-o", str(out)], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    assert json.loads(out.read_text())["parameters"]["vcpu_per_core"] == 2.5
    res = runner.invoke(app, ["plan", "vsizer/data/samples/inventory_ja.xlsx",
                              "--vcpu-per-core", "today"], env={"COLUMNS": "250"})
    assert res.exit_code == 2  # vsizer.cli.common.EXIT_INPUT
    assert "--vcpu-per-core today ([sizing] vcpu_per_core): inventory" in res.output
    assert "give the limit as a number, e.g. --vcpu-per-core 4." in res.output


# -- an estate without utilization: bounded by its hosts ---------------------------
def test_unknown_use_never_needs_more_cpu_than_today(unknown_doc: dict[str, Any]) -> None:
    """Every VM taken 100 % busy would ask for 990 vCPUs' worth; the 9 hosts
    have 396 cores. Each host is over-committed, so the plan's CPU demand is
    exactly the hosts' capacity: 396 x the per-core capacity."""
    per_core = unknown_doc["servers"][0]["cpu_score_per_core"]
    total = sum(s["cpu_peak_demand"] for s in unknown_doc["servers"])
    assert total == pytest.approx(396 * per_core, rel=1e-6)
    assert total <= 396 * per_core * (1 + 1e-9)
    util = {s["name"]: s["cpu_peak_util"] for s in unknown_doc["servers"]}
    assert util["prod-vm001"] == pytest.approx(44 / 160)  # 40 VMs x 4 vCPUs, 44 cores
    assert util["dev-vm001"] == pytest.approx(44 / 68)  # 17 VMs x 4 vCPUs
    assert util["dev-vm003"] == pytest.approx(44 / 64)  # 16 VMs on esx-dev-3
    assert util["test-vm001"] == pytest.approx(44 / 75)  # 15 VMs x 5 vCPUs
    warning = next(w for w in unknown_doc["warnings"]
                   if w["code"] == "assumed_cpu_bounded_by_host")
    assert len(warning["servers"]) == 240
    assert warning["message"].startswith(
        "240 VM(s) without CPU utilization ask, at the assumed use, for more CPU "
        "than their source host has on 9 host(s): esx-dev-1.example.com (x 0.647)")
    assert "and 4 more" in warning["message"]
    notes = next(q for q in unknown_doc["quality"]["servers"] if q["name"] == "prod-vm001")
    assert "cpu_peak_util" in notes["assumed"]
    assert "bounded by what host esx-prod-1.example.com (44 cores)" in (
        notes["notes"]["cpu_peak_util"])
    assert all(c["cpu_usage"] is None for c in unknown_doc["before"]["clusters"])


def test_hosts_with_room_are_not_bounded(tmp_path: Path) -> None:
    """At --assume-util 0.2 a Prod host asks for 160 x 0.2 = 32 of 44 cores and
    Test for 75 x 0.2 = 15: nothing is scaled, no warning."""
    doc = vsizer.plan(_estate(tmp_path, with_usage=False), assume_util=0.2).to_dict()
    assert {s["cpu_peak_util"] for s in doc["servers"]} == {0.2}
    assert not any(w["code"] == "assumed_cpu_bounded_by_host" for w in doc["warnings"])


def test_measured_use_is_not_bounded(estate_doc: dict[str, Any]) -> None:
    assert {s["cpu_peak_util"] for s in estate_doc["servers"]} == {0.1}
    assert not any(w["code"] == "assumed_cpu_bounded_by_host"
                   for w in estate_doc["warnings"])


def test_versus_today_on_curves(tmp_path: Path) -> None:
    """With utilization series (48 half-hour steps, 5-30 % busy) the pools are
    sized on their curves and sized again at today's ratios on them: the vCPUs
    bind as on figures (13 hosts; 12 at today's ratios)."""
    import numpy as np

    from tests.rvtools_estate import _vms
    from vsizer.cli import app

    names = [vm for vm, state, *_ in _vms() if state == "poweredOn"]
    rng = np.random.default_rng(1)
    lines = ["timestamp," + ",".join(names)] + [
        f"2024-05-01T{i // 2:02d}:{30 * (i % 2):02d}:00Z,"
        + ",".join(f"{x:.3f}" for x in rng.uniform(0.05, 0.3, len(names)))
        for i in range(48)
    ]
    series = tmp_path / "wide.csv"
    series.write_text("\n".join(lines) + "\n")
    out = tmp_path / "plan.json"
    res = CliRunner().invoke(app, [
        "plan", str(_estate(tmp_path)), "--series", str(series), "--series-format",
        "wide", "--step", "30min", "-o", str(out)], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    doc = json.loads(out.read_text())
    assert doc["pools"][0]["replay"] is not None  # placed on curves
    vt = doc["before"]["versus_today"]
    assert (vt["hosts"], vt["hosts_at_today_ratio"]) == (13, 12)
    assert [p["hosts_at_today_ratio"] for p in vt["pools"]] == [5, 4, 3]
    assert doc["pools"][0]["count_reason"]["binding"] == "vcpu_per_core"


def test_toml_vcpu_per_core_today() -> None:
    from vsizer.study.config import rules_from_dict

    assert rules_from_dict({"sizing": {"vcpu_per_core": "today"}}).vcpu_per_core == "today"
    assert rules_from_dict({"sizing": {"vcpu_per_core": 3}}).vcpu_per_core == 3.0
