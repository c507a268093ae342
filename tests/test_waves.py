"""Issue 30: readiness per VM, estate hygiene, migration waves and carbon.

The readiness fixture is built from real RVTools 4.7.1.4 tabs: the header row
and the first data row of each tab of tests/data/real/rvtools/
rvtools-4.7.1.4_kylow_RVTOOLEX.xlsx (vInfo, vDisk, vSnapshot, vTools, vHealth,
vMetaData, vHost) and the vUSB tab of rvtools-layout-generated_ibm-small-complete.xlsx,
with the cells of each case changed by header name.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import openpyxl
import pytest
from typer.testing import CliRunner

from vsizer.cli import app
from vsizer.inventory.rvtools import read_rvtools
from vsizer.study.carbon import carbon
from vsizer.study.readiness import readiness
from vsizer.study.waves import WaveOptions, plan_waves, window_gib

REAL = Path(__file__).parent / "data" / "real" / "rvtools"
KYLOW = REAL / "rvtools-4.7.1.4_kylow_RVTOOLEX.xlsx"
IBM = REAL / "rvtools-layout-generated_ibm-small-complete.xlsx"
EXPORT_DAY = dt.datetime(2025, 12, 17, 16, 35, 29)  # vMetaData of the kylow export
TABS = ("vInfo", "vDisk", "vSnapshot", "vTools", "vHealth", "vMetaData", "vHost")

#: VM -> {tab: {header: value}} changed from the real template row.
CASES: dict[str, dict[str, dict[str, object]]] = {
    "vm-ok": {},
    "vm-rdm": {"vDisk": {"Raw": "True", "Raw Comp. Mode": "physicalMode"}},
    "vm-mw": {"vDisk": {"Sharing mode": "sharingMultiWriter"}},
    "vm-snap": {"vSnapshot": {"Date / time": EXPORT_DAY - dt.timedelta(days=400)}},
    "vm-tools": {"vTools": {"Tools": "toolsNotRunning"}},
    "vm-os": {"vInfo": {"OS according to the VMware Tools":
                        "Microsoft Windows Server 2003 Standard (32-bit)",
                        "OS according to the configuration file":
                        "Microsoft Windows Server 2003 Standard (32-bit)"}},
    "vm-usb": {"vUSB": {}},
    "vm-hw": {"vInfo": {"HW version": 8}},
}


def _real(path: Path, tab: str) -> tuple[list[object], list[object]]:
    wb = openpyxl.load_workbook(path, read_only=True)
    rows = wb[tab].iter_rows(values_only=True)
    header, first = list(next(rows)), list(next(rows, ()) or [])
    wb.close()
    return header, first + [None] * (len(header) - len(first))


def write_fixture(path: Path, drop: tuple[str, ...] = ()) -> Path:
    """The readiness workbook: one VM per case, tabs in ``drop`` left out."""
    wb = openpyxl.Workbook()
    wb.remove(wb.active)
    host_header, host_row = _real(KYLOW, "vHost")
    host = host_row[host_header.index("Host")]
    for tab in (*TABS, "vUSB"):
        if tab in drop:
            continue
        header, tmpl = _real(IBM if tab == "vUSB" else KYLOW, tab)
        if tab == "vUSB":
            tmpl = list(_usb_row(header))
        ws = wb.create_sheet(tab)
        ws.append(header)
        if tab in ("vHost", "vMetaData"):
            ws.append(tmpl)
            continue
        for vm, change in CASES.items():
            if tab in ("vSnapshot", "vUSB") and tab not in change:
                continue  # only these VMs have snapshots / USB devices
            if tab == "vHealth":
                continue
            row = list(tmpl)
            for h, v in {"VM": vm, "Host": host, "Cluster": host_row[
                    host_header.index("Cluster")], **change.get(tab, {})}.items():
                if h in header:
                    row[header.index(h)] = v
            if tab == "vInfo":
                row[header.index("Powerstate")] = "poweredOn"
                for h in ("VM ID", "VM UUID", "SMBIOS UUID"):
                    row[header.index(h)] = f"{vm}-{h}"
            elif "VM ID" in header:
                row[header.index("VM ID")] = f"{vm}-VM ID"
            if "VM UUID" in header:
                row[header.index("VM UUID")] = f"{vm}-VM UUID"
            ws.append(row)
    wb.save(path)
    return path


def _usb_row(header: list[object]) -> list[object]:
    wb = openpyxl.load_workbook(IBM, read_only=True)
    row = list(list(wb["vUSB"].iter_rows(values_only=True))[1])
    wb.close()
    return row + [None] * (len(header) - len(row))


@pytest.fixture(scope="module")
def fixture_book(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_fixture(tmp_path_factory.mktemp("rv") / "readiness.xlsx")


def _statuses(path: Path, target: str = "vsphere-8") -> dict[str, dict]:
    inv = read_rvtools(path)
    facts = inv.metadata["vm_facts"]
    doc = readiness(facts, sorted(CASES), target, inv.metadata["export_date"])
    return {v["name"]: v for v in doc["vms"]}


def test_readiness_on_real_rvtools_tabs(fixture_book: Path) -> None:
    got = _statuses(fixture_book)
    assert got["vm-ok"]["status"] == "ready", got["vm-ok"]
    assert got["vm-rdm"]["status"] == "blocked"
    assert got["vm-rdm"]["reasons"][0] == "1 raw device mapping disk(s) (RDM)"
    assert got["vm-mw"]["status"] == "blocked"
    assert got["vm-mw"]["reasons"][0] == "1 shared or multi-writer disk(s)"
    assert got["vm-snap"]["status"] == "needs work"
    assert got["vm-snap"]["reasons"] == [
        "1 snapshot(s), oldest 400 days: consolidate first"]
    assert got["vm-tools"]["reasons"] == ["VMware Tools toolsNotRunning"]
    assert got["vm-os"]["status"] == "blocked"
    assert got["vm-os"]["reasons"][0] == (
        "guest OS 'Microsoft Windows Server 2003 Standard (32-bit)' not supported on "
        "vsphere-8")
    assert got["vm-usb"]["reasons"] == ["1 USB device(s) attached: detach or re-map"]
    assert got["vm-hw"]["reasons"] == ["virtual hardware 8 < 11: upgrade"]


def test_a_missing_tab_is_unknown_never_ready(tmp_path: Path) -> None:
    got = _statuses(write_fixture(tmp_path / "nosnap.xlsx", drop=("vSnapshot",)))
    assert got["vm-ok"]["status"] == "unknown"
    assert got["vm-ok"]["unknown"] == ["snapshots"]
    assert got["vm-ok"]["reasons"] == ["snapshot status unknown (no vSnapshot tab)"]
    got = _statuses(write_fixture(tmp_path / "notools.xlsx", drop=("vTools", "vDisk")))
    assert got["vm-ok"]["unknown"] == ["rdm", "shared_disk", "tools"]
    assert got["vm-rdm"]["status"] == "unknown"  # the RDM is in the vDisk tab left out


def test_another_target_reads_its_own_os_table(fixture_book: Path) -> None:
    got = _statuses(fixture_book, "openshift-virtualization-4")
    # the template VM's OS (Oracle Linux 8) is not in Red Hat's certified list
    assert got["vm-ok"]["status"] == "unknown"
    assert "guest_os" in got["vm-ok"]["unknown"]
    assert got["vm-os"]["status"] == "blocked"


# --- waves on a hand-computable plan ------------------------------------------

READY = {"power": "on", "template": False, "hw_version": 19, "ft": False,
         "os": "Microsoft Windows Server 2019 (64-bit)", "rdm_disks": 0,
         "shared_disks": 0, "largest_disk_gib": 500.0, "snapshots": 0,
         "oldest_snapshot": None, "tools": "toolsOk", "usb_devices": 0}


def hand_plan(groups: dict[str, str] | None = None) -> dict:
    """4 source hosts of 10 cores x 1000 MHz and 100 GiB; 6 VMs of 2 vCPUs at
    100 % peak (2000 MHz) and 30 GiB, 1000 GiB used each; ceiling 0.5, N+1;
    target pool P of 3 hosts (2 x 8 cores)."""
    groups = groups or {}
    target = {"vm1": "T1", "vm3": "T1", "vm2": "T2", "vm4": "T2", "vm5": "T3", "vm6": "T3"}
    vms = [{"name": n, "source_host": f"h{(i % 4) + 1}", "source_cluster": "C",
            "move_group": groups.get(n), "pool": "P", "host": target[n], "used_gib": 1000.0,
            "redundant_with": ["vm2"] if n == "vm1" else ["vm1"] if n == "vm2" else [],
            "facts": READY} for i, n in enumerate(sorted(target))]
    return {
        "parameters": {"ceiling": 0.5, "failures": 1, "host_memory_reserve_gib": 0.0},
        "host_model": {"sockets": 2, "cores_per_socket": 8, "mem_gib": 400.0},
        "summary": {"hosts": 3},
        "pools": [{"name": "P", "host_count": 3}],
        "servers": [{"name": v["name"], "vcpus": 2, "cpu_mhz": 1000.0,
                     "cpu_peak_util": 1.0, "mem_gib": 30.0} for v in vms],
        "before": {"hosts": [{"name": f"h{i}", "cluster": "C", "cores": 10, "sockets": 1,
                              "cpu_mhz": 1000.0, "mem_gib": 100.0} for i in range(1, 5)]},
        "power": {"annual_kwh_before": 10000.0, "annual_kwh_after": 4000.0, "years": 5},
        "migration": {"target": "vsphere-8", "export_date": "2025-12-17", "vms": vms},
    }


OPTS = WaveOptions(bandwidth_bit_s=10e9, efficiency=0.5, window_h=1.0,
                   start=dt.date(2027, 1, 1),
                   blackout=((dt.date(2027, 1, 2), dt.date(2027, 1, 2)),))


def test_window_and_wave_count_by_hand() -> None:
    # 10 Gbit/s / 8 x 0.5 x 3600 s = 2.25e12 B = 2095.48 GiB: two 1000 GiB VMs a wave
    assert window_gib(OPTS) == pytest.approx(2.25e12 / 2**30)
    doc = plan_waves(hand_plan(), OPTS)
    assert [w["vms"] for w in doc["waves"]] == [["vm1", "vm3"], ["vm2", "vm4"],
                                               ["vm5", "vm6"]]
    assert [w["hours"] for w in doc["waves"]] == pytest.approx([2000 * 2**30 / 2.25e12] * 3)  # 0.9544 h
    assert [w["date"] for w in doc["waves"]] == ["2027-01-01", "2027-01-03", "2027-01-04"]
    # vm1 and vm2 are redundant partners: different waves
    assert doc["summary"]["waves"] == 3


def test_source_keeps_n_plus_k_and_releases_by_hand() -> None:
    doc = plan_waves(hand_plan(), OPTS)
    src = [w["source"] for w in doc["waves"]]
    # 6 VMs: 12000 MHz <= 0.5 x 10000 x (n - 1) -> n = 4 (none released before)
    # after wave 1, 4 VMs: 8000 MHz -> n - 1 >= 1.6 -> 3 hosts: 1 released
    # after wave 2, 2 VMs: 4000 MHz -> 2 hosts: 1 released; after wave 3: all 2
    assert [s["released_hosts"] for s in src] == [["h1"], ["h2"], ["h3", "h4"]]
    assert [s["released_cores"] for s in src] == [10, 10, 20]
    assert [s["licence_cores_stopped"] for s in src] == [16, 16, 32]  # 16 per CPU min
    assert [s["hosts_needed"]["C"] for s in src] == [3, 2, 0]
    assert all(s["hosts_left"]["C"] >= s["hosts_needed"]["C"] for s in src)
    tgt = [w["target"] for w in doc["waves"]]
    # hosts holding moved VMs + 1 spare, at most the pool's 3
    assert [t["hosts_in_place"]["P"] for t in tgt] == [2, 3, 3]
    assert [t["new_hosts"] for t in tgt] == [2, 1, 0]
    assert [t["cores_started"] for t in tgt] == [32, 16, 0]


def test_move_groups_max_vms_and_blocked() -> None:
    doc = plan_waves(hand_plan({"vm5": "g", "vm6": "g", "vm3": "g"}), OPTS)
    # the 3000 GiB unit goes first (larger), alone and over the window: 2 windows
    first = doc["waves"][0]
    assert first["vms"] == ["vm3", "vm5", "vm6"] and first["windows"] == 2
    assert first["date"] == "2027-01-01" and first["end_date"] == "2027-01-03"
    assert any(w["code"] == "waves_over_window" for w in doc["warnings"])
    one = plan_waves(hand_plan(), WaveOptions(**{**OPTS.__dict__, "max_vms": 1}))
    assert one["summary"]["waves"] == 6
    plan = hand_plan()
    plan["migration"]["vms"][0]["facts"] = {**READY, "rdm_disks": 1}
    doc = plan_waves(plan, OPTS)
    assert doc["not_scheduled"][0]["name"] == "vm1"
    # vm1 stays on the source: its cluster keeps k + 1 = 2 hosts to the end
    assert doc["waves"][-1]["source"]["hosts_left"]["C"] == 2


def test_carbon_by_hand() -> None:
    c = carbon(hand_plan(), gco2_kwh=500.0, years=5)
    assert c["operational_kgco2e_before"] == pytest.approx(5000.0)  # 10000 x 0.5
    assert c["operational_kgco2e_after"] == pytest.approx(2000.0)
    # 1000 + 100 (2nd CPU) + 533/384 x (400 - 16) GiB = 1633 kg per host, 3 hosts
    assert c["embodied_kgco2e_per_host"] == pytest.approx(1000 + 100 + 533 / 384 * 384)
    assert c["embodied_kgco2e"] == pytest.approx(3 * 1633.0)
    assert c["embodied_kgco2e_per_year"] == pytest.approx(3 * 1633.0 / 5)
    assert c["net_saving_kgco2e_per_year"] == pytest.approx(3000 - 3 * 1633.0 / 5)
    assert c["payback_year"] == 2  # 4899 / 3000
    assert carbon(hand_plan(), region="germany")["grid_gco2_kwh"] == 381.0


runner = CliRunner()


def test_cli_plan_then_waves(fixture_book: Path, tmp_path: Path) -> None:
    plan = tmp_path / "plan.json"
    r = runner.invoke(app, ["plan", str(fixture_book), "-o", str(plan), "-o",
                            str(tmp_path / "plan.xlsx"), "-o", str(tmp_path / "plan.html")],
                      env={"COLUMNS": "250"})
    assert r.exit_code == 0, r.output
    mig = json.loads(plan.read_text())["migration"]
    assert mig["readiness"]["counts"] == {"ready": 1, "needs work": 4, "blocked": 3,
                                          "unknown": 0}
    assert "Readiness on vsphere-8: 1 ready, 4 needs work, 3 blocked, 0 unknown" in r.output
    ws = openpyxl.load_workbook(tmp_path / "plan.xlsx")["Readiness"]
    assert any(c.value == "vm-rdm" for row in ws.iter_rows() for c in row)
    assert "Migration readiness and hygiene" in (tmp_path / "plan.html").read_text()
    outs = [tmp_path / f"w.{s}" for s in ("json", "html", "xlsx")]
    args = ["waves", str(plan), "--bandwidth", "10Gbit/s", "--efficiency", "0.55",
            "--window", "8h", "--start", "2027-01-11", "--grid-gco2-kwh", "400",
            *[a for o in outs for a in ("-o", str(o))]]
    r = runner.invoke(app, args, env={"COLUMNS": "250"})
    assert r.exit_code == 0, r.output
    assert "Readiness on vsphere-8: 1 ready, 4 needs work, 3 blocked" in r.output
    first = outs[0].read_bytes()
    assert runner.invoke(app, args).exit_code == 0
    assert outs[0].read_bytes() == first  # deterministic
    assert "<svg" in outs[1].read_text() and "Gantt" in outs[1].read_text()
    assert "Gantt" in openpyxl.load_workbook(outs[2]).sheetnames


@pytest.mark.parametrize(("args", "message"), [
    (["--bandwidth", "fast"], "--bandwidth: expected e.g. 10Gbit/s"),
    (["--window", "0h"], "--window: expected a positive duration"),
    (["--efficiency", "1.5"], "--efficiency: expected a share in (0, 1]"),
    (["--blackout", "2027-13-01"], "--blackout: expected a date YYYY-MM-DD"),
    (["--grid-region", "Atlantis"], "--grid-region: expected one of"),
    (["--target", "hyperv"], "--target: expected one of"),
])
def test_waves_errors_are_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    plan = tmp_path / "p.json"
    plan.write_text(json.dumps(hand_plan()))
    base = {"--bandwidth": "1Gbit/s", "--window": "8h"}
    for k, v in zip(args[::2], args[1::2], strict=True):
        base[k] = v
    r = runner.invoke(app, ["waves", str(plan), *[x for kv in base.items() for x in kv]])
    assert r.exit_code == 2
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and message in lines[0], r.output


def test_a_plan_without_migration_section_is_one_line(tmp_path: Path) -> None:
    plan = tmp_path / "p.json"
    plan.write_text("{}")
    r = runner.invoke(app, ["waves", str(plan), "--bandwidth", "1Gbit/s", "--window", "8h"])
    assert r.exit_code == 2
    assert "expected a 'migration' section" in r.output


def test_a_move_group_splits_at_redundant_partners_and_holds_with_a_blocked_vm() -> None:
    # vm1 and vm2 (partners) share move group g with vm3: g splits as {vm1, vm3}, {vm2}
    doc = plan_waves(hand_plan({"vm1": "g", "vm2": "g", "vm3": "g"}), OPTS)
    wave = {v["name"]: v["wave"] for v in doc["vms"]}
    assert wave["vm1"] == wave["vm3"] != wave["vm2"]
    plan = hand_plan({"vm5": "g", "vm6": "g"})
    plan["migration"]["vms"][4]["facts"] = {**READY, "ft": True}  # vm5 blocked
    doc = plan_waves(plan, OPTS)
    held = {v["name"]: v for v in doc["not_scheduled"]}
    assert held["vm5"]["reasons"] == ["fault tolerance on: turn it off to migrate"]
    assert held["vm6"]["reasons"] == [
        "held back: its move group or dependency has blocked VM(s) vm5"]


SAMPLE = Path(__file__).parents[1] / "vsizer" / "data" / "samples" / "rvtools_export.xlsx"


@pytest.mark.skipif(not SAMPLE.exists(), reason="shipped RVTools sample not merged yet")
def test_waves_on_the_shipped_rvtools_sample(tmp_path: Path) -> None:
    plan = tmp_path / "plan.json"
    assert runner.invoke(app, ["plan", str(SAMPLE), "-q", "-o", str(plan)]).exit_code == 0
    red = tmp_path / "redundant.csv"
    red.write_text("a,b\nmail01,mail02\nweb01,web02\n", encoding="utf-8")
    out = tmp_path / "waves.json"
    r = runner.invoke(app, ["waves", str(plan), "--bandwidth", "1Gbit/s", "--efficiency",
                            "0.55", "--window", "8h", "--start", "2027-01-11",
                            "--redundant", str(red), "--grid-region", "Germany",
                            "-q", "-o", str(out)])
    assert r.exit_code == 0, r.output
    doc = json.loads(out.read_text())
    status = {v["name"]: v for v in doc["vms"]}
    assert status["sqlclu01"]["status"] == "blocked"  # RDM, physical mode
    assert status["orarac01"]["status"] == "blocked"  # multi-writer disk
    assert status["fax01"]["status"] == "blocked"  # Windows Server 2003
    assert "1 snapshot(s), oldest 400 days: consolidate first" in status[
        "crm-app01"]["reasons"]
    assert status["mon01"]["reasons"] == ["VMware Tools toolsNotRunning"]
    assert status["lic01"]["reasons"] == ["1 USB device(s) attached: detach or re-map"]
    # 12 TiB disk > 1 Gbit/s x 0.55 x 8 h = 1844 GiB
    assert any(r.startswith("largest disk 12,288 GiB") for r in status["fs01"]["reasons"])
    assert status["mail01"]["wave"] != status["mail02"]["wave"]
    for w in doc["waves"]:
        for c, n in w["source"]["hosts_left"].items():
            assert n >= w["source"]["hosts_needed"][c]
    assert doc["carbon"]["grid_gco2_kwh"] == 381.0


def test_a_target_without_an_os_table_is_unknown_not_an_error(fixture_book: Path) -> None:
    got = _statuses(fixture_book, "proxmox-ve-8")
    assert got["vm-ok"]["status"] == "unknown"
    assert got["vm-ok"]["reasons"] == ["guest OS support on proxmox-ve-8 unknown: no table"]


def test_user_strings_are_escaped_and_neutralized(tmp_path: Path) -> None:
    plan = hand_plan()
    plan["migration"]["vms"][0]["name"] = "<script>x</script>"
    plan["migration"]["vms"][1]["name"] = "=HYPERLINK(\"http://x\")"
    p = tmp_path / "p.json"
    p.write_text(json.dumps(plan))
    outs = [tmp_path / "w.html", tmp_path / "w.xlsx"]
    r = runner.invoke(app, ["waves", str(p), "--bandwidth", "1Gbit/s", "--window", "8h",
                            "-q", *[a for o in outs for a in ("-o", str(o))]])
    assert r.exit_code == 0, r.output
    page = outs[0].read_text()
    assert "<script>x" not in page and "&lt;script&gt;x&lt;/script&gt;" in page
    cells = [c.value for ws in openpyxl.load_workbook(outs[1]) for row in ws.iter_rows()
             for c in row if isinstance(c.value, str) and "HYPERLINK" in c.value]
    assert cells and all(not v.startswith("=") for v in cells)


def test_hygiene_by_hand() -> None:
    from vsizer.study.readiness import hygiene

    facts = {
        "off": {"power": "off", "template": False, "provisioned_gib": 100.0},
        "tmpl": {"power": "off", "template": True, "provisioned_gib": 50.0},
        "snap": {"power": "on", "snapshots": 2, "oldest_snapshot": "2025-01-01",
                 "snapshot_gib": 5.0},
        "fresh": {"power": "on", "snapshots": 1, "oldest_snapshot": "2025-01-09",
                  "snapshot_gib": 1.0},
        "fat": {"power": "on", "provisioned_gib": 200.0, "in_use_gib": 20.0},
    }
    rs = [{"name": "big", "vcpus": 8, "vcpus_recommended": 2, "mem_gib": 32.0,
           "mem_gib_recommended": 30.0},
          {"name": "fine", "vcpus": 4, "vcpus_recommended": 3, "mem_gib": 8.0,
           "mem_gib_recommended": 6.0}]
    h = hygiene(facts, "2025-01-11", ["[ds1] old/old.vmdk"], rs)
    assert (h["powered_off"]["count"], h["powered_off"]["provisioned_gib"]) == (1, 100.0)
    assert (h["templates"]["count"], h["templates"]["provisioned_gib"]) == (1, 50.0)
    # 10 days > 3; the 2-day one is not old
    assert h["old_snapshots"]["vms"] == [{"name": "snap", "snapshots": 2, "oldest_days": 10}]
    assert h["old_snapshots"]["snapshot_gib"] == 5.0
    assert (h["oversized_disks"]["vms"], h["oversized_disks"]["returnable_gib"]) == (
        ["fat"], 180.0)
    assert h["orphaned_files"]["count"] == 1
    # 'big' frees 6 of 8 vCPUs (>= half); 'fine' frees 1 of 4 and 2 of 8 GiB
    assert (h["oversized"]["vms"], h["oversized"]["vcpus_freed"],
            h["oversized"]["mem_gib_freed"]) == (["big"], 6, 2.0)


# --- carbon in the plan's own reports (issue 30, every report) -----------------

SAMPLE_INV = Path(__file__).resolve().parents[1] / "vsizer/data/samples/inventory_ja.csv"


def test_plan_carbon_in_json_terminal_excel_and_html(tmp_path: Path) -> None:
    out = [tmp_path / "p.json", tmp_path / "p.xlsx", tmp_path / "p.html"]
    r = runner.invoke(app, ["plan", str(SAMPLE_INV), "--grid-gco2-kwh", "500", "--years",
                            "4", "--lang", "en", *[a for p in out for a in ("-o", str(p))]],
                      env={"COLUMNS": "250"})
    assert r.exit_code == 0, r.output
    doc = json.loads(out[0].read_text(encoding="utf-8"))
    cb, pw = doc["carbon"], doc["power"]
    # kWh x 500 g / 1000: the plan's 70,487.2962 and 11,790.785763 kWh a year
    assert pw["annual_kwh_before"] == 70487.2962 and pw["annual_kwh_after"] == 11790.785763
    assert cb["operational_kgco2e_before"] == pytest.approx(35243.6481)
    assert cb["operational_kgco2e_after"] == pytest.approx(5895.3928815)
    # 10 new hosts of 2 CPUs and 768 GiB: 1000 + 100 + 533 x (768 - 16) / 384
    assert cb["new_hosts"] == 10 and cb["years"] == 4
    assert cb["embodied_kgco2e_per_host"] == pytest.approx(2143.7916667)
    assert cb["embodied_kgco2e_per_year"] == pytest.approx(21437.916667 / 4)
    assert cb["net_saving_kgco2e_per_year"] == pytest.approx(29348.2552185 - 5359.4791667)
    assert cb["payback_year"] == 1 and cb["grid_source"] == "given (--grid-gco2-kwh)"
    codes = [w["code"] for w in doc["warnings"]]
    assert "carbon_embodied_estimated" in codes
    assert doc["summary"]["warnings"] == len(doc["warnings"])
    line = ("Carbon (500 gCO2e/kWh, location-based): 35,244 -> 5,895 kgCO2e/yr; embodied "
            "new hosts 21,438 kgCO2e over 4 years; net saving 23,989 kgCO2e/yr; pays back "
            "in year 1")
    assert line in r.output
    ws = openpyxl.load_workbook(out[1])["Carbon"]
    assert ws["B2"].value == line
    assert {c.value for c in ws["C"]} >= {"carbon.embodied_kgco2e", "carbon.payback_year"}
    html_text = out[2].read_text(encoding="utf-8")
    assert "Carbon before and after" in html_text and "35,244 -&gt; 5,895" in html_text


def test_plan_without_a_grid_has_no_carbon_and_a_bad_region_is_one_line(
    tmp_path: Path,
) -> None:
    j = tmp_path / "p.json"
    r = runner.invoke(app, ["plan", str(SAMPLE_INV), "-q", "-o", str(j)])
    assert r.exit_code == 0, r.output
    doc = json.loads(j.read_text(encoding="utf-8"))
    assert "carbon" not in doc
    assert not [w for w in doc["warnings"] if w["code"].startswith("carbon")]
    r = runner.invoke(app, ["plan", str(SAMPLE_INV), "--grid-region", "Atlantis"])
    assert r.exit_code == 2
    assert r.output.splitlines() == [
        "error: The 'grid_region' parameter of plan (--grid-region, [power] grid_region) "
        "must be a country or region of the shipped grid intensity table "
        "(vsizer/catalogs/data/grid_intensity.csv), e.g. 'Germany' or 'World'. Got "
        "'Atlantis' instead."]
    r = runner.invoke(app, ["plan", str(SAMPLE_INV), "--grid-region", "germany",
                            "--grid-gco2-kwh", "100", "-q", "-o", str(j)])
    doc = json.loads(j.read_text(encoding="utf-8"))
    assert doc["carbon"]["grid_gco2_kwh"] == 100.0
    assert "carbon_grid_both_given" in [w["code"] for w in doc["warnings"]]


# --- source release on the plan's demand curves --------------------------------


def test_curves_release_a_host_the_summed_peaks_would_keep() -> None:
    """Shapes of two points: vm2, vm4 busy at the first, vm5, vm6 at the second.

    After wave 1 (vm1, vm3 moved) vm2, vm4, vm5, vm6 stay, 2000 MHz peak each.
    Scalar: 8000 MHz <= 0.5 x 10000 x (n - 1) -> n = 3, one host released.
    Curves: 2000 + 2000 + 0 + 0 = 4000 MHz at either point -> n - 1 >= 0.8 ->
    n = 2, two hosts released; with h3 lost, h4 holds 5000 >= 4000 MHz at both
    points. Memory 20 GiB a VM here (4 x 20 = 80 GiB fits one 100 GiB host)."""
    plan = hand_plan()
    for s in plan["servers"]:
        s["mem_gib"] = 20.0  # 4 x 20 = 80 GiB <= one host's 100 GiB
    shapes = {"vm1": [1.0, 1.0], "vm3": [1.0, 1.0], "vm2": [1.0, 0.0],
              "vm4": [1.0, 0.0], "vm5": [0.0, 1.0], "vm6": [0.0, 1.0]}
    scalar = plan_waves(plan, OPTS)
    for v in plan["migration"]["vms"]:
        v["cpu_shape"] = shapes[v["name"]]
    plan["migration"]["curves"] = {"points": 2, "steps_per_point": 1, "steps": 2}
    curves = plan_waves(plan, OPTS)
    assert [w["source"]["released_hosts"] for w in scalar["waves"]] == [
        ["h1"], ["h2"], ["h3", "h4"]]
    assert [w["source"]["released_hosts"] for w in curves["waves"]] == [
        ["h1", "h2"], [], ["h3", "h4"]]
    assert [w["source"]["hosts_needed"]["C"] for w in curves["waves"]] == [2, 2, 0]
    assert [w["source"]["released_cores"] for w in curves["waves"]] == [20, 0, 20]
    codes = [w["code"] for w in curves["warnings"]]
    assert "waves_curve_source_check" in codes and "waves_scalar_source_check" not in codes
    assert "waves_scalar_source_check" in [w["code"] for w in scalar["warnings"]]
    # never below N+k on the curves: with the largest left host lost, the rest
    # hold the busiest point of what is left
    assert all(w["source"]["hosts_left"]["C"] >= w["source"]["hosts_needed"]["C"]
               for w in curves["waves"])


def test_cpu_shapes_are_block_maxima_over_the_peak_rounded_up() -> None:
    import types

    import numpy as np

    from vsizer.study.migration_curves import cpu_shapes

    curves = np.zeros((2, 4, 2))
    curves[0, :, 0] = [1.0, 4.0, 2.0, 3.0]
    curves[1, :, 0] = [3.0, 0.0, 0.0, 0.0]
    prob = types.SimpleNamespace(dims=("cpu", "mem"), vm_names=("a", "b"))
    pool = types.SimpleNamespace(vm_curves=curves, problem=prob)
    shapes, meta = cpu_shapes([pool])
    assert shapes == {"a": [0.25, 1.0, 0.5, 0.75], "b": [1.0, 0.0, 0.0, 0.0]}
    assert meta == {"points": 4, "steps_per_point": 1, "steps": 4}
    curves[0, :, 0] = [1.0, 3.0, 2.0, 3.0]  # 1/3 rounds up to 0.334
    assert cpu_shapes([pool])[0]["a"] == [0.334, 1.0, 0.667, 1.0]
    assert cpu_shapes([types.SimpleNamespace(vm_curves=None, problem=None)]) is None


def test_plan_on_series_carries_cpu_shapes_and_waves_replays_them(tmp_path: Path) -> None:
    """The shipped RVTools sample with a day of 5-minute CPU series (wide CSV):
    half the VMs at 80 % in the 1st and 3rd six hours, the others in the 2nd and 4th."""
    import datetime as dt

    sample = Path(__file__).resolve().parents[1] / "vsizer/data/samples/rvtools_export.xlsx"
    book = openpyxl.load_workbook(sample, read_only=True)
    rows = list(book["vInfo"].iter_rows(values_only=True))
    col, power = rows[0].index("VM"), rows[0].index("Powerstate")
    names = [r[col] for r in rows[1:] if r[power] == "poweredOn"]
    t0 = dt.datetime(2025, 12, 1)
    lines = ["time," + ",".join(names)] + [
        (t0 + dt.timedelta(minutes=5 * k)).isoformat() + ","
        + ",".join("80" if (k // 72) % 2 == j % 2 else "10" for j in range(len(names)))
        for k in range(288)]
    wide = tmp_path / "wide.csv"
    wide.write_text("\n".join(lines) + "\n", encoding="utf-8")
    plan, waves = tmp_path / "plan.json", tmp_path / "waves.json"
    r = runner.invoke(app, ["plan", str(sample), "--series", str(wide), "--series-format",
                            "wide", "--metric", "cpu_util", "-q", "-o", str(plan)])
    assert r.exit_code == 0, r.output
    mig = json.loads(plan.read_text(encoding="utf-8"))["migration"]
    assert mig["curves"]["points"] == 288 and mig["curves"]["steps_per_point"] == 1
    shape = next(v["cpu_shape"] for v in mig["vms"] if v["name"] == names[1])
    assert shape[:72] == [0.125] * 72 and shape[72:144] == [1.0] * 72  # 10 / 80, then 80
    r = runner.invoke(app, ["waves", str(plan), "--bandwidth", "1Gbit/s", "--window", "8h",
                            "-q", "-o", str(waves)])
    assert r.exit_code == 0, r.output
    doc = json.loads(waves.read_text(encoding="utf-8"))
    assert "waves_curve_source_check" in [w["code"] for w in doc["warnings"]]
    for w in doc["waves"]:
        for c, n in w["source"]["hosts_needed"].items():
            assert w["source"]["hosts_left"][c] >= n


# --- shipped tables: verified figures cited, the rest assumed and warned ----------


def test_shipped_tables_cite_a_url_or_say_assumed() -> None:
    import csv

    from vsizer.catalogs._csv import shipped_path

    for name in ("grid_intensity.csv", "guest_os_support.csv"):
        with open(shipped_path(name), encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                assert row["status"] in ("verified", "assumed"), row
                if row["status"] == "verified":
                    assert "https://" in row["source"], row
                else:
                    assert row["source"].startswith("assumed"), row


def test_grid_rows_by_hand_and_an_assumed_grid_is_warned() -> None:
    from vsizer.catalogs.migration_data import grid_intensity
    from vsizer.study.carbon import carbon_warnings

    us = grid_intensity("united states")
    # EIA: 1,650 million t CO2 / 4,230,672 million kWh (2022) = 390 g/kWh
    assert us.gco2_kwh == 390.0 and us.year == 2022 and not us.assumed
    assert round(1650e12 / 4230672e6) == 390
    assert grid_intensity("Norway").gco2_kwh == 30.0
    c = carbon(hand_plan(), region="united states")
    assert c["grid_region"] == "United States" and c["grid_assumed"] is False
    assert c["operational_kgco2e_after"] == pytest.approx(4000 * 0.390)
    codes = [w["code"] for w in carbon_warnings({**c, "grid_assumed": True})]
    assert codes == ["carbon_embodied_estimated", "carbon_grid_assumed"]


def test_guest_os_support_from_an_assumed_row_is_a_counted_warning() -> None:
    from vsizer.study.readiness import os_assumed_warning

    facts = {"a": {"os": "Microsoft Windows Server 2019 (64-bit)"},
             "b": {"os": "Microsoft Windows Server 2003 (32-bit)"},
             "c": {"os": "Plan 9"}, "d": {}}
    w = os_assumed_warning(facts, ["a", "b", "c", "d"], "vsphere-8")
    assert w is not None and w["count"] == 2  # Plan 9 is unknown, d has no OS
    assert w["code"] == "readiness_os_support_assumed" and w["message"].endswith(": a, b")
    doc = plan_waves(hand_plan(), OPTS)
    assert [x["count"] for x in doc["warnings"]
            if x["code"] == "readiness_os_support_assumed"] == [6]


def test_waves_bad_output_formats_are_one_line_each_before_any_work(tmp_path):
    """The report commands share one output check (vsizer.cli.common.check_outputs):
    every unknown -o format named at once, before the plan is read."""
    (tmp_path / "missing.json").write_text("not json", encoding="utf-8")
    r = runner.invoke(app, ["waves", str(tmp_path / "missing.json"), "--bandwidth",
                            "1Gbit/s", "--window", "8h", "-o", str(tmp_path / "w.pdf"), "-o",
                            str(tmp_path / "w.txt")])
    assert r.exit_code == 2
    assert "w.pdf: unsupported output format '.pdf'; use .html, .json or .xlsx." in r.output
    assert "w.txt: unsupported output format '.txt'; use .html, .json or .xlsx." in r.output
    assert "not json" not in r.output and "JSON" not in r.output  # the plan was not read


def test_old_snapshots_are_unknown_when_the_source_lists_none(tmp_path: Path) -> None:
    """A source with no snapshot list (RVTools without its vSnapshot tab: the
    real NEXT workshop export) gives old snapshots as not checked, not as 0, in
    the hygiene (JSON count None) and every report line."""
    from vsizer.reporting._migration_labels import MIGRATION_LABELS as LABELS
    from vsizer.reporting._migration_report import _hygiene_line
    from vsizer.reporting.waves_report import _snapshots
    from vsizer.study.readiness import hygiene

    facts = {"a": {"power": "on", "snapshots": None, "oldest_snapshot": None,
                   "snapshot_gib": None},
             "b": {"power": "off", "snapshots": None}}
    h = hygiene(facts, "2025-01-11", None, [])
    assert (h["old_snapshots"]["count"], h["old_snapshots"]["snapshot_gib"]) == (None, None)
    assert h["old_snapshots"]["note"] == (
        "the source lists no snapshots (RVTools: no vSnapshot tab): not checked")
    assert _snapshots(h["old_snapshots"]) == (
        "old snapshots not checked (the source lists no snapshots)")
    line = _hygiene_line({"hygiene": h}, lambda k, **kw: LABELS[k]["en"].format(**kw))
    assert "? VMs with snapshots older than 3 days (? GiB)" in line
    # one VM listed with no snapshot: the list is there, none is old
    facts["a"]["snapshots"] = 0
    assert hygiene(facts, "2025-01-11", None, [])["old_snapshots"]["count"] == 0

    real = (Path(__file__).parent / "data" / "real" / "rvtools"
            / "rvtools-3x-npoi_nutanix-workshop-next.xlsx")
    plan = tmp_path / "plan.json"
    r = runner.invoke(app, ["plan", str(real), "-q", "-o", str(plan)])
    assert r.exit_code == 0, r.output
    mig = json.loads(plan.read_text())["migration"]
    old = mig["hygiene"]["old_snapshots"]
    assert old["count"] is None and old["vms"] == []
    assert [w["message"] for w in mig["warnings"]
            if w["code"] == "hygiene_snapshots_not_checked"] == [
        "old snapshots: the source lists no snapshots (RVTools: no vSnapshot tab): "
        "not checked"]
