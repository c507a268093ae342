"""More real RVTools-family exports (tests/data/real/rvtools/, see its README.md).

Second round of issue 23: exports of other producers and versions, each figure
counted by hand from the file's own cells (csv / openpyxl, the comment says
which), not taken from vsizer's output.
"""

from __future__ import annotations

import json
from pathlib import Path

import openpyxl
import pandas as pd
import pytest

from vsizer.cli import main
from vsizer.errors import InventoryError
from vsizer.inventory import detect_format, read_inventory, read_rvtools

pytestmark = pytest.mark.slow

REAL = Path(__file__).parent / "data" / "real" / "rvtools"
TDSTM = REAL / "tdstm_rvtools3_csv" / "RVTools_tabvInfo.csv"
HYPERV = REAL / "kylow_hyperv_csv"
HEALTH = REAL / "pyvmomi-exporter-0.1.0_kylow_export_health.xlsx"
NAMES_BUG = REAL / "pyvmomi-exporter-0.1.0_kylow_vmwareexport.xlsx"
V4714 = REAL / "rvtools-4.7.1.4_huaweicloud-bluemix4.xlsx"
WORKSHOP = REAL / "rvtools-mb-layout_ibm-sizing-workshop.xlsx"


def _row(inv, name):
    s = inv.servers.set_index("name").loc[name]
    return {k: (None if pd.isna(v) else v) for k, v in s.items()}


def _warning(inv, code):
    found = [w for w in inv.quality.warnings if w.code == code]
    assert len(found) <= 1
    return found[0] if found else None


# --- RVTools 3.x vInfo tab as CSV (vCenter 5.1), thousands separators -----------


def test_rvtools3_vinfo_csv_alone():
    # 5 rows: '59' poweredOff, the others poweredOn; Memory "16,384" etc. in MB
    assert detect_format(TDSTM) == "rvtools"
    inv = read_rvtools(TDSTM)
    assert len(inv) == 4
    assert inv.excluded.to_dict("records") == [{"name": "59", "reason": "powered off"}]
    assert inv.metadata["size_unit_layout"] == "MB"
    vm = _row(inv, "59admin")  # CPUs 2, Memory "16,384", In Use MB "118,892"
    assert (vm["vcpus"], vm["mem_gib"]) == (2, 16.0)
    assert vm["disk_used_gib"] == pytest.approx(118892 / 1024)
    assert vm["pool"] == "MD_CLUSTER_1"
    # APDC03's annotation is a quoted cell over two lines: still one VM
    assert (_row(inv, "APDC03")["vcpus"], _row(inv, "APDC03")["mem_gib"]) == (2, 4.0)
    assert inv.servers["pool"].value_counts().to_dict() == {
        "MD_CLUSTER_1": 3, "MD_CLUSTER_DEV": 1}
    assert inv.hosts_before is None and _warning(inv, "rvtools_no_vhost")


# --- Hyper-V estate in RVTools' per-tab CSV layout (HyperVExporter 1.0) ----------


def test_hyperv_per_tab_csv_plans_with_todays_clusters(tmp_path):
    # vInfo: 170 rows, Powerstate On 161 / Off 9; vHost: 12 hosts
    # (P-HYP-CLTR-01 5 hosts 200 cores, S- 4 hosts 88, T- 3 hosts 108);
    # vCPUs of the On VMs per cluster: P 968, T 248, S 48
    inv = read_inventory(HYPERV)
    assert (len(inv), len(inv.excluded), len(inv.hosts_before)) == (161, 9, 12)
    vm = _row(inv, "S3-P-AD-DS-UIO-01")  # CPUs 8, Memory 16384, host S-HYP-01
    assert (vm["vcpus"], vm["mem_gib"], vm["cpu_mhz"]) == (8, 16.0, 2601.0)
    out = tmp_path / "plan.json"
    with pytest.raises(SystemExit) as info:
        main(["plan", str(HYPERV), "-q", "-o", str(out)])
    assert info.value.code in (0, None)
    before = json.loads(out.read_text())["before"]
    ratio = {c["name"]: (c["hosts"], c["cores"], c["vcpus"], c["vcpu_per_core"])
             for c in before["clusters"]}
    assert ratio == {
        "P-HYP-CLTR-01": (5, 200, 968, pytest.approx(4.84)),
        "T-HYP-CLTR-01": (3, 108, 248, pytest.approx(248 / 108, abs=1e-6)),
        "S-HYP-CLTR-01": (4, 88, 48, pytest.approx(48 / 88, abs=1e-6)),
    }


# --- pyVmomi exporter 0.1.0 writing RVTools' layout ------------------------------


