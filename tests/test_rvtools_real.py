"""Real RVTools-family exports (tests/data/real/rvtools/, see its README.md).

Every figure pinned here was counted by hand with openpyxl from the workbook's
own cells (the comment says which cells), not taken from vsizer's output.
Each file found a defect when first read; the test that guards the fix names
it.
"""

from __future__ import annotations

import csv
from pathlib import Path

import openpyxl
import pandas as pd
import pytest

from vsizer.cli import main
from vsizer.errors import InventoryError
from vsizer.inventory import detect_format, read_inventory, read_rvtools

from .rvtools_fixture import write_old_layout

pytestmark = pytest.mark.slow

REAL = Path(__file__).parent / "data" / "real" / "rvtools"
V4714 = REAL / "rvtools-4.7.1.4_huaweicloud-bluemix4.xlsx"
WORKSHOP = REAL / "rvtools-mb-layout_ibm-sizing-workshop.xlsx"
GENERATED = REAL / "rvtools-layout-generated_ibm-small-complete.xlsx"

#: The tabs vsizer reads (written to CSV for the per-tab export tests).
TABS = ("vInfo", "vCPU", "vMemory", "vDisk", "vPartition", "vSnapshot", "vHost")


def _row(inv, name):
    s = inv.servers.set_index("name").loc[name]
    return {k: (None if pd.isna(v) else v) for k, v in s.items()}


def _codes(inv) -> dict[str, int]:
    return {w.code: len(w.servers) for w in inv.quality.warnings}


@pytest.fixture(scope="module")
def v4714():
    return read_rvtools(V4714)


# --- RVTools 4.7.1.4, 27 sheets, 571 VMs, 23 hosts in 3 clusters ---------------


def test_4714_counts(v4714):
    # vInfo: 571 rows, all poweredOn, Template False; vHost: 23 rows
    # (BLUEMIX-APP 11, BLUEMIX-ACESSO 8, BLUEMIX-BD 4)
    assert len(v4714) == 571 and v4714.excluded.empty
    assert len(v4714.hosts_before) == 23
    clusters = v4714.hosts_before["cluster"].value_counts().to_dict()
    assert clusters == {"BLUEMIX-APP": 11, "BLUEMIX-ACESSO": 8, "BLUEMIX-BD": 4}
    assert len(v4714.metadata["sheets"]) == 27


def test_4714_vm_with_12_virtual_sockets(v4714):
    # defect: 12 virtual sockets x 1 core got the physical servers' unusual_sockets
    # warning (usual 1-8); a VM's sockets are checked against hypervisor maxima
    vm = _row(v4714, "VMTSPLUS22S1P")
    assert (vm["vcpus"], vm["sockets"], vm["cores_per_socket"]) == (12, 12, 1)
    assert vm["cpu_avg_util"] == pytest.approx(10485 / 28728)  # vCPU Overall / Max
    assert vm["mem_gib"] == 70.0  # vMemory Size MiB 71680
    assert vm["mem_used_gib"] == pytest.approx((71889 - 275) / 1024)
    assert vm["cpu_mhz"] == 2394.0  # vHost bmvmware15 Speed
    assert "unusual_sockets" not in _codes(v4714)


def test_4714_used_disk_is_the_guest_view(v4714):
    # defect: 'used' was vInfo In Use MiB (180221, datastore view with swap);
    # vPartition C:\ 149176 + G:\ 73139 MiB consumed is what the guest stores
    vm = _row(v4714, "VMTSPLUS22S1P")
    assert vm["disk_used_gib"] == pytest.approx((149176 + 73139) / 1024)
    assert v4714.quality.status("VMTSPLUS22S1P", "disk_used_gib") == "derived"
    assert any("guest view (vPartition Consumed) for 568 VM(s)" in n
               for n in v4714.quality.notes)


def test_4714_licence_keys_blanked():
    wb = openpyxl.load_workbook(V4714, read_only=True)
    rows = list(wb["vLicense"].iter_rows(values_only=True))
    key = list(rows[0]).index("Key")
    assert len(rows) == 4 and all(r[key] is None for r in rows[1:])


