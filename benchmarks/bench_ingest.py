"""Benchmark: Parquet ingestion of a large Azure-format trace set with bounded memory.

A synthetic fleet in the Azure Public Dataset V2 format (``vm_cpu_readings``
files as consecutive time slices, like the real ones, plus a ``vmtable``) is
written to Parquet first: each VM's day of 5-minute average CPU is a real VM-day
of the 20-VM V2 extract (../shared/data/azure_public_dataset, 30 days; the
bundled 2-file sample when that is absent) scaled by a log-normal factor
(sigma 0.5) with 1 % noise; core and memory buckets are drawn from the 500 real
vmtable rows there (2 cores x 4 GB when absent). Then
:func:`vsizer.series.traces.azure.read_azure` reads it, each run in a fresh
child process: in-process (``LocalEngine``), on a process pool of 1 and 2
workers (spawned; a minimal Engine of this script), and on ray/dask when
:func:`vsizer.engines.get_engine` provides them. Printed per run: time, the
driver's peak RSS, each worker's peak RSS, readings per second, and the size of
the aligned float32 matrix for comparison.

Run: ``.venv/bin/python benchmarks/bench_ingest.py [--vms 100000] [--files 8]``;
``--smoke``: 2,000 VMs, 4 files.
"""

from __future__ import annotations

import argparse
import base64
import json
import multiprocessing
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data" / "azure_public_dataset"
SAMPLE = REPO / "tests" / "data" / "series" / "traces" / "azure"
STEPS = 288
T = TypeVar("T")
R = TypeVar("R")


