"""Teardown: nothing started by a run survives a failing workload, SIGINT or SIGTERM."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from vsizer.bench.procs import Reaper, run_checked
from vsizer.errors import BenchmarkRunError

SCRIPT = textwrap.dedent("""
    import subprocess, sys, time
    from pathlib import Path
    from vsizer.bench.procs import Reaper
    from vsizer.errors import BenchmarkRunError
    mode, pidfile, marker = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    try:
        with Reaper(grace_s=1.0) as r:
            # a process group with a grandchild that ignores SIGTERM
            p = r.popen(["sh", "-c", "trap '' TERM; sleep 300 & echo $!; wait"],
                        stdout=subprocess.PIPE, text=True)
            grandchild = int(p.stdout.readline())
            q = r.popen(["sleep", "300"])
            r.add_cleanup("marker", lambda: marker.write_text("cleaned"))
            pidfile.write_text(f"{p.pid} {grandchild} {q.pid}")
            if mode == "fail":
                raise BenchmarkRunError("workload failed on purpose")
            time.sleep(60)
    except BenchmarkRunError as exc:
        print(type(exc).__name__, exc)
        sys.exit(3)
""")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is dead for our purpose
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"


def _start(tmp_path, mode):
    script = tmp_path / "run.py"
    script.write_text(SCRIPT)
    pidfile, marker = tmp_path / "pids", tmp_path / "marker"
    proc = subprocess.Popen([sys.executable, str(script), mode, str(pidfile), str(marker)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while not pidfile.exists() or not pidfile.read_text():
        assert time.monotonic() < deadline, proc.stderr.read() if proc.poll() is not None else "timeout"
        time.sleep(0.05)
    return proc, [int(p) for p in pidfile.read_text().split()], marker


def _all_gone(pids, timeout=10.0):
    deadline = time.monotonic() + timeout
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    return [p for p in pids if _alive(p)]


def test_failing_workload_leaves_nothing(tmp_path):
    proc, pids, marker = _start(tmp_path, "fail")
    out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 3
    assert out.strip() == "BenchmarkRunError workload failed on purpose"
    assert _all_gone(pids) == []
    assert marker.read_text() == "cleaned"


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_signal_leaves_nothing(tmp_path, sig):
    proc, pids, marker = _start(tmp_path, "wait")
    assert all(_alive(p) for p in pids)
    proc.send_signal(sig)
    out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 3
    assert out.strip() == (f"Interrupted interrupted by {sig.name}; "
                           "stopped everything the run had started.")
    assert _all_gone(pids) == []
    assert marker.read_text() == "cleaned"


def test_run_timeout_kills_group():
    with Reaper(grace_s=0.5) as r, pytest.raises(
        BenchmarkRunError, match=r"sleep did not finish within 0.3 s; its process group was killed\."
    ):
        r.run(["sleep", "30"], timeout=0.3)


def test_run_checked_reports_stderr():
    with Reaper() as r, pytest.raises(
        BenchmarkRunError, match=r"listing failed \(exit 2\): ls: cannot access '/nonexistent-vsizer'"
    ):
        run_checked(r, ["ls", "/nonexistent-vsizer"], "listing")


def test_popen_missing_binary():
    with Reaper() as r, pytest.raises(BenchmarkRunError, match=r"cannot start no-such-tool-vsizer: No such file or directory\."):
        r.popen(["no-such-tool-vsizer"])


def test_cleanup_errors_collected_and_rest_run(tmp_path):
    order = []
    with Reaper() as r:
        r.add_cleanup("first", lambda: order.append("first"))
        r.add_cleanup("boom", lambda: 1 / 0)
    assert order == ["first"]
    assert r.errors == ["cleanup 'boom' failed: division by zero"]
