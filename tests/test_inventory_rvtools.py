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
    # guest view: vPartition Consumed MiB 701 (vInfo In Use MiB 8746 has the swap)
    assert vm3["disk_used_gib"] == pytest.approx(701 / 1024)
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
    assert [(w.code, w.message, w.servers) for w in q.warnings
            if w.code == "rvtools_hosts_without_vms"] == [
        ("rvtools_hosts_without_vms",
         "1 vHost host(s) run none of the planned powered-on VMs (an export filtered "
         "to some VMs, or idle hosts); they still count as existing hosts "
         "(summary.hosts_before).", ("esx02.example.com",)),
    ]  # off01 and susp01 are not powered on
    assert list(inv.hosts_before["vms"]) == [1, 0]
    hosts = inv.metadata["hosts"]
    assert [(h["host"], h["cpu_usage_pct"], h["mem_usage_pct"]) for h in hosts] == [
        ("esx01.example.com", 31.0, 48.0), ("esx02.example.com", 22.0, 61.0)
    ]


def test_older_layout_include_powered_off_keeps_templates_out(tmp_path):
    inv = read_rvtools(_old_layout(tmp_path / "old.xlsx"), include_powered_off=True)
    assert list(inv.servers["name"]) == ["app01", "off01", "db01", "susp01"]
    assert inv.excluded.to_dict("records") == [{"name": "tmpl01", "reason": "template"}]


