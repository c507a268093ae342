"""A server's disk size given one column per disk.

VM-build lists give each disk its own column: ``DdrivesizeGB``,
``EdrivesizeGB``, ``FdrivesizeGB`` (PowerCLI), ``disk0.size_gb`` (Ansible
vSphere), ``extra_disk1_size``, ``extra_disk2_size`` (Ansible Proxmox),
``disk_gb`` beside ``data_disk_gb`` (libvirt). The server's disk size is their
sum, each column in the unit its header states (GB when none, as a disk
column's default), a blank cell adding nothing. The sum replaces the disk
column and is warned (``disk_from_columns``), naming the columns summed: a disk
that is in no column (the system disk of a list that gives only the extra
ones) is not counted. Found with real lists (tests/data/real/tables/README.md,
third round).
"""

from __future__ import annotations

import re
from typing import Any

from vsizer.inventory._io import Grid
from vsizer.inventory.headers import HeaderMatch, looks_like_size
from vsizer.units import (
    canonical_unit,
    disk_to_gib,
    is_blank,
    normalize_text,
    parse_quantity,
)

__all__ = ["sum_disk_columns"]

#: A header about a disk (and not, say, memory or a page file).
_DISK_WORD = re.compile(r"disk|drive|hdd|ssd|vhd|vmdk|ディスク|ドライブ")
#: A disk named by its number: "Hard disk 1", "disk2".
_NUMBERED = re.compile(r"(?:disk|drive|hdd|ディスク)\s*\d+$")
#: Not a disk's size: its used or free part.
_NOT_SIZE = re.compile(r"used|free|usage|consumed|avail|in use|使用|空き|残")
#: A size unit standing alone or glued to the end of the header.
_UNIT = re.compile(r"(?<![a-z])([kmgt]i?b)(?![a-z])|([kmgt]i?b)$")


def _per_disk(header: str, values: list[Any]) -> bool:
    """Whether a header not otherwise read is one disk's size: a disk word and
    a size (``extra_disk1_size``, ``DdrivesizeGB``), or a disk word and its
    number (``Hard disk 1``, as vSphere names a VM's disks) over a column of
    numbers (``extra_disk1`` holding yes/no is no size); never its used or free
    space."""
    text = normalize_text(header).casefold()
    if not _DISK_WORD.search(text) or _NOT_SIZE.search(text):
        return False
    if looks_like_size(header):
        return True
    return bool(_NUMBERED.search(text)) and all(_number(v) for v in values)


def _number(value: Any) -> bool:
    try:
        return is_blank(value) or parse_quantity(value) is not None
    except ValueError:
        return False


def _header_unit(header: str) -> str | None:
    m = _UNIT.search(normalize_text(header).casefold())
    return canonical_unit(m.group(1) or m.group(2)) if m else None


def _row_total(cells: list[Any], disks: list[tuple[int, str]]) -> float | None:
    """Sum in GiB of a row's disk cells; None when all are blank. Raises
    ValueError for a cell that is no size."""
    total, seen = 0.0, False
    for i, unit in disks:
        v = cells[i] if i < len(cells) else None
        if is_blank(v):
            continue
        q = parse_quantity(v)
        if q is None:
            continue
        total += disk_to_gib(q[0], q[1] or unit)
        seen = True
    return total if seen else None


def sum_disk_columns(
    grid: Grid,
    header_at: int,
    cells: list[Any],
    cols: dict[str, int],
    matches: dict[str, HeaderMatch],
    metadata: dict[str, Any],
    where: str,
) -> Grid:
    """``grid`` with a last column holding each server's disk size in GiB, the
    sum of its per-disk columns (and of the disk column, when there is one),
    read as ``disk_gib``; unchanged when the list has no per-disk column or
    one of their cells is no size (each column is then checked as before)."""
    rows = grid[header_at + 1:]
    extra = [(i, str(h)) for i, h in enumerate(cells)
             if str(h) in metadata["unmapped"] and _per_disk(
                 str(h), [c[i] if i < len(c) else None for _, c in rows])]
    if not extra:
        return grid
    stated = [(i, _header_unit(h)) for i, h in extra]
    disks = [(i, u or "GB") for i, u in stated]
    names = [h for _, h in extra]
    unitless = [h for (_, u), h in zip(stated, names, strict=True) if u is None]
    assumed = (f"; {', '.join(repr(h) for h in unitless)} in GB (10^9 bytes), "
               "no unit being stated" if unitless else "")
    if len(extra) == 1 and "disk_gib" not in matches:  # the one disk: read as is
        metadata["unmapped"].remove(names[0])
        (i, unit), = disks
        cols["disk_gib"], matches["disk_gib"] = i, HeaderMatch(names[0], "disk_gib", unit, True)
        metadata["columns"][names[0]] = "disk_gib"
        _warn(metadata, f"{where}: disk size read from column '{names[0]}' in {unit}"
              + (", no unit being stated" if unitless else ""))
        return grid
    if "disk_gib" in matches:
        m = matches["disk_gib"]
        disks.insert(0, (cols["disk_gib"], m.unit or "GB"))
        names.insert(0, m.header)
        if m.unit is None:
            unitless.insert(0, m.header)
            assumed = (f"; {', '.join(repr(h) for h in unitless)} in GB (10^9 "
                       "bytes), no unit being stated")
    try:
        totals = [_row_total(c, disks) for _, c in grid[header_at + 1:]]
    except ValueError:
        return grid
    metadata["unmapped"][:] = [h for h in metadata["unmapped"] if h not in names]
    header = "sum of " + " + ".join(names)
    width = max(len(c) for _, c in grid)
    out: Grid = list(grid[:header_at])
    out.append((grid[header_at][0], [*grid[header_at][1], *[None] * (
        width - len(grid[header_at][1])), header]))
    for (r, c), total in zip(grid[header_at + 1:], totals, strict=True):
        out.append((r, [*c, *[None] * (width - len(c)), total]))
    if "disk_gib" in matches:
        metadata["columns"].pop(matches["disk_gib"].header, None)
    cols["disk_gib"] = width
    matches["disk_gib"] = HeaderMatch(header, "disk_gib", "GiB", True)
    metadata["columns"][header] = "disk_gib"
    _warn(metadata, f"{where}: disk size = the sum of columns "
          f"{', '.join(repr(n) for n in names)} (one column per disk){assumed}; a disk "
          "in no column is not counted")
    return out


def _warn(metadata: dict[str, Any], message: str) -> None:
    metadata.setdefault("warnings", []).append(("disk_from_columns", message))
