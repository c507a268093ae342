"""Tests of the what-if comparison (vsizer.study.compare, vsizer compare, its reports).

The two bundled scenarios plan the bundled 40-server sample (37 migrated) on an
older Dell PowerEdge R740 2x Platinum 8180 and a current Fujitsu PRIMERGY
RX2530 M6 2x Platinum 8380. Figures asserted are captured outputs of this
version (9 vs 5 hosts); the recommendation rules are checked on hand-made
entries.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from openpyxl import load_workbook
from openpyxl.chart import BarChart
from typer.testing import CliRunner

from vsizer.cli import app
from vsizer.errors import ConfigError, InputError
from vsizer.reporting._html_compare import compare_html
from vsizer.reporting._xlsx_compare import write_compare_xlsx
from vsizer.study.compare import Scenario, _recommend, compare, load_scenario
from vsizer.study.config import Rules

REPO = Path(__file__).resolve().parents[1]
SCENARIOS = REPO / "vsizer" / "data" / "scenarios"
OLDER = SCENARIOS / "older-r740-8180.toml"
CURRENT = SCENARIOS / "current-rx2530m6-8380.toml"
INVENTORY = REPO / "vsizer" / "data" / "samples" / "inventory_ja.xlsx"


@pytest.fixture(scope="module")
def doc() -> dict[str, Any]:
    return compare([OLDER, CURRENT])


def test_bundled_scenarios_give_one_entry_each(doc: dict[str, Any]) -> None:
    names = [e["name"] for e in doc["scenarios"]]
    assert names == [
        "Older: PowerEdge R740 2x Platinum 8180",
        "Current: PRIMERGY RX2530 M6 2x Platinum 8380",
    ]
    older, current = doc["scenarios"]
    assert older["host_model"] == "Dell PowerEdge R740 2x Platinum 8180"
    assert current["host_model"] == "Fujitsu PRIMERGY RX2530 M6 2x Platinum 8380"
    assert (older["servers"], current["servers"]) == (37, 37)
    assert (older["hosts"], current["hosts"]) == (9, 5)
    assert (older["host_cores"], current["host_cores"]) == (56, 80)
    assert older["survives_failover"] and current["survives_failover"]
    assert doc["inventory"] == "inventory_ja.xlsx"
    assert set(doc["plans"]) == set(names)
    # entries are read from their plans
    plan = doc["plans"][names[0]]
    assert older["power_after_w"] == plan["power"]["after_w"]
    assert older["worst_survivor_util"] == plan["summary"]["worst_survivor_util"]


def test_recommendation_names_its_criterion(doc: dict[str, Any]) -> None:
    rec = doc["recommendation"]
    assert rec["scenario"] == "Current: PRIMERGY RX2530 M6 2x Platinum 8380"
    assert rec["criterion"] == "hosts"  # the catalog has no host prices
    assert (rec["value"], rec["runner_up_value"]) == (5, 9)
    assert rec["reason"].startswith("fewest hosts (5), then lowest power after")
    assert "no host price" in rec["reason"]


def test_comparison_json_is_deterministic(doc: dict[str, Any]) -> None:
    again = compare([OLDER, CURRENT])
    assert json.dumps(doc, ensure_ascii=False) == json.dumps(again, ensure_ascii=False)


def _entry(name: str, **kw: Any) -> dict[str, Any]:
    base = {
        "name": name,
        "hosts": 4,
        "power_after_w": 1000.0,
        "survives_failover": True,
        "targets_met": 1,
        "targets_evaluated": 1,
        "currency": "JPY",
        "years": 5,
        "total_cost_over_years": None,
    }
    return {**base, **kw}


def test_total_cost_wins_when_every_scenario_is_priced() -> None:
    # A: 4 hosts x 1,000,000 + 100,000/year x 5 = 4,500,000
    # B: 5 hosts x   700,000 +  80,000/year x 5 = 3,900,000 -> B despite more hosts
    rec = _recommend(
        [
            _entry("A", total_cost_over_years=4_500_000.0),
            _entry("B", hosts=5, total_cost_over_years=3_900_000.0),
        ]
    )
    assert (rec["scenario"], rec["criterion"], rec["runner_up"]) == (
        "B",
        "total_cost_over_years",
        "A",
    )
    assert rec["reason"] == (
        "lowest cost over 5 years (host purchase + electricity): 3,900,000 JPY "
        "against 4,500,000 for A."
    )


def test_failing_and_target_missing_scenarios_are_excluded() -> None:
    rec = _recommend(
        [
            _entry("small", hosts=3, survives_failover=False),
            _entry("miss", hosts=4, targets_met=0),
            _entry("ok", hosts=6),
        ]
    )
    assert rec["scenario"] == "ok"
    assert rec["excluded"] == [
        {"scenario": "small", "reason": "does not survive its failover check"},
        {"scenario": "miss", "reason": "misses a stated target"},
    ]


def test_ties_on_hosts_go_to_lower_power() -> None:
    rec = _recommend(
        [_entry("a", power_after_w=900.0), _entry("b", power_after_w=800.0)]
    )
    assert rec["scenario"] == "b"


def test_no_recommendation_when_none_survives() -> None:
    rec = _recommend([_entry("a", survives_failover=False)])
    assert rec["scenario"] is None
    assert rec["reason"].startswith("no scenario survives its failover check")


def test_load_scenario_reads_its_table(tmp_path: Path) -> None:
    s = load_scenario(OLDER)
    assert s.name == "Older: PowerEdge R740 2x Platinum 8180"
    assert s.rules.host_model == "Dell PowerEdge R740 2x Platinum 8180"
    assert s.rules.pools["開発"].ceiling == 0.8
    assert s.inventory == SCENARIOS / "../samples/inventory_ja.xlsx"
    plain = tmp_path / "ceiling70.toml"
    plain.write_text("[sizing]\nceiling = 0.7\n", encoding="utf-8")
    s = load_scenario(plain)
    assert (s.name, s.rules.ceiling, s.inventory) == ("ceiling70", 0.7, None)


def test_load_scenario_lists_every_problem(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(
        '[scenario]\nname = ""\ncolour = "red"\n[sizing]\nceilin = 0.7\n',
        encoding="utf-8",
    )
    with pytest.raises(ConfigError) as info:
        load_scenario(bad)
    assert str(info.value).splitlines() == [
        f"{bad}: key 'scenario.name': expected a non-empty text, got ''.",
        f"{bad}: unknown key 'scenario.colour'; accepted: name, description, "
        "inventory.",
        f"{bad}: unknown key 'sizing.ceilin'; accepted: ceiling, failures, "
        "min_hosts, vcpu_per_core, failover_limit, failover_budget, cpu_basis, assume_util, min_confidence, "
        "rightsize.",
    ]


def test_load_scenario_file_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="nope.toml: file not found."):
        load_scenario(tmp_path / "nope.toml")
    broken = tmp_path / "broken.toml"
    broken.write_text("[sizing\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="broken.toml: not valid TOML"):
        load_scenario(broken)


def test_compare_needs_two_distinct_scenarios_and_one_inventory(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="expected at least 2 scenarios, got 1"):
        compare([OLDER])
    with pytest.raises(ConfigError, match="scenario name 'Older: PowerEdge R740 2x"):
        compare([OLDER, OLDER])
    a = Scenario("a", Rules())
    b = Scenario("b", Rules(ceiling=0.7))
    with pytest.raises(ConfigError, match="no inventory: give --inventory"):
        compare([a, b])
    c = Scenario("c", Rules(), inventory=tmp_path / "x.xlsx")
    d = Scenario("d", Rules(), inventory=tmp_path / "y.xlsx")
    with pytest.raises(ConfigError, match="name different inventories"):
        compare([c, d])


def test_inventory_argument_overrides_and_ceilings_compare(tmp_path: Path) -> None:
    # the same host at 60 % and 70 %: a higher ceiling never needs more hosts
    a = Scenario("60 %", Rules(ceiling=0.6))
    b = Scenario("70 %", Rules(ceiling=0.7))
    doc = compare([a, b], INVENTORY)
    hosts = [e["hosts"] for e in doc["scenarios"]]
    assert hosts[1] <= hosts[0]
    assert [e["ceiling"] for e in doc["scenarios"]] == [0.6, 0.7]


def test_compare_html_side_by_side_and_escaped(doc: dict[str, Any]) -> None:
    probe = {**doc, "scenarios": [dict(e) for e in doc["scenarios"]]}
    probe["scenarios"][0]["name"] = "<script>alert(1)</script>"
    probe["recommendation"] = {
        **doc["recommendation"],
        "scenario": "<script>alert(1)</script>",
    }
    text = compare_html(probe, lang="ja")
    rest = text[text.index("</head>") :]
    assert "<script>alert(1)</script>" not in rest
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in rest
    assert "推奨：&lt;script&gt;" in rest
    assert '<section id="scenarios">' in rest and '<section id="charts">' in rest


def test_compare_html_refuses_other_documents() -> None:
    with pytest.raises(InputError, match="expected the dict of vsizer.study.compare.compare"):
        compare_html({"x": 1})


def test_compare_workbook_has_charts_and_safe_names(
    doc: dict[str, Any], tmp_path: Path
) -> None:
    probe = {**doc, "scenarios": [dict(e) for e in doc["scenarios"]]}
    probe["scenarios"][1]["name"] = "=cmd|' /C calc'!A0"
    path = tmp_path / "c.xlsx"
    write_compare_xlsx(probe, path)
    ws = load_workbook(path).active
    assert [c.value for c in ws[1]] == [
        "Item",
        "Older: PowerEdge R740 2x Platinum 8180",
        "'=cmd|' /C calc'!A0",
    ]
    assert ws.cell(row=1, column=3).data_type == "s"
    hosts = next(r for r in ws.iter_rows(values_only=True) if r[0] == "Hosts")
    assert hosts == ("Hosts", 9, 5)
    assert ws.freeze_panes == "B2"
    assert ws.auto_filter.ref
    charts = ws._charts
    assert len(charts) == 2 and all(isinstance(c, BarChart) for c in charts)


def test_cli_compare_writes_every_format(tmp_path: Path) -> None:
    outs = [tmp_path / "c.json", tmp_path / "c.html", tmp_path / "c.xlsx"]
    args = ["compare", str(OLDER), str(CURRENT)]
    for p in outs:
        args += ["-o", str(p)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert (
        "Recommendation: Current: PRIMERGY RX2530 M6 2x Platinum 8380" in result.output
    )
    data = json.loads(outs[0].read_text(encoding="utf-8"))
    assert len(data["scenarios"]) == 2
    assert outs[1].read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert load_workbook(outs[2]).active.max_row > 10


def test_cli_compare_errors_exit_2(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(
        app, ["compare", str(OLDER), str(CURRENT), "-o", str(tmp_path / "c.pdf")]
    )
    assert result.exit_code == 2
    assert "error: -o " in result.output
    assert (
        "unsupported output format '.pdf'; use .html, .json or .xlsx." in result.output
    )
    result = runner.invoke(app, ["compare", str(OLDER)])
    assert result.exit_code == 2
    assert "error: compare: expected at least 2 scenarios, got 1." in result.output
    result = runner.invoke(app, ["compare", str(OLDER), str(CURRENT), "--lang", "fr"])
    assert result.exit_code == 2
    assert "The 'lang' option must be 'en' or 'ja'. Got 'fr' instead." in result.output
