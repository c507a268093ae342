"""QEMU guests: disks, virtiofsd, boot, commands through the guest agent, teardown.

A :class:`Guest` boots the cloud kernel with the busybox initramfs
(:mod:`vsizer.bench.guestimage`); the guest mounts the host root read-only over
virtiofs and runs :mod:`vsizer.bench.guest_agent` on its second serial port,
which the host reaches through a UNIX socket. Every process (virtiofsd, QEMU),
loop device and image file is registered with the :class:`~vsizer.bench.procs.Reaper`,
so nothing outlives the run. :class:`VmEnv` wraps a guest as a benchmark
environment; its samples carry the accelerator and, under TCG, ``emulated=True``.

Two guests can be joined by a private Ethernet link (:class:`PeerLink`,
:func:`boot_pair`): a second virtio-net NIC in each, whose QEMU ``-netdev stream``
backends are connected through a UNIX socket in the first guest's run directory.
Frames go from one QEMU process to the other and nowhere else: no host interface,
no TCP port, nothing to delete but the socket file.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from vsizer._validation import Interval, OneOf, check_param
from vsizer.bench.env import RunResult, host_accelerator, host_metadata
from vsizer.bench.guestimage import GuestImage, boot_initrd
from vsizer.bench.procs import Reaper, run_checked
from vsizer.errors import BenchmarkRunError, ConfigError

__all__ = ["BACKINGS", "CACHE_MODES", "LINK_ROLES", "DiskSpec", "Guest", "GuestSpec", "PeerLink",
           "VmEnv", "boot", "boot_pair", "link_args"]

VIRTIOFSD = "/usr/lib/qemu/virtiofsd"
AGENT = str(Path(__file__).with_name("guest_agent.py"))
#: Disk backings of DESIGN §6.2 (Xen formats): a block volume (a loop device over a
#: preallocated file, as an LVM volume would be), a preallocated raw file, a sparse
#: raw file and a qcow2 file.
BACKINGS = ("volume", "prealloc", "sparse", "qcow2")
#: QEMU cache modes: ``none`` = O_DIRECT with the write cache on (guest sees a
#: write-back cache); ``directsync`` = O_DIRECT with the write cache off (every write
#: is synchronous). ``writeback``/``writethrough`` also go through the host page cache.
CACHE_MODES = ("none", "directsync", "writeback", "writethrough")
#: Ends of a guest ↔ guest link: the ``server`` QEMU creates the UNIX socket and
#: accepts one connection; the ``client`` QEMU connects to it.
LINK_ROLES = ("server", "client")
#: MAC addresses of the link NICs (locally administered QEMU range). They must
#: differ: QEMU would give the second NIC of both guests the same default MAC.
LINK_MACS = {"server": "52:54:00:77:00:01", "client": "52:54:00:77:00:02"}
LINK_SOCKET = "link.sock"


@dataclass(frozen=True)
class DiskSpec:
    """One virtio-blk disk: ``name`` (its serial), backing, QEMU cache mode, size [MiB]."""

    name: str
    backing: str = "prealloc"
    cache: str = "none"
    size_mib: int = 1024

    def __post_init__(self) -> None:
        check_param("backing", self.backing, OneOf(BACKINGS), "DiskSpec")
        check_param("cache", self.cache, OneOf(CACHE_MODES), "DiskSpec")
        check_param("size_mib", self.size_mib, Interval(int, 16, None), "DiskSpec")


@dataclass(frozen=True)
class PeerLink:
    """One end of a private guest ↔ guest Ethernet link (QEMU 7.2 ``-netdev stream``).

    ``role="server"`` creates ``link.sock`` in the guest's run directory
    (:attr:`Guest.link_socket`); ``role="client"`` connects to ``path``, the
    server guest's socket. ``mac`` is the link NIC's address, how the guest finds it.
    """

    role: str
    path: str = ""
    mac: str = ""

    def __post_init__(self) -> None:
        check_param("role", self.role, OneOf(LINK_ROLES), "PeerLink")
        if self.role == "client" and not self.path:
            raise ConfigError("PeerLink: a client end needs the server guest's socket path.")
        if not self.mac:
            object.__setattr__(self, "mac", LINK_MACS[self.role])


def link_args(link: PeerLink, socket_path: str | Path) -> list[str]:
    """QEMU arguments of the link NIC: a stream netdev on ``socket_path`` and a virtio-net device."""
    server = "on" if link.role == "server" else "off"
    return ["-netdev", f"stream,id=n1,server={server},addr.type=unix,addr.path={socket_path}",
            "-device", f"virtio-net-pci,netdev=n1,mac={link.mac}"]


@dataclass(frozen=True)
class GuestSpec:
    """A guest: vCPUs, memory [MiB], disks, host ports forwarded to it (loopback only)
    and, optionally, one end of a link to another guest."""

    name: str = "vm0"
    vcpus: int = 1
    memory_mib: int = 512
    disks: tuple[DiskSpec, ...] = ()
    forwards: tuple[tuple[int, int], ...] = ()  # (host port on 127.0.0.1, guest port)
    boot_timeout_s: float = 180.0
    link: PeerLink | None = None

    def __post_init__(self) -> None:
        check_param("vcpus", self.vcpus, Interval(int, 1, 64), "GuestSpec")
        check_param("memory_mib", self.memory_mib, Interval(int, 128, None), "GuestSpec")


def make_disk(path: Path, disk: DiskSpec, reaper: Reaper) -> tuple[str, str]:
    """Create the backing of ``disk`` at ``path``; return (file or device, QEMU format)."""
    size = disk.size_mib * 2**20
    if disk.backing == "qcow2":
        run_checked(reaper, ["qemu-img", "create", "-q", "-f", "qcow2", str(path), str(size)],
                    f"qemu-img create {path.name}")
        reaper.add_cleanup(f"remove {path}", lambda: path.unlink(missing_ok=True))
        return str(path), "qcow2"
    with path.open("wb") as fh:
        if disk.backing == "sparse":
            fh.truncate(size)
        else:
            os.posix_fallocate(fh.fileno(), 0, size)
    reaper.add_cleanup(f"remove {path}", lambda: path.unlink(missing_ok=True))
    if disk.backing != "volume":
        return str(path), "raw"
    dev = run_checked(reaper, ["losetup", "--find", "--show", "--direct-io=on", str(path)],
                      "losetup").strip()
    reaper.add_cleanup(f"detach {dev}",
                       lambda: subprocess.run(["losetup", "-d", dev], check=False))
    return dev, "raw"


@dataclass
class Guest:
    """A running QEMU guest; use as a context manager or call :meth:`stop`."""

    spec: GuestSpec
    image: GuestImage
    reaper: Reaper
    accelerator: str = "tcg"
    workdir: Path = field(default_factory=lambda: Path(tempfile.gettempdir()))
    boot_s: float = 0.0
    _sock: socket.socket | None = None
    _buf: bytes = b""
    _next: int = 0
    _procs: list[subprocess.Popen[Any]] = field(default_factory=list)
    _dir: Path | None = None

    def start(self) -> Guest:
        """Create disks, start virtiofsd and QEMU, wait for the agent's ready line."""
        t0 = time.monotonic()
        d = Path(tempfile.mkdtemp(prefix=f"vsizer-{self.spec.name}-", dir=self.workdir))
        self._dir = d
        self.reaper.add_cleanup(f"remove {d}", lambda: subprocess.run(["rm", "-rf", str(d)], check=False))
        vfs_sock, ctl_sock = d / "vfs.sock", d / "ctl.sock"
        vfs = self.reaper.popen(
            [VIRTIOFSD, f"--socket-path={vfs_sock}", "-o", "source=/", "-o", "cache=always",
             "-o", "sandbox=chroot"],
            stdout=subprocess.DEVNULL, stderr=(d / "virtiofsd.log").open("wb"),
        )
        self._procs.append(vfs)
        _wait_for(vfs_sock, 10, vfs, "virtiofsd")
        mem = self.spec.memory_mib
        accel = (["-accel", "kvm", "-cpu", "host"] if self.accelerator == "kvm"
                 else ["-accel", "tcg,thread=multi,tb-size=256", "-cpu", "max"])
        net = "user,id=n0,ipv6=off" + "".join(
            f",hostfwd=tcp:127.0.0.1:{h}-:{g}" for h, g in self.spec.forwards)
        argv = [
            "qemu-system-x86_64", *accel, "-smp", str(self.spec.vcpus), "-m", f"{mem}M",
            "-M", "q35", "-object", f"memory-backend-memfd,id=mem,size={mem}M,share=on",
            "-numa", "node,memdev=mem", "-kernel", str(self.image.kernel),
            "-initrd", str(boot_initrd(self.image, Path(AGENT), d / "initrd.cpio.gz")),
            "-append", "console=ttyS0 quiet pti=off panic=-1",
            "-chardev", f"socket,id=vfs,path={vfs_sock}",
            "-device", "vhost-user-fs-pci,chardev=vfs,tag=hostroot",
            "-netdev", net, "-device", "virtio-net-pci,netdev=n0",
            "-nographic", "-nodefaults", "-no-reboot",
            "-serial", f"file:{d / 'console.log'}",
            "-chardev", f"socket,id=ctl,path={ctl_sock},server=on,wait=off",
            "-serial", "chardev:ctl",
        ]
        link = self.spec.link
        if link is not None:
            argv += link_args(link, d / LINK_SOCKET if link.role == "server" else link.path)
        for disk in self.spec.disks:
            target, fmt = make_disk(d / f"{disk.name}.img", disk, self.reaper)
            aio = "native" if disk.cache in ("none", "directsync") else "threads"
            argv += ["-drive", f"file={target},format={fmt},if=none,id={disk.name},"
                     f"cache={disk.cache},aio={aio}",
                     "-device", f"virtio-blk-pci,drive={disk.name},serial={disk.name}"]
        qemu = self.reaper.popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                 stderr=(d / "qemu.log").open("wb"))
        self._procs.append(qemu)
        _wait_for(ctl_sock, 20, qemu, "qemu-system-x86_64")
        if link is not None and link.role == "server":
            _wait_for(d / LINK_SOCKET, 20, qemu, "qemu-system-x86_64")
        self._sock = _connect_unix(ctl_sock, 20, qemu, "qemu-system-x86_64")
        ready = self._receive("ready", self.spec.boot_timeout_s)
        self.boot_s = time.monotonic() - t0
        self.guest_uptime_s = float(ready.get("uptime_s", 0.0))
        return self

    # -- talking to the agent --------------------------------------------
    def _receive(self, event: str, timeout: float) -> dict[str, Any]:
        assert self._sock is not None
        deadline = time.monotonic() + timeout
        while True:
            while b"\n" in self._buf:
                line, self._buf = self._buf.split(b"\n", 1)
                try:
                    msg = json.loads(line.decode(errors="replace"))
                except ValueError:
                    continue  # noise on the port before the agent set it raw
                if isinstance(msg, dict) and msg.get("event") == event:
                    return msg
            left = deadline - time.monotonic()
            if left <= 0 or not self.alive():
                raise BenchmarkRunError(
                    f"guest {self.spec.name}: no '{event}' from the agent within {timeout:g} s"
                    f"{'' if self.alive() else ' (QEMU exited)'}; console: {self.console_tail()}"
                )
            self._sock.settimeout(min(left, 1.0))
            try:
                chunk = self._sock.recv(65536)
            except TimeoutError:
                continue
            if not chunk:
                raise BenchmarkRunError(f"guest {self.spec.name}: agent connection closed; console: {self.console_tail()}")
            self._buf += chunk

    def run(self, argv: list[str], timeout: float) -> RunResult:
        """Run ``argv`` in the guest; elapsed time is between the agent's start and done lines, on the host clock."""
        assert self._sock is not None
        self._next += 1
        msg = {"op": "run", "id": self._next, "argv": argv, "timeout": timeout}
        self._sock.sendall((json.dumps(msg) + "\n").encode())
        self._receive("start", 60)
        t0 = time.monotonic()
        self._receive("done", timeout + 30)
        elapsed = time.monotonic() - t0
        end = self._receive("end", 120)
        return RunResult(int(end["rc"]), end["stdout"], end["stderr"], elapsed)

    @property
    def link_socket(self) -> Path | None:
        """The UNIX socket a client guest connects to (server end of a link only)."""
        if self._dir is None or self.spec.link is None or self.spec.link.role != "server":
            return None
        return self._dir / LINK_SOCKET

    def alive(self) -> bool:
        return bool(self._procs) and self._procs[-1].poll() is None

    def console_tail(self, lines: int = 3) -> str:
        if self._dir is None:
            return ""
        try:
            text = (self._dir / "console.log").read_text(errors="replace")
        except OSError:
            return "(no console log)"
        return " | ".join(text.strip().splitlines()[-lines:]) or "(empty)"

    def live_pids(self) -> list[int]:
        return [p.pid for p in self._procs if p.poll() is None]

    def stop(self) -> None:
        """Ask the agent to exit (guest powers off), then end QEMU and virtiofsd."""
        if self._sock is not None:
            with contextlib.suppress(OSError):
                self._sock.sendall(b'{"op": "exit"}\n')
            # keep the socket open until QEMU exits: closing it may drop the unread line
            if self._procs:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self._procs[-1].wait(10)
            self._sock.close()
            self._sock = None
        for proc in reversed(self._procs):
            self.reaper.stop(proc)
        self._procs.clear()

    def __enter__(self) -> Guest:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _wait_for(path: Path, timeout: float, proc: subprocess.Popen[Any], what: str) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        if proc.poll() is not None:
            raise BenchmarkRunError(f"{what} exited with {proc.returncode} before creating {path.name}.")
        if time.monotonic() > deadline:
            raise BenchmarkRunError(f"{what} did not create {path.name} within {timeout:g} s.")
        time.sleep(0.02)


