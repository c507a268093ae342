"""Disk workload: fio with the access specifications of DESIGN §6.2.

Access specifications (the Hyper-V disk study of §6.2): sequential 64 KB, 100 %
write then 100 % read; database, 8 KB random, 67 % read; file server, 64 KB random,
67 % read. Queue depths 1, 2, 4, 8, 16, 32; direct I/O (libaio).

Backings (§6.2, Xen formats): ``volume`` (a loop device with direct I/O over a
preallocated file, standing in for an LVM volume), ``prealloc`` (preallocated raw
file), ``sparse`` (sparse raw file, recreated before every physical run), ``qcow2``
(guests only). Write cache: in a guest, ``on`` = QEMU ``cache=none`` (O_DIRECT, the
guest sees a write-back cache) and ``off`` = ``cache=directsync`` (every write
synchronous); on the host, ``on`` = O_DIRECT and ``off`` = O_DIRECT + O_SYNC.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

from vsizer.bench.env import Environment
from vsizer.bench.prereq import ensure_packages
from vsizer.bench.procs import Reaper, run_checked
from vsizer.bench.qemu import DiskSpec
from vsizer.bench.samples import Sample
from vsizer.errors import BenchmarkRunError

NAME = "disk"
PACKAGES = ("fio", "util-linux")
#: DESIGN §6.2 access specifications: (fio rw, block size, read percentage).
ACCESS_SPECS: dict[str, tuple[str, str, int]] = {
    "seq_write": ("write", "64k", 0),
    "seq_read": ("read", "64k", 100),
    "database": ("randrw", "8k", 67),
    "fileserver": ("randrw", "64k", 67),
}
DEFAULT_CONFIG: dict[str, Any] = {
    "specs": list(ACCESS_SPECS),
    "queue_depths": [1, 2, 4, 8, 16, 32],
    "backings": ["volume", "prealloc", "sparse", "qcow2"],
    "write_cache": ["on", "off"],
    "size_mib": 1024,
    "time_s": 10,
}
_QEMU_CACHE = {"on": "none", "off": "directsync"}


def check_prerequisites() -> None:
    """Install fio (and losetup) when missing."""
    ensure_packages(PACKAGES)


def _disk_name(backing: str, cache: str) -> str:
    return f"{backing}-{cache}"


def guest_needs(config: dict[str, Any]) -> dict[str, Any]:
    """One virtio disk per backing and write-cache setting."""
    return {
        "disks": tuple(
            DiskSpec(_disk_name(b, c), b, _QEMU_CACHE[c], int(config["size_mib"]))
            for b in config["backings"] for c in config["write_cache"]
        )
    }


def _mib(value: float) -> float:
    return value / 1e6


def _parse_output(text: str) -> list[Sample]:
    """Samples from ``fio --output-format=json`` output (one job).

    Per direction with I/O: ``<dir>_iops`` [IO/s], ``<dir>_mb_s`` [MB/s, 10^6 B],
    ``<dir>_lat_mean_ms`` and ``<dir>_lat_p99_ms`` (completion latency [ms]); plus
    ``iops`` and ``mb_s`` summed over directions.

    Raises
    ------
    BenchmarkRunError
        Not fio JSON, no job, a job error, or missing fields.
    """
    start = text.find("{")
    try:
        doc = json.loads(text[start:]) if start >= 0 else None
    except json.JSONDecodeError as exc:
        raise BenchmarkRunError(f"fio output: not valid JSON ({exc.msg} at line {exc.lineno}).") from None
    if not isinstance(doc, dict) or "fio version" not in doc:
        raise BenchmarkRunError("fio output: no 'fio version' key; not fio --output-format=json output.")
    jobs = doc.get("jobs")
    if not isinstance(jobs, list) or not jobs:
        raise BenchmarkRunError("fio output: no 'jobs' entry.")
    job = jobs[0]
    if job.get("error", 0):
        raise BenchmarkRunError(f"fio output: job '{job.get('jobname')}' reported error {job['error']}.")
    meta = {"fio_version": doc["fio version"]}
    samples: list[Sample] = []
    total_iops = total_mb = 0.0
    try:
        for direction in ("read", "write"):
            d = job[direction]
            if not d["io_bytes"]:
                continue
            clat = d["clat_ns"]
            p99 = clat.get("percentile", {}).get("99.000000")
            iops, mb = float(d["iops"]), _mib(float(d["bw_bytes"]))
            total_iops += iops
            total_mb += mb
            samples += [
                Sample(f"{direction}_iops", iops, "IO/s", meta),
                Sample(f"{direction}_mb_s", mb, "MB/s", meta),
                Sample(f"{direction}_lat_mean_ms", float(clat["mean"]) / 1e6, "ms", meta),
            ]
            if p99 is not None:
                samples.append(Sample(f"{direction}_lat_p99_ms", float(p99) / 1e6, "ms", meta))
    except (KeyError, TypeError, ValueError) as exc:
        raise BenchmarkRunError(f"fio output: job field {exc} missing or not a number.") from None
    if not samples:
        raise BenchmarkRunError("fio output: the job did no I/O (read and write io_bytes are 0).")
    samples += [Sample("iops", total_iops, "IO/s", meta), Sample("mb_s", total_mb, "MB/s", meta)]
    return samples


def cases(config: dict[str, Any], env: Environment) -> list[dict[str, Any]]:
    """Backing x write cache x access spec x queue depth (qcow2 only in guests)."""
    out = []
    for backing in config["backings"]:
        if backing == "qcow2" and env.name == "physical":
            continue
        for cache in config["write_cache"]:
            for spec in config["specs"]:
                for qd in config["queue_depths"]:
                    out.append({"backing": backing, "write_cache": cache,
                                "access_spec": spec, "queue_depth": int(qd)})
    return out


def prepare(env: Environment, config: dict[str, Any], reaper: Reaper) -> dict[str, Any]:
    """Find each target: guest disks by serial; host files and loop devices created here."""
    targets: dict[str, str] = {}
    state: dict[str, Any] = {"targets": targets, "files": []}
    if env.name == "vm":
        res = env.run(["sh", "-c", "for d in /sys/block/vd*; do echo ${d##*/} $(cat $d/serial); done"], 30)
        for line in res.stdout.splitlines():
            parts = line.split()
            if len(parts) == 2:
                targets[parts[1]] = f"/dev/{parts[0]}"
        return state
    size = int(config["size_mib"]) * 2**20
    scratch = Path(env.scratch)
    for backing in config["backings"]:
        if backing == "qcow2":
            continue
        path = scratch / f"fio-{backing}.img"
        state["files"].append(str(path))
        reaper.add_cleanup(f"remove {path}", functools.partial(path.unlink, missing_ok=True))
        with path.open("wb") as fh:
            if backing == "sparse":
                fh.truncate(size)
            else:
                os.posix_fallocate(fh.fileno(), 0, size)
        target = str(path)
        if backing == "volume":
            target = run_checked(reaper, ["losetup", "--find", "--show", "--direct-io=on",
                                          str(path)], "losetup").strip()
            reaper.add_cleanup(f"detach {target}", functools.partial(
                subprocess.run, ["losetup", "-d", target], check=False))
        for cache in config["write_cache"]:
            targets[_disk_name(backing, cache)] = target
    return state


def run(
    env: Environment, case: dict[str, Any], config: dict[str, Any], state: dict[str, Any]
) -> list[Sample]:
    """One fio run of one case."""
    name = _disk_name(case["backing"], case["write_cache"])
    target = state["targets"].get(name)
    if target is None:
        raise BenchmarkRunError(f"disk workload: no target for {name} in the {env.name} environment.")
    if env.name == "physical" and case["backing"] == "sparse":
        with open(target, "r+b") as fh:  # a fresh sparse file for every run
            fh.truncate(0)
            fh.truncate(int(config["size_mib"]) * 2**20)
    rw, bs, read_pct = ACCESS_SPECS[case["access_spec"]]
    t = int(config["time_s"])
    argv = ["fio", f"--name={case['access_spec']}", f"--filename={target}",
            f"--size={int(config['size_mib'])}M", "--ioengine=libaio", "--direct=1",
            f"--rw={rw}", f"--bs={bs}", f"--iodepth={case['queue_depth']}",
            f"--runtime={t}", "--time_based", "--output-format=json"]
    if rw == "randrw":
        argv.append(f"--rwmixread={read_pct}")
    if env.name == "physical" and case["write_cache"] == "off":
        argv.append("--sync=1")
    res = env.run(argv, timeout=t + 120)
    if res.returncode != 0:
        raise BenchmarkRunError(f"fio exited with {res.returncode}: {res.stderr.strip()[:200]}")
    now = time.time()
    meta = {**case, "time_s": t, "size_mib": int(config["size_mib"]),
            "qemu_cache": _QEMU_CACHE[case["write_cache"]] if env.name == "vm" else None}
    return [Sample(s.metric, s.value, s.unit, {**s.metadata, **meta}, now)
            for s in [*_parse_output(res.stdout), Sample("elapsed_s", res.elapsed_s, "s")]]


def cleanup(env: Environment, state: dict[str, Any]) -> None:
    """Host files and loop devices are removed by the reaper's cleanups."""
