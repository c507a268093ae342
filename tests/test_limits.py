"""vsizer.limits: bounded reads (rows, columns, cell size, unzipped xlsx size).

Reproducers of issue 12: ``_csv.Error: field larger than field limit`` for a
131,073-character cell (table CSV, perfmon CSV, CPU catalog), an over-long
sheet read whole, a 96 KiB xlsx with a 100 MB cell reaching plan.json. Each
is now one error line naming the file, place, limit and flag, with exit 2.
"""

from __future__ import annotations

import csv
import io
import re
import zipfile
from pathlib import Path
from unittest import mock

import openpyxl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from vsizer import limits
from vsizer.cli import app
from vsizer.errors import ConfigError, InputError, InventoryError, SeriesError
from vsizer.inventory import read_inventory
from vsizer.limits import (
    DEFAULT_LIMITS,
    Limits,
    check_sheet_xml_rows,
    check_unzipped_size,
    column_label,
    csv_records,
    using,
)
from vsizer.models.measurements import read_measurements

runner = CliRunner()
BIG = "x" * 131_073  # one past the csv module's default field limit (131,072)
HEADER = "name,sockets,cores_per_socket,cpu_mhz,cpu_peak_pct,mem_gib"
CELL_LINE = (
    "row 2, column 7 (G): a cell of 131,073 characters is over the limit of "
    "10,000 characters per cell; raise it with --max-cell-chars."
)


def run(*args: str):
    return runner.invoke(app, list(args), env={"COLUMNS": "250"})


def errors(output: str) -> list[str]:
    assert "Traceback" not in output
    return [ln for ln in output.splitlines() if ln.startswith("error: ")]


def table_csv(path: Path, rows: int = 1, notes: str = "web") -> Path:
    body = "".join(f"s{i},2,4,2400,40,16,{notes}\n" for i in range(rows))
    path.write_text(f"{HEADER},notes\n{body}", encoding="utf-8")
    return path


def table_xlsx(path: Path, rows: int = 1, notes: str = "web") -> Path:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "servers"
    ws.append([*HEADER.split(","), "notes"])
    for i in range(rows):
        ws.append([f"s{i}", 2, 4, 2400, 40, 16, notes])
    wb.save(path)
    return path


# ------------------------------------------------ the three _csv.Error reproducers


def test_table_csv_with_a_131073_char_cell_is_one_line(tmp_path):
    p = table_csv(tmp_path / "t.csv", notes=BIG)
    r = run("plan", str(p), "-o", str(tmp_path / "t.json"))
    assert r.exit_code == 2
    assert errors(r.output) == [f"error: t.csv {CELL_LINE}"]
    assert not (tmp_path / "t.json").exists()


def test_perfmon_csv_with_a_131073_char_cell_is_one_line(tmp_path):
    p = tmp_path / "pm.csv"
    p.write_text(
        '"(PDH-CSV 4.0) (Tokyo Standard Time)(-540)",'
        '"\\\\WEB01\\Processor(_Total)\\% Processor Time"\n'
        f'"01/01/2024 00:00:00.000","{BIG}"\n',
        encoding="utf-8",
    )
    r = run("import", str(p), "--format", "perfmon", "--store", str(tmp_path / "st"))
    assert r.exit_code == 2
    assert errors(r.output) == [
        "error: pm.csv row 2, column 2 (B): a cell of 131,073 characters is over the "
        "limit of 10,000 characters per cell; raise it with --max-cell-chars."
    ]


def test_cpu_catalog_with_a_131073_char_cell_is_one_line(tmp_path):
    inv = table_csv(tmp_path / "ok.csv")
    cpus = tmp_path / "cpus.csv"
    cpus.write_text(
        "cpu_name,aliases,cores,cpu_mhz,score_per_core,basis,source\n"
        f"{BIG},,4,2400,100,SPECint2006,me\n",
        encoding="utf-8",
    )
    r = run("plan", str(inv), "--cpus", str(cpus), "-q")
    assert r.exit_code == 2
    assert errors(r.output) == [
        "error: cpus.csv row 2, column 1 (A): a cell of 131,073 characters is over "
        "the limit of 10,000 characters per cell; raise it with --max-cell-chars."
    ]


