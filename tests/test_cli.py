"""CLI contract: exit codes, messages, outputs."""

from __future__ import annotations

import json
from pathlib import Path

import openpyxl
import pytest
from typer.testing import CliRunner

import vsizer
from vsizer.cli import app

SAMPLES = Path(vsizer.__file__).parent / "data" / "samples"
runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, list(args), env={"COLUMNS": "250"})


@pytest.mark.parametrize(
    "cmd",
    [
        ["plan"],
        ["catalog", "list"],
        ["catalog", "import-spec"],
        ["catalog", "import-specpower"],
        ["waves"],
    ],
)
def test_every_command_has_help_with_an_example(cmd):
    r = run(*cmd, "--help")
    assert r.exit_code == 0
    assert "Example:" in r.output


def test_plan_help_groups_its_options_in_panels():
    """Issue 27: 69 options in one panel; now grouped, each option in one panel."""
    import re

    r = run("plan", "--help")
    panels = re.findall(r"╭─ (.+?) ─", r.output)
    assert panels == [
        "Arguments", "Options", "Inputs", "Series files", "Rules: sizing",
        "Rules: power and cost", "Rules: inventory", "Rules: hosts",
        "Rules: demand curves", "Rules: target platform", "Rules: storage",
        "Rules: growth", "Outputs", "Input limits", "Engine",
    ]
    options = r.output.split("╭─ Options ─")[1].split("╭─ Inputs ─")[0]
    assert "--help" in options and "--ceiling" not in options
    limits = r.output.split("╭─ Input limits ─")[1].split("╭─ Engine ─")[0]
    assert "--max-rows" in limits and "--max-grid-cells" in limits


def test_plan_writes_json_and_xlsx(tmp_path):
    j, x = tmp_path / "out" / "plan.json", tmp_path / "out" / "plan.xlsx"
    r = run(
        "plan",
        str(SAMPLES / "inventory_ja.xlsx"),
        "--config",
        str(SAMPLES / "scenario.toml"),
        "-o",
        str(j),
        "-o",
        str(x),
        "--lang",
        "ja",
        "--detail",
    )
    assert r.exit_code == 0, r.output
    doc = json.loads(j.read_text(encoding="utf-8"))
    assert doc["summary"]["servers"] == 37
    assert "サマリー" in openpyxl.load_workbook(x).sheetnames
    assert "集約率" in r.output


def test_flags_override_the_config(tmp_path):
    j = tmp_path / "p.json"
    r = run(
        "plan",
        str(SAMPLES / "inventory_ja.csv"),
        "--config",
        str(SAMPLES / "scenario.toml"),
        "--ceiling",
        "0.5",
        "--failures",
        "2",
        "--price-kwh",
        "20",
        "-q",
        "-o",
        str(j),
    )
    assert r.exit_code == 0, r.output
    doc = json.loads(j.read_text(encoding="utf-8"))
    assert doc["parameters"]["ceiling"] == 0.5
    assert doc["parameters"]["price_kwh"] == 20.0
    assert doc["pools"][0]["failures"] == 2
    assert doc["pools"][1]["failures"] == 0  # the file's per-pool override stays


def test_missing_inventory_exit_2_one_line(tmp_path):
    r = run("plan", str(tmp_path / "none.csv"))
    assert r.exit_code == 2
    assert "Traceback" not in r.output
    lines = [ln for ln in r.output.splitlines() if ln.startswith("error: ")]
    assert len(lines) == 1 and "none.csv" in lines[0]


def test_bad_rows_all_reported_exit_2(tmp_path):
    f = tmp_path / "inv.csv"
    f.write_text(
        "name,sockets,cores_per_socket,mem_gib,cpu_avg_pct\n"
        "a,2,4,lots,10\nb,-1,4,16,10\n",
        encoding="utf-8",
    )
    r = run("plan", str(f))
    assert r.exit_code == 2
    errs = [ln for ln in r.output.splitlines() if ln.startswith("error: ")]
    assert len(errs) == 2
    assert "row 2, column 'mem_gib'" in errs[0] and "'lots'" in errs[0]
    assert "row 3, column 'sockets'" in errs[1] and "'-1'" in errs[1]


