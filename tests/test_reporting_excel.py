"""Tests of the plan workbook (vsizer.reporting.excel) and its labels.

The plan is tests/data/plan_small.json, written by hand after
docs/plan-schema.md: 2 pools, 5 hosts, 10 servers, 1 excluded, one pool that
does not survive a host failure, and formula/XSS probes in names, a pool, a
group, a note and a warning. Workbooks are read back with openpyxl.
"""

from __future__ import annotations

import copy
import json
import re
import shutil
import subprocess
import zipfile
from pathlib import Path
from typing import Any

import pytest
from openpyxl import load_workbook
from openpyxl.chart import BarChart, LineChart
from openpyxl.workbook.workbook import Workbook
from openpyxl.worksheet.worksheet import Worksheet

from vsizer.errors import InputError
from vsizer.reporting import SHEET_KEYS, write_plan_xlsx
from vsizer.reporting._xlsx_print import COST_FORMULAS
from vsizer.reporting.excel import FIXED_TIMESTAMP
from vsizer.reporting.labels import LABELS, LANGS, label, with_unit

DATA = Path(__file__).parent / "data"
PROBE_NAME = '=HYPERLINK("http://x","y")'
PROBE_GROUP = "+cmd|' /C calc'!A0"
PROBE_POOL = "@SUM(1)"
PROBE_NOTE = "-2+3"
SCRIPT = "<script>alert(1)</script>"
FORMULA_START = tuple("=+-@＝＋－＠\t\r")
#: vsizer's own formulas: cell references of column B, numbers, arithmetic.
OWN_FORMULA = re.compile(r"=(B\d+|\d+|[-+*/])+")


def evaluate(ws: Worksheet, formula: str) -> float:
    """Value of one of vsizer's own formulas (B-cell references and + - * /)."""
    assert OWN_FORMULA.fullmatch(formula), formula

    def ref(m: re.Match[str]) -> str:
        v = ws[m.group(0)].value
        return f"({evaluate(ws, v)})" if isinstance(v, str) else repr(float(v))

    return float(eval(re.sub(r"B\d+", ref, formula[1:])))  # noqa: S307 (checked above)


