"""The fast path of whole-sheet reads (vsizer/inventory/_xlsx_values.py): the
values calamine reads are the ones openpyxl reads, cell for cell and type for
type, and a sheet calamine would read differently falls back to openpyxl."""

from __future__ import annotations

import datetime as dt
import re
import zipfile
from pathlib import Path
from unittest import mock

import openpyxl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from vsizer.errors import InventoryError
from vsizer.inventory import _xlsx_values as xv
from vsizer.inventory import read_inventory
from vsizer.inventory._choices import xlsx_grid
from vsizer.inventory._io import PercentValue, iter_sheet, open_workbook
from vsizer.limits import at_least

from .xlsx_helpers import rewrite_sheet

REAL = Path(__file__).parent / "data" / "real"
pytest.importorskip("python_calamine")


def _typed(rows):
    """Rows with each value's type, trailing empty cells dropped (openpyxl keeps
    a styled empty cell at a row's end; both readers' rows mean the same)."""
    out = []
    for number, values in rows:
        values = list(values)
        while values and values[-1] is None:
            values.pop()
        out.append((number, [(type(v).__name__, v) for v in values]))
    return out


def _both(path: Path, sheet: str) -> tuple[list, list, bool]:
    wb = open_workbook(path)
    try:
        ws = wb[sheet]
        slow = _typed(iter_sheet(ws))
        fast_used = xv.sheet_values(ws) is not None
        fast = _typed(iter_sheet(ws, whole=True))
    finally:
        wb.close()
    return slow, fast, fast_used


def _every_kind(path: Path) -> Path:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "servers"
    ws.append(["name", "cpus", "ghz", "peak", "since", "at", "time", "on", "blank",
               "span", "big", "peak2"])
    ws.append(["a", 4, 2.5, 0.45, dt.date(2024, 1, 2), dt.datetime(2024, 1, 2, 3, 4),
               dt.time(3, 4, 5), True, "", dt.timedelta(hours=30), 12345678901234,
               0.5])
    ws["D2"].number_format = "0%"
    ws["L2"].number_format = '0.0" %"'
    ws["J2"].number_format = "[h]:mm:ss"
    ws["B4"] = 7
    ws["C4"].number_format = "0.00%"  # a styled empty cell ends the row
    ws.append([])
    ws.append(["b", "8", "x", 30])  # text where numbers go; 30 in General
    hidden = wb.create_sheet("lists")
    hidden.sheet_state = "hidden"
    hidden["B3"] = "yes"
    wb.save(path)
    return path


def test_every_kind_of_cell_reads_the_same(tmp_path: Path) -> None:
    path = _every_kind(tmp_path / "kinds.xlsx")
    slow, fast, used = _both(path, "servers")
    assert used and fast == slow
    row = dict(fast)[2]
    assert row[3] == ("PercentValue", 0.45) and row[11] == ("PercentValue", 0.5)
    assert row[4] == ("datetime", dt.datetime(2024, 1, 2))  # a date at midnight
    assert row[1] == ("int", 4) and row[8] == ("NoneType", None)
    assert _both(path, "lists")[:2] == ([(3, [("NoneType", None), ("str", "yes")])],) * 2


def test_error_cells_are_their_text_as_openpyxl_reads_them(tmp_path: Path) -> None:
    def errors(data: bytes) -> bytes:
        return data.replace(
            b'<c r="B6" t="inlineStr"><is><t>8</t></is></c>',
            b'<c r="B6" t="e"><f>1/0</f><v>#DIV/0!</v></c>',
        ).replace(b"</row></sheetData>",
                  b'</row><row r="9"><c r="A9" t="e"><v>#N/A</v></c></row></sheetData>')

    src = _every_kind(tmp_path / "kinds.xlsx")
    path = rewrite_sheet(src, tmp_path / "errors.xlsx", errors)
    slow, fast, used = _both(path, "servers")
    assert used and fast == slow
    assert dict(fast)[6][1] == ("str", "#DIV/0!")
    assert dict(fast)[9] == [("str", "#N/A")]