def test_pyvmomi_exporter_health_workbook():
    # vInfo 129 VMs: poweredOn 116, poweredOff 13; vHost 9 hosts
    # (USFQ-PRODUCCION 4, USFQ-TEST 3, USFQ-SANDBOX 2)
    inv = read_rvtools(HEALTH)
    assert (len(inv), len(inv.excluded)) == (116, 13)
    assert inv.hosts_before["cluster"].value_counts().to_dict() == {
        "USFQ-PRODUCCION": 4, "USFQ-TEST": 3, "USFQ-SANDBOX": 2}
    vm = _row(inv, "P-DLAB-01")  # vInfo CPUs 4, Memory 4096; vDisk 122900.48 MiB
    assert (vm["vcpus"], vm["mem_gib"]) == (4, 4.0)
    assert vm["disk_gib"] == pytest.approx(122900.48 / 1024)
    # vCPU Sockets 4 x Cores p/s 4 = 16 is not the 4 vCPUs: left empty, noted
    assert vm["sockets"] is None
    assert any("P-DLAB-01: vCPU sockets x cores p/s = 16" in n for n in inv.quality.notes)


def test_mount_points_of_one_filesystem_count_once():
    # defect: vPartition of P-DLAB-01 lists '/' (117822 MiB, 15496 consumed),
    # '/boot' (1014, 293) and '/opt/sentinelone/rpm_mount' (117822, 15496), a bind
    # mount of '/': the guest-view sum counted '/' twice (31285 MiB)
    inv = read_rvtools(HEALTH)
    vm = _row(inv, "P-DLAB-01")
    assert vm["disk_used_gib"] == pytest.approx((15496 + 293) / 1024)
    notes = {s["name"]: s["notes"] for s in inv.quality.to_dict()["servers"]}
    assert notes["P-DLAB-01"]["disk_used_gib"] == (
        "guest view: sum of 2 vPartition rows (Consumed); mount points of a "
        "filesystem already counted left out (15496 MiB)")
    w = _warning(inv, "rvtools_partitions_shared")
    assert "P-DLAB-01" in w.servers and len(w.servers) == 80
    assert "each filesystem counted once" in w.message


def test_distinct_drive_letters_with_equal_figures_stay_two_volumes():
    # 4.7.1.4: BMRDSQL01S2P's I:\ and L:\ are both 102381 MiB with 667 consumed:
    # two volumes, both counted (C:\ 40614, D:\ 3639, B:\ 644, T:\ 8355)
    inv = read_rvtools(V4714)
    vm = _row(inv, "BMRDSQL01S2P")
    assert vm["disk_used_gib"] == pytest.approx(
        (40614 + 3639 + 644 + 667 + 8355 + 667) / 1024)
    # BMAWXCYBER01SEN lists '/' (24014 MiB, 17452 consumed) 13 times over the
    # kubelet's volume subpaths, and /boot (1945, 219)
    if "BMAWXCYBER01SEN" in set(inv.servers["name"]):
        used = _row(inv, "BMAWXCYBER01SEN")["disk_used_gib"]
        assert used == pytest.approx((17452 + 219) / 1024)


def test_a_volume_mounted_as_drive_and_folder_counts_once():
    # MB layout: BOWSQLTEST15's F:\ and E:\Backup\Disk1\ are both 358268 MB with
    # 69222 consumed: one volume; its 10 rows sum to 1,014,893 MB
    inv = read_rvtools(WORKSHOP)
    vm = _row(inv, "BOWSQLTEST15")
    rows = [7851, 96373, 92060, 60346, 23, 155654, 69222, 205078, 254864, 69222]
    assert vm["disk_used_gib"] == pytest.approx((sum(rows) - 69222) / 1024)


def test_repeated_vm_names_are_told_apart_by_vm_id():
    # defect: the exporter wrote a port group into vInfo's VM column: 110 of 129
    # rows share a name (e.g. 'dvportgroup-1646' 3 times), each with its own
    # VM ID; the whole plan was refused ("expected a name not already used")
    inv = read_rvtools(NAMES_BUG)
    assert (len(inv), len(inv.excluded)) == (116, 13)
    vm = _row(inv, "dvportgroup-1646 [vm-11028]")  # CPUs 4, Memory 4096
    assert (vm["vcpus"], vm["mem_gib"]) == (4, 4.0)
    w = _warning(inv, "rvtools_duplicate_vm_names")
    assert len(w.servers) == 110
    assert "each is named 'NAME [ID]' by its VM ID" in w.message
    # vCPU and vMemory name the VMs rightly and give no VM ID, so none matches:
    # stated. vDisk gives VM IDs and UUIDs: its rows are joined by them since the
    # third round (tests/test_real_corpus_r3_rvtools.py)
    for tab in ("vCPU", "vMemory"):
        assert any(f"116 of 116 VM(s) of vInfo have no row in the {tab} tab" in
                   x.message for x in inv.quality.warnings)
    assert not any("have no row in the vDisk tab" in x.message
                   for x in inv.quality.warnings)


def _book(path, rows):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "vInfo"
    ws.append(["VM", "Powerstate", "CPUs", "Memory", "VM ID", "VI SDK Server"])
    for r in rows:
        ws.append(r)
    cpu = wb.create_sheet("vCPU")
    cpu.append(["VM", "CPUs", "Sockets", "Cores p/s", "VM ID", "VI SDK Server"])
    for r in rows:
        cpu.append([r[0], r[2], r[2], 1, r[4], r[5]])
    wb.save(path)
    return path


