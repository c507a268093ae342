"""Right-sizing (issue 16 item 6): the declared rule, hand-computed sizes,
skipped VMs without a measured peak, --rightsize before placement, and VMs the
predictions find short of vCPUs."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

import vsizer
from vsizer.cli.app import app
from vsizer.errors import ConfigError
from vsizer.models.rightsize import recommended_mem_gib, recommended_vcpus
from vsizer.reporting.html import plan_html

HEAD = "name,pool,vcpus,cpu_mhz,mem_gib,mem_used_gib,cpu_avg_util,cpu_peak_util\n"


def _csv(tmp_path, rows, name="inv.csv"):
    f = tmp_path / name
    f.write_text(HEAD + "\n".join(rows) + "\n")
    return f


@pytest.mark.parametrize(
    ("cores", "vcpus"),
    [
        (0.0, 1),     # min 1
        (0.28, 1),    # 4 vCPUs at 7 %: 0.336 -> 1
        (0.84, 2),    # 1.008 -> 2
        (2.5, 4),     # 3.0 -> 3 -> 4
        (3.3, 4),     # 3.96 -> 4
        (6.24, 8),    # 7.488 -> 8
        (6.7, 16),    # 8.04 -> 9 -> 16
    ],
)
def test_recommended_vcpus_hand_computed(cores, vcpus):
    assert recommended_vcpus(cores) == vcpus


@pytest.mark.parametrize(
    ("used", "gib"), [(0.0, 1.0), (2.0, 3.0), (13.0, 16.0), (14.0, 17.0), (10.0, 12.0)]
)
def test_recommended_mem_hand_computed(used, gib):
    # used x 1.2 rounded up to a whole GiB: 2.4 -> 3, 15.6 -> 16, 16.8 -> 17, 12 -> 12
    assert recommended_mem_gib(used) == gib


def test_rule_parameters_are_checked():
    with pytest.raises(ConfigError, match="peak_cores"):
        recommended_vcpus(-1.0)
    with pytest.raises(ConfigError, match="headroom"):
        recommended_vcpus(1.0, headroom=0.5)
    with pytest.raises(ConfigError, match="step_gib"):
        recommended_mem_gib(1.0, step_gib=0.0)


def test_plan_lists_recommendations_and_skips_unmeasured(tmp_path):
    f = _csv(tmp_path, [
        "web1,web,4,2400,8,2.5,0.02,0.04",      # 0.16 cores -> 1; 3.0 GiB -> 3
        "db1,web,8,2400,64,41,0.30,0.52",       # 4.16 cores x 1.2 = 4.99 -> 8: keeps 8
        "avgonly,web,4,2400,8,,0.05,",          # peak estimated from the average
        "nothing,web,4,2400,8,,,",              # utilization assumed
    ])
    rs = vsizer.plan(f).to_dict()["rightsizing"]
    assert rs["applied"] is False
    by = {v["name"]: v for v in rs["vms"]}
    assert set(by) == {"web1", "db1"}
    assert (by["web1"]["vcpus_recommended"], by["web1"]["mem_gib_recommended"]) == (1, 3.0)
    # db1: 41 GiB x 1.2 = 49.2 -> 50 GiB; vCPUs unchanged
    assert (by["db1"]["vcpus_recommended"], by["db1"]["mem_gib_recommended"]) == (8, 50.0)
    assert by["db1"]["reason"] == "memory in use 41 GiB of 64; x 1.2 -> 50 GiB"
    assert rs["skipped_not_measured"] == 2
    assert rs["totals"] == {"vms": 2, "vcpus_freed": 3, "mem_gib_freed": 19.0,
                            "hosts_before": None, "hosts_after": None}
    assert rs["short_of_vcpus"] is None


def test_rightsize_applied_before_placement_frees_hosts(tmp_path):
    # 40 VMs of 16 vCPUs at 5 % peak, vCPU:core 1 on the 56-core default host:
    # 3 VMs per host -> ceil(40 / 3) = 14 hosts, + 1 for N+1 = 15.
    # Right-sized: 16 x 0.05 x 1.2 = 0.96 -> 1 vCPU each: demand 1 host,
    # held at min_hosts = 3.
    f = _csv(tmp_path, [f"vm{i:02d},app,16,2400,4,2,0.03,0.05" for i in range(40)])
    before = vsizer.plan(f, vcpu_per_core=1.0).to_dict()
    assert before["host_model"]["capacity"]["vcpu"] == 56.0
    assert before["summary"]["hosts"] == 15
    after = vsizer.plan(f, vcpu_per_core=1.0, rightsize=True).to_dict()
    rs = after["rightsizing"]
    assert rs["applied"] is True
    assert rs["totals"] == {"vms": 40, "vcpus_freed": 600, "mem_gib_freed": 40.0,
                            "hosts_before": 15, "hosts_after": 3}
    assert after["summary"]["hosts"] == 3
    assert {s["vcpus"] for s in after["servers"]} == {1}
    assert {s["mem_gib"] for s in after["servers"]} == {3.0}
    assert "Applied (--rightsize): 15 hosts before, 3 after." in plan_html(after)


def test_predictions_flag_vms_short_of_vcpus(tmp_path):
    f = _csv(tmp_path, ["busy,app,2,2400,4,2,0.9,1.0", "idle,app,8,2400,16,2,0.03,0.05"])
    rs = vsizer.plan(f, predict=True).to_dict()["rightsizing"]
    # busy: 0.96 of 2 vCPUs = 1.92 cores x 1.2 = 2.3 -> 4 vCPUs
    assert rs["short_of_vcpus"] == [{"name": "busy", "vcpus": 2, "cpu_util": 0.96,
                                     "vcpus_needed": 4, "risks": ["cpu-saturated"]}]


def test_cli_flag(tmp_path):
    f = _csv(tmp_path, ["web1,web,4,2400,8,2.5,0.02,0.04"])
    out = tmp_path / "p.json"
    res = CliRunner().invoke(app, ["plan", str(f), "--rightsize", "--detail", "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert '"applied": true' in out.read_text(encoding="utf-8")
    assert "Right-sizing: 1 VMs can shrink" in res.output