def test_unknown_config_key_exit_2(tmp_path):
    cfg = tmp_path / "s.toml"
    cfg.write_text("[sizing]\nceil = 0.6\n")
    r = run("plan", str(SAMPLES / "inventory_ja.csv"), "--config", str(cfg))
    assert r.exit_code == 2
    assert "unknown key 'sizing.ceil'; accepted: ceiling," in r.output


def test_bad_parameter_and_output_suffix_exit_2(tmp_path):
    r = run("plan", str(SAMPLES / "inventory_ja.csv"), "--ceiling", "1.5")
    assert r.exit_code == 2
    assert (
        "error: The 'ceiling' parameter of plan (--ceiling, [sizing] ceiling) must be a float in the range (0, 1]. Got 1.5 instead."
        in r.output
    )
    r = run("plan", str(SAMPLES / "inventory_ja.csv"), "-o", str(tmp_path / "p.pdf"))
    assert r.exit_code == 2
    assert "unsupported output format '.pdf'; use .json, .xlsx or .html." in r.output
    r = run("plan", str(SAMPLES / "inventory_ja.csv"), "--lang", "fr")
    assert r.exit_code == 2 and "'lang' option must be 'en' or 'ja'" in r.output


def test_unknown_host_model_exit_2():
    r = run("plan", str(SAMPLES / "inventory_ja.csv"), "--host-model", "Nope 9000")
    assert r.exit_code == 2
    assert "Host model 'Nope 9000' is not in the host catalog." in r.output


@pytest.mark.slow  # the whole CPU catalog rendered: 11 CPU s
def test_catalog_list_marks_the_default():
    r = run("catalog", "list")
    assert r.exit_code == 0
    assert "Dell PowerEdge R740" in r.output
    r = run("catalog", "list", "--cpus")
    assert r.exit_code == 0 and "SPECint2000" in r.output


@pytest.mark.slow
def test_catalog_import_spec_and_specpower(shared_data, tmp_path):
    out = tmp_path / "cpus.csv"
    r = run(
        "catalog",
        "import-spec",
        str(shared_data / "cpu_perf_spec_cpu2017" / "cint2017rate_by_system.csv"),
        "-o",
        str(out),
    )
    assert r.exit_code == 0, r.output
    assert "CPU models" in r.output and out.exists()
    out2 = tmp_path / "hosts.csv"
    r = run(
        "catalog",
        "import-specpower",
        str(shared_data / "power_specpower" / "specpower_curves_11pt.csv"),
        "-o",
        str(out2),
    )
    assert r.exit_code == 0, r.output
    assert "result(s) state no sockets/cores/MHz/memory" in r.output
    assert "Dell PowerEdge R740" in r.output  # listed as left out
    # The SPECpower test configuration (12 GB) cannot hold the sample's VMs: the plan
    # names every VM and dimension that does not fit, and exits 2.
    r = run(
        "plan",
        str(SAMPLES / "inventory_ja.csv"),
        "--hosts",
        str(out2),
        "--host-model",
        "IBM server x3550 2x Xeon X5670",
    )
    assert r.exit_code == 2
    assert (
        "error: pool '本番': VM 'seisan-db01' needs 193.626 mem but one host offers 3.2 "
        "at its limit (60% of 12, less base load 4) [capacity constraint on 'mem']"
    ) in r.output


def test_import_spec_bad_file_exit_2(tmp_path):
    f = tmp_path / "x.csv"
    f.write_text("a,b\n1,2\n")
    r = run("catalog", "import-spec", str(f), "-o", str(tmp_path / "o.csv"))
    assert r.exit_code == 2
    assert r.output.startswith("error: ")


