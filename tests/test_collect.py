"""vsizer collect: metric definitions, scheduling, durability under kill -9, resume."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from vsizer.errors import ConfigError, SeriesError
from vsizer.series._journal import JournalWriter
from vsizer.series.collect import (
    COLLECT_NET_EXCLUDE,
    DEFAULT_DISK_EXCLUDE,
    PsutilSampler,
    Reading,
    collect,
    parse_duration,
    rates,
)
from vsizer.series.store import SeriesStore

pytest.importorskip("pyarrow")
pytest.importorskip("psutil")

GIB = 2**30


def reading(mono, total, idle, disk, net, mem_total=16 * GIB, mem_avail=12 * GIB):
    return Reading(mono, total, idle, disk, net, mem_total, mem_avail)


def test_rates_hand_computed():
    prev = reading(100.0, 4000.0, 3000.0, {"sda": (1000, 5e8)}, {"eth0": 1e9})
    cur = reading(
        130.0,  # 30 s later
        4120.0,  # 4 CPUs x 30 s
        3090.0,  # 90 of 120 CPU-seconds idle -> 25 % busy
        {"sda": (1000 + 3000, 5e8 + 60e6)},  # 3000 ops, 60 MB in 30 s
        {"eth0": 1e9 + 37.5e6},  # 37.5 MB = 300 Mbit in 30 s
        mem_total=16 * GIB,
        mem_avail=12 * GIB,
    )
    assert rates(prev, cur) == {
        "cpu_util": 0.25,
        "mem_used_gib": 4.0,
        "mem_capacity_gib": 16.0,
        "disk_iops": 100.0,
        "disk_mb_s": 2.0,
        "net_mbps": 10.0,
    }


def test_rates_skip_devices_that_appear_or_reset_and_need_elapsed_time():
    prev = reading(0.0, 100.0, 50.0, {"sda": (10, 1e6), "sdb": (500, 9e6)}, {})
    cur = reading(
        10.0,
        200.0,
        150.0,  # all idle
        {"sda": (110, 2e6), "sdb": (5, 1e3), "sdc": (9, 9)},  # sdb reset, sdc new
        {"eth0": 5.0},  # not in prev
    )
    got = rates(prev, cur)
    assert got["cpu_util"] == 0.0
    assert got["disk_iops"] == 10.0 and got["disk_mb_s"] == 0.1
    assert "net_mbps" not in got
    same = rates(cur, cur)  # no time elapsed, no CPU time: no rates, memory only
    assert set(same) == {"mem_used_gib", "mem_capacity_gib"}


def test_device_filters_leave_out_partitions_loop_ram_and_loopback():
    import re

    disk, net = re.compile(DEFAULT_DISK_EXCLUDE), re.compile(COLLECT_NET_EXCLUDE)
    kept = [
        d
        for d in (
            "sda",
            "sda1",
            "nvme0n1",
            "nvme0n1p2",
            "loop3",
            "dm-0",
            "zram0",
            "ram1",
            "md127",
            "vdb",
            "PhysicalDrive0",
        )
        if not disk.match(d)
    ]
    assert kept == ["sda", "nvme0n1", "vdb", "PhysicalDrive0"]
    nics = ("lo", "lo0", "eth0", "Loopback Pseudo-Interface 1", "docker0")
    assert [n for n in nics if not net.match(n)] == ["eth0", "docker0"]


def test_psutil_sampler_reads_this_machine():
    r = PsutilSampler().read()
    assert r.cpu_total_s >= r.cpu_idle_s >= 0
    assert r.mem_total > r.mem_available > 0
    assert not any(n.startswith("lo") for n in r.net)


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("30s", 30.0),
        ("500ms", 0.5),
        ("5min", 300.0),
        ("5m", 300.0),
        ("1h", 3600.0),
        ("7d", 604800.0),
        ("0.2s", 0.2),
        ("45", 45.0),
        (2.5, 2.5),
    ],
)
def test_parse_duration(text, seconds):
    assert parse_duration(text) == pytest.approx(seconds)


def test_parse_duration_errors():
    with pytest.raises(
        ConfigError,
        match=r"'--interval' option must be a duration such as 30s, 5min or 1h. Got 'soon' instead.",
    ):
        parse_duration("soon")
    with pytest.raises(
        ConfigError,
        match=r"'--duration' option must be a duration greater than zero. Got '0s' instead.",
    ):
        parse_duration("0s", "duration")


class FakeSampler:
    """Counters advancing by fixed amounts per reading; real monotonic time."""

    def __init__(self):
        self.n = 0

    def read(self):
        self.n += 1
        return reading(
            time.monotonic(),
            100.0 * self.n,
            80.0 * self.n,  # 20 % busy every interval
            {"sda": (10.0 * self.n, 1e6 * self.n)},
            {"eth0": 1e6 * self.n},
            mem_total=8 * GIB,
            mem_avail=6 * GIB,
        )


def test_collect_writes_samples_seals_segments_and_keeps_time_order(tmp_path):
    seen = []
    events = []
    report = collect(
        tmp_path / "st",
        0.02,
        count=5,
        server="fake01",
        on_sample=seen.append,
        on_event=lambda name, detail: events.append(name),
        segment_samples=2,
        sampler=FakeSampler(),
    )
    assert report.samples == 5 and report.stopped_by == "count"
    assert [s.index for s in seen] == [1, 2, 3, 4, 5]
    # segments of 2, 2 and 1 samples
    assert [p.rows // 6 for p in report.sealed] == [2, 2, 1]
    assert events == ["resumed", "sealed", "sealed", "sealed"]
    store = SeriesStore.open(tmp_path / "st")
    assert store.journal_paths() == []
    data = store.read().data
    cpu = data[data.metric == "cpu_util"]
    assert cpu.value.tolist() == pytest.approx([0.2] * 5)
    assert data[data.metric == "mem_used_gib"].value.tolist() == [2.0] * 5
    assert cpu.timestamp.is_monotonic_increasing and cpu.timestamp.is_unique
    assert set(data.server) == {"fake01"}


class SlowSampler(FakeSampler):
    """Each reading takes 30 ms, as a slow machine might."""

    def read(self):
        time.sleep(0.03)
        return super().read()


def test_collect_schedule_does_not_drift(tmp_path):
    seen = []
    collect(
        tmp_path / "st",
        0.05,
        count=8,
        server="s",
        on_sample=seen.append,
        sampler=SlowSampler(),
    )
    t = [s.time.timestamp() for s in seen]
    # 7 intervals of 50 ms on the monotonic grid: 0.35 s from first to last sample.
    # Sleeping 50 ms after each 30 ms reading would drift to 7 x 80 ms = 0.56 s.
    assert 0.30 < t[-1] - t[0] < 0.45


def test_collect_duration_bounds_the_run(tmp_path):
    report = collect(
        tmp_path / "st", 0.05, duration_s=0.2, server="s", sampler=FakeSampler()
    )
    assert report.samples == 4 and report.stopped_by == "duration"


def test_collect_parameter_errors(tmp_path):
    with pytest.raises(
        ConfigError,
        match=r"'interval_s' parameter of collect must be a float in the range \(0, inf\). Got 0 instead.",
    ):
        collect(tmp_path / "st", 0)
    with pytest.raises(
        ConfigError, match="'count' parameter of collect must be an int"
    ):
        collect(tmp_path / "st", 1, count=0)
    with pytest.raises(
        ConfigError,
        match="'disk_exclude' parameter of collect must be a regular expression",
    ):
        PsutilSampler(disk_exclude="(")


def test_a_second_collector_for_the_same_server_is_refused(tmp_path):
    store = SeriesStore.create(tmp_path / "st")
    live = JournalWriter(
        store.journal_dir / "web01-20240501T000000123456Z-4242.jsonl", "web01", 30
    )
    try:
        with pytest.raises(
            SeriesError,
            match=r"another vsizer collect is writing server 'web01' into this store",
        ):
            collect(store, 0.01, count=1, server="web01", sampler=FakeSampler())
        # another server is fine
        assert (
            collect(store, 0.01, count=1, server="web02", sampler=FakeSampler()).samples
            == 1
        )
    finally:
        live.close()


# -- durability: real processes --------------------------------------------------


def _start_collect(store: Path, *extra: str) -> tuple[subprocess.Popen, list[str]]:
    cmd = [
        sys.executable,
        "-c",
        "from vsizer.cli import main; main()",
        "collect",
        "--interval",
        "0.2s",
        "--out",
        str(store),
        "--server",
        "k9",
        *extra,
    ]
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
    )
    lines: list[str] = []

    def pump():
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line)

    threading.Thread(target=pump, daemon=True).start()
    return proc, lines


def _wait_for(lines: list[str], n: int, proc: subprocess.Popen, limit_s=20.0):
    deadline = time.monotonic() + limit_s
    while len(lines) < n:
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"collector gave {len(lines)} lines: {proc.stderr.read()}")
        time.sleep(0.02)


def _reported(lines: list[str]) -> int:
    """Highest sample index printed (each line is printed after its fsync)."""
    return max(int(line.split()[0]) for line in lines)


@pytest.mark.slow
def test_collector_survives_kill_9_and_resumes(tmp_path):
    store = tmp_path / "st"
    proc, lines = _start_collect(store)
    _wait_for(lines, 5, proc)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    reported = _reported(lines)
    assert proc.returncode == -signal.SIGKILL

    st = SeriesStore.open(store)
    assert len(st.journal_paths()) == 1  # left open by the kill
    cpu = st.read(metrics=["cpu_util"]).data
    assert len(cpu) >= reported - 1  # at most the sample in flight is lost
    assert cpu.timestamp.is_unique

    # a new run resumes the same store: seals the dead journal, adds 2 samples
    proc2, lines2 = _start_collect(store, "--count", "2")
    assert proc2.wait(timeout=20) == 0, proc2.stderr.read()
    assert "resumed: sealed 1 journal(s) left by an earlier run" in proc2.stderr.read()
    st = SeriesStore.open(store)
    assert st.journal_paths() == []
    assert len(st.part_paths()) == 2
    after = st.read(metrics=["cpu_util"]).data
    assert len(after) == len(cpu) + 2
    assert after.timestamp.is_unique and after.timestamp.is_monotonic_increasing


def test_sigterm_seals_the_journal_into_a_part(tmp_path):
    store = tmp_path / "st"
    proc, lines = _start_collect(store)
    _wait_for(lines, 3, proc)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=10) == 0
    time.sleep(0.1)  # let the pump thread take the last line
    err = proc.stderr.read()
    assert "stopped (SIGTERM)" in err
    st = SeriesStore.open(store)
    assert st.journal_paths() == []
    (part,) = st.parts()
    assert part.source_format == "collect" and part.sealed_from is not None
    assert len(st.read(metrics=["cpu_util"]).data) == _reported(lines)


# -- every write checked: a short or failed write leaves no torn sample ---------------


def _fail_write_after(monkeypatch, n_ok: int, short: bool):
    """Let ``n_ok`` journal writes through, then write half a line (or fail)."""
    import errno as _errno

    import vsizer.series._journal as journal

    real = os.write
    calls = {"n": 0}

    def write(fd, data):
        calls["n"] += 1
        if calls["n"] <= n_ok:
            return real(fd, data)
        if short:
            return real(fd, data[: len(data) // 2])
        raise OSError(_errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(journal.os, "write", write)


@pytest.mark.parametrize("short", [True, False])
def test_journal_write_failure_truncates_back_and_raises(tmp_path, monkeypatch, short):
    path = tmp_path / "j.jsonl"
    w = JournalWriter(path, "web01", 30.0)
    w.append(datetime_utc(0), {"cpu_util": 0.5})
    good = path.read_bytes()
    _fail_write_after(monkeypatch, 0, short)
    reason = "short write: \\d+ of \\d+ bytes \\(disk full\\?\\)" if short else (
        "No space left on device"
    )
    with pytest.raises(
        SeriesError,
        match=rf"j\.jsonl: cannot write sample 2 \({reason}\); the journal keeps its "
        r"1 complete sample\(s\)$",
    ):
        w.append(datetime_utc(30), {"cpu_util": 0.6})
    assert path.read_bytes() == good  # the torn half line is gone
    assert w.samples == 1
    monkeypatch.undo()
    w.append(datetime_utc(60), {"cpu_util": 0.7})  # appends after the good line
    w.close()
    assert path.read_bytes().count(b"\n") == 3


def test_journal_header_failure_leaves_no_file(tmp_path, monkeypatch):
    _fail_write_after(monkeypatch, 0, short=True)
    with pytest.raises(SeriesError, match=r"cannot write the header \(short write"):
        JournalWriter(tmp_path / "j.jsonl", "web01", 30.0)
    assert list(tmp_path.iterdir()) == []


def datetime_utc(seconds: float):
    from datetime import UTC, datetime, timedelta

    return datetime(2024, 5, 1, tzinfo=UTC) + timedelta(seconds=seconds)


def test_collect_stops_on_a_failed_write_and_reports_only_durable_samples(
    tmp_path, monkeypatch
):
    seen = []
    _fail_write_after(monkeypatch, 4, short=True)  # header + 3 samples
    with pytest.raises(
        SeriesError,
        match=r"cannot write sample 4 \(short write: \d+ of \d+ bytes \(disk full\?\)\); "
        r"the journal keeps its 3 complete sample\(s\); stopped after 3 stored "
        r"sample\(s\): free space and rerun to resume$",
    ):
        collect(
            tmp_path / "st",
            0.01,
            count=10,
            server="fake01",
            on_sample=seen.append,
            sampler=FakeSampler(),
        )
    assert [s.index for s in seen] == [1, 2, 3]
    monkeypatch.undo()
    store = SeriesStore.open(tmp_path / "st")
    cpu = store.read(metrics=["cpu_util"]).data
    assert len(cpu) == 3  # sealed on the way out; nothing torn, nothing lost
    assert store.read().quality.issues == []
