"""Network workload: iperf3 TCP throughput over block sizes, both directions (DESIGN §6.3, §8).

Physical: client and server in two network namespaces the harness creates,
joined by a veth pair (10.77.<n>.1 / .2), removed at cleanup. VM, one case
dimension ``link`` (suite key ``links``):

* ``host-guest``: the server runs in the guest and the client on the host,
  through QEMU user networking with a port forwarded on 127.0.0.1;
  ``direction = "send"`` is host → guest, ``"receive"`` (iperf3 ``-R``) guest → host.
* ``guest-guest``: the harness boots a second, identical guest (the *peer*,
  :func:`peer_guest_needs`, :func:`vsizer.bench.qemu.boot_pair`) joined to the
  first by a private Ethernet link: a second virtio-net NIC in each, connected
  QEMU to QEMU through a UNIX socket (``-netdev stream``). The server runs in the
  first guest (10.78.0.1), the client in the peer (10.78.0.2) through the agent;
  ``send`` is peer → first guest, ``receive`` (``-R``) first guest → peer.
  iperf3's rates are then on guest clocks (``timed_by`` says so); the host-timed
  ``received_mbit_s_host`` = received bytes / host wall time of the agent call.

No vhost-net (absent on these machines, notes/kvm-feasibility.md §1), so guest
numbers include QEMU's user-space packet path (slirp, or the stream socket).
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
from vsizer.errors import BenchmarkRunError, ConfigError

NAME = "network"
PACKAGES = ("iperf3", "iproute2", "iputils-ping")
DEFAULT_CONFIG: dict[str, Any] = {
    "block_sizes": ["2K", "8K", "32K", "128K"],
    "directions": ["send", "receive"],
    "links": ["host-guest", "guest-guest"],  # VM runs only; physical uses the veth pair
    "time_s": 10,
}
GUEST_PORT = 5201
#: VM link kinds: the host to a guest over QEMU user networking; guest to guest
#: over a private link between two guests.
LINKS = ("host-guest", "guest-guest")
DIRECTIONS = ("send", "receive")
#: Addresses on the guest ↔ guest link: the first guest (iperf3 server), the peer.
LINK_ADDRS = ("10.78.0.1", "10.78.0.2")
LINK_PREFIX = 24
#: Seconds the peer pings the first guest before the link counts as down.
LINK_UP_TIMEOUT_S = 20
#: ``timed_by`` of the rates: whose clock measured them.
GUEST_CLOCK = "iperf3 in the guests (guest clocks)"
HOST_IPERF3_CLOCK = "iperf3 on the host (host clock)"
HOST_WALL_CLOCK = "host wall clock around the iperf3 client"
HOST_GUEST_PATH = "host to guest, QEMU user networking (slirp) port forward"
GUEST_GUEST_PATH = "guest to guest, QEMU stream netdev over a UNIX socket (virtio-net, no vhost)"


def check_prerequisites() -> None:
    """Install iperf3, iproute2 and ping when missing."""
    ensure_packages(PACKAGES)


def _links(config: dict[str, Any]) -> list[str]:
    """The configured VM link kinds, validated.

    Raises
    ------
    ConfigError
        Empty, or a value that is not one of :data:`LINKS`.
    """
    links = list(config.get("links", LINKS))
    bad = [x for x in links if x not in LINKS]
    if bad or not links:
        raise ConfigError(
            f"[workloads.network] 'links': expected a non-empty list of {', '.join(map(repr, LINKS))}; "
            f"got {links!r}."
        )
    return links


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def guest_needs(config: dict[str, Any]) -> dict[str, Any]:
    """A loopback port on the host forwarded to the guest's iperf3 server (host-guest link)."""
    if "host-guest" not in _links(config):
        return {}
    return {"forwards": ((free_port(), GUEST_PORT),)}


def peer_guest_needs(config: dict[str, Any]) -> dict[str, Any] | None:
    """A second guest for guest-guest cases (no disks, no forwards), else ``None``.

    The harness then boots both with :func:`vsizer.bench.qemu.boot_pair`; the peer
    is ``env.peer``.
    """
    return {} if "guest-guest" in _links(config) else None


