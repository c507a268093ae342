"""CLI contract of vsizer model / fit / predict: exit codes, messages, outputs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from vsizer.cli import app

runner = CliRunner()
DATA = Path(__file__).parent / "data"


def run(*args: str):
    return runner.invoke(app, list(args), env={"COLUMNS": "250"})


@pytest.mark.parametrize(
    "cmd",
    [["model", "cpu"], ["model", "disk"], ["model", "network"], ["model", "queue"],
     ["model", "platform"], ["fit"], ["predict"]],
)
def test_every_command_has_help_with_an_example(cmd):
    r = run(*cmd, "--help")
    assert r.exit_code == 0
    assert "Example:" in r.output


def test_model_cpu_json_contract():
    r = run("model", "cpu", "--vms", "12", "--physical-cpus", "4", "--total-util-pct", "300", "--json")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert doc["relative_to_single_vm"] == pytest.approx(1.2398 / 2.0208, abs=1e-6)
    assert doc["warnings"] == []


def test_model_cpu_out_of_range_warns_on_stderr():
    r = run("model", "cpu", "--vms", "12", "--physical-cpus", "4", "--total-util-pct", "900")
    assert r.exit_code == 0
    assert "relative to a single VM alone" in r.stdout
    assert "warning: cpu.contention_factor: overcommit" in r.stderr


def test_model_cpu_guest_basis_reproduces_table_row():
    r = run("model", "cpu", "--vms", "12", "--physical-cpus", "4", "--total-util-pct", "895",
            "--basis", "guest", "--json")
    doc = json.loads(r.stdout)
    assert doc["relative_performance"] == pytest.approx(0.761, rel=0.15)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["model", "cpu", "--vms", "0", "--physical-cpus", "4", "--total-util-pct", "9"],
         "error: The 'vms' parameter of model cpu must be an int in the range [1, inf). Got 0 instead."),
        (["model", "cpu", "--vms", "1", "--physical-cpus", "4", "--total-util-pct", "9", "--basis", "x"],
         "error: The 'basis' parameter of model cpu must be one of 'demand', 'guest'. Got 'x' instead."),
        (["model", "disk", "--access-spec", "random"],
         "error: The 'access_spec' parameter of model disk must be one of"),
        (["model", "network", "--direction", "both"],
         "error: The 'direction' parameter of model network must be one of 'send', 'receive'."),
        (["model", "queue", "--service-ms", "10"],
         "error: model queue: give either --arrival-rate (open) or --clients (closed)."),
        (["fit", "x.csv", "--model", "gpu"],
         "error: The 'model' parameter of fit must be one of 'cpu', 'disk', 'network'. Got 'gpu' instead."),
    ],
)
def test_bad_options_exit_2_with_one_line(args, message):
    r = run(*args)
    assert r.exit_code == 2
    assert message in r.stderr
    assert "Traceback" not in r.output


def test_model_disk_network_queue_values():
    r = run("model", "disk", "--access-spec", "sequential_read", "--queue-depth", "2",
            "--backing", "pass-through", "--vms-on-volume", "4", "--nfs", "read-write",
            "--rsize-kb", "8", "--json")
    d = json.loads(r.stdout)
    assert (d["throughput_ratio"], d["volume_share"], d["guest_util_trustworthy"], d["nfs_ratio"]) == (0.77, 0.25, False, 0.7)
    r = run("model", "network", "--nic-gbps", "10", "--vmq", "--senders", "4", "--xen-vms", "1", "--json")
    d = json.loads(r.stdout)
    assert (d["wire_limit_mbps"], d["vm_to_vm_mbps"], d["xen_relative_throughput"]) == (7800.0, 3937.0, 0.8)
    r = run("model", "queue", "--service-ms", "100", "--arrival-rate", "10", "--servers", "2", "--json")
    assert json.loads(r.stdout)["response_time_ms"] == pytest.approx(100 + 100 / 3, rel=1e-6)
    r = run("model", "queue", "--service-ms", "1000", "--clients", "2", "--think-ms", "1000", "--json")
    assert json.loads(r.stdout)["throughput_per_s"] == pytest.approx(0.8)
    r = run("model", "platform")
    assert r.exit_code == 0 and "hyperv-r2-java" in r.stdout


def test_fit_table61_prints_estimates_and_writes_a_profile(tmp_path):
    prof = tmp_path / "site.toml"
    r = run("fit", str(DATA / "models" / "esx252_table61.csv"), "--model", "cpu", "-o", str(prof))
    assert r.exit_code == 0, r.output
    assert "intercept" in r.stdout and "predicted vs measured" in r.stdout
    assert "2.096" in r.stdout and "-0.07148" in r.stdout
    text = prof.read_text(encoding="utf-8")
    assert "[cpu]" in text and "slope = -0.0714767" in text
    r = run("model", "cpu", "--vms", "12", "--physical-cpus", "4", "--total-util-pct", "300",
            "--profile", str(prof), "--json")
    assert json.loads(r.stdout)["coefficients"]["slope"] == pytest.approx(-0.0714767, abs=1e-6)


def test_fit_measured_tiles_prints_the_curve_and_the_emulated_note(tmp_path):
    prof = tmp_path / "tcg.json"
    r = run("fit", str(DATA / "bench" / "tiles_cpu_tcg_2cores.csv"), "--model", "cpu", "-o", str(prof))
    assert r.exit_code == 0, r.output
    assert "measured (mean) vs fitted, by VM count" in r.stdout
    assert "│ 3   │ 2    │ demand │ 9  │ 297.5  │ 0.643    │ 0.546 │ 0.723 │ 0.638  │" in r.stdout
    assert "contention_exponent │ 1.09 " in r.stdout
    assert "note: 30 of 30 samples were measured in emulated guests (QEMU TCG)" in r.stdout
    assert "ModelRangeWarning" not in r.output
    assert json.loads(prof.read_text())["cpu"]["contention_exponent"] == pytest.approx(1.09, abs=5e-4)


def test_fit_bad_csv_lists_every_row_problem(tmp_path):
    bad = tmp_path / "m.csv"
    bad.write_text("model,experiment,vms,physical_cpus,total_util_pct,relative\n"
                   "cpu,a,x,4,50,1\ncpu,a,1,4,zz,1\n", encoding="utf-8")
    r = run("fit", str(bad), "--model", "cpu")
    assert r.exit_code == 2
    assert r.stderr.splitlines() == [
        "error: m.csv row 2, column 'vms': expected an integer, got 'x'.",
        "error: m.csv row 3, column 'total_util_pct': expected a number, got 'zz'.",
    ]


def test_predict_prints_tables_and_writes_predictions(tmp_path):
    out = tmp_path / "pred.json"
    r = run("predict", str(DATA / "plan_small.json"), "-o", str(out))
    assert r.exit_code == 0, r.output
    assert "per-VM predictions" in r.stdout and "per-host" in r.stdout
    assert "web01" in r.stdout
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert set(doc["predictions"]) == {"models", "assumptions", "vms", "hosts", "warnings"}
    assert doc["summary"]  # the plan is kept
    again = tmp_path / "pred2.json"
    run("predict", str(DATA / "plan_small.json"), "-o", str(again))
    assert again.read_bytes() == out.read_bytes()


def test_predict_errors(tmp_path):
    bad = tmp_path / "plan.json"
    bad.write_text("{\n  nope", encoding="utf-8")
    r = run("predict", str(bad))
    assert r.exit_code == 2
    assert "error: plan.json line 2, column 3: invalid JSON" in r.stderr
    r = run("predict", str(tmp_path / "missing.json"))
    assert r.exit_code == 2 and "cannot read the plan" in r.stderr
    bad.write_bytes(b"\xff\xfe{}")  # UTF-16 from an editor
    r = run("predict", str(bad))
    assert r.exit_code == 2
    assert "error: plan.json: expected a plan document in UTF-8 (invalid start byte " \
        "at byte 0)." in r.stderr
    prof = tmp_path / "p.json"
    prof.write_text('{"cpu": {"slop": 1}}', encoding="utf-8")
    r = run("predict", str(DATA / "plan_small.json"), "--profile", str(prof))
    assert r.exit_code == 2 and "error: p.json: unknown key 'cpu.slop'." in r.stderr
    r = run("predict", str(DATA / "plan_small.json"), "-o", str(tmp_path / "x.xlsx"))
    assert r.exit_code == 2 and "expected a .json file name" in r.stderr


def test_docs_profile_example_loads_and_every_command_is_documented():
    import re
    import tomllib

    from vsizer.models.profile import profile_from_dict

    text = (Path(__file__).parents[1] / "docs" / "models.md").read_text(encoding="utf-8")
    block = re.search(r"```toml\n(.*?)```", text, re.S).group(1)
    prof = profile_from_dict(tomllib.loads(block), "docs/models.md")
    assert prof.environment["cpu_demand"] == "peak"
    for cmd in ("vsizer model cpu", "vsizer model disk", "vsizer model network",
                "vsizer model queue", "vsizer model platform", "vsizer fit", "vsizer predict"):
        assert cmd in text, cmd


def test_model_parameters_are_declared_and_all_problems_listed():
    """The command's checks are the declared constraints of the what-if function."""
    from vsizer.models.whatif import disk_whatif

    assert set(disk_whatif.parameter_constraints) >= {"access_spec", "format", "nfs"}
    res = run("model", "disk", "--queue-depth", "0", "--volumes", "0")
    assert res.exit_code == 2
    assert "The 'queue_depth' parameter of model disk must be a float in the range [1, inf)" in res.output
    assert "The 'volumes' parameter of model disk must be an int in the range [1, inf)" in res.output
