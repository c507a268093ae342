"""Two-row headers: a group row (merged cells) above the field row.

Spreadsheet server lists often group columns under a merged cell: ``CPU`` over
``CPU名 / CPU数 / コア数/CPU / 平均(%) / 最高(%)``, ``メモリ`` over
``容量(GB) / 使用量(GB)``, with one-level headers (``サーバ名``) merged down both
rows. In XLSX a merged cell holds its value in its first cell only (the others
read as empty); a CSV saved from it has the value then blanks.
"""

from __future__ import annotations

import re
from pathlib import Path

import openpyxl
import pandas as pd
import pytest

from vsizer.errors import InventoryError
from vsizer.inventory import read_inventory, read_table
from vsizer.inventory.headers import combine_header_rows

GROUP = ["サーバ名", "CPU", None, None, None, None, "メモリ", None, "移行対象"]
SUB = [None, "CPU名", "CPU数", "コア数/CPU", "平均(%)", "最高(%)", "容量(GB)",
       "使用量(GB)", None]
ROWS = [
    ["srv01", "Xeon E5-2630 v3", 2, 8, 20, 45, 64, 32, "○"],
    ["srv02", "Xeon 3.0GHz", 1, 4, 10, 30, 16, 4, "○"],
    ["srv03", "Xeon 5160", 2, 2, 5, 10, 8, 2, "対象外"],
]


def _xlsx(path: Path) -> Path:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "サーバ一覧"
    ws.append(["サーバ一覧（2024年度）"])  # a title row above the header
    ws.append(GROUP)
    ws.append(SUB)
    for r in ROWS:
        ws.append(r)
    for cells in ("A1:I1", "A2:A3", "B2:F2", "G2:H2", "I2:I3"):
        ws.merge_cells(cells)
    wb.save(path)
    return path


def _row(inv, name):
    s = inv.servers.set_index("name").loc[name]
    return {k: (None if pd.isna(v) else v) for k, v in s.items()}


def _check(inv):
    assert list(inv.servers["name"]) == ["srv01", "srv02"]
    assert (inv.metadata["group_row"], inv.metadata["header_row"]) == (2, 3)
    assert inv.metadata["columns"] == {
        "サーバ名": "name", "CPU名": "cpu_name", "CPU数": "sockets",
        "コア数/CPU": "cores_per_socket", "CPU 平均(%)": "cpu_avg_util",
        "CPU 最高(%)": "cpu_peak_util", "メモリ 容量(GB)": "mem_gib",
        "メモリ 使用量(GB)": "mem_used_gib", "移行対象": "migrate",
    }
    srv01 = _row(inv, "srv01")
    assert srv01["cpu_name"] == "Xeon E5-2630 v3"
    assert (srv01["sockets"], srv01["cores_per_socket"], srv01["vcpus"]) == (2, 8, 16)
    assert srv01["cpu_avg_util"] == pytest.approx(0.20)
    assert srv01["cpu_peak_util"] == pytest.approx(0.45)
    assert (srv01["mem_gib"], srv01["mem_used_gib"]) == (64.0, 32.0)
    srv02 = _row(inv, "srv02")
    assert srv02["cpu_mhz"] == 3000.0  # from 'Xeon 3.0GHz'
    assert (srv02["mem_gib"], srv02["mem_used_gib"]) == (16.0, 4.0)
    assert srv02["cpu_peak_util"] == pytest.approx(0.30)
    assert inv.excluded.to_dict("records") == [
        {"name": "srv03", "reason": "migrate = 対象外 (row 6)"}
    ]


def test_two_row_header_xlsx_with_merged_cells(tmp_path):
    path = _xlsx(tmp_path / "servers.xlsx")
    ws = openpyxl.load_workbook(path).active
    assert len(ws.merged_cells.ranges) == 5  # real merged cells
    _check(read_table(path))
    _check(read_inventory(path))


def test_two_row_header_csv(tmp_path):
    def line(cells):
        return ",".join("" if c is None else str(c) for c in cells)

    path = tmp_path / "servers.csv"
    path.write_text(
        "\n".join(["サーバ一覧（2024年度）" + "," * 8, line(GROUP), line(SUB)]
                  + [line(r) for r in ROWS]) + "\n",
        encoding="utf-8",
    )
    _check(read_table(path))


def test_combine_rules():
    # the sub-header alone when known; group + sub when that is known; a unit
    # on the group moves to the end, or the sub goes in brackets; a blank sub
    # takes its own group cell only; an unknown pair keeps the sub-header.
    assert combine_header_rows(
        ["CPU使用率(%)", None, "ディスク", None, "備考", None, "CPU"],
        ["平均", "最大", "容量(TB)", "IOPS", None, None, "世代"],
    ) == ["CPU使用率 平均(%)", "CPU使用率(最大)(%)", "ディスク 容量(TB)", "IOPS",
          "備考", None, "世代"]


def test_one_row_header_is_kept_when_the_row_above_adds_nothing(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("メモリ一覧,,\nサーバ名,vCPU数,容量(GB)\na,2,4\n", encoding="utf-8")
    with pytest.raises(InventoryError) as exc:
        read_table(path)
    assert exc.value.problems[-1] == (
        "t.csv: row 2 was taken as the header (it has the most recognized headers "
        "(2) among the first 10 non-empty rows); found there: 'サーバ名', "
        "'vCPU数', '容量(GB)'"
    )


def test_error_names_the_two_header_rows(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("サーバ名,メモリ,\n,容量(GB),備考\na,4,x\n", encoding="utf-8")
    with pytest.raises(InventoryError) as exc:
        read_table(path)
    assert exc.value.problems[-1] == (
        "t.csv: rows 1-2 were taken as a two-row header (group row above the field "
        "row) (it has the most recognized headers (2) among the first 10 non-empty "
        "rows); found there: 'サーバ名', 'メモリ 容量(GB)', '備考'"
    )


def test_error_when_nothing_is_recognized(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("Foo,Bar\nx,y\n", encoding="utf-8")
    with pytest.raises(InventoryError, match=re.escape(
        "t.csv: row 1 was taken as the header (no row among the first 10 non-empty "
        "rows has a recognized header); found there: 'Foo', 'Bar'"
    )):
        read_table(path)
