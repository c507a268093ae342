"""Export measured CPU contention (tiles), disk and network (VM over physical,
:mod:`vsizer.bench.export_io`) as the measurement CSV of ``vsizer fit``.

Long format, one row per measured run and CPU guest (warm-ups dropped), in the
columns ``vsizer.models.measurements`` reads (docs/models.md, "Measurement CSV")
plus the harness's own: ``env``, ``accelerator``, ``emulated``,
``vcpus_per_vm``, ``metric``, ``value``, ``unit``, ``run``, ``foreign_load_exceeded``.

* ``throughput`` = the guest's sysbench events/s timed on the host;
* ``relative`` = that divided by the trimmed mean of a lone guest (1 tile) of the
  same series — DESIGN §6.1's per-VM relative performance, with one guest as the
  reference instead of a Pentium III;
* ``total_util_pct`` = summed guest-reported utilization (each vCPU = 100 %);
  ``util_basis = demand``: every tile guest runs sysbench flat out, so what the
  guests report is what they ask for (the guest does not see the time it waits
  for a host core), unlike the inflated guest-reported figures of DESIGN §6.1.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from vsizer._atomic import atomic_write
from vsizer.bench.export_io import disk_rows, network_rows
from vsizer.bench.samples import Sample, read_samples
from vsizer.errors import InputError, VsizerError

__all__ = ["COLUMNS", "export_for_fit", "export_parquet", "fit_rows", "parquet_frame"]

COLUMNS = (
    "model", "experiment", "env", "accelerator", "emulated", "hypervisor", "vms",
    "physical_cpus", "vcpus_per_vm", "total_util_pct", "util_basis", "throughput", "unit", "relative",
    "metric", "value", "run", "foreign_load_exceeded",
    # disk and network rows (vsizer.bench.export_io)
    "queue_depth", "access_spec", "backing", "block_size_kb", "direction", "nic_gbps",
    "senders", "receivers", "native_throughput",
)


def fit_rows(samples: list[Sample]) -> list[dict[str, object]]:
    """Rows of the measurement CSV from tile samples (pure)."""
    cpu = [s for s in samples if s.metadata.get("workload") == "tiles"
           and s.metadata.get("tile_kind") == "cpu" and s.metric == "events_per_s_host"]
    base = {s.metadata["run_id"]: s.value for s in cpu
            if s.metadata.get("aggregate") and s.metadata.get("tiles") == 1
            and s.metadata.get("tile") == 0}
    rows = []
    for s in cpu:
        m = s.metadata
        if m.get("aggregate") or m.get("warmup"):
            continue
        ref = base.get(m["run_id"])
        rows.append({
            "model": "cpu", "experiment": m["run_id"], "env": m.get("environment", "vm"),
            "accelerator": m.get("accelerator", ""), "emulated": str(bool(m.get("emulated"))).lower(),
            "hypervisor": m.get("hypervisor", ""), "vms": m["vms"],
            "physical_cpus": m.get("host_cores", ""), "vcpus_per_vm": m.get("vcpus", 1),
            "total_util_pct": m["total_util_pct"], "util_basis": "demand", "throughput": round(s.value, 3),
            "unit": s.unit, "relative": round(s.value / ref, 6) if ref else "",
            "metric": s.metric, "value": round(s.value, 3), "run": m.get("run", ""),
            "foreign_load_exceeded": str(bool(m.get("foreign_load_exceeded"))).lower(),
        })
    rows.sort(key=lambda r: (str(r["experiment"]), int(r["vms"]), int(r["run"] or 0)))
    return rows


def export_for_fit(store: str | Path, output: str | Path, nic_gbps: float | None = None,
                   notes: list[str] | None = None) -> int:
    """Write the measurement CSV from the tile, disk and network samples in ``store``;
    return the row count. ``nic_gbps``: line rate of the measured link, needed by
    the network send/receive rows; ``notes`` gets a line for every row left out.

    Raises
    ------
    InputError
        The store holds no tile CPU samples and no disk or network case measured
        both physical and in a VM.
    """
    samples = read_samples(store)
    net, skipped = network_rows(samples, nic_gbps)
    rows = fit_rows(samples) + disk_rows(samples) + net
    if skipped and notes is not None:
        notes.append(f"{skipped} network send/receive row(s) left out: give --nic-gbps "
                     "(the link's line rate) to export them.")
    if not rows:
        raise InputError(
            f"{Path(store).name}: no CPU tile samples and no disk or network case measured "
            "both physical and in a VM to export; run 'vsizer bench tiles --max 4 --tile cpu' "
            "or 'vsizer bench run quick --env both' first."
        )
    out = Path(output)
    with atomic_write(out, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=COLUMNS, lineterminator="\n", restval="")
        writer.writeheader()
        writer.writerows(rows)
    return len(rows)


def parquet_frame(samples: list[Sample]) -> Any:
    """All samples as one typed table (pure): one row per sample, one column per key.

    Columns: ``metric``, ``value``, ``unit``, ``timestamp``, then every metadata key
    (sorted). Lists and dicts become JSON text; a column whose values mix types
    (e.g. ``threads`` = 1 or "all") becomes text, so each column has one type.
    """
    import pandas as pd

    keys = sorted({k for s in samples for k in s.metadata})
    rows = []
    for s in samples:
        row: dict[str, Any] = {"metric": s.metric, "value": s.value, "unit": s.unit,
                               "timestamp": s.timestamp}
        for k in keys:
            v = s.metadata.get(k)
            row[k] = json.dumps(v, sort_keys=True, ensure_ascii=False) \
                if isinstance(v, (dict, list)) else v
        rows.append(row)
    frame = pd.DataFrame(rows, columns=["metric", "value", "unit", "timestamp", *keys])
    for k in keys:
        kinds = {type(v) for v in frame[k] if v is not None and v == v}
        if kinds == {int, float}:
            frame[k] = frame[k].astype(float)
        elif len(kinds) > 1:
            frame[k] = frame[k].map(lambda v: None if v is None or v != v else str(v))
    return frame


def export_parquet(store: str | Path, output: str | Path) -> int:
    """Write every sample of the JSONL ``store`` to one Parquet file; return the row count.

    Raises
    ------
    InputError
        The store is empty.
    VsizerError
        pyarrow is missing (``pip install 'vsizer[series]'``).
    """
    try:
        import pyarrow  # noqa: F401
    except ImportError:  # pragma: no cover - pyarrow ships with the 'series' extra
        raise VsizerError("Parquet export needs pyarrow: pip install 'vsizer[series]'.") from None
    samples = read_samples(store)
    if not samples:
        raise InputError(f"{Path(store).name}: the sample store is empty; nothing to export.")
    out = Path(output)
    with atomic_write(out) as fh:
        parquet_frame(samples).to_parquet(fh, engine="pyarrow", index=False)
    return len(samples)
