"""How a VM of an RVTools export is named and found in the other tabs.

vCenter keeps a VM's name unique only within its folder: two VMs of one
export can share a name in different folders or datacenters, and an export of
several vCenters (RVTools connects to more than one; merged exports) holds the
protected VM and its SRM placeholder, or a VM and its replica, under one name.
What identifies a VM is its managed-object ID (``VM ID``, e.g. ``vm-1234``,
unique within its vCenter) and its instance UUID (``VM UUID``); RVTools 4
writes both on every per-VM tab (vInfo, vCPU, vMemory, vDisk, vPartition,
vSnapshot, ...).

So a vInfo name used by more than one row is read as ``NAME [VM ID]``, else
(VM IDs repeat across vCenters) ``NAME [VM UUID]``, else ``NAME [VI SDK
Server]``: the first identifier that all the rows of that name give and that
differs between them. It is stated in the warning
``rvtools_duplicate_vm_names``, and the VM's rows of the other tabs are found by
that identifier. Rows that no identifier tells apart (the same VM exported
twice) stay a duplicate name, an error as in any inventory.

A tab present in the export in which some vInfo VMs have no row (by name, or
name and ID) is warned as ``rvtools_vm_not_in_tab``: the figures that tab
would give those VMs are missing, not silently taken from elsewhere.
"""

from __future__ import annotations

from typing import Any

from vsizer.inventory._build import ProblemLog, clean_text
from vsizer.inventory._rvtools_sheets import Sheet
from vsizer.inventory._rvtools_sheets import key as _key
from vsizer.quality import QualityReport
from vsizer.units import NonFiniteError, parse_number

#: The per-VM identifiers of RVTools' tabs, in order of preference.
ID_HEADERS = ("VM ID", "VM UUID", "VI SDK Server")


def vm_keys(cells: dict[str, Any]) -> list[str]:
    """The keys a tab's row is found by: its VM name, and ``NAME [ID]`` for
    each identifier (:data:`ID_HEADERS`) the row gives."""
    name = clean_text(cells.get("vm"))
    if name is None:
        return []
    ids = (clean_text(cells.get(_key(h))) for h in ID_HEADERS)
    return [name, *(f"{name} [{i}]" for i in ids if i is not None)]


def vinfo_names(vinfo: Sheet, quality: QualityReport) -> dict[int, str]:
    """vInfo row -> the VM's name: its ``VM`` cell, or ``NAME [ID]`` where
    that name is used by other rows too and an identifier tells them apart
    (module docstring); warned as ``rvtools_duplicate_vm_names``."""
    names = {row: clean_text(c.get("vm")) for row, c in vinfo.rows}
    groups: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    for row, cells in vinfo.rows:
        name = names[row]
        if name is not None:
            groups.setdefault(name.casefold(), []).append((row, cells))
    keyed: dict[int, str] = {}
    for rows in (g for g in groups.values() if len(g) > 1):
        for h in ID_HEADERS:
            ids = [clean_text(c.get(_key(h))) for _, c in rows]
            if None not in ids and len({str(i).casefold() for i in ids}) == len(ids):
                pairs = zip(rows, ids, strict=True)
                keyed.update({r: f"{names[r]} [{i}]" for (r, _), i in pairs})
                break
    if keyed:
        quality.warn(
            "rvtools_duplicate_vm_names",
            f"{len(keyed)} VM(s) of '{vinfo.name}' share their name with another "
            "row (vCenter keeps a name unique only within its folder; an export "
            "of several vCenters repeats names): each is named 'NAME [ID]' by its "
            "VM ID (else VM UUID, VI SDK Server) and found in the other tabs by "
            f"that ID, e.g. '{next(iter(keyed.values()))}'.",
            sorted(keyed.values()),
        )
    return {row: keyed.get(row, n) for row, n in names.items() if n is not None}


def index(sheet: Sheet) -> dict[str, dict[str, Any]]:
    """Key (:func:`vm_keys`) -> the first row of the sheet with it (row number
    under ``'#row'``, the sheet under ``'#sheet'``)."""
    out: dict[str, dict[str, Any]] = {}
    for row, cells in sheet.rows:
        for k in vm_keys(cells):
            if k not in out:
                out[k] = {**cells, "#row": row, "#sheet": sheet}
    return out


def sums(
    sheet: Sheet | None, headers: tuple[str, ...], problems: ProblemLog,
    expected: str = "a non-negative size [MiB]",
) -> dict[str, tuple[float, int]]:
    """Key (:func:`vm_keys`) -> (sum of the first present header, rows), or {}.

    A cell that is not a non-negative number is a problem line of the sheet.
    """
    if sheet is None:
        return {}
    header = next((h for h in headers if sheet.has(h)), None)
    if header is None:
        return {}
    out: dict[str, tuple[float, int]] = {}
    for row, cells in sheet.rows:
        raw = cells.get(_key(header))
        try:
            x = parse_number(raw)
        except (ValueError, NonFiniteError):
            x = -1.0
        if x is not None and x < 0:
            problems.cell(row, sheet.header(header), expected,
                          clean_text(raw) or "", sheet=sheet.name)
            continue
        if x is None:
            continue
        for k in vm_keys(cells):
            total, n = out.get(k, (0.0, 0))
            out[k] = (total + x, n + 1)
    return out


def warn_not_in_tabs(
    names: list[str], sheets: dict[str, Sheet | None], quality: QualityReport,
    known: list[str] | None = None,
    tabs: tuple[str, ...] = ("vCPU", "vMemory", "vDisk", "vPartition"),
) -> None:
    """``rvtools_vm_not_in_tab`` for each tab of ``tabs`` in the export in
    which some of the (planned) VMs ``names`` have no row; for vPartition, which
    lists only VMs whose VMware Tools report their guest's partitions, only when
    its rows name none of vInfo's VMs (``known``, default ``names``): they then
    name the VMs otherwise than vInfo does."""
    for tab in tabs:
        sheet = sheets.get(tab)
        if sheet is None or not sheet.rows:
            continue
        rows = index(sheet)
        missing = [n for n in names if n not in rows]
        if tab == "vPartition" and any(n in rows for n in (known or names)):
            continue
        if missing:
            quality.warn(
                "rvtools_vm_not_in_tab",
                f"{len(missing)} of {len(names)} VM(s) of vInfo have no row in the "
                f"{tab} tab (matched by VM name, or name and VM ID): what {tab} "
                f"gives is missing for them, e.g. '{missing[0]}' (a filtered or "
                "inconsistent export; check the VM column of both tabs).",
                missing,
            )
