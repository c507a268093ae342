"""Memory entered in MB instead of GiB (issue 27: forgiving input).

A memory column read as GiB (its header says GiB/GB, or says nothing and its
values are small enough for the reader to keep GiB) whose every value looks
like megabytes is one error line with the hint ``--mem-unit MB``, instead of
one placement error per server. ``--mem-unit`` sets the column's unit
whatever the header says or the reader guessed.

The rule (all three must hold, over the column's non-empty values):

* every value is at least 512 -- no server or VM has 512 GiB and more as its
  smallest size in a whole list, while 512 MB is a common small VM;
* every value is a whole multiple of 256 -- memory is sized in powers of two
  and their sums (DIMM and VM sizes: 512, 1,024, 1,536, 2,048 ... MB);
* the median is at least 4,096 -- a median server with 4 TiB and more is
  implausible in a consolidation list, a median VM of 4 GB is ordinary.

Lists of large GiB hosts can pass the first two; the median keeps them out
(a median of 4,096 GiB would be the largest two-socket hosts of 2024).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from vsizer.errors import ConfigError, InventoryError

__all__ = ["MEM_UNITS", "apply_mem_unit", "looks_like_mb"]

#: Accepted ``--mem-unit`` values and their size in GiB.
MEM_UNITS = {"gib": 1.0, "gb": 1.0, "mib": 1 / 1024, "mb": 1 / 1024}


def looks_like_mb(values: list[float]) -> bool:
    """Whether memory sizes ``values`` (read as GiB) look like megabytes."""
    if not values:
        return False
    ordered = sorted(values)
    median = ordered[len(ordered) // 2]
    return ordered[0] >= 512 and median >= 4096 and all(v % 256 == 0 for v in values)


def _memory_header(metadata: dict[str, Any]) -> tuple[str | None, str | None]:
    """(header of the memory column, the unit it was read in) from the reader."""
    columns, units = metadata.get("columns") or {}, metadata.get("units") or {}
    header = next((h for h, f in columns.items() if f == "mem_gib"), None)
    return header, (units.get(header) if header is not None else None)


def _rescaled(inv: Any, factor: float, note: str) -> Any:
    servers = inv.servers.copy()
    for col in ("mem_gib", "mem_used_gib"):
        if col in servers:
            servers[col] = servers[col] * factor
    inv.quality.note(note)
    return dataclasses.replace(inv, servers=servers)


def apply_mem_unit(inv: Any, mem_unit: str | None) -> Any:
    """``inv`` with its memory read in ``mem_unit`` (``--mem-unit``), whatever
    unit the reader took from the header or guessed.

    Without ``mem_unit``, a memory column read as GiB (stated by its header
    or by default) whose every value looks like MB (:func:`looks_like_mb`)
    is an error of one line naming the values and the way out.
    """
    header, read_as = _memory_header(inv.metadata)
    if header is None or "mem_gib" not in inv.servers:
        return inv
    was = {**MEM_UNITS, "b": 2.0**-30}.get((read_as or "GiB").casefold(), 1.0)
    if mem_unit is not None:
        factor = MEM_UNITS.get(mem_unit.strip().casefold())
        if factor is None:
            raise ConfigError(
                f"--mem-unit: expected one of GiB, GB, MiB, MB, got {mem_unit!r}.")
        if factor == was:
            return inv
        return _rescaled(inv, factor / was,
                         f"column '{header}' read in {mem_unit} (--mem-unit)")
    values = [float(v) for v in inv.servers["mem_gib"].dropna().tolist()]
    if was == 1.0 and looks_like_mb(values):
        shown = ", ".join(f"{v:,.0f}" for v in sorted(set(values))[:3])
        raise InventoryError(
            f"{Path(str(inv.source)).name}, column '{header}': memory looks like MB, "
            f"not GiB: all {len(values)} values are multiples of 256 and at least 512 "
            f"({shown} ...); divide by 1,024 or say --mem-unit MB (--mem-unit GiB "
            "if they are GiB)."
        )
    return inv