def test_user_cpu_catalog_overrides_the_shipped_score(tmp_path):
    cpus = tmp_path / "my-cpus.csv"
    cpus.write_text(
        "cpu_name,aliases,cores,cpu_mhz,score_per_core,basis,source\n"
        "Intel Xeon E5-2650 v4,,12,2200,5.0,SPECrate2017_int_base,our own measurement\n",
        encoding="utf-8",
    )
    j = tmp_path / "p.json"
    r = run(
        "plan",
        str(SAMPLES / "inventory_ja.csv"),
        "--cpus",
        str(cpus),
        "-q",
        "-o",
        str(j),
    )
    assert r.exit_code == 0, r.output
    servers = {
        s["name"]: s for s in json.loads(j.read_text(encoding="utf-8"))["servers"]
    }
    assert servers["kaikei-db01"]["cpu_score_per_core"] == 5.0
    assert servers["kaikei-db01"]["score_source"] == "catalog"
    assert servers["hanbai-web01"]["cpu_score_per_core"] == 5.575  # shipped row kept


# --- custom hosts: cpu_name lookup, one model used, several need --host-model --

NAMED_HOST = (
    "model,sockets,cores_per_socket,cpu_mhz,mem_gib,power_idle_w,power_max_w,"
    "cpu_name\nLab 6248,2,20,2500,768,60,400,Intel Xeon Gold 6248\n"
)


def _plan_json(tmp_path: Path, hosts_text: str, name: str) -> dict:
    hosts = tmp_path / f"{name}.csv"
    hosts.write_text(hosts_text, encoding="utf-8")
    out = tmp_path / f"{name}.json"
    r = run("plan", str(SAMPLES / "inventory_ja.csv"), "--hosts", str(hosts), "-o", str(out))
    assert r.exit_code == 0, r.output
    return json.loads(out.read_text(encoding="utf-8"))


def test_custom_host_cpu_name_plans_like_its_catalog_score(tmp_path):
    named = _plan_json(tmp_path, NAMED_HOST, "named")
    scored = _plan_json(
        tmp_path,
        NAMED_HOST.replace(
            ",cpu_name\n", ",cpu_name,cpu_score_per_core,cpu_score_basis\n"
        ).replace("Gold 6248\n", "Gold 6248,6.05,SPECrate2017_int_base\n"),
        "scored",
    )
    mhz = _plan_json(tmp_path, NAMED_HOST.replace("Intel Xeon Gold 6248", ""), "mhz")
    # the single model of --hosts is used, scored 6.05 (Gold 6248 median)
    assert named["host_model"]["model"] == "Lab 6248"
    assert named["host_model"]["cpu_score_per_core"] == 6.05
    assert named["host_model"]["capacity_unit"] == "SPECrate2017_int_base"
    assert named["summary"]["hosts"] == scored["summary"]["hosts"] == 11
    assert mhz["host_model"]["capacity_unit"] == "MHz"
    assert mhz["summary"]["hosts"] == 12


def test_hosts_with_several_models_and_no_host_model_is_an_error(tmp_path):
    hosts = tmp_path / "two.csv"
    hosts.write_text(NAMED_HOST + "Lab B,2,16,2400,512,70,350,\n", encoding="utf-8")
    r = run("plan", str(SAMPLES / "inventory_ja.csv"), "--hosts", str(hosts))
    assert r.exit_code == 2
    assert (
        'error: --hosts two.csv lists 2 host models: Lab 6248; Lab B. Choose one '
        'with --host-model, e.g. --host-model "Lab 6248".'
    ) in r.output


