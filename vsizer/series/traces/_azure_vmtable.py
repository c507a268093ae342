"""The Azure Public Dataset VM table: each VM's core-count and memory buckets.

Read after the readings, keeping only the rows of VMs that have readings, so
the 2.7 million rows of V2's ``vmtable.csv.gz`` cost one block at a time plus
the VMs planned. Bucket semantics and the two open buckets: see
:mod:`vsizer.series.traces.azure`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from vsizer.series._tidy import Problems, file_label
from vsizer.series.model import SeriesQuality
from vsizer.series.traces._parquet import is_parquet, parquet_batches, text_series
from vsizer.series.traces._rows import csv_rows

__all__ = ["OPEN_BUCKET_CORES", "OPEN_BUCKET_MEM_GB", "VMTABLE_COLUMNS", "VmSizes", "read_vm_sizes"]

#: Columns of ``vmtable.csv`` (no header line) [AzurePublicDatasetV2.md items 6-14].
VMTABLE_COLUMNS: tuple[str, ...] = (
    "vmid", "subscriptionid", "deploymentid", "vmcreated", "vmdeleted",
    "maxcpu", "avgcpu", "p95maxcpu", "vmcategory", "vmcorecountbucket", "vmmemorybucket",
)  # fmt: skip

#: Cores given to the open bucket ``>24`` (the dataset's analysis notebook).
OPEN_BUCKET_CORES = 30
#: GB given to the open bucket ``>64`` (the dataset's analysis notebook).
OPEN_BUCKET_MEM_GB = 70.0
_OPEN = {"vmcorecountbucket": (">24", OPEN_BUCKET_CORES), "vmmemorybucket": (">64", OPEN_BUCKET_MEM_GB)}
_WHAT = {
    "vmcorecountbucket": "a core-count bucket (2, 4, 8, 24, >24 or a whole number above 0)",
    "vmmemorybucket": "a memory bucket in GB (2, 4, 8, 32, 64, >64 or a number above 0)",
}
_PARQUET_NAMES = {
    "vmid": ("vmid", "vm_id"),
    "vmcategory": ("vmcategory", "vm_category"),
    "vmcorecountbucket": ("vmcorecountbucket", "vm_virtual_core_count_bucket", "vmcorecount"),
    "vmmemorybucket": ("vmmemorybucket", "vm_memory_gb_bucket", "vmmemory"),
}


@dataclass
class VmSizes:
    """Sizes of the VMs with readings found in the vmtable."""

    table: pd.DataFrame
    rows: int = 0
    repeated: int = 0
    open_counts: dict[str, int] = field(default_factory=dict)

    def describe(
        self, metadata: dict[str, Any], quality: SeriesQuality, servers: list[str], name: str
    ) -> None:
        """``machines`` and ``assumptions`` in ``metadata``; notes on VMs not matched."""
        t = self.table
        known = t.index.intersection(pd.Index(servers))
        sub = t.loc[known]
        metadata["machines"] = {
            str(vm): {
                "cpu_count": int(c), "mem_gib": float(m), "vm_category": str(cat),
                "core_bucket": str(cb), "memory_bucket": str(mb),
            }
            for vm, c, m, cat, cb, mb in zip(
                sub.index, sub["cores"], sub["mem_gib"], sub["vmcategory"],
                sub["vmcorecountbucket"], sub["vmmemorybucket"], strict=True,
            )
        }  # fmt: skip
        no_row = sorted(set(servers) - set(known))
        metadata["vms_without_vmtable_row"] = len(no_row)
        metadata["vmtable_rows_without_readings"] = self.rows - len(t) - self.repeated
        quality.note(
            f"{name}: cores and memory of {len(known)} of {len(servers)} VMs from their "
            "buckets (the largest size of each bucket; GB read as GiB); a plan without "
            "an inventory takes the cores and memory from them (--vm-mem-gib overrides)."
        )
        if no_row:
            shown = ", ".join(no_row[:5]) + (", ..." if len(no_row) > 5 else "")
            quality.note(
                f"{name}: no row for {len(no_row)} VM(s) with readings ({shown}); their "
                "size comes from --vm-cpu-mhz / --vm-mem-gib."
            )
        if metadata["vmtable_rows_without_readings"]:
            quality.note(
                f"{name}: {metadata['vmtable_rows_without_readings']} VM(s) have no "
                "reading in the files read (not planned)."
            )
        if self.repeated:
            quality.note(f"{name}: {self.repeated} repeated vmid row(s); the first kept.")
        assumptions = []
        for col, (label, value) in _OPEN.items():
            n = int((sub[col] == label).sum())
            if n:
                unit = "cores" if col == "vmcorecountbucket" else "GiB"
                text = (
                    f"{n} VM(s) in the open bucket {col} '{label}' sized {value:g} {unit} "
                    "(no upper bound in the trace; the dataset's analysis notebook value)."
                )
                assumptions.append({"column": col, "bucket": label, "value": value, "count": n})
                quality.note(f"Assumption: {text}")
        metadata["assumptions"] = assumptions


def read_vm_sizes(path: Path, wanted: set[str], problems: Problems) -> VmSizes:
    """Rows of ``wanted`` VMs from a vmtable (CSV without header, or Parquet)."""
    file = file_label(path)
    parts = []
    rows = 0
    for _row0, frame, unit in _chunks(path, file, problems):
        rows += len(frame)
        part = _checked(frame, file, unit, problems)
        parts.append(part[part.index.isin(wanted)])
    if not rows and not problems:
        problems.whole(file, "expected vmtable rows, got none.")
    if not parts:
        empty = pd.DataFrame(columns=["vmcategory", "vmcorecountbucket", "vmmemorybucket", "cores", "mem_gib"])
        return VmSizes(empty, rows)
    table = pd.concat(parts)
    dup = table.index.duplicated(keep="first")
    return VmSizes(table[~dup], rows, int(dup.sum()))


def _chunks(path: Path, file: str, problems: Problems) -> Iterator[tuple[int, pd.DataFrame, str]]:
    """Text frames (vmid, vmcategory, buckets, ``line``) of a vmtable file."""
    if is_parquet(path):
        for row0, cols in parquet_batches(path, file=file, wanted=_PARQUET_NAMES, problems=problems):
            frame = pd.DataFrame(
                {c: text_series(a) for c, a in cols.items()}
            )
            frame["line"] = np.arange(row0, row0 + len(frame))
            yield row0, frame, "row"
        return
    for chunk in csv_rows(
        path, file=file, columns=VMTABLE_COLUMNS, usecols=(0, 8, 9, 10), problems=problems
    ):
        if int(chunk["line"].iloc[0]) == 1 and chunk["vmid"].iloc[0].strip().lower() in ("vmid", "vm_id"):
            chunk = chunk.iloc[1:]
        yield int(chunk["line"].iloc[0]) if len(chunk) else 0, chunk, "line"


def _checked(frame: pd.DataFrame, file: str, unit: str, problems: Problems) -> pd.DataFrame:
    """vmid-indexed category, buckets, cores and GiB; bad cells recorded."""
    lines = frame["line"].to_numpy()
    ids = frame["vmid"].astype(str).str.strip()
    for pos in np.flatnonzero((ids == "").to_numpy()):
        problems.cell(file, int(lines[pos]), "a VM id", "", column="vmid", unit=unit)
    out = pd.DataFrame(index=pd.Index(ids.to_numpy(), name="vmid"))
    out["vmcategory"] = frame["vmcategory"].astype(str).str.strip().to_numpy()
    for col, dest in (("vmcorecountbucket", "cores"), ("vmmemorybucket", "mem_gib")):
        text = frame[col].astype(str).str.strip()
        label, open_value = _OPEN[col]
        num = pd.to_numeric(text, errors="coerce").to_numpy(dtype=np.float64)
        num = np.where((text == label).to_numpy(), open_value, num)
        ok = np.isfinite(num) & (num > 0)
        if col == "vmcorecountbucket":
            ok &= np.round(num) == num
        for pos in np.flatnonzero(~ok):
            problems.cell(file, int(lines[pos]), _WHAT[col], text.iloc[pos], column=col, unit=unit)
        out[col] = text.to_numpy()
        out[dest] = num
    return out[(ids != "").to_numpy()]
