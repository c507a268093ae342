"""Degenerate inputs and the non-limit traceback reproducers of issue 12:
no servers, every server excluded, all-zero utilization, absurd --failures,
inf Unix times, damaged xlsx members, cut-short UTF-16."""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

import openpyxl
import pandas as pd
import pytest

from vsizer.cli import common as _cli_common
from vsizer.cli import main
from vsizer.errors import InventoryError
from vsizer.inventory.degenerate import exclusion_summary, require_servers
from vsizer.inventory.model import Inventory, empty_frame
from vsizer.quality import QualityReport

from .rvtools_fixture import write_old_layout
from .xlsx_helpers import rewrite_sheet

HEADER = "name,sockets,cores_per_socket,cpu_mhz,cpu_peak_pct,mem_gib"


@pytest.fixture(autouse=True)
def _plain_terminal(monkeypatch):
    monkeypatch.setitem(_cli_common.DEBUG, "on", False)
    monkeypatch.setenv("COLUMNS", "250")


def _run(argv: list[str], capsys) -> tuple[int, str]:
    with pytest.raises(SystemExit) as info:
        main(argv)
    return int(info.value.code or 0), capsys.readouterr().err


def _csv(tmp_path: Path, name: str, text: str) -> str:
    p = tmp_path / name
    p.write_text(text)
    return str(p)


# --- no servers ---------------------------------------------------------------


def test_header_only_inventory_is_an_error(tmp_path, capsys):
    f = _csv(tmp_path, "h.csv", HEADER + "\n")
    code, err = _run(["plan", f, "-o", str(tmp_path / "h.json")], capsys)
    assert code == 2
    assert err == "error: no servers to plan in h.csv (header only)\n"
    assert not (tmp_path / "h.json").exists()


def test_rows_without_servers_are_named(tmp_path, capsys):
    f = _csv(tmp_path, "t.csv", HEADER + "\n合計,,,,,16\n")
    code, err = _run(["plan", f, "-q"], capsys)
    assert code == 2
    assert err == "error: no servers to plan in t.csv (1 row, not a server)\n"


def test_every_server_excluded_is_an_error(tmp_path, capsys):
    f = _csv(
        tmp_path, "x.csv",
        HEADER + ",migrate\ns1,2,4,2400,40,8,no\ns2,2,4,2400,40,8,対象外\n"
        "s3,2,4,2400,40,8,no\n",
    )
    code, err = _run(["plan", f, "-q"], capsys)
    assert code == 2
    assert err == (
        "error: x.csv: all 3 servers are excluded: 2 migrate = no, 1 migrate = 対象外; "
        "nothing to plan\n"
    )


def test_rvtools_every_vm_powered_off_names_the_flag(tmp_path, capsys):
    p = write_old_layout(tmp_path / "rv.xlsx")
    wb = openpyxl.load_workbook(p)
    ws = wb["vInfo"]
    col = [c.value for c in ws[1]].index("Powerstate") + 1
    for row in range(2, ws.max_row + 1):
        ws.cell(row, col).value = "poweredOff"
    wb.save(p)
    code, err = _run(["plan", str(p), "-q"], capsys)
    assert code == 2
    assert err == (
        "error: rv.xlsx: all 12 servers are excluded: 11 powered off, 1 template; "
        "nothing to plan (--include-powered-off plans powered-off VMs)\n"
    )


def test_exclusion_summary_counts_reasons_without_rows():
    assert exclusion_summary(
        ["migrate = no (row 3)", "powered off", "powered off", "template",
         "migrate = no (row 9)", "powered off"]
    ) == "3 powered off, 2 migrate = no, 1 template"


def test_require_servers_single_excluded_server():
    inv = Inventory(
        servers=empty_frame(),
        excluded=pd.DataFrame({"name": ["a"], "reason": ["migrate = no (row 2)"]}),
        quality=QualityReport(),
        source="dir/one.csv",
        source_format="table",
    )
    with pytest.raises(
        InventoryError,
        match=r"^one\.csv: the only server is excluded: 1 migrate = no; "
        r"nothing to plan$",
    ):
        require_servers(inv)


