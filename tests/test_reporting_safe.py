"""Tests of vsizer.reporting.safe: no user string may become a spreadsheet formula.

Trigger characters from the OWASP "CSV Injection" page
(https://owasp.org/www-community/attacks/CSV_Injection): = + - @ tab CR,
plus the full-width forms a Japanese input method produces.
"""

from __future__ import annotations

import math

import pytest
from openpyxl import Workbook, load_workbook

from vsizer.reporting.safe import MAX_CELL_CHARS, excel_safe, set_safe_value

FORMULA_PROBES = [
    '=HYPERLINK("http://x","y")',
    "+cmd|' /C calc'!A0",
    "-2+3",
    "@SUM(1)",
    "\t=1+1",
    "\r=1+1",
    "  =1+1",
    "\n@SUM(1)",
    "\u3000=1+1",  # ideographic space
    "＝1+1",
    "＋1",
    "－1",
    "＠SUM(1)",
]


@pytest.mark.parametrize("text", FORMULA_PROBES)
def test_formula_like_strings_get_a_quote_prefix(text: str) -> None:
    assert excel_safe(text) == "'" + text


@pytest.mark.parametrize(
    "text", ["web01", "", "a=b", "1-2", "<script>alert(1)</script>", "サーバー"]
)
def test_other_strings_are_unchanged(text: str) -> None:
    assert excel_safe(text) == text


@pytest.mark.parametrize("value", [-5, -2.5, 0, 3, 1e-9, True, False, None])
def test_non_strings_are_returned_as_is(value: object) -> None:
    out = excel_safe(value)
    assert out is value or (out == value and type(out) is type(value))


def test_illegal_control_characters_are_replaced() -> None:
    assert excel_safe("a\x00b\x1fc") == "a\ufffdb\ufffdc"
    assert excel_safe("\x07=1") == "\ufffd=1"  # not a trigger once replaced


def test_overlong_text_is_cut_to_the_excel_limit() -> None:
    out = excel_safe("=" + "x" * 40_000)
    assert len(out) == MAX_CELL_CHARS
    assert out.startswith("'=")
    assert out.endswith("…")


def test_openpyxl_alone_would_write_a_formula() -> None:
    # Why set_safe_value exists: openpyxl infers a formula from a leading '='.
    cell = Workbook().active["A1"]
    cell.value = "=1+1"
    assert cell.data_type == "f"


@pytest.mark.parametrize("text", [*FORMULA_PROBES, "#N/A", "web01"])
def test_set_safe_value_writes_text_cells(text: str) -> None:
    cell = Workbook().active["A1"]
    set_safe_value(cell, text)
    assert cell.data_type == "s"
    assert cell.value == excel_safe(text)


def test_set_safe_value_keeps_numbers_numeric_and_formats_them() -> None:
    cell = Workbook().active["A1"]
    set_safe_value(cell, -1234.5, "#,##0")
    assert cell.value == -1234.5
    assert cell.data_type == "n"
    assert cell.number_format == "#,##0"


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_set_safe_value_leaves_non_finite_floats_empty(value: float) -> None:
    cell = Workbook().active["A1"]
    set_safe_value(cell, value)
    assert cell.value is None


def test_probes_read_back_as_text(tmp_path) -> None:
    wb = Workbook()
    ws = wb.active
    for row, text in enumerate(FORMULA_PROBES, start=1):
        set_safe_value(ws.cell(row=row, column=1), text)
    set_safe_value(ws.cell(row=1, column=2), -7)
    path = tmp_path / "probes.xlsx"
    wb.save(path)

    ws = load_workbook(path).active
    for row, text in enumerate(FORMULA_PROBES, start=1):
        cell = ws.cell(row=row, column=1)
        assert cell.data_type == "s"
        # openpyxl reads a stored '\r' back as '\n' (XML newline normalization)
        assert cell.value.replace("\n", "\r") == ("'" + text).replace("\n", "\r")
    assert ws.cell(row=1, column=2).value == -7
    assert ws.cell(row=1, column=2).data_type == "n"
