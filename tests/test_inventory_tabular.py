"""Server-list tables: CSV and XLSX, Japanese and English (vsizer.inventory.tabular)."""

from __future__ import annotations

import re
from pathlib import Path

import openpyxl
import pandas as pd
import pytest

from vsizer.errors import InventoryError
from vsizer.inventory import VARIABLE_MAP, read_table
from vsizer.inventory.model import COLUMNS

DATA = Path(__file__).parent / "data" / "inventory"
GIB = 2**30


def _row(inv, name):
    s = inv.servers.set_index("name").loc[name]
    return {k: (None if pd.isna(v) else v) for k, v in s.items()}


def _write_csv(tmp_path: Path, text: str, name: str = "bad.csv") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


# --- English contract names -------------------------------------------------


def test_english_csv_values():
    inv = read_table(DATA / "table_en.csv")
    assert inv.source_format == "table"
    assert list(inv.servers.columns) == list(COLUMNS)
    assert list(inv.servers["name"]) == ["web01", "web02", "db01", "dev01"]
    web01 = _row(inv, "web01")
    assert web01["vcpus"] == 32  # 2 sockets x 16 cores
    assert web01["cpu_avg_util"] == pytest.approx(0.20)
    assert web01["cpu_peak_util"] == pytest.approx(0.60)
    assert web01["mem_gib"] == 64.0
    assert web01["disk_gib"] == 500.0  # 'disk_gib' is already GiB
    assert web01["cpu_score_per_core"] == 5.0
    assert web01["cpu_score_basis"] == "unstated"
    assert web01["net_mbps"] == 120.0
    assert web01["redundant_with"] == "web02"
    assert _row(inv, "web02")["power_w"] is None
    assert _row(inv, "dev01")["pool"] == "dev"
    assert inv.excluded.to_dict("records") == [
        {"name": "old01", "reason": "migrate = no (row 5)"}
    ]


def test_english_quality_statuses():
    q = read_table(DATA / "table_en.csv").quality
    assert q.status("web01", "mem_gib") == "given"
    assert q.status("web01", "vcpus") == "derived"
    assert q.status("web01", "cpu_score_basis") == "assumed"
    assert q.status("dev01", "mem_used_gib") == "missing"
    assert q.status("dev01", "power_w") == "missing"


# --- Japanese headers, title row, units --------------------------------------


def _check_japanese(inv):
    assert list(inv.servers["name"]) == ["srv01", "srv02", "srv03"]
    assert inv.metadata["header_row"] == 2
    srv01 = _row(inv, "srv01")
    assert srv01["mem_gib"] == 2.0  # 2048 MB = 2 GiB
    assert srv01["disk_gib"] == pytest.approx(0.146e12 / GIB)  # 0.146 TB decimal
    assert srv01["net_mbps"] == pytest.approx(100.0)  # 0.1 Gbps
    assert srv01["cpu_mhz"] == 3000.0  # from 'Xeon 3.0GHz'
    assert srv01["cpu_score_per_core"] == 1429.0
    assert srv01["cpu_score_basis"] == "SPECint2000"
    assert srv01["cpu_avg_util"] == pytest.approx(0.20)
    assert (srv01["group"], srv01["pool"], srv01["rank"]) == ("販売", "本番", "A")
    srv02 = _row(inv, "srv02")
    assert srv02["cpu_avg_util"] == pytest.approx(0.45)  # '４５％'
    assert srv02["cpu_peak_util"] == pytest.approx(0.45)  # 30 < 45: set to avg
    assert srv02["redundant_with"] == "srv01"  # made mutual
    assert _row(inv, "srv03")["mem_gib"] == 1.0  # '1,024' MB
    assert _row(inv, "srv03")["cpu_mhz"] is None  # 'Xeon 5160' has no clock
    assert inv.excluded.to_dict("records") == [
        {"name": "srv04", "reason": "migrate = 対象外 (row 6)"}
    ]
    q = inv.quality
    assert q.status("srv01", "cpu_mhz") == "derived"
    assert q.status("srv02", "cpu_peak_util") == "assumed"
    assert q.status("srv02", "redundant_with") == "derived"
    assert q.status("srv01", "pool") == "given"
    assert q.status("srv02", "cpu_avg_util") == "given"  # '４５％' in a (%) column
    assert any("peak 30 % below average 45 %" in n for n in q.notes)
    assert any("srv02: column 'CPU性能 (CPU数×コア数×SPEC CPU)' = 3000" in n
               for n in q.notes)
    assert any("'合計' is a total" in n for n in q.notes)
    assert inv.metadata["unmapped"] == ["備考"]
    assert set(inv.metadata["ignored_derived"]) == {
        "CPU性能 (CPU数×コア数×SPEC CPU)", "CPU性能×CPU平均"
    }
    assert inv.metadata["columns"]["メモリ(MB)"] == "mem_gib"