@pytest.mark.parametrize("chunk", [7, 64, 1 << 24])
def test_the_scan_finds_the_same_cells_whatever_its_chunk(tmp_path, chunk) -> None:
    path = _every_kind(tmp_path / "kinds.xlsx")
    with mock.patch.object(xv, "_CHUNK", chunk):
        slow, fast, used = _both(path, "servers")
    assert used and fast == slow


@pytest.mark.parametrize(
    "why, change",
    [
        # calamine reads past this and drops cell C2 (it gives it as empty)
        ("not well-formed", lambda d: d.replace(b'<c r="C2"', b'<<&&<c r="C2"', 1)),
        ("a style past the styles part",
         lambda d: d.replace(b'<c r="B2"', b'<c r="B2" s="4000"', 1)),
        ("a percent cell with no reference",
         lambda d: re.sub(rb'<c r="D2"( s="\d+")', rb"<c\1", d, count=1)),
    ],
)
def test_a_sheet_calamine_reads_otherwise_falls_back_to_openpyxl(
    tmp_path: Path, why: str, change
) -> None:
    src = _every_kind(tmp_path / "kinds.xlsx")
    path = rewrite_sheet(src, tmp_path / "odd.xlsx", change)
    wb = open_workbook(path)
    try:
        assert xv.sheet_values(wb["servers"]) is None, why
    finally:
        wb.close()


def test_a_damaged_sheet_is_still_one_line_of_openpyxl(tmp_path: Path) -> None:
    src = _every_kind(tmp_path / "kinds.xlsx")
    path = rewrite_sheet(src, tmp_path / "odd.xlsx",
                          lambda d: d.replace(b'<c r="C2"', b'<<&&<c r="C2"', 1))
    with pytest.raises(InventoryError, match=r"^odd\.xlsx: the workbook is damaged "
                       r"\(sheet 'servers': ParseError: not well-formed"):
        read_inventory(path)


def test_without_calamine_openpyxl_reads_the_same_inventory(tmp_path: Path) -> None:
    path = REAL / "rvtools" / "rvtools-4.7.1.4_kylow_RVTOOLEX.xlsx"
    fast = read_inventory(path)
    with mock.patch.dict("sys.modules", {"python_calamine": None}):
        slow = read_inventory(path)
    assert len(fast.servers) == len(slow.servers) > 0
    assert fast.servers.equals(slow.servers)
    assert fast.quality.to_dict() == slow.quality.to_dict()


@pytest.mark.parametrize(
    "path", sorted(p for p in REAL.glob("*/*.xlsx") if p.parent.name != "quirks"),
    ids=lambda p: p.name,
)
def test_real_workbooks_read_the_same_by_both(path: Path) -> None:
    wb = open_workbook(path)  # one workbook for every sheet, as the readers do
    mended = getattr(wb, "vsizer_repair", None)
    try:
        for name in wb.sheetnames:
            ws = wb[name]
            slow = _typed(iter_sheet(ws))
            used = xv.sheet_values(ws) is not None
            kept = getattr(wb, "vsizer_formats_kept", False)
            assert used == (not mended or kept), name  # formats lost: openpyxl alone
            assert _typed(iter_sheet(ws, whole=True)) == slow, name
    finally:
        wb.close()


@given(st.integers(0, 5000), st.integers(0, 100_000))
def test_at_least_matches_the_whole_numbers_from_n(n: int, k: int) -> None:
    assert (re.fullmatch(at_least(n), str(k).encode()) is not None) == (k >= n)


def test_percent_styles_follow_openpyxls_rule(tmp_path: Path) -> None:
    wb = open_workbook(_every_kind(tmp_path / "kinds.xlsx"))
    try:
        ids = xv._percent_styles(wb)
        shown = {i: PercentValue for i in ids}
        formats = [openpyxl.styles.numbers.BUILTIN_FORMATS.get(s.numFmtId)
                   or wb._number_formats[s.numFmtId - 164]
                   for s in wb._cell_styles]
    finally:
        wb.close()
    assert sorted(int(i) for i in shown) == [
        i for i, f in enumerate(formats) if "%" in f
    ]
    assert len(ids) == 3  # 0%, 0.0" %", 0.00%


