"""§8 method: trimmed mean, CV, /proc parsers, foreign load, repetition with re-runs."""

from __future__ import annotations

import math

import pytest

from vsizer.bench import method
from vsizer.bench.method import (
    CpuTimes,
    MethodConfig,
    aggregate,
    coefficient_of_variation,
    foreign_load,
    parse_loadavg,
    parse_proc_stat,
    run_repeated,
    trimmed_mean,
)
from vsizer.bench.samples import Sample
from vsizer.errors import BenchmarkRunError, ConfigError


def test_trimmed_mean_design_rule():
    # DESIGN §8: 10 runs, discard 5 warm-ups, drop highest and lowest, average the other 3
    measured = [10.0, 14.0, 11.0, 30.0, 12.0]
    assert trimmed_mean(measured, 1) == pytest.approx((11 + 12 + 14) / 3)


def test_trimmed_mean_small_samples():
    assert trimmed_mean([5.0], 1) == 5.0
    assert trimmed_mean([4.0, 6.0], 1) == 5.0  # nothing to drop from two values
    assert trimmed_mean([1.0, 2.0, 9.0], 1) == 2.0
    with pytest.raises(ValueError, match="at least one value"):
        trimmed_mean([], 1)


def test_cv():
    # values 2, 4, 6: mean 4, sample sd 2 -> CV 0.5
    assert coefficient_of_variation([2.0, 4.0, 6.0]) == pytest.approx(0.5)
    assert coefficient_of_variation([3.0]) == 0.0
    assert math.isnan(coefficient_of_variation([0.0, 0.0]))


def test_parse_proc_stat_and_loadavg():
    text = "cpu  195385 10 35862 349813 1433 5 417 313 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n"
    t = parse_proc_stat(text, clk_tck=100)
    assert t.busy == pytest.approx((195385 + 10 + 35862) / 100)
    assert t.idle == pytest.approx((349813 + 1433) / 100)
    assert t.steal == pytest.approx(3.13)
    assert t.irq == pytest.approx((5 + 417) / 100)
    assert t.total == pytest.approx((195385 + 10 + 35862 + 349813 + 1433 + 5 + 417 + 313) / 100)
    assert parse_loadavg("0.49 0.76 0.86 1/87 30089\n") == 0.49


def test_parse_errors():
    with pytest.raises(BenchmarkRunError, match=r"/proc/stat: expected a 'cpu' line with at least 8 counters"):
        parse_proc_stat("cpu0 1 2 3\n")
    with pytest.raises(BenchmarkRunError, match=r"/proc/loadavg: expected '<1m> <5m> <15m> \.\.\.', found 'x'"):
        parse_loadavg("x")


def test_foreign_load_subtracts_own_cpu():
    before = CpuTimes(busy=100.0, idle=100.0, steal=0.0)
    after = CpuTimes(busy=160.0, idle=130.0, steal=10.0)  # 100 s of CPU time elapsed
    busy, steal = foreign_load(before, after, own_cpu_s=40.0)
    assert busy == pytest.approx(0.2)
    assert steal == pytest.approx(0.1)
    assert foreign_load(before, after, own_cpu_s=90.0)[0] == 0.0
    assert foreign_load(before, before, 0.0) == (0.0, 0.0)


def _fake_proc(monkeypatch, busy_per_run):
    """Each measure() advances /proc/stat by 100 s, of which busy_per_run[i] is busy."""
    state = {"busy": 0.0, "idle": 0.0, "i": 0}

    def read(path):
        if path == "/proc/loadavg":
            return "0.10 0.1 0.1 1/1 1"
        return f"cpu  {int(state['busy'] * 100)} 0 0 {int(state['idle'] * 100)} 0 0 0 0 0 0\n"

    def measure():
        b = busy_per_run[state["i"]]
        state["i"] += 1
        state["busy"] += b
        state["idle"] += 100 - b
        return [Sample("x", float(state["i"]), "u", {"case": 1}, 0.0)]

    monkeypatch.setattr(method, "_read", read)
    monkeypatch.setattr(method, "_CLK_TCK", 100)
    monkeypatch.setattr(method, "own_cpu_seconds", lambda pids=(): 0.0)
    return measure


def test_run_repeated_reruns_loaded_runs(monkeypatch):
    # run 0 warm-up; run 1 loaded (50 %) then clean; run 2 loaded 3 times -> kept, flagged
    measure = _fake_proc(monkeypatch, [0, 50, 0, 50, 50, 50])
    monkeypatch.setattr(method.time, "sleep", lambda s: None)
    cfg = MethodConfig(warmup=1, repetitions=2, trim=0, foreign_threshold=0.25, max_reruns=2)
    got = run_repeated(measure, cfg)
    assert [(s.value, s.metadata["run"], s.metadata["attempt"]) for s in got] == [
        (1.0, 0, 0), (3.0, 1, 1), (6.0, 2, 2)]
    assert [s.metadata["warmup"] for s in got] == [True, False, False]
    assert got[1].metadata["foreign_busy"] == 0.0
    assert got[2].metadata["foreign_load_exceeded"] is True
    assert got[2].metadata["foreign_busy"] == 0.5
    assert got[0].metadata["loadavg_1m"] == 0.1


def test_aggregate_drops_warmup_and_trims():
    runs = [Sample("x", v, "u", {"case": 1, "run": i, "warmup": i == 0,
                                 "foreign_load_exceeded": False}, float(i))
            for i, v in enumerate([100.0, 10.0, 14.0, 11.0, 30.0, 12.0])]
    (agg,) = aggregate(runs, trim=1)
    assert agg.value == pytest.approx(37 / 3)
    assert agg.metadata["n_runs"] == 5
    assert agg.metadata["values"] == [10.0, 14.0, 11.0, 30.0, 12.0]
    assert agg.metadata["min"] == 10.0 and agg.metadata["max"] == 30.0
    assert agg.metadata["case"] == 1 and "run" not in agg.metadata
    assert agg.timestamp == 5.0


def test_method_config_checks():
    with pytest.raises(ConfigError, match=r"The 'repetitions' parameter of bench method must be an int in the range \[1, inf\)\. Got 0 instead\."):
        MethodConfig(repetitions=0)
    with pytest.raises(ConfigError, match=r"'foreign_threshold'"):
        MethodConfig(foreign_threshold=1.5)
