"""Database workload: pgbench TPC-B-like and select-only against a private PostgreSQL.

DESIGN §8: pgbench TPC-B-like and select-only; scale 20 (about 2,000,000 rows,
300 MB) and 20 clients by default. The harness creates its own cluster (initdb,
trust authentication) in scratch space with Debian's PostgreSQL, on a free port
of 127.0.0.1 (physical) or in the guest on an ext4 file system on its own virtio
disk (VM), and removes it afterwards. On the host the cluster lives in
``/var/tmp/vsizer-pg-*`` so the postgres user can reach it wherever the store is.
pgbench always runs on the host (load from outside the VM) over TCP, through
QEMU's loopback port forward for a guest.
"""

from __future__ import annotations

import glob
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from vsizer.bench.env import Environment
from vsizer.bench.prereq import ensure_packages
from vsizer.bench.procs import Reaper, run_checked
from vsizer.bench.qemu import DiskSpec
from vsizer.bench.samples import Sample
from vsizer.bench.workloads.network import free_port
from vsizer.errors import BenchmarkRunError

NAME = "database"
PACKAGES = ("postgresql", "postgresql-contrib", "e2fsprogs")
DEFAULT_CONFIG: dict[str, Any] = {
    "modes": ["tpcb", "select"],
    "scale": 20,
    "clients": 20,
    "time_s": 60,
    # > 0: each client runs this many transactions (pgbench -t, the method's
    # "-t 1000" / "-t 3000") instead of running for time_s seconds (-T)
    "transactions": 0,
}
GUEST_PORT = 5432
GUEST_DIR = "/tmp/pgdata"

_NUM = r"([0-9]+(?:\.[0-9]+)?)"
_PATTERNS = {
    "tps": re.compile(r"^tps = " + _NUM + r" \(without initial connection time\)", re.M),
    "latency_avg_ms": re.compile(r"^latency average = " + _NUM + r" ms", re.M),
    "transactions": re.compile(r"^number of transactions actually processed: " + _NUM, re.M),
    "failed_transactions": re.compile(r"^number of failed transactions: " + _NUM, re.M),
}
_UNITS = {"tps": "transactions/s", "latency_avg_ms": "ms", "transactions": "transactions",
          "failed_transactions": "transactions"}
_TYPE = re.compile(r"^transaction type: (.+)$", re.M)


def check_prerequisites() -> None:
    """Install PostgreSQL (server, pgbench) and e2fsprogs when missing."""
    ensure_packages(PACKAGES)


def guest_needs(config: dict[str, Any]) -> dict[str, Any]:
    """A data disk and a loopback port forwarded to the guest's PostgreSQL."""
    size = max(1024, int(config["scale"]) * 40)
    return {"disks": (DiskSpec("pgdata", "prealloc", "none", size),),
            "forwards": ((free_port(), GUEST_PORT),)}


def _parse_output(text: str) -> list[Sample]:
    """Samples from pgbench's report (stdout).

    Raises
    ------
    BenchmarkRunError
        No ``tps = ... (without initial connection time)`` line, or no transaction count.
    """
    found = {k: float(m.group(1)) for k, p in _PATTERNS.items() if (m := p.search(text))}
    for key in ("tps", "transactions"):
        if key not in found:
            raise BenchmarkRunError(
                f"pgbench output: no '{_PATTERNS[key].pattern.split(' ' + _NUM)[0].lstrip('^')}' "
                "line; the run did not complete."
            )
    kind = _TYPE.search(text)
    meta = {"transaction_type": kind.group(1).strip() if kind else "unknown"}
    return [Sample(k, v, _UNITS[k], meta) for k, v in found.items()]


def cases(config: dict[str, Any], env: Environment) -> list[dict[str, Any]]:
    """One case per mode (``tpcb``, ``select``)."""
    bad = [m for m in config["modes"] if m not in ("tpcb", "select")]
    if bad:
        raise BenchmarkRunError(f"database workload: unknown mode(s) {bad}; expected tpcb, select.")
    return [{"mode": m, "scale": int(config["scale"]), "clients": int(config["clients"])}
            for m in config["modes"]]


def _bindir() -> str:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not found:
        raise BenchmarkRunError("PostgreSQL initdb not found under /usr/lib/postgresql/*/bin.")
    return str(Path(found[-1]).parent)


