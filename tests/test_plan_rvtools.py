"""Plans from RVTools exports: "before" is the existing ESXi hosts (issue 11).

Hand checks of power.before_w (vsizer/catalogs/data/server_power.csv, linear
idle-max, P = idle + (max - idle) x CPU usage of the host):

Older export (tests/rvtools_fixture.py):
  vmsp-01  HP ProLiant DL380 Gen9, not in the catalog: 2-chip median
           71.5 + (265 - 71.5) x 0.25 = 119.875 W
  vmsp-02  same model, 0.40:          71.5 + 193.5 x 0.40 = 148.9 W
  vmsp-03  HP ProLiant DL380 G7 (52.95-197 W), 0.20: 52.95 + 144.05 x 0.2 = 81.76 W
  vmsp-04  same, 0.30:                52.95 + 144.05 x 0.3 = 96.165 W
  vmsp-05  same, usage unknown -> assume_util 1.0:          197 W
  total 643.7 W; 5 hosts x 2 U (none in the host catalog) = 10 U.

Modern export (kubev2v example1): 7 x HPE ProLiant DL380 Gen10 (49.3-461 W) at
14, 12, 16, 17, 8, 20, 10 % = 7 x 49.3 + 411.7 x 0.97 = 744.449 W.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

import vsizer
from vsizer.reporting.excel import plan_workbook
from vsizer.reporting.html import plan_html
from vsizer.reporting.terminal import print_summary

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def old_plan(tmp_path_factory):
    from tests.rvtools_fixture import write_old_layout

    path = write_old_layout(tmp_path_factory.mktemp("rv") / "old.xlsx")
    return vsizer.plan(path)


def test_before_is_the_esxi_hosts(old_plan):
    d = old_plan.to_dict()
    assert d["summary"]["hosts_before"] == 5
    assert d["summary"]["servers"] == 10
    assert d["power"]["before_w"] == pytest.approx(643.7)
    assert d["space"]["rack_u_before"] == 10.0
    before = d["before"]
    assert (before["hosts_count"], before["cores"], before["vms"]) == (5, 60, 8)
    assert before["power_from"] == {"catalog": 3, "assumed": 2}
    got = [(h["name"], h["model"], h["cores"], h["power_w"], h["power_source"])
           for h in before["hosts"]]
    assert got == [
        ("vmsp-01", "HP ProLiant DL380 Gen9", 12, pytest.approx(119.875), "assumed"),
        ("vmsp-02", "HP ProLiant DL380 Gen9", 12, pytest.approx(148.9), "assumed"),
        ("vmsp-03", "HP ProLiant DL380 G7", 12, pytest.approx(81.76), "catalog"),
        ("vmsp-04", "HP ProLiant DL380 G7", 12, pytest.approx(96.165), "catalog"),
        ("vmsp-05", "HP ProLiant DL380 G7", 12, pytest.approx(197.0), "catalog"),
    ]
    # the VMs are not costed as physical servers
    assert {(s["power_w"], s["power_source"]) for s in d["servers"]} == {
        (None, "host")}
    assert old_plan.quality.status("app01", "power_w") == "derived"


def test_before_warnings(old_plan):
    got = {w.code: (w.message, w.servers) for w in old_plan.quality.warnings}
    assert got["assumed_host_power"] == (
        "2 source host(s) have a model not in the SPECpower catalog (or none): their "
        "power is the median idle and full-load watts of published single-node "
        "SPECpower_ssj2008 results with the same chip count "
        "(https://www.spec.org/power_ssj2008/), linear in utilization.",
        ("vmsp-01", "vmsp-02"),
    )
    assert got["assumed_host_cpu_util"] == (
        "CPU usage of 1 source host(s) unknown: 1 assumed for their power (scenario "
        "setting [sizing] assume_util).", ("vmsp-05",))
    assert got["assumed_host_rack_u"] == (
        "rack units of 5 source host(s) unknown: 2 U assumed each.",
        tuple(f"vmsp-0{i}" for i in range(1, 6)))
    # the reader's warnings travel with the plan
    assert got["rvtools_host_not_in_vhost"][1] == ("prod99", "leg09")


def test_old_export_plans_without_cpu_errors(old_plan):
    """Issue 11: the 1 MHz gap and the mixed X5675/X5690 cluster aborted the plan."""
    servers = {s["name"]: s for s in old_plan.to_dict()["servers"]}
    assert servers["prod99"]["cpu_mhz"] == 2399.5
    # X5675: CINT2006rate score (2016 listing) bridged to the host's basis
    assert servers["leg09"]["score_source"] == "catalog-bridge"
    assert servers["app01"]["cpu_avg_util"] == 0.5
    assert servers["prod99"]["cpu_avg_util"] == 1.0  # assume_util, flagged


def test_plan_json_is_deterministic(old_plan, tmp_path):
    from tests.rvtools_fixture import write_old_layout

    again = vsizer.plan(write_old_layout(tmp_path / "old.xlsx"))
    assert again.to_json() == old_plan.to_json()


def test_reports_say_hosts_before(old_plan):
    d = old_plan.to_dict()
    n = d["summary"]["hosts"]
    out = io.StringIO()
    print_summary(d, Console(file=out, width=120))
    line = next(x for x in out.getvalue().splitlines() if "Existing hosts" in x)
    assert "Existing hosts → new hosts" in line and line.rstrip(" │").endswith(
        f"5 → {n}")
    assert "Existing hosts → new hosts" in plan_html(d)
    values = [c.value for row in plan_workbook(d).worksheets[0].iter_rows()
              for c in row]
    assert "Existing hosts → new hosts" in values and f"5 → {n}" in values


def test_modern_export_before(shared_data):
    path = shared_data / "formats" / "rvtools" / "kubev2v_migration-planner_example1.xlsx"
    if not path.is_file():
        pytest.skip(f"absent: {path}")
    d = vsizer.plan(path).to_dict()
    assert d["summary"]["hosts_before"] == 7
    assert d["power"]["before_w"] == pytest.approx(744.449)
    assert d["space"]["rack_u_before"] == 14.0
    h = d["before"]["hosts"][0]
    assert (h["name"], h["model"], h["cores"], h["power_w"]) == (
        "10.17.135.71", "HPE ProLiant DL380 Gen10", 32, pytest.approx(106.938))


def test_physical_inventory_has_no_before():
    d = vsizer.plan(REPO / "tests" / "data" / "inventory" / "table_en.csv").to_dict()
    assert d["summary"]["hosts_before"] is None
    assert d["before"] is None
    out = io.StringIO()
    print_summary(d, Console(file=out, width=120))
    assert "Existing hosts" not in out.getvalue()


def test_vms_without_known_hosts_have_no_before_power(tmp_path):
    """An RVTools export without vHost: the VMs are not costed as servers."""
    from tests.rvtools_fixture import write_old_layout

    inv = vsizer.read_inventory(write_old_layout(tmp_path / "old.xlsx"))
    inv.hosts_before = None  # as read from an export without vHost
    p = vsizer.plan(inv)
    d = p.to_dict()
    assert d["before"] is None and d["summary"]["hosts_before"] is None
    assert d["power"]["before_w"] is None
    assert d["power"]["annual_kwh_before"] is None
    assert d["power"]["after_w"] > 0
    assert p.quality.entries["app01"]["power_w"] == (
        "derived", "a VM whose hosts are unknown: no power before")


def test_host_ratio_target_counts_the_existing_hosts(tmp_path):
    # For a virtualized source the machines before are its 5 hosts, not its 10 VMs.
    from tests.rvtools_fixture import write_old_layout

    path = write_old_layout(tmp_path / "old.xlsx")
    d = vsizer.plan(path, targets={"host_ratio": 0.5}).to_dict()
    [t] = d["targets"]
    assert t["actual"] == pytest.approx(d["summary"]["hosts"] / 5, abs=1e-6)