def test_no_vhost_sheet_is_warned(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "vInfo"
    ws.append(["VM", "Powerstate", "CPUs", "Memory", "Host"])
    ws.append(["a", "poweredOn", 2, 1024, "esx1"])
    p = tmp_path / "no_vhost.xlsx"
    wb.save(p)
    inv = read_rvtools(p)
    assert inv.hosts_before is None and inv.metadata["virtualized"] is True
    assert [(w.code, w.message, w.servers) for w in inv.quality.warnings] == [
        ("rvtools_no_vhost",
         "no vHost sheet (or no host in it): the hosts these VMs run on are unknown, "
         "so the plan has no power or rack space before; export the vHost tab with "
         "RVTools too.", ()),
    ]


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
    sheets = {"vInfo", "vCPU", "vMemory", "vDisk", "vPartition", "vHost"}
    for sources in RVTOOLS_VARIABLE_MAP.values():
        assert all(s.split(":", 1)[0] in sheets for s in sources)


# --- the older layout of issue 11 (tests/rvtools_fixture.py) -----------------
# Hand checks. A VM's utilization from its host (no vCPU sheet) is
#   usage % x host cores / sum of vCPUs of the host's powered-on VMs:
#   vmsp-01: 25 % x 12 / (4 + 2) = 0.5      (off01 is powered off: not counted)
#   vmsp-02: 40 % x 12 / (8 + 4) = 0.4
#   vmsp-03: 20 % x 12 / (2 + 2) = 0.6
#   vmsp-04: 30 % x 12 / 1 = 3.6 -> capped at 1 (warning)
#   vmsp-05: no CPU usage % -> not estimated (the plan's assume_util applies)
# Memory in use: usage % x host memory x the VM's share of configured memory:
#   vmsp-01: 6 % x 128 GiB = 7.68 GiB; app01 8/12 -> 5.12, app02 4/12 -> 2.56
#   vmsp-02: 5 % x 256 GiB = 12.8 GiB; db01 16/20 -> 10.24, web01 4/20 -> 2.56


@pytest.fixture
def old_export(tmp_path):
    from tests.rvtools_fixture import write_old_layout

    return write_old_layout(tmp_path / "rvtools_old_issue11.xlsx")


def test_old_export_host_matching_and_cpu(old_export):
    from tests.rvtools_fixture import E5, X5675, X5690

    inv = read_rvtools(old_export)
    assert inv.metadata["size_unit_layout"] == "MB"
    assert list(inv.servers["name"]) == [
        "app01", "app02", "db01", "web01", "prod99", "leg01", "leg02", "leg03",
        "leg04", "leg09",
    ]
    cpu = {n: (_row(inv, n)["cpu_name"], _row(inv, n)["cpu_mhz"])
           for n in inv.servers["name"]}
    assert cpu["app01"] == (E5, 2400.0)  # vmsp-01.customer.com -> vmsp-01
    assert cpu["db01"] == (E5, 2399.0)  # VMSP-02.Customer.com -> vmsp-02
    assert cpu["leg01"] == (X5675, 3066.0)  # bovmsp-03.customer.com -> vmsp-03
    assert cpu["leg03"] == (X5690, 3466.0)  # bovmsp-04.customer.com -> vmsp-04
    assert cpu["leg04"] == (X5675, 3066.0)  # vmsp-05, exact
    # not in vHost: the cluster's majority CPU and median clock
    assert cpu["prod99"] == (E5, 2399.5)  # Prod: 2400 and 2399 MHz
    assert cpu["leg09"] == (X5675, 3066.0)  # Legacy: 2 of 3 hosts are X5675
    q = inv.quality
    assert q.entries["leg04"]["cpu_name"] == ("derived", "host 'vmsp-05'")
    assert q.entries["db01"]["cpu_name"] == (
        "derived", "host 'vmsp-02' (vInfo 'VMSP-02.Customer.com', short name)")
    assert q.entries["leg01"]["cpu_mhz"] == (
        "derived", "host 'vmsp-03' (vInfo 'bovmsp-03.customer.com', suffix)")
    assert q.entries["prod99"]["cpu_mhz"] == (
        "estimated", "VM's host not in vHost; cluster 'Prod': 2 of 2 hosts have this "
        "CPU, median clock 2399.5 MHz of 2399-2400")
    assert q.entries["leg09"]["cpu_name"] == (
        "estimated", "VM's host not in vHost; cluster 'Legacy': 2 of 3 hosts have "
        "this CPU")


def test_old_export_utilization_from_host_usage(old_export):
    inv = read_rvtools(old_export)
    util = {n: _row(inv, n)["cpu_avg_util"] for n in inv.servers["name"]}
    assert util == pytest.approx({
        "app01": 0.5, "app02": 0.5, "db01": 0.4, "web01": 0.4, "leg01": 0.6,
        "leg02": 0.6, "leg03": 1.0,
    } | {n: util[n] for n in ("prod99", "leg04", "leg09")})
    assert all(util[n] is None for n in ("prod99", "leg04", "leg09"))
    assert _row(inv, "leg03")["cpu_peak_util"] == 1.0
    used = {n: _row(inv, n)["mem_used_gib"] for n in ("app01", "app02", "db01",
                                                      "web01")}
    assert used == pytest.approx({"app01": 5.12, "app02": 2.56, "db01": 10.24,
                                  "web01": 2.56})
    assert _row(inv, "leg01")["mem_used_gib"] is None  # no Memory usage % in Legacy
    q = inv.quality
    assert q.entries["app01"]["cpu_avg_util"] == (
        "estimated", "estimated from host vmsp-01 CPU usage: 25 % x 12 cores / 6 vCPUs "
        "of its powered-on VMs")
    assert q.entries["leg03"]["cpu_avg_util"] == (
        "estimated", "estimated from host vmsp-04 CPU usage: 30 % x 12 cores / 1 vCPUs "
        "of its powered-on VMs = 3.6, capped at 1")
    assert q.status("app01", "cpu_peak_util") == "assumed"
    assert q.status("db01", "mem_used_gib") == "estimated"


def test_old_export_warnings(old_export):
    warnings = [(w.code, w.message, w.servers)
                for w in read_rvtools(old_export).quality.warnings]
    assert warnings == [
        ("rvtools_host_matched_by_suffix",
         "2 vInfo host name(s) taken as the vHost host whose name ends with it or is "
         "its end ('bovmsp-03.customer.com' as 'vmsp-03', 'bovmsp-04.customer.com' as "
         "'vmsp-04'); check that they are the same machines.",
         ("leg01", "leg02", "leg03")),
        ("rvtools_host_not_in_vhost",
         "2 vInfo host name(s) not found in vHost ('bovmsp-09.customer.com', "
         "'esx-99.customer.com'): CPU taken from the cluster's hosts, utilization not "
         "estimated from a host.", ("prod99", "leg09")),
        ("rvtools_host_usage_capped",
         "host vmsp-04: CPU usage 30 % of 12 cores shared by 1 vCPUs gives 3.6 per "
         "vCPU; capped at 1 (each vCPU is taken as fully busy).", ("leg03",)),
    ]


def test_old_export_hosts_before(old_export):
    from tests.rvtools_fixture import X5690

    hosts = read_rvtools(old_export).hosts_before
    assert hosts is not None
    assert list(hosts["name"]) == [f"vmsp-0{i}" for i in range(1, 6)]
    assert list(hosts["vms"]) == [2, 2, 2, 1, 1]  # powered-on VMs matched
    assert list(hosts["cores"]) == [12] * 5
    assert list(hosts["model"]) == ["HP ProLiant DL380 Gen9"] * 2 + [
        "HP ProLiant DL380 G7"] * 3
    h4 = hosts.iloc[3]
    assert (h4["cpu_name"], h4["cpu_mhz"], h4["mem_gib"], h4["sockets"]) == (
        X5690, 3466.0, 96.0, 2)
    assert hosts["cpu_util"].tolist()[:4] == pytest.approx([0.25, 0.4, 0.2, 0.3])
    assert pd.isna(hosts["cpu_util"].iloc[4])


def test_modern_export_hosts_before(sample):
    hosts = read_rvtools(sample).hosts_before
    assert hosts is not None and len(hosts) == 7
    first = hosts.iloc[0]
    assert (first["name"], first["model"], first["cores"], first["cpu_util"]) == (
        "10.17.135.71", "HPE ProLiant DL380 Gen10", 32, 0.14)
    # the VMs' hosts are sanitized IPs absent from vHost: none matched
    assert hosts["vms"].sum() == 0
    w = [x for x in read_rvtools(sample).quality.warnings
         if x.code == "rvtools_host_not_in_vhost"]
    assert [x.servers for x in w] == [("vm-3", "vm-8", "vm-9")]  # file order
    assert w[0].message.startswith(
        "3 vInfo host name(s) not found in vHost ('10.230.238.171', '10.41.187.30', "
        "'10.5.126.198')")  # vm-9's host is blank in vInfo, given in vCPU


def test_a_physical_list_has_no_hosts_before():
    inv = read_inventory(
        Path(__file__).resolve().parents[1] / "tests" / "data" / "inventory"
        / "table_en.csv"
    )
    assert inv.hosts_before is None


# --- host name matching rules (vsizer.inventory._rvtools_hosts) ----------------


def _hosts(*rows):
    return [{"host": h, "cluster": c, "cpu_model": "X", "cpu_mhz": 1.0}
            for h, c in rows]


def test_host_match_rules():
    from vsizer.inventory._rvtools_hosts import HostIndex, short_name

    index = HostIndex(_hosts(("esx01.a.com", "A"), ("vmsp-04", "B"),
                             ("10.1.2.3", "A"), ("ESX02", "A")))
    assert short_name("10.1.2.3") == "10.1.2.3"  # an IP is not cut at its dots
    assert short_name("Esx01.A.com.") == "esx01"
    m = index.match("ESX01.A.COM.", None)
    assert (m.host["host"], m.how) == ("esx01.a.com", "exact")
    m = index.match("esx02.b.local", None)
    assert (m.host["host"], m.how) == ("ESX02", "short name")
    m = index.match("bovmsp-04.customer.com", None)
    assert (m.host["host"], m.how) == ("vmsp-04", "suffix")
    assert index.match("10.1.2", None).host is None  # IPs: no suffix match
    assert index.match("x02", None).host is None  # 'x02' < 4 characters
    assert index.match(None, "A").host is None


def test_ambiguous_host_name_is_narrowed_by_cluster_or_warned():
    from vsizer.inventory._rvtools_hosts import HostIndex, match_hosts
    from vsizer.quality import QualityReport

    index = HostIndex(_hosts(("esx01.site1", "A"), ("esx01.site2", "B")))
    m = index.match("esx01.corp", "B")
    assert (m.host["host"], m.how) == ("esx01.site2", "short name")
    m = index.match("esx01.corp", "C")
    assert m.host is None and m.candidates == ["esx01.site1", "esx01.site2"]
    q = QualityReport()
    match_hosts([("vm1", "esx01.corp", None), ("vm2", "esx01.corp", None)], index, q)
    assert [(w.code, w.message, w.servers) for w in q.warnings] == [
        ("rvtools_host_ambiguous",
         "vInfo host 'esx01.corp' matches several vHost hosts ('esx01.site1', "
         "'esx01.site2'); none is used: CPU from the cluster, utilization not "
         "estimated from a host.", ("vm1", "vm2")),
    ]


def test_cluster_cpu_tie_goes_to_the_faster_clock():
    from vsizer.inventory._rvtools_hosts import fallback_cpu

    hosts = [{"host": "a", "cluster": "C", "cpu_model": "X5675", "cpu_mhz": 3066.0},
             {"host": "b", "cluster": "C", "cpu_model": "X5690", "cpu_mhz": 3466.0}]
    model, mhz, status, _, note = fallback_cpu("C", hosts)
    assert (model, mhz, status) == ("X5690", 3466.0, "estimated")
    assert note == "VM's host not in vHost; cluster 'C': 1 of 2 hosts have this CPU"
    model, _, _, _, note = fallback_cpu(None, hosts)
    assert note.startswith("VM's host not in vHost; all vHost hosts (VM has no "
                           "cluster): 1 of 2")
    assert fallback_cpu("C", []) is None
    note = fallback_cpu("C", hosts, "host 'z' gives no CPU model")[4]
    assert note == "host 'z' gives no CPU model; cluster 'C': 1 of 2 hosts have this CPU"
