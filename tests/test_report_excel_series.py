"""The plan workbook of a schema "2" plan: curves sheet with a native line
chart and the step replay, failover scenario rows with moves and worst step,
predictions sheet. Plan: tests/report_plans.py (synthetic hourly ramps)."""

from __future__ import annotations

from typing import Any

import pytest
from openpyxl import load_workbook
from openpyxl.chart import LineChart

from tests.report_plans import STEPS, ramp, small_plan, with_series
from vsizer.reporting.excel import OPTIONAL_SHEET_KEYS, SHEET_KEYS, write_plan_xlsx
from vsizer.reporting.labels import label


@pytest.fixture(scope="module")
def wb(tmp_path_factory: pytest.TempPathFactory) -> Any:
    doc = with_series(small_plan())
    doc["predictions"] = {
        "vms": [{"name": "=cmd|' /C calc'!A0", "relative_cpu": 0.93, "risks": []}],
        "hosts": [],
        "warnings": [
            {"scope": "vm", "name": "db01", "model": "cpu.x", "reason": "hot"}
        ],
    }
    path = tmp_path_factory.mktemp("x") / "plan.xlsx"
    write_plan_xlsx(doc, path)
    return load_workbook(path)


def test_optional_sheets_follow_the_fixed_ones(wb: Any) -> None:
    # this plan (written without count reasons or right-sizing, no disk capacity)
    # has no explain and no storage sheet
    keys = SHEET_KEYS + tuple(
        k for k in OPTIONAL_SHEET_KEYS if k not in ("sheet_explain", "sheet_storage")
    )
    assert wb.sheetnames == [label(k, "en") for k in keys]


def test_curves_sheet_holds_every_step_and_a_line_chart(wb: Any) -> None:
    ws = wb[label("sheet_curves", "en")]
    doc = small_plan()
    first = doc["pools"][0]["hosts"][0]
    assert ws.cell(row=1, column=2).value == "prod-h01"
    assert ws.cell(row=1, column=5).value == "'@SUM(1)-h01"  # formula-safe header
    assert [ws.cell(row=2 + i, column=2).value for i in range(STEPS)] == [
        ramp(first["util"]["cpu"], i) for i in range(STEPS)
    ]
    assert ws.cell(row=2, column=1).value == "2024-04-01 00:00"
    assert ws.cell(row=2, column=2).number_format == "0.0%"
    assert ws.freeze_panes == "B2" and ws.auto_filter.ref == f"A1:F{STEPS + 1}"
    (chart,) = ws._charts
    assert isinstance(chart, LineChart) and len(chart.series) == 5
    replay_title = [
        r
        for r in range(1, ws.max_row + 1)
        if ws.cell(row=r, column=1).value == label("section_replay", "en")
    ]
    assert (
        replay_title and ws.cell(row=replay_title[0] + 2, column=2).value == "prod-h01"
    )


def test_failover_rows_of_schema_2(wb: Any) -> None:
    ws = wb[label("sheet_failover", "en")]
    rows = list(ws.iter_rows(values_only=True))
    header = next(r for r in rows if r and r[0] == "Pool" and "Worst step" in r)
    at = rows.index(header)
    first = rows[at + 1]
    assert first[header.index("Worst step")] == "2024-04-01T11:00:00Z"
    assert first[header.index("Steps over 100 %")] == 0
    # tests/report_plans.py copies the pool's worst dimension (memory) to each row
    assert first[header.index("Worst dimension")] == label("dim_mem", "en")


def test_predictions_sheet_is_formula_safe(wb: Any) -> None:
    ws = wb[label("sheet_predictions", "en")]
    assert [c.value for c in ws[1]] == ["name", "relative_cpu", "risks"]
    assert ws.cell(row=2, column=1).value == "'=cmd|' /C calc'!A0"
    assert ws.cell(row=2, column=1).data_type == "s"
    assert ws.cell(row=2, column=2).value == 0.93
    texts = [c.value for row in ws.iter_rows() for c in row if isinstance(c.value, str)]
    assert "vm db01 [cpu.x]: hot" in texts
    assert not any(t.startswith(("=", "+", "-", "@")) for t in texts)
