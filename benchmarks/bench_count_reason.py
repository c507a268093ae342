"""Benchmark: the cost of explaining host counts (issue 16 item 5).

``pools[].count_reason`` sizes each pool again with each rule in force relaxed
(failures = 0, min_hosts = 1, no anti-affinity, no pins) and once with all of
them relaxed, on the pool's demand curves when it has them. This prints, for a
plan of real Bitbrains GWA-T-12 (fastStorage "Rnd", 2013-8) VMs on their CPU and
memory curves, and for the shipped 37-server sample inventory on peak figures:
the whole plan's time, the time of the count reasons alone (the same calls
again), and their share.

Run: ``.venv/bin/python benchmarks/bench_count_reason.py [--vms 500]``.
Skips (exit 0) when ../shared/data is absent.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

import vsizer
from vsizer.series.sources import load_series
from vsizer.study.count_reason import explain_pool

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "bitbrains_rnd" / "2013-8"
SAMPLE = Path(vsizer.__file__).parent / "data" / "samples" / "inventory_ja.csv"


def _explain_time(plan: vsizer.ConsolidationPlan) -> tuple[float, list[str]]:
    """Seconds to explain every pool again, and the bindings."""
    pool_of = plan.servers["pool"].astype(str).to_numpy()
    scalar = plan.series.scalar_demand if plan.series is not None else None
    t0 = time.perf_counter()
    bindings = []
    for pr in plan.pools:
        assert pr.problem is not None
        idx = np.flatnonzero(pool_of == pr.name)
        cr = explain_pool(
            pr.problem, pr.sizing.n_hosts, pr.sizing.lower_bound_detail, pr.vm_curves,
            plan.rules, scalar[idx] if scalar is not None else None,
        )
        bindings.append(f"{pr.name}: {cr.binding} ({cr.hosts} hosts, demand {cr.by_constraint['demand']})")
    return time.perf_counter() - t0, bindings


def _report(label: str, run) -> None:
    t0 = time.perf_counter()
    plan = run()
    total = time.perf_counter() - t0
    explain, bindings = _explain_time(plan)
    print(f"{label}: plan {total:.2f} s, count reasons {explain:.2f} s "
          f"({explain / total:.0%} of the plan)")
    for b in bindings:
        print(f"  {b}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vms", type=int, default=500, help="Bitbrains VMs (up to 500)")
    ap.add_argument("--smoke", action="store_true", help="CI size: 10 VMs")
    args = ap.parse_args()
    if args.smoke:
        args.vms = 10
    _report("sample inventory (37 servers, peak figures)", lambda: vsizer.plan(SAMPLE))
    if not DATA.is_dir():
        print(f"count reasons timed on the sample only ({DATA} is absent)")
        return 0
    files = sorted(DATA.glob("*.csv.gz"), key=lambda p: int(p.name.split(".")[0]))
    files = files[: args.vms]
    series = load_series([str(f) for f in files], "bitbrains")
    _report(f"Bitbrains {len(files)} VMs on curves", lambda: vsizer.plan(series=series))
    print("count reasons timed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
