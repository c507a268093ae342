"""End to end: `vsizer bench` on this machine, physical and QEMU guests (marked e2e).

Run with ``make bench-e2e`` (or ``pytest -m e2e tests/test_bench_e2e.py``); the
default test run excludes it. The VM network run boots two guests (host ↔ guest
and guest ↔ guest links). Needs root (apt installs, loop devices, network
namespaces); skips with a message when QEMU/virtiofsd cannot be installed or run.
Runs are short (2 s) and the method is cut to 2 runs without re-runs, so the whole
file takes a few minutes even on a busy 2-core machine.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

SUITE = """
[suite]
name = "e2e"
[method]
warmup = 0
repetitions = 2
trim = 0
max_reruns = 0
[vm]
vcpus = 1
memory_mib = 512
[workloads.cpu]
threads = [1]
time_s = 2
[workloads.disk]
specs = ["database"]
queue_depths = [1, 8]
backings = ["prealloc"]
write_cache = ["on"]
size_mib = 64
time_s = 2
[workloads.network]
block_sizes = ["128K"]
directions = ["send"]
time_s = 2
[workloads.database]
modes = ["tpcb", "select"]
scale = 1
clients = 2
time_s = 2
[workloads.web]
threads = 4
time_s = 2
"""
VSIZER = [sys.executable, "-m", "vsizer.cli"]


@pytest.fixture(scope="module")
def machine():
    """Install what the harness needs; skip when this machine cannot run guests."""
    if os.geteuid() != 0:
        pytest.skip("bench e2e needs root (apt, loop devices, network namespaces)")
    from vsizer.bench.guestimage import prepare_guest_image
    from vsizer.bench.harness import QEMU_PACKAGES, cache_dir
    from vsizer.bench.prereq import ensure_packages
    from vsizer.errors import BenchmarkRunError

    try:
        ensure_packages(QEMU_PACKAGES)
        prepare_guest_image(cache_dir())
    except BenchmarkRunError as exc:
        pytest.skip(f"QEMU/virtiofsd or the guest kernel cannot be installed here: {exc}")
    if not Path("/usr/lib/qemu/virtiofsd").exists():
        pytest.skip("virtiofsd is missing (qemu-system-common)")


def _leftovers(tag: str) -> list[str]:
    """Processes whose command line mentions ``tag`` (read-only check)."""
    done = subprocess.run(["pgrep", "-af", tag], capture_output=True, text=True, check=False)
    return [ln for ln in done.stdout.splitlines() if int(ln.split()[0]) != os.getpid()]


def _cli(*args, timeout=900):
    return subprocess.run([*VSIZER, *args], capture_output=True, text=True, timeout=timeout,
                          check=False)


def test_run_every_workload_physical_and_vm(machine, tmp_path):
    suite = tmp_path / "e2e.toml"
    suite.write_text(SUITE)
    store = tmp_path / "samples.jsonl"
    res = _cli("bench", "run", str(suite), "--env", "both", "--store", str(store))
    assert res.returncode == 0, res.stdout + res.stderr
    samples = [json.loads(line) for line in store.read_text().splitlines()]
    seen = {(s["metadata"]["workload"], s["metadata"]["environment"]) for s in samples}
    for wl in ("cpu", "disk", "network", "database", "web"):
        assert {(wl, "physical"), (wl, "vm")} <= seen, wl
    vm = [s for s in samples if s["metadata"]["environment"] == "vm"]
    accel = {s["metadata"]["accelerator"] for s in vm}
    assert len(accel) == 1 and accel <= {"kvm", "tcg"}
    assert all(s["metadata"]["emulated"] == (s["metadata"]["accelerator"] == "tcg") for s in vm)
    for s in samples:
        m = s["metadata"]
        assert {"host_cpu_model", "host_cores", "host_kernel", "tool_versions", "run_id",
                "foreign_busy" if not m.get("aggregate") else "cv"} <= set(m)
    # network in the VM: host <-> guest and guest <-> guest (a second guest on a private link)
    net = {(s["metadata"].get("link"), s["metric"]): s for s in vm
           if s["metadata"]["workload"] == "network" and s["metadata"].get("aggregate")}
    for link in ("host-guest", "guest-guest"):
        assert net[(link, "received_mbit_s")]["value"] > 0, link
        assert net[(link, "received_mbit_s_host")]["value"] > 0, link
    gg = net[("guest-guest", "received_mbit_s_host")]
    assert gg["metadata"]["path"].startswith("guest to guest, QEMU stream netdev")
    assert gg["metadata"]["timed_by"] == "host wall clock around the iperf3 client"
    assert net[("guest-guest", "received_mbit_s")]["metadata"]["timed_by"] == "iperf3 in the guests (guest clocks)"
    assert (tmp_path / "report.html").stat().st_size > 10000
    assert "guest-guest send (host-timed)" in (tmp_path / "report.html").read_text()
    if "tcg" in accel:
        assert "(emulated)" in res.stdout
    assert _leftovers(str(tmp_path)) == []


def test_failing_workload_in_guest_leaves_nothing(machine, tmp_path):
    from vsizer.bench.guestimage import prepare_guest_image
    from vsizer.bench.harness import cache_dir
    from vsizer.bench.procs import Reaper
    from vsizer.bench.qemu import GuestSpec, boot
    from vsizer.errors import BenchmarkRunError

    image = prepare_guest_image(cache_dir())
    with pytest.raises(BenchmarkRunError, match="workload failed"), Reaper() as reaper:
        env = boot(GuestSpec(name="fail-vm"), image, reaper, tmp_path)
        res = env.run(["sh", "-c", "echo hello; exit 7"], 30)
        assert (res.returncode, res.stdout) == (7, "hello\n")
        assert _leftovers(str(tmp_path))  # QEMU and virtiofsd are running
        raise BenchmarkRunError("workload failed")
    assert _leftovers(str(tmp_path)) == []
    assert list(tmp_path.iterdir()) == []


def test_guest_link_down_is_reported_and_leaves_nothing(machine, tmp_path):
    """The peer's link NIC connects to a socket nobody listens on: the ping check fails."""
    from vsizer.bench.guestimage import prepare_guest_image
    from vsizer.bench.harness import cache_dir
    from vsizer.bench.procs import Reaper
    from vsizer.bench.qemu import GuestSpec, PeerLink, boot
    from vsizer.bench.workloads.network import link_guests
    from vsizer.errors import BenchmarkRunError

    image = prepare_guest_image(cache_dir())
    with Reaper() as reaper:
        first = boot(GuestSpec(name="gg-a", link=PeerLink("server")), image, reaper, tmp_path)
        first.peer = boot(GuestSpec(name="gg-b", link=PeerLink("client", str(tmp_path / "none.sock"))),
                          image, reaper, tmp_path)
        assert len(first.live_pids()) == 4  # two QEMU, two virtiofsd
        with pytest.raises(BenchmarkRunError) as info:
            link_guests(first, timeout_s=3)
    assert str(info.value).startswith(
        "guest ↔ guest link did not come up: guest gg-b got no ping reply from gg-a (10.78.0.1) "
        "over eth1 within 3 s (ping exit 1: ")
    assert "100% packet loss" in str(info.value)
    assert _leftovers(str(tmp_path)) == []
    assert list(tmp_path.iterdir()) == []


