"""Benchmark: a month of monitoring for 10,000 servers, CPU + memory, N+1 on
curves, through the full study (issue 15 acceptance: < 10 min, < 8 GB).

The servers are synthetic from real curve shapes (see ``bench_shards.py``:
PlanetLab days and Bitbrains 2013-8 days, shifted by whole hours, 1-8 cores
of 2,600 MHz, 4 GiB per core): 30 days x 288 five-minute steps = 8,640 steps.
They are handed to the study as an aligned series set (one float32 matrix per
metric: ``cpu_util``, ``mem_used_gib``, ``cpu_capacity_mhz``,
``mem_capacity_gib``), as the columnar readers deliver them, through
``ConsolidationStudy(..., aligned=...)``. Rules: the shipped default host,
ceiling 0.8, N+1, every step must fit.

Prints the stages (build the series, the study, of which pool sizing) with wall
time and peak RSS after each, the hosts and the lower bound. The study runs in
this process; its peak RSS is this process's ``ru_maxrss``.

Run: ``python benchmarks/bench_month_10k.py [--servers 10000] [--days 30] [--smoke]``.
Skips (exit 0) when ../shared/data is absent.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_shards import BITBRAINS, DAY, PLANETLAB, Shapes  # noqa: E402


def rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def aligned_month(n: int, days: int, bitbrains_vms: int | None):  # type: ignore[no-untyped-def]
    """An AlignedSeries of ``n`` synthetic servers over ``days`` days (float32 matrices)."""
    from vsizer.series.align import AlignedSeries

    cpu, mem, cores = Shapes(bitbrains_vms).parts(n, days * DAY, seed=3)
    steps = days * DAY
    names = [f"srv{i:05d}" for i in range(n)]
    mem_cap = (cores * 4.0).astype(np.float32)
    values = {
        "cpu_util": cpu,
        "mem_used_gib": mem * mem_cap[:, None],
        "cpu_capacity_mhz": np.repeat((cores * 2600.0)[:, None], steps, axis=1),
        "mem_capacity_gib": np.repeat(mem_cap[:, None], steps, axis=1),
    }
    units = {"cpu_util": "fraction", "mem_used_gib": "GiB", "cpu_capacity_mhz": "MHz",
             "mem_capacity_gib": "GiB"}
    index = pd.date_range("2013-08-01", periods=steps, freq="5min", tz="UTC")
    return AlignedSeries(names, index, values, units, pd.Timedelta("5min"),
                         (index[0], index[-1]), {"synthetic": True})


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--servers", type=int, default=10_000)
    ap.add_argument("--days", type=int, default=30)
    ap.add_argument("--smoke", action="store_true", help="CI size: 300 servers x 2 days")
    args = ap.parse_args()
    if not (PLANETLAB.is_dir() and BITBRAINS.is_dir()):
        print(f"skip: {PLANETLAB} or {BITBRAINS} is absent")
        return 0
    if args.smoke:
        args.servers, args.days = 300, 2
    from vsizer.placement import pool as pool_module
    from vsizer.series.as_inventory import inventory_from_series
    from vsizer.series.model import SeriesQuality, SeriesSet, empty_series
    from vsizer.study.config import Rules
    from vsizer.study.core import ConsolidationStudy, resolve_host

    print(f"load: {os.getloadavg()[0]:.2f} (1 min), cores: {os.cpu_count()}")
    t0 = time.perf_counter()
    aligned = aligned_month(args.servers, args.days, 20 if args.smoke else None)
    stages = [("series built", time.perf_counter() - t0, rss_mib())]
    rules = Rules(ceiling=0.8, failures=1)
    series = SeriesSet(empty_series(), SeriesQuality(), "synthetic", "wide")
    inventory = inventory_from_series(aligned, source="synthetic")
    host, catalog = resolve_host(None, rules.host_model)
    sizing_time = [0.0]
    size_pool_for = pool_module.size_pool_for

    def timed(*a, **k):  # type: ignore[no-untyped-def]
        t = time.perf_counter()
        try:
            return size_pool_for(*a, **k)
        finally:
            sizing_time[0] += time.perf_counter() - t

    t = time.perf_counter()
    import vsizer.study.core as core

    core.size_pool_for = timed  # type: ignore[assignment]
    plan = ConsolidationStudy(inventory, host, rules, host_catalog_name=catalog,
                              series=series, aligned=aligned).run()
    study = time.perf_counter() - t
    stages.append(("study (all of it)", study, rss_mib()))
    stages.append(("  of which pool sizing on curves", sizing_time[0], rss_mib()))
    t = time.perf_counter()
    doc = plan.to_json()
    stages.append(("plan JSON", time.perf_counter() - t, rss_mib()))
    pool = plan.pools[0].sizing
    total = time.perf_counter() - t0
    print(f"{args.servers:,} servers x {aligned.n_steps:,} steps (CPU + memory, N+1): "
          f"{pool.n_hosts} hosts (lower bound {pool.lower_bound}), survives N+1: "
          f"{pool.survives}, JSON {len(doc) / 1e6:.1f} MB")
    print("| stage | seconds | peak RSS after [MiB] |")
    print("|---|---:|---:|")
    for name, secs, rss in stages:
        print(f"| {name} | {secs:.1f} | {rss:,.0f} |")
    print(f"month plan: {total:.0f} s in all, peak RSS {rss_mib():,.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
