"""Disk and network rows of the measurement CSV ``vsizer fit`` reads (pure).

* **disk**: each VM case's aggregate throughput [MB/s] over the physical
  aggregate of the same run, access specification, queue depth, backing and
  write cache: ``relative`` = VM / native. Backing ``volume`` (a whole block
  device) is ``pass-through``; ``prealloc``, ``sparse`` and ``qcow2`` files are
  ``file``. qcow2 has no physical counterpart and is not exported.
* **network**: received throughput [Mbit/s]. A VM's ``host-guest`` case over the
  physical case of the same block size and direction is ``send`` / ``receive``
  with ``native_throughput``, and needs the link's line rate (``nic_gbps``,
  ``bench export --nic-gbps``; without it those rows are left out and counted in
  a note); a ``guest-guest`` case is ``vm_to_vm`` (1 sender, 1 receiver).
"""

from __future__ import annotations

import re
from typing import Any

from vsizer.bench.samples import Sample

__all__ = ["block_kib", "disk_rows", "network_rows"]

#: Bench access specification -> the measurement CSV's.
ACCESS_SPEC = {"seq_read": "sequential_read", "seq_write": "sequential_write",
               "database": "database", "fileserver": "file_server"}
BACKING = {"volume": "pass-through", "prealloc": "file", "sparse": "file"}
_AGGREGATES = ("trimmed_mean", "steady_window")


def block_kib(text: str) -> float:
    """Block size text (``8K``, ``128K``, ``1M``, ``512``) in KiB.

    >>> [block_kib(t) for t in ("2K", "128K", "1M", "512")]
    [2.0, 128.0, 1024.0, 0.5]
    """
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KkMm]?)\s*", str(text))
    if not m:
        raise ValueError(f"block size: expected e.g. 8K or 1M, got {text!r}.")
    n = float(m.group(1))
    return {"": n / 1024.0, "k": n, "m": n * 1024.0}[m.group(2).lower()]


def _agg(samples: list[Sample], workload: str, metric: str) -> list[Sample]:
    return [s for s in samples if s.metadata.get("workload") == workload
            and s.metric == metric and s.metadata.get("aggregate") in _AGGREGATES]


def _base(s: Sample, model: str) -> dict[str, Any]:
    m = s.metadata
    return {"model": model, "experiment": m.get("run_id", ""), "env": "vm",
            "accelerator": m.get("accelerator", ""),
            "emulated": str(bool(m.get("emulated"))).lower(),
            "hypervisor": m.get("hypervisor", ""), "vms": 1, "unit": s.unit,
            "metric": s.metric, "value": round(s.value, 3), "run": "",
            "foreign_load_exceeded": str(bool(m.get("foreign_load_exceeded"))).lower()}


def disk_rows(samples: list[Sample]) -> list[dict[str, Any]]:
    """One row per VM disk case with a physical counterpart."""
    agg = _agg(samples, "disk", "mb_s")

    def key(s: Sample) -> tuple[Any, ...]:
        m = s.metadata
        return (m.get("run_id"), m.get("access_spec"), m.get("queue_depth"),
                m.get("backing"), m.get("write_cache"))

    native = {key(s): s.value for s in agg if s.metadata.get("environment") == "physical"}
    rows = []
    for s in agg:
        m = s.metadata
        ref = native.get(key(s))
        if m.get("environment") != "vm" or not ref or m.get("backing") not in BACKING \
                or m.get("access_spec") not in ACCESS_SPEC:
            continue
        rows.append({**_base(s, "disk"), "queue_depth": m["queue_depth"],
                     "access_spec": ACCESS_SPEC[m["access_spec"]],
                     "backing": BACKING[m["backing"]], "throughput": round(s.value, 3),
                     "native_throughput": round(ref, 3), "relative": round(s.value / ref, 6)})
    rows.sort(key=lambda r: (str(r["experiment"]), r["access_spec"], r["backing"],
                             float(r["queue_depth"])))
    return rows


def network_rows(samples: list[Sample], nic_gbps: float | None = None
                 ) -> tuple[list[dict[str, Any]], int]:
    """Rows per VM network case, and how many ``host-guest`` rows were left out
    for want of ``nic_gbps``."""
    agg = _agg(samples, "network", "received_mbit_s")

    def key(s: Sample) -> tuple[Any, ...]:
        m = s.metadata
        return (m.get("run_id"), m.get("block_size"), m.get("direction"))

    native = {key(s): s.value for s in agg if s.metadata.get("environment") == "physical"}
    rows, skipped = [], 0
    for s in agg:
        m = s.metadata
        if m.get("environment") != "vm":
            continue
        row = {**_base(s, "network"), "block_size_kb": block_kib(m.get("block_size", "0")),
               "throughput": round(s.value, 3)}
        if m.get("link") == "guest-guest":
            rows.append({**row, "direction": "vm_to_vm", "senders": 1, "receivers": 1})
            continue
        ref = native.get(key(s))
        if not ref:
            continue
        if nic_gbps is None:
            skipped += 1
            continue
        rows.append({**row, "direction": m.get("direction"), "nic_gbps": nic_gbps,
                     "native_throughput": round(ref, 3), "relative": round(s.value / ref, 6)})
    rows.sort(key=lambda r: (str(r["experiment"]), str(r["direction"]),
                             float(r["block_size_kb"])))
    return rows, skipped
