"""Host-model choice (``--host-model auto``): the winner by lowest TCO, the
fallback criterion when prices are missing, tie-breaking, determinism across
worker counts, and every error path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import vsizer
from tests.test_tco import REPO, SAMPLE, SCENARIO, _priced_catalog
from vsizer.cli.app import app
from vsizer.errors import CatalogLookupError, ConfigError
from vsizer.study.choice import candidate_hosts, is_auto
from vsizer.study.config import Rules, load_rules
from vsizer.study.ranking import BY_TCO, FALLBACK, Candidate, rank
from vsizer.study.tco import Tco

R740 = "Dell PowerEdge R740 2x Platinum 8180"
M6 = "Fujitsu PRIMERGY RX2530 M6 2x Platinum 8380"
EPYC = "Dell PowerEdge R7525 2x EPYC 7702"
REPO_SCENARIOS = REPO / "vsizer" / "data" / "scenarios"


def _tco(total: float | None) -> Tco:
    return Tco(5, "JPY", 1, 1, 1.0, total, 0.0 if total is not None else None,
               None, None, None, (), () if total is not None else ("capex",), ())


def test_rank_by_tco_survivors_first_then_ties() -> None:
    rows = [
        Candidate("b", 4, True, 900.0, _tco(100.0)),
        Candidate("a", 4, True, 900.0, _tco(100.0)),  # tie with b: name decides
        Candidate("c", 3, True, 800.0, _tco(100.0)),  # same TCO, fewer hosts wins
        Candidate("d", 2, False, 500.0, _tco(50.0)),  # cheapest but fails over
        Candidate("e", error="too small"),
    ]
    choice = rank(rows, 5, "JPY")
    assert choice.ranked_by == BY_TCO
    assert [c.model for c in choice.candidates] == ["c", "a", "b", "d", "e"]
    assert choice.winner == "c"
    assert "tie broken by the next key" in choice.why


def test_rank_falls_back_when_a_price_is_missing() -> None:
    rows = [
        Candidate("a", 5, True, 700.0, _tco(100.0)),
        Candidate("b", 4, True, 900.0, _tco(None)),
        Candidate("c", 4, True, 800.0, _tco(None)),
    ]
    choice = rank(rows, 5, "JPY")
    assert choice.ranked_by == FALLBACK
    assert [c.model for c in choice.candidates] == ["c", "b", "a"]
    assert "2 of 3 candidates lack a price (capex" in choice.why


def test_no_candidate_plans_is_an_error_listing_each() -> None:
    with pytest.raises(ConfigError) as exc:
        rank([Candidate("x", error="VM too big")], 5, "JPY")
    assert exc.value.problems == [
        "--host-model auto: no candidate could be planned (1 tried).",
        "candidate 'x': VM too big",
    ]


@pytest.fixture(scope="module")
def priced(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cand") / "candidates.csv"
    return _priced_catalog(path, {
        R740: (1_000_000.0, 100_000.0),
        M6: (2_000_000.0, 100_000.0),
        EPYC: (3_000_000.0, 100_000.0),
    })


def test_auto_picks_the_lowest_tco_not_the_fewest_hosts(priced: Path) -> None:
    rules = load_rules(SCENARIO).replace(host_model="auto", candidates_file=str(priced))
    result = vsizer.plan(SAMPLE, rules=rules, workers=1)
    doc = result.to_dict()
    ch = doc["choice"]
    assert ch["ranked_by"] == BY_TCO
    rows = {c["model"]: c for c in ch["candidates"]}
    for c in rows.values():  # the parts add up, by hand
        assert c["capex"] == c["hosts"] * {R740: 1e6, M6: 2e6, EPYC: 3e6}[c["model"]]
        assert c["tco"] == pytest.approx(c["capex"] + c["hosts"] * 100_000 * 5
                                         + c["energy_cost"])
    assert rows[EPYC]["hosts"] < rows[M6]["hosts"]  # fewer hosts ...
    assert ch["winner"] == M6 == doc["inputs"]["host_model"]  # ... but dearer
    assert [c["rank"] for c in ch["candidates"]] == [1, 2, 3]
    assert sorted(c["tco"] for c in ch["candidates"]) == [
        c["tco"] for c in ch["candidates"]
    ]
    assert doc["tco"]["total"] == rows[M6]["tco"]
    assert doc["summary"]["hosts"] == rows[M6]["hosts"]
    assert doc["inputs"]["host_catalog"] == "candidates.csv"


def test_same_document_for_one_or_two_workers(priced: Path) -> None:
    rules = load_rules(SCENARIO).replace(candidates_file=str(priced))  # implies auto
    one = vsizer.plan(SAMPLE, rules=rules, workers=1).to_json()
    two = vsizer.plan(SAMPLE, rules=rules, workers=2).to_json()
    assert one == two


def test_candidates_by_name_without_prices_use_the_fallback() -> None:
    rules = load_rules(SCENARIO).replace(
        host_model="auto", candidates=(R740, EPYC, "Blade 2x Xeon L5520")
    )
    ch = vsizer.plan(SAMPLE, rules=rules, workers=1).to_dict()["choice"]
    assert ch["ranked_by"] == FALLBACK and ch["winner"] == EPYC
    blade = ch["candidates"][-1]
    assert blade["model"] == "Blade 2x Xeon L5520" and blade["hosts"] is None
    assert blade["error"].startswith("pool '本番': VM ")
    assert blade["error"].endswith("more problems)")


def test_candidate_resolution_and_errors(priced: Path) -> None:
    assert is_auto(Rules(host_model="AUTO")) and is_auto(Rules(candidates=(R740,)))
    assert not is_auto(Rules(host_model=R740))
    hosts, name = candidate_hosts(Rules(host_model="auto", host_catalog=str(priced)))
    assert sorted(h.model for h in hosts) == sorted([R740, M6, EPYC])
    assert name == "candidates.csv"
    with pytest.raises(ConfigError) as exc:
        candidate_hosts(Rules(host_model=R740, candidates=(M6,)))
    assert str(exc.value).startswith(f"--host-model '{R740}' names one model;")
    with pytest.raises(CatalogLookupError, match="Host model 'nope' is not in"):
        candidate_hosts(Rules(host_model="auto", candidates=("nope",)))


def test_cli_auto_with_candidates_file(priced: Path, tmp_path: Path) -> None:
    out = tmp_path / "plan.json"
    res = CliRunner().invoke(app, [
        "plan", str(SAMPLE), "--config", str(SCENARIO), "--host-model", "auto",
        "--candidates", str(priced), "--years", "3", "--lang", "en", "-o", str(out),
    ])
    assert res.exit_code == 0, res.output
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert doc["choice"]["years"] == 3 and doc["tco"]["years"] == 3
    assert f"Chosen host model: {doc['choice']['winner']}" in " ".join(res.output.split())


def test_compare_can_use_auto_per_scenario() -> None:
    from vsizer.study.compare import Scenario, compare, load_scenario

    older = REPO_SCENARIOS / "older-r740-8180.toml"
    base = load_scenario(older)
    auto = Scenario(
        "auto", base.rules.replace(host_model="auto", candidates=(R740, EPYC))
    )
    doc = compare([auto, older], SAMPLE)
    entries = {e["name"]: e for e in doc["scenarios"]}
    assert entries["auto"]["host_model"] == EPYC
    assert doc["plans"]["auto"]["choice"]["winner"] == EPYC
    assert "choice" not in doc["plans"][base.name]


def test_auto_on_series_checks_failover_on_the_curves() -> None:
    from vsizer.series.sources import load_series

    series = load_series([REPO / "tests/data/series/tabular/wide_percent.csv"], "wide")
    rules = Rules(host_model="auto", candidates=(R740, EPYC), vm_cpu_mhz=2000.0,
                  vm_mem_gib=4.0)
    one = vsizer.plan(None, series=series, rules=rules, workers=1)
    two = vsizer.plan(None, series=series, rules=rules, workers=2)
    assert one.to_json() == two.to_json()
    doc = one.to_dict()
    assert doc["series"] is not None and all(p.sizing.on_curves for p in one.pools)
    assert {c["model"] for c in doc["choice"]["candidates"]} == {R740, EPYC}
    assert doc["choice"]["winner"] == doc["inputs"]["host_model"]


def test_reports_escape_and_neutralize_candidate_names(tmp_path: Path) -> None:
    from openpyxl import load_workbook

    from vsizer.reporting import write_plan_html, write_plan_xlsx

    evil = '=HYPERLINK("http://x","y")<script>alert(1)</script>'
    hosts = tmp_path / "h.csv"
    rows = (REPO / "vsizer/catalogs/data/hosts.csv").read_text(encoding="utf-8")
    head, r740 = rows.splitlines()[0], next(
        line for line in rows.splitlines() if line.startswith(R740 + ",")
    )
    hosts.write_text(
        head + "\n" + r740 + "\n" + r740.replace(R740, '"' + evil.replace('"', '""') + '"')
        + "\n", encoding="utf-8",
    )
    rules = load_rules(SCENARIO).replace(host_model="auto", candidates_file=str(hosts))
    doc = vsizer.plan(SAMPLE, rules=rules, workers=1).to_dict()
    assert {c["model"] for c in doc["choice"]["candidates"]} == {R740, evil}
    html, xlsx = tmp_path / "r.html", tmp_path / "r.xlsx"
    write_plan_html(doc, html)
    write_plan_xlsx(doc, xlsx)
    text = html.read_text(encoding="utf-8")
    assert "<script>alert(1)" not in text and "&lt;script&gt;alert(1)" in text
    ws = load_workbook(xlsx)["Host choice"]
    cells = [c for row in ws.iter_rows() for c in row if isinstance(c.value, str)]
    names = [c for c in cells if "HYPERLINK" in c.value]
    assert names and all(c.value.startswith("'=") and c.data_type == "s" for c in names)


def test_a_named_host_model_argument_is_not_a_choice() -> None:
    p = vsizer.plan(SAMPLE, EPYC, rules=load_rules(SCENARIO).replace(host_model="auto"))
    assert p.host.model == EPYC and p.choice is None
