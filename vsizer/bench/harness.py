"""Run a suite: per environment, per workload — prerequisites, guest boot, cases, store.

Every case runs under the §8 method (:func:`~vsizer.bench.method.run_repeated`);
per-run samples and their trimmed-mean aggregates are appended to the JSONL store,
each carrying the environment's metadata (host CPU, cores, kernel, QEMU and tool
versions, accelerator, ``emulated``), the suite, the workload and a run id.
Everything runs inside one :class:`~vsizer.bench.procs.Reaper`: when a workload
fails, the next one runs after its processes are gone; on SIGINT/SIGTERM all is
torn down and :class:`~vsizer.bench.procs.Interrupted` propagates.
"""

from __future__ import annotations

import os
import shutil
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vsizer.bench.env import Environment, PhysicalEnv
from vsizer.bench.guestimage import prepare_guest_image
from vsizer.bench.method import aggregate, run_repeated
from vsizer.bench.prereq import ensure_packages
from vsizer.bench.procs import Interrupted, Reaper
from vsizer.bench.qemu import GuestSpec, boot, boot_pair
from vsizer.bench.samples import Sample, append_samples
from vsizer.bench.suite import Suite
from vsizer.bench.workloads import load
from vsizer.errors import BenchmarkRunError, ConfigError

__all__ = [
    "QEMU_PACKAGES",
    "RunSummary",
    "cache_dir",
    "claim_work_dir",
    "release_work_dir",
    "run_suite",
    "work_dir",
]

QEMU_PACKAGES = ("qemu-system-x86", "qemu-utils", "busybox-static", "lz4", "iproute2")
ENVS = ("physical", "vm", "both")

Progress = Callable[[str], None]


@dataclass
class RunSummary:
    """What a suite run did: run id, sample counts, failures (one line each)."""

    run_id: str
    store: Path
    samples: int = 0
    aggregates: list[Sample] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    seconds: float = 0.0


