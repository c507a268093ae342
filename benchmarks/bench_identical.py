"""Benchmark: plan a fleet of identical servers (the worst case of per-VM host scans).

A fleet of N identical servers (2 x 4 cores at 2.4 GHz, 20 % average, 40 % peak,
8 GiB) is sized with N+1 failover on the shipped default host. The placement
kernel places runs of identical VMs without rescanning every host per VM
(``vsizer.placement.heuristics._assign_run``); the baseline in the same process
is the one-by-one kernel (``runs=False``) on the same fleet. Both must give the
same plan; the script checks it and prints the times and their ratio.

Run: ``.venv/bin/python benchmarks/bench_identical.py [--servers N] [--smoke]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from unittest import mock

import pandas as pd

from vsizer.inventory.model import Inventory, empty_frame
from vsizer.placement import heuristics
from vsizer.quality import QualityReport
from vsizer.study import ConsolidationStudy, resolve_host
from vsizer.study.config import Rules


def fleet(n: int) -> Inventory:
    """``n`` identical servers as an Inventory (no file parsing in the timing)."""
    rows = empty_frame(n)
    rows["name"] = [f"s{i:06d}" for i in range(n)]
    for col, value in (
        ("sockets", 2),
        ("cores_per_socket", 4),
        ("vcpus", 8),
        ("cpu_mhz", 2400.0),
        ("cpu_avg_util", 0.2),
        ("cpu_peak_util", 0.4),
        ("mem_gib", 8.0),
    ):
        rows[col] = pd.Series([value] * n, dtype=rows[col].dtype)
    rows["pool"] = "default"
    rows["group"] = "default"
    rows["migrate"] = True
    return Inventory(
        servers=rows,
        excluded=pd.DataFrame(columns=["name", "reason"]),
        quality=QualityReport(),
        source="identical-fleet",
        source_format="generated",
        metadata={},
    )


def plan_seconds(inv: Inventory, runs: bool) -> tuple[float, str]:
    """Wall time of one study run and its plan JSON."""
    host, _ = resolve_host(None, None)
    original = heuristics.greedy_assign

    def kernel(*args, **kwargs):  # type: ignore[no-untyped-def]
        kwargs["runs"] = runs
        return original(*args, **kwargs)

    with mock.patch("vsizer.placement.heuristics.greedy_assign", kernel), mock.patch(
        "vsizer.placement.failover.greedy_assign", kernel
    ):
        start = time.perf_counter()
        plan = ConsolidationStudy(inv, host, Rules()).run()
        seconds = time.perf_counter() - start
    return seconds, plan.to_json()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--servers", type=int, default=5000, help="fleet size (5000)")
    ap.add_argument("--smoke", action="store_true", help="200 servers (CI)")
    args = ap.parse_args(argv)
    n = 200 if args.smoke else args.servers
    inv = fleet(n)
    fast, doc_fast = plan_seconds(inv, runs=True)
    base, doc_base = plan_seconds(inv, runs=False)
    if doc_fast != doc_base:
        print("error: the run kernel changed the plan", file=sys.stderr)
        return 1
    print(f"identical servers: {n}")
    print(f"plan with run kernel:   {fast:8.2f} s")
    print(f"plan one VM at a time:  {base:8.2f} s (baseline, same process)")
    print(f"speed-up: {base / fast:.1f}x; plans byte-identical")
    return 0


if __name__ == "__main__":
    sys.exit(main())
