"""Third round of the RVTools corpus (tests/data/real/rvtools/README.md).

Every figure below was counted by hand from the file's own cells, not taken
from vsizer's output. To redo the counts::

    python - <<'E'
    import openpyxl, collections
    wb = openpyxl.load_workbook(
        "tests/data/real/rvtools/rvtools-3x-npoi_nutanix-workshop-next.xlsx",
        read_only=True)
    vi = list(wb["vInfo"].iter_rows(values_only=True)); h = vi[0]
    rows = [r for r in vi[1:] if r[0]]                       # 131 VMs
    print(collections.Counter((r[1], r[2]) for r in rows))    # on 109, off 20, tmpl 2
    ids = {r[h.index("VM ID")]: r[0] for r in rows}
    vd = list(wb["vDisk"].iter_rows(values_only=True))
    print(sum(ids.get(r[-4]) != r[0] for r in vd[1:]))        # 113 rows named otherwise
    vp = list(wb["vPartition"].iter_rows(values_only=True))
    print(vp[0][0], [(r[0], r[3], r[5]) for r in vp[1:] if r[-1] == "vm-179"])
    E

(``r[-4]`` is vDisk's ``VM ID``; vPartition's ``VM ID`` is its last column.)
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from vsizer.cli import main
from vsizer.errors import InventoryError
from vsizer.inventory import read_rvtools
from vsizer.inventory._rvtools_ids import join_by_id
from vsizer.inventory._rvtools_names import warn_not_in_tabs
from vsizer.inventory._rvtools_sheets import Sheet
from vsizer.quality import QualityReport

pytestmark = pytest.mark.slow

REAL = Path(__file__).parent / "data" / "real" / "rvtools"
NEXT = REAL / "rvtools-3x-npoi_nutanix-workshop-next.xlsx"
KYLOW = REAL / "pyvmomi-exporter-0.1.0_kylow_vmwareexport.xlsx"


def _row(inv, name):
    s = inv.servers.set_index("name").loc[name]
    return {k: (None if pd.isna(v) else v) for k, v in s.items()}


def _warnings(inv, code):
    return [w for w in inv.quality.warnings if w.code == code]


@pytest.fixture(scope="module")
def nxt():
    return read_rvtools(NEXT)


# --- RVTools 3.x (NPOI) workbook, MB headers, ESXi 6.5, 5 tabs ----------------


def test_next_counts(nxt):
    # vInfo: 133 rows, 2 of them blank; poweredOn 109, poweredOff 20, and 2
    # templates (poweredOff, Template 'True'); the blank rows are not VMs
    assert len(nxt) == 109
    assert nxt.excluded["reason"].value_counts().to_dict() == {
        "powered off": 20, "template": 2}
    assert nxt.metadata["size_unit_layout"] == "MB"
    assert nxt.servers["pool"].value_counts().to_dict() == {
        "Production Cluster": 92, "Avaya Cluster": 17}
    assert len(nxt.hosts_before) == 8  # vHost: Production 6, Avaya 2


def test_next_host_usage_shared_by_vcpus(nxt):
    # ADCSCA01: CPUs 4, Memory 2048 MB, on esxhost10 (28 cores, CPU usage 6 %,
    # # Memory 196514 MB, Memory usage 59 %); the powered-on VMs of esxhost10
    # have 59 vCPUs and 118628 MB configured
    vm = _row(nxt, "ADCSCA01")
    assert (vm["vcpus"], vm["mem_gib"]) == (4, 2.0)
    assert vm["cpu_avg_util"] == pytest.approx(0.06 * 28 / 59)
    assert vm["mem_used_gib"] == pytest.approx(0.59 * 196514 / 1024 * 2048 / 118628)


def test_next_vdisk_rows_named_otherwise_joined_by_vm_id(nxt):
    # defect: vDisk names 43 planned VMs otherwise than vInfo (vInfo 'nxtAPAIR01',
    # vDisk 'ntxAPAIR01', both VM ID vm-257): their disks were left out
    # ("43 of 109 VM(s) of vInfo have no row in the vDisk tab") and the
    # provisioned size came from nowhere else
    vm = _row(nxt, "nxtAPAIR01")  # vDisk ntxAPAIR01: Capacity MB 46080 + 61440
    assert vm["disk_gib"] == pytest.approx((46080 + 61440) / 1024)
    (w,) = [w for w in _warnings(nxt, "rvtools_vm_matched_by_id") if "vDisk" in w.message]
    assert w.message == (
        "113 row(s) of the vDisk tab joined to vInfo by VM UUID or VM ID, as the VM "
        "name they give is not in vInfo: e.g. vDisk 'ntxAPAIR01' = vInfo 'nxtAPAIR01' "
        "(vm-257). The tabs name these VMs differently (a renamed or hand-edited "
        "export); vInfo's name is used.")
    assert len(w.servers) == 58  # 113 rows of 58 VMs, powered off ones included
    assert not _warnings(nxt, "rvtools_vm_not_in_tab")


def test_next_vpartition_without_vm_column_joined_by_vm_id(nxt):
    # defect: vPartition's first header cell reads 'NEXT Data Center', not 'VM':
    # the tab was silently ignored and every VM's used space was vInfo 'In Use MB'
    # (the datastore view) with the note "no vPartition row for this VM"
    vm = _row(nxt, "ADCSCA01")  # vPartition vm-15333: C:\ Consumed MB 23180
    assert vm["disk_used_gib"] == pytest.approx(23180 / 1024)
    # vInfo 'qapplAP01' is 'qappAP01' in that column; VM ID vm-179: C:\ 50095
    assert _row(nxt, "qapplAP01")["disk_used_gib"] == pytest.approx(50095 / 1024)
    # nxtAPAIR01 (vm-257): C:\ 39154 + E:\ 91
    assert _row(nxt, "nxtAPAIR01")["disk_used_gib"] == pytest.approx(39245 / 1024)
    (w,) = [w for w in _warnings(nxt, "rvtools_vm_matched_by_id")
            if "vPartition" in w.message]
    assert w.message.startswith(
        "286 row(s) of the vPartition tab joined to vInfo by VM UUID or VM ID, as it "
        "has no 'VM' column (its first column is headed 'NEXT Data Center'): e.g. "
        "vInfo 'ADCSCA01' (vm-15333).")
    assert len(w.servers) == 109
    # 105 planned VMs have vPartition rows (by VM ID); 4 keep vInfo In Use
    assert ("RVTools used disk space: guest view (vPartition Consumed) for 105 VM(s); "
            "vInfo In Use (swap and snapshot files included) for 4 VM(s)"
            in nxt.quality.notes)


def test_next_plans_through_the_cli(tmp_path):
    # vHost: Production 4 x 28 + 2 x 24 cores (vCluster NumCpuCores 160), Avaya
    # 2 x 16; vCPUs of the powered-on VMs: Production 292, Avaya 67
    out = tmp_path / "plan.json"
    with pytest.raises(SystemExit) as info:
        main(["plan", str(NEXT), "-q", "-o", str(out)])
    assert info.value.code in (0, None)
    plan = json.loads(out.read_text())
    codes = [w["code"] for w in plan["warnings"]]
    assert codes.count("rvtools_vm_matched_by_id") == 2
    assert "rvtools_vm_not_in_tab" not in codes
    assert [(c["name"], c["hosts"], c["cores"], c["vcpus"])
            for c in plan["before"]["clusters"]] == [
        ("Production Cluster", 6, 160, 292), ("Avaya Cluster", 2, 32, 67)]


# --- the pyVmomi exporter's workbook (round 2): vDisk/vPartition by VM UUID ----


def test_exporter_tabs_joined_by_vm_uuid():
    # vInfo names vm-11028 'dvportgroup-1646' (the exporter's slip), vDisk and
    # vPartition 'P-DLAB-01' with the same VM UUID 4206d5f7-...: vDisk Capacity
    # MiB sums to 122900.48; vPartition '/' 117822/15496 and '/boot' 1014/293,
    # '/opt/sentinelone/rpm_mount' repeating '/' (counted once)
    inv = read_rvtools(KYLOW)
    vm = _row(inv, "dvportgroup-1646 [vm-11028]")
    assert vm["disk_gib"] == pytest.approx(122900.48 / 1024)
    assert vm["disk_used_gib"] == pytest.approx((15496 + 293) / 1024)
    tabs = sorted(w.message.split(" tab ")[0].split()[-1]
                  for w in _warnings(inv, "rvtools_vm_matched_by_id"))
    assert tabs == ["vDisk", "vPartition", "vSnapshot"]


# --- the rules, on sheets built from the cells of the files above -------------


def _sheet(name, headers, rows):
    keys = [h.casefold() for h in headers]
    return Sheet(name, headers, [(i + 2, dict(zip(keys, r, strict=True)))
                                 for i, r in enumerate(rows)])


def test_vm_id_of_another_vcenter_is_not_joined():
    # one VM ID in two vCenters (IDs are unique only within one): a tab row of
    # vCenter vc-b joins vc-b's VM; a row giving no vCenter joins neither
    vinfo = _sheet("vInfo", ["VM", "VM ID", "VI SDK Server"], [
        ["nxtAPAIR01", "vm-257", "vc-a"], ["qapplAP01", "vm-257", "vc-b"]])
    disk = _sheet("vDisk", ["VM", "VM ID", "VI SDK Server"], [
        ["ntxAPAIR01", "vm-257", "vc-b"], ["ntxAPAIR01", "vm-257", None]])
    q = QualityReport()
    join_by_id(vinfo, {2: "nxtAPAIR01", 3: "qapplAP01"}, {"vDisk": disk}, q)
    assert [c["vm"] for _, c in disk.rows] == ["qapplAP01", "ntxAPAIR01"]
    assert [w.servers for w in q.warnings] == [("qapplAP01",)]


def test_vpartition_naming_no_planned_vm_is_stated():
    # a vPartition whose rows name none of the planned VMs (and give no VM ID)
    part = _sheet("vPartition", ["VM", "Disk", "Consumed MB"],
                  [["qappAP01", "C:\\", 50095]])
    q = QualityReport()
    warn_not_in_tabs(["qapplAP01", "ADCSCA01"], {"vPartition": part}, q)
    assert [w.message for w in q.warnings] == [
        "2 of 2 VM(s) of vInfo have no row in the vPartition tab (matched by VM name, "
        "or name and VM ID): what vPartition gives is missing for them, e.g. "
        "'qapplAP01' (a filtered or inconsistent export; check the VM column of both "
        "tabs)."]
    # rows of VMs vInfo has but that are not planned (powered off): silent
    q = QualityReport()
    warn_not_in_tabs(["ADCSCA01"], {"vPartition": part}, q, ["ADCSCA01", "qappAP01"])
    assert q.warnings == []
    # some VMs without partitions (powered off, no VMware Tools) is normal: silent
    part.rows.append((3, {"vm": "ADCSCA01", "disk": "C:\\", "consumed mb": 23180}))
    q = QualityReport()
    warn_not_in_tabs(["qapplAP01", "ADCSCA01"], {"vPartition": part}, q)
    assert q.warnings == []


def test_next_shared_bus_number_is_the_api_enum(nxt):
    # defect: RVTools 3.x writes vDisk 'Shared Bus' as the VirtualSCSISharing
    # number: 0 (noSharing) on 242 disks, 2 (physicalSharing) on the 4 physical
    # RDMs of gtappDB02 and gtappDB03 (a guest cluster). Every '0' was read as a
    # shared bus, so 118 of the 131 VMs were "blocked" for migration by "1 (2, 3)
    # shared or multi-writer disk(s)"
    facts = nxt.metadata["vm_facts"]
    shared = {n: f["shared_disks"] for n, f in facts.items() if f["shared_disks"]}
    assert shared == {"gtappDB02": 2, "gtappDB03": 2}
    assert (facts["gtappDB02"]["rdm_disks"], facts["ADCSCA01"]["shared_disks"]) == (2, 0)


@pytest.mark.parametrize(("bus", "shared"), [
    (0, False), ("0", False), (2, True), ("1", True), ("noSharing", False),
    ("physicalSharing", True), ("virtualSharing", True), (None, False), ("", False),
])
def test_shared_bus_spellings(bus, shared):
    from vsizer.inventory._rvtools_facts import _bus_shared
    assert _bus_shared(bus) is shared


def test_next_as_per_tab_csv_export_reads_the_same(tmp_path, nxt):
    # the same tabs written as RVTools' per-tab CSV export (RVTools_tab<tab>.csv,
    # every cell text): the joins by VM ID and the bus-sharing numbers hold
    import csv

    import openpyxl

    wb = openpyxl.load_workbook(NEXT, read_only=True)
    for ws in wb.worksheets:
        with open(tmp_path / f"RVTools_tab{ws.title}.csv", "w", newline="",
                  encoding="utf-8") as f:
            csv.writer(f).writerows(
                ["" if v is None else v for v in r] for r in ws.iter_rows(values_only=True))
    wb.close()
    inv = read_rvtools(tmp_path)
    assert inv.metadata["format"] == "csv"
    for name in ("ADCSCA01", "nxtAPAIR01", "qapplAP01"):
        a, b = _row(inv, name), _row(nxt, name)
        assert (a["disk_gib"], a["disk_used_gib"]) == (b["disk_gib"], b["disk_used_gib"])
    assert {n for n, f in inv.metadata["vm_facts"].items() if f["shared_disks"]} == {
        "gtappDB02", "gtappDB03"}
    assert len(_warnings(inv, "rvtools_vm_matched_by_id")) == 2


def test_hyperv_vpartition_of_powered_off_vms_only_is_not_warned():
    # round 2's Hyper-V per-tab CSV: vPartition has 8 rows, all of 'Off' VMs that
    # vInfo names the same (P-SDNS-04, P-SQL-ALW-B2, ...): the tab matches vInfo,
    # the planned ('On') VMs just have no partitions listed
    inv = read_rvtools(REAL / "kylow_hyperv_csv")
    assert not any("vPartition" in w.message
                   for w in _warnings(inv, "rvtools_vm_not_in_tab"))


def test_tab_without_vm_column_or_ids_is_stated():
    # as the workshop's vPartition, but a vDisk without 'VM' and without VM ID:
    # nothing joins it; before, a tab with no 'VM' column was skipped silently
    disk = _sheet("vDisk", ["NEXT Data Center", "Disk", "Capacity MB"],
                  [["ntxAPAIR01", "Hard disk 1", 46080]])
    q = QualityReport()
    warn_not_in_tabs(["nxtAPAIR01"], {"vDisk": disk}, q)
    assert [w.message[:58] for w in q.warnings] == [
        "1 of 1 VM(s) of vInfo have no row in the vDisk tab (matche"]


#: Display name -> database column name of RVTools' -DBColumnNames option, for
#: the vInfo columns below (as RVToolsMerge's SheetConfiguration.cs maps them).
_DB_NAMES = {"VM": "vInfoVMName", "Powerstate": "vInfoPowerstate",
             "Template": "vInfoTemplate", "CPUs": "vInfoCPUs", "Memory": "vInfoMemory"}


def test_database_column_names_are_refused_in_one_line(tmp_path):
    # an export with RVTools' -DBColumnNames option ('vInfoVMName', ...) was
    # refused as "not an RVTools export": now the line names the option. Built
    # from the workshop file's vInfo, its first five headers renamed
    import openpyxl

    wb = openpyxl.load_workbook(NEXT)
    for cell in wb["vInfo"][1]:
        cell.value = _DB_NAMES.get(cell.value, cell.value)
    path = tmp_path / "db-names.xlsx"
    wb.save(path)
    out = tmp_path / "plan.json"
    with pytest.raises(SystemExit) as info:
        main(["plan", str(path), "-q", "-o", str(out)])
    assert info.value.code == 2
    with pytest.raises(InventoryError) as err:
        read_rvtools(path)
    assert str(err.value) == (
        "db-names.xlsx: vInfo has RVTools' database column names ('vInfoVMName', "
        "'vInfoPowerstate', ...: its -DBColumnNames option); expected its display "
        "names ('VM', 'Powerstate', 'CPUs', 'Memory'): export again without "
        "-DBColumnNames")