def host_mbit_s(received_bytes: float, seconds: float) -> float:
    """Throughput timed on the host: ``received_bytes`` over ``seconds`` of host wall time [Mbit/s]."""
    if seconds <= 0:
        raise BenchmarkRunError(f"host-timed throughput: elapsed time must be positive, got {seconds!r} s.")
    return received_bytes * 8 / seconds / 1e6


def client_argv(server: str, port: int, case: dict[str, Any], time_s: int) -> list[str]:
    """The iperf3 client command of one case (``-R`` when ``direction = "receive"``)."""
    argv = ["iperf3", "-c", server, "-p", str(port), "-t", str(time_s),
            "-l", str(case["block_size"]), "-J"]
    if case["direction"] == "receive":
        argv.append("-R")
    return argv


def _parse_output(text: str) -> list[Sample]:
    """Samples from ``iperf3 -J`` client output: sent and received throughput [Mbit/s]
    and the bytes received (``end.sum_received.bytes``).

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
        received_bytes = float(end["sum_received"]["bytes"])
        test = doc["start"]["test_start"]
        meta = {"iperf3_version": doc["start"].get("version", "unknown"),
                "reverse": bool(test["reverse"]), "block_bytes": int(test["blksize"])}
        retrans = end["sum_sent"].get("retransmits")
    except (KeyError, TypeError, ValueError) as exc:
        raise BenchmarkRunError(f"iperf3 output: field {exc} missing; the test did not finish.") from None
    samples = [Sample("sent_mbit_s", sent / 1e6, "Mbit/s", meta),
               Sample("received_mbit_s", received / 1e6, "Mbit/s", meta),
               Sample("received_bytes", received_bytes, "bytes", meta)]
    if retrans is not None:
        samples.append(Sample("retransmits", float(retrans), "segments", meta))
    return samples


def cases(config: dict[str, Any], env: Environment) -> list[dict[str, Any]]:
    """Block size x direction; in a VM also x link (``host-guest``, ``guest-guest``)."""
    links = _links(config)
    bad = [d for d in config["directions"] if d not in DIRECTIONS]
    if bad:
        raise ConfigError(f"[workloads.network] 'directions': expected 'send' or 'receive'; got {bad!r}.")
    base = [{"block_size": b, "direction": d}
            for b in config["block_sizes"] for d in config["directions"]]
    if env.name == "physical":
        return base
    return [{"link": link, **c} for link in links for c in base]


def _ifname_for_mac(ip_link: str, mac: str) -> str | None:
    """The interface with address ``mac`` in ``ip -o link show`` output, or ``None``."""
    for line in ip_link.splitlines():
        fields = line.split()
        if len(fields) > 2 and "link/ether" in fields:
            at = fields.index("link/ether")
            if at + 1 < len(fields) and fields[at + 1].lower() == mac.lower():
                return fields[1].rstrip(":").split("@")[0]
    return None


def _configure_link(env: Environment, guest: str, mac: str, address: str) -> str:
    """Give the link NIC (found by ``mac``) ``address`` in the guest and bring it up; its name."""
    shown = env.run(["ip", "-o", "link", "show"], 30)
    ifname = _ifname_for_mac(shown.stdout, mac) if shown.returncode == 0 else None
    if ifname is None:
        raise BenchmarkRunError(
            f"guest ↔ guest link: guest {guest} has no NIC with MAC {mac} "
            f"('ip -o link show' exit {shown.returncode}: {_tail(shown.stdout + shown.stderr)})."
        )
    script = (f"ip addr add {address}/{LINK_PREFIX} dev {ifname} && ip link set {ifname} up")
    done = env.run(["sh", "-c", script], 30)
    if done.returncode != 0:
        raise BenchmarkRunError(
            f"guest ↔ guest link: configuring {ifname} in guest {guest} failed "
            f"(exit {done.returncode}): {_tail(done.stderr or done.stdout)}"
        )
    return ifname


def _check_link(peer: Environment, peer_name: str, ifname: str, target: str, target_name: str,
                timeout_s: int = LINK_UP_TIMEOUT_S) -> None:
    """Ping ``target`` from the peer until one reply or ``timeout_s``; raise if none came."""
    done = peer.run(["ping", "-n", "-c", "1", "-w", str(timeout_s), "-I", ifname, target],
                    timeout_s + 30)
    if done.returncode != 0:
        raise BenchmarkRunError(
            f"guest ↔ guest link did not come up: guest {peer_name} got no ping reply from "
            f"{target_name} ({target}) over {ifname} within {timeout_s} s "
            f"(ping exit {done.returncode}: {_tail(done.stdout + done.stderr)})."
        )


def _tail(text: str, lines: int = 2) -> str:
    return " | ".join(text.strip().splitlines()[-lines:]) or "no output"


def link_guests(env: Any, timeout_s: int = LINK_UP_TIMEOUT_S) -> dict[str, str]:
    """Address the link NICs of ``env``'s guest and its peer, check the peer reaches it.

    ``env`` is a :class:`~vsizer.bench.qemu.VmEnv` from
    :func:`~vsizer.bench.qemu.boot_pair`. Returns the interface names.

    Raises
    ------
    BenchmarkRunError
        No peer, a link NIC missing, ``ip`` failing, or no ping reply in ``timeout_s``.
    """
    peer = getattr(env, "peer", None)
    if peer is None:
        raise BenchmarkRunError("guest ↔ guest link: the harness booted no peer guest.")
    names = (env.guest.spec.name, peer.guest.spec.name)
    first_if = _configure_link(env, names[0], env.guest.spec.link.mac, LINK_ADDRS[0])
    peer_if = _configure_link(peer, names[1], peer.guest.spec.link.mac, LINK_ADDRS[1])
    _check_link(peer, names[1], peer_if, LINK_ADDRS[0], names[0], timeout_s)
    return {"server_if": first_if, "peer_if": peer_if}


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
        links = _links(config)
        state = {"path": HOST_GUEST_PATH}
        if "guest-guest" in links:
            state.update(link_guests(env), peer=env.peer)  # type: ignore[attr-defined]
        res = env.run(["iperf3", "-s", "-D", "-p", str(GUEST_PORT)], 30)
        if res.returncode != 0:
            raise BenchmarkRunError(f"iperf3 server in the guest failed: {res.stderr.strip()[:200]}")
        if "host-guest" in links:
            fwd = env.forwarded(GUEST_PORT)  # type: ignore[attr-defined]
            state.update(client=[], host="127.0.0.1", port=fwd)
    state["reaper"] = reaper
    time.sleep(0.5)
    return state


def run(
    env: Environment, case: dict[str, Any], config: dict[str, Any], state: dict[str, Any]
) -> list[Sample]:
    """One iperf3 client run, timed on the host.

    Physical and host-guest: the client runs on the host (load driven from outside
    the VM). Guest-guest: the client runs in the peer guest through its agent, and
    ``elapsed_s`` is the agent call's host-timed duration. Every case adds
    ``received_mbit_s_host`` = received bytes / ``elapsed_s`` (includes iperf3's
    start-up and control exchange, so it is a little below iperf3's own figure).
    """
    t = int(config["time_s"])
    if case.get("link") == "guest-guest":
        res = state["peer"].run(client_argv(LINK_ADDRS[0], GUEST_PORT, case, t), t + 60)
        text, elapsed = res.stdout, res.elapsed_s
        path, clock = GUEST_GUEST_PATH, GUEST_CLOCK
    else:
        argv = [*state["client"], *client_argv(state["host"], state["port"], case, t)]
        start = time.monotonic()
        text = state["reaper"].run(argv, timeout=t + 60).stdout
        elapsed = time.monotonic() - start
        path, clock = state["path"], HOST_IPERF3_CLOCK
    samples = _parse_output(text)
    received = next(s.value for s in samples if s.metric == "received_bytes")
    samples += [Sample("received_mbit_s_host", host_mbit_s(received, elapsed), "Mbit/s"),
                Sample("elapsed_s", elapsed, "s")]
    timed_by = {"sent_mbit_s": clock, "received_mbit_s": clock,
                "received_mbit_s_host": HOST_WALL_CLOCK, "elapsed_s": HOST_WALL_CLOCK}
    now = time.time()
    meta = {**case, "time_s": t, "path": path}
    return [Sample(s.metric, s.value, s.unit,
                   {**s.metadata, **meta, **({"timed_by": timed_by[s.metric]} if s.metric in timed_by else {})},
                   now)
            for s in samples]


def cleanup(env: Environment, state: dict[str, Any]) -> None:
    """The server and namespaces go with the reaper's teardown."""
