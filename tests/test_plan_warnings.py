"""Structured warnings and the confidence headline: one list in the JSON, the
terminal, the Excel workbook and the HTML report; "No warnings." only when empty."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from openpyxl import load_workbook
from typer.testing import CliRunner

import vsizer
from vsizer.cli import app
from vsizer.quality import PlanWarning, QualityReport, assumption_warnings
from vsizer.reporting.html import plan_html
from vsizer.reporting.labels import label

runner = CliRunner()

# Three servers with no utilization at all. Of the five key fields, mem_gib and
# power_w are given (weight 1); cpu_avg_util and cpu_peak_util are the assume_util
# rule and cpu_capacity is the clock x the host's score per MHz (all assumed,
# weight 0.25): confidence = (1 + 1 + 3 x 0.25) / 5 = 0.55 for every server.
NO_UTIL = (
    "name,sockets,cores_per_socket,cpu_mhz,mem_gib,power_w\n"
    "a,2,4,2400,16,300\n"
    "b,2,4,2400,16,300\n"
    "c,2,4,2400,16,300\n"
)

# The same with utilization, pools, groups and the migrate flag given.
FULL = (
    "name,sockets,cores_per_socket,cpu_mhz,cpu_avg_pct,cpu_peak_pct,mem_gib,power_w,"
    "pool,group,migrate\n"
    "a,2,4,2400,10,20,16,300,p,g,yes\n"
    "b,2,4,2400,10,20,16,300,p,g,yes\n"
    "c,2,4,2400,10,20,16,300,p,g,yes\n"
)


def _plan(tmp_path: Path, text: str, **kw: object) -> dict:
    path = tmp_path / "inv.csv"
    path.write_text(text, encoding="utf-8")
    return vsizer.plan(path, **kw).to_dict()


def test_quality_warn_merges_servers_of_the_same_warning() -> None:
    q = QualityReport()
    q.warn("x", "same text", ["a"])
    q.warn("x", "same text", ["b", "a"])
    q.warn("x", "other text", ["c"])
    assert q.warnings == [
        PlanWarning("x", "same text", ("a", "b")),
        PlanWarning("x", "other text", ("c",)),
    ]


def test_assumption_warnings_one_per_status_and_field() -> None:
    q = QualityReport()
    q.record("a", "cpu_peak_util", "assumed", "no peak")
    q.record("b", "cpu_peak_util", "assumed", "no peak")
    q.record("c", "cpu_avg_util", "estimated", "from host h1 CPU usage 20 %")
    q.record("d", "cpu_avg_util", "estimated", "from host h2 CPU usage 30 %")
    q.record("e", "mem_gib", "given")
    assert assumption_warnings(q) == [
        PlanWarning(
            "assumed_cpu_peak_util", "cpu_peak_util assumed for 2 servers: no peak.",
            ("a", "b"),
        ),
        PlanWarning(
            "estimated_cpu_avg_util",
            "cpu_avg_util estimated for 2 servers, e.g. 'c': from host h1 CPU usage "
            "20 % (each server's note is in the data-quality table).",
            ("c", "d"),
        ),
    ]
    assert assumption_warnings(q, ["e"]) == []


def test_low_confidence_plan_says_so_first(tmp_path: Path) -> None:
    doc = _plan(tmp_path, NO_UTIL)
    s = doc["summary"]
    assert s["confidence"] == pytest.approx(0.55)
    assert s["confidence_threshold"] == 0.7
    assert s["low_confidence"] is True
    assert s["warnings"] == len(doc["warnings"])
    first = doc["warnings"][0]
    assert first["code"] == "low_confidence"
    assert first["message"].startswith("Low data confidence: 55%, below 70%.")
    assert "--min-confidence" in first["message"]
    codes = [w["code"] for w in doc["warnings"]]
    assert "assumed_cpu_peak_util" in codes and "assumed_cpu_avg_util" in codes
    peak = next(w for w in doc["warnings"] if w["code"] == "assumed_cpu_peak_util")
    assert peak["servers"] == ["a", "b", "c"]


def test_min_confidence_moves_the_threshold(tmp_path: Path) -> None:
    doc = _plan(tmp_path, NO_UTIL, min_confidence=0.5)
    assert doc["summary"]["low_confidence"] is False
    assert doc["parameters"]["min_confidence"] == 0.5
    assert "low_confidence" not in [w["code"] for w in doc["warnings"]]


def test_terminal_shows_headline_and_every_warning(tmp_path: Path) -> None:
    path = tmp_path / "inv.csv"
    path.write_text(NO_UTIL, encoding="utf-8")
    res = runner.invoke(app, ["plan", str(path), "--detail"], env={"COLUMNS": "250"})
    assert res.exit_code == 0, res.output
    assert "Low data confidence (55.0%, below 70.0%)" in res.output
    doc = _plan(tmp_path, NO_UTIL)
    assert f"Warnings ({len(doc['warnings'])})" in res.output
    for w in doc["warnings"]:
        assert w["code"] in res.output
    assert "No warnings." not in res.output


def test_json_excel_html_carry_the_same_warnings(tmp_path: Path) -> None:
    path = tmp_path / "inv.csv"
    path.write_text(NO_UTIL, encoding="utf-8")
    outs = [tmp_path / "p.json", tmp_path / "p.xlsx", tmp_path / "p.html"]
    args = ["plan", str(path), "-q"] + [a for o in outs for a in ("-o", str(o))]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    doc = json.loads(outs[0].read_text(encoding="utf-8"))
    ws = load_workbook(outs[1])[label("sheet_warnings", "en")]
    rows = [[c.value for c in r] for r in ws.iter_rows(min_row=2)]
    assert [r[1] for r in rows] == [w["code"] for w in doc["warnings"]]
    assert [r[2] for r in rows] == [len(w["servers"]) for w in doc["warnings"]]
    html = outs[2].read_text(encoding="utf-8")
    for w in doc["warnings"]:
        assert f"<td>{w['code']}</td>" in html
    assert 'class="banner-warn"' in html
    assert '<div class="lowconf">' in html  # pool verdicts amber, not green
    assert label("no_warnings", "en") not in html


def test_no_warnings_only_when_the_list_is_empty(tmp_path: Path) -> None:
    doc = _plan(tmp_path, FULL)
    doc["warnings"] = []
    html = plan_html(doc)
    assert label("no_warnings", "en") in html
    doc["warnings"] = [{"code": "k", "message": "<b>m</b>", "servers": ["s"]}]
    html = plan_html(doc)
    assert label("no_warnings", "en") not in html
    assert "&lt;b&gt;m&lt;/b&gt;" in html


def test_min_confidence_flag_is_checked() -> None:
    res = runner.invoke(app, ["plan", "x.csv", "--min-confidence", "1.5"])
    assert res.exit_code == 2
    assert "The 'min_confidence' parameter of plan (--min-confidence, [sizing] min_confidence) must be" in res.output


def test_terminal_shows_series_coverage_per_pool(tmp_path: Path) -> None:
    # One low series (print01 at 2 %) for the 37-server sample: the pool of print01
    # has 1 of its 28 servers on a curve, the other pool none of its 9.
    rows = ["server,timestamp,metric,value,unit"] + [
        f"print01,2024-01-01T{h:02d}:{m:02d}:00Z,cpu_util,2,%"
        for h in range(24) for m in range(0, 60, 5)
    ]
    series = tmp_path / "low.csv"
    series.write_text("\n".join(rows) + "\n", encoding="utf-8")
    inv = Path(vsizer.__file__).parent / "data" / "samples" / "inventory_ja.xlsx"
    res = runner.invoke(
        app,
        ["plan", str(inv), "--series", str(series), "--series-format", "long",
         "--failures", "0", "--detail", "--lang", "en"],
        env={"COLUMNS": "250"},
    )
    assert res.exit_code == 0, res.output
    assert "Servers with series" in res.output
    assert "1 / 28" in res.output and "0 / 9" in res.output


def test_plan_bytes_do_not_depend_on_how_the_series_path_is_typed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue 12: a quality note echoed the path as typed ('st' vs '/abs/st').
    wide = Path(__file__).parent / "data" / "series" / "tabular" / "wide_percent.csv"
    monkeypatch.chdir(tmp_path)
    res = runner.invoke(app, ["import", str(wide), "--format", "wide", "--store", "st"])
    assert res.exit_code == 0, res.output
    outs = []
    for series in ("st", str(tmp_path / "st")):
        out = tmp_path / f"{len(outs)}.json"
        res = runner.invoke(app, ["plan", "--series", series, "--vm-cpu-mhz", "2000",
                                  "--vm-mem-gib", "4", "-q", "-o", str(out)])
        assert res.exit_code == 0, res.output
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]


def test_low_confidence_is_decided_on_the_figure_shown():
    # issue 23 (RVTools 4.7.1.4 export): confidence 0.699999... was warned as
    # "70%, below 70%" while the summary (rounded to 0.7) said it was not low
    from vsizer.quality import below_threshold

    assert not below_threshold(0.7 - 1e-12, 0.7)
    assert not below_threshold(0.69996, 0.7)  # shown as 0.7
    assert below_threshold(0.69994, 0.7)  # shown as 0.6999
    assert below_threshold(0.5, 0.7) and not below_threshold(0.9, 0.7)
