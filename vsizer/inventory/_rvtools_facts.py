"""Per-VM migration facts of an RVTools export (issue 30: readiness, hygiene).

Every vInfo row (templates and powered-off VMs too) gets one dict of what the
export tells about moving it; a fact whose tab or column is absent is ``None``
(unknown), never a reassuring default:

- from vInfo: power state (``on``, ``off``, ``suspended``, ``unknown``: every
  producer's spelling mapped as the reader does), template, folder, vApp, host, cluster, virtual
  hardware version (``HW version``: ``19`` in RVTools 4, ``vmx-19`` from other
  exporters), fault tolerance (``FT State``: anything but ``notConfigured``),
  guest OS (VMware Tools' view, else the configuration file's), provisioned and
  in-use size (``Provisioned MiB``, ``In Use MiB``);
- from vDisk, per disk: raw device mapping (``Raw`` true, or a ``Raw Comp.
  Mode`` / ``Raw Com. Mode`` of ``physicalMode``/``virtualMode``), a shared disk
  (``Sharing mode`` ``sharingMultiWriter``, or a ``Shared Bus`` other than
  ``noSharing``; RVTools 3.x writes that bus sharing as the number of the
  API's ``VirtualSCSISharing`` value [2]_, ``0`` for ``noSharing``), the largest
  disk's capacity;
- from vSnapshot: the number of snapshots and the oldest one's date;
- from vTools: the ``Tools`` status (``toolsOk``, ``toolsNotRunning``,
  ``toolsNotInstalled``, ``toolsOld``);
- from vUSB: the number of USB devices;
- from vHealth: messages naming the VM, and ``Zombie`` (orphaned) files;
- from vMetaData: the export's date (``xlsx creation datetime``), the day
  snapshot ages are counted to.

The tab and column names are RVTools 4.x's [1]_.

.. [1] Dell Technologies (Robware), *RVTools* 4.7 documentation, "vInfo,
   vDisk, vSnapshot, vTools, vUSB, vHealth tab" column lists.
.. [2] Broadcom (VMware), *vSphere Web Services API*, enum
   ``VirtualSCSISharing``: ``noSharing`` (the first value, 0), ``virtualSharing``,
   ``physicalSharing``. An RVTools 3.x export (ESXi 6.5) writes ``0`` for its
   disks and ``2`` for the bus of its physical-mode RDMs of a guest cluster.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from vsizer.inventory._build import clean_text
from vsizer.inventory._rvtools_names import vm_keys
from vsizer.inventory._rvtools_power import power_state
from vsizer.inventory._rvtools_sheets import Sheet
from vsizer.inventory._rvtools_sheets import key as _key
from vsizer.units import parse_bool, parse_number

__all__ = ["export_date", "vm_facts", "zombie_files"]

_MIB_PER_GIB = 1024.0
_RDM_MODES = frozenset({"physicalmode", "virtualmode", "physical", "virtual"})


def vm_facts(
    sheets: dict[str, Sheet | None], names: dict[int, str]
) -> dict[str, dict[str, Any]]:
    """VM name -> its migration facts (module docstring); ``names`` is vInfo
    row -> VM name (:func:`vsizer.inventory._rvtools_names.vinfo_names`)."""
    vinfo = sheets["vInfo"]
    assert vinfo is not None
    disks = _rows_by_vm(sheets.get("vDisk"))
    snaps = _rows_by_vm(sheets.get("vSnapshot"))
    tools = _rows_by_vm(sheets.get("vTools"))
    usb = _rows_by_vm(sheets.get("vUSB"))
    health = _health_by_name(sheets.get("vHealth"))
    out: dict[str, dict[str, Any]] = {}
    for row, cells in vinfo.rows:
        name = names.get(row)
        if name is None:
            continue
        f = _vinfo_facts(vinfo, cells)
        f.update(_disk_facts(sheets.get("vDisk"), disks.get(name, [])))
        f.update(_snapshot_facts(sheets.get("vSnapshot"), snaps.get(name, [])))
        f["tools"] = _tools(sheets.get("vTools"), tools.get(name, []))
        f["usb_devices"] = None if sheets.get("vUSB") is None else len(usb.get(name, []))
        f["health"] = None if sheets.get("vHealth") is None else health.get(
            (clean_text(cells.get("vm")) or "").casefold(), [])
        out[name] = f
    return out


def export_date(sheets: dict[str, Sheet | None]) -> str | None:
    """The export's date (ISO ``YYYY-MM-DD``) from vMetaData, else None."""
    meta = sheets.get("vMetaData")
    if meta is None or not meta.rows:
        return None
    d = _date(meta.rows[0][1].get(_key("xlsx creation datetime")))
    return None if d is None else d.isoformat()


def zombie_files(sheets: dict[str, Sheet | None]) -> list[str] | None:
    """Files vHealth calls zombie (orphaned: on a datastore, in no VM), or None
    without a vHealth tab."""
    sheet = sheets.get("vHealth")
    if sheet is None:
        return None
    found = []
    for _, cells in sheet.rows:
        text = f"{cells.get('message') or ''} {cells.get('message type') or ''}"
        if "zombie" in text.casefold():
            found.append(clean_text(cells.get("name")) or "")
    return sorted(set(found))


