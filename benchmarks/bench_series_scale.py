"""Benchmark: placement on demand curves at scale (issue: time-series placement).

VMs get one week of 5-minute CPU curves (2,016 steps) stitched from random real
PlanetLab days (../shared/data/planetlab_cloudsim, 1,000 MHz per VM) and a memory
curve (1-8 GiB, following CPU by up to 20 %): 2 dimensions. Hosts: 16 cores x
2,600 MHz, 256 GiB, ceiling 0.6. Prints time and peak memory for 1,000, 10,000 and
50,000 VMs, the ratio of each to the 1,000-VM run, hosts found and the lower bound.

Run: ``.venv/bin/python benchmarks/bench_series_scale.py [--sizes 1000 10000 50000]``.
Skips (exit 0) when ../shared/data is absent.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

import numpy as np

from vsizer.placement.series_fit import first_fit_series, series_lower_bounds

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "planetlab_cloudsim"
STEPS = 7 * 288
LIMIT = np.array([16 * 2600.0 * 0.6, 256.0 * 0.6])


def day_curves() -> np.ndarray:
    days = sorted(p for p in DATA.iterdir() if p.is_dir())
    files = [f for d in days for f in sorted(d.iterdir()) if f.is_file()]
    return np.array([np.loadtxt(f) for f in files], dtype=np.float32) / 100.0


def demand(curves: np.ndarray, n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(curves), size=(n, 7))
    cpu = curves[idx].reshape(n, STEPS)
    size = rng.choice(np.array([1.0, 2.0, 4.0, 8.0], dtype=np.float32), size=(n, 1))
    out = np.empty((n, STEPS, 2), dtype=np.float32)
    out[:, :, 0] = cpu * 1000.0
    out[:, :, 1] = size * (0.8 + 0.2 * cpu)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 50000])
    ap.add_argument("--smoke", action="store_true", help="CI size: 200 and 400 VMs")
    args = ap.parse_args()
    if args.smoke:
        args.sizes = [200, 400]
    if not DATA.is_dir():
        print(f"skip: {DATA} is absent")
        return 0
    curves = day_curves()
    print(f"{len(curves)} real PlanetLab VM-days; {STEPS} steps x 2 dims per VM")
    base = None
    for n in args.sizes:
        dem = demand(curves, n)
        t = time.perf_counter()
        _, hosts = first_fit_series(dem, LIMIT)
        elapsed = time.perf_counter() - t
        lb = max(series_lower_bounds(dem, LIMIT)["series"])
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        base = base or elapsed
        print(
            f"{n:6d} VMs: {hosts:5d} hosts (lower bound {lb}, +{(hosts - lb) / lb:.1%}) "
            f"in {elapsed:6.1f} s ({elapsed / base:5.1f}x the first size), "
            f"peak RSS {rss:,.0f} MiB"
        )
        del dem
    return 0


if __name__ == "__main__":
    sys.exit(main())