def test_japanese_csv_utf8_bom():
    inv = read_table(DATA / "table_ja.csv")
    assert inv.metadata["encoding"] == "utf-8-sig"
    _check_japanese(inv)


def test_japanese_csv_cp932(tmp_path):
    text = (DATA / "table_ja.csv").read_text(encoding="utf-8-sig")
    p = tmp_path / "table_ja_sjis.csv"
    p.write_bytes(text.encode("cp932"))
    inv = read_table(p)
    assert inv.metadata["encoding"] == "cp932"
    _check_japanese(inv)


def test_tab_separated(tmp_path):
    text = (DATA / "table_en.csv").read_text(encoding="utf-8").replace(",", "\t")
    p = _write_csv(tmp_path, text, "servers.tsv")
    inv = read_table(p)
    assert inv.metadata["delimiter"] == "\t"
    assert len(inv) == 4


def _csv_to_xlsx(src: Path, dest: Path, *, cover: bool = False) -> Path:
    import csv

    wb = openpyxl.Workbook()
    ws = wb.active
    if cover:
        ws.title = "表紙"
        ws["B3"] = "サーバ移行計画"
        ws = wb.create_sheet("サーバ一覧")
    else:
        ws.title = "Servers"
    with src.open(encoding="utf-8-sig", newline="") as f:
        for record in csv.reader(f):
            row = []
            for v in record:
                try:
                    row.append(int(v) if v.isdigit() else float(v))
                except ValueError:
                    row.append(v if v != "" else None)
            ws.append(row)
    wb.save(dest)
    return dest


def test_japanese_xlsx_with_cover_sheet(tmp_path):
    p = _csv_to_xlsx(DATA / "table_ja.csv", tmp_path / "servers.xlsx", cover=True)
    inv = read_table(p)
    assert inv.metadata["sheet"] == "サーバ一覧"
    _check_japanese(inv)


def test_english_xlsx_matches_csv(tmp_path):
    p = _csv_to_xlsx(DATA / "table_en.csv", tmp_path / "servers.xlsx")
    xlsx, csv_ = read_table(p), read_table(DATA / "table_en.csv")
    pd.testing.assert_frame_equal(xlsx.servers, csv_.servers)
    pd.testing.assert_frame_equal(xlsx.excluded, csv_.excluded)


def test_xlsx_percent_formatted_cells_and_sheet_argument(tmp_path):
    wb = openpyxl.Workbook()
    wb.active.title = "Other"
    ws = wb.create_sheet("List")
    ws.append(["サーバ名", "vCPU数", "メモリ", "CPU 平均使用率(%)", "CPU 最高使用率"])
    ws.append(["a1", 4, 16, 0.25, 0.5])
    ws["D2"].number_format = "0%"  # Excel stores 25 % as 0.25
    ws["E2"].number_format = "0.0%"
    ws.append(["a2", 2, "8GB", 30, 0.6])
    ws["E3"].number_format = "0%"
    p = tmp_path / "pct.xlsx"
    wb.save(p)
    inv = read_table(p, sheet="List")
    a1, a2 = _row(inv, "a1"), _row(inv, "a2")
    assert (a1["cpu_avg_util"], a1["cpu_peak_util"]) == (0.25, 0.5)
    assert (a2["cpu_avg_util"], a2["cpu_peak_util"]) == (pytest.approx(0.30), 0.6)
    assert (a1["vcpus"], a1["mem_gib"], a2["mem_gib"]) == (4, 16.0, 8.0)
    assert inv.quality.status("a1", "pool") == "assumed"
    assert inv.quality.status("a1", "group") == "assumed"
    assert (a1["pool"], a1["group"]) == ("default", "default")


