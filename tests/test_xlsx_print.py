"""Issue 27: the Excel Summary recalculates the cost when the price or PUE
cell changes, and prints on one landscape page; other sheets fit the width."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from openpyxl import load_workbook

from vsizer.reporting._xlsx_print import COST_FORMULAS
from vsizer.reporting.excel import write_plan_xlsx

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "tests" / "data" / "golden" / "demo.json"


def _rows(ws) -> dict[str, int]:
    return {c.value: c.row for (c,) in ws.iter_rows(min_col=3, max_col=3)
            if isinstance(c.value, str)}


@pytest.fixture(scope="module")
def book(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("xlsx") / "plan.xlsx"
    write_plan_xlsx(json.loads(DEMO.read_text(encoding="utf-8")), path)
    return path


def test_cost_cells_are_formulas_of_the_price_and_pue_cells(book: Path) -> None:
    ws = load_workbook(book).worksheets[0]
    at = _rows(ws)
    price, pue = f"B{at['parameters.price_kwh']}", f"B{at['parameters.pue']}"
    before, after = (ws[f"B{at[k]}"].value for k in COST_FORMULAS[:2])
    assert before == f"=B{at['power.before_w']}/1000*8760*{pue}*{price}"
    assert after == f"=B{at['power.after_w']}/1000*8760*{pue}*{price}"
    saving = ws[f"B{at['power.annual_saving']}"].value
    assert saving == (f"=B{at['power.annual_cost_before']}-B{at['power.annual_cost_after']}")
    over = ws[f"B{at['power.saving_over_years']}"].value
    assert over == f"=B{at['power.annual_saving']}*B{at['parameters.years']}"
    assert ws[price].fill.fgColor.rgb.endswith("FFF2CC")  # shaded as an input


def test_summary_prints_on_one_landscape_page_others_fit_the_width(book: Path) -> None:
    wb = load_workbook(book)
    for i, ws in enumerate(wb.worksheets):
        ps = ws.page_setup
        assert ps.orientation == "landscape", ws.title
        assert ws.sheet_properties.pageSetUpPr.fitToPage is True
        assert int(ps.fitToWidth) == 1
        assert int(ps.fitToHeight) == (1 if i == 0 else 0), ws.title
        assert ws.print_area is not None


@pytest.mark.slow  # LibreOffice converts twice
@pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice is not installed")
def test_libreoffice_recalculates_and_prints_one_page(book: Path, tmp_path: Path) -> None:
    # double the price: every cost and saving doubles after LibreOffice recalculates
    wb = load_workbook(book)
    ws = wb.worksheets[0]
    at = _rows(ws)
    plan = json.loads(DEMO.read_text(encoding="utf-8"))
    ws[f"B{at['parameters.price_kwh']}"] = 2 * plan["parameters"]["price_kwh"]
    for other in wb.worksheets[1:]:
        wb.remove(other)
    changed = tmp_path / "summary.xlsx"
    wb.save(changed)
    run = subprocess.run(
        ["soffice", "--headless", "--convert-to", "pdf", "--outdir", str(tmp_path), str(changed)],
        capture_output=True, text=True, timeout=180,
    )
    assert run.returncode == 0, run.stderr
    pdf = (tmp_path / "summary.pdf").read_bytes()
    assert len(re.findall(rb"/Type\s*/Page[^s]", pdf)) == 1  # one page
    run = subprocess.run(
        ["soffice", "--headless", "--convert-to", "csv:Text - txt - csv (StarCalc):44,34,76",
             "--outdir", str(tmp_path), str(changed)],
        capture_output=True, text=True, timeout=180,
    )
    rows = {r[2]: r[1] for r in csv.reader(io.StringIO(
        (tmp_path / "summary.csv").read_text(encoding="utf-8"))) if len(r) > 2}
    for key in COST_FORMULAS:  # the recalculated values
        assert float(rows[key].replace(",", "")) == pytest.approx(2 * plan["power"][key.split(".")[1]])
