"""RVTools exports (vsizer.inventory.rvtools): the real sample and an older layout."""

from __future__ import annotations

import re
from pathlib import Path

import openpyxl
import pandas as pd
import pytest

from vsizer.errors import InventoryError
from vsizer.inventory import RVTOOLS_VARIABLE_MAP, read_inventory, read_rvtools

SHARED = Path(__file__).resolve().parents[2] / "shared"
SAMPLE = (
    SHARED / "data" / "formats" / "rvtools" / "kubev2v_migration-planner_example1.xlsx"
)
HOST_CPU = "Intel(R) Xeon(R) Gold 5218 CPU @ 2.30GHz"


@pytest.fixture(scope="module")
def sample() -> Path:
    if not SAMPLE.is_file():
        pytest.skip(f"shared RVTools sample not available: {SAMPLE}")
    return SAMPLE


def _row(inv, name):
    s = inv.servers.set_index("name").loc[name]
    return {k: (None if pd.isna(v) else v) for k, v in s.items()}


# --- the real export (kubev2v/migration-planner example1.xlsx) ---------------


def test_every_vm_is_planned_or_excluded(sample):
    inv = read_rvtools(sample)
    assert inv.source_format == "rvtools"
    names = list(inv.servers["name"]) + list(inv.excluded["name"])
    assert sorted(names) == [f"vm-{i}" for i in range(1, 10)]  # 9 VMs in vInfo
    assert list(inv.servers["name"]) == ["vm-3", "vm-8", "vm-9"]  # poweredOn
    assert inv.excluded.to_dict("records") == [
        {"name": f"vm-{i}", "reason": "powered off"} for i in (1, 2, 4, 5, 6, 7)
    ]
    assert inv.metadata["size_unit_layout"] == "MiB"
    assert inv.metadata["sheets"] == [
        "vInfo", "vCPU", "vMemory", "vDisk", "vPartition", "vHost"
    ]
    assert len(inv.metadata["hosts"]) == 7
    assert inv.metadata["hosts"][0]["cpu_usage_pct"] == 14.0


def test_values_match_the_sheets(sample):
    inv = read_rvtools(sample)
    vm3 = _row(inv, "vm-3")
    assert vm3["vcpus"] == 3  # vCPU CPUs
    assert vm3["mem_gib"] == 4.0  # vMemory Size MiB 4096
    assert vm3["mem_used_gib"] == pytest.approx((3103 - 51) / 1024)  # Consumed - ovh
    assert vm3["disk_gib"] == 100.0  # vDisk Capacity MiB 102400
    assert vm3["disk_used_gib"] == pytest.approx(8746 / 1024)  # vInfo In Use MiB
    assert vm3["cpu_avg_util"] == pytest.approx(91 / 9180)  # vCPU Overall / Max
    assert vm3["cpu_peak_util"] == vm3["cpu_avg_util"]
    assert vm3["cpu_name"] == HOST_CPU
    assert vm3["cpu_mhz"] == 2295.0
    assert vm3["os"] == "Debian GNU/Linux 9 (64-bit)"
    assert (vm3["pool"], vm3["group"]) == ("Cluster", "Cluster")
    # sockets x cores p/s (2 x 2) disagrees with the 3 vCPUs: left empty
    assert vm3["sockets"] is None and vm3["cores_per_socket"] is None
    vm9 = _row(inv, "vm-9")  # vInfo row is almost empty; vCPU/vMemory fill it
    assert (vm9["vcpus"], vm9["mem_gib"]) == (18, 40.0)
    assert vm9["cpu_avg_util"] == pytest.approx(3580 / 36720)
    assert vm9["pool"] == "Cluster"


def test_quality_of_derived_and_assumed_fields(sample):
    q = read_rvtools(sample).quality
    assert q.status("vm-3", "vcpus") == "given"
    assert q.status("vm-3", "cpu_avg_util") == "derived"
    assert q.status("vm-3", "cpu_peak_util") == "assumed"
    # the VMs' hosts are not in vHost (sanitized names): the CPU of the
    # cluster's hosts (all Gold 5218) is an estimate
    assert q.status("vm-3", "cpu_name") == "estimated"
    assert q.status("vm-3", "group") == "assumed"
    assert q.status("vm-3", "power_w") == "missing"
    assert any("sizes read as MiB" in n for n in q.notes)


def test_include_powered_off(sample):
    inv = read_rvtools(sample, include_powered_off=True)
    assert len(inv) == 9 and inv.excluded.empty
    vm1 = _row(inv, "vm-1")
    assert (vm1["mem_gib"], vm1["vcpus"]) == (2.0, 2)  # vMemory 2048 MiB
    assert (vm1["sockets"], vm1["cores_per_socket"]) == (2, 1)
    assert vm1["disk_gib"] == pytest.approx(103424 / 1024)
    assert vm1["cpu_avg_util"] == 0.0
    assert "poweredOff at export" in inv.quality.entries["vm-1"]["cpu_avg_util"][1]


def test_read_inventory_detects_rvtools(sample):
    assert read_inventory(sample).source_format == "rvtools"


# --- an older export: MB headers, no vCPU/vMemory/vDisk, usage % on vHost ----