@pytest.mark.parametrize("how", [b' s = "', b"\n s='"])
def test_a_percent_style_written_otherwise_is_found_too(tmp_path: Path, how) -> None:
    """White space around "=" or single quotes (well-formed XML; no writer
    seen does it): the tag by tag scan finds the percent cells."""
    def spaced(data: bytes) -> bytes:
        out = re.sub(rb' s="(\d+)"', lambda m: how + m.group(1) + how[-1:], data)
        assert out != data
        return out

    path = rewrite_sheet(_every_kind(tmp_path / "k.xlsx"), tmp_path / "s.xlsx", spaced)
    slow, fast, used = _both(path, "servers")
    assert used and fast == slow
    assert dict(fast)[2][3] == ("PercentValue", 0.45)


def test_japanese_shared_strings_with_phonetic_runs_read_as_their_text(tmp_path) -> None:
    """Japanese Excel keeps each text's reading (furigana, ``<rPh>``) in the
    shared strings, and rich text as runs: both readers give the text alone."""
    src = tmp_path / "a.xlsx"
    wb = openpyxl.Workbook()
    wb.active.title = "servers"
    wb.active.append(["サーバ名", "CPU数"])
    wb.active.append(["東京", 4])
    wb.save(src)
    sst = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><sst xmlns="http://'
        'schemas.openxmlformats.org/spreadsheetml/2006/main" count="2" uniqueCount="2">'
        '<si><t>サーバ名</t><rPh sb="0" eb="4"><t>サーバメイ</t></rPh>'
        '<phoneticPr fontId="1"/></si><si><r><t>東</t></r><r><rPr><b/></rPr><t>京</t>'
        '</r><rPh sb="0" eb="2"><t>トウキョウ</t></rPh></si></sst>'
    )
    shared = {
        "xl/worksheets/sheet1.xml": lambda d: d.decode().replace(
            't="inlineStr"><is><t>サーバ名</t></is>', 't="s"><v>0</v>').replace(
            't="inlineStr"><is><t>東京</t></is>', 't="s"><v>1</v>').encode(),
        "[Content_Types].xml": lambda d: d.replace(b"</Types>", (
            b'<Override PartName="/xl/sharedStrings.xml" ContentType="application/'
            b'vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>'
            b"</Types>")),
        "xl/_rels/workbook.xml.rels": lambda d: d.replace(b"</Relationships>", (
            b'<Relationship Id="rId99" Type="http://schemas.openxmlformats.org/'
            b'officeDocument/2006/relationships/sharedStrings" '
            b'Target="sharedStrings.xml"/></Relationships>')),
    }
    path = tmp_path / "ja.xlsx"
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(path, "w") as zout:
        for name in zin.namelist():
            zout.writestr(name, shared.get(name, lambda d: d)(zin.read(name)))
        zout.writestr("xl/sharedStrings.xml", sst)
    slow, fast, used = _both(path, "servers")
    assert used and fast == slow
    assert fast == [(1, [("str", "サーバ名"), ("str", "CPU数")]),
                    (2, [("str", "東京"), ("int", 4)])]


QUIRKS = REAL / "quirks"


def test_real_quirks_an_element_openpyxl_refuses_is_read_by_calamine() -> None:
    path = QUIRKS / "closedxml_lo_formats.xlsx"
    with pytest.raises(InventoryError, match=r"^closedxml_lo_formats\.xlsx: no sheet "
                       r"has a recognizable header row in its first 10 rows \(sheets: "
                       r"Sheet1, Sheet2, Sheet3, Sheet4\)"):
        read_inventory(path)  # read to its end: refused for its content
    refused = pytest.raises(
        InventoryError, match=r"^closedxml_lo_formats\.xlsx: sheet 'Sheet3' holds an "
        r"element this reader cannot read \(ValueError: Value must be one of")
    with mock.patch.dict("sys.modules", {"python_calamine": None}), refused:
        read_inventory(path)