def real_days() -> tuple[np.ndarray, str]:
    """Real VM-days of average CPU [%] (n x 288) and where they come from."""
    from vsizer.series.traces.azure import read_azure

    src = SHARED if SHARED.is_dir() else SAMPLE
    aligned, _, _ = read_azure(src)
    mat = aligned.values["cpu_util"] * 100.0
    days = mat[:, : (mat.shape[1] // STEPS) * STEPS].reshape(-1, STEPS)
    days = days[np.isfinite(days).all(axis=1)]
    return days.astype(np.float32), str(src)


def real_buckets() -> np.ndarray:
    """(cores bucket, memory bucket) rows of the real vmtable extract."""
    f = SHARED / "selected_vms_500.csv"
    if not f.is_file():
        return np.array([["2", "4"]])
    rows = [line.split(",") for line in f.read_text().splitlines() if line]
    return np.array([[r[9], r[10]] for r in rows])


def write_fleet(out: Path, n_vms: int, n_files: int, seed: int = 0) -> dict[str, Any]:
    """Write the synthetic readings (Parquet, one file per time slice) and vmtable."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    days, src = real_days()
    pick = rng.integers(0, len(days), n_vms)
    scale = np.clip(rng.lognormal(0.0, 0.5, n_vms), 0.1, 5.0).astype(np.float32)
    ids = [base64.b64encode(rng.bytes(48)).decode() for _ in range(n_vms)]
    dictionary = pa.array(ids, type=pa.string())
    bounds = np.linspace(0, STEPS, n_files + 1).astype(int)
    for k in range(n_files):
        steps = np.arange(bounds[k], bounds[k + 1])
        avg = days[pick][:, steps] * scale[:, None]
        avg += rng.normal(0.0, 1.0, avg.shape).astype(np.float32)
        avg = np.clip(avg, 0.0, 100.0).T.reshape(-1)  # time-major, like the trace
        vm = np.tile(np.arange(n_vms, dtype=np.int32), len(steps))
        table = pa.table({
            "timestamp": pa.array(np.repeat(steps * 300, n_vms).astype(np.int64)),
            "vmid": pa.DictionaryArray.from_arrays(pa.array(vm), dictionary),
            "mincpu": pa.array(avg * 0.8), "maxcpu": pa.array(np.minimum(avg * 1.5, 100.0)),
            "avgcpu": pa.array(avg),
        })  # fmt: skip
        pq.write_table(table, out / f"vm_cpu_readings-file-{k + 1}-of-{n_files}.parquet",
                       row_group_size=1 << 20)
    buckets = real_buckets()[rng.integers(0, len(real_buckets()), n_vms)]
    pq.write_table(pa.table({
        "vmid": ids, "vmcategory": ["Unknown"] * n_vms,
        "vmcorecountbucket": buckets[:, 0].tolist(), "vmmemorybucket": buckets[:, 1].tolist(),
    }), out / "vmtable.parquet")  # fmt: skip
    return {"source": src, "real_days": len(days)}


class PoolEngine:
    """``workers`` spawned processes (the Engine protocol of vsizer.engines)."""

    name = "pool"

    def __init__(self, workers: int) -> None:
        self.workers = workers
        ctx = multiprocessing.get_context("spawn")
        self._pool = ProcessPoolExecutor(workers, mp_context=ctx)

    def map(self, fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
        return list(self._pool.map(fn, items))

    def close(self) -> None:
        self._pool.shutdown()

    def __enter__(self) -> PoolEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_once(folder: Path, engine_name: str, workers: int) -> dict[str, Any]:
    """One read (in this child process): time, peak RSS, series shape."""
    from vsizer.engines import get_engine
    from vsizer.series.traces.azure import read_azure

    engine: Any = PoolEngine(workers) if engine_name == "pool" else get_engine(
        engine_name, workers=None if engine_name == "local" else workers
    )
    with engine:
        t0 = time.perf_counter()
        aligned, quality, meta = read_azure(folder, engine=engine)
        secs = time.perf_counter() - t0
    mat = aligned.values["cpu_util"]
    return {
        "secs": secs, "driver_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "worker_mib": [k / 1024 for k in meta["worker_maxrss_kib"]], "rows": meta["rows"],
        "shape": list(mat.shape), "matrix_mib": mat.nbytes / 2**20,
        "sized": len(meta.get("machines", {})), "assumed": sum(a["count"] for a in meta.get("assumptions", [])),
        "checksum": float(np.nansum(mat, dtype=np.float64)),
    }  # fmt: skip


def run_child(folder: Path, engine: str, workers: int) -> dict[str, Any] | str:
    cmd = [sys.executable, __file__, "--read", str(folder), "--engine", engine, "--workers", str(workers)]
    env = dict(os.environ, PYTHONPATH=str(REPO))
    res = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=REPO, timeout=3600)
    if res.returncode != 0:
        last = (res.stderr.strip().splitlines() or ["failed"])[-1]
        return f"not run ({last.split(': ', 1)[-1][:120]})"
    return dict(json.loads(res.stdout.strip().splitlines()[-1]))


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--vms", type=int, default=100_000)
    ap.add_argument("--files", type=int, default=8)
    ap.add_argument("--smoke", action="store_true", help="CI size: 2,000 VMs, 4 files")
    ap.add_argument("--read", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--engine", default="local", help=argparse.SUPPRESS)
    ap.add_argument("--workers", type=int, default=1, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.read is not None:
        print(json.dumps(read_once(args.read, args.engine, args.workers)))
        return 0
    if args.smoke:
        args.vms, args.files = 2_000, 4
    with tempfile.TemporaryDirectory(prefix="vsizer-bench-ingest-") as tmp:
        folder = Path(tmp)
        t0 = time.perf_counter()
        info = write_fleet(folder, args.vms, args.files)
        size = sum(f.stat().st_size for f in folder.iterdir()) / 2**20
        print(f"Azure-format fleet: {args.vms:,} VMs x {STEPS} steps = {args.vms * STEPS:,} "
              f"readings in {args.files} Parquet files ({size:.0f} MiB), written in "
              f"{time.perf_counter() - t0:.1f} s from {info['real_days']} real VM-days of {info['source']}")
        print(f"load: {os.getloadavg()[0]:.2f} (1-min average, {os.cpu_count()} cores)")
        print("| engine | workers | time s | readings/s | driver peak RSS MiB | worker peak RSS MiB | matrix MiB | VMs sized | open buckets |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        runs = [("local", 1), ("pool", 1), ("pool", 2), ("ray", 2), ("dask", 2)]
        if args.smoke:
            runs = [("local", 1), ("pool", 2)]
        sums = set()
        for engine, workers in runs:
            r = run_child(folder, engine, workers)
            if isinstance(r, str):
                print(f"| {engine} | {workers} | {r} | | | | | | |")
                continue
            sums.add(round(r["checksum"], 3))
            wk = "/".join(f"{m:.0f}" for m in sorted(set(r["worker_mib"]))[-2:])
            print(f"| {engine} | {workers} | {r['secs']:.2f} | {r['rows'] / r['secs']:,.0f} | "
                  f"{r['driver_mib']:.0f} | {wk} | {r['matrix_mib']:.0f} | {r['sized']:,} | {r['assumed']} |")
        print(f"Parquet ingestion: same series on every engine: {len(sums) == 1}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