def _write_tabs(src: Path, folder: Path, prefix: str) -> Path:
    """RVTools' per-tab CSV export of ``src``'s tabs, as RVTools names them."""
    folder.mkdir()
    wb = openpyxl.load_workbook(src, read_only=True)
    for tab in TABS:
        if tab not in wb.sheetnames:
            continue
        with (folder / f"{prefix}{tab}.csv").open("w", newline="", encoding="utf-8-sig") as f:
            w = csv.writer(f)
            for row in wb[tab].iter_rows(values_only=True):
                if any(v is not None for v in row):
                    w.writerow(["" if v is None else v for v in row])
    return folder


@pytest.mark.parametrize("prefix", ["RVTools_tab", ""])
def test_per_tab_csv_export_reads_as_the_workbook(tmp_path, v4714, prefix):
    # defect: vInfo.csv was read as a plain server list ("no column for 'name'")
    # and a folder gave "file not found"
    folder = _write_tabs(V4714, tmp_path / "export", prefix)
    vinfo = folder / f"{prefix}vInfo.csv"
    for given in (folder, vinfo):
        assert detect_format(given) == "rvtools"
        inv = read_inventory(given)
        assert inv.metadata["format"] == "csv"
        pd.testing.assert_frame_equal(inv.servers, v4714.servers)
        pd.testing.assert_frame_equal(inv.excluded, v4714.excluded)
        pd.testing.assert_frame_equal(inv.hosts_before, v4714.hosts_before)
        assert inv.quality.to_dict() == v4714.quality.to_dict()
        assert inv.quality.warnings == v4714.quality.warnings


def test_per_tab_csv_export_on_the_command_line(tmp_path, capsys):
    folder = _write_tabs(GENERATED, tmp_path / "export", "RVTools_tab")
    for given in (folder, folder / "RVTools_tabvInfo.csv"):
        out = tmp_path / "plan.json"
        with pytest.raises(SystemExit) as info:
            main(["plan", str(given), "-q", "-o", str(out)])
        assert info.value.code in (0, None), capsys.readouterr().err
        assert '"servers": 2' in out.read_text()


def test_a_folder_without_an_export_is_one_clear_line(tmp_path, capsys):
    empty = tmp_path / "exports"
    empty.mkdir()
    (empty / "notes.txt").write_text("x")
    with pytest.raises(InventoryError, match=r"^exports: expected a server-list file, "
                       r"or a folder with RVTools' per-tab CSV export"):
        read_inventory(empty)
    with pytest.raises(SystemExit) as info:
        main(["plan", str(empty), "-q"])
    err = capsys.readouterr().err
    assert info.value.code != 0 and len(err.strip().splitlines()) == 1
    assert "this folder holds neither" in err


def test_csv_problem_lines_name_the_tab_file(tmp_path):
    folder = _write_tabs(GENERATED, tmp_path / "export", "RVTools_tab")
    text = (folder / "RVTools_tabvHost.csv").read_text(encoding="utf-8-sig")
    (folder / "RVTools_tabvHost.csv").write_text(text.replace("2400", "fast"))
    with pytest.raises(InventoryError, match=r"RVTools_tabvHost\.csv row 2, column "
                       r"'Speed': expected a non-negative number, got 'fast'\."):
        read_inventory(folder)


# --- an older export (MB headers, 4 sheets), 805 VMs, 34 hosts -----------------


def test_workshop_counts_and_one_vm():
    inv = read_rvtools(WORKSHOP)
    # vInfo: 805 rows; 42 poweredOff of which 10 have Template True
    assert len(inv) == 763
    reasons = inv.excluded["reason"].value_counts().to_dict()
    assert reasons == {"powered off": 32, "template": 10}
    assert len(inv.hosts_before) == 34
    vm = _row(inv, "wadfs1")  # vInfo CPUs 1, Memory 4096; host vmsp-04 (suffix)
    assert (vm["vcpus"], vm["mem_gib"]) == (1, 4.0)
    # host vmsp-04: CPU usage 19 % x 16 cores / 29 vCPUs of its powered-on VMs
    assert vm["cpu_avg_util"] == pytest.approx(0.19 * 16 / 29)
    assert vm["disk_used_gib"] == pytest.approx(41510 / 1024)  # vPartition C:\
    # defect: 27 host names matched by suffix made 27 warnings; now one, naming 5
    suffix = [w for w in inv.quality.warnings
              if w.code == "rvtools_host_matched_by_suffix"]
    assert len(suffix) == 1 and suffix[0].message.startswith("27 vInfo host name(s)")
    assert "and 22 more" in suffix[0].message