def _rows_by_vm(sheet: Sheet | None) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    if sheet is None:
        return out
    for _, cells in sheet.rows:
        for k in vm_keys(cells):  # by name, and NAME [ID] for a repeated name
            out.setdefault(k, []).append(cells)
    return out


def _health_by_name(sheet: Sheet | None) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    if sheet is None:
        return out
    for _, cells in sheet.rows:
        name, msg = clean_text(cells.get("name")), clean_text(cells.get("message"))
        if name and msg:
            out.setdefault(name.casefold(), []).append(msg)
    return out


def _text(sheet: Sheet, cells: dict[str, Any], header: str) -> str | None:
    """The cell's text, '' for an empty cell of a present column, None when the
    column is absent."""
    if not sheet.has(header):
        return None
    return clean_text(cells.get(_key(header))) or ""


def _mib(cells: dict[str, Any], header: str) -> float | None:
    try:
        x = parse_number(cells.get(_key(header)))
    except ValueError:
        return None
    return None if x is None or x < 0 else x / _MIB_PER_GIB


def _flag(value: Any) -> bool | None:
    try:
        return parse_bool(value)
    except ValueError:
        return None


def _bus_shared(value: Any) -> bool:
    """A ``Shared Bus`` cell other than ``noSharing`` (or blank, ``none``, ``0``)."""
    bus = (clean_text(value) or "nosharing").casefold()
    try:
        number = parse_number(bus)
    except ValueError:
        number = None
    if number is not None:  # RVTools 3.x: the enum's number, 0 = noSharing
        return number != 0
    return bus not in ("nosharing", "none")


def _vinfo_facts(sheet: Sheet, cells: dict[str, Any]) -> dict[str, Any]:
    hw = _text(sheet, cells, "HW version")
    match = re.search(r"(\d+)", hw or "")
    ft = _text(sheet, cells, "FT State")
    folder = _text(sheet, cells, "Folder")
    os_name = next((t for h in ("OS according to the VMware Tools",
                                "OS according to the configuration file", "OS")
                    if (t := _text(sheet, cells, h))), None)
    return {
        "power": power_state(_text(sheet, cells, "Powerstate")).state,  # on/off/...
        "template": _flag(cells.get("template")) or False,
        "srm_placeholder": _flag(cells.get("srm placeholder")) or False,
        "folder": (folder.rstrip("/").rsplit("/", 1)[-1] or None) if folder else None,
        "vapp": _text(sheet, cells, "vApp") or None,
        "host": _text(sheet, cells, "Host") or None,
        "cluster": _text(sheet, cells, "Cluster") or None,
        "hw_version": int(match.group(1)) if match else None,
        "ft": None if not ft else ft.casefold() not in ("notconfigured", "not configured"),
        "os": os_name,
        "provisioned_gib": next((x for h in ("Provisioned MiB", "Provisioned MB")
                                 if (x := _mib(cells, h)) is not None), None),
        "in_use_gib": next((x for h in ("In Use MiB", "In Use MB")
                            if (x := _mib(cells, h)) is not None), None),
    }


def _disk_facts(sheet: Sheet | None, rows: list[dict[str, Any]]) -> dict[str, Any]:
    if sheet is None:
        return {"rdm_disks": None, "shared_disks": None, "largest_disk_gib": None}
    rdm = shared = 0
    largest: float | None = None
    for cells in rows:
        mode = (clean_text(cells.get(_key("Raw Comp. Mode"))) or clean_text(
            cells.get(_key("Raw Com. Mode"))) or "").casefold()
        if _flag(cells.get("raw")) or mode in _RDM_MODES:
            rdm += 1
        sharing = (clean_text(cells.get(_key("Sharing mode"))) or "").casefold()
        if sharing == "sharingmultiwriter" or _bus_shared(cells.get(_key("Shared Bus"))):
            shared += 1
        size = next((x for h in ("Capacity MiB", "Capacity MB")
                     if (x := _mib(cells, h)) is not None), None)
        if size is not None and (largest is None or size > largest):
            largest = size
    return {"rdm_disks": rdm, "shared_disks": shared, "largest_disk_gib": largest}


def _snapshot_facts(sheet: Sheet | None, rows: list[dict[str, Any]]) -> dict[str, Any]:
    if sheet is None:
        return {"snapshots": None, "oldest_snapshot": None, "snapshot_gib": None}
    dates = [d for c in rows if (d := _date(c.get(_key("Date / time")))) is not None]
    sizes = [x for c in rows for h in ("Size MiB (total)", "Size MB (total)")
             if (x := _mib(c, h)) is not None]
    return {
        "snapshots": len(rows),
        "oldest_snapshot": min(dates).isoformat() if dates else None,
        "snapshot_gib": sum(sizes) if sizes else None,
    }


def _tools(sheet: Sheet | None, rows: list[dict[str, Any]]) -> str | None:
    if sheet is None or not rows:
        return None
    return clean_text(rows[0].get("tools"))


def _date(value: Any) -> dt.date | None:
    """A date from a datetime cell or an ISO text (``2025-09-14T06:27:19+00:00``,
    ``2025-12-17 16:35:29``); None otherwise."""
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    text = clean_text(value)
    m = re.match(r"(\d{4})-(\d{2})-(\d{2})", text or "")
    if not m:
        return None
    try:
        return dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return None
