"""The benchmark method's steady sampling, load ramp and runs 11-20 (issue 28),
tile score per watt and the disk/network rows of ``bench export --for-fit``:
pure functions with hand-computed values; no QEMU runs."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from typer.testing import CliRunner

from vsizer.bench.export import export_for_fit
from vsizer.bench.export_io import block_kib, disk_rows, network_rows
from vsizer.bench.method import MethodConfig, aggregate
from vsizer.bench.nec import (
    ramp_levels,
    ramp_stop,
    runs_mean,
    steady_window,
    steady_window_mean,
)
from vsizer.bench.samples import Sample, append_samples
from vsizer.bench.suite import load_suite
from vsizer.bench.tiles import _mean_host_util, host_watts, score_per_watt
from vsizer.cli import app
from vsizer.errors import ConfigError
from vsizer.models.measurements import read_measurements

runner = CliRunner()


# -- steady sampling: 30 s samples, the 6 in the middle 3 minutes ---------------
def test_steady_window_of_ten_samples_is_samples_3_to_8() -> None:
    values = [50, 80, 100, 102, 98, 101, 99, 100, 60, 20]  # ramp up, steady, wind down
    assert steady_window(10) == (2, 8)
    # (100 + 102 + 98 + 101 + 99 + 100) / 6 = 600 / 6 = 100
    assert steady_window_mean(values) == 100.0
    # 7 minutes (14 samples): the middle 6 are samples 5-10 (0-based 4..9)
    assert steady_window(14) == (4, 10)


def test_steady_window_needs_five_minutes() -> None:
    with pytest.raises(ValueError, match=r"^steady sampling: 9 samples every 30 s cover "
                       r"270 s; expected a steady run of at least 300 s \(10 samples\)\.$"):
        steady_window_mean([1.0] * 9)


def test_aggregate_with_the_steady_rule() -> None:
    samples = [Sample("tps", float(v), "tx/s", {"run": i, "warmup": False}, 0.0)
               for i, v in enumerate([50, 80, 100, 102, 98, 101, 99, 100, 60, 20])]
    (agg,) = aggregate(samples, trim=0, rule="steady_window")
    assert agg.value == 100.0 and agg.metadata["aggregate"] == "steady_window"
    (tm,) = aggregate(samples, trim=1)  # trimmed mean: drop 20 and 102, mean of 8 = 88
    assert tm.value == pytest.approx(688 / 8)


def test_method_rule_checked() -> None:
    with pytest.raises(ConfigError, match="rule 'steady_window' needs repetitions >= 10"):
        MethodConfig(repetitions=5, rule="steady_window")
    with pytest.raises(ConfigError, match="rule"):
        MethodConfig(rule="median")


def test_bundled_suites_steady_and_runs_11_20() -> None:
    steady = load_suite("steady")
    assert (steady.method.rule, steady.method.repetitions, steady.method.warmup) == (
        "steady_window", 10, 0)
    assert {c["time_s"] for c in steady.workloads.values()} == {30}
    assert steady.quick().method.rule == "trimmed_mean"  # quick runs are too short
    r = load_suite("runs-11-20").method
    assert (r.warmup, r.repetitions, r.trim, r.rule) == (10, 10, 0, "trimmed_mean")


# -- load ramp -----------------------------------------------------------------
def test_ramp_levels_double_from_100() -> None:
    assert ramp_levels() == [100, 200, 400, 800, 1600, 3200, 6400]
    assert ramp_levels(100, 799) == [100, 200, 400]


def test_ramp_stops_at_95_percent_cpu_plateau_or_errors() -> None:
    tp, util = [1000.0, 1900.0, 3500.0, 3600.0], [0.30, 0.55, 0.90, 0.97]
    stop = ramp_stop(tp, util)
    # level 3: +2.9 % < 5 % is checked after utilization: 97 % >= 95 % first
    assert stop is not None and (stop.index, stop.reason) == (3, "CPU utilization 97 % >= 95 %")
    stop = ramp_stop([1000.0, 1900.0, 1950.0], [0.3, 0.55, 0.6])
    # 1950 / 1900 - 1 = +2.6 %
    assert stop is not None and stop.index == 2 and stop.reason.startswith(
        "throughput plateau: +2.6 %")
    assert ramp_stop([1000.0, 1900.0], [0.3, 0.55], errors=[0, 3]).reason == "3 error(s)"
    assert ramp_stop([1000.0, 1900.0], [0.3, 0.55]) is None


def test_runs_11_to_20() -> None:
    runs = [1000.0] * 10 + [float(v) for v in range(101, 111)]  # runs 11-20: 101..110
    assert runs_mean(runs) == 105.5
    with pytest.raises(ValueError, match="expected at least 20 runs, got 19"):
        runs_mean(runs[:19])


# -- tile score per watt -------------------------------------------------------
def test_tile_score_per_watt_on_the_published_l5520_blade() -> None:
    # 79 W idle, 135 W at full load; host CPU 50 %: 79 + 56 x 0.5 = 107 W
    assert host_watts(79.0, 135.0, 0.5) == 107.0
    assert host_watts(79.0, 135.0, 1.7) == 135.0  # clipped
    assert score_per_watt(3.21, 107.0) == pytest.approx(0.03)
    with pytest.raises(ValueError, match="watts > 0"):
        score_per_watt(1.0, 0.0)
    raw = [Sample("x", 1.0, "u", {"run": r, "warmup": r == 0, "host_cores": 2,
                                  "total_util_pct": u}, 0.0)
           for r, u in ((0, 10.0), (1, 100.0), (2, 150.0))]
    # runs 1 and 2: 100 / 200 and 150 / 200 -> mean 0.625
    assert _mean_host_util(raw) == 0.625


# -- bench export --for-fit: disk and network ----------------------------------
def _agg(workload: str, metric: str, value: float, env: str, unit: str, **case) -> Sample:
    meta = {"workload": workload, "aggregate": "trimmed_mean", "run_id": "R7",
            "environment": env, "accelerator": "kvm", "hypervisor": "qemu-kvm", **case}
    return Sample(metric, value, unit, meta, 0.0)


DISK = dict(access_spec="database", queue_depth=4, write_cache="on")
SAMPLES = [
    _agg("disk", "mb_s", 40.0, "physical", "MB/s", backing="prealloc", **DISK),
    _agg("disk", "mb_s", 30.0, "vm", "MB/s", backing="prealloc", **DISK),
    _agg("disk", "mb_s", 25.0, "vm", "MB/s", backing="qcow2", **DISK),  # no native
    _agg("disk", "iops", 999.0, "vm", "IO/s", backing="prealloc", **DISK),  # not the metric
    _agg("network", "received_mbit_s", 1000.0, "physical", "Mbit/s", block_size="8K",
         direction="send"),
    _agg("network", "received_mbit_s", 800.0, "vm", "Mbit/s", block_size="8K",
         direction="send", link="host-guest"),
    _agg("network", "received_mbit_s", 2037.0, "vm", "Mbit/s", block_size="2K",
         direction="send", link="guest-guest"),
]


def test_disk_rows_relative_to_native() -> None:
    (row,) = disk_rows(SAMPLES)
    assert (row["model"], row["access_spec"], row["backing"], row["queue_depth"]) == (
        "disk", "database", "file", 4)
    assert (row["throughput"], row["native_throughput"], row["relative"]) == (30.0, 40.0, 0.75)


def test_network_rows_need_the_line_rate_for_send_receive() -> None:
    assert block_kib("128K") == 128.0
    rows, skipped = network_rows(SAMPLES)
    assert skipped == 1 and [r["direction"] for r in rows] == ["vm_to_vm"]
    rows, skipped = network_rows(SAMPLES, nic_gbps=10.0)
    assert skipped == 0
    send = [r for r in rows if r["direction"] == "send"][0]
    assert (send["relative"], send["nic_gbps"], send["block_size_kb"]) == (0.8, 10.0, 8.0)


def test_export_for_fit_csv_is_read_by_fit(tmp_path: Path) -> None:
    store = tmp_path / "s.jsonl"
    append_samples(store, SAMPLES)
    out = tmp_path / "m.csv"
    notes: list[str] = []
    assert export_for_fit(store, out, notes=notes) == 2
    assert notes == ["1 network send/receive row(s) left out: give --nic-gbps (the link's "
                     "line rate) to export them."]
    assert [r["model"] for r in csv.DictReader(out.open())] == ["disk", "network"]
    assert list(read_measurements(out, "disk")["relative"]) == [0.75]
    res = runner.invoke(app, ["bench", "export", "--for-fit", "--nic-gbps", "10",
                              "--store", str(store), "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert "wrote 3 rows" in res.output
    net = read_measurements(out, "network")
    assert sorted(net["direction"]) == ["send", "vm_to_vm"]


def test_tiles_power_check_and_cli_pairing() -> None:
    from vsizer.bench.tiles import _check

    with pytest.raises(ConfigError, match=r"^bench tiles: expected 0 < --idle-w <= --max-w, "
                       r"got 135 and 79\.$"):
        _check(2, ["cpu"], (135.0, 79.0))
    res = runner.invoke(app, ["bench", "tiles", "--idle-w", "79"])
    assert res.exit_code == 2
    assert " ".join(res.output.split()) == (
        "error: give --idle-w and --max-w together (the host's idle and full-load watts), "
        "or neither")
