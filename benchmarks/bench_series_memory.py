"""Benchmark: peak memory and time of a plan on the Bitbrains month (issue 15, item 1).

Data: the Bitbrains GWA-T-12 "Rnd" trace, month 2013-8, 500 VMs x 8,640 five-minute
steps x 7 metrics (../shared/data/bitbrains_rnd/2013-8; S. Shen, V. van Beek and
A. Iosup, CCGrid 2015, doi:10.1109/CCGrid.2015.60).

Each path runs in its own child process, which reports its peak RSS
(``resource.getrusage(RUSAGE_SELF).ru_maxrss``) after each stage:

* ``new``: ``read_bitbrains`` (per-server blocks) -> column-wise align -> full study
  (``vsizer.plan(series=...)``, which aligns again inside);
* ``store``: ``vsizer import`` of the folder into a fresh store (parts of ~2 M rows)
  -> ``vsizer.plan(series=load_series([store]))`` (parts streamed onto the grid);
* ``old``: the tidy path this replaces (``SeriesSet.data`` -> ``align`` -> study),
  run only on a subset (it took 12.0 GiB on the whole month): the ``new`` path runs
  on the same subset in the same invocation, and the ratio is printed.

Run: ``.venv/bin/python benchmarks/bench_series_memory.py [--files 500] [--old-files 50]``;
``--smoke``: 20 files (old path: 5). Skips (exit 0) when ../shared/data is absent.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "bitbrains_rnd"


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # KiB on Linux


def _stage(stages: list[dict[str, Any]], name: str, t0: float) -> float:
    stages.append({"stage": name, "s": time.perf_counter() - t0, "peak_mib": _peak_mib()})
    return time.perf_counter()


def child(path: str, folder: str, work: str) -> dict[str, Any]:
    """Run one path in this (child) process; its stages' times and peak RSS."""
    import vsizer
    from vsizer.series.align import align
    from vsizer.series.sources import load_series
    from vsizer.series.traces import read_bitbrains
    from vsizer.study.config import Rules
    from vsizer.study.series_match import align_for_plan

    stages: list[dict[str, Any]] = []
    t = t0 = time.perf_counter()
    if path == "store":
        from vsizer.series.store import SeriesStore

        store = SeriesStore.create(Path(work) / "store")
        infos = store.append_split(read_bitbrains(folder))
        t = _stage(stages, f"import ({len(infos)} parts)", t)
        series = load_series([store.path])
        t = _stage(stages, "open store (footers)", t)
    else:
        series = read_bitbrains(folder)
        t = _stage(stages, "read", t)
    if path == "old":
        data = series.data  # the tidy frame of every sample
        series.data = data  # drops the columns: the tidy path from here on
        del data
        aligned = align(series.data, step="5min", how="mean")
    else:
        aligned = align_for_plan(series, Rules())
    shape = (len(aligned.servers), aligned.n_steps, len(aligned.values))
    del aligned
    t = _stage(stages, "align", t)
    plan = vsizer.plan(series=series)
    hosts = plan.to_dict()["summary"]["hosts"]
    _stage(stages, "study (aligns again)", t)
    return {
        "path": path,
        "stages": stages,
        "total_s": time.perf_counter() - t0,
        "peak_mib": _peak_mib(),
        "shape": shape,
        "hosts": hosts,
    }


def run_child(path: str, folder: Path, work: Path) -> dict[str, Any]:
    res = subprocess.run(
        [sys.executable, __file__, "--child", path, str(folder), str(work)],
        capture_output=True, text=True, check=False,
        env=dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1])),
    )  # fmt: skip
    if res.returncode != 0:
        raise SystemExit(f"{path} path failed:\n{res.stderr[-3000:]}")
    out: dict[str, Any] = json.loads(res.stdout.strip().splitlines()[-1])
    return out


def subset(src: Path, n: int, into: Path) -> Path:
    """A folder of symbolic links to the first ``n`` files of ``src`` (name order)."""
    files = sorted(p for p in src.iterdir() if p.name.endswith((".csv", ".csv.gz")))
    if n >= len(files):
        return src
    into.mkdir(parents=True, exist_ok=True)
    for f in files[:n]:
        (into / f.name).symlink_to(f.resolve())
    return into


def show(label: str, r: dict[str, Any]) -> None:
    s, t, m = r["shape"]
    print(f"{label}: {s} servers x {t} steps x {m} metrics, {r['hosts']} hosts")
    for st in r["stages"]:
        print(f"  {st['stage']:<28} {st['s']:7.1f} s   peak RSS {st['peak_mib']:8.0f} MiB")
    print(f"  {'total':<28} {r['total_s']:7.1f} s   peak RSS {r['peak_mib']:8.0f} MiB")


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        print(json.dumps(child(*sys.argv[2:5])))
        return 0
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=500, help="VMs for new and store paths")
    ap.add_argument("--old-files", type=int, default=50, help="VMs for the old-vs-new pair")
    ap.add_argument("--smoke", action="store_true", help="CI size: 20 VMs (old path 5)")
    args = ap.parse_args()
    month = DATA / "2013-8"
    if not month.is_dir():
        print(f"skip: {month} is absent")
        return 0
    if args.smoke:
        args.files, args.old_files = 20, 5
    print(f"load: {os.getloadavg()[0]:.2f} (1-min average), {os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory(prefix="vsizer-bench-mem-") as tmp:
        work = Path(tmp)
        big = subset(month, args.files, work / "big")
        small = subset(month, args.old_files, work / "small")
        new = run_child("new", big, work / "w1")
        show(f"new path, {args.files} files", new)
        store = run_child("store", big, work / "w2")
        show(f"store path, {args.files} files", store)
        old_s = run_child("old", small, work / "w3")
        new_s = run_child("new", small, work / "w4")
        show(f"old path, {args.old_files} files", old_s)
        show(f"new path, {args.old_files} files", new_s)
    print(
        f"old/new on {args.old_files} files: peak RSS {old_s['peak_mib']:.0f} / "
        f"{new_s['peak_mib']:.0f} MiB = {old_s['peak_mib'] / new_s['peak_mib']:.2f}x, "
        f"time {old_s['total_s']:.1f} / {new_s['total_s']:.1f} s = "
        f"{old_s['total_s'] / new_s['total_s']:.2f}x; same hosts: "
        f"{old_s['hosts'] == new_s['hosts']}"
    )
    print(
        f"acceptance (< 1.5 GB = 1430 MiB peak RSS, full study of {args.files} files): "
        f"new {new['peak_mib']:.0f} MiB, store {store['peak_mib']:.0f} MiB"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
