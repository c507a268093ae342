"""Storage (issue 16, item 4): protection overhead, slack, thin provisioning, write
penalty, hyperconverged host count; a pool hand-computed end to end; bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import vsizer
from vsizer.errors import ConfigError
from vsizer.models.storage import (
    backend_iops,
    hosts_for_storage,
    protection,
    required_raw_gib,
    slack_factor,
    thin_ratio,
)
from vsizer.study.config import Rules, rule_where, rules_from_dict

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "vsizer" / "data" / "samples" / "inventory_ja.xlsx"


# -- protection overhead: SNIA definitions, vSAN capacity table -------------------


@pytest.mark.parametrize(
    ("name", "ftt", "overhead", "penalty", "domains"),
    [
        ("raid5-4+1", 1, 1.25, 4, 5),       # (n+1)/n, n = 4
        ("raid5", 1, 1.25, 4, 5),           # default group 4+1
        ("raid5-3+1", 1, 4 / 3, 4, 4),      # vSAN FTT=1 RAID-5: 100 GB -> 133 GB, 4 hosts
        ("raid6-4+2", 1, 1.5, 6, 6),        # vSAN FTT=2 RAID-6: 100 GB -> 150 GB, 6 hosts
        ("raid6", 1, 1.5, 6, 6),
        ("raid6-8+2", 1, 1.25, 6, 10),
        ("ec-8+3", 1, 11 / 8, 8, 11),       # (k+m)/k; penalty 2 (1 + m)
        ("mirror", 1, 2.0, 2, 3),           # vSAN FTT=1 RAID-1: 200 GB, 3 hosts
        ("mirror", 2, 3.0, 3, 5),           # FTT=2 RAID-1: 300 GB, 5 hosts
        ("mirror", 3, 4.0, 4, 7),           # FTT=3: 7 hosts
        ("mirror", 0, 1.0, 1, 1),
        ("raid1", 2, 2.0, 2, 3),            # ftt applies to 'mirror' only
        ("RAID10", 1, 2.0, 2, 3),
        ("none", 1, 1.0, 1, 1),
    ],
)
def test_protection_overhead_penalty_and_fault_domains(name, ftt, overhead, penalty, domains):
    p = protection(name, ftt)
    assert p.overhead_factor == pytest.approx(overhead)
    assert p.write_penalty == penalty
    assert p.min_fault_domains == domains


def test_vsan_capacity_table_100_gb():
    # VMware vSAN Administration, "Using RAID 5 or RAID 6 Erasure Coding", Table 1
    assert 100 * protection("mirror", 1).overhead_factor == pytest.approx(200)
    assert 100 * protection("raid5-3+1").overhead_factor == pytest.approx(133.33, abs=0.01)
    assert 100 * protection("mirror", 2).overhead_factor == pytest.approx(300)
    assert 100 * protection("raid6-4+2").overhead_factor == pytest.approx(150)


def test_slack_and_required_raw():
    assert slack_factor(0.25) == pytest.approx(1 / 0.75)
    assert slack_factor(0.0) == 1.0
    # RAID-5 4+1, 25 % slack: 600 GiB used -> 600 x 1.25 / 0.75 = 1000 GiB raw
    assert required_raw_gib(600.0, 1.25, 0.25) == pytest.approx(1000.0)
    # FTT=1 mirror: 600 x 2 / 0.75 = 1600
    assert required_raw_gib(600.0, protection("mirror").overhead_factor, 0.25) == (
        pytest.approx(1600.0)
    )


def test_thin_ratio_and_backend_iops():
    assert thin_ratio(1000.0, 600.0) == pytest.approx(5 / 3)
    assert thin_ratio(1000.0, 0.0) is None
    # 1000 IOPS, 70 % read, RAID-5: 700 reads + 300 writes x 4 = 1900
    assert backend_iops(1000.0, 0.7, 4) == pytest.approx((1900.0, 1200.0))
    assert backend_iops(1000.0, 1.0, 6) == pytest.approx((1000.0, 0.0))


@pytest.mark.parametrize(
    ("raw", "per_host", "failures", "domains", "hosts"),
    [
        (1600.0, 500.0, 1, 3, 5),      # ceil(3.2) = 4, + 1 survivor margin
        (1500.0, 500.0, 1, 3, 4),      # exactly 3 hosts' worth, + 1
        (100.0, 500.0, 0, 3, 3),       # the protection's fault domains bind
        (0.0, 500.0, 1, 1, 1),
    ],
)
def test_hosts_for_storage(raw, per_host, failures, domains, hosts):
    assert hosts_for_storage(raw, per_host, failures, domains) == hosts


# -- bad input: one declared line ---------------------------------------------------


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("raid7", "expected one of none, raid1, raid10, raid5, raid5-N+1, raid6, "
                  "raid6-N+2, ec-K+M, mirror (e.g. raid5-4+1, ec-4+2), got 'raid7'"),
        ("raid5-4+2", "raid5 has 1 parity strip(s) (raid5-N+1), got 'raid5-4+2'"),
        ("raid6-4+1", "raid6 has 2 parity strip(s) (raid6-N+2), got 'raid6-4+1'"),
        ("ec-0+2", "data and parity strips must be 1 to 64, got 'ec-0+2'"),
        ("ec-4+", "expected one of none, raid1, raid10, raid5, raid5-N+1, raid6, "
                  "raid6-N+2, ec-K+M, mirror (e.g. raid5-4+1, ec-4+2), got 'ec-4+'"),
    ],
)
def test_bad_protection_name_message(name, why):
    with pytest.raises(ConfigError) as info:
        protection(name)
    assert str(info.value) == f"protection '{name}': {why}."


_RULE_MESSAGE = (
    "The 'protection' parameter of plan (--protection, [storage] protection) must be a protection: none, raid1, raid10, "
    "raid5, raid5-N+1, raid6, raid6-N+2, ec-K+M, mirror (e.g. raid5-4+1, ec-4+2). "
    "Got 'raid7' instead."
)


def test_bad_protection_in_rules_and_toml():
    with pytest.raises(ConfigError) as info:
        Rules(protection="raid7")
    assert str(info.value) == _RULE_MESSAGE
    with pytest.raises(ConfigError) as info:
        rules_from_dict({"storage": {"protection": "raid7"}})
    assert str(info.value) == _RULE_MESSAGE


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [
        ("slack", 1.0, "a float in the range [0, 1)"),
        ("ftt", 4, "an int in the range [0, 3]"),
        ("storage_mode", "san", "one of 'external', 'hyperconverged'"),
        ("provisioning", "lazy", "one of 'thin', 'thick'"),
        ("thin_ratio", 0.5, "a float in the range [1, 1000]"),
        ("read_share", 1.5, "a float in the range [0, 1]"),
        ("host_raw_gib", 0.0, "a float in the range (0, 1e+09]"),
    ],
)
def test_bad_storage_rules(field, value, expected):
    with pytest.raises(ConfigError) as info:
        Rules(**{field: value})
    assert str(info.value) == (
        f"The '{field}' parameter of plan ({rule_where(field)}) must be {expected}. "
        f"Got {value!r} instead."
    )


def test_toml_storage_section():
    rules = rules_from_dict({"storage": {
        "mode": "hyperconverged", "protection": "mirror", "ftt": 2, "slack": 0.3,
        "host_raw_gib": 15360, "read_share": 0.6, "provisioning": "thick",
        "thin_ratio": 2,
    }})
    assert (rules.storage_mode, rules.protection, rules.ftt, rules.slack) == (
        "hyperconverged", "mirror", 2, 0.3)
    assert (rules.host_raw_gib, rules.read_share, rules.thin_ratio) == (15360.0, 0.6, 2.0)


def test_cli_bad_protection_is_one_line(tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "vsizer", "plan", str(SAMPLE), "--protection", "raid7",
         "-o", str(tmp_path / "p.json")],
        capture_output=True, text=True, cwd=REPO,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
    )
    assert out.returncode != 0
    assert out.stderr.strip() == f"error: {_RULE_MESSAGE}"
    assert "Traceback" not in out.stderr


# -- a pool hand-computed end to end ------------------------------------------------


def _inventory(tmp_path: Path) -> Path:
    path = tmp_path / "inv.csv"
    path.write_text(
        "name,pool,sockets,cores_per_socket,cpu_mhz,cpu_peak_util,cpu_avg_util,mem_gib,"
        "disk_gib,disk_used_gib,disk_iops,disk_mb_s\n"
        "a,p,1,2,2000,0.2,0.1,4,400,100,300,20\n"
        "b,p,1,2,2000,0.2,0.1,4,200,100,200,10\n"
        "c,p,1,2,2000,0.2,0.1,4,400,,500,0\n",
        encoding="utf-8",
    )
    return path


def test_pool_end_to_end_external_raid5(tmp_path):
    st = vsizer.plan(_inventory(tmp_path), protection="raid5-4+1",
                     read_share=0.7).to_dict()["storage"]
    pool = st["pools"][0]
    # provisioned 400 + 200 + 400; used 100 + 100 + 400 (c: no used -> provisioned)
    assert (pool["name"], pool["provisioned_gib"], pool["used_gib"]) == ("p", 1000.0, 600.0)
    assert pool["thin_ratio"] == pytest.approx(1000 / 600, abs=1e-6)
    assert pool["vms_used_assumed"] == 1
    assert pool["required_raw_gib"] == pytest.approx(600 * 1.25 / 0.75)  # 1000
    assert pool["iops_peak"] == 1000.0
    assert pool["write_iops_backend"] == pytest.approx(1000 * 0.3 * 4)   # 1200
    assert pool["iops_backend"] == pytest.approx(700 + 1200)
    assert pool["mb_s_peak"] == 30.0
    assert pool["mb_s_array"] == pytest.approx(30 / 0.72, abs=1e-6)      # §6.2, QD 1
    assert pool["hosts_for_storage"] is None
    assert (st["mode"], st["protection"], st["overhead_factor"]) == (
        "external", "raid5-4+1", 1.25)
    assert st["totals"]["required_raw_gib"] == pytest.approx(1000.0)
    assert st["notes"] == ["1 VM(s) with no used disk space count at their provisioned size"]


def test_pool_thin_ratio_and_thick(tmp_path):
    inv = _inventory(tmp_path)
    thin = vsizer.plan(inv, thin_ratio=4.0).to_dict()["storage"]["pools"][0]
    assert thin["used_gib"] == 300.0  # c: 400 / 4
    assert thin["required_raw_gib"] == pytest.approx(300 * 1.25 / 0.75)
    thick = vsizer.plan(inv, provisioning="thick").to_dict()["storage"]["pools"][0]
    assert thick["data_gib"] == 1000.0
    assert thick["required_raw_gib"] == pytest.approx(1000 * 1.25 / 0.75)


def test_pool_hyperconverged_bounds_hosts(tmp_path):
    st = vsizer.plan(_inventory(tmp_path), storage_mode="hyperconverged",
                     host_raw_gib=500.0).to_dict()["storage"]
    pool = st["pools"][0]
    assert st["protection"] == "mirror (FTT=1)"
    assert pool["required_raw_gib"] == pytest.approx(600 * 2 / 0.75)  # 1600
    assert pool["hosts_for_storage"] == 5  # ceil(1600 / 500) + 1 failure
    assert pool["hosts_planned"] == 3
    # default read share: 67 %, mirror write penalty 2
    assert st["read_share"] == 0.67
    assert pool["write_iops_backend"] == pytest.approx(1000 * 0.33 * 2)


def test_hyperconverged_without_raw_per_host_says_so(tmp_path):
    st = vsizer.plan(_inventory(tmp_path), storage_mode="hyperconverged").to_dict()["storage"]
    assert st["pools"][0]["hosts_for_storage"] is None
    assert st["notes"][0].startswith("hyperconverged without host_raw_gib")


def test_no_disk_capacity_no_section(tmp_path):
    path = tmp_path / "inv.csv"
    path.write_text(
        "name,sockets,cores_per_socket,cpu_mhz,cpu_peak_util,mem_gib\n"
        "a,1,2,2000,0.2,4\n", encoding="utf-8")
    doc = vsizer.plan(path).to_dict()
    assert "storage" not in doc


def test_sample_storage_is_deterministic_and_reported(tmp_path):
    plan = vsizer.plan(SAMPLE)
    assert plan.to_json() == vsizer.plan(SAMPLE).to_json()
    doc = json.loads(plan.to_json())
    assert [p["name"] for p in doc["storage"]["pools"]] == ["本番", "開発"]
    from vsizer.reporting import plan_html, plan_workbook

    assert 'id="storage"' in plan_html(doc, lang="ja")
    assert "Storage" in plan_workbook(doc).sheetnames


def test_header_aliases_for_provisioned_and_used():
    from vsizer.inventory.headers import match_header

    assert match_header("Provisioned MiB").field == "disk_gib"
    assert match_header("プロビジョニング済み容量(GB)").field == "disk_gib"
    assert match_header("Used Space (GB)").field == "disk_used_gib"
    assert match_header("使用済み容量 [GiB]").field == "disk_used_gib"


def test_peak_on_curves_is_the_highest_step_of_the_sum():
    """On curves the pool's IOPS peak is the highest step of the summed curves
    (VMs peak at different times), not the sum of each VM's peak."""
    from types import SimpleNamespace

    import numpy as np
    import pandas as pd

    from vsizer.study.storage import plan_storage

    servers = pd.DataFrame({
        "name": ["v1", "v2"], "pool": ["p", "p"], "disk_gib": [100.0, 100.0],
        "disk_used_gib": [50.0, 50.0], "disk_iops": [300.0, 400.0],
        "disk_mb_s": [10.0, 20.0],
    })
    curves = np.zeros((2, 3, 2))
    curves[:, :, 1] = [[100, 300, 0], [200, 50, 400]]  # sums 300, 350, 400
    pool = SimpleNamespace(
        name="p", failures=1, vm_curves=curves,
        problem=SimpleNamespace(dims=("cpu", "disk_iops")),
        sizing=SimpleNamespace(placement=SimpleNamespace(n_hosts=2)),
    )
    report = plan_storage(servers, [pool], Rules(read_share=1.0))
    assert report is not None
    sp = report.pools[0]
    assert sp.iops_peak == 400.0        # not 300 + 400
    assert sp.mb_s_peak == 30.0         # no MB/s curve: sum of the servers' figures
    assert sp.iops_backend == 400.0     # all reads


