"""Plans made on demand curves: library, CLI, JSON contract, hand-computed cases."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import vsizer
from tests.search_stage import SEARCH
from vsizer.catalogs.model import HostModel
from vsizer.cli import app
from vsizer.errors import ConfigError, InputError
from vsizer.placement.series_fit import first_fit_series
from vsizer.series.model import SeriesQuality, SeriesSet

SAMPLES = Path(vsizer.__file__).parent / "data" / "samples"
runner = CliRunner()
START = pd.Timestamp("2026-01-05T00:00:00Z")

#: 10 cores x 1000 MHz, no score: capacity 10,000 MHz; memory never binds.
HOST = HostModel(
    model="Test host",
    sockets=1,
    cores_per_socket=10,
    threads_per_core=1,
    cpu_mhz=1000.0,
    cpu_score_per_core=None,
    mem_gib=1000.0,
    power_idle_w=100.0,
    power_max_w=200.0,
)


def cpu_series(curves: dict[str, list[float]], step: str = "5min") -> SeriesSet:
    """cpu_util curves (fractions) at 5-minute steps from START."""
    rows = []
    for server, values in curves.items():
        for i, v in enumerate(values):
            rows.append((server, START + i * pd.Timedelta(step), "cpu_util", v, "fraction"))
    data = pd.DataFrame(rows, columns=["server", "timestamp", "metric", "value", "unit"])
    data["timestamp"] = pd.to_datetime(data["timestamp"], utc=True)
    return SeriesSet(data, SeriesQuality(), "test", "long")


def run_plan(curves: dict[str, list[float]], **kw) -> dict:
    # Every VM is 10,000 MHz: its utilization is its share of one host.
    kw.setdefault("vm_cpu_mhz", 10_000.0)
    kw.setdefault("vm_mem_gib", 1.0)
    kw.setdefault("host_memory_reserve_gib", 0.0)
    return vsizer.plan(series=cpu_series(curves), hosts=HOST, **kw).to_dict()


def test_peaks_that_do_not_coincide_share_a_host():
    # a peaks at step 0, b at step 1: the sum is 0.6 at every step, peak sum 1.0.
    doc = run_plan({"a": [0.5, 0.1], "b": [0.1, 0.5]}, ceiling=0.6, failures=0)
    (pool,) = doc["pools"]
    assert pool["host_count"] == 1
    assert pool["lower_bound"]["series"]["cpu"] == 1
    assert pool["lower_bound"]["peak_sum"]["cpu"] == 2  # ceil(1.0 / 0.6)
    assert pool["hosts"][0]["vms"] == ["a", "b"]
    assert pool["hosts"][0]["util"]["cpu"] == pytest.approx(0.6)
    assert pool["hosts"][0]["curves"]["cpu"] == [0.6, 0.6]
    assert pool["replay"] == {
        "steps": 2,
        "steps_over_ceiling": 0,
        "steps_over_100": 0,
        "hosts": [
            {
                "id": "default-01",
                "steps_over_ceiling": 0,
                "steps_over_100": 0,
                "worst_util": 0.6,
                "worst_dimension": "cpu",
                "worst_step": "2026-01-05T00:00:00Z",
            }
        ],
    }
    assert doc["series"]["steps"] == 2 and doc["series"]["step_seconds"] == 300
    assert doc["power"]["before_w"] is None  # the servers were VMs already


def test_failover_on_curves_hand_computed():
    # Three VMs, one per host (3-host minimum); each peaks at a different step.
    curves = {"a": [0.5, 0.1, 0.1], "b": [0.1, 0.5, 0.1], "c": [0.1, 0.1, 0.5]}
    doc = run_plan(curves, ceiling=0.6, failures=1)
    (pool,) = doc["pools"]
    assert pool["host_count"] == 3
    fo = pool["failover"]
    assert fo["survives"] and fo["scenario_count"] == 3 == len(fo["scenarios"])
    first = fo["scenarios"][0]
    # a's host fails; a goes to the first least-loaded survivor (b's host):
    # [0.5+0.1, 0.1+0.5, 0.1+0.1] -> peak 0.6 at the first step.
    assert first["failed"] == ["default-01"]
    assert first["moves"] == [{"vm": "a", "to": "default-02"}]
    assert first["unplaced"] == []
    assert first["worst_host"] == "default-02"
    assert first["worst_util"] == pytest.approx(0.6)
    assert first["worst_step"] == "2026-01-05T00:00:00Z"
    assert first["steps_over_100"] == 0
    # memory: two VMs of 1 GiB + ESXi overhead on a 1000 GiB host
    assert list(first["survivor_util"]) == ["default-02"]
    assert first["survivor_util"]["default-02"]["cpu"] == 0.6
    assert first["survivor_util"]["default-02"]["mem"] == pytest.approx(0.00205, abs=1e-5)


def test_percentile_lets_rare_spikes_exceed_the_ceiling():
    # Both spike together once in 20 steps (0.3 + 0.3 -> 0.5 + 0.5): every step
    # must fit -> 2 hosts; p90 (19 of 20 steps) -> 1 host, 1 step over the ceiling.
    spike = [0.3] * 19 + [0.5]
    curves = {"a": spike, "b": spike}
    every = run_plan(curves, ceiling=0.6, failures=0)
    assert every["pools"][0]["host_count"] == 2
    p90 = run_plan(curves, ceiling=0.6, failures=0, percentile="p90")
    pool = p90["pools"][0]
    assert pool["host_count"] == 1
    assert pool["replay"]["steps_over_ceiling"] == 1
    assert pool["replay"]["steps_over_100"] == 0  # 1.0 at the spike
    assert pool["lower_bound"]["series"] is None  # no per-step bound below max


BINS = [0.65, 0.52, 0.44, 0.34, 0.28, 0.28, 0.27, 0.2]  # sum 2.98, optimum 3


@pytest.mark.slow
def test_cp_sat_finds_the_optimum_first_fit_misses():
    pytest.importorskip("ortools")
    curves = {f"vm{i}": [v, v] for i, v in enumerate(BINS)}
    demand = np.array(BINS)[:, None, None]
    assert first_fit_series(demand, np.array([1.0]))[1] == 4  # first-fit decreasing
    heuristic = run_plan(curves, ceiling=1.0, failover_limit=1.0, failures=0)
    # local search after construction reaches the optimum (0.65+0.34, 0.52+0.28+0.2,
    # 0.44+0.28+0.27)
    assert heuristic["pools"][0]["host_count"] == 3
    assert heuristic["pools"][0]["strategy"] == f"first-fit-decreasing+{SEARCH}"
    exact = run_plan(curves, ceiling=1.0, failures=0, solver="cp-sat", time_limit=20)
    pool = exact["pools"][0]
    assert pool["host_count"] == 3 == pool["lower_bound"]["hosts"]
    assert pool["strategy"] == "cp-sat"
    assert pool["solver"]["status"] == "optimal"
    assert pool["solver"]["gap"] == 0 and pool["gap"] == 0
    loads = sorted(round(h["util"]["cpu"], 2) for h in pool["hosts"])
    assert sum(loads) == pytest.approx(2.98) and max(loads) <= 1.0


@pytest.mark.slow
def test_cp_sat_with_a_percentile_falls_back_and_says_so():
    pytest.importorskip("ortools")
    doc = run_plan({"a": [0.2, 0.3]}, failures=0, solver="cp-sat", percentile="p95")
    assert doc["pools"][0]["solver"] is None
    assert any("cp-sat places on every step" in w["message"] for w in doc["warnings"])


@pytest.mark.slow
def test_same_inputs_same_json_bytes():
    curves = {f"v{i}": list(np.round(np.random.default_rng(i).uniform(0, 0.4, 48), 3))
              for i in range(30)}
    a = vsizer.plan(series=cpu_series(curves), hosts=HOST, vm_cpu_mhz=10_000.0,
                    vm_mem_gib=1.0).to_json()
    b = vsizer.plan(series=cpu_series(curves), hosts=HOST, vm_cpu_mhz=10_000.0,
                    vm_mem_gib=1.0).to_json()
    assert a == b
    doc = json.loads(a)
    assert doc["summary"]["survives_failover"]
    assert doc["pools"][0]["replay"]["steps_over_ceiling"] == 0


def test_series_without_sizes_lists_both_problems():
    with pytest.raises(InputError) as exc:
        vsizer.plan(series=cpu_series({"a": [0.1], "b": [0.2]}), hosts=HOST)
    assert exc.value.problems == [
        "series test: 2 server(s) have no CPU size ('a', 'b'): expected a "
        "cpu_capacity_mhz series or an inventory; give --vm-cpu-mhz F (one size for "
        "every VM) or an inventory file.",
        "series test: 2 server(s) have no memory size ('a', 'b'): expected a "
        "mem_capacity_gib series or an inventory; give --vm-mem-gib F (one size for "
        "every VM) or an inventory file.",
    ]


def test_plan_needs_inventory_or_series():
    with pytest.raises(ConfigError, match="plan needs an inventory file, or time series"):
        vsizer.plan()


def test_inventory_with_series_uses_curves_for_matched_servers():
    inv = vsizer.read_inventory(SAMPLES / "inventory_ja.xlsx")
    names = inv.servers["name"].astype(str).tolist()
    # a day of 5-minute samples (288): not a short series
    curves = {names[0]: [0.1, 0.2, 0.3] * 96, names[1]: [0.3, 0.2, 0.1] * 96,
              "ghost": [0.5] * 288}
    plan = vsizer.plan(inv, series=cpu_series(curves), rules=vsizer.load_rules(
        SAMPLES / "scenario.toml"))
    doc = plan.to_dict()
    sr = doc["series"]
    assert (sr["matched"], sr["series_only"]) == (2, 1)
    assert sr["inventory_only"] == len(names) - 2
    first = next(s for s in doc["servers"] if s["name"] == names[0])
    assert (first["cpu_avg_util"], first["cpu_peak_util"]) == (0.2, 0.3)
    codes = {w.code: w for w in plan.quality.warnings}
    assert codes["series_not_in_inventory"].servers == ("ghost",)
    assert codes["series_not_in_inventory"].message == (
        "1 series server(s) are not in the inventory and are not planned: 'ghost'."
    )
    coverage = codes["partial_series_coverage"]
    assert coverage.servers == tuple(names[2:])
    assert coverage.message.startswith(
        f"{len(names) - 2} of {len(names)} servers have no series and are placed at "
        f"their inventory peak, a flat curve: '{names[2]}', "
    )
    assert all(p["replay"]["steps_over_100"] == 0 for p in doc["pools"])


def test_series_that_match_no_inventory_name_is_an_error():
    inv = vsizer.read_inventory(SAMPLES / "inventory_ja.xlsx")
    with pytest.raises(InputError, match="no server name matches the inventory"):
        vsizer.plan(inv, series=cpu_series({"nobody": [0.1]}))


# ----- CLI ---------------------------------------------------------------------


def write_planetlab(folder: Path, curves: dict[str, list[int]]) -> Path:
    folder.mkdir()
    for name, values in curves.items():
        (folder / name).write_text("".join(f"{v}\n" for v in values))
    return folder


def run(*args: str):
    return runner.invoke(app, list(args), env={"COLUMNS": "200"})


def test_cli_plans_straight_from_planetlab_files(tmp_path):
    day = [10] * 288
    folder = write_planetlab(
        tmp_path / "20260105",
        {"vm-a": [50] * 144 + day[:144], "vm-b": day[:144] + [50] * 144, "vm-c": [0] * 288},
    )
    hosts = tmp_path / "hosts.csv"
    hosts.write_text(
        "model,sockets,cores_per_socket,threads_per_core,cpu_mhz,mem_gib,power_idle_w,power_max_w\n"
        "Small,1,1,1,1000,64,50,100\n"
    )
    out = tmp_path / "plan.json"
    args = ["plan", "--series", str(folder), "--series-format", "planetlab",
            "--vm-cpu-mhz", "1000", "--vm-mem-gib", "1", "--hosts", str(hosts),
            "--host-model", "Small", "--failures", "0", "--detail", "-o", str(out)]
    r = run(*args)
    assert r.exit_code == 0, r.output
    doc = json.loads(out.read_text())
    (pool,) = doc["pools"]
    # a and b alternate 50 % / 10 %, c idles: 0.6 at every step -> one host.
    assert pool["host_count"] == 1
    assert pool["hosts"][0]["vms"] == ["vm-a", "vm-b", "vm-c"]  # file names
    assert pool["lower_bound"]["peak_sum"]["cpu"] == 2  # (0.5 + 0.5) / 0.6
    assert pool["replay"]["steps_over_ceiling"] == 0
    assert doc["series"]["format"] == "planetlab" and doc["series"]["steps"] == 288
    assert "Hosts on curves" in r.output and "Time series" in r.output
    first = out.read_bytes()
    assert run(*args).exit_code == 0
    assert out.read_bytes() == first  # deterministic


@pytest.mark.parametrize(
    "args,message",
    [
        ([], "error: give an inventory file, or --series (with --vm-cpu-mhz and "
             "--vm-mem-gib when the series carry no sizes); see 'vsizer plan --help'."),
        (["x.xlsx", "--series-format", "planetlab"], "error: --series-format needs --series."),
        (["--series", "s", "--percentile", "95"],
         "error: The 'percentile' parameter of plan (--percentile, [series] percentile) must be 'max' or 'pNN' with 0 < NN < 100"),
        (["--series", "s", "--solver", "glpk"],
         "error: The 'solver' parameter of plan (--solver, [series] solver) must be one of 'heuristic', 'cp-sat'. Got 'glpk' instead."),
    ],
)
def test_cli_series_option_errors(args, message):
    r = run("plan", *args)
    assert r.exit_code == 2
    assert message in r.output


def test_cli_planetlab_without_sizes_exits_2_with_both_lines(tmp_path):
    folder = write_planetlab(tmp_path / "20260105", {"vm-a": [10] * 288})
    r = run("plan", "--series", str(folder), "--series-format", "planetlab")
    assert r.exit_code == 2
    lines = [ln for ln in r.output.splitlines() if ln.startswith("error:")]
    assert len(lines) == 2
    assert "have no CPU size ('vm-a')" in lines[0]
    assert "have no memory size ('vm-a')" in lines[1]


def test_cli_planetlab_day_from_shared_data(shared_data, tmp_path):
    day = shared_data / "planetlab_cloudsim" / "20110303"
    out = tmp_path / "plan.json"
    r = run("plan", "--series", str(day), "--series-format", "planetlab",
            "--vm-cpu-mhz", "1000", "--vm-mem-gib", "1", "-q", "-o", str(out))
    assert r.exit_code == 0, r.output
    doc = json.loads(out.read_text())
    assert doc["summary"]["servers"] == 1052
    pool = doc["pools"][0]
    assert pool["replay"]["steps_over_ceiling"] == 0
    assert pool["failover"]["survives"]
    names = {p.name for p in day.iterdir()}
    assert {v for h in pool["hosts"] for v in h["vms"]} == names


def test_cli_plan_predict_adds_predictions(tmp_path):
    out = tmp_path / "plan.json"
    r = run("plan", str(SAMPLES / "inventory_ja.xlsx"), "--config",
            str(SAMPLES / "scenario.toml"), "--predict", "-q", "-o", str(out))
    assert r.exit_code == 0, r.output
    doc = json.loads(out.read_text())
    pred = doc["predictions"]
    assert {v["name"] for v in pred["vms"]} == {s["name"] for s in doc["servers"]}
    assert {h["host"] if "host" in h else h["id"] for h in pred["hosts"]} == {
        h["id"] for p in doc["pools"] for h in p["hosts"]
    }


def test_cli_plan_profile_that_does_not_exist_exits_2(tmp_path):
    r = run("plan", str(SAMPLES / "inventory_ja.xlsx"), "--profile",
            str(tmp_path / "none.toml"), "-q")
    assert r.exit_code == 2
    assert "none.toml" in r.output and r.output.startswith("error:")


def test_cli_plans_from_a_store_that_import_filled(tmp_path):
    pytest.importorskip("pyarrow")
    folder = write_planetlab(
        tmp_path / "20260105",
        {"vm-a": [50] * 144 + [10] * 144, "vm-b": [10] * 144 + [50] * 144},
    )
    store = tmp_path / "store"
    r = run("import", str(folder), "--format", "planetlab", "--store", str(store))
    assert r.exit_code == 0, r.output
    out = tmp_path / "plan.json"
    r = run("plan", "--series", str(store), "--vm-cpu-mhz", "10000", "--vm-mem-gib", "1",
            "--failures", "0", "-q", "-o", str(out))
    assert r.exit_code == 0, r.output
    doc = json.loads(out.read_text())
    assert doc["series"]["format"] == "store"
    assert doc["pools"][0]["hosts"][0]["vms"] == ["vm-a", "vm-b"]
    # 0.6 x 10,000 MHz at every step on the default host (2 x 28 cores x 2,500 MHz;
    # MHz converted at the host's score per MHz, DESIGN §4 fallback)
    assert doc["pools"][0]["hosts"][0]["util"]["cpu"] == pytest.approx(
        6000 / (56 * 2500), abs=1e-6
    )


def test_cli_series_path_without_format_that_is_not_a_store_exits_2(tmp_path):
    folder = write_planetlab(tmp_path / "20260105", {"vm-a": [10] * 288})
    r = run("plan", "--series", str(folder), "--vm-cpu-mhz", "1000", "--vm-mem-gib", "1")
    assert r.exit_code == 2
    assert "is not a vsizer series store" in r.output