def _connect_unix(
    path: Path, timeout: float, proc: subprocess.Popen[Any], what: str
) -> socket.socket:
    """Connect to a UNIX socket that ``proc`` serves, retrying while it is not listening.

    QEMU creates the socket file (bind) a moment before it listens; a connect in
    between is refused. On a busy machine that moment is long enough to hit.
    """
    deadline = time.monotonic() + timeout
    while True:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(str(path))
            return sock
        except (ConnectionRefusedError, FileNotFoundError) as exc:
            sock.close()
            if proc.poll() is not None:
                raise BenchmarkRunError(
                    f"{what} exited with {proc.returncode} before accepting on {path.name}."
                ) from None
            if time.monotonic() > deadline:
                raise BenchmarkRunError(
                    f"{what} did not accept on {path.name} within {timeout:g} s ({exc.strerror})."
                ) from None
            time.sleep(0.05)


class VmEnv:
    """A QEMU guest as a benchmark environment (``name = "vm"``)."""

    name = "vm"
    scratch = "/tmp"

    def __init__(self, guest: Guest, accel_reason: str = "") -> None:
        self.guest = guest
        self.accel_reason = accel_reason
        #: The other guest of a :func:`boot_pair`, joined to this one by the link.
        self.peer: VmEnv | None = None

    def run(self, argv: list[str], timeout: float) -> RunResult:
        return self.guest.run(argv, timeout)

    def metadata(self) -> dict[str, Any]:
        spec = self.guest.spec
        return {
            **host_metadata(),
            "environment": "vm",
            "accelerator": self.guest.accelerator,
            "accelerator_reason": self.accel_reason,
            "emulated": self.guest.accelerator == "tcg",
            "hypervisor": f"qemu-{self.guest.accelerator}",
            "vcpus": spec.vcpus,
            "vm_memory_mib": spec.memory_mib,
            "guest_kernel": self.guest.image.kernel_version,
        }

    def live_pids(self) -> list[int]:
        return self.guest.live_pids() + (self.peer.live_pids() if self.peer else [])

    def forwarded(self, guest_port: int) -> int:
        """The 127.0.0.1 port on the host that reaches ``guest_port`` in the guest."""
        for host, guest in self.guest.spec.forwards:
            if guest == guest_port:
                return host
        raise BenchmarkRunError(f"guest {self.guest.spec.name}: port {guest_port} is not forwarded.")


def boot(spec: GuestSpec, image: GuestImage, reaper: Reaper, workdir: Path) -> VmEnv:
    """Start a guest with the accelerator this host supports; return it as an environment."""
    accel, why = host_accelerator()
    guest = Guest(spec, image, reaper, accel, workdir)
    reaper.add_cleanup(f"stop guest {spec.name}", guest.stop)
    guest.start()
    return VmEnv(guest, why)


def boot_pair(spec: GuestSpec, peer_spec: GuestSpec, image: GuestImage, reaper: Reaper,
              workdir: Path) -> VmEnv:
    """Boot ``spec`` and then ``peer_spec``, joined by a private link; return the first.

    The first guest is the link's server end, the peer its client end; the peer is
    :attr:`VmEnv.peer` of the returned environment. Both are owned by ``reaper``
    (the peer is stopped first). The link's addresses are the workload's business.
    """
    first = boot(replace(spec, link=PeerLink("server")), image, reaper, workdir)
    sock = first.guest.link_socket
    assert sock is not None
    first.peer = boot(replace(peer_spec, link=PeerLink("client", str(sock))), image, reaper, workdir)
    return first
