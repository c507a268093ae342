"""Benchmark: the default plan on demand curves at fleet size (1,000 / 5,000 / 20,000
VMs x 288 steps, N+1).

The pools are the synthetic ones of ``benchmarks/bench_shards.py`` (real PlanetLab and
Bitbrains curve shapes, seeded shifts and sizes; hosts 32 cores x 2,600 MHz, 512 GiB,
ceiling 0.8, N+1, failover limit 100 %), sized in one process by
:func:`vsizer.placement.curve_sizing.size_pool_on_curves` with its default options.
Each size runs in a child process, which prints: hosts, the lower bound, their ratio,
naive time-series first-fit decreasing (+1 spare, not checked), the strategy that
won, CPU seconds (``time.process_time``) and peak RSS (``ru_maxrss``, the child's).

Run: ``python benchmarks/bench_curve_fleet.py [--sizes 1000,5000,20000]``; ``--smoke``:
300 VMs drawn from 20 Bitbrains VMs (CI). Skips (exit 0) when ../shared/data is absent.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_shards import DAY, PLANETLAB, Shapes, problem  # noqa: E402


def child(n: int, bb: int | None) -> dict[str, object]:
    import numpy as np

    from vsizer.placement.curve_sizing import size_pool_on_curves
    from vsizer.placement.series_fit import first_fit_series

    curves = Shapes(bb).curves(n, DAY, seed=1)
    p = problem(curves)
    t0 = time.process_time()
    sizing = size_pool_on_curves(p, curves)
    cpu_s = time.process_time() - t0
    naive = first_fit_series(curves, p.capacity * p.limit)[1] + p.failures
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    pl = sizing.placement
    return {"vms": n, "hosts": pl.n_hosts, "bound": sizing.lower_bound, "naive": naive,
            "strategy": pl.strategy, "survives": bool(sizing.failover.survives),
            "cpu_s": cpu_s, "rss_mib": rss, "steps": int(np.asarray(curves).shape[1])}


def run_child(n: int, smoke: bool) -> dict[str, object]:
    extra = ["--smoke"] if smoke else []
    out = subprocess.run([sys.executable, __file__, "--child", str(n), *extra], check=True,
                         capture_output=True, text=True, env=os.environ.copy())
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,5000,20000", help="VMs per run")
    ap.add_argument("--smoke", action="store_true", help="300 VMs (CI)")
    ap.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if not PLANETLAB.is_dir():
        print(f"skip: {PLANETLAB} is absent")
        return 0
    if args.child:
        print(json.dumps(child(args.child, 20 if args.smoke else None)))
        return 0
    sizes = [300] if args.smoke else [int(s) for s in args.sizes.split(",")]
    print("| VMs x steps | N+k | hosts | bound | ratio | naive TS-FFD | strategy | "
          "survives | CPU s | peak RSS |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for n in sizes:
        r = run_child(n, args.smoke)
        print(f"| {n:,} x {r['steps']} | N+1 | {r['hosts']} | {r['bound']} | "
              f"{int(r['hosts']) / max(int(r['bound']), 1):.3f} | {r['naive']} | "
              f"{r['strategy']} | {'yes' if r['survives'] else 'NO'} | "
              f"{float(r['cpu_s']):.1f} | {float(r['rss_mib']):,.0f} MiB |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