# --- all-zero utilization -----------------------------------------------------------


def test_all_zero_utilization_plans_with_a_warning(tmp_path, capsys):
    f = _csv(
        tmp_path, "z.csv",
        "name,sockets,cores_per_socket,cpu_mhz,cpu_peak_pct,cpu_avg_pct,mem_gib\n"
        "s1,2,4,2400,0,0,8\ns2,2,4,2400,0,0,8\n",
    )
    out = tmp_path / "z.json"
    code, _ = _run(["plan", f, "-q", "-o", str(out)], capsys)
    assert code == 0
    doc = json.loads(out.read_text())
    assert doc["summary"]["servers"] == 2
    assert {
        "code": "zero_utilization",
        "message": "every server's CPU utilization is 0 %: the CPU dimension sizes "
        "nothing and the plan rests on memory and vCPUs alone; check the "
        "utilization columns (or give utilization series with --series).",
        "servers": [],
    } in doc["warnings"]


def test_some_zero_utilization_does_not_warn(tmp_path, capsys):
    f = _csv(
        tmp_path, "z.csv", HEADER + "\ns1,2,4,2400,0,8\ns2,2,4,2400,30,8\n",
    )
    out = tmp_path / "z.json"
    code, _ = _run(["plan", f, "-q", "-o", str(out)], capsys)
    assert code == 0
    codes = [w["code"] for w in json.loads(out.read_text())["warnings"]]
    assert "zero_utilization" not in codes


# --- absurd failures ------------------------------------------------------------------


@pytest.mark.parametrize(
    "flag, value, message",
    [
        ("--failures", "1000000000000000000",
         "The 'failures' parameter of plan (--failures, [sizing] failures) must be an int in the range [0, 1000]. "
         "Got 1000000000000000000 instead."),
        ("--min-hosts", "100000000000000000",
         "The 'min_hosts' parameter of plan (--min-hosts, [sizing] min_hosts) must be an int in the range [1, 100000]. "
         "Got 100000000000000000 instead."),
    ],
)
def test_absurd_host_counts_are_config_errors(tmp_path, capsys, flag, value, message):
    f = _csv(tmp_path, "s.csv", HEADER + "\ns1,2,4,2400,40,8\n")
    code, err = _run(["plan", f, "-q", flag, value], capsys)
    assert code == 2
    assert err == f"error: {message}\n"


# --- traceback reproducers --------------------------------------------------------------


def test_inf_unix_time_is_one_line(tmp_path, capsys):
    f = _csv(tmp_path, "b.csv", "epoch,web01\ninf,10\n")
    store = str(tmp_path / "s")
    code, err = _run(
        ["import", f, "--format", "wide", "--metric", "cpu_util", "--store", store],
        capsys,
    )
    assert code == 2
    assert err == (
        "error: b.csv line 2, column 'epoch': expected an ISO 8601 time such as "
        "2024-05-01T10:00:00Z or Unix seconds/milliseconds, got 'inf'.\n"
    )


def test_unix_time_beyond_int64_is_a_bad_cell(tmp_path, capsys):
    f = _csv(tmp_path, "b.csv", "epoch,web01\n1e300,10\n1700000000,20\n")
    store = str(tmp_path / "s")
    code, err = _run(
        ["import", f, "--format", "wide", "--metric", "cpu_util", "--store", store],
        capsys,
    )
    assert code == 2
    assert err == (
        "error: b.csv line 2, column 'epoch': expected an ISO 8601 time such as "
        "2024-05-01T10:00:00Z or Unix seconds/milliseconds, got '1e300'.\n"
    )


def _xlsx(tmp_path: Path) -> Path:
    p = tmp_path / "good.xlsx"
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "servers"
    ws.append(HEADER.split(","))
    for i in range(200):
        ws.append([f"s{i}", 2, 4, 2400, 40, 8])
    wb.save(p)
    return p


_DAMAGED = re.compile(
    r"error: (?P<file>[\w.]+): the workbook is damaged \(sheet 'servers': "
    r"(?P<why>[^\n]+)\); open it in Excel and save it again\.\n"
)


