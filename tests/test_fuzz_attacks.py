"""The attack families of the fuzz suite and their oracle (issue 24).

Every variant of ``output_is_input`` and ``toml_attack`` ends as it must
(in-process), two plans forked at once on one output set leave one run's
set, and the oracle itself catches what it is there to catch: an input
rewritten, a mixed set, an expected error that did not come, a missing
warning, a run over its family's budget.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest

from tests.fuzz.attacks import (
    ATTACKS,
    BUDGETS,
    Attack,
    budget_of,
    judge_attack,
    mixed_set,
    over_budget,
    write_attack,
)
from tests.fuzz.harness import (
    _child,
    judge_log,
    rss_added_mib,
    run_forked,
    run_inprocess,
)
from tests.fuzz.oracle import Outcome

pytestmark = [pytest.mark.slow, pytest.mark.fuzz]


def _variants(family: str) -> dict[str, Attack]:
    """One attack per variant of ``family`` (drawn from seeded Randoms)."""
    out: dict[str, Attack] = {}
    for i in range(200):
        attack = ATTACKS[family](random.Random(i))
        out.setdefault(attack.variant, attack)
    return out


def _run(attack: Attack, where: Path) -> Outcome:
    (argv,), before = write_attack(attack, where)
    budget = budget_of(attack.family).seconds  # the family's budget, as in make fuzz
    return judge_attack(attack, where, run_inprocess(argv, budget), before)


@pytest.mark.parametrize("family", ["output_is_input", "toml_attack", "series_time"])
def test_every_variant_ends_as_it_must(tmp_path: Path, family: str) -> None:
    variants = _variants(family)
    assert len(variants) >= 7
    for name, attack in variants.items():
        where = tmp_path / name
        where.mkdir()
        outcome = _run(attack, where)
        expected = ("success", "clean_error") if attack.expect == "either" else (attack.expect,)
        assert outcome.status in expected, (name, outcome)
        assert outcome.violations == [], (name, outcome)


def test_the_issue_reproducer_keeps_the_workbook(tmp_path: Path) -> None:
    attack = _variants("output_is_input")["xlsx"]
    outcome = _run(attack, tmp_path)
    assert outcome.status == "clean_error"
    inv = tmp_path / "inv.xlsx"
    assert outcome.detail.startswith(
        f"error: -o {inv}: is the inventory of this run ({inv}); vsizer never ")
    assert outcome.violations == []  # the workbook kept its bytes


def test_parameters_stay_within_budget(tmp_path: Path) -> None:
    attack = _variants("parameters")["budget_one"]
    outcome = _run(attack, tmp_path)
    assert outcome.status == "success", outcome
    doc = json.loads((tmp_path / "out" / "plan.json").read_text(encoding="utf-8"))
    assert "failover_sampled" in {w["code"] for w in doc["warnings"]}


def test_two_plans_at_once_leave_one_runs_set(tmp_path: Path) -> None:
    import multiprocessing

    attack = ATTACKS["concurrency"](random.Random(0))
    argvs, before = write_attack(attack, tmp_path)
    ctx = multiprocessing.get_context("fork")
    logs = [tmp_path / f"e{i}.log" for i in range(len(argvs))]
    procs = [ctx.Process(target=_child, args=(a, str(log)))
             for a, log in zip(argvs, logs, strict=True)]
    for p in procs:  # both at once, as make fuzz runs them
        p.start()
    for p in procs:
        p.join(120)
    outs = [judge_log(p.exitcode, log) for p, log in zip(procs, logs, strict=True)]
    assert [o.status for o in outs] == ["success", "success"], outs
    judged = judge_attack(attack, tmp_path, outs[0], before)
    assert judged.status == "success", judged
    assert mixed_set(tmp_path) is None


def test_the_oracle_sees_a_mixed_set(tmp_path: Path) -> None:
    attack = ATTACKS["concurrency"](random.Random(0))
    argvs, _ = write_attack(attack, tmp_path)
    for argv in argvs:  # XAA then XBB, one after the other: a consistent set
        assert run_inprocess(argv).status == "success"
    assert mixed_set(tmp_path) is None
    keep = tmp_path / "out" / "plan.xlsx"
    shutil.copyfile(keep, tmp_path / "xbb.xlsx")
    assert run_inprocess(argvs[0]).status == "success"  # XAA set
    shutil.copyfile(tmp_path / "xbb.xlsx", keep)  # XBB workbook beside XAA json
    assert mixed_set(tmp_path) == (
        "mixed_set: plan.json is the XAA run, plan.xlsx shows ['XBB']")


def test_the_oracle_sees_an_input_rewritten_and_an_expected_error_missing(
    tmp_path: Path,
) -> None:
    attack = _variants("output_is_input")["same"]
    _argvs, before = write_attack(attack, tmp_path)
    (tmp_path / "inv.csv").write_text("{}", encoding="utf-8")  # what a data loss does
    judged = judge_attack(attack, tmp_path, Outcome("success", 0), before)
    assert judged.status == "silently_wrong"
    assert judged.violations[0] == (
        "input_changed: inv.csv was rewritten by the run (same)")
    assert judged.violations[1].startswith(
        "expected: same should end in clean_error, got success")


def test_the_oracle_sees_a_missing_warning(tmp_path: Path) -> None:
    attack = _variants("toml_attack")["pool_case"]
    (argv,), before = write_attack(attack, tmp_path)
    assert run_inprocess(argv).status == "success"
    plan = tmp_path / "out" / "plan.json"
    doc = json.loads(plan.read_text(encoding="utf-8"))
    doc["warnings"] = [w for w in doc["warnings"] if w["code"] != "pool_override_case"]
    plan.write_text(json.dumps(doc), encoding="utf-8")
    judged = judge_attack(attack, tmp_path, Outcome("success", 0), before)
    assert judged.violations == [
        "unwarned: pool_case succeeded without warning 'pool_override_case'"]


def test_the_oracle_sees_a_short_series_below_the_inventory_peak(tmp_path: Path) -> None:
    attack = _variants("series_time")["lone_short"]
    (argv,), before = write_attack(attack, tmp_path)
    assert run_inprocess(argv).status == "success"
    plan = tmp_path / "out" / "plan.json"
    doc = json.loads(plan.read_text(encoding="utf-8"))
    assert {s["name"]: s["cpu_peak_util"] for s in doc["servers"]}["db01"] == 0.8
    for s in doc["servers"]:
        if s["name"] == "db01":
            s["cpu_peak_util"] = 0.05  # what the issue saw: one 5 % sample won
    plan.write_text(json.dumps(doc), encoding="utf-8")
    judged = judge_attack(attack, tmp_path, Outcome("success", 0), before)
    assert judged.violations == [
        "undersized: lone_short: db01 planned at a CPU peak of 0.05, below its "
        "inventory's 0.8"]


def test_budgets_are_stated_per_family_and_judged() -> None:
    assert set(BUDGETS) == set(ATTACKS)
    assert budget_of("byte_flip").seconds == 60.0
    assert over_budget("parameters", 12.0, 200.0) is None
    assert over_budget("toml_attack", 31.0, 10.0) == (
        "over_budget: 31.0 s, 10 MiB over the budget of 30 s, 512 MiB of toml_attack")
    assert over_budget("toml_attack", 1.0, 600.0) is not None


def test_a_forked_run_records_the_rss_it_added(tmp_path: Path) -> None:
    log = tmp_path / "e.log"
    outcome = run_forked(["catalog", "list"], log, 60.0)
    assert outcome.status == "success"
    added = rss_added_mib(log)
    assert added is not None and 0 <= added < 1024


def test_a_plan_of_six_servers_stays_small_whatever_failures_and_min_hosts(
    tmp_path: Path,
) -> None:
    attack = _variants("parameters")["failures"]
    attack.argv = [attack.argv[0][:3]
                   + ["--failures", "4", "--min-hosts", "20", "-o",
                      "{dir}/out/plan.json"]]
    outcome = _run(attack, tmp_path)
    assert outcome.status == "success", outcome
    size = (tmp_path / "out" / "plan.json").stat().st_size
    # was 5 MB: every failover scenario listed; now at most 200 per pool
    assert size < 1_000_000, f"plan.json of 6 servers is {size:,} bytes"
