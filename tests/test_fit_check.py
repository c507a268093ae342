"""vsizer fit: row filter, mu/350 normalization, regression on means, in-sample and
leave-one-group-out error; prediction intervals and the fitted profile's citation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from vsizer.cli import app
from vsizer.errors import ConfigError, InputError
from vsizer.models.fit import fit_measurements
from vsizer.models.profile import load_profile
from vsizer.study.predict import predict_plan

TABLE = Path(__file__).parents[1] / "vsizer" / "data" / "models" / "esx252_table61.csv"
runner = CliRunner()


def _run(*args: str):
    return runner.invoke(app, list(args), env={"COLUMNS": "250"})


def test_published_averages_and_regression_from_the_raw_table():
    r = fit_measurements(TABLE, "cpu", max_util_pct=400, normalize="mu350", regress="means")
    d = r.to_dict()
    # published: 1.99 / 1.99 / 1.81 / 1.49 / 1.26 and 2.0918 - 0.0710 n
    means = [round(c["measured_mean"], 2) for c in d["curve"]]
    assert [c["vms"] for c in d["curve"]] == [1, 2, 4, 8, 12]
    assert means == [1.99, 1.99, 1.81, 1.49, 1.26]
    # hand: mean mu / 350 per VM count = 1.99429, 1.98857, 1.81429, 1.48667, 1.25810
    assert d["curve"][0]["measured_mean"] == pytest.approx(698 / 350, abs=1e-5)
    assert round(d["parameters"]["intercept"]["value"], 4) == 2.0918
    assert round(d["parameters"]["slope"]["value"], 4) == -0.0710
    assert d["parameters"]["slope"]["n"] == 5
    assert len(d["samples"]) == 15  # the rows within 400 % (8 VMs at 401 % is out)


def test_without_the_filter_the_averages_include_the_collapse():
    d = fit_measurements(TABLE, "cpu").to_dict()
    assert [round(c["measured_mean"], 3) for c in d["curve"]] == [1.995, 1.987, 1.815, 1.386, 1.118]
    k = d["parameters"]["contention_exponent"]
    assert (round(k["value"], 2), round(k["ci_low"], 2), round(k["ci_high"], 1)) == (1.72, 0.71, 5.6)


def test_leave_one_vm_count_out_is_worse_than_in_sample():
    v = fit_measurements(TABLE, "cpu").to_dict()["validation"]
    logo = v["leave_one_group_out"]
    assert logo["group_by"] == ["physical_cpus", "vms"]
    assert [g["vms"] for g in logo["groups"]] == [1, 2, 4, 8, 12]
    assert v["in_sample"]["n"] == logo["n"] == 19
    assert logo["rmse"] > v["in_sample"]["rmse"]
    # the default interval of predictions is this error, rounded
    assert round(logo["rms_pct"], 1) == 6.0
    assert round(v["in_sample"]["rms_pct"], 2) == 4.03


def test_cli_prints_both_errors_and_the_group_table():
    r = _run("fit", str(TABLE), "--model", "cpu", "--max-util-pct", "400",
             "--normalize", "mu350", "--regress", "means")
    assert r.exit_code == 0, r.output
    assert "│ intercept │ 2.092 " in r.stdout and "│ slope     │ -0.071 " in r.stdout
    assert "in-sample " in r.stdout and "leave-one-group-out" in r.stdout
    assert "each group predicted by a fit without it" in r.stdout


def test_options_of_other_models_and_bad_values_are_one_line_errors(tmp_path):
    with pytest.raises(ConfigError, match=r"fit: --max-util-pct apply to --model cpu only, got --model disk\."):
        fit_measurements(TABLE, "disk", max_util_pct=400)
    r = _run("fit", str(TABLE), "--model", "cpu", "--normalize", "mu999")
    assert r.exit_code != 0
    assert "'normalize' parameter of fit must be" in r.stderr and "Traceback" not in r.output
    with pytest.raises(InputError, match=r"no sample has total_util_pct <= 10 \(--max-util-pct\); the smallest is 46\.4\."):
        fit_measurements(TABLE, "cpu", max_util_pct=10)
    f = tmp_path / "m.csv"
    f.write_text("model,experiment,vms,physical_cpus,total_util_pct,relative\n"
                 "cpu,x,1,4,50,2\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"m\.csv row 2, column 'throughput': expected a number "
                       r"for --normalize mu350 \(or give 'mu'\), got ''\."):
        fit_measurements(f, "cpu", normalize="mu350")


def test_fit_warns_when_every_sample_is_flagged(tmp_path):
    f = tmp_path / "m.csv"
    rows = [f"cpu,run1,{n},4,{100 * n},{2.0 - 0.05 * n},true" for n in (1, 2, 3, 4)]
    f.write_text("model,experiment,vms,physical_cpus,total_util_pct,relative,foreign_load_exceeded\n"
                 + "\n".join(rows) + "\n", encoding="utf-8")
    notes = fit_measurements(f, "cpu").notes
    assert any(n.startswith("warning: all 4 samples are flagged foreign_load_exceeded") for n in notes)
    f.write_text(f.read_text().replace("true\n", "false\n", 1), encoding="utf-8")
    assert not any("foreign_load_exceeded" in n for n in fit_measurements(f, "cpu").notes)


def _tiny_plan() -> dict:
    vms = [{"name": f"v{i}", "vcpus": 1, "cpu_peak_demand": 5.0, "sockets": 1,
            "cores_per_socket": 1, "cpu_capacity": 10.0, "cpu_peak_util": 0.5, "host": "h1"}
           for i in range(4)]
    return {"host_model": {"sockets": 2, "cores_per_socket": 2, "threads_per_core": 2,
                           "capacity": {"cpu": 40.0}},
            "servers": vms, "pools": [{"name": "p", "hosts": [{"id": "h1", "vms": [v["name"] for v in vms]}]}]}


def test_predictions_carry_an_interval_from_the_published_fit():
    pred = predict_plan(_tiny_plan())
    assert pred["models"]["cpu"]["interval"]["relative_error"] == pytest.approx(0.06)
    for entry in pred["vms"] + pred["hosts"]:
        r = entry["relative_cpu"]
        assert entry["relative_cpu_interval"] == pytest.approx([r * 0.94, r * 1.06], abs=1e-6)


def test_a_fitted_profile_replaces_the_citation_and_the_interval(tmp_path):
    prof = tmp_path / "p.toml"
    r = _run("fit", str(TABLE), "--model", "cpu", "-o", str(prof))
    assert r.exit_code == 0, r.output
    profile = load_profile(prof)
    pred = predict_plan(_tiny_plan(), profile)
    cpu = pred["models"]["cpu"]
    assert cpu["source"].startswith("fitted profile: vsizer fit esx252_table61.csv")
    assert cpu["interval"]["relative_error"] == pytest.approx(0.059958, abs=1e-6)
    assert json.dumps(pred) == json.dumps(predict_plan(_tiny_plan(), profile))


def test_html_prediction_chart_draws_the_interval_as_error_bars():
    from vsizer.reporting._html_charts import prediction_chart

    rows = [{"name": "a", "relative_cpu": 0.9, "relative_cpu_interval": [0.846, 0.954]},
            {"name": "b", "relative_cpu": 0.5, "relative_cpu_interval": [0.47, 0.53]}]
    bars = prediction_chart(rows, "relative_cpu", "name", "relative_cpu")["data"][0]
    assert bars["error_x"] == {"type": "data", "symmetric": False,
                               "array": [0.054, 0.03], "arrayminus": [0.054, 0.03]}
    # rows without an interval: plain bars
    plain = prediction_chart([{"name": "a", "relative_cpu": 0.9}], "relative_cpu", "name", "x")
    assert "error_x" not in plain["data"][0]


def test_comment_lines_before_the_header_are_skipped_and_rows_keep_their_line_numbers(tmp_path):
    from vsizer.models.measurements import read_measurements

    f = tmp_path / "m.csv"
    f.write_text("# source: a published table, with, commas\n# second line\n"
                 "model,experiment,vms,physical_cpus,total_util_pct,relative\n"
                 "cpu,x,1,4,50,2\ncpu,x,two,4,50,2\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"^m\.csv row 5, column 'vms': expected an integer, got 'two'\.$"):
        read_measurements(f, "cpu")
    frame = read_measurements(TABLE, "cpu")
    assert len(frame) == 19 and int(frame["row"].iloc[0]) == 8
    assert frame["mu"].iloc[0] == 708


def test_bench_like_demand_run_leaves_one_tile_count_out(tmp_path):
    f = tmp_path / "tiles.csv"
    rows = [(1, 1.0), (1, 0.98), (2, 0.95), (2, 0.96), (3, 0.62), (3, 0.63), (4, 0.47), (4, 0.46)]
    f.write_text("model,experiment,vms,physical_cpus,total_util_pct,util_basis,relative\n"
                 + "".join(f"cpu,run1,{n},2,{100 * n},demand,{r}\n" for n, r in rows),
                 encoding="utf-8")
    logo = fit_measurements(f, "cpu").validation["leave_one_group_out"]
    by_vms = {g["vms"]: g for g in logo["groups"]}
    # without the 1- or 2-VM rows only one VM count is left within the CPUs: no fit
    assert by_vms[1]["left_out_mean"] is None and "need at least 3 samples" in by_vms[1]["note"]
    assert by_vms[3]["left_out_mean"] is not None and logo["n"] == 4
    r = _run("fit", str(f), "--model", "cpu")
    assert r.exit_code == 0, r.output
    assert "note: physical_cpus 2, vms 1 not predicted out of sample: cpu fit: need" in r.stdout
