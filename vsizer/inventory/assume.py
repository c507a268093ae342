"""Sizes the user states for servers whose inventory row lacks them.

``plan --vm-mem-gib F`` gives the memory [GiB] of every server whose row has
none; ``plan --vm-cpu-mhz F`` gives the clock [MHz per core] of every server
with neither clock nor CPU score (applied during CPU normalization,
:func:`vsizer.catalogs.normalize.normalize_cpu`, where the catalog is known).
Each filled value is recorded as ``assumed`` with a note naming the flag; a
flag that fills nothing is a plan warning, never silently ignored.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from vsizer.errors import InventoryError
from vsizer.quality import QualityReport

__all__ = ["fill_memory"]


def fill_memory(
    servers: pd.DataFrame, quality: QualityReport, vm_mem_gib: float | None
) -> pd.DataFrame:
    """Fill missing ``mem_gib`` with ``vm_mem_gib`` (``plan --vm-mem-gib``).

    Parameters
    ----------
    servers : DataFrame
        Canonical inventory columns; ``mem_gib`` [GiB] may hold NA.
    quality : QualityReport
        Gets ``mem_gib`` = assumed for every filled server, or the warning
        ``vm_mem_gib_unused`` when no server lacked memory.
    vm_mem_gib : float or None
        Memory [GiB] for servers without one; ``None`` fills nothing.

    Returns
    -------
    DataFrame
        ``servers`` when nothing changes, else a copy with memory filled.

    Raises
    ------
    InventoryError
        Listing every server still without memory (no flag given).
    """
    mem = pd.to_numeric(servers["mem_gib"], errors="coerce").to_numpy(
        dtype=float, na_value=np.nan
    )
    names = servers["name"].astype(str).tolist()
    missing = np.flatnonzero(np.isnan(mem))
    if vm_mem_gib is None:
        if len(missing):
            raise InventoryError([_no_memory(names[i], quality) for i in missing])
        return servers
    if not len(missing):
        quality.warn(
            "vm_mem_gib_unused",
            f"--vm-mem-gib {vm_mem_gib:g} was not used: every server's memory is in "
            "the inventory.",
        )
        return servers
    out = servers.copy()
    out["mem_gib"] = pd.array(np.where(np.isnan(mem), float(vm_mem_gib), mem),
                              dtype="Float64")
    for i in missing:
        quality.record(
            names[i], "mem_gib", "assumed",
            f"no memory in the inventory: --vm-mem-gib {vm_mem_gib:g} GiB taken",
        )
    return out


def _no_memory(name: str, quality: QualityReport) -> str:
    where = quality.entries.get(name, {}).get("mem_gib", ("", ""))[1]
    return (
        f"{where or f'server {name!r}'}: no memory size for server '{name}': fill "
        "the cell, or pass --vm-mem-gib F for servers without one."
    )