@pytest.mark.parametrize("name, message", [
    ("exceldatareader_Fillreport.xlsx",
     r"exceldatareader_Fillreport\.xlsx: sheet 'Fill report' holds an element this "
     r"reader cannot read \(ValueError: '' is not a valid column name\. Column names "
     r"are from A to ZZZ\), written by another spreadsheet program; open it in Excel "
     r"\(or LibreOffice\) and save it again as \.xlsx\."),
    ("sheetjs_xlsx-stream-d-date-cell.xlsx",
     r"sheetjs_xlsx-stream-d-date-cell\.xlsx: cannot open as an Excel workbook "
     r"\(\.xlsx\): list index out of range"),
])
def test_real_quirks_openpyxl_errors_are_one_line(name, message, capsys) -> None:
    with pytest.raises(InventoryError) as err:
        read_inventory(QUIRKS / name)
    assert re.fullmatch(message, str(err.value)), str(err.value)
    assert capsys.readouterr().out == ""  # openpyxl prints "0 is out of range"


def _with_chart(path: Path, first: bool) -> Path:
    from openpyxl.chart import BarChart, Reference

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "servers"
    ws.append(["name", "vcpus", "mem_gib"])
    ws.append(["a", 2, 4])
    ws.append(["b", 4, 8])
    chart = wb.create_chartsheet("chart")
    bars = BarChart()
    bars.add_data(Reference(ws, min_col=2, min_row=1, max_row=3), titles_from_data=True)
    chart.add_chart(bars)
    if first:
        wb.move_sheet("chart", offset=-1)
    wb.save(path)
    return path


@pytest.mark.parametrize("first", [True, False])
def test_a_chart_sheet_is_passed_over(tmp_path: Path, first: bool) -> None:
    """A chart sheet (a tab that is one chart) holds no cells: the server list is
    read from the worksheet, before or after it (a chart sheet first refused the
    whole workbook)."""
    path = _with_chart(tmp_path / "c.xlsx", first)
    inv = read_inventory(path)
    assert list(inv.servers["name"]) == ["a", "b"]
    assert list(inv.servers["vcpus"]) == [2, 4]
    _, meta, sheet = xlsx_grid(path, None)
    assert (sheet, meta["hidden_sheets"]) == ("servers", [])  # a chart is not hidden


def test_a_chart_sheet_named_by_sheet_is_one_line(tmp_path: Path) -> None:
    path = _with_chart(tmp_path / "c.xlsx", True)
    with pytest.raises(InventoryError, match=r"^c\.xlsx: sheet 'chart' is a chart "
                       r"sheet, it holds no table; sheets: 'chart' \(chart\), "
                       r"'servers'$"):
        read_inventory(path, sheet="chart")


def test_a_mended_workbook_keeps_its_file_for_calamine_and_messages() -> None:
    """A workbook whose styles openpyxl could not read is opened from memory;
    it still names its file, so calamine reads its sheets (formats kept) and a
    message names the file, not "the workbook"."""
    from vsizer.inventory._io import _workbook_file

    path = REAL / "tables" / "getconfig_softmaker_server_check_sheet.xlsx"
    wb = open_workbook(path)
    try:
        assert wb.vsizer_repair and wb.vsizer_formats_kept
        ws = wb[wb.sheetnames[0]]
        assert _workbook_file(ws) == path.name
        assert xv.sheet_values(ws) is not None
    finally:
        wb.close()


def test_the_style_pattern_needs_white_space_before_the_attribute():
    """The literal-start pattern of the sheet scan finds what the pattern starting
    with the white-space class found: an ``s`` attribute after white space only."""
    old = re.compile(rb"[ \t\r\n]s=[\"'](?:1|5)[\"']")
    new = xv._style_attr(xv._WRITTEN, b"1|5")
    text = (b'<row r="1" spans="1:5" s="5"><c r="A1" s="1"/><c r="B1"\ts=\'5\'/>'
            b'<c r="C1" xs="1"/><c r="D1"s="1"/><c r="E1" s="15"/><c r="F1"\ns="5">'
            b'<v>1</v></c></row>')
    assert [m.start() + 1 for m in old.finditer(text)] == [
        m.start() for m in new.finditer(text)]
    assert len(new.findall(text)) == 4
