"""Bench output parsers on captured real outputs (exact values) and corrupted copies.

Captured on the development machine (Debian 12, AMD EPYC, 2 cores): sysbench 1.0.20,
fio 3.33, iperf3 3.12, pgbench 15.18, and the harness's load generator against nginx
1.22 + fcgiwrap. The truncated/corrupted copies are cut or edited by hand.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vsizer.bench.workloads import cpu, database, disk, network, web
from vsizer.errors import BenchmarkRunError

DATA = Path(__file__).parent / "data" / "bench"


def _values(samples):
    return {s.metric: s.value for s in samples}


def test_sysbench_one_thread():
    got = _values(cpu._parse_output((DATA / "sysbench_cpu_1thread.txt").read_text()))
    assert got == {"events_per_s": 3626.38, "total_time_s": 2.0004, "total_events": 7257.0,
                   "latency_avg_ms": 0.28, "latency_p95_ms": 0.29}


def test_sysbench_two_threads_reports_threads():
    samples = cpu._parse_output((DATA / "sysbench_cpu_2threads.txt").read_text())
    assert _values(samples)["events_per_s"] == 5854.48
    assert _values(samples)["total_events"] == 11715.0
    assert samples[0].metadata == {"threads_reported": 2}


def test_sysbench_truncated():
    with pytest.raises(BenchmarkRunError, match=r"sysbench cpu output: missing 'total time', "
                       r"'total number of events' line\(s\); the run did not complete\."):
        cpu._parse_output((DATA / "sysbench_cpu_truncated.txt").read_text())


def test_cpu_util_from_proc_stat_lines():
    text = "cpu  100 0 100 800 0 0 0 0 0 0\nevents\ncpu  190 0 110 900 0 0 0 0 0 0\n"
    # busy 100 of 200 ticks on 1 vCPU = 50 %
    assert cpu._util_pct(text, 1) == pytest.approx(50.0)
    assert cpu._util_pct("no stat lines", 1) is None


def test_fio_database_qd4():
    got = _values(disk._parse_output((DATA / "fio_database_qd4.json").read_text()))
    assert got["read_iops"] == pytest.approx(31005.997001)
    assert got["read_mb_s"] == pytest.approx(254.001127)
    assert got["write_iops"] == pytest.approx(15197.401299)
    assert got["read_lat_mean_ms"] == pytest.approx(0.056323699064)
    assert got["read_lat_p99_ms"] == pytest.approx(0.119296)
    assert got["iops"] == pytest.approx(31005.997001 + 15197.401299)


def test_fio_seq_write_has_no_read_samples():
    samples = disk._parse_output((DATA / "fio_seqwrite_qd1.json").read_text())
    got = _values(samples)
    assert "read_iops" not in got
    assert got["write_mb_s"] == pytest.approx(864.970394)
    assert samples[0].metadata == {"fio_version": "fio-3.33"}


def test_fio_tolerates_leading_warning():
    text = "fio: some note\n" + (DATA / "fio_seqwrite_qd1.json").read_text()
    assert _values(disk._parse_output(text))["write_iops"] == pytest.approx(13198.4008)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda t: t[: len(t) // 2], r"fio output: not valid JSON"),
        (lambda t: t.replace('"fio version"', '"version"'), r"no 'fio version' key"),
        (lambda t: json.dumps({**json.loads(t), "jobs": []}), r"no 'jobs' entry"),
        (lambda t: t.replace('"error" : 0', '"error" : 5', 1), r"reported error 5"),
        (lambda t: t.replace('"bw_bytes"', '"bw_b"'), r"job field 'bw_bytes' missing"),
        (lambda t: "", r"no 'fio version' key"),
    ],
)
def test_fio_corrupted(edit, message):
    text = (DATA / "fio_database_qd4.json").read_text()
    with pytest.raises(BenchmarkRunError, match=message):
        disk._parse_output(edit(text))


def test_iperf3_forward_and_reverse():
    fwd = network._parse_output((DATA / "iperf3_lo_128K.json").read_text())
    assert _values(fwd) == pytest.approx({"sent_mbit_s": 19010.1125766227,
                                          "received_mbit_s": 18975.082423116157,
                                          "received_bytes": 4745461760.0,
                                          "retransmits": 0.0})
    assert fwd[0].metadata == {"iperf3_version": "iperf 3.12", "reverse": False,
                               "block_bytes": 131072}
    rev = network._parse_output((DATA / "iperf3_lo_8K_reverse.json").read_text())
    assert rev[0].metadata["reverse"] is True
    assert _values(rev)["received_mbit_s"] == pytest.approx(7926.092706675527)
    assert _values(rev)["received_bytes"] == 1981530112.0


def test_iperf3_errors():
    with pytest.raises(BenchmarkRunError, match=r"^iperf3 output: unable to connect to server: Connection refused\.$"):
        network._parse_output((DATA / "iperf3_refused.json").read_text())
    text = (DATA / "iperf3_lo_128K.json").read_text()
    with pytest.raises(BenchmarkRunError, match=r"not valid JSON"):
        network._parse_output(text[:-200])
    doc = json.loads(text)
    del doc["end"]["sum_received"]
    with pytest.raises(BenchmarkRunError, match=r"field 'sum_received' missing"):
        network._parse_output(json.dumps(doc))
    doc = json.loads(text)
    del doc["end"]["sum_received"]["bytes"]
    with pytest.raises(BenchmarkRunError, match=r"field 'bytes' missing; the test did not finish"):
        network._parse_output(json.dumps(doc))


def test_pgbench_tpcb_and_select():
    tpcb = database._parse_output((DATA / "pgbench_tpcb_c4.txt").read_text())
    assert _values(tpcb) == {"tps": 1221.988727, "latency_avg_ms": 3.273,
                             "transactions": 3664.0, "failed_transactions": 0.0}
    assert tpcb[0].metadata == {"transaction_type": "<builtin: TPC-B (sort of)>"}
    sel = database._parse_output((DATA / "pgbench_select_c4.txt").read_text())
    assert _values(sel)["tps"] == 13536.035148
    assert sel[0].metadata == {"transaction_type": "<builtin: select only>"}


def test_pgbench_errors():
    with pytest.raises(BenchmarkRunError, match=r"pgbench output: no 'tps =' line"):
        database._parse_output((DATA / "pgbench_refused.txt").read_text())
    text = (DATA / "pgbench_tpcb_c4.txt").read_text()
    cut = text.replace("number of transactions actually processed", "number of txns")
    with pytest.raises(BenchmarkRunError, match=r"no 'number of transactions actually processed:' line"):
        database._parse_output(cut)


def test_loadgen_report():
    got = _values(web._parse_output((DATA / "loadgen_nginx_4threads.txt").read_text()))
    assert got == {"throughput_rps": 27.8192, "requests": 60.0, "errors": 0.0,
                   "cgi_requests": 16.0, "rt_mean_ms": 26.9581, "rt_p50_ms": 3.23688,
                   "rt_p90_ms": 33.2597, "rt_p99_ms": 428.81, "duration_s": 2.15679}


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda t: t.replace("vsizer-loadgen 1", "loadgen"), r"first line is not 'vsizer-loadgen 1'"),
        (lambda t: t.replace("rt_p99_ms: 428.81\n", ""), r"missing rt_p99_ms"),
        (lambda t: t.replace("requests: 60", "requests: sixty"), r"'requests' is not a number: 'sixty'"),
    ],
)
def test_loadgen_corrupted(edit, message):
    text = (DATA / "loadgen_nginx_4threads.txt").read_text()
    with pytest.raises(BenchmarkRunError, match=message):
        web._parse_output(edit(text))


def test_pgbench_runs_for_a_time_or_a_transaction_count():
    case = {"clients": 20, "mode": "tpcb"}
    timed = database.pgbench_argv(5432, case, {"time_s": 60, "transactions": 0})
    assert timed[-3:] == ["-T", "60", "postgres"] and "-t" not in timed
    counted = database.pgbench_argv(5432, case, {"time_s": 60, "transactions": 3000})
    assert counted[-3:] == ["-t", "3000", "postgres"] and "-T" not in counted
    select = database.pgbench_argv(5432, {"clients": 1, "mode": "select"}, {"time_s": 5})
    assert select[-4:] == ["-T", "5", "-S", "postgres"] and "-j" in select
