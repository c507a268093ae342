"""Measure the default peak-to-average CPU factor of vsizer.missing.

The factor is the median, over VM traces, of (largest sample / mean sample):

* PlanetLab (CoMon) traces as published with CloudSim by Beloglazov & Buyya
  (2012, doi:10.1002/cpe.1867): one file per VM and day, 288 five-minute CPU
  utilization samples [%]. This gives ``DEFAULT_PEAK_TO_AVERAGE`` (4.85 over
  8,122 VM-days).
* Cross-check, with ``--bitbrains``: the Bitbrains GWA-T-12 ``Rnd`` traces
  (Shen, van Beek, Iosup, CCGrid 2015), one file per VM over a month,
  ``CPU usage [%]`` every 300 s (11.4 over 497 VMs with a non-zero mean).

Usage (from the repository root, with the shared data next to it)::

    python scripts/measure_peak_factor.py ../shared/data/planetlab_cloudsim
    python scripts/measure_peak_factor.py ../shared/data/planetlab_cloudsim \\
        --bitbrains ../shared/data/bitbrains_rnd/2013-8
"""

from __future__ import annotations

import argparse
import gzip
import statistics
from pathlib import Path


def peak_to_average(values: list[float]) -> float | None:
    """max / mean of one trace; None for an all-zero trace."""
    if not values:
        return None
    mean = sum(values) / len(values)
    return max(values) / mean if mean > 0 else None


def planetlab_ratios(root: Path) -> list[float]:
    """peak/average of every PlanetLab file under ``root/<day>/``, in name order."""
    out = []
    for day in sorted(p for p in root.iterdir() if p.is_dir()):
        for f in sorted(day.iterdir()):
            values = [float(x) for x in f.read_text().split()]
            r = peak_to_average(values)
            if r is not None:
                out.append(r)
    return out


def bitbrains_ratios(folder: Path) -> list[float]:
    """peak/average of ``CPU usage [%]`` (5th field) of every Bitbrains file."""
    out = []
    for f in sorted(folder.glob("*.csv*")):
        opener = gzip.open if f.suffix == ".gz" else open
        with opener(f, "rt") as fh:
            next(fh)
            values = []
            for line in fh:
                parts = line.split(";")
                if len(parts) > 4 and parts[4].strip():
                    values.append(float(parts[4]))
        r = peak_to_average(values)
        if r is not None:
            out.append(r)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("planetlab", type=Path, help="planetlab_cloudsim folder")
    ap.add_argument("--bitbrains", type=Path, help="bitbrains_rnd/2013-8 folder")
    args = ap.parse_args()
    r = planetlab_ratios(args.planetlab)
    print(f"PlanetLab: {len(r)} VM-day traces, median peak/average "
          f"{statistics.median(r):.4f}")
    if args.bitbrains:
        b = bitbrains_ratios(args.bitbrains)
        print(f"Bitbrains Rnd: {len(b)} VM-month traces, median peak/average "
              f"{statistics.median(b):.4f}")


if __name__ == "__main__":
    main()
