"""Tile samples rebuilt from the committed TCG contention export (tests only).

``tests/data/bench/tiles_cpu_tcg_2cores.csv`` is what ``vsizer bench export
--for-fit`` wrote from a real ``vsizer bench tiles --max 4`` run here (TCG, 2
cores). These helpers turn its rows back into the store's samples, so the
report's contention chart and fit can be tested on measured numbers.
"""

from __future__ import annotations

import csv
from pathlib import Path

from vsizer.bench.samples import Sample

TILES_CSV = Path(__file__).parent / "data" / "bench" / "tiles_cpu_tcg_2cores.csv"


def tile_samples(path: Path = TILES_CSV) -> list[Sample]:
    """Per-run tile samples plus the lone guest's trimmed mean (the reference)."""
    rows = list(csv.DictReader(path.open(encoding="utf-8")))
    first = rows[0]
    common = {"workload": "tiles", "tile_kind": "cpu", "environment": first["env"],
              "accelerator": first["accelerator"], "emulated": first["emulated"] == "true",
              "hypervisor": first["hypervisor"], "host_cores": int(first["physical_cpus"]),
              "vcpus": int(first["vcpus_per_vm"]), "run_id": first["experiment"]}
    base = float(first["throughput"]) / float(first["relative"])
    out = [Sample("events_per_s_host", base, "events/s",
                  {**common, "tiles": 1, "tile": 0, "vms": 1, "aggregate": "trimmed_mean"})]
    for r in rows:
        n = int(r["vms"])
        out.append(Sample("events_per_s_host", float(r["throughput"]), "events/s",
                          {**common, "tiles": n, "tile": 0, "vms": n, "run": int(r["run"]),
                           "warmup": False, "total_util_pct": float(r["total_util_pct"]),
                           "foreign_load_exceeded": r["foreign_load_exceeded"] == "true"}))
    return out
