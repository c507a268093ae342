"""Benchmark environments: this host (``physical``) and QEMU guests (``vm``).

An environment runs a command and returns its output plus the elapsed time
measured **on the host** (DESIGN §8: clocks inside VMs are unreliable). The
accelerator is detected at run time: KVM only where ``/dev/kvm`` is real VT-x /
AMD-V (``vmx``/``svm`` in ``/proc/cpuinfo`` and no PVM module), TCG otherwise.
TCG results are emulation, not virtualization overhead: every sample from a TCG
guest carries ``accelerator="tcg"`` and ``emulated=True``.
"""

from __future__ import annotations

import os
import platform
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from vsizer.bench.prereq import tool_version
from vsizer.bench.procs import Reaper

__all__ = [
    "Environment",
    "PhysicalEnv",
    "RunResult",
    "detect_accelerator",
    "host_metadata",
]


@dataclass(frozen=True)
class RunResult:
    """Output of one command in an environment; ``elapsed_s`` is host time [s]."""

    returncode: int
    stdout: str
    stderr: str
    elapsed_s: float


class Environment(Protocol):
    """Where a workload runs. ``name`` is 'physical' or 'vm'."""

    name: str
    scratch: str

    def run(self, argv: list[str], timeout: float) -> RunResult:
        """Run ``argv`` and return its output and host-measured duration."""
        ...

    def metadata(self) -> dict[str, Any]:
        """Keys every sample from this environment carries."""
        ...

    def live_pids(self) -> list[int]:
        """Host pids whose CPU time is the environment's own (for foreign-load accounting)."""
        ...


def detect_accelerator(
    cpuinfo: str, kvm_device: bool, pvm_loaded: bool
) -> tuple[str, str]:
    """Choose QEMU's accelerator: ``("kvm", why)`` or ``("tcg", why)``.

    KVM needs all three: ``/dev/kvm`` openable, the ``vmx`` (Intel VT-x) or ``svm``
    (AMD-V) CPU flag, and no PVM (``kvm_pvm``; a PVM "KVM" cannot boot stock guest
    kernels, see notes/kvm-feasibility.md §1).
    """
    flags: set[str] = set()
    for line in cpuinfo.splitlines():
        if line.startswith("flags"):
            flags.update(line.split(":", 1)[1].split())
            break
    if not kvm_device:
        return "tcg", "/dev/kvm is absent or not accessible"
    if pvm_loaded:
        return "tcg", "/dev/kvm is PVM (kvm_pvm), which cannot run stock guest kernels"
    if not flags & {"vmx", "svm"}:
        return "tcg", "the CPU has no vmx/svm flag (no hardware virtualization)"
    return "kvm", "/dev/kvm with " + ("vmx" if "vmx" in flags else "svm")


def host_accelerator() -> tuple[str, str]:
    """:func:`detect_accelerator` on this machine."""
    kvm = os.access("/dev/kvm", os.R_OK | os.W_OK)
    pvm = Path("/sys/module/kvm_pvm").exists() or "kvm_pvm" in _read("/proc/modules")
    return detect_accelerator(_read("/proc/cpuinfo"), kvm, pvm)


def _read(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError:
        return ""


def cpu_model(cpuinfo: str) -> str:
    """The first 'model name' of ``/proc/cpuinfo``, or 'unknown'."""
    for line in cpuinfo.splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return "unknown"


_TOOLS = {
    "sysbench": ["sysbench", "--version"],
    "fio": ["fio", "--version"],
    "iperf3": ["iperf3", "--version"],
    "pgbench": ["pgbench", "--version"],
    "postgres": ["pg_config", "--version"],
    "nginx": ["nginx", "-v"],
    "qemu": ["qemu-system-x86_64", "--version"],
}
_host_cache: dict[str, Any] = {}


def host_metadata() -> dict[str, Any]:
    """CPU model, cores, memory, kernel, QEMU and tool versions of this host (cached)."""
    if not _host_cache:
        mem_kib = 0
        for line in _read("/proc/meminfo").splitlines():
            if line.startswith("MemTotal:"):
                mem_kib = int(line.split()[1])
        _host_cache.update(
            host_cpu_model=cpu_model(_read("/proc/cpuinfo")),
            host_cores=os.cpu_count() or 0,
            host_mem_gib=round(mem_kib / 2**20, 2),
            host_kernel=platform.release(),
            host_name=platform.node(),
            tool_versions={k: tool_version(v) for k, v in _TOOLS.items()},
        )
    return dict(_host_cache)


class PhysicalEnv:
    """This host. Commands run in their own process group under the reaper.

    Parameters
    ----------
    reaper : Reaper
        Owner of every process started.
    scratch : str
        A writable directory on a disk (not tmpfs: direct I/O needs a real file system);
        kept absolute, since servers resolve paths from their own prefix (nginx -p/-c).
    """

    name = "physical"

    def __init__(self, reaper: Reaper, scratch: str | Path) -> None:
        self.reaper = reaper
        self.scratch = str(Path(scratch).resolve())
        Path(self.scratch).mkdir(parents=True, exist_ok=True)

    def run(self, argv: list[str], timeout: float) -> RunResult:
        start = time.monotonic()
        done = self.reaper.run(argv, timeout=timeout)
        return RunResult(done.returncode, done.stdout, done.stderr, time.monotonic() - start)

    def metadata(self) -> dict[str, Any]:
        return {
            **host_metadata(),
            "environment": "physical",
            "accelerator": "none",
            "emulated": False,
            "hypervisor": "none",
            "vcpus": os.cpu_count() or 0,
        }

    def live_pids(self) -> list[int]:
        return self.reaper.live_pids()
