"""Real utilization files from public repositories (tests/data/real/*/README.md),
each pinned to figures checked by hand and run through its reader and, where a plan
makes sense, ``vsizer import`` and a series-only plan.

Hand checks (from the repository root):

* ``awk 'NR>3 {n++; s+=$6; if ($6>m) {m=$6; t=$1}} END {print n, s/n, m, t}'
  tests/data/real/sysstat/mw2q_centos7_sysstat10_sar_u.txt`` -> 41 32.632 63.50
  21:22:24 (samples, mean and peak %iowait); lowest %idle 13.79 at 21:08:24.
* Russian perfmon: columns 1 (Idle) and 276 (_Total) of the row 16:48:33.962:
  892.61030083627838394 and 1196.3782042622369772.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from vsizer.cli import app
from vsizer.errors import SeriesError
from vsizer.series.perfmon import read_perfmon
from vsizer.series.prometheus import read_query_range
from vsizer.series.sysstat import read_sysstat

pytestmark = pytest.mark.slow

REAL = Path(__file__).parent / "data" / "real"
MW2Q = REAL / "sysstat" / "mw2q_centos7_sysstat10_sar_u.txt"
SYSSTAT12 = REAL / "sysstat" / "sysstat_12_tests_expected.sar-all.txt"
PERFMON_EN = REAL / "perfmon" / "rajitharul_perfmon_en_srilanka_first24h.csv"
PERFMON_RU = REAL / "perfmon" / "waflia_pdh_converter_DataCollector01_ru.csv"
GRAFANA = REAL / "prometheus" / "grafana_range_auto.result.json"
runner = CliRunner()


def cli(*args: object) -> str:
    r = runner.invoke(app, [str(a) for a in args], env={"COLUMNS": "250"})
    assert r.exit_code == 0, r.output
    return r.output


def cpu(s) -> pd.Series:  # type: ignore[no-untyped-def]
    d = s.data[s.data["metric"] == "cpu_util"]
    return d.set_index("timestamp")["value"]


def kinds(s) -> dict[str, int]:  # type: ignore[no-untyped-def]
    return {i["kind"]: i["count"] for i in s.quality.issues}


def series_plan(tmp_path: Path, fmt: str, src: Path, *opts: object) -> dict:
    store = tmp_path / "store"
    cli("import", src, "--format", fmt, *opts, "--store", store)
    out = tmp_path / "plan.json"
    cli("plan", "--series", store, "--vm-cpu-mhz", 2600, "--vm-mem-gib", 64, "-o", out)
    doc: dict = json.loads(out.read_text())
    return doc


# ------------------------------------------------------------------ sysstat


def test_mw2q_sysstat10_centos7() -> None:
    s = read_sysstat(MW2Q)
    c = cpu(s)
    assert len(c) == 41 and s.metadata["median_interval_s"] == 60
    assert c.max() == pytest.approx(0.8621)  # %idle 13.79
    assert c.idxmax() == pd.Timestamp("2015-11-25 21:08:24Z")
    assert s.metadata["machines"]["CentOS-71-64-minimal"]["cpu_count"] == 16
    (iowait,) = [i for i in s.quality.issues if i["kind"] == "iowait_busy"]
    assert iowait["count"] == 38
    assert "up to 63.50 % (at 2015-11-25T21:22:24Z), mean 32.63 %" in iowait["detail"]


def test_mw2q_sar_only_plan_plans_16_cpus(tmp_path: Path) -> None:
    doc = series_plan(tmp_path, "sar", MW2Q)
    (vm,) = doc["servers"]
    assert vm["name"] == "CentOS-71-64-minimal"
    assert vm["cores_per_socket"] == 16 and vm["vcpus"] == 16
    assert vm["cpu_capacity"] == pytest.approx(16 * vm["cpu_score_per_core"])
    # busiest 5-minute step: 21:15:24 .. 21:19:24, mean %idle 40.198
    assert vm["cpu_peak_util"] == pytest.approx(0.59802, abs=1e-5)
    assert vm["cpu_peak_demand"] == pytest.approx(
        0.59802 * vm["cpu_capacity"], rel=1e-4
    )
    assert "series_iowait_busy" in [w["code"] for w in doc["warnings"]]


def test_sysstat12_upstream_sar_all() -> None:
    s = read_sysstat(SYSSTAT12)
    assert s.metadata["machines"]["SYSSTAT.TEST"] == {
        "cpu_count": 9,
        "vcpus": 9,
        "cpu_count_from": "the sysstat file's CPU count: sar banner '(N CPU)', "
        "LINUX RESTART",
        "mem_gib": 7.768,  # kbmemused + kbavail = 8,144,960 KiB
        "mem_gib_from": "sar -r (kbmemused x 100 / %memused)",
    }
    assert kinds(s)["restart"] == 1


# ------------------------------------------------------------------ perfmon


def test_perfmon_english_sri_lanka() -> None:
    s = read_perfmon(PERFMON_EN)
    c = cpu(s)
    assert len(c) == 5756 and s.metadata["bias_minutes"] == -330
    assert s.metadata["median_interval_s"] == pytest.approx(15.008)
    assert c.index.min() == pd.Timestamp("2023-04-28 00:26:03.500Z")  # 05:56:03 +0530
    assert c.max() == pytest.approx(0.924220834257165)
    assert c.idxmax() == pd.Timestamp("2023-04-29 00:25:10.526Z")
    assert c.mean() == pytest.approx(0.08717, abs=1e-5)


def test_perfmon_russian_cpu_from_idle_and_total() -> None:
    s = read_perfmon(PERFMON_RU)
    assert s.metadata["encoding"] == "cp1251"
    c = cpu(s)
    assert len(c) == 25
    assert c.max() == pytest.approx(1 - 892.61030083627838394 / 1196.3782042622369772)
    assert c.idxmax() == pd.Timestamp("2021-09-20 16:48:33.962Z")  # no bias: as UTC
    assert c.mean() == pytest.approx(0.1259, abs=1e-4)
    (issue,) = [i for i in s.quality.issues if i["kind"] == "cpu_from_processes"]
    assert issue["detail"] == (
        "no Processor counter: cpu_util = 1 - Process(Idle) / Process(_Total) % "
        "Processor Time (both per processor; _Total up to 1214 %, about 12 logical "
        "processors)"
    )


def test_perfmon_russian_series_plan(tmp_path: Path) -> None:
    doc = series_plan(tmp_path, "perfmon", PERFMON_RU)
    (vm,) = doc["servers"]
    assert vm["name"] == "DESKTOP-LRPVSK4" and vm["cpu_peak_util"] > 0.1
    assert "series_cpu_from_processes" in [w["code"] for w in doc["warnings"]]


# --------------------------------------------------------------- prometheus


def test_grafana_query_range_without_labels_needs_a_name() -> None:
    with pytest.raises(SeriesError, match="name the one series with --server NAME"):
        read_query_range(GRAFANA, metric="cpu_util")
    s = read_query_range(GRAFANA, metric="cpu_util", server="grafana-demo")
    c = cpu(s)
    assert len(c) == 301 and s.metadata["step_s"] == 1.0
    assert c.max() == pytest.approx(0.09992233009708738)
    assert c.idxmax() == pd.Timestamp("2022-09-28 14:45:39.491Z")  # 1664376339.491
    assert "grafana_range_auto.result.json: the one series named 'grafana-demo' " in (
        s.quality.notes[0]
    )


def test_grafana_series_plan(tmp_path: Path) -> None:
    doc = series_plan(
        tmp_path, "prometheus", GRAFANA, "--metric", "cpu_util", "--server", "g1"
    )
    (vm,) = doc["servers"]
    assert vm["name"] == "g1" and vm["cores_per_socket"] == 1  # no CPU count given
    # the busiest 5-minute step holds the 186 points from 14:45:00.491 on
    points = json.loads(GRAFANA.read_text())["data"]["result"][0]["values"]
    late = [float(v) for t, v in points if t >= 1664376300]
    assert len(late) == 186
    assert vm["cpu_peak_util"] == pytest.approx(sum(late) / 186, abs=1e-6)


def test_almalinux10_japanese_sar_p0_without_the_all_row() -> None:
    # sysstat 12.7 (AlmaLinux 10, kernel 6.12), ja_JP: times 18時25分11秒, only
    # the CPU 0 row (sar -P 0): %idle 96.94 -> 3.06 % busy.
    s = read_sysstat(REAL / "sysstat" / "hirokitakano_almalinux10_ja_sar_P0.txt")
    c = cpu(s)
    assert c.tolist() == [pytest.approx(0.0306)]
    assert c.index[0] == pd.Timestamp("2025-08-02 18:25:11Z")
    (issue,) = [i for i in s.quality.issues if i["kind"] == "per_cpu_only"]
    assert issue["detail"] == (
        "no all-CPU row (sar -P n): cpu_util is the mean of the per-CPU rows, 1 to "
        "1 CPUs of the banner's 1"
    )


SLES_CPU = REAL / "sysstat" / "mw2q_sles11_s390x_sadf_d_cpu.csv"
SLES_MEM = REAL / "sysstat" / "mw2q_sles11_s390x_sadf_d_mem.csv"


def test_sles11_sadf_d_cpu_count_from_per_cpu_rows() -> None:
    # sadf -d -U (Unix seconds), SLES 11 SP3 on IBM Z (kernel 3.0.76, s390x):
    # 10 samples at 60 s, CPUs -1 (all), 0 and 1; lowest all-CPU %idle 2.44 at
    # 1430502085 (2015-05-01 17:41:25 UTC).
    s = read_sysstat(SLES_CPU)
    c = cpu(s)
    assert len(c) == 10 and s.metadata["median_interval_s"] == 60
    assert c.max() == pytest.approx(0.9756)
    assert c.idxmax() == pd.Timestamp("2015-05-01 17:41:25Z")
    assert s.metadata["machines"] == {
        "ECSPGSQL": {
            "cpu_count": 2,
            "vcpus": 2,
            "cpu_count_from": "the CPUs listed in the per-CPU rows (-P ALL)",
        }
    }


def test_sles11_old_sysstat_memory_leaves_the_page_cache_out() -> None:
    # kbmemfree + kbmemused = 4,110,964 KiB on every row (3,067,992 / 74.63 %):
    # this sysstat counts buffers and cache as used (99.29 % on the last row).
    s = read_sysstat(SLES_MEM)
    mem = s.data[s.data["metric"] == "mem_used_gib"].set_index("timestamp")["value"]
    last = pd.Timestamp("2015-05-01 17:48:25Z")
    assert mem[last] == pytest.approx((4081740 - 68936 - 3378888) / 2**20)
    assert s.metadata["machines"]["ECSPGSQL"]["mem_gib"] == 3.921
    assert kinds(s)["page_cache"] == 10


def test_sles11_cpu_and_memory_files_plan_one_server(tmp_path: Path) -> None:
    store = tmp_path / "store"
    cli("import", SLES_CPU, SLES_MEM, "--format", "sar", "--store", store)
    out = tmp_path / "plan.json"
    cli("plan", "--series", store, "--vm-cpu-mhz", 5000, "-o", out)
    (vm,) = json.loads(out.read_text())["servers"]
    assert vm["name"] == "ECSPGSQL"
    assert vm["cores_per_socket"] == 2 and vm["vcpus"] == 2  # from the CPU file
    assert vm["mem_gib"] == 3.921  # from the memory file
    # busiest 5-minute step 17:40 to 17:45: %idle 2.89, 2.44, 2.97, 2.87, 3.33
    assert vm["cpu_peak_util"] == pytest.approx(0.9710, abs=1e-4)


def test_perfmon_english_series_plan(tmp_path: Path) -> None:
    doc = series_plan(tmp_path, "perfmon", PERFMON_EN)
    (vm,) = doc["servers"]
    assert vm["name"] == "DESKTOP-FUOCR3U" and vm["cores_per_socket"] == 1
    assert doc["series"]["step_seconds"] == 300 and doc["series"]["steps"] == 289
    # the 5-minute means stay below the 15-s peak of 92.4 %
    assert 0.08 < vm["cpu_avg_util"] < vm["cpu_peak_util"] < 0.924