def _wait_ready(reaper: Reaper, port: int, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done = reaper.run(["pg_isready", "-q", "-h", "127.0.0.1", "-p", str(port)], timeout=30)
        if done.returncode == 0:
            return
        time.sleep(0.5)
    raise BenchmarkRunError(f"PostgreSQL on 127.0.0.1:{port} not ready within {timeout:g} s.")


def _prepare_physical(env: Environment, config: dict[str, Any], reaper: Reaper) -> dict[str, Any]:
    bindir = _bindir()
    # on disk (not tmpfs), and reachable by the postgres user whatever the store's path
    root = Path(tempfile.mkdtemp(prefix="vsizer-pg-", dir="/var/tmp"))
    reaper.add_cleanup(f"remove {root}", lambda: shutil.rmtree(root, ignore_errors=True))
    shutil.chown(root, "postgres")
    as_pg = ["runuser", "-u", "postgres", "--"]
    run_checked(reaper, [*as_pg, f"{bindir}/initdb", "-D", str(root / "data"), "-A", "trust",
                         "-U", "postgres"], "initdb", timeout=300)
    port = free_port()
    reaper.popen([*as_pg, f"{bindir}/postgres", "-D", str(root / "data"), "-p", str(port),
                  "-k", str(root), "-c", "listen_addresses=127.0.0.1"],
                 stdout=subprocess.DEVNULL, stderr=(root / "postgres.log").open("wb"))
    _wait_ready(reaper, port)
    run_checked(reaper, ["pgbench", "-i", "-q", "-s", str(int(config["scale"])), "-h", "127.0.0.1",
                         "-p", str(port), "-U", "postgres", "postgres"], "pgbench -i", timeout=1800)
    return {"port": port, "reaper": reaper, "data_fs": "host file system"}


def _prepare_vm(env: Environment, config: dict[str, Any], reaper: Reaper) -> dict[str, Any]:
    bindir = _bindir()
    d = GUEST_DIR
    script = f"""set -e
dev=$(for b in /sys/block/vd*; do [ "$(cat $b/serial)" = pgdata ] && echo /dev/${{b##*/}}; done)
mkfs.ext4 -q -F $dev
mkdir -p {d} && mount $dev {d} && chown postgres {d}
runuser -u postgres -- {bindir}/initdb -D {d}/data -A trust -U postgres >/dev/null
echo "host all all 0.0.0.0/0 trust" >> {d}/data/pg_hba.conf
runuser -u postgres -- {bindir}/pg_ctl -D {d}/data -l {d}/log -w -t 300 \
  -o "-c listen_addresses=* -p {GUEST_PORT} -k {d}" start >/dev/null
pgbench -i -q -s {int(config['scale'])} -h {d} -p {GUEST_PORT} -U postgres postgres
"""
    res = env.run(["sh", "-c", script], timeout=3600)
    if res.returncode != 0:
        raise BenchmarkRunError(f"PostgreSQL setup in the guest failed: {res.stderr.strip()[-300:]}")
    port = env.forwarded(GUEST_PORT)  # type: ignore[attr-defined]
    _wait_ready(reaper, port)
    return {"port": port, "reaper": reaper, "data_fs": "ext4 on a virtio disk (prealloc, cache=none)"}


def prepare(env: Environment, config: dict[str, Any], reaper: Reaper) -> dict[str, Any]:
    """Create and start the cluster, then ``pgbench -i -s scale``."""
    if env.name == "physical":
        return _prepare_physical(env, config, reaper)
    return _prepare_vm(env, config, reaper)


def run(
    env: Environment, case: dict[str, Any], config: dict[str, Any], state: dict[str, Any]
) -> list[Sample]:
    """One pgbench run from the host; ``tps_host`` = transactions / host-timed duration."""
    t = int(config["time_s"])
    argv = pgbench_argv(int(state["port"]), case, config)
    count = int(config.get("transactions") or 0)
    start = time.monotonic()
    done = state["reaper"].run(argv, timeout=t + 300 if count <= 0 else 6 * 3600)
    elapsed = time.monotonic() - start
    if done.returncode != 0 and "tps =" not in done.stdout:
        raise BenchmarkRunError(f"pgbench exited with {done.returncode}: {done.stderr.strip()[-200:]}")
    samples = _parse_output(done.stdout)
    tx = next(s.value for s in samples if s.metric == "transactions")
    now = time.time()
    meta = ({"time_s": t} if count <= 0 else {"transactions_per_client": count})
    meta["data_fs"] = state["data_fs"]
    return [Sample(s.metric, s.value, s.unit, {**s.metadata, **meta}, now)
            for s in [*samples, Sample("tps_host", tx / elapsed, "transactions/s"),
                      Sample("elapsed_s", elapsed, "s")]]


def pgbench_argv(port: int, case: dict[str, Any], config: dict[str, Any]) -> list[str]:
    """pgbench's arguments: ``-T time_s``, or ``-t transactions`` per client when set.

    >>> pgbench_argv(5432, {"clients": 20, "mode": "tpcb"}, {"time_s": 60, "transactions": 1000})[-3:]
    ['-t', '1000', 'postgres']
    """
    jobs = max(1, min(int(case["clients"]), 2))
    count = int(config.get("transactions") or 0)
    run_for = ["-t", str(count)] if count > 0 else ["-T", str(int(config["time_s"]))]
    argv = ["pgbench", "-h", "127.0.0.1", "-p", str(port), "-U", "postgres",
            "-c", str(case["clients"]), "-j", str(jobs), *run_for, "postgres"]
    if case["mode"] == "select":
        argv[-1:-1] = ["-S"]
    return argv


def cleanup(env: Environment, state: dict[str, Any]) -> None:
    """The server and its files go with the reaper's teardown (the guest's with the guest)."""
