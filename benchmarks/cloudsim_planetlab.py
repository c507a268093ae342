"""Benchmark: the default plan on the PlanetLab days in the CloudSim setting.

The setting of A. Beloglazov and R. Buyya, "Optimal online deterministic algorithms
and adaptive heuristics for energy and performance efficient dynamic consolidation of
virtual machines in Cloud data centers," Concurrency Computat.: Pract. Exper., vol. 24,
no. 13, pp. 1397-1420, 2012, doi:10.1002/cpe.1867, as CloudSim 4.0 builds it
(``PlanetLabHelper.createCloudletListPlanetLab``, ``Constants``): VM ``i`` of ``n`` is
of type ``i // ceil(n / 4)`` with {2,500, 2,000, 1,000, 500} MIPS, its demand at each
5-min step is its CPU utilization [%] x its MIPS; hosts are HP ProLiant ML110 G5,
2 cores x 2,660 MIPS = 5,320 MIPS. CPU only, ceiling 1.0, no failover (N+0), no
minimum host count.

Per day (../shared/data/planetlab_cloudsim, one 288-sample file per VM) it prints:
VMs; the lower bound (max over steps of the summed demand / capacity, and the
Martello-Toth L2 bound per step; the bound is the larger); naive time-series
first-fit decreasing (:func:`vsizer.placement.series_fit.first_fit_series`); the
default plan (:func:`vsizer.placement.curve_sizing.size_pool_on_curves` with its
default options) with its ratio to the bound, the issue's target
(floor(1.05 x bound) + 1), its CPU seconds (``time.process_time``) and replay
violations (host-steps over capacity, re-summed here from the VM curves); with
``--cp-sat``, the plan with ``solver="cp-sat"`` at ``--time-limit`` 60 s as well.

Run: ``python benchmarks/cloudsim_planetlab.py [--days N] [--cp-sat] [--root DIR]``
(``--root``: another folder of day folders, such as the three CloudSim days not in
../shared/data); ``--smoke``
(CI): the first 150 VMs of one day. Skips (exit 0) when ../shared/data is absent.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

from vsizer.placement.curve_sizing import size_pool_on_curves
from vsizer.placement.problem import PlacementProblem
from vsizer.placement.series_fit import first_fit_series, series_lower_bounds
from vsizer.series.align import align
from vsizer.series.traces import read_planetlab

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
#: CloudSim Constants.VM_MIPS (VM_TYPES = 4 blocks of VMs).
VM_MIPS = (2500.0, 2000.0, 1000.0, 500.0)
#: HP ProLiant ML110 G5: 2 cores x 2,660 MIPS (CloudSim Constants.HOST_MIPS/HOST_PES).
HOST_MIPS = 2 * 2660.0


def cloudsim_demand(folder: Path, vms: int | None = None) -> np.ndarray:
    """(n, 288, 1) demand [MIPS]: utilization x the VM type's MIPS, CloudSim's blocks."""
    a = align(read_planetlab(folder).data, step="5min")
    util = np.nan_to_num(a.values["cpu_util"])[:vms]
    n = util.shape[0]
    block = math.ceil(n / len(VM_MIPS))
    mips = np.array([VM_MIPS[i // block] for i in range(n)])
    return (util * mips[:, None])[:, :, None]


def problem_of(demand: np.ndarray) -> PlacementProblem:
    return PlacementProblem(
        pool="cloudsim", vm_names=tuple(f"v{i}" for i in range(demand.shape[0])),
        dims=("cpu",), demand=demand.max(axis=1), capacity=np.array([HOST_MIPS]),
        base_load=np.zeros(1), limit=np.ones(1), failover_limit=np.ones(1),
        failures=0, min_hosts=0,
    )


def violations(demand: np.ndarray, assign: np.ndarray, n: int) -> int:
    """Host-steps over capacity, summed here from the VM curves."""
    loads = np.zeros((n,) + demand.shape[1:])
    np.add.at(loads, assign, demand)
    return int((loads > HOST_MIPS * (1 + 1e-6)).any(axis=2).sum())


def run(name: str, demand: np.ndarray, cp_sat: bool, time_limit: float) -> dict:
    p = problem_of(demand)
    b = series_lower_bounds(demand, np.array([HOST_MIPS]))
    bound = max(b["series"][0], b["l2"][0])
    naive = first_fit_series(demand, np.array([HOST_MIPS]))[1]
    t0 = time.process_time()
    sizing = size_pool_on_curves(p, demand)
    cpu_s = time.process_time() - t0
    pl = sizing.placement
    row = {
        "day": name, "vms": demand.shape[0], "sum": b["series"][0], "l2": b["l2"][0],
        "bound": bound, "naive": naive, "hosts": pl.n_hosts, "target":
        math.floor(1.05 * bound) + 1, "cpu_s": cpu_s,
        "violations": violations(demand, pl.assignment, pl.n_hosts), "cp_sat": "",
    }
    if cp_sat:
        t0 = time.process_time()
        s = size_pool_on_curves(p, demand, solver="cp-sat", time_limit=time_limit)
        row["cp_sat"] = (f"{s.placement.n_hosts} ({time.process_time() - t0:.0f} s, "
                         f"{violations(demand, s.placement.assignment, s.placement.n_hosts)}"
                         " violations)")
    return row


def print_header(cp_sat: bool) -> None:
    extra = " cp-sat |" if cp_sat else ""
    print("| day | VMs | max_t sum/C | L2 | bound | naive TS-FFD | default plan | ratio | "
          f"target | CPU s | replay violations |{extra}")
    print("|---" * (11 + cp_sat) + "|")


def print_row(r: dict, cp_sat: bool) -> None:
    extra = f" {r['cp_sat']} |" if cp_sat else ""
    print(f"| {r['day']} | {r['vms']} | {r['sum']} | {r['l2']} | {r['bound']} | "
          f"{r['naive']} | {r['hosts']} | {r['hosts'] / max(r['bound'], 1):.3f} | "
          f"{r['target']} | {r['cpu_s']:.1f} | {r['violations']} |{extra}", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--days", type=int, default=None, help="only the first N days")
    ap.add_argument("--cp-sat", action="store_true", help="also solver='cp-sat'")
    ap.add_argument("--time-limit", type=float, default=60.0, help="cp-sat seconds")
    ap.add_argument("--smoke", action="store_true", help="CI size: 150 VMs of one day")
    ap.add_argument("--root", type=Path, default=DATA / "planetlab_cloudsim",
                    help="a folder of day folders (other days of the same CloudSim "
                         "workload, e.g. 20110409, 20110411, 20110420)")
    args = ap.parse_args()
    root = args.root
    if not root.is_dir():
        print(f"skip: {root} is absent")
        return 0
    days = sorted(p for p in root.iterdir() if p.is_dir())
    cp_sat = bool(args.cp_sat and not args.smoke)
    print_header(cp_sat)
    if args.smoke:
        print_row(run(f"{days[0].name}[:150]", cloudsim_demand(days[0], 150), False, 0),
                  False)
        return 0
    for folder in days[: args.days]:
        print_row(run(folder.name, cloudsim_demand(folder), cp_sat, args.time_limit),
                  cp_sat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
