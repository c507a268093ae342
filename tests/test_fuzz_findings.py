"""Regression tests of the defects found by `make fuzz` with seed 13 (after the
seed-12 campaign was clean): each input ends in one clean error line."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import openpyxl
import pytest
from typer.testing import CliRunner

from vsizer.cli import app
from vsizer.errors import SeriesError
from vsizer.series._sysstat_parse import _sadf_time

REPO = Path(__file__).resolve().parents[1]
runner = CliRunner()


def _run(*args: str) -> tuple[int, str]:
    res = runner.invoke(app, list(args))
    return res.exit_code, res.output


def test_sadf_epoch_of_thousands_of_digits_is_no_time() -> None:
    # int() refuses over 4,300 digits; such a stamp is no sar time at all.
    assert _sadf_time("9" * 131_073) is None
    assert _sadf_time("9" * 13) is None
    assert _sadf_time("1555593619") is not None


def test_query_range_time_past_datetime64_is_a_bad_point(tmp_path: Path) -> None:
    from vsizer.series.prometheus import read_query_range

    f = tmp_path / "q.json"
    f.write_text('{"status": "success", "data": {"resultType": "matrix", "result": '
                 '[{"metric": {"instance": "a"}, "values": [[1e20, "1"]]}]}}')
    with pytest.raises(SeriesError) as exc:
        read_query_range(f, metric="cpu_util")
    assert str(exc.value) == (
        "q.json: result 1 point 1: expected [unix_time, \"value\"], got '[1e+20, \"1\"]'."
    )


def test_vhost_cores_not_a_whole_number_is_a_problem_line(tmp_path: Path) -> None:
    from tests.rvtools_fixture import write_old_layout

    path = write_old_layout(tmp_path / "rv.xlsx")
    wb = openpyxl.load_workbook(path)
    ws = wb["vHost"]
    col = [c.value for c in ws[1]].index("# CPU") + 1
    ws.cell(row=2, column=col, value=1.5)
    wb.save(path)
    code, out = _run("plan", str(path), "-q")
    assert code == 2
    assert (
        "error: rv.xlsx sheet 'vHost' row 2, column '# CPU': expected a whole number "
        "of at least 0, got '1.5'." in out
    )


def test_cell_style_missing_from_the_styles_part_is_damage(tmp_path: Path) -> None:
    # A damaged styles.xml leaves cells pointing past the style list.
    src = tmp_path / "src.xlsx"
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["name", "sockets", "cores_per_socket", "cpu_mhz", "cpu_peak_pct",
               "mem_gib"])
    ws.append(["s1", 2, 4, 2400, 0.4, 16])
    ws["E2"].number_format = "0%"  # a styled number: its style is looked up
    wb.save(src)
    out = tmp_path / "st.xlsx"
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(out, "w") as zout:
        for item in zin.infolist():
            data = zin.read(item.filename)
            if item.filename == "xl/styles.xml":
                data = re.sub(rb"<cellXfs count=\"\d+\">.*?</cellXfs>",
                              b'<cellXfs count="1"><xf numFmtId="0"/></cellXfs>',
                              data, flags=re.S)
            zout.writestr(item, data)
    code, text = _run("plan", str(out), "-q")
    assert code == 2
    assert re.fullmatch(
        r"error: st\.xlsx: the workbook is damaged \(sheet '.*' row \d+: a cell "
        r"refers to a style that is not there\); open it in Excel and save it "
        r"again\.\n", text
    ), text


def test_damaged_sheet_xml_met_while_sniffing_for_rvtools_is_one_line(tmp_path: Path) -> None:
    """make fuzz (seed 5, run 129, byte_flip): a byte flipped in a sheet's XML
    escaped as an internal ParseError from the check for a vInfo header under
    another sheet name; it is now the damaged-workbook line the reader gives."""
    src = tmp_path / "src.xlsx"
    wb = openpyxl.Workbook()
    wb.active.title = "servers"
    wb.active.append(["name", "sockets", "cores_per_socket", "mem_gib"])
    wb.active.append(["s1", 2, 4, 16])
    wb.save(src)
    out = tmp_path / "flip.xlsx"
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(out, "w") as zout:
        for item in zin.infolist():
            data = zin.read(item.filename)
            if item.filename == "xl/worksheets/sheet1.xml":
                data = data.replace(b"<sheetData>", b"<sheetData><\x01>", 1)
            zout.writestr(item, data)
    code, text = _run("plan", str(out), "-q")
    assert code == 2
    assert re.fullmatch(
        r"error: flip\.xlsx: the workbook is damaged \(sheet 'servers': ParseError: "
        r"not well-formed \(invalid token\): line \d+, column \d+\); open it in Excel "
        r"and save it again\.\n",
        text,
    ), text


def test_a_series_table_of_only_byte_order_marks_is_an_empty_file(tmp_path: Path) -> None:
    """make fuzz (seed 12, run 2564, empty family): a wide table emptied to two
    UTF-8 byte-order marks escaped as pandas' EmptyDataError."""
    p = tmp_path / "w.csv"
    p.write_bytes(b"\xef\xbb\xbf\xef\xbb\xbf")
    code, text = _run("import", str(p), "--format", "wide", "--store", str(tmp_path / "st"))
    assert code == 2
    assert text == "error: w.csv: expected a header line, got an empty file.\n"


def test_a_sadf_json_number_of_131073_digits_is_one_line(tmp_path: Path) -> None:
    """make fuzz (seed 12, run 3352, huge_cell): Python's 4,300-digit limit on
    int() escaped json.loads of a sadf -j file (Prometheus had the fix)."""
    p = tmp_path / "s.json"
    p.write_text('{"sysstat": {"hosts": [{"nodename": "h", "number-of-cpus": '
                 + "9" * 131_073 + "}]}}", encoding="utf-8")
    code, text = _run("import", str(p), "--format", "sar", "--store", str(tmp_path / "st"))
    assert code == 2
    assert text.startswith("error: s.json line 1: expected sadf -j JSON that can be read, "
                           "got 'ValueError: Exceeds the limit (4300 digits)"), text
