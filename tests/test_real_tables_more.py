"""Server lists from other producers (tests/data/real/tables/, see its README.md).

Issue 23, second round: a workbook saved by SoftMaker Office (getconfig's
Japanese server check sheet) made every command end in an internal error, and
a server list whose headers look like the Azure Migrate template had its
``Memory (GB)`` read as MB. Figures are the files' own cells.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import openpyxl
import pytest
from openpyxl.worksheet.datavalidation import DataValidation

from vsizer.cli import main
from vsizer.errors import InventoryError
from vsizer.inventory import detect_format, read_inventory

pytestmark = pytest.mark.slow

REAL = Path(__file__).parent / "data" / "real" / "tables"
CHECK_SHEET = REAL / "getconfig_softmaker_server_check_sheet.xlsx"


def _codes(inv):
    return {w.code: w for w in inv.quality.warnings}


def test_softmaker_workbook_is_read_not_an_internal_error(capsys):
    # defect: openpyxl refuses SoftMaker's styles part (<extLst> in a fill:
    # "PatternFill.__init__() got an unexpected keyword argument 'extLst'") and
    # its data validations (view="0"): every command was an internal error
    assert detect_format(CHECK_SHEET) == "table"
    with pytest.raises(InventoryError) as info:
        read_inventory(CHECK_SHEET)
    lines = str(info.value).splitlines()
    # the report template '検査レポート' has CPU数, CPUコア数, MEM容量, and rows
    # of field mappings, not servers: each cell is one line naming it
    assert lines[0] == (
        "getconfig_softmaker_server_check_sheet.xlsx sheet '検査レポート' row 3, "
        "column 'CPU数': expected a positive whole number, got 'CPU数'.")
    assert all(x.startswith("getconfig_softmaker_server_check_sheet.xlsx sheet "
                            "'検査レポート'") for x in lines)
    assert not any("TypeError" in x or "internal error" in x for x in lines)
    with pytest.raises(SystemExit):
        main(["plan", str(CHECK_SHEET), "-q"])
    err = capsys.readouterr().err
    assert "internal error" not in err and "UserWarning" not in err


def _softmaker_book(path: Path) -> Path:
    """A two-server list saved as SoftMaker does: the real styles part of the
    getconfig check sheet, a drop-down with ``view="0"`` and an smNativeData
    extension block in the sheet."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "サーバ一覧"
    ws.append(["ホスト名", "CPU数", "コア数/CPU", "MEM容量(GB)", "CPUクロック数", "用途"])
    ws.append(["sv-db01", 2, 12, 256, 2600, "本番"])
    ws.append(["sv-ap01", 1, 8, 64, 2100, "開発"])
    dv = DataValidation(type="list", formula1='"本番,開発"')
    dv.add("F2:F3")
    ws.add_data_validation(dv)
    plain = path.with_suffix(".plain.xlsx")
    wb.save(plain)
    with zipfile.ZipFile(CHECK_SHEET) as z:
        styles = z.read("xl/styles.xml")
    with zipfile.ZipFile(plain) as zin, zipfile.ZipFile(path, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info)
            if info.filename == "xl/styles.xml":
                data = styles
            elif info.filename == "xl/worksheets/sheet1.xml":
                text = data.decode("utf-8").replace("<dataValidation ",
                                                    '<dataValidation view="0" ')
                ext = ('<extLst><ext uri="smNativeData"><pm:pageFlags '
                       'xmlns:pm="smNativeData" id="1"/></ext></extLst>')
                data = re.sub(r"</worksheet>$", ext + "</worksheet>", text).encode()
            zout.writestr(info, data)
    return path


def test_softmaker_styles_are_mended_and_stated(tmp_path):
    inv = read_inventory(_softmaker_book(tmp_path / "list.xlsx"))
    got = inv.servers.set_index("name")[
        ["sockets", "cores_per_socket", "mem_gib", "cpu_mhz"]].to_dict("index")
    assert got == {
        "sv-db01": {"sockets": 2, "cores_per_socket": 12, "mem_gib": 256.0,
                    "cpu_mhz": 2600.0},
        "sv-ap01": {"sockets": 1, "cores_per_socket": 8, "mem_gib": 64.0,
                    "cpu_mhz": 2100.0},
    }
    w = _codes(inv)["xlsx_styles_repaired"]
    assert w.message == (
        "list.xlsx: its styles part could not be read (TypeError: "
        "PatternFill.__init__() got an unexpected keyword argument 'extLst'); the "
        "workbook was read without its extension blocks (<extLst>); values and "
        "number formats kept (its data validations and extension blocks not read)")


def test_a_list_with_server_name_and_cores_keeps_its_memory_unit(tmp_path):
    # defect: 'Server name' and 'Cores' make a list read as the Azure Migrate
    # template, whose memory is in MB: 'Memory (GB)' 64 became 0.0625 GiB
    path = tmp_path / "servers.csv"
    path.write_text("Server name,Cores,Memory (GB),Disk 1 size (TB)\n"
                    "sv01,16,64,2\n", encoding="utf-8")
    assert detect_format(path) == "azure_migrate"
    inv = read_inventory(path)
    s = inv.servers.set_index("name").loc["sv01"]
    assert (s["vcpus"], s["mem_gib"]) == (16, 64.0)
    assert s["disk_gib"] == pytest.approx(2e12 / 2**30)
    assert _codes(inv)["azure_migrate_header_unit"].message == (
        "servers.csv: column(s) 'Memory (GB)' [GB], 'Disk 1 size (TB)' [TB] read in "
        "the unit their header states, not the template's (memory MB, disks and "
        "storage in use GB)")