def test_unitless_utilization_at_most_one_is_a_fraction(tmp_path):
    p = _write_csv(tmp_path, "name,vcpus,mem_gib,CPU平均\nx,2,4,0.25\ny,2,4,0.5\n")
    inv = read_table(p)
    assert list(inv.servers["cpu_avg_util"]) == [0.25, 0.5]
    (w,) = [w for w in inv.quality.warnings if w.code == "percent_as_fraction"]
    assert w.message == (
        "bad.csv: column 'CPU平均' has no unit and every value is at most 1 "
        "(largest 0.5): read as fractions, 0.6 = 60 %; write 60 for 60 % if the "
        "file means per cent"
    )
    p = _write_csv(tmp_path, "name,vcpus,mem_gib,CPU平均\nx,2,4,0.5\ny,2,4,25\n")
    assert list(read_table(p).servers["cpu_avg_util"]) == [0.005, 0.25]


def test_unitless_memory_of_1024_or_more_is_mb(tmp_path):
    p = _write_csv(tmp_path, "name,vcpus,メモリ\nx,2,2048\ny,2,16384\n")
    inv = read_table(p)
    assert list(inv.servers["mem_gib"]) == [2.0, 16.0]
    assert [w.code for w in inv.quality.warnings] == ["memory_unit_from_values"]


def test_memory_used_as_percentage_is_derived(tmp_path):
    p = _write_csv(tmp_path, "name,vcpus,mem_gib,メモリ使用率(%)\nx,2,16,25\n")
    inv = read_table(p)
    assert _row(inv, "x")["mem_used_gib"] == 4.0
    assert inv.quality.status("x", "mem_used_gib") == "derived"


def test_clock_column_and_english_units(tmp_path):
    p = _write_csv(
        tmp_path,
        "Server,CPU clock,vCPUs,Memory [GiB],Disk (GB),Network (MB/s),Power (kW)\n"
        "x,3.2,4,12,300,12.5,0.4\n"
        "y,2.4GHz,4,512 MiB,1TB,1Gbps,350W\n",
    )
    x, y = (_row(read_table(p), n) for n in "xy")
    assert (x["cpu_mhz"], y["cpu_mhz"]) == (3200.0, 2400.0)
    assert (x["mem_gib"], y["mem_gib"]) == (12.0, 0.5)
    assert x["disk_gib"] == pytest.approx(300e9 / GIB)
    assert y["disk_gib"] == pytest.approx(1e12 / GIB)
    assert (x["net_mbps"], y["net_mbps"]) == (100.0, 1000.0)
    assert (x["power_w"], y["power_w"]) == (400.0, 350.0)
    q = read_table(p).quality
    assert q.status("x", "mem_gib") == "given"
    assert q.entries["y"]["mem_gib"] == ("derived", "unit in the cell: '512 MiB'")
    assert q.status("y", "net_mbps") == "derived"


def test_rows_without_name_or_mapped_values_are_skipped(tmp_path):
    p = _write_csv(
        tmp_path, "name,vcpus,mem_gib,備考\nx,2,4,\n,,,2024年3月時点の値\n※ 概算,,,\n"
    )
    inv = read_table(p)
    assert list(inv.servers["name"]) == ["x"]
    assert inv.quality.notes[:2] == [
        "row 3: no server name and no mapped value, skipped",
        "row 4: '※ 概算' is a total or a note, skipped",
    ]


# --- errors ------------------------------------------------------------------


def test_missing_required_columns_each_named(tmp_path):
    p = _write_csv(tmp_path, "model,CPU名\nR640,Xeon\n")
    with pytest.raises(InventoryError) as exc:
        read_table(p)
    assert exc.value.problems == [
        "bad.csv: no column for 'name'; accepted headers: "
        + ", ".join(VARIABLE_MAP["name"]),
        "bad.csv: no column for 'mem_gib'; accepted headers: "
        + ", ".join(VARIABLE_MAP["mem_gib"]),
        "bad.csv: no column for 'sockets' (needed unless 'vcpus' is given); "
        "accepted headers: " + ", ".join(VARIABLE_MAP["sockets"]),
        "bad.csv: no column for 'cores_per_socket' (needed unless 'vcpus' is given); "
        "accepted headers: " + ", ".join(VARIABLE_MAP["cores_per_socket"]),
        "bad.csv: row 1 was taken as the header (it has the most recognized headers "
        "(2) among the first 10 non-empty rows); found there: 'model', 'CPU名'",
    ]


