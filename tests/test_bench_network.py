"""Network workload, guest ↔ guest: cases, commands, link set-up, host-timed throughput.

Pure tests with stand-in environments (no QEMU): the link's QEMU arguments, the
iperf3 client command, finding the link NIC in real ``ip -o link show`` output
(captured in a guest booted by the harness), the error when the link does not
come up, the harness's peer-guest hook, and the report's per-link series.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from vsizer.bench import harness
from vsizer.bench.env import RunResult
from vsizer.bench.qemu import LINK_MACS, GuestSpec, PeerLink, VmEnv, link_args
from vsizer.bench.report import _network_series, ratio_frame, summary_frame
from vsizer.bench.samples import Sample
from vsizer.bench.suite import Suite, load_suite
from vsizer.bench.workloads import network
from vsizer.errors import BenchmarkRunError, ConfigError

DATA = Path(__file__).parent / "data" / "bench"

#: ``ip -o link show`` in a guest booted with a link NIC (server end).
IP_LINK = (
    "1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN mode DEFAULT group "
    "default qlen 1000\\    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00\n"
    "2: eth0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc fq_codel state UP mode DEFAULT "
    "group default qlen 1000\\    link/ether 52:54:00:12:34:56 brd ff:ff:ff:ff:ff:ff\n"
    "3: eth1: <BROADCAST,MULTICAST> mtu 1500 qdisc noop state DOWN mode DEFAULT group default "
    "qlen 1000\\    link/ether 52:54:00:77:00:01 brd ff:ff:ff:ff:ff:ff\n"
)
PING_LOST = (
    "PING 10.78.0.1 (10.78.0.1) from 10.78.0.2 eth1: 56(84) bytes of data.\n\n"
    "--- 10.78.0.1 ping statistics ---\n"
    "3 packets transmitted, 0 received, 100% packet loss, time 2037ms\n"
)
CONFIG = {**network.DEFAULT_CONFIG, "block_sizes": ["8K", "128K"], "time_s": 2}


class Phys:
    name = "physical"


@dataclass
class FakeGuest:
    spec: GuestSpec


@dataclass
class FakeVm:
    """A guest stand-in: answers commands from a script, records what it was asked."""

    name_: str
    mac: str
    answers: dict[str, RunResult] = field(default_factory=dict)
    calls: list[list[str]] = field(default_factory=list)
    peer: Any = None
    name: str = "vm"

    def __post_init__(self) -> None:
        self.guest = FakeGuest(GuestSpec(name=self.name_, link=PeerLink("server", mac=self.mac)))

    def run(self, argv: list[str], timeout: float) -> RunResult:
        self.calls.append(argv)
        return self.answers.get(argv[0], RunResult(0, "", "", 0.01))


def _pair(ping: RunResult) -> tuple[FakeVm, FakeVm]:
    first = FakeVm("network-vm", LINK_MACS["server"], {"ip": RunResult(0, IP_LINK, "", 0.1)})
    peer_link = IP_LINK.replace("52:54:00:77:00:01", "52:54:00:77:00:02")
    peer = FakeVm("network-peer", LINK_MACS["client"],
                  {"ip": RunResult(0, peer_link, "", 0.1), "ping": ping})
    first.peer = peer
    return first, peer


# -- QEMU side --------------------------------------------------------------
def test_link_args_server_and_client():
    assert link_args(PeerLink("server"), "/w/a/link.sock") == [
        "-netdev", "stream,id=n1,server=on,addr.type=unix,addr.path=/w/a/link.sock",
        "-device", "virtio-net-pci,netdev=n1,mac=52:54:00:77:00:01",
    ]
    assert link_args(PeerLink("client", "/w/a/link.sock"), "/w/a/link.sock") == [
        "-netdev", "stream,id=n1,server=off,addr.type=unix,addr.path=/w/a/link.sock",
        "-device", "virtio-net-pci,netdev=n1,mac=52:54:00:77:00:02",
    ]


def test_peer_link_validation():
    with pytest.raises(ConfigError, match="a client end needs the server guest's socket path"):
        PeerLink("client")
    with pytest.raises(ConfigError, match=r"The 'role' parameter of PeerLink"):
        PeerLink("bridge")
    # both ends on one segment: their MACs must differ
    assert PeerLink("server").mac != PeerLink("client", "/x").mac


def test_vm_env_live_pids_include_the_peer():
    class G:
        def __init__(self, pids):
            self.pids = pids

        def live_pids(self):
            return self.pids

    env, peer = VmEnv(G([1, 2])), VmEnv(G([3]))  # type: ignore[arg-type]
    assert env.live_pids() == [1, 2]
    env.peer = peer
    assert env.live_pids() == [1, 2, 3]


# -- cases, commands ----------------------------------------------------------
def test_cases_physical_ignore_links_vm_adds_them():
    phys = network.cases(CONFIG, Phys())
    assert phys == [{"block_size": "8K", "direction": "send"}, {"block_size": "8K", "direction": "receive"},
                    {"block_size": "128K", "direction": "send"}, {"block_size": "128K", "direction": "receive"}]
    vm = network.cases(CONFIG, FakeVm("a", "x"))
    assert len(vm) == 8
    assert vm[0] == {"link": "host-guest", "block_size": "8K", "direction": "send"}
    assert vm[4] == {"link": "guest-guest", "block_size": "8K", "direction": "send"}
    assert vm[-1] == {"link": "guest-guest", "block_size": "128K", "direction": "receive"}
    only = network.cases({**CONFIG, "links": ["guest-guest"]}, FakeVm("a", "x"))
    assert {c["link"] for c in only} == {"guest-guest"} and len(only) == 4


@pytest.mark.parametrize("links", [[], ["host-guest", "tap"]])
def test_bad_links_rejected(links):
    with pytest.raises(ConfigError, match=r"\[workloads.network\] 'links': expected a non-empty list of "
                       r"'host-guest', 'guest-guest'; got "):
        network.cases({**CONFIG, "links": links}, Phys())


def test_suite_links_key_type_checked(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text('[workloads.network]\nlinks = ["guest-guest"]\n')
    assert load_suite(path).workloads["network"]["links"] == ["guest-guest"]
    path.write_text('[workloads.network]\nlinks = "guest-guest"\n')
    with pytest.raises(ConfigError, match=r"'links': expected a list, got 'guest-guest'"):
        load_suite(path)


def test_bundled_suites_run_both_links():
    for name in ("quick", "standard"):
        assert load_suite(name).workloads["network"]["links"] == ["host-guest", "guest-guest"]
    quick = load_suite("quick").workloads["network"]
    assert (quick["block_sizes"], quick["time_s"]) == (["8K", "128K"], 3)


def test_guest_needs_follow_links():
    assert network.peer_guest_needs(CONFIG) == {}
    assert network.peer_guest_needs({**CONFIG, "links": ["host-guest"]}) is None
    fwd = network.guest_needs(CONFIG)["forwards"]
    assert len(fwd) == 1 and fwd[0][1] == network.GUEST_PORT
    assert network.guest_needs({**CONFIG, "links": ["guest-guest"]}) == {}


def test_client_argv():
    assert network.client_argv("10.78.0.1", 5201, {"block_size": "128K", "direction": "send"}, 3) == [
        "iperf3", "-c", "10.78.0.1", "-p", "5201", "-t", "3", "-l", "128K", "-J"]
    assert network.client_argv("127.0.0.1", 40001, {"block_size": "8K", "direction": "receive"}, 10)[-2:] == [
        "-J", "-R"]


def test_host_timed_throughput():
    # 125,000,000 bytes = 1,000,000,000 bits over 2.0 s = 500 Mbit/s
    assert network.host_mbit_s(125_000_000, 2.0) == 500.0
    # 62,500,000 bytes over 4.0 s = 125 Mbit/s
    assert network.host_mbit_s(62_500_000, 4.0) == 125.0
    with pytest.raises(BenchmarkRunError, match=r"elapsed time must be positive, got 0.0 s"):
        network.host_mbit_s(1000, 0.0)


# -- the link inside the guests ---------------------------------------------
def test_ifname_for_mac():
    assert network._ifname_for_mac(IP_LINK, "52:54:00:77:00:01") == "eth1"
    assert network._ifname_for_mac(IP_LINK, "52:54:00:12:34:56") == "eth0"
    assert network._ifname_for_mac(IP_LINK, "52:54:00:77:00:01".upper()) == "eth1"
    assert network._ifname_for_mac(IP_LINK, "52:54:00:77:00:02") is None
    assert network._ifname_for_mac("", "52:54:00:77:00:01") is None


def test_link_guests_configures_both_and_pings():
    first, peer = _pair(RunResult(0, "1 packets transmitted, 1 received", "", 0.5))
    assert network.link_guests(first) == {"server_if": "eth1", "peer_if": "eth1"}
    assert first.calls[1] == ["sh", "-c", "ip addr add 10.78.0.1/24 dev eth1 && ip link set eth1 up"]
    assert peer.calls[1] == ["sh", "-c", "ip addr add 10.78.0.2/24 dev eth1 && ip link set eth1 up"]
    assert peer.calls[2] == ["ping", "-n", "-c", "1", "-w", "20", "-I", "eth1", "10.78.0.1"]


def test_link_not_coming_up_is_an_error():
    first, _peer = _pair(RunResult(1, PING_LOST, "", 3.1))
    with pytest.raises(BenchmarkRunError) as info:
        network.link_guests(first, timeout_s=3)
    assert str(info.value) == (
        "guest ↔ guest link did not come up: guest network-peer got no ping reply from "
        "network-vm (10.78.0.1) over eth1 within 3 s (ping exit 1: --- 10.78.0.1 ping statistics "
        "--- | 3 packets transmitted, 0 received, 100% packet loss, time 2037ms)."
    )


def test_link_nic_missing_or_no_peer():
    first, peer = _pair(RunResult(0, "", "", 0.1))
    peer.answers["ip"] = RunResult(0, IP_LINK.split("3: eth1")[0], "", 0.1)
    with pytest.raises(BenchmarkRunError, match=r"^guest ↔ guest link: guest network-peer has no NIC "
                       r"with MAC 52:54:00:77:00:02 \('ip -o link show' exit 0: "):
        network.link_guests(first)
    first.peer = None
    with pytest.raises(BenchmarkRunError, match="the harness booted no peer guest"):
        network.link_guests(first)


# -- one measured run ---------------------------------------------------------
def test_guest_guest_run_is_host_timed():
    text = (DATA / "iperf3_lo_128K.json").read_text()
    first, peer = _pair(RunResult(0, "", "", 0.1))
    peer.answers["iperf3"] = RunResult(0, text, "", 2.0)
    case = {"link": "guest-guest", "block_size": "128K", "direction": "send"}
    samples = network.run(first, case, CONFIG, {"peer": peer, "path": network.HOST_GUEST_PATH})
    assert peer.calls[-1] == ["iperf3", "-c", "10.78.0.1", "-p", "5201", "-t", "2", "-l", "128K", "-J"]
    got = {s.metric: s for s in samples}
    # end.sum_received.bytes = 4,745,461,760 B over 2.0 s of host time:
    # 4,745,461,760 x 8 / 2.0 / 1e6 = 18,981.84704 Mbit/s
    assert got["received_bytes"].value == 4_745_461_760
    assert got["received_mbit_s_host"].value == pytest.approx(18981.84704)
    assert got["received_mbit_s"].value == pytest.approx(18975.082423116157)  # iperf3's own
    assert got["elapsed_s"].value == 2.0
    meta = got["received_mbit_s"].metadata
    assert meta["link"] == "guest-guest"
    assert meta["path"] == "guest to guest, QEMU stream netdev over a UNIX socket (virtio-net, no vhost)"
    assert meta["timed_by"] == "iperf3 in the guests (guest clocks)"
    assert got["received_mbit_s_host"].metadata["timed_by"] == "host wall clock around the iperf3 client"
    assert "timed_by" not in got["retransmits"].metadata


def test_host_guest_run_keeps_metric_names(monkeypatch):
    text = (DATA / "iperf3_lo_8K_reverse.json").read_text()

    class R:
        def run(self, argv, timeout):
            self.argv = argv
            return type("Done", (), {"stdout": text, "returncode": 0})()

    clock = iter([100.0, 102.5])
    monkeypatch.setattr(network.time, "monotonic", lambda: next(clock))
    reaper = R()
    state = {"client": [], "host": "127.0.0.1", "port": 40001, "path": network.HOST_GUEST_PATH,
             "reaper": reaper}
    case = {"link": "host-guest", "block_size": "8K", "direction": "receive"}
    got = {s.metric: s for s in network.run(FakeVm("a", "x"), case, CONFIG, state)}
    assert reaper.argv[-1] == "-R" and reaper.argv[:5] == ["iperf3", "-c", "127.0.0.1", "-p", "40001"]
    assert {"sent_mbit_s", "received_mbit_s", "retransmits", "elapsed_s"} <= set(got)
    # 1,981,530,112 B x 8 / 2.5 s / 1e6 = 6,340.8963584 Mbit/s
    assert got["received_mbit_s_host"].value == pytest.approx(6340.8963584)
    assert got["received_mbit_s"].metadata["timed_by"] == "iperf3 on the host (host clock)"
    assert got["received_mbit_s"].metadata["path"] == network.HOST_GUEST_PATH


# -- the harness's peer-guest hook -----------------------------------------
def _run_vm_suite(monkeypatch, tmp_path, links):
    booted: dict[str, Any] = {}
    monkeypatch.setattr(harness, "ensure_packages", lambda pkgs: [])
    monkeypatch.setattr(harness, "prepare_guest_image", lambda cache: "image")
    monkeypatch.setattr(network, "ensure_packages", lambda pkgs: [])
    monkeypatch.setattr(harness, "boot", lambda spec, image, reaper, work: booted.update(one=spec) or "env")
    monkeypatch.setattr(harness, "boot_pair", lambda spec, peer, image, reaper, work:
                        booted.update(first=spec, peer=peer) or "env")
    monkeypatch.setattr(harness, "_run_workload", lambda name, config, env, *a: booted.update(env=env))
    config = {**CONFIG, "links": links}
    suite = Suite("t", "", load_suite("quick").method, {"vcpus": 2, "memory_mib": 384}, {"network": config})
    summary = harness.run_suite(suite, env="vm", store=tmp_path / "s.jsonl", workdir=tmp_path / "w")
    assert summary.failures == [] and booted["env"] == "env"
    return booted


def test_harness_boots_a_peer_for_guest_guest(monkeypatch, tmp_path):
    booted = _run_vm_suite(monkeypatch, tmp_path, ["host-guest", "guest-guest"])
    first, peer = booted["first"], booted["peer"]
    assert (first.name, peer.name) == ("network-vm", "network-peer")
    assert (peer.vcpus, peer.memory_mib) == (first.vcpus, first.memory_mib) == (2, 384)
    assert len(first.forwards) == 1 and peer.forwards == () and peer.disks == ()
    assert "one" not in booted


def test_harness_boots_one_guest_without_guest_guest(monkeypatch, tmp_path):
    booted = _run_vm_suite(monkeypatch, tmp_path, ["host-guest"])
    assert booted["one"].name == "network-vm" and "peer" not in booted


# -- report -------------------------------------------------------------------
def _agg(metric: str, value: float, env: str, link: str | None, direction: str = "send") -> Sample:
    meta: dict[str, Any] = {"workload": "network", "aggregate": "trimmed_mean", "environment": env,
                            "block_size": "128K", "direction": direction, "min": value, "max": value,
                            "emulated": env == "vm"}
    if link:
        meta["link"] = link
    return Sample(metric, value, "Mbit/s", meta)


def test_report_shows_guest_guest_as_its_own_series_and_ratio():
    summary = summary_frame([
        _agg("received_mbit_s", 20000.0, "physical", None),
        _agg("received_mbit_s_host", 19000.0, "physical", None),
        _agg("received_mbit_s", 400.0, "vm", "host-guest"),
        _agg("received_mbit_s_host", 390.0, "vm", "host-guest"),
        _agg("received_mbit_s", 200.0, "vm", "guest-guest"),
        _agg("received_mbit_s_host", 180.0, "vm", "guest-guest"),
    ])
    names = [name for name, _ in _network_series(summary)]
    assert names == ["physical send", "vm (emulated) guest-guest send",
                     "vm (emulated) guest-guest send (host-timed)", "vm (emulated) host-guest send"]
    ratios = ratio_frame(summary)
    rows = {r["link"]: r for _, r in ratios.iterrows()}
    assert set(rows) == {"host-guest", "guest-guest"}
    assert rows["guest-guest"]["ratio"] == pytest.approx(200 / 20000)
    assert rows["host-guest"]["ratio"] == pytest.approx(400 / 20000)
    assert {"workload", "metric", "link", "block_size", "direction"} <= set(ratios.columns)


def test_report_without_links_unchanged():
    summary = summary_frame([_agg("received_mbit_s", 20000.0, "physical", None),
                             _agg("received_mbit_s", 400.0, "vm", None)])
    ratios = ratio_frame(summary)
    assert len(ratios) == 1 and "link" not in ratios.columns
    assert ratios["ratio"].iloc[0] == pytest.approx(0.02)
    assert [name for name, _ in _network_series(summary)] == ["physical send", "vm (emulated) send"]

