"""The shipped synthetic RVTools sample (vsizer/data/samples/rvtools_export.xlsx).

Figures hand-derived from scripts/make_rvtools_sample.py (its FIXED table and
host models); the headers checked against a real RVTools 4.7.1.4 export.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import openpyxl
import pandas as pd
import pytest

from vsizer.inventory import read_rvtools

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "vsizer" / "data" / "samples" / "rvtools_export.xlsx"
REAL = ROOT / "tests" / "data" / "real" / "rvtools" / "rvtools-4.7.1.4_kylow_RVTOOLEX.xlsx"
CUSTOM = {"Backup status", "ClusterInvariantVMMId", "Last backup",
          "com.vmware.vcenter.cluster.edrs.upgradeHostAdded"}


def _script():
    spec = importlib.util.spec_from_file_location(
        "make_rvtools_sample", ROOT / "scripts" / "make_rvtools_sample.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_script_regenerates_the_shipped_file_byte_for_byte(tmp_path):
    out = tmp_path / "rvtools_export.xlsx"
    _script().write(out)
    assert out.read_bytes() == SAMPLE.read_bytes()


def test_sheets_and_headers_are_those_of_rvtools_4_7_1_4():
    sample = openpyxl.load_workbook(SAMPLE, read_only=True)
    real = openpyxl.load_workbook(REAL, read_only=True)
    assert sample.sheetnames == [
        "vInfo", "vCPU", "vMemory", "vDisk", "vPartition", "vNetwork", "vUSB",
        "vSnapshot", "vTools", "vSource", "vCluster", "vHost", "vDatastore",
        "vHealth", "vMetaData"]
    for name in sample.sheetnames:
        ours = next(sample[name].iter_rows(max_row=1, values_only=True))
        theirs = next(real[name].iter_rows(max_row=1, values_only=True))
        assert list(ours) == [h for h in theirs if h not in CUSTOM], name


def _sheet(name: str) -> list[dict]:
    ws = openpyxl.load_workbook(SAMPLE, read_only=True)[name]
    rows = ws.iter_rows(values_only=True)
    header = next(rows)
    return [dict(zip(header, r, strict=True)) for r in rows]


def test_readiness_cases_are_in_the_cells():
    disks = {(d["VM"], d["Disk"]): d for d in _sheet("vDisk")}
    rdm = disks[("sqlclu01", "Hard disk 2")]
    assert (rdm["Raw"], rdm["Raw Comp. Mode"]) == ("True", "physicalMode")
    assert disks[("orarac02", "Hard disk 2")]["Sharing mode"] == "sharingMultiWriter"
    assert disks[("orarac01", "Hard disk 2")]["Path"] == \
        disks[("orarac02", "Hard disk 2")]["Path"]
    assert disks[("fs01", "Hard disk 2")]["Capacity MiB"] == 12 * 1024 * 1024
    snap = {s["VM"]: s for s in _sheet("vSnapshot")}
    meta = _sheet("vMetaData")[0]
    assert (meta["xlsx creation datetime"] - snap["crm-app01"]["Date / time"]).days == 400
    tools = {t["VM"]: t for t in _sheet("vTools")}
    assert tools["mon01"]["Tools"] == "toolsNotRunning"
    assert [u["VM"] for u in _sheet("vUSB")] == ["lic01"]
    info = {i["VM"]: i for i in _sheet("vInfo")}
    assert info["fax01"]["OS according to the configuration file"] == \
        "Microsoft Windows Server 2003 (32-bit)"
    assert info["fax01"]["HW version"] == 7
    assert info["bi-etl01"]["vApp"] == "vApp-BI"
    assert info["tmpl-rhel9"]["Template"] == "True"


def test_the_reader_plans_112_of_120_vms():
    inv = read_rvtools(SAMPLE)
    assert len(inv) == 112
    assert sorted(inv.excluded["name"]) == sorted([
        "dev-app05", "dev-app11", "old-app01", "qa-web03", "test-app03",
        "test-app09", "tmpl-rhel9", "tmpl-win2022"])
    s = inv.servers.set_index("name")
    assert s["pool"].value_counts().to_dict() == {"Prod": 68, "Dev": 28, "DMZ": 16}
    assert s.loc["fs01", "disk_gib"] == 80 + 12288
    assert (s.loc["erp-db01", "vcpus"], s.loc["erp-db01", "mem_gib"]) == (16, 128.0)
    assert s.loc["web01", "cpu_name"] == "Intel(R) Xeon(R) Gold 6248R CPU @ 3.00GHz"
    assert s.loc["web01", "cpu_mhz"] == 3000.0
    assert s.loc["dmz-web01", "cpu_mhz"] == 2400.0
    # web01 and web02 on different hosts (dealt round-robin)
    cpu = {r["VM"]: r for r in _sheet("vCPU")}
    assert cpu["web01"]["Host"] != cpu["web02"]["Host"]
    assert s.loc["web01", "cpu_avg_util"] == pytest.approx(
        cpu["web01"]["Overall"] / cpu["web01"]["Max"])
    # mon01 (Tools not running) has no vPartition rows: used disk from vInfo
    assert inv.quality.status("mon01", "disk_used_gib") == "estimated"
    assert not pd.isna(s.loc["mon01", "disk_used_gib"])
    assert len(inv.metadata["hosts"]) == 10