def test_several_host_models_are_refused_before_the_series_are_read(tmp_path):
    hosts = tmp_path / "two.csv"
    hosts.write_text(NAMED_HOST + "Lab B,2,16,2400,512,70,350,\n", encoding="utf-8")
    broken = tmp_path / "broken.csv"  # reading it would fail with another message
    broken.write_text("not a sar file\n", encoding="utf-8")
    r = run("plan", "--series", str(broken), "--series-format", "sar", "--vm-cpu-mhz",
            "1000", "--vm-mem-gib", "1", "--hosts", str(hosts))
    assert r.exit_code == 2
    assert r.output.splitlines() == [
        'error: --hosts two.csv lists 2 host models: Lab 6248; Lab B. Choose one '
        'with --host-model, e.g. --host-model "Lab 6248".'
    ]


def test_an_unknown_host_model_is_refused_before_the_series_are_read(tmp_path):
    broken = tmp_path / "broken.csv"  # reading it would fail with another message
    broken.write_text("not a sar file\n", encoding="utf-8")
    r = run("plan", "--series", str(broken), "--series-format", "sar", "--vm-cpu-mhz",
            "1000", "--vm-mem-gib", "1", "--host-model", "Lab Z")
    assert r.exit_code == 2
    [line] = r.output.splitlines()
    assert line.startswith(
        "error: Host model 'Lab Z' is not in the host catalog. Valid models: ")


def test_catalog_list_marks_the_single_model_of_hosts(tmp_path):
    hosts = tmp_path / "one.csv"
    hosts.write_text(NAMED_HOST, encoding="utf-8")
    r = run("catalog", "list", "--hosts", str(hosts))
    assert r.exit_code == 0, r.output
    marked = [ln for ln in r.output.splitlines() if "*" in ln]
    assert len(marked) == 1 and "Lab 6248" in marked[0] and "6.05" in marked[0]


@pytest.mark.parametrize(
    "flags,action,models",
    [([], "left out", 1), (["--keep-incomplete"], "written with empty cells", 3)],
)
def test_import_specpower_incomplete_results(tmp_path, flags, action, models):
    curves = Path(__file__).parent / "data" / "catalogs" / "specpower_curves_mini.csv"
    out = tmp_path / "hosts.csv"
    r = run("catalog", "import-specpower", str(curves), "-o", str(out), *flags)
    assert r.exit_code == 0, r.output
    assert (
        "warning: 2 result(s) state no sockets/cores/MHz/memory in "
        f"specpower_curves_mini.csv and were {action}: Dell PowerEdge R640, "
        "Acme Blade Chassis X"
    ) in " ".join(r.output.split())
    assert f"wrote {models} host models" in r.output


def test_plan_has_one_flag_per_declared_rule():
    from vsizer.study.config import TARGET_FLAGS, rule_fields

    r = run("plan", "--help")
    assert r.exit_code == 0
    flags = [m.flag for m in rule_fields().values() if m.flag is not None]
    flags += ["--target-" + k.replace("_", "-") for k in TARGET_FLAGS]
    assert len(flags) == 49  # 29 + --rightsize, growth (2), cost and choice (3), storage (8) (issue 16), --shard-vms (issue 15), --failover-budget (issue 24), --grid-gco2-kwh and --grid-region (issue 30), --bound-lp-vms and --bound-lp-pools (issue 25)
    assert [f for f in flags if f not in r.output] == []


def test_every_bad_flag_is_reported():
    r = run(
        "plan",
        str(SAMPLES / "inventory_ja.csv"),
        "--ceiling",
        "1.2",
        "--percentile",
        "p100",
        "--target-host-ratio",
        "0",
    )
    assert r.exit_code == 2
    assert r.output.splitlines() == [
        "error: The 'ceiling' parameter of plan (--ceiling, [sizing] ceiling) must be a float in the range (0, 1]. "
        "Got 1.2 instead.",
        "error: The 'percentile' parameter of plan (--percentile, [series] percentile) must be 'max' or 'pNN' with "
        "0 < NN < 100 (e.g. 'p95', 'p99.9'). Got 'p100' instead.",
        "error: The 'host_ratio' parameter of [targets] must be a float in the range "
        "(0, inf). Got 0.0 instead.",
    ]
