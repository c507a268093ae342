"""Benchmark: placement quality on curves — hosts against the lower bound, beside naive FFD.

For every PlanetLab day (CloudSim copy, 288 x 5-min CPU %, ../shared/data/
planetlab_cloudsim) and the Bitbrains GWA-T-12 Rnd month 2013-8 (CPU MHz and memory
used, 5-min, ../shared/data/bitbrains_rnd), two item sizes:

* coarse — PlanetLab: hosts 8 x 1,000 MHz (8,000 MHz) and 48 GiB, every VM 1,000 MHz
  and 1 GiB (the trace gives only %), ceiling 1.0 (issue 14); Bitbrains: hosts
  16 x 2,600 MHz and 256 GiB, ceiling 1.0;
* fine — the docs/performance.md "Placement on demand curves" setting: PlanetLab 8 x 2,260 MHz,
  48 GiB; Bitbrains 64 x 2,600 MHz, 1,024 GiB; ceiling 0.6;

CPU only and CPU + memory, N+0 and N+1 (failover limit 1.0, no minimum host count),
sized by :func:`vsizer.placement.curve_sizing.size_pool_on_curves` (first-fit
decreasing on the curves, then the local search of ``vsizer/placement/improve.py``).
Printed per row: hosts, lower bound (best of max_t sum / C, the per-step L2 bound,
failover), ratio, replay violations (steps over the ceiling, re-summed here from the
VM curves, not the plan's counter), wall time; beside naive time-series
first-fit decreasing and peak-sum first-fit decreasing in the same run (with N+1:
their host count + 1 spare, not checked).

Run: ``.venv/bin/python benchmarks/placement_quality.py [--days N] [--no-bitbrains]
[--coarse-only]``; ``--smoke`` (CI): the first 150 VMs of one day, coarse, CPU only.
Skips (exit 0) when ../shared/data is absent.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vsizer.placement.curve_sizing import size_pool_on_curves
from vsizer.placement.problem import PlacementProblem
from vsizer.placement.series_fit import first_fit_series, hosts_needed_peak_sum
from vsizer.series.align import align
from vsizer.series.traces import read_bitbrains, read_planetlab

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


@dataclass(frozen=True)
class Setting:
    name: str
    cpu_mhz: float  # per host
    mem_gib: float
    ceiling: float


PLANETLAB = {
    "coarse": Setting("coarse", 8 * 1000.0, 48.0, 1.0),
    "fine": Setting("fine", 8 * 2260.0, 48.0, 0.6),
}
BITBRAINS = {
    "coarse": Setting("coarse", 16 * 2600.0, 256.0, 1.0),
    "fine": Setting("fine", 64 * 2600.0, 1024.0, 0.6),
}


def problem_of(demand: np.ndarray, s: Setting, dims: tuple[str, ...], k: int) -> PlacementProblem:
    d = len(dims)
    return PlacementProblem(
        pool="q", vm_names=tuple(f"v{i}" for i in range(demand.shape[0])), dims=dims,
        demand=demand.max(axis=1), capacity=np.array([s.cpu_mhz, s.mem_gib][:d]),
        base_load=np.zeros(d), limit=np.full(d, s.ceiling), failover_limit=np.ones(d),
        failures=k, min_hosts=1,
    )


def violations(demand: np.ndarray, assign: np.ndarray, n: int, max_load: np.ndarray) -> int:
    """Host-steps over the ceiling, summed here from the VM curves."""
    loads = np.zeros((n,) + demand.shape[1:])
    for v in range(demand.shape[0]):
        loads[int(assign[v])] += demand[v]
    return int((loads > max_load * (1 + 1e-6)).any(axis=2).sum())


def run(trace: str, demand: np.ndarray, s: Setting, dims: tuple[str, ...], k: int) -> dict:
    demand = demand[:, :, : len(dims)]
    p = problem_of(demand, s, dims, k)
    max_load = p.capacity * p.limit
    t0 = time.perf_counter()
    sizing = size_pool_on_curves(p, demand)
    seconds = time.perf_counter() - t0
    pl = sizing.placement
    naive = first_fit_series(demand, max_load)[1]
    peak = hosts_needed_peak_sum(demand, max_load)
    return {
        "trace": trace, "setting": s.name, "dims": "+".join(dims), "k": k,
        "vms": demand.shape[0], "hosts": pl.n_hosts, "bound": sizing.lower_bound,
        "naive": naive + k, "peak": peak + k,
        "violations": violations(demand, pl.assignment, pl.n_hosts, max_load),
        "survives": sizing.failover.survives, "seconds": seconds,
    }


def planetlab(folder: Path, vms: int | None = None) -> np.ndarray:
    a = align(read_planetlab(folder).data, step="5min")
    cpu = np.nan_to_num(a.values["cpu_util"])[:vms] * 1000.0
    return np.stack([cpu, np.ones_like(cpu)], axis=2)


def bitbrains(folder: Path) -> np.ndarray:
    s = read_bitbrains(folder)
    a = align(s.data[s.data["metric"].isin(["cpu_mhz", "mem_used_gib"])], step="5min")
    return np.stack(
        [np.nan_to_num(a.values["cpu_mhz"]), np.nan_to_num(a.values["mem_used_gib"])], axis=2
    )


def print_table(rows: list[dict]) -> None:
    print("| trace | items | dims | N+k | VMs | hosts | bound | ratio | naive TS-FFD | "
          "peak-sum FFD | replay violations | survives | time |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['trace']} | {r['setting']} | {r['dims']} | N+{r['k']} | {r['vms']} | "
            f"{r['hosts']} | {r['bound']} | {r['hosts'] / r['bound']:.3f} | {r['naive']} | "
            f"{r['peak']} | {r['violations']} | {'yes' if r['survives'] else 'NO'} | "
            f"{r['seconds']:.1f} s |", flush=True,
        )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--days", type=int, default=None, help="only the first N PlanetLab days")
    ap.add_argument("--no-bitbrains", action="store_true")
    ap.add_argument("--coarse-only", action="store_true")
    ap.add_argument("--smoke", action="store_true", help="CI size: 150 VMs of one day")
    args = ap.parse_args()
    if not (DATA / "planetlab_cloudsim").is_dir():
        print(f"skip: {DATA} is absent")
        return 0
    days = sorted(p for p in (DATA / "planetlab_cloudsim").iterdir() if p.is_dir())
    if args.smoke:
        demand = planetlab(days[0], vms=150)
        print_table([run(f"PlanetLab {days[0].name}[:150]", demand, PLANETLAB["coarse"],
                         ("cpu",), k) for k in (0, 1)])
        return 0
    settings = ["coarse"] if args.coarse_only else ["coarse", "fine"]
    combos = [(s, dims, k) for s in settings for dims in (("cpu",), ("cpu", "mem"))
              for k in (0, 1)]
    rows: list[dict] = []
    for folder in days[: args.days]:
        demand = planetlab(folder)
        for s, dims, k in combos:
            rows.append(run(f"PlanetLab {folder.name}", demand, PLANETLAB[s], dims, k))
            print_table(rows[-1:])
    bb = DATA / "bitbrains_rnd" / "2013-8"
    if not args.no_bitbrains and bb.is_dir():
        demand = bitbrains(bb)
        for s, dims, k in combos:
            rows.append(run("Bitbrains Rnd 2013-8", demand, BITBRAINS[s], dims, k))
            print_table(rows[-1:])
    print()
    print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
