"""The table reader's column-by-column conversion (issue 25) gives what the row
reader gives: the same values, quality entries in the same order, the same notes
and warnings; a bad cell hands the file to the row reader, whose messages are
unchanged."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from unittest import mock

import pandas as pd
import pytest

from vsizer.errors import InventoryError
from vsizer.inventory import _columns, read_table, tabular

CSV = """\
サーバ名,CPUソケット数,コア数,CPUクロック,メモリ(MB),メモリ使用量,ディスク(GB),CPU平均(%),CPU最大(%),消費電力,冗長相手,プール
web01,2,8,2.4,32768,50%,"1.2TB",12,45,350W,web02,A
web02,2,8,2.4,32768,16GB,500,0.0,40,350,web01,A
db01,1,16,3.0GHz,64GB,,N/A,-0,80,,なし,B
db02,1,16,3000,65536,40%,300,15,85,0.4kW,,B
app01,1,4,2.4,8192,n/a,300,7.5,30,200,,
app02,1,4,2.4,8192,4096MB,300,7.5,30,200,,
"""


def _read(path: Path, columns: bool) -> Any:
    if columns:
        return read_table(path)
    with mock.patch.object(tabular, "convert_columns", lambda *a: False):
        return read_table(path)


def test_column_reader_gives_the_row_readers_inventory(tmp_path: Path) -> None:
    path = tmp_path / "servers.csv"
    path.write_text(CSV, encoding="utf-8")
    calls = []
    real = _columns.convert_columns

    def spy(*args: Any) -> bool:
        calls.append(real(*args))
        return calls[-1]

    with mock.patch.object(tabular, "convert_columns", spy):
        fast = read_table(path)
    assert calls == [True]  # the column reader read this file
    slow = _read(path, columns=False)
    pd.testing.assert_frame_equal(fast.servers, slow.servers)
    assert list(fast.quality.entries.items()) == list(slow.quality.entries.items())
    for name in fast.quality.entries:  # field order within each server too
        assert list(fast.quality.entries[name]) == list(slow.quality.entries[name])
    assert fast.quality.notes == slow.quality.notes
    assert fast.quality.warnings == slow.quality.warnings
    assert fast.metadata == slow.metadata
    web01 = fast.servers.set_index("name").loc["web01"]
    assert web01["mem_gib"] == 32.0 and web01["mem_used_gib"] == 16.0
    assert web01["cpu_mhz"] == 2400.0 and web01["power_w"] == 350.0
    assert fast.servers.set_index("name").loc["db02", "power_w"] == 400.0
    assert fast.quality.entries["db01"]["cpu_mhz"] == ("derived", "unit in the cell: '3.0GHz'")


def test_bad_cells_are_reported_by_the_row_reader(tmp_path: Path) -> None:
    path = tmp_path / "servers.csv"
    bad = CSV.replace("web02,2,8,2.4,32768", "web02,two,8,2.4,32768").replace(
        "db02,1,16,3000,65536,40%", "db02,1,16,3000,65536,140%")
    path.write_text(bad, encoding="utf-8")
    with pytest.raises(InventoryError) as exc:
        read_table(path)
    lines = str(exc.value).splitlines()
    assert lines[0] == (
        "servers.csv row 3, column 'CPUソケット数': expected a positive whole number, "
        "got 'two'.")
    assert lines[-1] == (
        "servers.csv row 5, column 'メモリ使用量': expected a non-negative memory size "
        "such as 8, '8GB' or '40%', got '140%'.")
    with pytest.raises(InventoryError) as slow:
        _read(path, columns=False)
    assert str(slow.value) == str(exc.value)
