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


def _cell_by_cell(
    f: str, header: str, column: list[Any], unit: str | None, base: list[Any] | None
) -> Any:
    """The reference: every cell read on its own, a used size with its row's size
    (what _read_column read before it read each distinct cell once)."""
    from vsizer.inventory._cells import _Bad, _convert_cell, _display
    from vsizer.units import is_blank

    by_row = f in _columns._ROW_FIELDS
    cells, results = [], []
    for k, raw in enumerate(column):
        text = raw if type(raw) is str else _display(raw)
        if is_blank(raw):
            cells.append((header, text))
            results.append(_columns._BLANK)
            continue
        row = {_columns._ROW_FIELDS[f]: base[k]} if by_row and base is not None else {}
        try:
            results.append(_convert_cell(f, raw, unit, row))
        except _Bad:
            return None
        cells.append((header, text))
    return cells, results


def _assert_handed_out(got: Any) -> None:
    """A column's values and quality pairs are its readings': the value (None:
    blank), the shared pair of a reading without a note (None: with one)."""
    cells, results, values, pairs = got
    assert len(cells) == len(results) == len(values) == len(pairs)
    for r, v, p in zip(results, values, pairs, strict=True):
        if r is _columns._BLANK:
            assert v is None and p is _columns._SKIP
        else:
            assert v is r[0]
            assert p is (None if r[2] else _columns._PAIRS.get(r[1]))


# A sheet's column mixes numbers and texts: 16 and '16' are read apart, every
# distinct (type, cell) once (issue 25: a 200,000-server workbook).
MIXED = [32768, "16GB", 32768, None, "32768", 65536.5, float("nan"), "n/a",
         "16GB", 32768, "", 8192]
NAN = float("nan")


@pytest.mark.parametrize("f,unit,column,readable", [
    ("mem_gib", "MB", MIXED, True),
    ("disk_gib", None, MIXED + [0, 0.0, -0.0, 4.5], True),
    ("cpu_peak_util", "%", [45, "45", 45.5, NAN, "30%", None, 45, "N/A", 100], True),
    ("cpu_mhz", None, [2400, "2.4GHz", 2400, "2400", NAN, None, 3000.5], True),
    ("mem_gib", "MB", MIXED + [True], False),
    ("cpu_peak_util", "%", [45, 145], False),
])
def test_a_mixed_column_is_read_as_cell_by_cell(
    f: str, unit: str | None, column: list[Any], readable: bool
) -> None:
    got = _columns._read_column(f, "h", column, unit, None)
    want = _cell_by_cell(f, "h", column, unit, None)
    assert (want is not None) == readable
    if not readable:  # a cell of this field cannot be read: neither reader reads it
        assert got is None
        return
    assert got is not None and want is not None
    assert got[:2] == want
    _assert_handed_out(got)


def test_a_mixed_column_keeps_numbers_and_texts_apart() -> None:
    got = _columns._read_column("mem_gib", "メモリ(MB)", MIXED[:6], "MB", None)
    assert got is not None
    cells, results, _, _ = got
    assert [c[1] for c in cells] == ["32768", "16GB", "32768", "", "32768", "65536.5"]
    assert results[0] == (32.0, "given", "") and results[2] is results[0]
    assert results[1] == (16.0, "derived", "unit in the cell: '16GB'")
    assert results[3] is _columns._BLANK
    assert results[4] == (32.0, "given", "") and results[4] is not results[0]


def test_a_float_zero_is_read_apart_from_minus_zero() -> None:
    got = _columns._read_column("cpu_avg_util", "avg", [0.0, -0.0, 5, 0.0], "%", None)
    assert got is not None
    values = [r[0] for r in got[1]]
    assert values == [0.0, -0.0, 0.05, 0.0]
    assert [str(v) for v in values] == ["0.0", "-0.0", "0.05", "0.0"]


def test_used_sizes_are_read_once_per_cell_and_size() -> None:
    column = ["50%", "50%", "4GB", "50%", None]
    base = [32.0, 32.0, 32.0, 64.0, 64.0]
    got = _columns._read_column("mem_used_gib", "used", column, None, base)
    assert got is not None
    assert [r if r is _columns._BLANK else r[0] for r in got[1]] == [
        16.0, 16.0, 4.0, 32.0, _columns._BLANK]
    assert got[1][1] is got[1][0]  # the same cell and size: one reading