def test_missing_name_column_message(tmp_path):
    p = _write_csv(tmp_path, "model,vcpus,mem_gib\nR640,2,4\n")
    with pytest.raises(
        InventoryError,
        match=re.escape("bad.csv: no column for 'name'; accepted headers: name, "
                        "server name, server, hostname"),
    ):
        read_table(p)


BAD_ROWS = (
    "サーバ名,CPU数,コア数/CPU,CPU 平均使用率(%),CPU 最高使用率(%),"
    "メモリ(GB),冗長相手,移行\n"
    "a,two,4,10,20,16,,対象\n"
    "b,1,4,120,130,16,,対象\n"
    "c,1,4,10,20,-4,,対象\n"
    "a,1,4,10,20,16,,対象\n"
    "d,1,4,10,20,16,a;zz,対象\n"
    "e,1,,10,20,,,対象\n"
    "f,1,4,10,20,16,,maybe\n"
)
BAD_LINES = [
    "bad.csv row 2, column 'CPU数': expected a positive whole number, got 'two'.",
    "bad.csv row 3, column 'CPU 平均使用率(%)': expected a percentage in [0, 100], "
    "got '120'.",
    "bad.csv row 3, column 'CPU 最高使用率(%)': expected a percentage in [0, 100], "
    "got '130'.",
    "bad.csv row 4, column 'メモリ(GB)': expected a positive memory size such as 16, "
    "'16GB' or '512 MiB', got '-4'.",
    "bad.csv row 5, column 'サーバ名': expected a name not already used on row 2, "
    "got 'a'.",
    "bad.csv row 6, column '冗長相手': expected names of other servers in the list, "
    "separated by ';' ('zz' is not), got 'a;zz'.",
    "bad.csv row 7, column 'コア数/CPU': expected a positive whole number, got ''.",
    "bad.csv row 8, column '移行': expected yes or no (yes/no, true/false, 1/0, ○/×, "
    "はい/いいえ, 対象/対象外), got 'maybe'.",
]


def test_all_row_problems_reported_together(tmp_path):
    p = _write_csv(tmp_path, BAD_ROWS)
    with pytest.raises(InventoryError) as exc:
        read_table(p)
    assert exc.value.problems == BAD_LINES
    assert str(exc.value) == "\n".join(BAD_LINES)


@pytest.mark.parametrize("line", BAD_LINES)
def test_each_row_problem_message(tmp_path, line):
    p = _write_csv(tmp_path, BAD_ROWS)
    with pytest.raises(InventoryError, match=re.escape(line)):
        read_table(p)


