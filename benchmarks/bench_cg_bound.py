"""Benchmark: the configuration-LP (column generation) bound on small PlanetLab pools.

PlanetLab VMs in the CloudSim setting of benchmarks/cloudsim_planetlab.py (Beloglazov
and Buyya, Concurrency Computat.: Pract. Exper. 24(13), 2012, doi:10.1002/cpe.1867:
VM types of {2,500, 2,000, 1,000, 500} MIPS by blocks, hosts of 5,320 MIPS, CPU only,
ceiling 1.0, N+0). For the first 50, 100 and 200 VMs of each day it prints the
per-step bound (max over steps of the summed demand / capacity), the Martello-Toth L2
bound per step, the configuration-LP bound of :mod:`vsizer.placement.config_lp`
(Gilmore-Gomory column generation, Farley's bound; seeded with the plan's hosts,
floor = the per-step bound, target = the plan's hosts, run at every size here although
the plan runs it only up to ``config_lp.MAX_VMS`` VMs) with its status, iterations,
exact pricings and CPU seconds (``time.process_time``), and the default plan
(:func:`vsizer.placement.curve_sizing.size_pool_on_curves`, which includes that bound in
its lower bound when it is higher) with its CPU seconds.

``--host-mips`` sets smaller hosts (fewer VMs a host, where the configuration LP can
beat the per-step bound; a VM above one host is capped at it, which the CloudSim
setting never needs).

Run: ``python benchmarks/bench_cg_bound.py [--days N] [--sizes 50,100,200]
[--host-mips M]``;
``--smoke`` (CI): 50 VMs of one day. Skips (exit 0) when ../shared/data or scipy is
absent.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cloudsim_planetlab import DATA, HOST_MIPS, cloudsim_demand, problem_of  # noqa: E402

from vsizer.placement import config_lp  # noqa: E402
from vsizer.placement.curve_sizing import size_pool_on_curves  # noqa: E402
from vsizer.placement.series_fit import series_lower_bounds  # noqa: E402


def run(name: str, demand: np.ndarray, host_mips: float = HOST_MIPS) -> str:
    usable = np.array([host_mips])
    demand = np.minimum(demand, host_mips)  # a VM above one host is capped at it
    b = series_lower_bounds(demand, usable)
    p = dataclasses.replace(problem_of(demand), capacity=usable)
    t0 = time.process_time()
    sizing = size_pool_on_curves(p, demand)
    plan_s = time.process_time() - t0
    t0 = time.process_time()
    cg = config_lp.configuration_lp_bound(
        demand, usable, start=sizing.placement.assignment, floor=b["series"][0],
        target=sizing.n_hosts, max_vms=demand.shape[0],
    )
    cg_s = time.process_time() - t0
    return (f"| {name} | {demand.shape[0]} | {b['series'][0]} | {b['l2'][0]} | "
            f"{'—' if cg.bound is None else cg.bound} | {cg.farley:.3f} | {cg.lp:.3f} | "
            f"{cg.status} | {cg.iterations} | {cg.exact} | {cg_s:.1f} | "
            f"{sizing.n_hosts} | {sizing.lower_bound} | {plan_s:.1f} |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--days", type=int, default=None, help="only the first N days")
    ap.add_argument("--sizes", default="50,100,200", help="VMs of each day, comma-separated")
    ap.add_argument("--host-mips", type=float, default=HOST_MIPS,
                    help="host capacity [MIPS] (CloudSim: 5,320); smaller hosts hold "
                    "fewer VMs, VMs above one host capped at it")
    ap.add_argument("--smoke", action="store_true", help="CI size: 50 VMs of one day")
    args = ap.parse_args()
    root = DATA / "planetlab_cloudsim"
    if not root.is_dir():
        print(f"skip: {root} is absent")
        return 0
    if not config_lp.available():
        print("skip: scipy is not installed (pip install 'vsizer[fit]')")
        return 0
    days = sorted(p for p in root.iterdir() if p.is_dir())
    sizes = [50] if args.smoke else [int(s) for s in args.sizes.split(",")]
    print("| day[:VMs] | VMs | max_t sum/C | L2 | CG bound | Farley | master LP | status "
          "| iterations | exact pricings | CG CPU s | default plan | plan bound | "
          "plan CPU s |")
    print("|---" * 14 + "|")
    for folder in days[: 1 if args.smoke else args.days]:
        for n in sizes:
            print(run(f"{folder.name}[:{n}]", cloudsim_demand(folder, n), args.host_mips),
                  flush=True)
    print("configuration-LP bounds measured")
    return 0


if __name__ == "__main__":
    sys.exit(main())