def test_same_name_in_two_vcenters_reads_both_and_joins_by_id(tmp_path):
    # SRM: the protected VM and its placeholder in the other vCenter share a name
    path = _book(tmp_path / "two.xlsx", [
        ["app01", "poweredOn", 4, 8192, "vm-10", "vc-a"],
        ["app01", "poweredOn", 2, 4096, "vm-10", "vc-b"],
        ["db01", "poweredOn", 8, 16384, "vm-11", "vc-a"],
    ])
    # VM IDs repeat across vCenters: the vCenter tells them apart
    inv = read_rvtools(path)
    assert sorted(inv.servers["name"]) == ["app01 [vc-a]", "app01 [vc-b]", "db01"]
    assert (_row(inv, "app01 [vc-b]")["vcpus"], _row(inv, "app01 [vc-b]")["sockets"]) \
        == (2, 2)  # its vCPU row, found by the vCenter
    path = _book(tmp_path / "twice.xlsx", [
        ["app01", "poweredOn", 4, 8192, "vm-10", "vc-a"],
        ["app01", "poweredOn", 4, 8192, "vm-10", "vc-a"],
    ])
    with pytest.raises(InventoryError, match=r"row 3, column 'VM': expected a name "
                       r"not already used on row 2, got 'app01'"):
        read_rvtools(path)  # the same VM twice: nothing tells them apart
    path = _book(tmp_path / "ok.xlsx", [
        ["app01", "poweredOn", 4, 8192, "vm-10", "vc-a"],
        ["APP01", "poweredOn", 2, 4096, "vm-77", "vc-b"],
        ["db01", "poweredOn", 8, 16384, "vm-11", "vc-a"],
    ])
    inv = read_rvtools(path)
    got = inv.servers.set_index("name")[["vcpus", "sockets"]].to_dict("index")
    assert got == {"app01 [vm-10]": {"vcpus": 4, "sockets": 4},
                   "APP01 [vm-77]": {"vcpus": 2, "sockets": 2},
                   "db01": {"vcpus": 8, "sockets": 8}}
    assert _warning(inv, "rvtools_duplicate_vm_names").servers == (
        "APP01 [vm-77]", "app01 [vm-10]")
    assert _warning(inv, "rvtools_vm_not_in_tab") is None


# --- Genuine RVTools 4.7.1.4 of the same vCenter (the 133-VM export) -----

RVTOOLEX = REAL / "rvtools-4.7.1.4_kylow_RVTOOLEX.xlsx"


def test_rvtoolex_counts_the_32_socket_vm_and_todays_clusters(tmp_path):
    # vInfo 133 VMs: poweredOn 116, poweredOff 17; vHost 9 hosts: PRODUCCION 4
    # (144 cores), TEST 3 (72), SANDBOX 2 (48); vCPUs of the powered-on VMs
    # 523, 112, 36
    inv = read_rvtools(RVTOOLEX)
    assert (len(inv), len(inv.excluded), len(inv.hosts_before)) == (116, 17, 9)
    vm = _row(inv, "T-FORTIDATA-01")  # vCPU: 32 sockets x 1, Overall 138 / Max 73600
    assert (vm["vcpus"], vm["sockets"], vm["cores_per_socket"]) == (32, 32, 1)
    assert vm["cpu_avg_util"] == pytest.approx(138 / 73600)
    assert vm["mem_gib"] == 64.0 and vm["mem_used_gib"] == pytest.approx(
        (18812 - 206) / 1024)  # vMemory Consumed - Consumed Overhead
    assert vm["disk_used_gib"] == pytest.approx((41 + 2609 + 27055 + 3290) / 1024)
    out = tmp_path / "plan.json"
    with pytest.raises(SystemExit) as info:
        main(["plan", str(RVTOOLEX), "-q", "-o", str(out)])
    assert info.value.code in (0, None)
    clusters = {c["name"]: (c["hosts"], c["cores"], c["vcpus"]) for c in
                json.loads(out.read_text())["before"]["clusters"]}
    assert clusters == {"USFQ-PRODUCCION": (4, 144, 523), "USFQ-TEST": (3, 72, 112),
                        "USFQ-SANDBOX": (2, 48, 36)}


def test_rvtoolex_bind_mount_of_root_counts_once():
    # D-CUSTOM-01: '/' 102441/23224, '/boot' 2550/486, '/opt/sentinelone/rpm_mount'
    # 102441/23224 (a bind mount of '/'), '/home' 255874/8152 (MiB)
    inv = read_rvtools(RVTOOLEX)
    assert _row(inv, "D-CUSTOM-01")["disk_used_gib"] == pytest.approx(
        (23224 + 486 + 8152) / 1024)
    w = _warning(inv, "rvtools_partitions_shared")
    assert "D-CUSTOM-01" in w.servers