def _old_layout(path: Path) -> Path:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "vInfo"
    ws.append(["VM ", "Powerstate", "Template", "CPUs", "Memory", "NICs ",
               "Provisioned MB", "In Use MB", "Host", "Cluster", "Folder", "OS"])
    ws.append(["app01", "poweredOn", "False", 2, 4096, 1, 51200, 20480,
               "esx01.example.com", "Prod", "/DC/vm/Sales", "Microsoft Windows Server "
               "2008 R2 (64-bit)"])
    ws.append(["tmpl01", "poweredOff", "True", 1, 2048, 1, 40960, 10240,
               "esx01.example.com", "Prod", "/DC/vm/Templates", "Other Linux"])
    ws.append(["off01", "poweredOff", "False", 1, 1024, 1, 20480, 1024,
               "esx02.example.com", "Prod", "", "Other Linux"])
    ws.append(["db01", "poweredOn", "False", 4, 8192, 1, 102400, 40960,
               "esx09.example.com", "Prod", None, "Red Hat Enterprise Linux 5"])
    ws.append(["susp01", "suspended", "False", 1, 1024, 1, 10240, 1024,
               "esx02.example.com", "Prod", None, "Other Linux"])
    # the formatted range reaches far below the data, as in real exports
    ws.cell(row=5000, column=1).number_format = "@"
    hv = wb.create_sheet("vHost")
    hv.append(["Host", "Datacenter", "Cluster", "CPU Model", "Speed", "# CPU",
               "Cores per CPU", "# Cores", "CPU usage %", "# Memory", "Memory usage %"])
    usage = (("esx01.example.com", 31, 48), ("esx02.example.com", 22, 61))
    for host, cpu, mem in usage:
        hv.append([host, "DC", "Prod", "Intel(R) Xeon(R) CPU E5-2620 v3 @ 2.40GHz",
                   2400, 2, 6, 12, cpu, 131072, mem])
    wb.save(path)
    return path


def test_older_layout(tmp_path):
    inv = read_rvtools(_old_layout(tmp_path / "rvtools_old.xlsx"))
    assert inv.metadata["size_unit_layout"] == "MB"
    assert list(inv.servers["name"]) == ["app01", "db01"]
    assert inv.excluded.to_dict("records") == [
        {"name": "tmpl01", "reason": "template"},
        {"name": "off01", "reason": "powered off"},
        {"name": "susp01", "reason": "power state suspended"},
    ]
    app = _row(inv, "app01")
    assert (app["vcpus"], app["mem_gib"]) == (2, 4.0)
    assert app["disk_gib"] == 50.0  # Provisioned MB 51200, read as MiB
    assert app["disk_used_gib"] == 20.0
    assert app["cpu_name"] == "Intel(R) Xeon(R) CPU E5-2620 v3 @ 2.40GHz"
    assert app["cpu_mhz"] == 2400.0
    # no vCPU sheet: from esx01's usage, 31 % x 12 cores / 2 vCPUs = 1.86, capped
    assert app["cpu_avg_util"] == 1.0
    assert _row(inv, "db01")["cpu_avg_util"] is None  # esx09 not in vHost
    assert (app["pool"], app["group"]) == ("Prod", "Sales")
    assert app["os"] == "Microsoft Windows Server 2008 R2 (64-bit)"
    q = inv.quality
    assert q.status("app01", "cpu_name") == "derived"  # its host is in vHost
    assert q.status("db01", "cpu_name") == "estimated"  # esx09 is not
    assert q.status("app01", "group") == "derived"
    assert q.status("db01", "group") == "assumed"
    hosts = inv.metadata["hosts"]
    assert [(h["host"], h["cpu_usage_pct"], h["mem_usage_pct"]) for h in hosts] == [
        ("esx01.example.com", 31.0, 48.0), ("esx02.example.com", 22.0, 61.0)
    ]


def test_older_layout_include_powered_off_keeps_templates_out(tmp_path):
    inv = read_rvtools(_old_layout(tmp_path / "old.xlsx"), include_powered_off=True)
    assert list(inv.servers["name"]) == ["app01", "off01", "db01", "susp01"]
    assert inv.excluded.to_dict("records") == [{"name": "tmpl01", "reason": "template"}]


def test_bad_values_are_reported_with_sheet_and_row(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "vInfo"
    ws.append(["VM", "Powerstate", "Template", "CPUs", "Memory"])
    ws.append(["a", "poweredOn", "False", "many", 1024])
    ws.append(["b", "poweredOn", "False", 2, -5])
    ws.append(["c", "poweredOn", "False", 2, None])
    p = tmp_path / "bad_rv.xlsx"
    wb.save(p)
    with pytest.raises(InventoryError) as exc:
        read_rvtools(p)
    assert exc.value.problems == [
        "bad_rv.xlsx sheet 'vInfo' row 2, column 'CPUs': expected a positive whole "
        "number of vCPUs, got 'many'.",
        "bad_rv.xlsx sheet 'vInfo' row 3, column 'Memory': expected a positive "
        "memory size [MiB], got '-5'.",
        "bad_rv.xlsx sheet 'vInfo' row 4, column 'Memory': expected a positive "
        "memory size [MiB], got ''.",
    ]


def test_not_an_rvtools_export(tmp_path):
    wb = openpyxl.Workbook()
    wb.active.title = "Servers"
    p = tmp_path / "list.xlsx"
    wb.save(p)
    with pytest.raises(
        InventoryError,
        match=re.escape("list.xlsx: no 'vInfo' sheet with a 'VM' column; this is not "
                        "an RVTools export (sheets: Servers)"),
    ):
        read_rvtools(p)
    with pytest.raises(InventoryError, match=r"^gone\.xlsx: file not found"):
        read_rvtools(tmp_path / "gone.xlsx")


def test_variable_map_sources_name_known_sheets():
    sheets = {"vInfo", "vCPU", "vMemory", "vDisk", "vHost"}
    for sources in RVTOOLS_VARIABLE_MAP.values():
        assert all(s.split(":", 1)[0] in sheets for s in sources)