def test_japanese_memory_and_clock_headers(tmp_path):
    # getconfig's own list writes メモリ量 and CPUクロック数; server ledgers MEM容量
    path = tmp_path / "台帳.csv"
    path.write_text("サーバ名,CPU数,コア数/CPU,メモリ量,CPUクロック数\n"
                    "ostrich,1,4,16,2400\n", encoding="utf-8")
    s = read_inventory(path).servers.set_index("name").loc["ostrich"]
    assert (s["sockets"], s["cores_per_socket"], s["mem_gib"], s["cpu_mhz"]) == (
        1, 4, 16.0, 2400.0)


def test_total_core_count_with_sockets_gives_cores_per_socket(tmp_path):
    # ledgers write CPU数 (sockets) and コア数 (the server's cores): was refused
    # ("no column for 'cores_per_socket'")
    path = tmp_path / "台帳.csv"
    path.write_text("ホスト名,CPU数,コア数,MEM容量(GB)\nsv01,2,16,64\nsv02,1,20,128\n",
                    encoding="utf-8")
    inv = read_inventory(path)
    got = inv.servers.set_index("name")[["sockets", "cores_per_socket"]].to_dict("index")
    assert got == {"sv01": {"sockets": 2, "cores_per_socket": 8},
                   "sv02": {"sockets": 1, "cores_per_socket": 20}}
    assert _codes(inv)["total_cores_column"].message == (
        "台帳.csv: column 'コア数' is each server's total cores: cores per socket = "
        "'コア数' / 'CPU数'")


def test_total_core_count_not_divisible_is_one_line(tmp_path):
    path = tmp_path / "list.csv"
    path.write_text("Server,Sockets,Total cores,RAM (GB)\nsv03,3,20,32\n",
                    encoding="utf-8")
    with pytest.raises(InventoryError) as info:
        read_inventory(path)
    assert str(info.value) == ("list.csv row 2, column 'Total cores / Sockets': "
                               "expected a positive whole number, got '20/3'.")


def test_total_core_count_without_sockets_is_the_vcpu_count(tmp_path):
    path = tmp_path / "vms.csv"
    path.write_text("Server,Cores,RAM (GB)\nweb1,8,16\n", encoding="utf-8")
    inv = read_inventory(path)
    assert inv.servers.set_index("name").loc["web1", "vcpus"] == 8
    assert "read as vcpus, there being no sockets" in (
        _codes(inv)["total_cores_column"].message)


def test_azure_migrate_storage_allocated_is_the_provisioned_size(tmp_path):
    # A header the portal accepted ("4 rows processed"), as published in a
    # Portuguese lab write-up: '*Storage allocated (In MB)' was "not in the
    # template, not read", so the provisioned size fell back to the used one
    path = tmp_path / "contoso-vms.csv"
    path.write_text(
        "*Server name,IP addresses,*Cores,*Memory (In MB),*OS name,OS version,"
        "OS architecture,Server type,Hypervisor,CPU utilization percentage,"
        "Memory utilization percentage,Storage in use (In MB),"
        "*Storage allocated (In MB)\n"
        "contoso-fs01,192.168.10.20,2,2048,Windows Server 2022,10.0.20348,x64,"
        "Virtual,Hyper-V,5,15,81920,163840\n", encoding="utf-8")
    inv = read_inventory(path)
    s = inv.servers.set_index("name").loc["contoso-fs01"]
    assert s["disk_gib"] == pytest.approx(163840e6 / 2**30)
    assert s["disk_used_gib"] == pytest.approx(81920e6 / 2**30)
    codes = _codes(inv)
    assert "azure_migrate_header_unit" not in codes  # MB is a template spelling
    assert "Storage allocated" not in codes["azure_migrate_columns_ignored"].message


def test_aws_application_discovery_import_template(tmp_path):
    # No filled-in file was found; the header is AWS's documented import template
    # (application-discovery userguide, discovery-import): it was refused whole
    # ("no column for 'mem_gib'", sockets, cores per socket)
    path = tmp_path / "import_template.csv"
    path.write_text(
        "ExternalId,HostName,OS.Name,CPU.NumberOfProcessors,CPU.NumberOfCores,"
        "CPU.NumberOfLogicalCores,RAM.TotalSizeInMB,CPU.UsagePct.Avg,CPU.UsagePct.Max\n"
        "INV-4711,payments-db-01,Linux,2,16,32,64128,23.9,55.3\n", encoding="utf-8")
    s = read_inventory(path).servers.set_index("name").loc["payments-db-01"]
    assert (s["sockets"], s["cores_per_socket"]) == (2, 8)  # 16 cores / 2 CPUs
    assert s["mem_gib"] == pytest.approx(64128 / 1024)  # MB read as MiB
    assert (s["cpu_avg_util"], s["cpu_peak_util"]) == (pytest.approx(0.239),
                                                       pytest.approx(0.553))