# --- a workbook in RVTools' layout written by another tool ----------------------


def test_generated_layout_uses_the_host_clock_without_a_cpu_model():
    # defect: vHost gives Speed and # Cores but no CPU Model: the clock was
    # ignored, so vCPU Overall could not be turned into a utilization and every
    # VM was taken as 100 % busy
    inv = read_rvtools(GENERATED)
    assert list(inv.servers["name"]) == ["sample-web-01", "sample-db-01"]
    assert inv.excluded.to_dict("records") == [
        {"name": "sample-archive-01", "reason": "powered off"}
    ]
    assert len(inv.hosts_before) == 2
    web = _row(inv, "sample-web-01")  # vInfo CPUs 2, Memory 8192; host-01 2400 MHz
    assert (web["vcpus"], web["mem_gib"], web["cpu_mhz"]) == (2, 8.0, 2400.0)
    assert web["cpu_avg_util"] == pytest.approx(700 / (2 * 2400))  # vCPU Overall
    assert web["disk_used_gib"] == pytest.approx((40960 + 20480) / 1024)


# --- power states written by other exporters (Hyper-V) --------------------------


def _restate(tmp_path: Path, states: dict[str, str]) -> Path:
    """The issue-11 fixture with vInfo Powerstate cells rewritten."""
    p = write_old_layout(tmp_path / "hv.xlsx")
    wb = openpyxl.load_workbook(p)
    for ws in wb.worksheets:
        head = [c.value for c in ws[1]]
        if "Powerstate" not in head:
            continue
        col = head.index("Powerstate") + 1
        for r in range(2, ws.max_row + 1):
            vm = ws.cell(r, 1).value
            if vm in states:
                ws.cell(r, col).value = states[vm]
    wb.save(p)
    return p


def test_hyper_v_power_states_are_mapped_and_stated(tmp_path):
    # defect: Powerstate 'On' excluded every running VM ("power state On")
    p = _restate(tmp_path, {"app01": "On", "app02": "Running", "db01": "On",
                            "off01": "Off", "web01": "Saved", "leg01": "Paused",
                            "leg02": "Starting"})
    inv = read_rvtools(p)
    planned = set(inv.servers["name"])
    assert {"app01", "app02", "db01", "leg02"} <= planned  # leg02: unknown, kept
    assert dict(zip(inv.excluded["name"], inv.excluded["reason"], strict=True)) == {
        "off01": "powered off ('Off')",
        "tmpl01": "template",
        "web01": "powered off ('Saved')",
        "leg01": "power state suspended ('Paused')",
    }
    warned = {w.message: w.servers for w in inv.quality.warnings
              if w.code.startswith("rvtools_power_state")}
    assert warned["'Powerstate' value 'On' (not a vSphere power state) read as "
                  "powered on for 2 VM(s) (Hyper-V and other exporters' "
                  "spelling)."] == ("app01", "db01")
    unknown = [m for m in warned if "'Starting' is not a known power state for 1 "
               "VM(s)" in m]
    assert len(unknown) == 1 and warned[unknown[0]] == ("leg02",)


def test_vm_with_32_virtual_sockets_is_ordinary(tmp_path):
    # the refusal: sheet 'vCPU' row 119, column 'Sockets': expected a
    # number of sockets from 1 to 16, got '32'
    wb = openpyxl.Workbook()
    info = wb.active
    info.title = "vInfo"
    info.append(["VM", "Powerstate", "CPUs", "Memory"])
    info.append(["big", "poweredOn", 32, 262144])
    cpu = wb.create_sheet("vCPU")
    cpu.append(["VM", "CPUs", "Sockets", "Cores p/s"])
    cpu.append(["big", 32, 32, 1])
    p = tmp_path / "big.xlsx"
    wb.save(p)
    inv = read_rvtools(p)
    vm = _row(inv, "big")
    assert (vm["vcpus"], vm["sockets"], vm["cores_per_socket"]) == (32, 32, 1)
    assert not [w for w in inv.quality.warnings if w.code.startswith("unusual_")]


