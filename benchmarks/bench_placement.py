"""Benchmark: plan 5,000 servers with CPU, memory, vCPU, disk MB/s and network dimensions.

The servers are the 500 VMs of the Bitbrains GWA-T-12 "Rnd" trace (month 2013-8,
../shared/data/bitbrains_rnd), summarized to inventory rows (cores, clock, average
and peak CPU %, provisioned memory, peak disk and network throughput) and repeated
10 times (5,000 rows, two pools). A 500-server run in the same process is the
baseline: the ratio shows how planning time scales with fleet size.

Run: ``make bench`` or ``.venv/bin/python benchmarks/bench_placement.py [--copies N]``.
Skips (exit 0) when ../shared/data is absent.
"""

from __future__ import annotations

import argparse
import gzip
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd

from vsizer.catalogs.model import HostModel
from vsizer.inventory.model import Inventory, empty_frame
from vsizer.quality import QualityReport
from vsizer.study import ConsolidationStudy
from vsizer.study.config import Rules

DATA = (
    Path(__file__).resolve().parents[2] / "shared" / "data" / "bitbrains_rnd" / "2013-8"
)
CACHE = Path("/tmp/vsizer-bench-bitbrains-summary.csv")


def summarize_bitbrains() -> pd.DataFrame:
    """One row per VM: cores, MHz per core, avg/peak CPU, memory, peak disk/net."""
    if CACHE.exists():
        return pd.read_csv(CACHE)
    rows = []
    for path in sorted(DATA.glob("*.csv.gz"), key=lambda p: int(p.name.split(".")[0])):
        with gzip.open(path, "rt") as fh:
            df = pd.read_csv(fh, sep=";", skipinitialspace=True)
        df.columns = [c.strip() for c in df.columns]
        df = df.apply(pd.to_numeric, errors="coerce")
        df = df[df["CPU cores"] > 0]  # zero-capacity rows: powered off / unknown
        cores = int(df["CPU cores"].max())
        cpu = df["CPU usage [%]"].clip(upper=100) / 100.0
        rows.append(
            {
                "name": f"bb{path.name.split('.')[0]}",
                "cores": cores,
                "mhz": float(df["CPU capacity provisioned [MHZ]"].max()) / cores,
                "avg": float(cpu.mean()),
                "peak": float(cpu.max()),
                "mem_gib": float(df["Memory capacity provisioned [KB]"].max()) / 2**20,
                "disk_mb_s": float(
                    (
                        df["Disk read throughput [KB/s]"]
                        + df["Disk write throughput [KB/s]"]
                    ).max()
                )
                / 1000.0,
                "net_mbps": float(
                    (
                        df["Network received throughput [KB/s]"]
                        + df["Network transmitted throughput [KB/s]"]
                    ).max()
                )
                * 8
                / 1000.0,
            }
        )
    out = pd.DataFrame(rows)
    out.to_csv(CACHE, index=False)
    return out


def inventory(summary: pd.DataFrame, copies: int) -> Inventory:
    n = len(summary) * copies
    df = empty_frame(n)
    rep = pd.concat([summary] * copies, ignore_index=True)
    df["name"] = [f"{nm}-{i // len(summary):02d}" for i, nm in enumerate(rep["name"])]
    df["sockets"] = 1
    df["cores_per_socket"] = rep["cores"].to_numpy()
    df["vcpus"] = rep["cores"].to_numpy()
    df["cpu_mhz"] = rep["mhz"].to_numpy()
    df["cpu_avg_util"] = rep["avg"].to_numpy()
    df["cpu_peak_util"] = rep["peak"].to_numpy()
    df["mem_gib"] = rep["mem_gib"].to_numpy()
    df["disk_mb_s"] = rep["disk_mb_s"].to_numpy()
    df["net_mbps"] = rep["net_mbps"].to_numpy()
    df["power_w"] = 200.0
    df["pool"] = np.where(np.arange(n) % 2 == 0, "pool-a", "pool-b")
    return Inventory(
        df,
        pd.DataFrame({"name": [], "reason": []}),
        QualityReport(),
        "bitbrains",
        "table",
    )


#: A large two-socket host with explicit disk and network capacity (MHz-based CPU,
#: since the trace gives clock rates only).
HOST = HostModel(
    model="bench-host",
    sockets=2,
    cores_per_socket=32,
    threads_per_core=2,
    cpu_mhz=2600.0,
    cpu_score_per_core=None,
    mem_gib=1024.0,
    power_idle_w=150.0,
    power_max_w=700.0,
    rack_u=2.0,
    disk_mb_s=4000.0,
    net_mbps=50000.0,
)


def run(inv: Inventory) -> dict[str, float]:
    tracemalloc.start()
    t0 = time.perf_counter()
    plan = ConsolidationStudy(inv, HOST, Rules(assume_util=1.0)).run()
    t1 = time.perf_counter()
    doc = plan.to_dict()
    t2 = time.perf_counter()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {
        "servers": len(inv.servers),
        "hosts": doc["summary"]["hosts"],
        "dims": len(doc["pools"][0]["hosts"][0]["util"]),
        "lower_bound": doc["summary"]["lower_bound"],
        "scenarios": sum(p["failover"]["scenario_count"] for p in doc["pools"]),
        "plan_s": t1 - t0,
        "render_s": t2 - t1,
        "peak_mib": peak / 2**20,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--copies", type=int, default=10, help="repeat the 500 VMs this often"
    )
    ap.add_argument(
        "--smoke", action="store_true", help="CI size: the first 100 VMs, 2 copies"
    )
    args = ap.parse_args()
    if args.smoke:
        args.copies = 2
    if not DATA.is_dir():
        print(f"skip: {DATA} is absent")
        return 0
    t = time.perf_counter()
    summary = summarize_bitbrains()
    if args.smoke:
        summary = summary.head(100)
    print(f"trace summary: {len(summary)} VMs in {time.perf_counter() - t:.1f} s")
    base = run(inventory(summary, 1))
    big = run(inventory(summary, args.copies))
    for label, r in (("baseline", base), ("target", big)):
        print(
            f"{label:8s} {r['servers']:5d} servers, {r['dims']} dims -> {r['hosts']:4d} hosts "
            f"(lower bound {r['lower_bound']}), {r['scenarios']} failover scenarios: "
            f"plan {r['plan_s']:.2f} s, JSON {r['render_s']:.2f} s, peak {r['peak_mib']:.0f} MiB"
        )
    ratio = big["plan_s"] / base["plan_s"]
    print(f"ratio target/baseline: {ratio:.1f}x time for {args.copies}x servers")
    if big["servers"] >= 5000:
        met = big["plan_s"] + big["render_s"] < 10
        print(f"5,000-server goal (< 10 s): {'met' if met else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
