"""Real utilization files, second round (issue 23): more sysstat outputs from public
repositories (tests/data/real/sysstat/README.md), each pinned to figures checked by
hand, and the defect class each found.

Hand checks (from the repository root):

* ``grep -n -A1 'kbmemfree' tests/data/real/sysstat/seango_probe_*`` -> line 548:
  kbmemfree 6,101,004, kbmemused 2,075,688 (%memused 25.39), kbbuffers 92,732,
  kbcached 997,752 KiB; line 6: ``22:43:19 all ... 99.50`` (%idle).
* ``grep -c -v '^[0-9]' ...seango...`` less the blank, ``Average:``/``Summary:`` and
  banner lines: 81 wrapper lines (``connect_db ..... OK!``, ``print_cpu_stats``, ...)
  before the last table, and ``disconnected_db`` after it.
* ``wc -l tests/data/real/sysstat/western24_*`` -> 243 rows, all ``PM``, no banner
  and no header.
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
from vsizer.series.sysstat import read_sysstat
from vsizer.series.wide import read_wide

pytestmark = pytest.mark.slow

SYSSTAT = Path(__file__).parent / "data" / "real" / "sysstat"
SEANGO = SYSSTAT / "seango_probe_ubuntu1404_sysstat11_sar_A_debug.log"
WESTERN24 = SYSSTAT / "western24_sar_u_ampm_headerless.log"
runner = CliRunner()


def cli(*args: object) -> str:
    r = runner.invoke(app, [str(a) for a in args], env={"COLUMNS": "250"})
    assert r.exit_code == 0, r.output
    return r.output


def cpu(s) -> pd.Series:  # type: ignore[no-untyped-def]
    d = s.data[s.data["metric"] == "cpu_util"]
    return d.set_index("timestamp")["value"]


def issues(s) -> dict[str, dict]:  # type: ignore[no-untyped-def]
    return {i["kind"]: i for i in s.quality.issues}


def test_seango_sar_a_with_a_wrapper_trace_between_the_tables() -> None:
    # a sar -A of sysstat 11 (kernel 3.16, 2 CPUs) whose printer (a fork writing to
    # MySQL) printed its own trace lines between the tables: once refused with 81
    # errors; now those lines are counted and the tables read.
    s = read_sysstat(SEANGO)
    d = s.data.set_index("metric")["value"]
    assert d["cpu_util"] == pytest.approx(0.005)  # %idle 99.50
    assert s.data["timestamp"].unique().tolist() == [
        pd.Timestamp("2015-11-05 22:43:19Z")
    ]
    # older sysstat: kbmemused includes the page cache
    assert d["mem_used_gib"] == pytest.approx((2075688 - 92732 - 997752) / 2**20)
    assert s.metadata["machines"]["ubuntu-vm"]["cpu_count"] == 2
    assert s.metadata["machines"]["ubuntu-vm"]["mem_gib"] == pytest.approx(
        (6101004 + 2075688) / 2**20, abs=1e-3
    )
    found = issues(s)
    assert found["foreign_lines"]["count"] == 81
    assert found["foreign_lines"]["detail"] == (
        "81 lines of seango_probe_ubuntu1404_sysstat11_sar_A_debug.log (not sar's: no "
        "time first) not read (first on line 1: 'connect_db ..... OK!')"
    )
    assert found["skipped_lines"]["detail"].endswith(
        "(first on line 1326: 'disconnected_db')"
    )
    assert s.metadata["skipped_lines"] == 82


def test_seango_series_plan(tmp_path: Path) -> None:
    store = tmp_path / "store"
    cli("import", SEANGO, "--format", "sar", "--store", store)
    out = tmp_path / "plan.json"
    cli("plan", "--series", store, "--vm-cpu-mhz", 2600, "-o", out)
    doc = json.loads(out.read_text())
    (vm,) = doc["servers"]
    assert (vm["name"], vm["vcpus"], vm["mem_gib"]) == ("ubuntu-vm", 2, 7.798)
    assert vm["cpu_peak_util"] == pytest.approx(0.005)
    assert "series_foreign_lines" in [w["code"] for w in doc["warnings"]]


def test_wrapper_titles_between_sar_runs(tmp_path: Path) -> None:
    # the common collection script: echo a title, run sar, echo the next title
    f = tmp_path / "collect.txt"
    f.write_text(
        "=== CPU ===\n"
        "Linux 5.14.0 (db01) \t11/20/2025 \t_x86_64_\t(4 CPU)\n\n"
        "10:00:01 AM     CPU     %user     %nice   %system   %iowait    %steal     %idle\n"
        "10:10:01 AM     all     20.00      0.00      5.00      0.00      0.00     75.00\n"
        "=== MEMORY (sar -r) ===\n"
        "10:20:01 AM     all     30.00      0.00      5.00      0.00      0.00     65.00\n"
    )
    s = read_sysstat(f)
    c = s.data[s.data.metric == "cpu_util"]["value"].tolist()
    assert c == [pytest.approx(0.25), pytest.approx(0.35)]
    assert issues(s)["foreign_lines"]["detail"] == (
        "2 lines of collect.txt (not sar's: no time first) not read (first on line 1: "
        "'=== CPU ===')"
    )


def test_western24_headerless_am_pm_rows_refused_in_two_lines() -> None:
    # 243 'sar -u' rows (10:13:19 PM to 10:33:29 PM, 5 s) cut from their banner and
    # header: the columns and the date are unknown. Once 244 errors (capped at 20
    # shown); now one for the banner and one for the whole run of rows.
    with pytest.raises(SeriesError) as err:
        read_sysstat(WESTERN24)
    text = str(err.value)
    assert (
        "line 1: expected the banner 'Linux <release> (<host>) <date> ...' first"
        in text
    )
    assert (
        "line 1: expected a table header before the rows (a time, then column names "
        "such as 'CPU %user ... %idle'); 243 rows from here on without one, not read "
        "(give sar's whole output), got '10:13:19 PM     all      0.80"
    ) in text
    assert text.count("expected a table header") == 1


@pytest.mark.parametrize(
    "banner",
    [
        "SunOS solaris11-1 5.11 11.1 i86pc    05/21/2014",  # first lines as sar
        "AIX bildb1 1 6 00F69A714C00    07/24/18",  # prints them (quoted in
        "HP-UX VMS2 B.11.31 U ia64    05/08/26",  # public code and docs)
    ],
)
def test_unix_sar_said_unsupported(tmp_path: Path, banner: str) -> None:
    f = tmp_path / "unix.txt"
    f.write_text(
        f"\n{banner}\n\n"
        "00:00:00    %usr    %sys    %wio   %idle\n"
        "00:10:00       3       1       0      96\n"
    )
    with pytest.raises(SeriesError) as err:
        read_sysstat(f)
    assert err.value.problems[0] == (
        "unix.txt line 2: expected a Linux banner (sar of SunOS, AIX, HP-UX is not "
        f"read), got '{banner}'."
    )


# ------------------------------------------------------------------ perfmon

PERFMON = Path(__file__).parent / "data" / "real" / "perfmon"
IVERSON = PERFMON / "iverson_lu_perfmon_en_china_20cpu_first45.csv"


def test_iverson_perfmon_china_20_processors() -> None:
    # English PDH-CSV, (China Standard Time)(-480), 2,633 columns (1,119 GPU
    # Engine pairs, 21 Processor instances x 17 counters, Memory, PhysicalDisk),
    # 1 s; the first 45 rows kept. Processor(_Total) blank in the first row, then
    # highest 20.198 % at 13:46:42.743 local = 05:46:42.743 UTC, mean 13.505 %.
    s = read_perfmon(IVERSON)
    c = cpu(s)
    assert len(c) == 44 and s.metadata["bias_minutes"] == -480
    assert c.max() == pytest.approx(0.2019823612716083)
    assert c.idxmax() == pd.Timestamp("2025-11-14 05:46:42.743Z")
    assert c.mean() == pytest.approx(0.135054739, abs=1e-8)
    m = s.data[s.data.metric == "mem_used_gib"]["value"]
    assert m.max() == pytest.approx(61521551360 / 2**30)  # Committed Bytes
    # Processor(0) .. Processor(19): 20 logical processors
    assert s.metadata["machines"] == {
        "I-MEDUSA": {
            "cpu_count": 20,
            "vcpus": 20,
            "cpu_count_from": "the 20 Processor(n) instances of the perfmon log "
            "(logical processors)",
        }
    }


def test_iverson_perfmon_only_plan_plans_20_cores(tmp_path: Path) -> None:
    # once planned as 1 core (cpu demand 20x too small) although the log lists 20
    store = tmp_path / "store"
    cli("import", IVERSON, "--format", "perfmon", "--store", store)
    out = tmp_path / "plan.json"
    cli("plan", "--series", store, "--vm-cpu-mhz", 2600, "--vm-mem-gib", 64, "-o", out)
    (vm,) = json.loads(out.read_text())["servers"]
    assert (vm["name"], vm["vcpus"], vm["cores_per_socket"]) == ("I-MEDUSA", 20, 20)
    assert vm["cpu_capacity"] == pytest.approx(20 * vm["cpu_score_per_core"])


def test_perfmon_processor_information_instances_count(tmp_path: Path) -> None:
    # Windows Server 2008 R2 and later also log Processor Information(group,n)
    f = tmp_path / "pi.csv"
    head = ['"(PDH-CSV 4.0) (UTC)(0)"'] + [
        f'"\\\\H1\\Processor Information({i})\\% Processor Time"'
        for i in ("0,0", "0,1", "1,0", "1,1", "0,_Total", "1,_Total", "_Total")
    ]
    rows = ['"01/02/2024 00:00:00.000","10","20","30","40","15","35","25"']
    f.write_text("\n".join([",".join(head), *rows]) + "\n")
    s = read_perfmon(f)
    assert cpu(s).tolist() == [pytest.approx(0.25)]
    assert s.metadata["machines"]["H1"]["cpu_count"] == 4


def test_perfmon_without_processor_instances_is_not_sized() -> None:
    en = PERFMON / "rajitharul_perfmon_en_srilanka_first24h.csv"  # _Total only
    assert read_perfmon(en).metadata["machines"] == {}


AAYUSH = SYSSTAT / "aayushgarg89_rhel5_sysstat7_sar_u_ampm.txt"


def test_aayush_rhel5_sysstat7_banner_without_cpu_count() -> None:
    # RHEL 5 (kernel 2.6.18-400.el5), sysstat 7.x: the banner has no arch and no
    # '(N CPU)'; 12-hour clock. 96 samples 12:05:01 AM to 08:00:01 AM (300 s);
    # awk: mean busy 58.93 %, %idle 0.00 at 07:00:01 AM.
    s = read_sysstat(AAYUSH)
    c = cpu(s)
    assert len(c) == 96 and s.metadata["median_interval_s"] == 300
    assert c.index.min() == pd.Timestamp("2016-10-31 00:05:01Z")
    assert c.index.max() == pd.Timestamp("2016-10-31 08:00:01Z")
    assert c.max() == 1.0 and c.idxmax() == pd.Timestamp("2016-10-31 07:00:01Z")
    assert c.mean() == pytest.approx(0.589305, abs=1e-6)
    assert s.metadata["machines"] == {}
    assert issues(s)["cpu_count_unknown"]["detail"] == (
        "the file gives no CPU count (a banner without '(N CPU)', as older sysstat "
        "(7.x) prints, and no per-CPU rows): without an inventory row the server is "
        "planned as 1 core; give its CPUs in an inventory"
    )
    assert issues(s)["iowait_busy"]["count"] == 6


def test_aayush_plan_says_why_one_core(tmp_path: Path) -> None:
    # once planned as 1 core with no word but the generic 'assumed_cpu_capacity'
    store = tmp_path / "store"
    cli("import", AAYUSH, "--format", "sar", "--store", store)
    out = tmp_path / "plan.json"
    cli("plan", "--series", store, "--vm-cpu-mhz", 2600, "--vm-mem-gib", 16, "-o", out)
    doc = json.loads(out.read_text())
    (vm,) = doc["servers"]
    assert vm["cores_per_socket"] == 1 and vm["cpu_peak_util"] == 1.0
    (w,) = [w for w in doc["warnings"] if w["code"] == "series_cpu_count_unknown"]
    assert w["servers"] == ["prodsvr01"]


def test_a_count_from_another_file_of_the_host_is_not_unknown() -> None:
    # the SLES 11 memory file has no CPU rows: no cpu_count_unknown for it
    mem = SYSSTAT / "mw2q_sles11_s390x_sadf_d_mem.csv"
    assert "cpu_count_unknown" not in issues(read_sysstat(mem))


# ------------------------------------------- a collector's folder of sadf -d files

EC2 = SYSSTAT / "mw2q_ec2_centos7_sadf_d"


def run(*args: object) -> tuple[int, str]:
    r = runner.invoke(app, [str(a) for a in args], env={"COLUMNS": "250"})
    return r.exit_code, r.output


def test_ec2_pgxl_sadf_d_files() -> None:
    # CentOS 7 on EC2 (kernel 3.10.0-229), sysstat 10.1: the DBT-2 kit's sadf -d -U
    # split per activity; 16 samples at 60 s from 1440519747 (2015-08-25 16:22:27Z).
    # awk: all-CPU busy mean 6.979 %, peak 19.13 % at 1440520287; 4 CPUs listed;
    # kbmemfree + kbmemused = 30,987,820 KiB every row; eth0 (rx+tx) kB/s peak
    # 535.845 Mbit/s at 1440519927 (lo left out); xvda + xvdb tps peak 16.73.
    pg = EC2 / "pgxl"
    c = cpu(read_sysstat(pg / "sar-cpu.csv"))
    assert len(c) == 16 and c.index.min() == pd.Timestamp("2015-08-25 16:22:27Z")
    assert c.max() == pytest.approx(0.1913)
    assert c.idxmax() == pd.Timestamp(1440520287, unit="s", tz="UTC")
    assert c.mean() == pytest.approx(0.0697938, abs=1e-7)
    assert read_sysstat(pg / "sar-cpu.csv").metadata["machines"]["pgxl"]["cpu_count"] == 4
    mem = read_sysstat(pg / "sar-mem2.csv")
    assert mem.metadata["machines"]["pgxl"]["mem_gib"] == pytest.approx(
        30987820 / 2**20, abs=1e-3
    )
    used = mem.data[mem.data.metric == "mem_used_gib"]["value"]
    assert used.max() == pytest.approx(2380672 / 2**20)  # kbmemused - cache at ...587
    net = read_sysstat(pg / "sar-net.csv").data["value"]
    assert net.max() == pytest.approx(535.845, abs=1e-3)
    disk = read_sysstat(pg / "sar-blockdev.csv").data
    assert disk[disk.metric == "disk_iops"]["value"].max() == pytest.approx(16.73)


def test_import_two_collector_folders(tmp_path: Path) -> None:
    # once: 'file not found' for a folder, and a file holding only activities
    # vsizer does not read (paging, swap, frmpg/s) an error ('no samples to store')
    store = tmp_path / "store"
    code, output = run("import", EC2 / "pgxl", EC2 / "pgxl1", "--format", "sar",
                       "--store", store)  # fmt: skip
    assert code == 0, output
    skipped = [line for line in output.splitlines() if line.startswith("skipped: ")]
    assert len(skipped) == 6
    assert f"skipped: {EC2 / 'pgxl' / 'sar-swap.csv'}: no series vsizer reads (only " \
        "'pswpin/s;pswpout/s' (16 rows)); nothing stored." in skipped  # fmt: skip
    out = tmp_path / "plan.json"
    cli("plan", "--series", store, "--vm-cpu-mhz", 2500, "-o", out)
    servers = {v["name"]: v for v in json.loads(out.read_text())["servers"]}
    assert sorted(servers) == ["pgxl", "pgxl1"]
    assert [servers[n]["vcpus"] for n in ("pgxl", "pgxl1")] == [4, 4]
    assert servers["pgxl"]["mem_gib"] == pytest.approx(29.552)


def test_plan_reads_a_collector_folder_directly(tmp_path: Path) -> None:
    out = tmp_path / "plan.json"
    cli("plan", "--series", EC2 / "pgxl", "--series-format", "sar",
        "--vm-cpu-mhz", 2500, "-o", out)  # fmt: skip
    (vm,) = json.loads(out.read_text())["servers"]
    assert (vm["name"], vm["vcpus"]) == ("pgxl", 4)


def test_a_subfolder_is_named_not_skipped(tmp_path: Path) -> None:
    code, output = run("import", EC2, "--format", "sar", "--store", tmp_path / "s")
    assert code == 2
    assert (
        f"error: {EC2 / 'pgxl'}: a folder inside a source folder is not read; give it "
        "as a source of its own"
    ) in output.replace("\n", "")


def test_a_file_with_nothing_vsizer_reads_alone_fails(tmp_path: Path) -> None:
    code, output = run("import", EC2 / "pgxl" / "sar-paging.csv", "--format", "sar",
                       "--store", tmp_path / "s")  # fmt: skip
    assert code == 2 and "no series vsizer reads (only 'pgpgin/s;pgpgout/s;fault/s'" in (
        output.replace("\n", "")
    )
    assert output.splitlines()[-1] == (
        f"error: nothing stored: no source held a series vsizer reads ({tmp_path / 's'})."
    )


# ------------------------------------------------------------ mpstat -o JSON

MPSTAT = SYSSTAT / "antmicro_rdfm_mpstat_o_json"


def test_mpstat_json_riscv64_two_records() -> None:
    # 'mpstat 1 1 -o JSON | jq -c' on a Renode-emulated riscv64 board (4 CPUs):
    # date once per host ('09/09/25'), a time of day per statistic; %idle 91.00 at
    # 14:46:54 and 0.00 at 14:50:12. Once refused: "expected a 'timestamp' with
    # 'date' and 'time', got '14:46:54'".
    parts = [read_sysstat(f) for f in sorted((MPSTAT / "riscv64").iterdir())]
    c = pd.concat([cpu(s) for s in parts])
    assert c.to_dict() == {
        pd.Timestamp("2025-09-09 14:46:54Z"): pytest.approx(0.09),
        pd.Timestamp("2025-09-09 14:50:12Z"): pytest.approx(1.0),
    }
    assert parts[0].metadata["machines"]["renodeunmatched"]["cpu_count"] == 4


def test_mpstat_json_amd64_folder_import_and_plan(tmp_path: Path) -> None:
    # jq -c writes 0 for 0.00; date '04/08/26' is ambiguous: read as April 8 and
    # said so. %idle 99.31 at 10:20:36 and 98.11 at 10:22:06, one 5-min step:
    # peak step mean (0.69 + 1.89) / 2 = 1.29 % busy; 16 CPUs.
    store = tmp_path / "store"
    cli("import", MPSTAT / "amd64", "--format", "sar", "--tz", "UTC", "--store", store)
    out = tmp_path / "plan.json"
    cli("plan", "--series", store, "--vm-cpu-mhz", 2000, "--vm-mem-gib", 4, "-o", out)
    doc = json.loads(out.read_text())
    (vm,) = doc["servers"]
    assert (vm["name"], vm["vcpus"]) == ("cb7375df33ee", 16)
    assert vm["cpu_peak_util"] == pytest.approx(0.0129)
    s = read_sysstat(MPSTAT / "amd64" / "mpstat_102036.json")
    assert cpu(s).index[0] == pd.Timestamp("2026-04-08 10:20:36Z")
    assert "banner date '04/08/26' read as month/day/year (C locale)" in (
        issues(s)["unit_guess"]["detail"]
    )


def test_mpstat_json_times_roll_past_midnight_and_12_hour_clock(tmp_path: Path) -> None:
    doc = {"sysstat": {"hosts": [{"nodename": "h", "number-of-cpus": 2,
        "date": "2025-01-31", "statistics": [
            {"timestamp": "11:59:30 PM", "cpu-load": [{"cpu": "all", "idle": 80.0}]},
            {"timestamp": "12:00:30 AM", "cpu-load": [{"cpu": "all", "idle": 60.0}]},
            {"timestamp": "25:00:00", "cpu-load": [{"cpu": "all", "idle": 60.0}]},
        ]}]}}  # fmt: skip
    f = tmp_path / "m.json"
    f.write_text(json.dumps(doc))
    with pytest.raises(SeriesError) as err:
        read_sysstat(f)
    assert err.value.problems == [
        "m.json sysstat.hosts[0].statistics[2]: expected a time of day (HH:MM:SS) with "
        "the host's 'date' (mpstat -o JSON), got '25:00:00'."
    ]
    doc["sysstat"]["hosts"][0]["statistics"].pop()  # type: ignore[index]
    f.write_text(json.dumps(doc))
    assert list(cpu(read_sysstat(f)).index) == [
        pd.Timestamp("2025-01-31 23:59:30Z"),
        pd.Timestamp("2025-02-01 00:00:30Z"),
    ]


# ------------------------------------------------------------------ prometheus

EMPTY = Path(__file__).parent / "data" / "real" / "prometheus"
EMPTY = EMPTY / "radex0104_query_range_empty_result.json"


def test_empty_query_range_result_said_plainly(tmp_path: Path) -> None:
    # a real response whose query matched nothing: "result": [] (111 bytes).
    # Once: 'align got no samples' from plan, and a bare 'no samples to store'.
    code, output = run("import", EMPTY, "--format", "prometheus", "--metric",
                       "cpu_util", "--store", tmp_path / "s")  # fmt: skip
    assert code == 2
    assert output.splitlines()[0] == (
        f"skipped: {EMPTY}: no series vsizer reads (radex0104_query_range_empty_result"
        ".json: the query returned no series); nothing stored."
    )
    code, output = run("plan", "--series", EMPTY, "--series-format", "prometheus",
                       "--metric", "cpu_util", "--vm-cpu-mhz", 2000, "--vm-mem-gib", 4,
                       "-o", tmp_path / "p.json")  # fmt: skip
    assert code != 0
    assert (
        f"error: series {EMPTY}: expected samples vsizer reads, got none "
        "(radex0104_query_range_empty_result.json: the query returned no series)."
    ) in output.replace("\n", "")


def test_plan_on_a_sar_file_of_swap_only_says_what_it_holds(tmp_path: Path) -> None:
    swap = EC2 / "pgxl" / "sar-swap.csv"
    code, output = run("plan", "--series", swap, "--series-format", "sar",
                       "--vm-cpu-mhz", 2000, "--vm-mem-gib", 4, "-o",
                       tmp_path / "p.json")  # fmt: skip
    assert code != 0
    assert (
        f"error: series {swap}: expected samples vsizer reads, got none (only "
        "'pswpin/s;pswpout/s' (16 rows))."
    ) in output.replace("\n", "")


# ------------------------------------------- typeperf output redirected to a file

TYPEPERF = (
    '\r\n"(PDH-CSV 4.0)","\\\\HOST\\Processor(_Total)\\% Processor Time",'
    '"\\\\HOST\\Memory\\Available MBytes"\r\n'
    '"10/08/2026 03:17:56.857","12.500000","2048.000000"\r\n'
    '"10/08/2026 03:17:57.857","37.500000","2040.000000"\r\n'
)


@pytest.mark.parametrize(
    ("trailer", "first"),
    [
        ("Exiting, please wait...\r\nThe command completed successfully.\r\n",
         "Exiting, please wait..."),
        ("終了しています。お待ちください...\r\nコマンドは正常に終了しました。\r\n",
         "終了しています。お待ちください..."),
    ],
)  # fmt: skip
def test_typeperf_console_trailer_counted(
    tmp_path: Path, trailer: str, first: str
) -> None:
    # 'typeperf ... > out.csv' keeps the console: a blank first line and, after the
    # rows, 'Exiting, please wait...' and 'The command completed successfully.' (in
    # the display language). Once refused: "row 5: expected 3 fields as in the
    # header (the row has 2), got 'Exiting, please wait...'".
    f = tmp_path / "out.csv"
    f.write_bytes((TYPEPERF + trailer).encode("utf-8"))
    s = read_perfmon(f)
    assert cpu(s).tolist() == [pytest.approx(0.125), pytest.approx(0.375)]
    assert issues(s)["skipped_lines"]["detail"] == (
        "2 line(s) after the last row of out.csv not read (typeperf's console "
        f"messages; first on line 5: '{first}')"
    )


def test_typeperf_cut_last_row_stays_an_error(tmp_path: Path) -> None:
    f = tmp_path / "cut.csv"
    f.write_text(TYPEPERF + '"10/08/2026 03:17:58.857","50.0\r\n')
    with pytest.raises(SeriesError, match="cut.csv row 5: expected 3 fields"):
        read_perfmon(f)


def test_a_broken_banner_is_not_taken_for_wrapper_text(tmp_path: Path) -> None:
    f = tmp_path / "bad.txt"
    f.write_text(
        "Linux 3.10.0-229.el7.x86_64 (host)\n\n"
        "10:00:01 AM CPU %user %idle\n10:10:01 AM all 1.00 99.00\n"
    )
    with pytest.raises(SeriesError) as err:
        read_sysstat(f)
    assert err.value.problems[0] == (
        "bad.txt line 1: expected a time (HH:MM:SS) at the start of the line, "
        "'Average:' or a 'Linux ...' banner, got 'Linux'."
    )


# ------------------------------------------ whole-datacenter aggregates (wide)

AGG = Path(__file__).parent / "data" / "real" / "aggregates"


@pytest.mark.parametrize(
    ("name", "column", "span", "back", "line"),
    [
        ("alejandrofdez_google2019_instance_usage_300s_first100.csv", "avg_cpu",
         "0.373617 to 0.441616", 50, 3),
        ("alejandrofdez_alibaba2018_machine_usage_300s_first100.csv",
         "cpu_util_percent", "16.127 to 76.8133", 56, 5),
    ],
)  # fmt: skip
def test_a_measurement_column_is_not_taken_for_the_time(
    name: str, column: str, span: str, back: int, line: int
) -> None:
    # no time column: the first column (CPU) was read as seconds after --start,
    # 1.2e-5 s apart and going back and forth, with only a note; avg_mem,
    # avg_assigned_mem and avg_cycles_per_instruction became three 'servers'.
    # awk -F, 'NR>2 && $1<p {n++; if (!f) f=NR} {p=$1} END {print n, f}'
    with pytest.raises(SeriesError) as err:
        read_wide(AGG / name, start="2019-05-01T00:00Z", metric="cpu_util")
    assert err.value.problems == [
        f"{name}: column '{column}' is read as the time, but its plain numbers "
        f"({span}) go back {back} times (first on line {line}), so they are no "
        "times; expected a time column (dates, seconds after --start, or a step "
        "index 1..N named with --index-column)."
    ]


def test_cores_and_memory_given_as_cpu_util_are_refused() -> None:
    # Azure v2 aggregate: cpu_usage is cores in use summed over all VMs (up to
    # 6,360,198.55 in the first 100 rows), assigned_mem a memory sum. With
    # --metric cpu_util every value was 'clipped' to 100 % (8,640 per column).
    name = "alejandrofdez_azure_v2_cpu_mem_aggregated_first100.csv"
    with pytest.raises(SeriesError) as err:
        read_wide(AGG / name, start="2019-05-01T00:00Z", metric="cpu_util")
    assert err.value.problems == [
        f"{name}: cpu_util of assigned_mem, cpu_usage reaches 6.3602e+06 %, which is "
        "no utilization (a per-core sum stays below 100 x 100 %); expected the "
        "--metric the column holds (e.g. mem_used_gib, net_mbps)."
    ]
