"""Network workload: iperf3 TCP throughput over block sizes, both directions (DESIGN §6.3, §8).

Physical: client and server in two network namespaces the harness creates,
joined by a veth pair (10.77.<n>.1 / .2), removed at cleanup. VM (host ↔ guest):
the server runs in the guest and the client on the host, through QEMU user
networking with a port forwarded on 127.0.0.1; ``direction = "send"`` is host →
guest, ``"receive"`` (iperf3 ``-R``) guest → host. No vhost-net (absent on these
machines, notes/kvm-feasibility.md §1), so guest numbers include slirp's cost.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
from typing import Any

from vsizer.bench.env import Environment
from vsizer.bench.prereq import ensure_packages
from vsizer.bench.procs import Reaper, run_checked
from vsizer.bench.samples import Sample
from vsizer.errors import BenchmarkRunError

NAME = "network"
PACKAGES = ("iperf3", "iproute2")
DEFAULT_CONFIG: dict[str, Any] = {
    "block_sizes": ["2K", "8K", "32K", "128K"],
    "directions": ["send", "receive"],
    "time_s": 10,
}
GUEST_PORT = 5201


def check_prerequisites() -> None:
    """Install iperf3 and iproute2 when missing."""
    ensure_packages(PACKAGES)


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def guest_needs(config: dict[str, Any]) -> dict[str, Any]:
    """A loopback port on the host forwarded to the guest's iperf3 server."""
    return {"forwards": ((free_port(), GUEST_PORT),)}


def _parse_output(text: str) -> list[Sample]:
    """Samples from ``iperf3 -J`` client output: sent and received throughput [Mbit/s].

    Raises
    ------
    BenchmarkRunError
        Not JSON, an ``error`` key (e.g. connection refused), or no ``end.sum_*`` totals.
    """
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BenchmarkRunError(f"iperf3 output: not valid JSON ({exc.msg} at line {exc.lineno}).") from None
    if not isinstance(doc, dict):
        raise BenchmarkRunError("iperf3 output: expected a JSON object.")
    if doc.get("error"):
        raise BenchmarkRunError(f"iperf3 output: {doc['error']}.")
    try:
        end = doc["end"]
        sent = float(end["sum_sent"]["bits_per_second"])
        received = float(end["sum_received"]["bits_per_second"])
        test = doc["start"]["test_start"]
        meta = {"iperf3_version": doc["start"].get("version", "unknown"),
                "reverse": bool(test["reverse"]), "block_bytes": int(test["blksize"])}
        retrans = end["sum_sent"].get("retransmits")
    except (KeyError, TypeError, ValueError) as exc:
        raise BenchmarkRunError(f"iperf3 output: field {exc} missing; the test did not finish.") from None
    samples = [Sample("sent_mbit_s", sent / 1e6, "Mbit/s", meta),
               Sample("received_mbit_s", received / 1e6, "Mbit/s", meta)]
    if retrans is not None:
        samples.append(Sample("retransmits", float(retrans), "segments", meta))
    return samples


def cases(config: dict[str, Any], env: Environment) -> list[dict[str, Any]]:
    """Block size x direction."""
    return [{"block_size": b, "direction": d}
            for b in config["block_sizes"] for d in config["directions"]]


def _netns_pair(reaper: Reaper) -> dict[str, Any]:
    tag = f"vsz{os.getpid() % 100000}"
    a, b = f"{tag}a", f"{tag}b"
    subnet = os.getpid() % 250 + 1
    ip = ["ip"]
    run_checked(reaper, [*ip, "netns", "add", a], f"ip netns add {a}")
    reaper.add_cleanup(f"delete netns {a}", lambda: subprocess.run([*ip, "netns", "del", a], check=False))
    run_checked(reaper, [*ip, "netns", "add", b], f"ip netns add {b}")
    reaper.add_cleanup(f"delete netns {b}", lambda: subprocess.run([*ip, "netns", "del", b], check=False))
    steps = [
        [*ip, "link", "add", f"{tag}x", "netns", a, "type", "veth", "peer", "name", f"{tag}y", "netns", b],
        [*ip, "-n", a, "addr", "add", f"10.77.{subnet}.1/24", "dev", f"{tag}x"],
        [*ip, "-n", b, "addr", "add", f"10.77.{subnet}.2/24", "dev", f"{tag}y"],
        [*ip, "-n", a, "link", "set", f"{tag}x", "up"], [*ip, "-n", b, "link", "set", f"{tag}y", "up"],
        [*ip, "-n", a, "link", "set", "lo", "up"], [*ip, "-n", b, "link", "set", "lo", "up"],
    ]
    for argv in steps:
        run_checked(reaper, argv, " ".join(argv))
    server = reaper.popen(["ip", "netns", "exec", a, "iperf3", "-s", "-B", f"10.77.{subnet}.1",
                           "-p", str(GUEST_PORT)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return {"client": ["ip", "netns", "exec", b], "host": f"10.77.{subnet}.1",
            "port": GUEST_PORT, "server": server, "path": "veth between network namespaces"}


def prepare(env: Environment, config: dict[str, Any], reaper: Reaper) -> dict[str, Any]:
    """Start the iperf3 server (netns on the host; in the guest for a VM)."""
    if env.name == "physical":
        state = _netns_pair(reaper)
    else:
        res = env.run(["iperf3", "-s", "-D", "-p", str(GUEST_PORT)], 30)
        if res.returncode != 0:
            raise BenchmarkRunError(f"iperf3 server in the guest failed: {res.stderr.strip()[:200]}")
        fwd = env.forwarded(GUEST_PORT)  # type: ignore[attr-defined]
        state = {"client": [], "host": "127.0.0.1", "port": fwd,
                 "path": "host to guest, QEMU user networking (slirp) port forward"}
    state["reaper"] = reaper
    time.sleep(0.5)
    return state


def run(
    env: Environment, case: dict[str, Any], config: dict[str, Any], state: dict[str, Any]
) -> list[Sample]:
    """One iperf3 client run, always on the host (load driven from outside the VM)."""
    t = int(config["time_s"])
    argv = [*state["client"], "iperf3", "-c", state["host"], "-p", str(state["port"]),
            "-t", str(t), "-l", str(case["block_size"]), "-J"]
    if case["direction"] == "receive":
        argv.append("-R")
    start = time.monotonic()
    done = state["reaper"].run(argv, timeout=t + 60)
    elapsed = time.monotonic() - start
    samples = _parse_output(done.stdout)
    now = time.time()
    meta = {**case, "time_s": t, "path": state["path"]}
    return [Sample(s.metric, s.value, s.unit, {**s.metadata, **meta}, now)
            for s in [*samples, Sample("elapsed_s", elapsed, "s")]]


def cleanup(env: Environment, state: dict[str, Any]) -> None:
    """The server and namespaces go with the reaper's teardown."""