def test_xlsx_problems_name_the_sheet(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Servers"
    ws.append(["サーバ一覧"])
    ws.append(["サーバ名", "CPU数", "コア数/CPU", "メモリ(GB)"])
    ws.append(["a", "two", 4, 16])
    p = tmp_path / "bad.xlsx"
    wb.save(p)
    with pytest.raises(
        InventoryError,
        match=re.escape("bad.xlsx sheet 'Servers' row 3, column 'CPU数': expected a "
                        "positive whole number, got 'two'."),
    ):
        read_table(p)


def test_negative_optional_value(tmp_path):
    p = _write_csv(tmp_path, "name,vcpus,mem_gib,disk_iops\nx,2,4,-1\n")
    with pytest.raises(
        InventoryError,
        match=re.escape("bad.csv row 2, column 'disk_iops': expected a non-negative "
                        "number, got '-1'."),
    ):
        read_table(p)


def test_fraction_column_out_of_range(tmp_path):
    p = _write_csv(tmp_path, "name,vcpus,mem_gib,cpu_avg_util\nx,2,4,45\n")
    with pytest.raises(
        InventoryError,
        match=re.escape("bad.csv row 2, column 'cpu_avg_util': expected a fraction in "
                        "[0, 1], got '45'."),
    ):
        read_table(p)


def test_redundant_with_itself(tmp_path):
    p = _write_csv(tmp_path, "name,vcpus,mem_gib,pair\nx,2,4,x\n")
    with pytest.raises(InventoryError, match=re.escape("('x' is not), got 'x'.")):
        read_table(p)


def test_redundant_with_excluded_server_is_dropped(tmp_path):
    p = _write_csv(
        tmp_path, "name,vcpus,mem_gib,pair,migrate\nx,2,4,y,yes\ny,2,4,x,no\n"
    )
    inv = read_table(p)
    assert _row(inv, "x")["redundant_with"] is None
    assert any("y not migrated" in n for n in inv.quality.notes)


def test_empty_optional_cells_are_missing_not_errors(tmp_path):
    p = _write_csv(tmp_path, "name,vcpus,mem_gib,power_w,cpu_avg_pct\nx,2,4,,-\n")
    x = _row(read_table(p), "x")
    assert x["power_w"] is None and x["cpu_avg_util"] is None


def test_file_errors(tmp_path):
    with pytest.raises(InventoryError, match=r"^nope\.csv: file not found: "):
        read_table(tmp_path / "nope.csv")
    p = tmp_path / "servers.json"
    p.write_text("{}")
    with pytest.raises(
        InventoryError,
        match=re.escape("servers.json: unsupported file type '.json'; expected .csv "
                        "or .xlsx"),
    ):
        read_table(p)
    q = _write_csv(tmp_path, "name,vcpus,mem_gib\nx,1,1\n")
    with pytest.raises(InventoryError, match="sheet='A' given for a CSV file"):
        read_table(q, sheet="A")
    e = _write_csv(tmp_path, "", "empty.csv")
    with pytest.raises(InventoryError, match=r"^empty\.csv: no data$"):
        read_table(e)


def test_undecodable_csv(tmp_path):
    p = tmp_path / "bin.csv"
    p.write_bytes(b"name,mem\n\x82\xff\xfe,1\n")
    with pytest.raises(InventoryError, match="cannot decode the file"):
        read_table(p)


def test_xlsx_sheet_errors(tmp_path):
    wb = openpyxl.Workbook()
    wb.active.title = "Memo"
    wb.active["A1"] = "nothing here"
    p = tmp_path / "memo.xlsx"
    wb.save(p)
    with pytest.raises(
        InventoryError,
        match=re.escape("memo.xlsx: no sheet has a recognizable header row in its "
                        "first 10 rows (sheets: Memo)"),
    ) as exc:
        read_table(p)
    assert exc.value.problems[1] == (
        "memo.xlsx sheet 'Memo': row 1 was taken as the header (no row among the "
        "first 10 non-empty rows has a recognized header); found there: "
        "'nothing here'"
    )
    with pytest.raises(
        InventoryError,
        match=re.escape("memo.xlsx: no sheet named 'List'; sheets: 'Memo'"),
    ):
        read_table(p, sheet="List")
    broken = tmp_path / "broken.xlsx"
    broken.write_text("not a zip")
    with pytest.raises(InventoryError, match="broken.xlsx: cannot open as an Excel"):
        read_table(broken)


def test_a_unit_after_an_underscore_is_a_unit(tmp_path):
    """Issue 27: ``memory_gib`` was not a header (``mem_gib`` and ``Memory GiB`` were);
    a unit after ``_`` or ``-`` is now read as after a space."""
    p = tmp_path / "u.csv"
    p.write_text("name,sockets,cores_per_socket,cpu_clock_mhz,memory_gib,ram_mb,"
                 "disk_size_gb\ns1,2,8,2400,64,65536,500\n", encoding="utf-8")
    inv = read_table(p)
    row = inv.servers.iloc[0]
    assert (row["cpu_mhz"], row["mem_gib"]) == (2400.0, 64.0)
    assert round(row["disk_gib"], 2) == 465.66  # disk GB are decimal: 500e9 / 2**30
    # memory_gib and ram_mb are one field, equal after conversion: a note, not an error
    assert any("ram_mb" in n and "memory_gib" in n for n in inv.quality.notes), inv.quality.notes