def cache_dir() -> Path:
    """Where guest kernels and initramfs are kept (``$XDG_CACHE_HOME/vsizer/bench``)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "vsizer" / "bench"


def work_dir(store: str | Path, workdir: str | Path | None = None) -> Path:
    """Scratch directory of a run: ``workdir`` or ``<store's folder>/work``, absolute
    (QEMU, virtiofsd and servers are handed these paths and resolve them elsewhere)."""
    return (Path(workdir) if workdir else Path(store).parent / "work").resolve()


#: File in a work directory naming the process that uses it (its pid).
OWNER_FILE = ".vsizer-owner"


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's live process
        return True
    return True


def claim_work_dir(work: Path, progress: Progress = lambda _msg: None) -> None:
    """Make ``work`` this run's scratch directory, removing it first if stale.

    A work directory records its owner's pid in :data:`OWNER_FILE`. One whose
    owner is gone (a run killed with SIGKILL, a power cut) is removed with
    everything in it; a directory without the file is not ours to remove and
    is only claimed.

    Raises
    ------
    BenchmarkRunError
        Another live process owns ``work``.
    """
    owner = work / OWNER_FILE
    try:
        pid = int(owner.read_text(encoding="ascii").strip())
    except (OSError, ValueError):
        pid = None
    if pid is not None and pid != os.getpid():
        if _pid_alive(pid):
            raise BenchmarkRunError(
                f"{work}: in use by a running benchmark (pid {pid}); wait for it to "
                "finish or give another --workdir / --store."
            )
        shutil.rmtree(work, ignore_errors=True)
        progress(f"removed stale work directory {work} (its run, pid {pid}, is gone)")
    work.mkdir(parents=True, exist_ok=True)
    owner.write_text(f"{os.getpid()}\n", encoding="ascii")


def release_work_dir(work: Path) -> None:
    """Remove ``work`` if this process owns it (end of a run, SIGTERM/SIGINT)."""
    try:
        pid = int((work / OWNER_FILE).read_text(encoding="ascii").strip())
    except (OSError, ValueError):
        return
    if pid == os.getpid():
        shutil.rmtree(work, ignore_errors=True)


def new_run_id() -> str:
    """A sortable unique run id: UTC time plus 6 random hex digits."""
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + "-" + uuid.uuid4().hex[:6]


def _envs(env: str) -> list[str]:
    if env not in ENVS:
        raise ConfigError(f"--env must be one of {', '.join(ENVS)}; got {env!r}.")
    return ["physical", "vm"] if env == "both" else [env]


def _run_workload(
    name: str, config: dict[str, Any], env: Environment, suite: Suite, run_id: str,
    reaper: Reaper, summary: RunSummary, progress: Progress,
) -> None:
    module = load(name)
    state = module.prepare(env, config, reaper)
    try:
        env_meta = env.metadata()
        for case in module.cases(config, env):
            progress(f"{env.name} {name} {case}")

            def measure(case: dict[str, Any] = case) -> list[Sample]:
                return list(module.run(env, case, config, state))

            raw = run_repeated(measure, suite.method, env.live_pids)
            raw = [s.with_metadata(**env_meta, **case, workload=name, suite=suite.name,
                                   run_id=run_id) for s in raw]
            agg = aggregate(raw, suite.method.trim, suite.method.rule)
            summary.samples += append_samples(summary.store, [*raw, *agg])
            summary.aggregates.extend(agg)
    finally:
        module.cleanup(env, state)


def run_suite(
    suite: Suite,
    env: str = "both",
    store: str | Path = "bench-results/samples.jsonl",
    workdir: str | Path | None = None,
    progress: Progress = lambda _msg: None,
    reaper: Reaper | None = None,
) -> RunSummary:
    """Run ``suite`` in the chosen environment(s); append samples to ``store``.

    A failing workload is recorded in ``failures`` and the run goes on with the
    next one; everything it started has been ended by then.
    """
    envs = _envs(env)
    summary = RunSummary(new_run_id(), Path(store))
    work = work_dir(store, workdir)
    t0 = time.monotonic()
    own = reaper is None
    r = reaper or Reaper()
    if own:
        r.__enter__()
    try:
        claim_work_dir(work, progress)
        r.add_cleanup(f"remove {work}", lambda: release_work_dir(work))
        image = None
        if "vm" in envs:
            progress("installing QEMU and preparing the guest kernel and initramfs")
            ensure_packages(QEMU_PACKAGES)
            image = prepare_guest_image(cache_dir())
        for env_name in envs:
            for name, config in suite.workloads.items():
                try:
                    load(name).check_prerequisites()
                    if env_name == "physical":
                        _run_workload(name, config, PhysicalEnv(r, work / "physical"), suite,
                                      summary.run_id, r, summary, progress)
                        continue
                    assert image is not None
                    module = load(name)
                    needs = module.guest_needs(config)
                    spec = GuestSpec(name=f"{name}-vm", vcpus=suite.vm["vcpus"],
                                     memory_mib=suite.vm["memory_mib"], **needs)
                    # optional hook: a second guest joined to the first by a private link
                    peer_hook = getattr(module, "peer_guest_needs", None)
                    peer_needs = peer_hook(config) if peer_hook else None
                    progress(f"booting {'two guests' if peer_needs is not None else 'a guest'} for {name}")
                    with Reaper() as inner:
                        if peer_needs is None:
                            venv = boot(spec, image, inner, work)
                        else:
                            peer = GuestSpec(name=f"{name}-peer", vcpus=suite.vm["vcpus"],
                                             memory_mib=suite.vm["memory_mib"], **peer_needs)
                            venv = boot_pair(spec, peer, image, inner, work)
                        _run_workload(name, config, venv, suite, summary.run_id, inner,
                                      summary, progress)
                except Interrupted:
                    raise
                except BenchmarkRunError as exc:
                    summary.failures.append(f"{env_name} {name}: {exc}")
                    progress(f"FAILED {env_name} {name}: {exc}")
    finally:
        if own:
            r.__exit__(None, None, None)
    summary.seconds = time.monotonic() - t0
    return summary
