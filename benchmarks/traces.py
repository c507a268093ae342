"""Benchmark: placement on real traces — peak-sum packing vs placement on the curves.

For each PlanetLab day (CloudSim copy, 288 x 5-min CPU %) and the Bitbrains GWA-T-12
Rnd month (CPU MHz and memory used, 5-min), prints: VMs, steps, hosts by peak-sum
first-fit decreasing, hosts by time-series placement, the lower bound (max over
steps of summed demand), the gap to it, the saving against peak-sum, replay
violations (steps over the ceiling), wall time and peak RSS.

PlanetLab gives only %: every VM is 1,000 MHz and 1 GiB (memory flat). Hosts for
PlanetLab: 8 cores x 2,260 MHz, 48 GiB (the DESIGN §4 example host); Bitbrains:
64 cores x 2,600 MHz, 1,024 GiB. Ceiling 0.6 on every dimension.

Run: ``.venv/bin/python benchmarks/traces.py [--days N] [--no-bitbrains]``.
Skips (exit 0) when ../shared/data is absent.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

import numpy as np

import vsizer
from vsizer.catalogs.model import HostModel
from vsizer.placement.series_fit import (
    first_fit_series,
    hosts_needed_peak_sum,
    replay,
    series_lower_bounds,
)
from vsizer.series.align import align
from vsizer.series.traces import read_bitbrains, read_planetlab

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
CEILING = 0.6


def evaluate(name: str, demand: np.ndarray, capacity: np.ndarray, t0: float) -> dict:
    limit = capacity * CEILING
    ts_assign, ts_hosts = first_fit_series(demand, limit)
    peak_hosts = hosts_needed_peak_sum(demand, limit)
    lb = max(series_lower_bounds(demand, limit)["series"])
    rep = replay(demand, ts_assign, ts_hosts, capacity, np.full(len(capacity), CEILING))
    return {
        "trace": name,
        "vms": demand.shape[0],
        "steps": demand.shape[1],
        "peak_sum": peak_hosts,
        "series": ts_hosts,
        "lower_bound": lb,
        "gap": (ts_hosts - lb) / lb,
        "saving": 1 - ts_hosts / peak_hosts,
        "violations": int(sum(rep["over_ceiling"])),
        "seconds": time.perf_counter() - t0,
        "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def planetlab_day(folder: Path) -> dict:
    t0 = time.perf_counter()
    s = read_planetlab(folder)
    a = align(s.data, step="5min")
    cpu = np.nan_to_num(a.values["cpu_util"]) * 1000.0
    demand = np.stack([cpu, np.ones_like(cpu)], axis=2)
    return evaluate(
        f"PlanetLab {folder.name}", demand, np.array([8 * 2260.0, 48.0]), t0
    )


def bitbrains_month(folder: Path) -> dict:
    t0 = time.perf_counter()
    s = read_bitbrains(folder)
    data = s.data[s.data["metric"].isin(["cpu_mhz", "mem_used_gib"])]
    a = align(data, step="5min")  # VMs absent for part of the month count as 0 there
    demand = np.stack(
        [np.nan_to_num(a.values["cpu_mhz"]), np.nan_to_num(a.values["mem_used_gib"])],
        axis=2,
    )
    return evaluate("Bitbrains Rnd 2013-8", demand, np.array([64 * 2600.0, 1024.0]), t0)


PLANETLAB_HOST = HostModel(
    model="DESIGN §4 host 8 x 2260 MHz, 48 GiB",
    sockets=2,
    cores_per_socket=4,
    threads_per_core=1,
    cpu_mhz=2260.0,
    cpu_score_per_core=None,
    mem_gib=48.0,
    power_idle_w=71.55,
    power_max_w=208.0,
)
BITBRAINS_HOST = HostModel(
    model="64 x 2600 MHz, 1024 GiB",
    sockets=2,
    cores_per_socket=32,
    threads_per_core=1,
    cpu_mhz=2600.0,
    cpu_score_per_core=None,
    mem_gib=1024.0,
    power_idle_w=100.0,
    power_max_w=400.0,
)


def full_plan(name: str, series, host: HostModel, **sizes) -> dict:
    """The whole study as `vsizer plan --series` runs it: N+1 on the curves, replay."""
    t0 = time.perf_counter()
    doc = vsizer.plan(series=series, hosts=host, ceiling=CEILING, failures=1,
                      **sizes).to_dict()
    (pool,) = doc["pools"]
    return {
        "trace": name,
        "vms": doc["summary"]["servers"],
        "hosts": pool["host_count"],
        "lower_bound": pool["lower_bound"]["hosts"],
        "peak_sum": max(pool["lower_bound"]["peak_sum"].values()),
        "survives": pool["failover"]["survives"],
        "worst": pool["failover"]["worst_survivor_util"],
        "scenarios": pool["failover"]["scenario_count"],
        "over_ceiling": pool["replay"]["steps_over_ceiling"],
        "over_100": pool["replay"]["steps_over_100"],
        "seconds": time.perf_counter() - t0,
        "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--days", type=int, default=None, help="only the first N PlanetLab days"
    )
    ap.add_argument("--no-bitbrains", action="store_true")
    ap.add_argument(
        "--no-plan", action="store_true", help="skip the full-study (N+1) table"
    )
    ap.add_argument(
        "--smoke", action="store_true", help="CI size: one PlanetLab day, no Bitbrains"
    )
    args = ap.parse_args()
    if args.smoke:
        args.days, args.no_bitbrains = 1, True
    if not DATA.is_dir():
        print(f"skip: {DATA} is absent")
        return 0
    rows = []
    days = sorted(p for p in (DATA / "planetlab_cloudsim").iterdir() if p.is_dir())
    for folder in days[: args.days]:
        rows.append(planetlab_day(folder))
    if not args.no_bitbrains and (DATA / "bitbrains_rnd" / "2013-8").is_dir():
        rows.append(bitbrains_month(DATA / "bitbrains_rnd" / "2013-8"))
    print(
        "| trace | VMs | steps | hosts peak-sum | hosts on curves | lower bound | gap | "
        "saving vs peak-sum | replay violations | time | peak RSS |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['trace']} | {r['vms']} | {r['steps']} | {r['peak_sum']} | {r['series']} | "
            f"{r['lower_bound']} | {r['gap']:.1%} | {r['saving']:.0%} | {r['violations']} | "
            f"{r['seconds']:.1f} s | {r['rss_mib']:,.0f} MiB |"
        )
    if args.no_plan:
        return 0
    plans = []
    for folder in days[: args.days]:
        plans.append(
            full_plan(f"PlanetLab {folder.name}", read_planetlab(folder),
                      PLANETLAB_HOST, vm_cpu_mhz=1000.0, vm_mem_gib=1.0)
        )
    if not args.no_bitbrains and (DATA / "bitbrains_rnd" / "2013-8").is_dir():
        plans.append(
            full_plan("Bitbrains Rnd 2013-8",
                      read_bitbrains(DATA / "bitbrains_rnd" / "2013-8"), BITBRAINS_HOST)
        )
    print()
    print("Full study (`vsizer plan --series`, N+1 on the curves, 4 GiB host reserve, "
          "ESXi per-VM memory overhead):")
    print()
    print("| trace | VMs | hosts N+1 | lower bound | hosts by peak sum (bound) | "
          "survives | worst survivor | scenarios | replay > ceiling | replay > 100 % | "
          "time | peak RSS |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in plans:
        print(
            f"| {r['trace']} | {r['vms']} | {r['hosts']} | {r['lower_bound']} | "
            f"{r['peak_sum']} | {'yes' if r['survives'] else 'NO'} | {r['worst']:.1%} | "
            f"{r['scenarios']} | {r['over_ceiling']} | {r['over_100']} | "
            f"{r['seconds']:.1f} s | {r['rss_mib']:,.0f} MiB |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
