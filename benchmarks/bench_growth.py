"""Benchmark: growth over the years on 5,000 servers (Bitbrains GWA-T-12 "Rnd").

The inventory is ``bench_placement``'s: the 500 VMs of the Bitbrains "Rnd" trace
(month 2013-8, ../shared/data/bitbrains_rnd) summarized to inventory rows and
repeated 10 times (5,000 rows, two pools). The plan is made once, then its growth
study (10 %/yr over 5 years: every pool re-sized at each year end, N+1 checked)
is timed, for a plan sized for now and for the horizon. The ceiling is 0.8: at
0.6 the trace's largest VMs (32 cores at full load) outgrow one host after a
year of growth, and a plan sized for the horizon has no answer.

Run: ``.venv/bin/python benchmarks/bench_growth.py [--copies N] [--years N]``.
Skips (exit 0) when ../shared/data is absent.
"""

from __future__ import annotations

import argparse
import sys
import time

from benchmarks.bench_placement import DATA, HOST, inventory, summarize_bitbrains
from vsizer.study import ConsolidationStudy
from vsizer.study.config import Rules
from vsizer.study.growth import with_growth


def run(copies: int, years: int, size_for: str, head: int | None) -> str:
    summary = summarize_bitbrains()
    if head:
        summary = summary.head(head)
    inv = inventory(summary, copies)
    rules = Rules(assume_util=1.0, ceiling=0.8, growth="10%", years=years, size_for=size_for)
    t0 = time.perf_counter()
    plan = ConsolidationStudy(inv, HOST, rules).run()
    t1 = time.perf_counter()
    grown = with_growth(plan)
    t2 = time.perf_counter()
    doc = grown.to_dict()["growth"]
    hosts = [y["hosts"] for y in doc["years"]]
    return (
        f"{size_for:7s} {len(inv.servers)} servers, {years} years: hosts per year "
        f"{hosts}, runs out {doc['runs_out']}, bought {doc['hosts_bought']}; "
        f"plan {t1 - t0:.2f} s, growth study {t2 - t1:.2f} s"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--copies", type=int, default=10, help="repeat the 500 VMs this often")
    ap.add_argument("--years", type=int, default=3, help="years of 10 %% growth")
    ap.add_argument("--smoke", action="store_true", help="CI size: 100 VMs, 2 years")
    args = ap.parse_args()
    if not DATA.is_dir():
        print(f"skip: {DATA} is absent")
        return 0
    head = 100 if args.smoke else None
    copies, years = (1, 2) if args.smoke else (args.copies, args.years)
    for size_for in ("now", "horizon"):
        print(run(copies, years, size_for, head))
    return 0


if __name__ == "__main__":
    sys.exit(main())
