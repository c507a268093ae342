"""Reader of RVTools exports (VMware vSphere inventory workbooks).

One VM per row of the ``vInfo`` sheet; when present, the ``vCPU``,
``vMemory``, ``vDisk``, ``vPartition`` and ``vSnapshot`` sheets are joined by VM
name (a repeated name: name and VM ID, :mod:`vsizer.inventory._rvtools_names`)
and ``vHost`` by the VM's host. The export is an ``.xlsx``, RVTools'
per-tab CSV export (a folder, or its ``vInfo.csv``/``RVTools_tabvInfo.csv``;
:mod:`vsizer.inventory._rvtools_sheets`), or a file another tool wrote in that
layout. Power states of every producer are mapped
(:mod:`vsizer.inventory._rvtools_power`); used disk space comes from the guest
view where present (:mod:`vsizer.inventory._rvtools_storage`). Rows are VMs:
their numbers are checked against the hypervisors' per-VM maxima
(``kind='vm'``, :func:`vsizer.plausible.ranges`). Header names vary between RVTools versions: newer exports write
sizes in ``MiB`` (``Total disk capacity MiB``, ``Size MiB``), older ones in
``MB``; headers may carry trailing spaces. The layout found is recorded in
``metadata['size_unit_layout']``.

Both layouts hold the same numbers: vSphere reports sizes in binary units
(KiB), and RVTools renamed its "MB" headers to "MiB" without changing the
values. So RVTools sizes are read as MiB in either layout.

**The VM's host.** vInfo's ``Host`` is matched to vHost's ``Host``, first
rule with one candidate (:mod:`vsizer.inventory._rvtools_hosts`):

1. the same name after case folding (and without a trailing dot);
2. the same short name, the part before the first dot
   (``VMSP-02.Customer.com`` = ``vmsp-02``; an IPv4 address is kept whole);
3. one short name ends with the other, the shorter being at least 4
   characters (``bovmsp-04.customer.com`` -> ``vmsp-04``; not for IPs);
   warned (``rvtools_host_matched_by_suffix``) since it is a guess.

Several candidates are narrowed to the VM's cluster; still several: none is
used and the warning ``rvtools_host_ambiguous`` names them. Names found
nowhere are listed in ``rvtools_host_not_in_vhost`` with their VMs.

**CPU of a VM.** Its host's ``CPU Model`` and ``Speed`` (derived). Without a
matched host: the CPU model most hosts of the VM's cluster have (all vHost
hosts when the cluster has none; ties to the faster clock) and the median
clock of those hosts, ``estimated``, the note naming the cluster. So a
cluster mixing X5675 and X5690 hosts, or clocks 2699 and 2700 MHz, plans.
The CPU's score is looked up by name in the CPU catalog at normalization.

**CPU utilization of a VM**, best source first:

1. vCPU sheet: ``Overall`` (consumed MHz at export time) divided by ``Max``
   (the MHz the VM may use, vCPUs x host clock) or else by vCPUs x the host's
   ``Speed`` (derived);
2. its host's ``CPU usage %`` (vHost), shared among the powered-on VMs
   matched to the host in proportion to their vCPUs (``estimated``, note
   "estimated from host <name> CPU usage")::

       demand_vm = U_h x (cores_h x MHz_h) x vcpus_vm / sum(vcpus on h)
       util_vm   = demand_vm / (vcpus_vm x MHz_h)
                 = U_h x cores_h / sum(vcpus on h),   capped at 1

   with U_h the host's CPU usage [fraction of cores x clock], cores_h its
   physical cores (``# Cores``, else ``# CPU`` x ``Cores per CPU``). Every
   VM of a host gets the same fraction. The host's usage includes the
   hypervisor's own, so this slightly overstates the VMs (conservative). A
   fraction above 1 (a host busier than its vCPUs could make it) is capped,
   warned as ``rvtools_host_usage_capped``;
3. none: left empty, and normalization applies ``assume_util`` (assumed).

Each source is one point sample, so the peak is taken equal to it
(``assumed``). For a real peak, feed a utilization time series. When vHost
gives ``Memory usage %``, a VM without vMemory ``Consumed`` gets
``mem_used_gib`` = usage x host memory x its share of the configured memory
of the host's powered-on VMs, capped at its own memory (``estimated``).

**Before.** :attr:`Inventory.hosts_before` lists every vHost row (vendor and
model, CPU, sockets, cores, clock, memory, usage, matched powered-on VMs):
the plan costs these hosts, not the VMs, as the servers replaced.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from vsizer.inventory._build import ProblemLog, ServerRecord, clean_text, finish
from vsizer.inventory._rvtools_facts import export_date, vm_facts, zombie_files
from vsizer.inventory._rvtools_hosts import (
    HostIndex,
    HostMatch,
    estimate_usage,
    fallback_cpu,
    hosts_frame,
    match_hosts,
    read_hosts,
)
from vsizer.inventory._rvtools_ids import join_by_id
from vsizer.inventory._rvtools_names import index as _index
from vsizer.inventory._rvtools_names import vinfo_names, vm_keys, warn_not_in_tabs
from vsizer.inventory._rvtools_power import PowerState, power_state, warn_power_states
from vsizer.inventory._rvtools_sheets import EXTRA_SHEETS, SHEETS, read_sheets
from vsizer.inventory._rvtools_sheets import Sheet as _Sheet
from vsizer.inventory._rvtools_sheets import key as _key
from vsizer.inventory._rvtools_storage import UsedDisk
from vsizer.inventory.model import Inventory
from vsizer.quality import QualityReport
from vsizer.units import NonFiniteError, memory_to_gib, parse_bool, parse_number

__all__ = ["VARIABLE_MAP", "read_rvtools"]

#: Canonical name -> ``"sheet:header"`` sources, in order of preference.
#: ``cpu_name``/``cpu_mhz`` come from the VM's host in vHost; the utilization
#: from vCPU ``Overall`` MHz, else the host's ``CPU usage %`` shared by vCPUs
#: (see the module docstring).
VARIABLE_MAP: dict[str, list[str]] = {
    "name": ["vInfo:VM"],
    "vcpus": ["vCPU:CPUs", "vInfo:CPUs", "vInfo:Num CPU", "vInfo:Num CPUs"],
    "sockets": ["vCPU:Sockets"],
    "cores_per_socket": ["vCPU:Cores p/s"],
    "mem_gib": ["vMemory:Size MiB", "vMemory:Size MB", "vInfo:Memory"],
    "mem_used_gib": ["vMemory:Consumed", "vHost:Memory usage %"],
    "disk_gib": [
        "vDisk:Capacity MiB", "vDisk:Capacity MB", "vInfo:Total disk capacity MiB",
        "vInfo:Total disk capacity MB", "vInfo:Provisioned MiB", "vInfo:Provisioned MB",
    ],
    "disk_used_gib": [
        "vPartition:Consumed MiB", "vPartition:Consumed MB", "vInfo:In Use MiB",
        "vInfo:In Use MB",
    ],
    "cpu_name": ["vHost:CPU Model"],
    "cpu_mhz": ["vHost:Speed"],
    "cpu_avg_util": ["vCPU:Overall", "vHost:CPU usage %"],
    "cpu_peak_util": ["vCPU:Overall", "vHost:CPU usage %"],
    "pool": ["vInfo:Cluster", "vInfo:Resource pool"],
    "group": ["vInfo:Folder"],
    "os": [
        "vInfo:OS according to the VMware Tools",
        "vInfo:OS according to the configuration file", "vInfo:OS",
    ],
}

_VM_SHEETS = ("vInfo", "vCPU", "vMemory")  # where per-VM context (Host...) is looked up
_NO_FOLDER = frozenset({"", "vm", "discovered virtual machine"})


def read_rvtools(
    path: str | os.PathLike[str], *, include_powered_off: bool = False
) -> Inventory:
    """Read an RVTools export (``.xlsx``) into an :class:`Inventory` of VMs.

    Parameters
    ----------
    path : str or path-like
        The workbook (it needs a ``vInfo`` sheet), the folder of a per-tab CSV
        export, or its vInfo CSV file.
    include_powered_off : bool, default False
        Plan powered-off (and suspended) VMs too. Templates and SRM
        placeholders are excluded regardless.

    Returns
    -------
    Inventory
        ``source_format='rvtools'``, ``hosts_before`` from vHost (None without
        it). ``metadata`` holds ``virtualized`` (True), ``sheets``,
        ``size_unit_layout`` ('MiB' newer / 'MB' older) and ``hosts`` (one
        dict per vHost row: CPU model, clock, sockets, cores, CPU and memory
        usage %, memory, vendor, model).

    Raises
    ------
    InventoryError
        Missing file or vInfo sheet, or invalid cells (all at once).
    """
    p = Path(path)
    sheets, vinfo, all_sheets, fmt = read_sheets(path, EXTRA_SHEETS)
    tabs, sheets = sheets, {n: sheets[n] for n in SHEETS}
    problems = ProblemLog(p.name, vinfo.name, _csv_files(sheets) if fmt == "csv" else None)
    quality = QualityReport()
    layout = _layout(sheets)
    hosts = read_hosts(sheets["vHost"], problems)
    metadata: dict[str, Any] = {
        "format": fmt,
        "virtualized": True,
        "sheets": all_sheets,
        "size_unit_layout": layout,
        "hosts": hosts,
    }
    quality.note(
        f"RVTools sizes read as MiB ({layout} headers; vSphere reports binary units)"
    )
    for line in vinfo.notes:  # a workbook read with its styles mended
        quality.warn("xlsx_styles_repaired", line)
    if vinfo.name.casefold() != "vinfo":  # another producer's name for the tab
        quality.warn(
            "rvtools_vinfo_sheet_named",
            f"{p.name}: sheet '{vinfo.name}' read as RVTools' vInfo (its header is "
            "vInfo's: VM, Powerstate, CPUs, Memory [MiB]).",
        )
    names = vinfo_names(vinfo, quality)
    join_by_id(vinfo, names, tabs, quality)  # tabs naming a VM otherwise than vInfo
    disks = (_disk_sums(sheets["vDisk"], problems), UsedDisk(sheets, problems))
    records, planned = _vinfo_records(vinfo, sheets, include_powered_off, problems, names)
    # what the export tells about moving each VM (readiness, hygiene)
    metadata.update(vm_facts=vm_facts(tabs, names), export_date=export_date(tabs),
                    zombie_files=zombie_files(tabs))
    warn_power_states(
        {r.name: _power(c) for r, c in _with_context(records, vinfo, sheets)}, quality,
        vinfo.header("Powerstate"),
    )
    warn_not_in_tabs([r.name for r, _ in planned], sheets, quality, [r.name for r in records])
    on_host = _planned_values(planned, sheets, disks, hosts, problems, quality)
    inv = finish(
        records, problems=problems, quality=quality, source=os.fspath(path),
        source_format="rvtools", metadata=metadata, name_header=vinfo.header("VM"),
        has_pool=True, has_group=True, kind="vm",
    )
    _hosts_before(inv, hosts, on_host, quality)
    return inv


#: A VM's vDisk capacity sum [MiB] with its row count, and the used-disk sources.
_Disks = tuple[dict[str, tuple[float, int]], UsedDisk]


def _csv_files(sheets: dict[str, _Sheet | None]) -> dict[str, str]:
    """Tab -> its CSV file name, for messages of a per-tab CSV export."""
    return {s.name: s.file for s in sheets.values() if s is not None and s.file}


def _vinfo_records(
    vinfo: _Sheet,
    sheets: dict[str, _Sheet | None],
    include_powered_off: bool,
    problems: ProblemLog,
    names: dict[int, str],
) -> tuple[list[ServerRecord], list[tuple[ServerRecord, list[dict[str, Any]]]]]:
    """A record per vInfo row with a VM name (``names``, row -> name), and those
    planned with their context (the VM's cells in vInfo, vCPU and vMemory)."""
    by_vm = {
        n: _index(s) for n, s in sheets.items() if s is not None and n != "vHost"
    }
    records: list[ServerRecord] = []
    planned: list[tuple[ServerRecord, list[dict[str, Any]]]] = []
    for row, _ in vinfo.rows:
        name = names.get(row)
        if name is None:
            problems.cell(row, vinfo.header("VM"), "a VM name", "")
            continue
        rec = ServerRecord(name=name, row=row)
        records.append(rec)
        ctx = [by_vm[s].get(name, {}) if s in by_vm else {} for s in _VM_SHEETS]
        rec.reason = _exclusion(ctx, include_powered_off)
        if rec.reason is None:
            planned.append((rec, ctx))
    return records, planned


def _hosts_before(
    inv: Inventory,
    hosts: list[dict[str, Any]],
    on_host: dict[str, list[tuple[str, dict[str, Any]]]],
    quality: QualityReport,
) -> None:
    """Set ``inv.hosts_before`` from vHost; warn without vHost or about idle hosts."""
    if not hosts and len(inv):
        quality.warn(
            "rvtools_no_vhost",
            "no vHost sheet (or no host in it): the hosts these VMs run on are "
            "unknown, so the plan has no power or rack space before; export the "
            "vHost tab with RVTools too.",
        )
    if hosts:
        inv.hosts_before = hosts_frame(hosts, {h: len(v) for h, v in on_host.items()})
        # Hook (vsizer.study.baseline): the vHost host of each
        # powered-on VM matched to one, for today's clusters and the host bound.
        inv.metadata["vm_hosts"] = {vm: h for h, vms in on_host.items() for vm, _ in vms}
        idle = [h["host"] for h in hosts if h["host"] not in on_host]
        if on_host and idle:
            quality.warn(
                "rvtools_hosts_without_vms",
                f"{len(idle)} vHost host(s) run none of the planned powered-on VMs "
                "(an export filtered to some VMs, or idle hosts); they still count as "
                "existing hosts (summary.hosts_before).",
                idle,
            )


def _planned_values(
    planned: list[tuple[ServerRecord, list[dict[str, Any]]]],
    sheets: dict[str, _Sheet | None],
    disks: _Disks,
    hosts: list[dict[str, Any]],
    problems: ProblemLog,
    quality: QualityReport,
) -> dict[str, list[tuple[str, dict[str, Any]]]]:
    """Values of the planned VMs, their hosts matched, utilization estimated
    from host usage; returns host -> its powered-on VMs ``(name, values)``."""
    matches = match_hosts(
        [(r.name, clean_text(_get(c, "Host")), clean_text(_get(c, "Cluster")))
         for r, c in planned],
        HostIndex(hosts), quality,
    )
    on_host: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for rec, ctx in planned:
        match = matches[rec.name]
        _vm_values(rec, ctx, sheets, disks, (match, hosts), problems, quality)
        if match.host is not None and _power(ctx).running:
            on_host.setdefault(match.host["host"], []).append((rec.name, rec.values))
    estimate_usage(on_host, {h["host"]: h for h in hosts}, quality)
    disks[1].note(quality)
    return on_host


def _layout(sheets: dict[str, _Sheet | None]) -> str:
    headers = [h for s in sheets.values() if s is not None for h in s.headers]
    if any(h.endswith(" MiB") for h in headers):
        return "MiB"
    if any(h.endswith(" MB") for h in headers):
        return "MB"
    return "unknown"


def _get(ctx: list[dict[str, Any]], header: str) -> Any:
    """First non-empty value of ``header`` in the VM's vInfo, vCPU, vMemory rows."""
    for cells in ctx:
        v = cells.get(_key(header))
        if clean_text(v) is not None:
            return v
    return None


def _power(ctx: list[dict[str, Any]]) -> PowerState:
    """The VM's power state (:mod:`vsizer.inventory._rvtools_power`)."""
    return power_state(clean_text(_get(ctx, "Powerstate")))


def _with_context(
    records: list[ServerRecord], vinfo: _Sheet, sheets: dict[str, _Sheet | None]
) -> list[tuple[ServerRecord, list[dict[str, Any]]]]:
    """Every record with its cells in vInfo, vCPU and vMemory."""
    by_vm = {
        n: _index(s) for n, s in sheets.items() if s is not None and n != "vHost"
    }
    return [(r, [by_vm[s].get(r.name, {}) if s in by_vm else {} for s in _VM_SHEETS])
            for r in records]


def _exclusion(ctx: list[dict[str, Any]], include_powered_off: bool) -> str | None:
    flags = (("Template", "template"), ("SRM Placeholder", "SRM placeholder"))
    for flag, reason in flags:
        try:
            if parse_bool(_get(ctx, flag)):
                return reason
        except ValueError:
            continue
    return None if include_powered_off else _power(ctx).reason()


def _number(
    cells: dict[str, Any], header: str, problems: ProblemLog, expected: str
) -> float | None:
    """A non-negative number from a sheet row (its ``#sheet``), or None."""
    raw = cells.get(_key(header))
    try:
        x = parse_number(raw)
    except NonFiniteError:
        x, expected = -1.0, "a finite number"
    except ValueError:
        x = -1.0
    if x is not None and x < 0:
        sheet = cells["#sheet"]
        problems.cell(
            cells["#row"], sheet.header(header), expected, clean_text(raw) or "",
            sheet=sheet.name,
        )
        return None
    return x


def _where(
    cells: dict[str, Any], header: str
) -> tuple[int, str, str | None, str]:
    """Location of a sheet cell for :attr:`ServerRecord.where` (range errors)."""
    sheet = cells["#sheet"]
    raw = clean_text(cells.get(_key(header))) or ""
    return cells["#row"], sheet.header(header), sheet.name, raw


def _first_number(
    ctx: dict[str, dict[str, Any]], sources: list[str], problems: ProblemLog,
    expected: str,
) -> tuple[float | None, str]:
    """First present ``sheet:header`` source of a VM -> (value, source)."""
    for src in sources:
        sheet, header = src.split(":", 1)
        cells = ctx.get(sheet)
        if cells and cells["#sheet"].has(header):
            x = _number(cells, header, problems, expected)
            if x is not None:
                return x, src
    return None, ""


def _disk_sums(
    sheet: _Sheet | None, problems: ProblemLog
) -> dict[str, tuple[float, int]]:
    """VM name -> (sum of vDisk capacities [MiB], number of disks)."""
    if sheet is None:
        return {}
    header = next((h for h in ("Capacity MiB", "Capacity MB") if sheet.has(h)), None)
    if header is None:
        return {}
    out: dict[str, tuple[float, int]] = {}
    for row, cells in sheet.rows:
        x = _number({**cells, "#row": row, "#sheet": sheet}, header, problems,
                    "a non-negative disk capacity")
        if x is None:
            continue
        for k in vm_keys(cells):
            total, n = out.get(k, (0.0, 0))
            out[k] = (total + x, n + 1)
    return out


def _vinfo_header(ctx: dict[str, dict[str, Any]], header: str) -> str:
    """``header`` as spelled in the VM's vInfo sheet (e.g. with a trailing space)."""
    cells = ctx.get("vInfo")
    return cells["#sheet"].header(header) if cells else header


def _vm_values(
    rec: ServerRecord,
    ctx_list: list[dict[str, Any]],
    sheets: dict[str, _Sheet | None],
    disks: _Disks,
    host: tuple[HostMatch, list[dict[str, Any]]],
    problems: ProblemLog,
    quality: QualityReport,
) -> None:
    v, name = rec.values, rec.name
    ctx = {s: c for s, c in zip(_VM_SHEETS, ctx_list, strict=True) if c}

    def put(f: str, value: Any, status: Any, note: str = "") -> None:
        v[f] = value
        quality.record(name, f, status, note)
        sheet, _, header = note.partition(":")  # a source 'vInfo:CPUs' locates it
        if header and sheet in ctx and ctx[sheet]["#sheet"].has(header):
            rec.where[f] = _where(ctx[sheet], header)

    found = len(problems.lines)
    expect = "a positive whole number of vCPUs"
    vcpus, src = _first_number(ctx, VARIABLE_MAP["vcpus"], problems, expect)
    if vcpus is not None and vcpus > 0 and vcpus.is_integer():
        put("vcpus", int(vcpus), "given", src)
    elif len(problems.lines) == found:  # empty or zero (bad cells are reported)
        raw = clean_text(_get(ctx_list, "CPUs")) or ""
        problems.cell(rec.row, _vinfo_header(ctx, "CPUs"), expect, raw)
    cpu = ctx.get("vCPU", {})
    s, c = (_number(cpu, h, problems, "a positive whole number") if cpu else None
            for h in ("Sockets", "Cores p/s"))
    if s and c and v.get("vcpus") == s * c:
        put("sockets", int(s), "given")
        put("cores_per_socket", int(c), "given")
        rec.where["sockets"] = _where(cpu, "Sockets")
        rec.where["cores_per_socket"] = _where(cpu, "Cores p/s")
    elif s and c:
        quality.note(f"{name}: vCPU sockets x cores p/s = {s * c:g} differs from "
                     f"{v.get('vcpus')} vCPUs; sockets and cores left empty")
    found = len(problems.lines)
    expect = "a positive memory size [MiB]"
    mem, src = _first_number(ctx, VARIABLE_MAP["mem_gib"], problems, expect)
    if mem is not None and mem > 0:
        put("mem_gib", memory_to_gib(mem, "MiB"), "given", src)
    elif len(problems.lines) == found:
        raw = clean_text(_get(ctx_list, "Memory")) or ""
        problems.cell(rec.row, _vinfo_header(ctx, "Memory"), expect, raw)
    memrow = ctx.get("vMemory")
    if memrow and memrow["#sheet"].has("Consumed"):
        used = _number(memrow, "Consumed", problems, "a non-negative memory size")
        over = _number(memrow, "Consumed Overhead", problems,
                       "a non-negative memory size") or 0.0
        if used is not None:
            put("mem_used_gib", memory_to_gib(max(used - over, 0.0), "MiB"), "derived",
                "vMemory Consumed - Consumed Overhead")
            rec.where["mem_used_gib"] = _where(memrow, "Consumed")
    if name in disks[0]:
        total, n = disks[0][name]
        note = f"sum of {n} vDisk rows"
        put("disk_gib", memory_to_gib(total, "MiB"), "derived", note)
    else:
        size, src = _first_number(ctx, VARIABLE_MAP["disk_gib"][2:], problems,
                                  "a non-negative disk size")
        if size is not None:
            put("disk_gib", memory_to_gib(size, "MiB"), "given", src)
    disks[1].put(name, _first_number(ctx, VARIABLE_MAP["disk_used_gib"][2:], problems,
                                     "a non-negative disk size"), put,
                 _swap_mib(v, memrow, ctx_list, problems))
    _placement_values(rec, ctx_list, quality)
    _cpu_values(rec, ctx_list, cpu, host, problems, quality)


def _swap_mib(
    v: dict[str, Any], memrow: dict[str, Any] | None, ctx_list: list[dict[str, Any]],
    problems: ProblemLog,
) -> float | None:
    """The VM's swap file [MiB]: configured memory less its vMemory
    ``Reservation``, for a powered-on VM (ESXi creates it at power-on); None
    when the reservation or the memory is not given."""
    if not memrow or not memrow["#sheet"].has("Reservation") or not v.get("mem_gib"):
        return None
    if _power(ctx_list).state != "on":
        return None
    reserved = _number(memrow, "Reservation", problems, "a non-negative memory size")
    return None if reserved is None else max(v["mem_gib"] * 1024.0 - reserved, 0.0)


def _placement_values(
    rec: ServerRecord, ctx_list: list[dict[str, Any]], quality: QualityReport
) -> None:
    v, name = rec.values, rec.name
    cluster = clean_text(_get(ctx_list, "Cluster"))
    rpool = clean_text(_get(ctx_list, "Resource pool"))
    rp_leaf = rpool.rstrip("/").rsplit("/", 1)[-1] if rpool else None
    if cluster:
        v["pool"] = cluster
        quality.record(name, "pool", "derived", f"cluster '{cluster}'")
    elif rp_leaf and rp_leaf.casefold() != "resources":
        v["pool"] = rp_leaf
        quality.record(name, "pool", "derived", f"resource pool '{rpool}'")
    folder = clean_text(_get(ctx_list, "Folder"))
    leaf = folder.rstrip("/").rsplit("/", 1)[-1] if folder else ""
    if leaf.casefold() not in _NO_FOLDER:
        v["group"] = leaf
        quality.record(name, "group", "derived", f"folder '{folder}'")
    for header in VARIABLE_MAP["os"]:
        os_name = clean_text(_get(ctx_list, header.split(":", 1)[1]))
        if os_name:
            v["os"] = os_name
            quality.record(name, "os", "given", header)
            break


def _cpu_values(
    rec: ServerRecord,
    ctx_list: list[dict[str, Any]],
    cpu: dict[str, Any],
    host: tuple[HostMatch, list[dict[str, Any]]],
    problems: ProblemLog,
    quality: QualityReport,
) -> None:
    v, name = rec.values, rec.name
    match, hosts = host
    host_name = clean_text(_get(ctx_list, "Host"))
    if match.host is not None and match.host["cpu_model"]:
        h = match.host
        note = f"host '{h['host']}'" + (
            "" if match.how == "exact" else f" (vInfo '{host_name}', {match.how})"
        )
        v["cpu_name"] = h["cpu_model"]
        quality.record(name, "cpu_name", "derived", note)
        if h["cpu_mhz"]:
            v["cpu_mhz"] = float(h["cpu_mhz"])
            quality.record(name, "cpu_mhz", "derived", note)
    else:
        why = ("VM's host not in vHost" if match.host is None else
               f"host '{match.host['host']}' gives no CPU model")
        if match.host is not None and match.host["cpu_mhz"]:
            # the host's clock is known though its model is not (an exporter
            # writing only Speed): use it, it is what vCPU Overall is measured in
            v["cpu_mhz"] = float(match.host["cpu_mhz"])
            quality.record(name, "cpu_mhz", "derived",
                           f"host '{match.host['host']}' Speed (no CPU model)")
        found = fallback_cpu(clean_text(_get(ctx_list, "Cluster")), hosts, why)
        if found is not None:
            model, mhz, model_status, mhz_status, note = found
            v["cpu_name"] = model
            quality.record(name, "cpu_name", model_status, note)
            if mhz and "cpu_mhz" not in v:
                v["cpu_mhz"] = mhz
                quality.record(name, "cpu_mhz", mhz_status, note)
    if not cpu or not cpu["#sheet"].has("Overall"):
        return
    overall = _number(cpu, "Overall", problems, "a non-negative MHz")
    cap = _number(cpu, "Max", problems, "a non-negative MHz") if cpu[
        "#sheet"].has("Max") else None
    how = "vCPU Overall / Max"
    if not cap and v.get("cpu_mhz") and v.get("vcpus"):
        cap, how = v["cpu_mhz"] * v["vcpus"], "vCPU Overall / (vCPUs x host MHz)"
    if overall is None or not cap:
        return
    util = overall / cap
    if util > 1:
        how += f"; {util:.3g} capped at 1"
        util = 1.0
    state = _power(ctx_list)
    if state.state != "on":
        how += f" (VM {state.spelled or state.state} at export)"
    v["cpu_avg_util"] = util
    quality.record(name, "cpu_avg_util", "derived", f"{how}: one point sample")
    v["cpu_peak_util"] = util
    quality.record(name, "cpu_peak_util", "assumed",
                   "RVTools has one sample (vCPU Overall); peak taken equal to it")
