"""Benchmark: pools too large for one process, sized in shards (issue 15, 3b).

Synthetic pools built from real curve shapes, so that peaks fall where real
ones do:

* **PlanetLab** (../shared/data/planetlab_cloudsim: 10 days x ~1,000 VMs,
  288 five-minute CPU % steps; CloudSim's copy of the CoMon trace) and
* **Bitbrains GWA-T-12 Rnd 2013-8** (../shared/data/bitbrains_rnd: 500 VMs,
  CPU % and memory used / provisioned every 5 min for a month; Shen, van Beek,
  Iosup, CCGrid 2015),

tiled with seeded shifts (a whole number of hours, as a VM in another time
zone) and scales: each VM gets 1, 2, 4 or 8 cores of 2,600 MHz and 4 GiB per
core, its CPU curve is one real day (PlanetLab) or one real day of a Bitbrains
VM, its memory follows the Bitbrains memory share of the same VM (PlanetLab:
70 % + 30 % x CPU). Hosts: 32 cores x 2,600 MHz, 512 GiB, ceiling 0.8, N+1,
failover limit 100 %.

Prints:
1. **Quality loss** on a 50,000-VM pool both paths solve: hosts of one process
   (``shard_vms = 0``) and of the sharded plan at 20,000 (the default) and
   5,000 VMs per shard, with the ratio and the lower bound.
2. **1,000,000 VMs x 288 steps** sharded (5,000 VMs per shard) on the local
   engine and on Ray/Dask when installed (``get_engine``; an engine that raises
   ConfigError is skipped): wall time per stage and peak RSS after each stage,
   measured in a child process (its own ``ru_maxrss``), and whether the engines
   give the same placement.

Run: ``python benchmarks/bench_shards.py [--quality-vms 50000] [--vms 1000000]
[--engines local ray dask] [--smoke]``. Skips (exit 0) when ../shared/data is
absent. Times are wall clock on a shared machine: the load (``uptime``) is printed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
PLANETLAB = DATA / "planetlab_cloudsim"
BITBRAINS = DATA / "bitbrains_rnd" / "2013-8"
DAY = 288
HOST_MHZ, HOST_GIB, CEILING = 32 * 2600.0, 512.0, 0.8


def planetlab_days() -> np.ndarray:
    """Every PlanetLab VM-day: CPU share (0-1), shape (n, 288), float32."""
    files = [f for d in sorted(p for p in PLANETLAB.iterdir() if p.is_dir())
             for f in sorted(d.iterdir()) if f.is_file()]
    return np.array([np.loadtxt(f) for f in files], dtype=np.float32) / 100.0


def bitbrains_month(limit: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Bitbrains VMs on a 5-min grid of 30 days: CPU share and memory share
    (used / provisioned), each (n, 8640) float32; a step without a sample takes
    the previous one."""
    files = sorted(BITBRAINS.glob("*.csv.gz"), key=lambda f: int(f.name.split(".")[0]))
    cpu, mem = [], []
    for f in files[:limit]:
        rows = pd.read_csv(f, sep=";", skipinitialspace=True, usecols=[0, 4, 5, 6],
                           compression="gzip").to_numpy(dtype=np.float64)
        rows = rows[np.argsort(rows[:, 0], kind="stable")]
        step = ((rows[:, 0] - rows[0, 0]) // 300).astype(np.int64)
        keep = step < 30 * DAY
        c, m = np.full(30 * DAY, np.nan), np.full(30 * DAY, np.nan)
        c[step[keep]] = rows[keep, 1] / 100.0
        m[step[keep]] = rows[keep, 3] / np.maximum(rows[keep, 2], 1.0)
        cpu.append(_ffill(c))
        mem.append(_ffill(m))
    return np.clip(np.array(cpu, np.float32), 0, 1), np.clip(np.array(mem, np.float32), 0, 1)


def _ffill(x: np.ndarray) -> np.ndarray:
    idx = np.where(np.isnan(x), 0, np.arange(x.size))
    np.maximum.accumulate(idx, out=idx)
    out = x[idx]
    return np.nan_to_num(out, nan=float(np.nanmean(x)) if np.isfinite(x).any() else 0.0)


class Shapes:
    """The real curve shapes synthetic VMs are drawn from."""

    def __init__(self, bitbrains_vms: int | None = None) -> None:
        self.pl = planetlab_days()
        self.bb_cpu, self.bb_mem = bitbrains_month(bitbrains_vms)

    def curves(self, n: int, steps: int, seed: int = 0) -> np.ndarray:
        """(n, steps, 2) float32: CPU [MHz] and memory [GiB] of ``n`` synthetic VMs."""
        out = np.empty((n, steps, 2), dtype=np.float32)
        for i in range(0, n, 50_000):
            m = min(50_000, n - i)
            out[i : i + m] = self._block(m, steps, seed * 1_000_003 + i)
        return out

    def _block(self, n: int, steps: int, seed: int) -> np.ndarray:
        cpu, mem, cores = self.parts(n, steps, seed)
        out = np.empty((n, steps, 2), dtype=np.float32)
        out[:, :, 0] = cpu * (cores * 2600.0)[:, None]
        out[:, :, 1] = mem * (cores * 4.0)[:, None]
        return out

    def parts(
        self, n: int, steps: int, seed: int
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """CPU share, memory share (n, steps) float32 and cores (n,) of ``n`` VMs."""
        rng = np.random.default_rng(seed)
        days = -(-steps // DAY)
        from_bb = rng.random(n) < 0.5
        cpu = np.empty((n, days * DAY), dtype=np.float32)
        vm_bb = rng.integers(0, len(self.bb_cpu), n)
        start = rng.integers(0, 30 - days + 1, n) * DAY
        for j in range(days):
            cpu[:, j * DAY : (j + 1) * DAY] = self.pl[rng.integers(0, len(self.pl), n)]
        rows = np.flatnonzero(from_bb)
        cols = start[rows, None] + np.arange(days * DAY)[None, :]
        cpu[rows] = self.bb_cpu[vm_bb[rows, None], cols]
        mem = 0.7 + 0.3 * cpu
        mem[rows] = self.bb_mem[vm_bb[rows, None], cols]
        shift = rng.integers(0, 24, n) * 12  # a whole number of hours
        cols = (np.arange(days * DAY)[None, :] + shift[:, None]) % (days * DAY)
        cpu = np.take_along_axis(cpu, cols, axis=1)[:, :steps]
        mem = np.take_along_axis(mem, cols, axis=1)[:, :steps]
        cores = rng.choice(np.array([1, 2, 4, 8], np.float32), n, p=[0.3, 0.35, 0.25, 0.1])
        return cpu, mem, cores


def problem(curves: np.ndarray, failures: int = 1):  # type: ignore[no-untyped-def]
    from vsizer.placement.problem import PlacementProblem

    n = curves.shape[0]
    return PlacementProblem(
        "pool", tuple(f"vm{i:07d}" for i in range(n)), ("cpu", "mem"),
        curves.max(axis=1).astype(np.float64), np.array([HOST_MHZ, HOST_GIB]),
        np.zeros(2), np.full(2, CEILING), np.ones(2), failures=failures, min_hosts=3,
    )


def rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class _Rules:
    """The curve rules of a plan (``vsizer.study.Rules`` has the same fields)."""

    def __init__(self, shard_vms: int) -> None:
        self.quantile, self.solver, self.time_limit = None, "heuristic", 30.0
        self.shard_vms = shard_vms
        self.bound_lp_vms = 100  # the default of --bound-lp-vms


def quality(shapes: Shapes, n: int, shard_sizes: list[int]) -> None:
    """One process vs sharded on the same pool: hosts, ratio, time."""
    from vsizer.placement.pool import size_pool_for

    curves = shapes.curves(n, DAY, seed=1)
    p = problem(curves)
    t = time.perf_counter()
    single = size_pool_for(p, curves, _Rules(0))
    t_single = time.perf_counter() - t
    print(f"quality, {n:,} VMs x {DAY} steps, N+1: one process {single.n_hosts} hosts "
          f"(lower bound {single.lower_bound}) in {t_single:.1f} s")
    print("| VMs per shard | shards | hosts | vs one process | lower bound | seconds |")
    print("|---:|---:|---:|---:|---:|---:|")
    print(f"| (one process) | 1 | {single.n_hosts} | 1.000 | {single.lower_bound} "
          f"| {t_single:.1f} |")
    for size in shard_sizes:
        t = time.perf_counter()
        s = size_pool_for(p, curves, _Rules(size))
        secs = time.perf_counter() - t
        assert s.solver is not None and "sharded" in s.solver
        print(f"| {size:,} | {s.solver['sharded']['shards']} | {s.n_hosts} | "
              f"{s.n_hosts / single.n_hosts:.3f} | {s.lower_bound} | {secs:.1f} |")
    print(f"quality loss measured (peak RSS {rss_mib():,.0f} MiB)")


def child(n: int, shard_vms: int, engine_name: str, workers: int, out: str, bb: int) -> int:
    """One sharded run in this (child) process: stage times and RSS as JSON."""
    from vsizer.engines import get_engine
    from vsizer.placement.shards import shard_count, size_sharded

    stages: list[dict[str, float | str]] = []

    def stage(name: str, seconds: float) -> None:
        stages.append({"stage": name, "seconds": seconds, "rss": rss_mib()})
        print(f"  [{engine_name}] {name}: {seconds:.1f} s, peak RSS {rss_mib():,.0f} MiB",
              flush=True)

    t0 = time.perf_counter()
    shapes = Shapes(bb or None)
    curves = shapes.curves(n, DAY, seed=2)
    del shapes
    stage("generate", time.perf_counter() - t0)
    p = problem(curves)
    with get_engine(engine_name, workers=workers if engine_name != "local" else None) as eng:
        s = size_sharded(p, curves, shard_count(n, shard_vms), engine=_Progress(eng),
                         on_stage=stage)
    digest = hashlib.sha256(s.assignment.astype(np.int64).tobytes()).hexdigest()[:16]
    doc = {"hosts": s.n_hosts, "lower_bound": s.lower_bound, "survives": s.survives,
           "sharded": s.solver["sharded"] if s.solver else None, "stages": stages,
           "digest": digest, "scenarios": s.failover.scenarios}
    Path(out).write_text(json.dumps(doc))
    return 0


class _Progress:
    """The engine, printing every tenth of the shards placed (local engine: as they
    go; others: when the map returns)."""

    def __init__(self, engine: Any) -> None:
        self.engine, self.name, self.workers = engine, engine.name, engine.workers

    def map(self, fn: Any, items: Any) -> list[Any]:
        t0, n = time.perf_counter(), len(items)

        def run(i: int) -> Any:
            out = fn(items[i])
            if (i + 1) % max(1, n // 10) == 0:
                print(f"    {i + 1}/{n} shards placed, {time.perf_counter() - t0:.0f} s",
                      flush=True)
            return out

        if self.name == "local":
            return [run(i) for i in range(n)]
        return list(self.engine.map(fn, items))

    def close(self) -> None:
        self.engine.close()


def million(n: int, shard_vms: int, engines: list[str], workers: int, bb: int) -> None:
    """The sharded run per engine, each in a child process (its peak RSS)."""
    from vsizer.engines import get_engine
    from vsizer.errors import ConfigError

    digests = {}
    for name in engines:
        if name != "local":
            try:
                get_engine(name, workers=workers).close()
            except ConfigError as exc:
                print(f"{name}: skipped ({exc})")
                continue
        out = f"/tmp/bench_shards_{os.getpid()}_{name}.json"
        t = time.perf_counter()
        subprocess.run([sys.executable, __file__, "--child", str(n), str(shard_vms), name,
                        str(workers), out, str(bb)], check=True)
        wall = time.perf_counter() - t
        child_rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        doc = json.loads(Path(out).read_text())
        Path(out).unlink()
        digests[name] = doc["digest"]
        print(f"{n:,} VMs x {DAY} steps on {name} ({workers if name != 'local' else 1} "
              f"worker(s)): {doc['hosts']:,} hosts (lower bound {doc['lower_bound']:,}, "
              f"+{doc['hosts'] / doc['lower_bound'] - 1:.1%}), N+1 survives: "
              f"{doc['survives']}, {doc['scenarios']:,} scenarios; {wall:.0f} s wall, "
              f"peak RSS of the child processes so far {child_rss:,.0f} MiB")
        print(f"  sharding: {doc['sharded']}")
        print("  | stage | seconds | peak RSS after [MiB] |")
        print("  |---|---:|---:|")
        for st in doc["stages"]:
            print(f"  | {st['stage']} | {st['seconds']:.1f} | {st['rss']:,.0f} |")
    if len(digests) > 1:
        same = len(set(digests.values())) == 1
        print(f"same placement on {', '.join(digests)}: {'yes' if same else 'NO'}")


#: Slot evaluations of the breakout stage at smoke size (CI checks that the script runs,
#: not the quality; the default budget takes minutes at 7,000 VMs).
SMOKE_WORK = 1_000_000_000


def smoke_budget() -> None:
    """The breakout stage on :data:`SMOKE_WORK` in this process."""
    from vsizer.placement import breakout_reduce

    breakout_reduce.WORK_BUDGET = SMOKE_WORK


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        n, shard_vms, name, workers, out, bb = sys.argv[2:8]
        if int(bb):  # smoke size
            smoke_budget()
        return child(int(n), int(shard_vms), name, int(workers), out, int(bb))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quality-vms", type=int, default=50_000)
    ap.add_argument("--shard-sizes", type=int, nargs="+", default=[20_000, 5_000])
    ap.add_argument("--vms", type=int, default=1_000_000)
    ap.add_argument("--shard-vms", type=int, default=5_000)
    ap.add_argument("--engines", nargs="+", default=["local", "ray", "dask"])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--skip-quality", action="store_true")
    ap.add_argument("--skip-million", action="store_true")
    ap.add_argument("--smoke", action="store_true",
                    help="CI size: 7,000 VMs in shards of 3,500")
    args = ap.parse_args()
    if not (PLANETLAB.is_dir() and BITBRAINS.is_dir()):
        print(f"skip: {PLANETLAB} or {BITBRAINS} is absent")
        return 0
    if args.smoke:
        smoke_budget()
        args.quality_vms, args.shard_sizes = 7_000, [3_500]
        args.vms, args.shard_vms, args.engines = 7_000, 3_500, ["local"]
    print(f"load: {os.getloadavg()[0]:.2f} (1 min), cores: {os.cpu_count()}")
    if not args.skip_quality:
        quality(Shapes(20 if args.smoke else None), args.quality_vms, args.shard_sizes)
    if not args.skip_million:
        million(args.vms, args.shard_vms, args.engines, args.workers, 20 if args.smoke else 0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