@pytest.mark.parametrize(
    "name, change, why",
    [
        ("xml.xlsx", lambda d: d[: len(d) // 2] + b"<<&&" + d[len(d) // 2 :],
         r"ParseError: not well-formed \(invalid token\): line \d+, column \d+"),
        ("cut.xlsx", lambda d: d[: len(d) * 2 // 3],
         r"ParseError: (no element found|unclosed token): line \d+, column \d+"),
    ],
)
def test_damaged_sheet_xml_is_one_line(tmp_path, capsys, name, change, why):
    p = rewrite_sheet(_xlsx(tmp_path), tmp_path / name, change)
    code, err = _run(["plan", str(p), "-q"], capsys)
    assert code == 2
    m = _DAMAGED.fullmatch(err)
    assert m is not None, err
    assert m["file"] == name
    assert re.fullmatch(why, m["why"]), m["why"]


def test_bad_crc_in_a_sheet_member_is_one_line(tmp_path, capsys):
    p = rewrite_sheet(_xlsx(tmp_path), tmp_path / "crc.xlsx", lambda d: d,
                 zipfile.ZIP_STORED)
    data = bytearray(p.read_bytes())
    at = data.index(b"<v>2400</v>")  # a stored member: change a digit, keep the CRC
    data[at + 3] = ord("3")
    p.write_bytes(bytes(data))
    code, err = _run(["plan", str(p), "-q"], capsys)
    assert code == 2
    # The limits' byte scan of the sheet (vsizer.limits) meets the damage first.
    assert err.rstrip("\n") == (
        "error: crc.xlsx sheet 'servers': cannot read the sheet, the workbook is "
        "damaged (Bad CRC-32 for file 'xl/worksheets/sheet1.xml'); open it in Excel "
        "and save it again."
    )


@pytest.mark.parametrize("command", ["plan", "import"])
def test_utf16_with_an_odd_byte_count_is_one_line(tmp_path, capsys, command):
    text = f"{HEADER}\ns1,2,4,2400,40,8\n" if command == "plan" else (
        "epoch,web01\n1700000000,10\n"
    )
    data = text.encode("utf-16") + b"x"
    p = tmp_path / "u16.csv"
    p.write_bytes(data)
    argv = ["plan", str(p), "-q"] if command == "plan" else [
        "import", str(p), "--format", "wide", "--metric", "cpu_util",
        "--store", str(tmp_path / "s"),
    ]
    code, err = _run(argv, capsys)
    assert code == 2
    assert err == (
        "error: u16.csv: cannot decode the file as UTF-16, which its byte-order "
        f"mark announces: truncated data at byte {len(data) - 1:,}, an odd number "
        f"of bytes ({len(data):,}); the file is damaged or cut short: save it again "
        "(as UTF-8 or UTF-16).\n"
    )


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--vm-mem-gib", "1e400"],
         "The 'vm_mem_gib' parameter of plan (--vm-mem-gib, [series] vm_mem_gib) must be a float in the range "
         "(0, 65536]. Got inf instead."),
        (["--vm-mem-gib", "8", "--vm-cpu-mhz", "1e20"],
         "The 'vm_cpu_mhz' parameter of plan (--vm-cpu-mhz, [series] vm_cpu_mhz) must be a float in the range "
         "(0, 10000]. Got 1e+20 instead."),
        (["--vm-mem-gib", "8", "--price-kwh", "inf"],
         "The 'price_kwh' parameter of plan (--price-kwh, [power] price_kwh) must be a float in the range "
         "[0, inf). Got inf instead."),
    ],
)
def test_infinite_or_absurd_sizes_on_the_command_line(tmp_path, capsys, flags, message):
    # an infinite --vm-mem-gib used to plan the VM with inf GiB, exit 0
    f = _csv(tmp_path, "m.csv", HEADER + "\ns1,2,4,2400,40,\n")
    code, err = _run(["plan", f, "-q", *flags], capsys)
    assert code == 2
    assert err == f"error: {message}\n"