@pytest.fixture(scope="module")
def plan() -> dict[str, Any]:
    return json.loads((DATA / "plan_small.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module", params=LANGS)
def lang(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module")
def workbooks(plan: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = {}
    for code in LANGS:
        path = tmp_path_factory.mktemp(code) / "plan.xlsx"
        write_plan_xlsx(plan, path, lang=code)
        out[code] = (path, load_workbook(path))
    return out


@pytest.fixture
def wb(workbooks: dict, lang: str) -> Workbook:
    return workbooks[lang][1]


def sheet(wb: Workbook, key: str, lang: str) -> Worksheet:
    return wb[label(key, lang)]


def header(ws: Worksheet, row: int = 1) -> list[Any]:
    values = [c.value for c in ws[row]]
    while values and values[-1] is None:
        values.pop()
    return values


def find_row(ws: Worksheet, col: int, value: Any) -> int:
    for row in range(1, ws.max_row + 1):
        if ws.cell(row=row, column=col).value == value:
            return row
    raise AssertionError(f"{value!r} not found in column {col} of {ws.title}")


def item(ws: Worksheet, key: str) -> tuple[Any, Any]:
    """(label cell, value cell) of an item/value/key table row."""
    row = find_row(ws, 3, key)
    return ws.cell(row=row, column=1), ws.cell(row=row, column=2)


def table_below(ws: Worksheet, title: str) -> tuple[list[Any], list[tuple]]:
    """Header and data rows of the table under section title ``title``."""
    top = find_row(ws, 1, title) + 1
    rows = []
    for values in ws.iter_rows(min_row=top + 1, values_only=True):
        if all(v is None for v in values):
            break
        rows.append(values)
    return header(ws, top), rows


def all_cells(wb: Workbook):
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            yield from (c for c in row if c.value is not None)


# -- sheets and headers --------------------------------------------------------
def test_every_sheet_exists_in_order(wb: Workbook, lang: str) -> None:
    assert wb.sheetnames == [label(key, lang) for key in SHEET_KEYS]


def test_sheet_names_are_spelled_per_language(workbooks: dict) -> None:
    en = "Summary Servers Demand Hosts Placement Failover Power Data_quality Excluded"
    assert workbooks["en"][1].sheetnames == [
        *(name.replace("_", " ") for name in en.split()),
        "Warnings",
    ]
    ja = "サマリー サーバー一覧 リソース需要 ホスト一覧 VM配置 障害時検証 電力"
    assert workbooks["ja"][1].sheetnames == [
        *ja.split(),
        *("データ品質", "移行対象外", "警告"),
    ]


#: Header row 1 of each sheet as label keys; "key:unit" appends " [unit]",
#: "CAP" standing for the plan's CPU capacity unit.
EXPECTED_HEADERS = {
    "sheet_summary": "item value key",
    "sheet_servers": "name pool group rank model cpu_name sockets cores_per_socket "
    "vcpus cpu_mhz:MHz cpu_score_per_core score_source cpu_capacity:CAP "
    "cpu_avg_util cpu_peak_util cpu_avg_demand:CAP cpu_peak_demand:CAP mem_gib:GiB "
    "vm_mem_gib:GiB disk_iops:IOPS net_mbps:Mbit/s power_w:W power_source rack_u:U "
    "host",
    "sheet_demand": "scope scope_name servers cpu_capacity:CAP cpu_avg_demand:CAP "
    "cpu_peak_demand:CAP mem_gib:GiB vcpus disk_iops:IOPS net_mbps:Mbit/s",
    "sheet_hosts": "pool host_id vm_count util_cpu util_mem util_vcpu avg_cpu_util "
    "power_w:W ceiling",
    "sheet_placement": "pool host_id vm",
    "sheet_failover": "pool failures survives scenarios worst_survivor_util "
    "worst_dimension worst_failed worst_host",
    "sheet_power": "item before after change change_pct",
    "sheet_quality": "item value key",
    "sheet_excluded": "name reason",
    "sheet_warnings": "number warning_code servers warning_message warning_servers",
}


def expected_header(spec: str, lang: str) -> list[str]:
    out = []
    for token in spec.split():
        key, _, unit = token.partition(":")
        unit = unit.replace("CAP", "SPECrate2017_int_base")
        out.append(with_unit(label(key, lang), unit or None))
    return out


def test_header_rows_follow_the_labels(wb: Workbook, lang: str) -> None:
    for key, spec in EXPECTED_HEADERS.items():
        assert header(sheet(wb, key, lang)) == expected_header(spec, lang), key


def test_japanese_headers_are_spelled_as_in_labels(workbooks: dict) -> None:
    wb = workbooks["ja"][1]
    assert header(wb["ホスト一覧"]) == [
        "プール",
        "ホスト",
        "VM数",
        "CPU使用率",
        "メモリ使用率",
        "vCPU割当率",
        "平均CPU使用率",
        "消費電力 [W]",
        "使用率の上限",
    ]
    assert header(wb["サーバー一覧"])[:6] == [
        "サーバー名",
        "プール",
        "システム",
        "ランク",
        "機種名",
        "CPU名",
    ]
    summary = wb["サマリー"]
    assert item(summary, "summary.hosts")[0].value == "ホスト数"
    assert item(summary, "summary.consolidation_ratio")[0].value.startswith("集約率")
    assert (
        item(summary, "power.annual_cost_after")[0].value == "統合後の年間電気代 [JPY]"
    )
    assert item(summary, "power.saving_over_years")[0].value == "5年間の削減額 [JPY]"


def test_every_sheet_freezes_its_header_and_has_an_autofilter(
    wb: Workbook, lang: str
) -> None:
    for ws in wb.worksheets:
        assert ws.freeze_panes in ("A2", "B2"), ws.title
        assert ws.auto_filter.ref, ws.title
    assert sheet(wb, "sheet_servers", lang).freeze_panes == "B2"
    assert sheet(wb, "sheet_servers", lang).auto_filter.ref == "A1:Y11"
    # the failover sheet filters its scenario table, the longest one
    fo = sheet(wb, "sheet_failover", lang)
    top = find_row(fo, 1, label("section_failover_scenarios", lang)) + 1
    assert fo.auto_filter.ref == f"A{top}:I{top + 5}"


def test_column_widths_are_fitted(wb: Workbook, lang: str) -> None:
    ws = sheet(wb, "sheet_servers", lang)
    widths = {c: ws.column_dimensions[c].width for c in ("A", "E", "G")}
    assert all(w is not None and 6 <= w <= 60 for w in widths.values())
    # a model name is wider than a socket count
    assert widths["E"] > widths["G"]


# -- summary -------------------------------------------------------------------
@pytest.mark.parametrize(
    ("path", "value", "fmt"),
    [
        ("summary.servers", 10, "#,##0"),
        ("summary.excluded", 1, "#,##0"),
        ("summary.hosts", 5, "#,##0"),
        ("summary.consolidation_ratio", 2.0, "0.00"),
        ("summary.pools", 2, "#,##0"),
        ("summary.worst_survivor_util", 0.841734, "0.0%"),
        ("summary.lower_bound", 5, "#,##0"),
        ("summary.gap", 0, "#,##0"),
        ("power.before_w", 2585.0, "#,##0"),
        ("power.annual_cost_before", 1123172.16, "#,##0"),
        ("power.annual_saving", None, "#,##0"),  # value checked against the plan
        ("space.rack_u_before", 14.0, "#,##0.0"),
        ("space.rack_u_after", 10.0, "#,##0.0"),
        ("summary.confidence", 0.92, "0.0%"),
    ],
)
def test_key_figures_hold_the_plan_numbers(
    wb: Workbook, lang: str, plan: dict, path: str, value: Any, fmt: str
) -> None:
    ws = sheet(wb, "sheet_summary", lang)
    _, cell = item(ws, path)
    expected = plan["power"]["annual_saving"] if value is None else value
    if path in COST_FORMULAS:  # issue 27: a formula of the price and PUE cells
        assert cell.data_type == "f"
        assert evaluate(ws, cell.value) == pytest.approx(expected)
    else:
        assert cell.value == pytest.approx(expected)
        assert cell.data_type == "n"
    assert cell.number_format == fmt


def test_key_figures_text_items(wb: Workbook, lang: str, plan: dict) -> None:
    ws = sheet(wb, "sheet_summary", lang)
    assert item(ws, "summary.servers, .hosts")[1].value == "10 → 5"
    assert item(ws, "summary.survives_failover")[1].value == label("no", lang)
    assert item(ws, "power.after_w")[1].value == pytest.approx(plan["power"]["after_w"])
    assert item(ws, "power.annual_saving")[0].value == with_unit(
        label("annual_saving", lang), "JPY"
    )


def test_summary_targets_parameters_and_inputs(wb: Workbook, lang: str) -> None:
    ws = sheet(wb, "sheet_summary", lang)
    head, rows = table_below(ws, label("section_targets", lang))
    assert head == [
        label(k, lang)
        for k in ("target_name", "description", "target", "actual", "result")
    ]
    results = {r[0]: r[4] for r in rows}
    assert results == {
        "max_hosts": label("met", lang),
        "max_worst_survivor_util": label("met", lang),
        "min_annual_saving": label("not_met", lang),
    }
    top = find_row(ws, 1, "max_worst_survivor_util")
    assert ws.cell(row=top, column=3).number_format == "0.0%"

    assert item(ws, "parameters.ceiling")[1].value == 0.8
    assert item(ws, "parameters.ceiling")[1].number_format == "0.0%"
    assert item(ws, "parameters.price_kwh")[0].value == with_unit(
        label("price_kwh", lang), "JPY/kWh"
    )
    assert item(ws, "parameters.cpu_basis")[1].value == label("value_peak", lang)
    assert item(ws, "inputs.inventory")[1].value == "inventory_small.xlsx"
    assert item(ws, "host_model.capacity.cpu")[1].value == pytest.approx(369.92)
    head, rows = table_below(ws, label("section_pools", lang))
    assert [r[0] for r in rows] == ["prod", "'" + PROBE_POOL]
    assert [r[2] for r in rows] == [3, 2]


# -- detail sheets -------------------------------------------------------------
def test_servers_sheet_rows(wb: Workbook, lang: str, plan: dict) -> None:
    ws = sheet(wb, "sheet_servers", lang)
    assert ws.max_row == 1 + len(plan["servers"])
    row = find_row(ws, 1, "db01")
    assert ws.cell(row=row, column=15).value == 0.8  # cpu_peak_util
    assert ws.cell(row=row, column=15).number_format == "0.0%"
    assert ws.cell(row=row, column=22).value == 420  # power_w
    assert ws.cell(row=row, column=22).number_format == "#,##0"
    assert ws.cell(row=row, column=25).value == "prod-h01"
    assert ws.cell(row=row, column=12).value == label("value_catalog", lang)


def test_demand_sheet_rows(wb: Workbook, lang: str, plan: dict) -> None:
    ws = sheet(wb, "sheet_demand", lang)
    total = [c.value for c in ws[2]]
    assert total[0] == label("scope_total", lang)
    assert total[2:9] == [10, 627.28, 118.4904, 356.914, 1232, 180, 8500]
    assert ws.cell(row=2, column=4).number_format == "#,##0.0"
    scopes = [ws.cell(row=r, column=1).value for r in range(2, ws.max_row + 1)]
    assert scopes.count(label("scope_pool", lang)) == 2
    assert scopes.count(label("scope_group", lang)) == 5


def test_hosts_sheet_rows_and_chart(wb: Workbook, lang: str, plan: dict) -> None:
    ws = sheet(wb, "sheet_hosts", lang)
    hosts = [h for p in plan["pools"] for h in p["hosts"]]
    assert ws.max_row == 1 + len(hosts)
    for row, host in enumerate(hosts, start=2):
        assert ws.cell(row=row, column=4).value == pytest.approx(host["util"]["cpu"])
        assert ws.cell(row=row, column=5).value == pytest.approx(host["util"]["mem"])
        assert ws.cell(row=row, column=8).value == pytest.approx(host["power_w"])
        assert ws.cell(row=row, column=9).value == 0.8
    assert ws.cell(row=2, column=5).number_format == "0.0%"
    assert ws.cell(row=2, column=8).number_format == "#,##0"

    assert len(ws._charts) == 1
    chart = ws._charts[0]
    assert isinstance(chart, BarChart)
    assert chart.type == "col" and chart.grouping == "clustered"
    assert len(chart.series) == 2  # CPU and memory
    assert any(isinstance(c, LineChart) for c in chart._charts)  # the ceiling
    title = "".join(r.t for p in chart.title.tx.rich.p for r in p.r or [])
    assert title == label("chart_host_util", lang, ceiling="80%")


def test_placement_sheet_has_one_row_per_vm(
    wb: Workbook, lang: str, plan: dict
) -> None:
    ws = sheet(wb, "sheet_placement", lang)
    got = {tuple(r) for r in ws.iter_rows(min_row=2, values_only=True)}
    assert len(got) == ws.max_row - 1 == 10
    assert ("prod", "prod-h01", "'" + PROBE_NAME) in got
    assert ("'" + PROBE_POOL, "'@SUM(1)-h02", "ci01") in got


def test_failover_sheet(wb: Workbook, lang: str) -> None:
    ws = sheet(wb, "sheet_failover", lang)
    assert [c.value for c in ws[2]][:5] == ["prod", 1, label("yes", lang), 3, 0.74496]
    assert [c.value for c in ws[3]][:4] == ["'@SUM(1)", 1, label("no", lang), 2]
    assert ws.cell(row=2, column=5).number_format == "0.0%"
    assert ws.cell(row=2, column=6).value == label("dim_mem", lang)
    _, scenarios = table_below(ws, label("section_failover_scenarios", lang))
    assert len(scenarios) == 5
    # schema "1" scenarios name no worst dimension per scenario
    assert scenarios[0][:6] == ("prod", "prod-h01", "prod-h03", None, 0.74496, 2)
    assert scenarios[0][7:9] == (0, None)
    assert scenarios[3][6:9] == ("dev01 → @SUM(1)-h02", 1, "test01")
    _, failed = table_below(ws, label("section_failed_scenarios", lang))
    assert [r[:4] for r in failed] == [
        ("'@SUM(1)", "'@SUM(1)-h01", 1, "test01"),
        ("'@SUM(1)", "'@SUM(1)-h02", 1, "ci01"),
    ]


def test_power_sheet_and_charts(wb: Workbook, lang: str, plan: dict) -> None:
    ws = sheet(wb, "sheet_power", lang)
    power = plan["power"]
    assert [c.value for c in ws[2]][:3] == [
        with_unit(label("power_w", lang), "W"),
        power["before_w"],
        power["after_w"],
    ]
    assert ws.cell(row=4, column=1).value == with_unit(
        label("annual_cost", lang), "JPY"
    )
    change = ws.cell(row=4, column=4)
    assert change.data_type == "n"
    assert change.value == pytest.approx(-power["annual_saving"])
    assert change.number_format == "#,##0"
    assert ws.cell(row=4, column=5).number_format == "0.0%"
    assert item(ws, "power.saving_over_years")[1].value == pytest.approx(
        power["saving_over_years"]
    )
    assert item(ws, "power.pue")[1].number_format == "0.00"
    assert item(ws, "power.servers_power_from.assumed")[1].value == 1

    assert len(ws._charts) == 2
    assert all(isinstance(c, BarChart) for c in ws._charts)
    titles = [
        "".join(r.t for p in c.title.tx.rich.p for r in p.r or []) for c in ws._charts
    ]
    assert titles == [
        with_unit(label("chart_power", lang), "W"),
        with_unit(label("chart_cost", lang), "JPY"),
    ]


def test_quality_excluded_and_warnings(wb: Workbook, lang: str, plan: dict) -> None:
    ws = sheet(wb, "sheet_quality", lang)
    assert item(ws, "quality.confidence")[1].value == 0.92
    assert item(ws, "quality.confidence")[1].number_format == "0.0%"
    assert item(ws, "quality.notes[0]")[1].value == "'" + PROBE_NOTE
    head, rows = table_below(ws, label("section_quality_servers", lang))
    assert head[2:6] == [
        label(k, lang) for k in ("given", "derived", "assumed", "missing")
    ]
    assert len(rows) == 10
    probe = next(r for r in rows if r[0] == "'" + PROBE_NAME)
    assert probe[4] == label("power_w", lang)  # assumed field, translated

    ws = sheet(wb, "sheet_excluded", lang)
    assert [c.value for c in ws[2]] == ["fax01", plan["excluded"][0]["reason"]]
    ws = sheet(wb, "sheet_warnings", lang)
    assert ws.max_row == 1 + len(plan["warnings"])
    # plan_small.json holds schema-1 warnings (plain strings): message, no code.
    assert ws.cell(row=2, column=4).value == "'" + plan["warnings"][0]
    assert ws.cell(row=2, column=2).value is None


def test_structured_warnings_sheet(plan: dict, tmp_path: Path) -> None:
    doc = dict(plan)
    doc["warnings"] = [
        {"code": "assumed_cpu_peak_util", "message": "=1+1 peak assumed",
         "servers": ["a", "b"]},
        {"code": "low_confidence", "message": "Low data confidence", "servers": []},
    ]
    write_plan_xlsx(doc, tmp_path / "w.xlsx", lang="en")
    ws = load_workbook(tmp_path / "w.xlsx")[label("sheet_warnings", "en")]
    rows = [[c.value for c in r] for r in ws.iter_rows(min_row=2)]
    assert rows == [
        [1, "assumed_cpu_peak_util", 2, "'=1+1 peak assumed", "a, b"],
        [2, "low_confidence", 0, "Low data confidence", None],
    ]


def test_empty_warnings_sheet_says_so(plan: dict, tmp_path: Path) -> None:
    doc = dict(plan, warnings=[])
    write_plan_xlsx(doc, tmp_path / "w.xlsx", lang="en")
    ws = load_workbook(tmp_path / "w.xlsx")[label("sheet_warnings", "en")]
    assert ws.cell(row=2, column=4).value == "No warnings."


# -- formula safety ------------------------------------------------------------
def test_probe_cells_are_inert_text(wb: Workbook) -> None:
    probes = {PROBE_NAME, PROBE_GROUP, PROBE_POOL, PROBE_NOTE}
    seen = set()
    for cell in all_cells(wb):
        if isinstance(cell.value, str) and cell.value.lstrip("'") in probes:
            seen.add(cell.value.lstrip("'"))
            assert cell.value.startswith("'")
            assert cell.data_type == "s"
    assert seen == probes


def test_no_cell_is_a_formula_or_starts_like_one(wb: Workbook) -> None:
    # the Summary's cost cells are vsizer's formulas of cell references (issue 27)
    summary = wb.worksheets[0]
    own = {item(summary, path)[1].coordinate for path in COST_FORMULAS}
    for cell in all_cells(wb):
        if cell.parent is summary and cell.coordinate in own:
            assert cell.data_type == "f" and OWN_FORMULA.fullmatch(cell.value), cell.value
            continue
        assert cell.data_type != "f", cell.coordinate
        if isinstance(cell.value, str):
            assert not cell.value.startswith(FORMULA_START), (
                cell.parent.title,
                cell.coordinate,
            )


def test_no_formula_element_in_the_file(workbooks: dict, lang: str) -> None:
    path = workbooks[lang][0]
    with zipfile.ZipFile(path) as zf:
        for name in zf.namelist():
            if name.startswith("xl/worksheets/"):
                formulas = re.findall(rb"<f>(.*?)</f>", zf.read(name))
                assert b"<f " not in zf.read(name)
                if name == "xl/worksheets/sheet1.xml":  # the Summary's 4 cost cells
                    assert len(formulas) == 4
                    assert all(OWN_FORMULA.fullmatch("=" + f.decode()) for f in formulas)
                else:
                    assert formulas == []


def test_script_tag_is_kept_verbatim_as_text(wb: Workbook, lang: str) -> None:
    # HTML escaping belongs to the HTML report; a workbook shows the name as is.
    ws = sheet(wb, "sheet_servers", lang)
    cell = ws.cell(row=find_row(ws, 1, SCRIPT), column=1)
    assert cell.data_type == "s"


def test_negative_numbers_stay_numeric(plan: dict, tmp_path: Path) -> None:
    worse = copy.deepcopy(plan)
    worse["power"]["annual_saving"] = -1234.5
    worse["power"]["saving_over_years"] = -6172.5
    worse["parameters"]["price_kwh"] = None  # no price: figures, not formulas
    path = tmp_path / "worse.xlsx"
    write_plan_xlsx(worse, path)
    ws = load_workbook(path)["Summary"]
    cell = item(ws, "power.annual_saving")[1]
    assert cell.value == -1234.5
    assert cell.data_type == "n"
    assert cell.number_format == "#,##0"


# -- errors --------------------------------------------------------------------
@pytest.mark.parametrize("bad", ["fr", "EN", "", None])
def test_unknown_language_is_refused(plan: dict, tmp_path: Path, bad: Any) -> None:
    path = tmp_path / "x.xlsx"
    with pytest.raises(
        ValueError,
        match=rf"The 'lang' parameter of write_plan_xlsx must be one of 'en', 'ja'\. "
        rf"Got {bad!r} instead\.",
    ):
        write_plan_xlsx(plan, path, lang=bad)
    assert not path.exists()


def test_plan_missing_keys_are_all_listed(plan: dict, tmp_path: Path) -> None:
    broken = {k: v for k, v in plan.items() if k not in ("power", "warnings")}
    with pytest.raises(InputError, match="missing key 'power'") as info:
        write_plan_xlsx(broken, tmp_path / "x.xlsx")
    assert info.value.problems == [
        "plan: missing key 'power' (see docs/plan-schema.md).",
        "plan: missing key 'warnings' (see docs/plan-schema.md).",
    ]


def test_plan_of_another_schema_version_is_refused(plan: dict, tmp_path: Path) -> None:
    other = {**plan, "schema_version": "3"}
    with pytest.raises(InputError, match="expected '1' or '2', got '3'"):
        write_plan_xlsx(other, tmp_path / "x.xlsx")


def test_plan_must_be_a_dict(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="expected a dict .* got list"):
        write_plan_xlsx([], tmp_path / "x.xlsx")  # type: ignore[arg-type]


# -- keys added by vsizer.study.serialize beyond schema "1" -----------------------------
def test_keys_written_by_the_plan_renderer_are_shown(
    plan: dict, tmp_path: Path
) -> None:
    extra = copy.deepcopy(plan)
    for server in extra["servers"]:
        server["disk_mb_s"] = 12.5
        server["future_field"] = "x"
    extra["demand"]["totals"]["disk_mb_s"] = 125.0
    extra["pools"][1]["ceiling"] = 0.7
    extra["parameters"]["assume_util"] = 0.3
    extra["parameters"]["pools"] = {"@SUM(1)": {"ceiling": 0.7}}
    extra["host_model"]["cpu_score_basis"] = "SPECrate2017_int_base"
    extra["targets"][0]["met"] = None
    extra["targets"][0]["actual"] = None
    path = tmp_path / "extra.xlsx"
    write_plan_xlsx(extra, path)
    wb = load_workbook(path)
    servers = header(wb["Servers"])
    assert "Disk throughput [MB/s]" in servers and servers[-1] == "future_field"
    assert "Disk throughput [MB/s]" in header(wb["Demand"])
    hosts = wb["Hosts"]
    ceilings = [hosts.cell(row=r, column=9).value for r in range(2, 7)]
    assert ceilings == [0.8, 0.8, 0.8, 0.7, 0.7]
    title = "".join(r.t for p in hosts._charts[0].title.tx.rich.p for r in p.r or [])
    assert title == "Host utilization (ceiling 70%–80%)"
    summary = wb["Summary"]
    assert item(summary, "parameters.assume_util")[1].number_format == "0.0%"
    pools = item(summary, "parameters.pools")[1].value
    assert pools == '{"@SUM(1)": {"ceiling": 0.7}}'
    assert (
        item(summary, "host_model.cpu_score_basis")[1].value == "SPECrate2017_int_base"
    )
    assert find_row(summary, 5, "n/a") > 0


# -- reproducibility, reopening ------------------------------------------------
def test_output_is_byte_for_byte_reproducible(plan: dict, tmp_path: Path) -> None:
    a, b = tmp_path / "a.xlsx", tmp_path / "b.xlsx"
    write_plan_xlsx(plan, a, lang="ja")
    write_plan_xlsx(plan, b, lang="ja")
    assert a.read_bytes() == b.read_bytes()
    props = load_workbook(a).properties
    assert props.created == props.modified == FIXED_TIMESTAMP
    assert props.title == label("workbook_title", "ja")


@pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice not installed")
def test_libreoffice_opens_the_file_without_evaluating_probes(
    workbooks: dict, tmp_path: Path
) -> None:
    path = workbooks["en"][0]
    subprocess.run(
        [
            "soffice",
            "--headless",
            "--convert-to",
            "csv",
            "--outdir",
            str(tmp_path),
            str(path),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    text = (tmp_path / "plan.csv").read_text(encoding="utf-8", errors="replace")
    assert "'@SUM(1)" in text  # the summary's pool table, kept as text


# -- labels --------------------------------------------------------------------
def test_every_label_has_english_and_japanese_text() -> None:
    for key, texts in LABELS.items():
        assert set(texts) == set(LANGS), key
        assert all(texts[code].strip() for code in LANGS), key


def test_sheet_names_are_valid_excel_titles() -> None:
    for key in SHEET_KEYS:
        for code in LANGS:
            name = label(key, code)
            assert len(name) <= 31 and not set(name) & set("[]:*?/\\"), name


def test_label_fills_template_fields() -> None:
    assert label("saving_over_years", "ja", years=5) == "5年間の削減額"
    assert label("saving_over_years", "en", years=3) == "Saving over 3 years"
    assert label("hosts", "ja") == "ホスト数"
    assert label("consolidation_ratio", "ja").startswith("集約率")
    assert with_unit("Power", "W") == "Power [W]"
    assert with_unit("Power", None) == "Power"


def test_label_unknown_key_names_close_matches() -> None:
    with pytest.raises(
        KeyError, match=r"Unknown label key 'hostz'.*Did you mean 'host"
    ):
        label("hostz", "en")


def test_label_unknown_language_is_refused() -> None:
    with pytest.raises(
        ValueError,
        match=r"The 'lang' parameter of label must be one of 'en', 'ja'\. Got 'de'",
    ):
        label("hosts", "de")