def test_measurement_csv_cell_limit(tmp_path):
    p = tmp_path / "m.csv"
    p.write_text(f"model,experiment\n{BIG},a\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"^m\.csv row 2, column 1 \(A\): a cell of "):
        read_measurements(p)


def test_raising_the_cell_limit_reads_the_file(tmp_path):
    p = table_csv(tmp_path / "t.csv", notes=BIG)
    r = run("plan", str(p), "-q", "--max-cell-chars", "131073")
    assert r.exit_code == 0, r.output


# ---------------------------------------------------------------- rows, columns


def test_row_limit_csv(tmp_path):
    p = table_csv(tmp_path / "t.csv", rows=5)
    r = run("plan", str(p), "-q", "--max-rows", "4")
    assert r.exit_code == 2
    assert errors(r.output) == [
        "error: t.csv: row 5 has data, past the limit of 4 rows per sheet or file; "
        "raise it with --max-rows."
    ]
    assert run("plan", str(p), "-q", "--max-rows", "6").exit_code == 0


def test_row_limit_xlsx(tmp_path):
    p = table_xlsx(tmp_path / "t.xlsx", rows=5)
    r = run("plan", str(p), "-q", "--max-rows", "3")
    assert r.exit_code == 2
    assert errors(r.output) == [
        "error: t.xlsx sheet 'servers': row 4 has data, past the limit of 3 rows per "
        "sheet or file; raise it with --max-rows."
    ]


def test_row_limit_is_checked_before_rows_are_parsed(tmp_path, monkeypatch):
    from vsizer.inventory import _io

    p = table_xlsx(tmp_path / "t.xlsx", rows=5)

    def no_rows(ws, **kw):  # the XML scan must refuse the sheet first
        raise AssertionError("rows parsed")

    monkeypatch.setattr(_io, "iter_sheet", no_rows)
    with using(Limits(max_rows=3)), pytest.raises(InventoryError, match="row 4 has"):
        read_inventory(p)


def test_column_limit(tmp_path):
    p = table_csv(tmp_path / "t.csv")
    r = run("plan", str(p), "-q", "--max-columns", "6")
    assert r.exit_code == 2
    assert errors(r.output) == [
        "error: t.csv row 1: 7 columns, over the limit of 6 columns; raise it with "
        "--max-columns."
    ]


def test_column_limit_ignores_trailing_empty_cells(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text(f"{HEADER},,,,\ns1,2,4,2400,40,16,,,,\n", encoding="utf-8")
    assert run("plan", str(p), "-q", "--max-columns", "6").exit_code == 0


def test_xlsx_cell_limit_keeps_a_huge_cell_out_of_the_plan(tmp_path):
    p = table_xlsx(tmp_path / "t.xlsx", notes="n" * 20_001)
    out = tmp_path / "t.json"
    r = run("plan", str(p), "-o", str(out), "--max-cell-chars", "20000")
    assert r.exit_code == 2
    assert errors(r.output) == [
        "error: t.xlsx sheet 'servers' row 2, column 7 (G): a cell of 20,001 "
        "characters is over the limit of 20,000 characters per cell; raise it with "
        "--max-cell-chars."
    ]
    assert not out.exists()


def test_rvtools_sheets_are_bounded(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "vInfo"
    ws.append(["VM", "Powerstate", "CPUs", "Memory"])
    for i in range(3):
        ws.append([f"vm{i}", "poweredOn", 2, 4096])
    p = tmp_path / "rv.xlsx"
    wb.save(p)
    r = run("plan", str(p), "-q", "--max-rows", "2")
    assert r.exit_code == 2
    assert errors(r.output) == [
        "error: rv.xlsx sheet 'vInfo': row 3 has data, past the limit of 2 rows per "
        "sheet or file; raise it with --max-rows."
    ]


def test_azure_migrate_csv_is_bounded(tmp_path):
    p = tmp_path / "am.csv"
    p.write_text(
        "Server name,Cores,Memory (In MB)\na,2,4096\nb,2,4096\n", encoding="utf-8"
    )
    with using(Limits(max_rows=2)), pytest.raises(
        InventoryError, match=r"^am\.csv: row 3 has data, past the limit of 2 rows"
    ):
        read_inventory(p)


def test_detect_format_with_a_huge_first_line_is_one_line(tmp_path):
    p = tmp_path / "h.csv"
    p.write_text(f"{BIG},cores\n", encoding="utf-8")
    with pytest.raises(InventoryError, match=r"^h\.csv row 1, column 1 \(A\): a cell"):
        read_inventory(p)


def test_compare_takes_the_limit_flags(tmp_path):
    scenarios = Path(__file__).resolve().parents[1] / "vsizer" / "data" / "scenarios"
    p = table_csv(tmp_path / "t.csv", rows=3)
    r = run(
        "compare", *(str(s) for s in sorted(scenarios.glob("*.toml"))),
        "--inventory", str(p), "-q", "--max-rows", "2",
    )
    assert r.exit_code == 2
    assert errors(r.output) == [
        "error: t.csv: row 3 has data, past the limit of 2 rows per sheet or file; "
        "raise it with --max-rows."
    ]


# ---------------------------------------------------------- xlsx unzipped size


def bomb(path: Path, mib: int) -> Path:
    """A small .xlsx-named zip whose member unzips to ``mib`` MiB of zeros."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("xl/worksheets/sheet1.xml", b"\0" * (mib << 20))
    return path


def test_zip_bomb_xlsx_is_refused_from_the_zip_directory(tmp_path):
    p = bomb(tmp_path / "b.xlsx", 3)
    assert p.stat().st_size < 20_000
    r = run("plan", str(p), "-q", "--max-xlsx-mib", "2")
    assert r.exit_code == 2
    assert errors(r.output) == [
        "error: b.xlsx: 3 MiB uncompressed (the largest member, "
        "'xl/worksheets/sheet1.xml', 3 MiB), over the limit of 2 MiB for an .xlsx; "
        "raise it with --max-xlsx-mib."
    ]


def test_unzipped_size_within_the_limit_and_non_zip_pass(tmp_path):
    check_unzipped_size(bomb(tmp_path / "b.xlsx", 1), error=InventoryError)
    (tmp_path / "n.xlsx").write_bytes(b"not a zip")
    check_unzipped_size(tmp_path / "n.xlsx", error=InventoryError)


# ------------------------------------------------------------- units: limits.py


def test_defaults():
    d = DEFAULT_LIMITS
    assert (d.max_rows, d.max_columns, d.max_cell_chars, d.max_xlsx_mib) == (
        1_100_000, 1_000, 10_000, 1_024
    )
    assert DEFAULT_LIMITS.replace(max_rows=5, max_columns=None).max_columns == 1_000


@pytest.mark.parametrize("value", [0, -1, 1.5, True, "9"])
def test_limits_must_be_positive_whole_numbers(value):
    message = (
        "The 'max_rows' limit (--max-rows) must be a whole number >= 1. "
        f"Got {value!r} instead."
    )
    with pytest.raises(ConfigError, match=f"^{re.escape(message)}$"):
        Limits(max_rows=value)  # type: ignore[arg-type]


def test_cli_rejects_a_zero_limit(tmp_path):
    r = run("plan", str(table_csv(tmp_path / "t.csv")), "--max-rows", "0")
    assert r.exit_code == 2
    assert "--max-rows" in r.output and "Traceback" not in r.output


def test_using_restores_the_limits():
    with using(Limits(max_rows=7)):
        assert limits.current().max_rows == 7
    assert limits.current() == DEFAULT_LIMITS


@pytest.mark.parametrize(
    ("index", "label"), [(1, "1 (A)"), (26, "26 (Z)"), (27, "27 (AA)"), (703, "703 (AAA)")]
)
def test_column_label(index, label):
    assert column_label(index) == label


def test_csv_records_numbers_records_and_keeps_cells():
    got = list(csv_records('a,"b\nc"\n\nd\n', "f.csv", error=SeriesError))
    assert got == [(1, ["a", "b\nc"]), (2, []), (3, ["d"])]


def test_other_csv_errors_become_one_line(monkeypatch):
    old = csv.field_size_limit()
    monkeypatch.setattr(limits, "CSV_FIELD_LIMIT", 10)
    csv.field_size_limit(10)
    try:
        with pytest.raises(
            SeriesError,
            match=r"^f\.csv row 2: cannot read the CSV record \(field larger than "
            r"field limit \(10\)\)\.$",
        ):
            list(csv_records("a\n" + "y" * 50 + "\n", "f.csv", error=SeriesError))
    finally:
        csv.field_size_limit(old)


def _sheet(rows: str) -> io.BytesIO:
    return io.BytesIO(
        b'<?xml version="1.0"?><worksheet xmlns="x"><sheetData>'
        + rows.encode()
        + b"</sheetData></worksheet>"
    )


def test_sheet_scan_counts_rows_with_values_only():
    lim = Limits(max_rows=2)
    empty_past = '<row r="1"><c><v>1</v></c></row><row r="9"><c r="A9" s="1"/></row>'
    check_sheet_xml_rows(_sheet(empty_past), "s", error=InventoryError, limits=lim)
    self_closing = '<row r="5"><c><v/></c></row>'
    check_sheet_xml_rows(_sheet(self_closing), "s", error=InventoryError, limits=lim)
    inline = '<row r="1"/><row r="7"><c t="inlineStr"><is><t>a</t></is></c></row>'
    with pytest.raises(InventoryError, match="^s: row 7 has data, past the limit of 2"):
        check_sheet_xml_rows(_sheet(inline), "s", error=InventoryError, limits=lim)


def test_sheet_scan_counts_rows_without_numbers_and_across_chunks(monkeypatch):
    monkeypatch.setattr(limits, "_CHUNK", 7)  # every tag is cut by a chunk boundary
    rows = "".join(f"<x:row><x:c><x:v>{i}</x:v></x:c></x:row>" for i in range(1, 6))
    with pytest.raises(InventoryError, match="^s: row 4 has data, past the limit of 3"):
        check_sheet_xml_rows(
            _sheet(rows), "s", error=InventoryError, limits=Limits(max_rows=3)
        )


def test_fit_names_its_cell_flag(tmp_path):
    p = tmp_path / "m.csv"
    p.write_text(f"model,experiment\ncpu,{'e' * 30}\n", encoding="utf-8")
    r = run("fit", str(p), "--model", "cpu", "--max-cell-chars", "20")
    assert r.exit_code == 2
    assert errors(r.output) == [
        "error: m.csv row 2, column 2 (B): a cell of 30 characters is over the limit "
        "of 20 characters per cell; raise it with --max-cell-chars."
    ]


def test_catalog_list_names_its_cell_flag(tmp_path):
    shipped = Path(__file__).resolve().parents[1] / "vsizer/catalogs/data/hosts.csv"
    header = shipped.read_text(encoding="utf-8").splitlines()[0]
    p = tmp_path / "hosts.csv"
    p.write_text(f"{header}\n{'h' * 30},2,4\n", encoding="utf-8")
    r = run("catalog", "list", "--hosts", str(p), "--max-cell-chars", "20")
    assert r.exit_code == 2
    assert errors(r.output) == [
        "error: hosts.csv row 2, column 1 (A): a cell of 30 characters is over the "
        "limit of 20 characters per cell; raise it with --max-cell-chars."
    ]


def _strip_dimension(src: Path, dst: Path, tail: bytes = b"") -> Path:
    """*src* without its sheets' <dimension>; *tail* is put after <sheetData>."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info)
            if info.filename.startswith("xl/worksheets/"):
                data = re.sub(rb"<dimension [^>]*/>", b"", data)
                data = data.replace(b"<sheetData>", b"<sheetData>" + tail)
            zout.writestr(info, data)
    return dst


def test_sheet_without_dimension_is_not_parsed_at_open(tmp_path):
    from vsizer.inventory._io import open_workbook

    src = table_xlsx(tmp_path / "d.xlsx", rows=50)
    # Rows that do not parse: opening must not read them (openpyxl alone does).
    p = _strip_dimension(src, tmp_path / "nodim.xlsx", tail=b"<row><c><<<")
    assert b"<dimension" not in zipfile.ZipFile(p).read("xl/worksheets/sheet1.xml")
    wb = open_workbook(p)
    assert wb["servers"].max_row is None  # as openpyxl: no declared size
    wb.close()
    wb = open_workbook(src)
    assert (wb["servers"].max_row, wb["servers"].max_column) == (51, 7)
    wb.close()


def test_sheet_without_dimension_is_bounded(tmp_path):
    p = _strip_dimension(table_xlsx(tmp_path / "d.xlsx", rows=50), tmp_path / "n.xlsx")
    with using(Limits(max_rows=10)), pytest.raises(InventoryError, match="row 11 has"):
        read_inventory(p)
    assert len(read_inventory(p)) == 50


def _damage(src: Path, dst: Path, where: float) -> Path:
    """*src* with bytes overwritten at *where* (0..1) of the sheet's deflate data."""
    info = zipfile.ZipFile(src).getinfo("xl/worksheets/sheet1.xml")
    raw = bytearray(src.read_bytes())
    start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    at = start + int(info.compress_size * where)
    raw[at : at + 20] = b"\xff" * 20
    dst.write_bytes(bytes(raw))
    return dst


def test_damaged_sheet_is_one_line_at_open(tmp_path):
    p = _damage(table_xlsx(tmp_path / "d.xlsx", rows=3), tmp_path / "bad.xlsx", 0.1)
    with pytest.raises(
        InventoryError,
        match=r"^bad\.xlsx: cannot open as an Excel workbook \(.xlsx\): Error -3 ",
    ):
        read_inventory(p, source_format="table")


@pytest.mark.slow
def test_damaged_sheet_is_one_line_in_the_row_scan(tmp_path):
    src = table_xlsx(tmp_path / "d.xlsx", rows=20_000)
    p = _damage(src, tmp_path / "bad.xlsx", 0.8)
    with pytest.raises(
        InventoryError,
        match=r"^bad\.xlsx sheet 'servers': cannot read the sheet, the workbook is "
        r"damaged \(.+\); open it in Excel and save it again\.$",
    ):
        read_inventory(p, source_format="table")


_ROW_FORMS = st.sampled_from([
    '<row r="{n}"><c r="A{n}"><v>{n}</v></c></row>',  # as writers write it
    '<row r="{n}" spans="1:2"><c r="A{n}" s="1"/></row>',  # no value
    '<row spans="1:1" r="{n}"><c><v>1</v></c></row>',  # r not first
    '<x:row r="{n}"><x:c><x:v>1</x:v></x:c></x:row>',  # a prefix
    '<row r="{n}"><c t="inlineStr"><is><t>a</t></is></c></row>',
])


@given(
    forms=st.lists(st.tuples(_ROW_FORMS, st.integers(1, 3)), min_size=1, max_size=40),
    cap=st.integers(1, 60),
    chunk=st.sampled_from([7, 64, 1 << 20]),
)
def test_sheet_scan_refuses_the_first_row_past_the_limit_with_a_value(
    forms, cap, chunk
) -> None:
    """Chunks whose rows are all ``<row r="n"`` below the limit are skipped
    (``_numbered_within``); the answer is the first row past ``cap`` that holds
    a value, as a tag by tag reading of the same rows gives it."""
    rows, n, expected = [], 0, None
    for form, gap in forms:
        n += gap
        rows.append(form.format(n=n))
        if expected is None and n > cap and ("<v>" in form or "<is>" in form
                                             or "<x:v>" in form):
            expected = n
    sheet, lim = _sheet("".join(rows)), Limits(max_rows=cap)
    with mock.patch.object(limits, "_CHUNK", chunk):
        if expected is None:
            check_sheet_xml_rows(sheet, "s", error=InventoryError, limits=lim)
        else:
            with pytest.raises(InventoryError, match=rf"^s: row {expected:,} has data, "):
                check_sheet_xml_rows(sheet, "s", error=InventoryError, limits=lim)


def test_a_chunk_of_numbered_rows_below_the_limit_needs_no_tag_scan() -> None:
    past = re.compile(rb'<row r="' + limits.at_least(101) + rb'"')
    rows = b"".join(b'<row r="%d"><c r="A%d"><v>1</v></c></row>' % (n, n)
                    for n in (1, 2, 99, 100))
    assert limits._numbered_within(rows, past)
    assert not limits._numbered_within(rows + b'<row r="101">', past)  # past it
    assert not limits._numbered_within(rows + b"<row><c><v>1</v></c></row>", past)
    assert not limits._numbered_within(rows + b'<rowBreaks count="1">', past)
    assert not limits._numbered_within(b"<c><v>1</v></c>", past)  # no row
    assert limits._last_row_number(rows + b'<row r="10', 0) == 100  # cut: the whole one


def _outcome(fn):
    try:
        return fn()
    except SeriesError as exc:
        return f"error: {exc}"


@pytest.mark.parametrize("text", [
    'a,"b\nc"\n\nd\n',
    "".join(f"r{i},x\n" for i in range(20)),  # past max_rows 12
    "a\nb\nc\n" + "x," * 8 + "\nd\n" + "x," * 3 + "\n",  # columns over at row 4
    "a,b\nc,d\n,,,,,,,,,,,\ne\n",  # empty trailing cells: not over
    "a\nb\n" + "y" * 30 + "\nc\n",  # a long cell at row 3
    "a\n" * 7 + "b," * 9 + "\n" + "z" * 30 + "\n",  # two limits broken: the first
    "a\n" * 3 + "y" * 50 + "\n" + "a\n" * 5,  # a CSV error at row 4
    "",
])
@pytest.mark.parametrize("chunk", [1, 2, 3, 4096])
def test_csv_grid_is_csv_records_with_the_same_first_error(monkeypatch, text, chunk):
    """The chunked checks of csv_grid give list(csv_records(rows=True)): the
    records, or the first limit or CSV error they would meet, whatever the chunk."""
    from vsizer.limits import csv_grid

    monkeypatch.setattr(limits, "GRID_CHUNK", chunk)
    old = csv.field_size_limit()
    monkeypatch.setattr(limits, "CSV_FIELD_LIMIT", 40)
    csv.field_size_limit(40)
    lim = Limits(max_rows=12, max_columns=6, max_cell_chars=20)
    try:
        want = _outcome(lambda: list(csv_records(
            text, "f.csv", error=SeriesError, rows=True, limits=lim)))
        got = _outcome(lambda: csv_grid(text, "f.csv", error=SeriesError, limits=lim))
    finally:
        csv.field_size_limit(old)
    assert got == want
