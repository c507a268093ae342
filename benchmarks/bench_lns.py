"""Benchmark: ``--solver cp-sat`` (large-neighbourhood search) against the heuristic at
fleet scale, on the coarse setting of issue 14.

Every VM of a PlanetLab day (CloudSim copy, 288 x 5-min CPU %, ../shared/data) is a
1,000 MHz VM; hosts have 8 x 1,000 MHz at ceiling 1.0, CPU only, N+0. For each day it
prints: VMs, hosts by the heuristic (first-fit decreasing on the curves), hosts with
``solver="cp-sat"``, the lower bound (max over steps of summed demand / capacity, or
the solver's proven bound), the solver's status and why it stopped, steps over the
ceiling in an independent replay of the curves, the wall time of the cp-sat
sizing against its ``time_limit``, and how far the overflow search at one host fewer
(``vsizer/placement/lns_overflow.py``) got: the target count it last tried and the
overflow left there, in MHz x 5-min steps of load above the hosts' 8,000 MHz (0 when it
reached the count).

Run: ``.venv/bin/python benchmarks/bench_lns.py [--days N] [--time-limit S] [--vms N]``.
Skips (exit 0) when ../shared/data is absent.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from vsizer.placement.curve_sizing import size_pool_on_curves
from vsizer.placement.problem import PlacementProblem
from vsizer.series.align import align
from vsizer.series.traces import read_planetlab

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "planetlab_cloudsim"
HOST_MHZ = 8 * 1000.0
VM_MHZ = 1000.0


def coarse_day(folder: Path, vms: int | None = None) -> np.ndarray:
    """CPU demand [MHz] of the day's VMs, shape (n_vms, 288, 1); the first ``vms`` only."""
    a = align(read_planetlab(folder).data, step="5min")
    cpu = np.nan_to_num(a.values["cpu_util"]) * VM_MHZ
    return cpu[:vms, :, None]


def coarse_problem(curves: np.ndarray) -> PlacementProblem:
    """The pool: CPU only, 8 x 1,000 MHz hosts at ceiling 1.0, no failures, no minimum."""
    n = curves.shape[0]
    one = np.ones(1)
    return PlacementProblem(
        "pl", tuple(f"vm{i}" for i in range(n)), ("cpu",), curves.max(axis=1),
        np.array([HOST_MHZ]), np.zeros(1), one, one, failures=0, min_hosts=1,
    )


def replay_violations(curves: np.ndarray, assign: np.ndarray, n_hosts: int) -> int:
    """Host-steps over capacity, recomputed from the curves (not the plan's counter)."""
    loads = np.zeros((n_hosts,) + curves.shape[1:])
    np.add.at(loads, assign, curves)
    return int((loads > HOST_MHZ * (1 + 1e-9)).any(axis=2).sum())


def run_day(folder: Path, time_limit: float, vms: int | None) -> dict:
    curves = coarse_day(folder, vms)
    problem = coarse_problem(curves)
    heuristic = size_pool_on_curves(problem, curves)
    t0 = time.perf_counter()
    exact = size_pool_on_curves(problem, curves, solver="cp-sat", time_limit=time_limit)
    seconds = time.perf_counter() - t0
    info = exact.solver or {}
    over = info.get("overflow") or {}
    pl = exact.placement
    return {
        "day": folder.name, "vms": curves.shape[0],
        "heuristic": heuristic.placement.n_hosts, "lns": pl.n_hosts,
        "bound": exact.lower_bound, "status": info.get("status"),
        "stopped_by": info.get("stopped_by"), "rounds": info.get("rounds"),
        "violations": replay_violations(curves, pl.assignment, pl.n_hosts),
        "seconds": seconds, "target": over.get("target"),
        "left_mhz": None if not over else over["left"] * HOST_MHZ,
    }


def _have_ortools() -> bool:
    try:
        import ortools  # noqa: F401
    except ImportError:
        return False
    return True


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--days", type=int, default=None, help="only the first N days")
    ap.add_argument("--time-limit", type=float, default=60.0,
                    help="wall-clock seconds of the cp-sat search per day (default 60)")
    ap.add_argument("--vms", type=int, default=None, help="only the first N VMs of a day")
    ap.add_argument("--smoke", action="store_true",
                    help="CI size: first day, first 200 VMs, 10 s")
    args = ap.parse_args()
    if args.smoke:
        args.days, args.vms, args.time_limit = 1, 200, 10.0
    if not _have_ortools():
        print("skip: OR-Tools is not installed (pip install 'vsizer[solver]')")
        return 0
    if not DATA.is_dir():
        print(f"skip: {DATA} is absent")
        return 0
    days = sorted(p for p in DATA.iterdir() if p.is_dir())[: args.days]
    print(f"time limit {args.time_limit:g} s per day (wall clock, model building included)")
    print()
    print("| PlanetLab day | VMs | hosts heuristic | hosts cp-sat (LNS) | bound | status | "
          "stopped by | rounds | replay violations | wall time | overflow target | "
          "overflow left [MHz x steps] |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for folder in days:
        r = run_day(folder, args.time_limit, args.vms)
        print(f"| {r['day']} | {r['vms']} | {r['heuristic']} | {r['lns']} | {r['bound']} | "
              f"{r['status']} | {r['stopped_by']} | {r['rounds']} | {r['violations']} | "
              f"{r['seconds']:.1f} s | {r['target'] if r['target'] else '-'} | "
              f"{'-' if r['left_mhz'] is None else format(r['left_mhz'], ',.0f')} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