def test_bare_numbers_skip_units_and_excel_percentages() -> None:
    from vsizer.inventory._build import ServerRecord
    from vsizer.inventory._choices import _bare_numbers
    from vsizer.inventory._io import PercentValue

    cells = [[1024], ["2048"], ["4GB"], [None], [PercentValue(0.5)], [1024], ["x"],
             [float("nan")], []]
    recs = [ServerRecord(name=f"s{k}", row=k + 2) for k in range(len(cells))]
    by_row = {k + 2: c for k, c in enumerate(cells)}
    assert _bare_numbers(recs, by_row, 0) == [1024.0, 2048.0, 1024.0]


def test_a_workbook_read_by_columns_gives_the_row_readers_inventory(
    tmp_path: Path,
) -> None:
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["name", "cpus", "memory (MB)", "memory used", "disk (GB)", "cpu peak (%)"])
    rows = [["a", 4, 32768, "50%", 300, 45], ["b", "4", "16GB", 8192, "1.2TB", 0.5],
            ["c", 8, 32768, "50%", 300, 45], ["d", 2, 8192, None, "N/A", "30%"],
            ["e", 2, 8192, 4096, 300, 0]]
    for r in rows:
        ws.append(r)
    ws["F3"].number_format = "0%"  # b's peak: an Excel percentage, 50 %
    path = tmp_path / "servers.xlsx"
    wb.save(path)
    fast, slow = _read(path, columns=True), _read(path, columns=False)
    pd.testing.assert_frame_equal(fast.servers, slow.servers)
    assert list(fast.quality.entries.items()) == list(slow.quality.entries.items())
    assert fast.quality.warnings == slow.quality.warnings
    by = fast.servers.set_index("name")
    assert by.loc["b", "mem_gib"] == 16.0 and by.loc["b", "cpu_peak_util"] == 0.5
    assert by.loc["a", "mem_used_gib"] == 16.0 and by.loc["e", "cpu_peak_util"] == 0.0


def test_cell_keys_keep_types_and_the_sign_of_zero_apart() -> None:
    from vsizer.inventory._cell_keys import cell_keys

    nan = float("nan")
    keys = cell_keys([16, "16", 16.0, True, 1, 0.0, -0.0, 0, nan, nan, float("nan")])
    assert len(dict.fromkeys(keys)) == 10  # 16 == 16.0 and True == 1, yet apart
    assert keys[5] != keys[6] and keys[5][2] == 1.0 and keys[6][2] == -1.0
    assert keys[7] == (int, 0) and keys[8] == keys[9]  # the same NaN object
    assert cell_keys(["a", None, "a"]) == [(str, "a"), (type(None), None), (str, "a")]


@pytest.mark.parametrize("f", ["mem_used_gib", "disk_used_gib"])
def test_used_sizes_are_read_as_cell_by_cell(f: str) -> None:
    column = ["50%", "50%", 8, "8", "4GB", None, "n/a", 0.0, -0.0, "25 %", 50, "50%"]
    base = [32.0, 64.0, 32.0, 32.0, 0.0, 32, -0.0, 16.0, 16.0, 40.0, 100.0, 0.0]
    plain = [c for c in column if not (isinstance(c, str) and "%" in c)]
    for cells, sizes in ((column, base), (plain, None)):
        got = _columns._read_column(f, "h", cells, None, sizes)
        want = _cell_by_cell(f, "h", cells, None, sizes)
        assert got is not None and want is not None
        assert got[:2] == want
        _assert_handed_out(got)
        assert [str(r[0]) for r in got[1] if r is not _columns._BLANK] == [
            str(r[0]) for r in want[1] if r is not _columns._BLANK]


def test_each_distinct_calls_once_per_distinct_cell() -> None:
    from vsizer.inventory._cell_keys import column_of, each_distinct

    column = column_of([["a", 16], ["b", "16"], ["c"], ["d", 16], ["e", -0.0], ["f", 0.0]], 1)
    assert column == [16, "16", None, 16, -0.0, 0.0]
    seen: list[Any] = []

    def fn(cell: Any) -> str:
        seen.append(cell)
        return repr(cell)

    assert each_distinct(column, fn) == ["16", "'16'", "None", "16", "-0.0", "0.0"]
    assert seen == [16, "16", None, -0.0, 0.0]