def test_sigint_during_guest_run_leaves_nothing(machine, tmp_path):
    suite = tmp_path / "long.toml"
    suite.write_text("[method]\nwarmup = 0\nrepetitions = 1\n[workloads.cpu]\nthreads = [1]\ntime_s = 120\n")
    store = tmp_path / "samples.jsonl"
    proc = subprocess.Popen([*VSIZER, "bench", "run", str(suite), "--env", "vm", "--store", str(store)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300
    while not any("qemu-system" in ln for ln in _leftovers(str(tmp_path))):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "no guest started"
        time.sleep(0.2)
    time.sleep(3)
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=120)
    assert proc.returncode == 2
    assert "error: interrupted by SIGINT; stopped everything the run had started." in err
    deadline = time.monotonic() + 10
    while _leftovers(str(tmp_path)) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _leftovers(str(tmp_path)) == []


def test_tiles_and_export_for_fit(machine, tmp_path):
    store = tmp_path / "samples.jsonl"
    res = _cli("bench", "tiles", "--max", "2", "--time", "2", "--repetitions", "2",
               "--warmup", "0", "--store", str(store))
    assert res.returncode == 0, res.stdout + res.stderr
    assert "2 tile(s), 2 VM(s)" in res.stdout
    out = tmp_path / "m.csv"
    res = _cli("bench", "export", "--for-fit", "--store", str(store), "-o", str(out))
    assert res.returncode == 0, res.stderr
    from vsizer.models.measurements import read_measurements

    frame = read_measurements(out, "cpu")
    assert sorted(set(frame["vms"])) == [1, 2]
    assert _leftovers(str(tmp_path)) == []