def test_assumed_storage_figures_are_plan_warnings() -> None:
    """An assumed read share is a counted warning (JSON, and so terminal/Excel/HTML)."""
    doc = vsizer.plan(SAMPLE).to_dict()
    texts = [w["message"] for w in doc["warnings"] if w["code"] == "storage_assumed"]
    assert texts == [
        "storage: read share assumed: 67 % read (database and file-server access "
        "specifications of the disk model); give --read-share"
    ]
    assert doc["summary"]["warnings"] == len(doc["warnings"])
    given = vsizer.plan(SAMPLE, read_share=0.7).to_dict()
    assert not [w for w in given["warnings"] if w["code"] == "storage_assumed"]


def test_rates_the_inventory_does_not_give_are_unknown_not_zero(tmp_path):
    # issue 23: an RVTools export has no IOPS, MB/s or network figure; the storage
    # section said 0 IOPS at peak (and 0 back-end IOPS), as if measured
    path = tmp_path / "inv.csv"
    path.write_text(
        "name,pool,sockets,cores_per_socket,cpu_mhz,cpu_peak_util,mem_gib,disk_gib\n"
        "a,p,1,2,2000,0.2,4,400\nb,p,1,2,2000,0.2,4,200\n",
        encoding="utf-8",
    )
    doc = vsizer.plan(path).to_dict()
    st = doc["storage"]
    rates = ("iops_peak", "mb_s_peak", "write_iops_backend", "iops_backend",
             "mb_s_array")
    for key in rates:
        assert st["pools"][0][key] is None, key
        assert st["totals"][key] is None, key
    assert st["totals"]["provisioned_gib"] == 600.0
    for key in ("disk_iops", "disk_mb_s", "net_mbps"):
        assert doc["demand"]["totals"][key] is None
        assert all(s[key] is None for s in doc["servers"])
    # the reports show the unknown as "—", never 0
    from functools import partial

    import openpyxl
    from rich.console import Console

    from vsizer.reporting._html_page import Page
    from vsizer.reporting.excel import plan_workbook
    from vsizer.reporting.labels import label
    from vsizer.reporting.storage import print_storage, storage_section

    t = partial(label, lang="en")
    console = Console(record=True, width=200)
    print_storage(doc, console, t)
    row = next(ln for ln in console.export_text().splitlines() if "IOPS at peak" in ln)
    assert "—" in row and " 0 " not in row
    html = storage_section(Page(title="t", lang="en"), doc, t)
    assert html.count("—") >= len(rates)
    xlsx = tmp_path / "plan.xlsx"
    plan_workbook(doc).save(xlsx)
    ws = openpyxl.load_workbook(xlsx)[label("sheet_storage", "en")]
    rows = [[c.value for c in r] for r in ws.iter_rows()]
    pool_row = next(r for r in rows if r[0] == "p")
    assert pool_row.count("—") == len(rates) and 0 not in pool_row[5:10]
