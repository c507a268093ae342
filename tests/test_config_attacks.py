"""Scenario files as users write them and as attacks shape them (issue 24).

A UTF-8 BOM (Notepad's default) is read; nesting thousands deep is one error
line, not a traceback; a ``[pools."NAME"]`` table that names no pool is an
error listing the pools, and one that differs only in case applies, warned.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from vsizer._toml import MAX_TOML_DEPTH, parse_toml
from vsizer.cli import app

DATA = Path(__file__).parent / "data" / "inventory"
INVENTORY = str(DATA / "table_en.csv")
runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, list(args), env={"COLUMNS": "250"})


def test_a_byte_order_mark_is_skipped(tmp_path):
    cfg = tmp_path / "bom.toml"
    cfg.write_bytes(b"\xef\xbb\xbf[sizing]\nceiling = 0.55\n")
    out = tmp_path / "plan.json"
    res = run("plan", INVENTORY, "-q", "--config", str(cfg), "-o", str(out))
    assert res.exit_code == 0, res.output
    assert json.loads(out.read_text(encoding="utf-8"))["parameters"]["ceiling"] == 0.55


def test_deep_nesting_is_one_error_line(tmp_path):
    cfg = tmp_path / "deep.toml"
    cfg.write_text("a = " + "[" * 5000 + "]" * 5000 + "\n", encoding="utf-8")
    res = run("plan", INVENTORY, "-q", "--config", str(cfg))
    assert res.exit_code == 2
    assert res.output.strip() == (
        f"error: {cfg}: tables or arrays nested more than 32 levels deep; a scenario "
        "file needs at most 3."
    )
    # just past the limit, where the parser itself copes, the same line
    text = "a = " + "[" * (MAX_TOML_DEPTH + 1) + "]" * (MAX_TOML_DEPTH + 1)
    try:
        parse_toml(text, "x.toml")
    except Exception as exc:  # noqa: BLE001 - the message is what is checked
        assert str(exc).startswith("x.toml: tables or arrays nested more than 32")
    else:
        raise AssertionError("no error")
    ok = "a = " + "[" * (MAX_TOML_DEPTH - 1) + "]" * (MAX_TOML_DEPTH - 1)
    assert list(parse_toml(ok, "x")) == ["a"]  # the document itself is one level


def test_a_pool_override_naming_no_pool_is_an_error_listing_the_pools(tmp_path):
    cfg = tmp_path / "pools.toml"
    cfg.write_text('[pools."nosuch"]\nceiling = 0.5\n', encoding="utf-8")
    res = run("plan", INVENTORY, "-q", "--config", str(cfg))
    assert res.exit_code == 2
    assert res.output.strip() == (
        "error: [pools.'nosuch'] matches no pool of the inventory; its pools are "
        "'prod', 'dev' (names are matched exactly, else ignoring case)."
    )


def test_a_pool_override_differing_in_case_applies_and_is_warned(tmp_path):
    out_exact, out_case = tmp_path / "exact.json", tmp_path / "case.json"
    for name, out in (("prod", out_exact), ("PROD", out_case)):
        cfg = tmp_path / f"{name}.toml"
        cfg.write_text(f'[pools."{name}"]\nceiling = 0.9\n', encoding="utf-8")
        res = run("plan", INVENTORY, "-q", "--config", str(cfg), "-o", str(out))
        assert res.exit_code == 0, res.output
    exact = json.loads(out_exact.read_text(encoding="utf-8"))
    case = json.loads(out_case.read_text(encoding="utf-8"))
    prod = [p for p in case["pools"] if p["name"] == "prod"][0]
    assert prod["ceiling"] == 0.9
    assert [p["hosts"] for p in case["pools"]] == [p["hosts"] for p in exact["pools"]]
    warned = [w for w in case["warnings"] if w["code"] == "pool_override_case"]
    assert [w["message"] for w in warned] == [
        "[pools.'PROD'] applied to pool 'prod' (the names differ only in case)."
    ]


@pytest.mark.slow
def test_unbounded_failover_parameters_finish_within_the_budget_and_warn(tmp_path):
    """--failures 8 --min-hosts 40 (C(40, 8) = 76,904,685 scenarios) ran until killed;
    now each check takes 5,000,000 // (40 x 8) = 15,625 scenarios and says so."""
    out = tmp_path / "plan.json"
    res = run(
        "plan", INVENTORY, "-q", "--failures", "8", "--min-hosts", "40",
        "--failover-budget", "50000", "-o", str(out),
    )
    assert res.exit_code == 0, res.output
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert [len(p["hosts"]) for p in doc["pools"]] == [40, 40]
    sampled = [w["message"] for w in doc["warnings"] if w["code"] == "failover_sampled"]
    assert sampled == [
        f"Pool {pool}: N+8 checked on 156 of 76,904,685 failure scenarios, those "
        "failing the most loaded hosts first; every one checked was survived, the "
        "others were not checked. Raise --failover-budget (now 50,000 "
        "host-scenarios) for a complete check."
        for pool in ("prod", "dev")
    ]


def test_a_failover_budget_below_one_is_refused():
    res = run("plan", INVENTORY, "-q", "--failover-budget", "0")
    assert res.exit_code == 2
    assert "failover_budget" in res.output or "--failover-budget" in res.output
