"""Bench work directories: a stale one is removed at start, a run removes its own."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from vsizer.bench.harness import OWNER_FILE, claim_work_dir, release_work_dir
from vsizer.errors import BenchmarkRunError

REPO = Path(__file__).resolve().parents[1]


def _dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def _stale(work: Path, pid: int) -> None:
    (work / "physical").mkdir(parents=True)
    (work / "physical" / "nginx.conf").write_text("left by a killed run")
    (work / OWNER_FILE).write_text(f"{pid}\n")


def test_stale_work_dir_is_removed_at_start(tmp_path):
    work = tmp_path / "work"
    pid = _dead_pid()
    _stale(work, pid)
    said = []
    claim_work_dir(work, said.append)
    assert said == [f"removed stale work directory {work} (its run, pid {pid}, is gone)"]
    assert sorted(p.name for p in work.iterdir()) == [OWNER_FILE]
    assert (work / OWNER_FILE).read_text() == f"{os.getpid()}\n"
    release_work_dir(work)
    assert not work.exists()


def test_work_dir_of_a_live_run_is_refused_and_kept(tmp_path):
    work = tmp_path / "work"
    live = subprocess.Popen(["sleep", "30"])
    try:
        _stale(work, live.pid)
        with pytest.raises(BenchmarkRunError) as info:
            claim_work_dir(work)
        assert str(info.value) == (
            f"{work}: in use by a running benchmark (pid {live.pid}); wait for it to "
            "finish or give another --workdir / --store."
        )
        assert (work / "physical" / "nginx.conf").exists()
    finally:
        live.kill()
        live.wait()


def test_a_directory_without_owner_is_claimed_not_removed(tmp_path):
    work = tmp_path / "mine"
    work.mkdir()
    (work / "keep.txt").write_text("user data")
    claim_work_dir(work)
    assert (work / "keep.txt").read_text() == "user data"
    (work / OWNER_FILE).write_text("1\n")  # owned by someone else now
    release_work_dir(work)
    assert work.exists()  # not ours: left alone


_RUN = textwrap.dedent(
    """
    import sys, time
    from types import SimpleNamespace
    from vsizer.bench import harness
    from vsizer.bench.suite import Suite, load_suite

    harness.load = lambda name: SimpleNamespace(check_prerequisites=lambda: None)

    def workload(*args):
        print("ready", flush=True)
        time.sleep(60)

    harness._run_workload = workload
    suite = Suite("t", "", load_suite("quick").method, {"vcpus": 1, "memory_mib": 384},
                  {"fake": {}})
    try:
        harness.run_suite(suite, env="physical", store=sys.argv[1], workdir=sys.argv[2])
    except harness.Interrupted:
        print("interrupted", flush=True)
    """
)


def test_sigterm_removes_the_run_work_dir(tmp_path):
    work = tmp_path / "work"
    _stale(work, _dead_pid())
    proc = subprocess.Popen(
        [sys.executable, "-c", _RUN, str(tmp_path / "s.jsonl"), str(work)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == "ready\n", proc.stderr.read() if proc.stderr else ""
    assert (work / OWNER_FILE).read_text() == f"{proc.pid}\n"
    assert not (work / "physical" / "nginx.conf").exists()  # the stale one went first
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    assert out == "interrupted\n", err
    deadline = time.monotonic() + 5
    while work.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not work.exists()