def test_vinfo_layout_under_another_name_is_rvtools(tmp_path):
    # a Hyper-V or other exporter's workbook: vInfo's header on a sheet 'VMs'
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "VMs"
    ws.append(["VM", "Powerstate", "CPUs", "Memory", "Host"])
    ws.append(["hv01", "Running", 4, 8192, "hyperv-01"])
    ws.append(["hv02", "Off", 2, 4096, "hyperv-01"])
    p = tmp_path / "hyperv.xlsx"
    wb.save(p)
    assert detect_format(p) == "rvtools"
    inv = read_inventory(p)
    assert list(inv.servers["name"]) == ["hv01"]
    assert (_row(inv, "hv01")["vcpus"], _row(inv, "hv01")["mem_gib"]) == (4, 8.0)
    codes = _codes(inv)
    assert codes["rvtools_power_state_mapped"] == 1
    assert "rvtools_vinfo_sheet_named" in codes
    csv_file = tmp_path / "export.csv"
    csv_file.write_text("VM,Powerstate,CPUs,Memory\nhv01,Running,4,8192\n")
    assert detect_format(csv_file) == "rvtools"
    inv = read_inventory(csv_file)
    assert _row(inv, "hv01")["mem_gib"] == 8.0
    assert "rvtools_vinfo_sheet_named" in _codes(inv)
    plain = tmp_path / "servers.csv"
    plain.write_text("VM,Powerstate,CPUs,Memory GB\nx,on,2,8\n")
    assert detect_format(plain) == "table"


def test_used_disk_sources_in_order(tmp_path):
    # vPartition (guest view) first, else In Use less vSnapshot, else In Use
    wb = openpyxl.Workbook()
    info = wb.active
    info.title = "vInfo"
    info.append(["VM", "Powerstate", "CPUs", "Memory", "Provisioned MiB", "In Use MiB"])
    info.append(["guest", "poweredOn", 2, 4096, 102400, 60000])
    info.append(["snap", "poweredOn", 2, 4096, 102400, 60000])
    info.append(["plain", "poweredOn", 2, 4096, 102400, 60000])
    info.append(["swap", "poweredOn", 2, 4096, 102400, 60000])
    mem = wb.create_sheet("vMemory")
    mem.append(["VM", "Size MiB", "Reservation"])
    mem.append(["swap", 4096, 1024])  # .vswp = 4096 - 1024 MiB
    part = wb.create_sheet("vPartition")
    part.append(["VM", "Disk", "Capacity MiB", "Consumed MiB"])
    part.append(["guest", "/", 51200, 10240])
    part.append(["guest", "/data", 51200, 5120])
    snap = wb.create_sheet("vSnapshot")
    snap.append(["VM", "Name", "Size MiB (vmsn)", "Size MiB (total)"])
    snap.append(["snap", "before patch", 10, 8192])
    snap.append(["snap", "after patch", 10, 2048])
    p = tmp_path / "disk.xlsx"
    wb.save(p)
    inv = read_rvtools(p)
    assert _row(inv, "guest")["disk_used_gib"] == 15.0  # 10240 + 5120 MiB
    assert _row(inv, "snap")["disk_used_gib"] == pytest.approx((60000 - 10240) / 1024)
    assert _row(inv, "plain")["disk_used_gib"] == pytest.approx(60000 / 1024)
    assert _row(inv, "swap")["disk_used_gib"] == pytest.approx((60000 - 3072) / 1024)
    assert "its swap file (3072 MiB: memory less reservation)" in (
        inv.quality.entries["swap"]["disk_used_gib"][1])
    q = inv.quality
    assert [q.status(n, "disk_used_gib") for n in ("guest", "snap", "plain")] == [
        "derived", "estimated", "estimated"]
    assert "less 2 snapshot(s) in vSnapshot" in q.entries["snap"]["disk_used_gib"][1]
    assert q.entries["plain"]["disk_used_gib"][1].startswith(
        "vInfo In Use MiB: the datastore view")
    assert ("RVTools used disk space: guest view (vPartition Consumed) for 1 VM(s); "
            "vInfo In Use less vSnapshot sizes (swap file included) for 1 VM(s); vInfo "
            "In Use (swap and snapshot files included) for 1 VM(s); vInfo In Use less "
            "the swap file (and vSnapshot sizes) for 1 VM(s)") in q.notes
