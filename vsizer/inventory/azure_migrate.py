"""Reader of the Azure Migrate "import using CSV" server list.

The import template has one server per row. Mandatory columns start with
``*`` in the template (``*Server Name``, ``*Cores``, ``*Memory (In MB)``,
``*OS name``); headers are accepted with or without the ``*``, in any case,
with or without the unit in brackets. Units are fixed by Microsoft's
documentation: memory in MB, disk sizes in GB, throughputs in MB/s (network
too), operations per second, utilization in percent.

Conversions: memory MB -> GiB (binary, as for all memory); ``Cores`` ->
``vcpus`` (sockets and cores per socket are not in the format and stay
empty); disk sizes (decimal GB) summed -> ``disk_gib``; read + write
operations -> ``disk_iops``; read + write MB/s -> ``disk_mb_s``; network in +
out MB/s x 8 -> ``net_mbps``. The totals columns (``Total disks read ops``
...) are used when given, else the per-disk columns are summed. CPU
utilization is one figure: it becomes the average, and the peak is missing:
estimated as average x a peak-to-average factor (:mod:`vsizer.missing`).

The format has no clock rate and no CPU model, so a server's CPU capacity is
unknown unless columns are added. These server-list columns are read when
present (any spelling of :data:`vsizer.inventory.headers.VARIABLE_MAP`):
``cpu_mhz`` (``CPU clock (GHz)`` ...), ``cpu_score_per_core`` (including the
SPEC headers, whose basis they name), ``cpu_score_basis`` and ``cpu_name``.
Without them, ``plan --vm-cpu-mhz`` gives the clock, else each core is taken
as one core of the target host (assumed, a plan warning). A blank memory cell
is left missing for ``plan --vm-mem-gib`` to fill (the column itself is
required).

References
----------
.. [1] Microsoft, "Tutorial: Discover servers using an imported CSV file,"
   Azure Migrate documentation (articles/migrate/tutorial-discover-import.md).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vsizer._small_file import not_a_file
from vsizer.errors import InventoryError
from vsizer.inventory._build import ProblemLog, ServerRecord, clean_text, finish
from vsizer.inventory._choices import decimal_commas
from vsizer.inventory._io import read_csv_grid
from vsizer.inventory.headers import HeaderMatch, match_header
from vsizer.inventory.model import Inventory
from vsizer.quality import QualityReport
from vsizer.units import (
    NonFiniteError,
    clock_to_mhz,
    disk_to_gib,
    is_blank,
    memory_to_gib,
    parse_number,
    parse_quantity,
    unit_kind,
)

__all__ = ["VARIABLE_MAP", "column_role", "header_key", "read_azure_migrate"]

#: Canonical name -> accepted headers (``N`` = disk number 1..8). Matching
#: ignores a leading ``*``, case, spacing and a trailing unit in brackets.
VARIABLE_MAP: dict[str, list[str]] = {
    "name": ["*Server Name", "Server name"],
    "vcpus": ["*Cores", "Cores"],
    "mem_gib": ["*Memory (In MB)", "Memory"],
    "os": ["*OS name", "OS name", "OS version"],
    "cpu_avg_util": ["CPU utilization percentage"],
    "mem_used_gib": ["Memory utilization percentage"],
    "disk_gib": ["Disk N size (In GB)"],
    "disk_iops": [
        "Total disks read ops", "Total disks write ops",
        "Disk N read ops (operations per second)",
        "Disk N write ops (operations per second)",
    ],
    "disk_mb_s": [
        "Total disks read throughput", "Total disks write throughput",
        "Disk N read throughput (MB per second)",
        "Disk N write throughput (MB per second)",
    ],
    "net_mbps": ["Network In throughput", "Network Out throughput"],
    "disk_used_gib": ["Storage in use (In GB)"],
}

#: Template columns read into the inventory's metadata (not server-list fields).
METADATA_COLUMNS: dict[str, str] = {
    "Server type": "server_types: 'virtual' or 'physical' per server (Virtual/Physical)",
    "Hypervisor": "hypervisors: the hypervisor of each server, as written",
}

#: Server-list fields read from columns a user adds to the import file (they
#: are not in Microsoft's format), under any header that
#: :data:`vsizer.inventory.headers.VARIABLE_MAP` accepts for them.
EXTRA_FIELDS: tuple[str, ...] = (
    "cpu_mhz", "cpu_score_per_core", "cpu_score_basis", "cpu_name",
)

_DISK = re.compile(
    r"^disk (\d+) (size|read ops|write ops|read throughput|write throughput)$"
)


def header_key(header: Any) -> str:
    """Matching key of a header: ``'*Memory (In MB)'`` -> ``'memory'``."""
    text = clean_text(header) or ""
    text = re.sub(r"\s*[(\[][^()\[\]]*[)\]]\s*$", "", text.strip().lstrip("*"))
    return re.sub(r"\s+", " ", text).strip().casefold()


_SIMPLE = {
    "server name": "name", "cores": "vcpus", "memory": "mem_gib", "os name": "os",
    "os version": "os_version", "cpu utilization percentage": "cpu_avg_util",
    "memory utilization percentage": "mem_used_pct",
    "total disks read ops": "iops_total", "total disks write ops": "iops_total",
    "total disks read throughput": "mbs_total",
    "total disks write throughput": "mbs_total",
    "network in throughput": "net", "network out throughput": "net",
    # the rest of Microsoft's template (tutorial-discover-import.md)
    "storage in use": "disk_used", "server type": "server_type",
    # a later template's provisioned total (seen marked required:
    # '*Storage allocated (In MB)' beside 'Storage in use (In MB)')
    "storage allocated": "disk_alloc",
    "hypervisor": "hypervisor",
}

#: Columns of Microsoft's template that do not change host sizing: read as
#: known, not used, and listed in the ``azure_migrate_columns_ignored`` warning.
IGNORED_COLUMNS: tuple[str, ...] = (
    "IP address", "IP addresses", "OS architecture", "Network adapters",
    "Boot type", "Firmware type", "Number of disks", "MAC address",
)


_IGNORED_KEYS = frozenset(header_key(h) for h in IGNORED_COLUMNS)


def column_role(header: Any) -> tuple[str, str | None] | None:
    """What a header of the import file is: ``(role, disk number)``, or None.

    Roles are canonical names (``name``, ``vcpus``, ``mem_gib``, ``os``,
    ``cpu_avg_util``) or parts to combine (``disk size``, ``disk read ops``,
    ``iops_total``, ``net`` ...). ``'Disk 2 size (In GB)'`` -> ``('disk size', '2')``.
    """
    k = header_key(header)
    if k in _SIMPLE:
        return _SIMPLE[k], None
    if k in _IGNORED_KEYS:
        return "ignored", None
    m = _DISK.match(k)
    if m:
        return "disk " + m.group(2), m.group(1)
    return None


_UNIT = re.compile(r"[(\[]\s*(?:in\s+)?([KMGT]i?B)\s*[)\]]\s*$", re.I)


def size_unit(header: Any, default: str) -> str:
    """The size unit a header states in brackets (``'Memory (GB)'`` -> ``'GB'``,
    ``'*Memory (In MB)'`` -> ``'MB'``), else ``default`` (the template's)."""
    m = _UNIT.search(clean_text(header) or "")
    if m is None:
        return default
    u = m.group(1)
    return u[0].upper() + ("iB" if u[1:].lower() == "ib" else "B")


def is_azure_migrate_header(cells: list[Any]) -> bool:
    """True when a header row has a server-name and a cores column."""
    keys = {header_key(c) for c in cells}
    return "server name" in keys and "cores" in keys


def read_azure_migrate(path: str | os.PathLike[str]) -> Inventory:
    """Read an Azure Migrate import CSV into an :class:`Inventory`.

    Parameters
    ----------
    path : str or path-like
        The CSV (UTF-8 with or without BOM, or cp932).

    Returns
    -------
    Inventory
        ``source_format='azure_migrate'``; ``metadata['columns']`` maps each
        used header to its role, ``metadata['unmapped']`` lists the others.

    Raises
    ------
    InventoryError
        Missing file, no ``Server name``/``Cores``/``Memory`` column, or
        invalid cells (all at once).
    """
    p = Path(path)
    if not p.is_file():
        raise InventoryError(f"{p.name}: {not_a_file(path)}")
    grid, meta = read_csv_grid(p)
    grid = [(r, c) for r, c in grid if not all(is_blank(x) for x in c)]
    if not grid:
        raise InventoryError(f"{p.name}: no data")
    header_row, headers = grid[0]
    roles, extra, unmapped, ignored = _map_headers(headers)
    problems = ProblemLog(p.name)
    found = {r for r, _ in roles.values()}
    for needed in ("name", "vcpus", "mem_gib"):
        if needed not in found:
            problems.whole_file(
                f"no column for '{needed}'; accepted headers: "
                + ", ".join(VARIABLE_MAP[needed])
            )
    problems.raise_if_any()
    metadata: dict[str, Any] = {
        **meta, "format": "csv", "header_row": header_row,
        "columns": {
            **{str(headers[i]): role for i, (role, _) in roles.items()},
            **{str(headers[i]): str(m.field) for i, m in extra.items()},
        },
        "unmapped": unmapped, "ignored": ignored,
    }
    quality = QualityReport()
    if meta.get("delimiter") == ";":
        grid = decimal_commas(grid, 0, headers, metadata, problems, quality)
    _state_columns(p.name, ignored, unmapped, quality, _units(headers, roles))
    records = []
    for r, cells in grid[1:]:
        rec = _row(r, cells, headers, roles, problems, quality)
        if rec is not None:
            _cpu_cells(rec, cells, extra, problems, quality)
            records.append(rec)
    _server_kinds(records, metadata, quality)
    _percent_fractions(records, p.name, quality)
    name_col = next(i for i, (role, _) in roles.items() if role == "name")
    return finish(
        records, problems=problems, quality=quality, source=os.fspath(path),
        source_format="azure_migrate", metadata=metadata,
        name_header=str(headers[name_col]), has_pool=False, has_group=False,
    )


def _map_headers(
    headers: list[Any],
) -> tuple[dict[int, tuple[str, str | None]], dict[int, HeaderMatch], list[str], list[str]]:
    """Each column's role (column -> (role, disk number)), the server-list
    columns a user added (:data:`EXTRA_FIELDS`), the unknown headers and the
    template columns not used (:data:`IGNORED_COLUMNS`)."""
    roles: dict[int, tuple[str, str | None]] = {}
    extra: dict[int, HeaderMatch] = {}
    unmapped: list[str] = []
    ignored: list[str] = []
    for i, h in enumerate(headers):
        role = column_role(h)
        m = match_header(h) if role is None else None
        if role is not None and role[0] == "ignored":
            ignored.append(str(h))
        elif role is not None:
            roles[i] = role
        elif m is not None and m.field in EXTRA_FIELDS and all(
            x.field != m.field for x in extra.values()
        ):
            extra[i] = m
        elif not is_blank(h):
            unmapped.append(str(h))
    return roles, extra, unmapped, ignored


#: The template's unit of each size role (Microsoft's tutorial-discover-import).
_TEMPLATE_UNIT = {"mem_gib": "MB", "disk size": "GB", "disk_used": "GB",
                  "disk_alloc": "GB"}
#: Units a template version writes for the column: read without a warning.
_TEMPLATE_UNITS = {"mem_gib": {"MB"}, "disk size": {"GB"}, "disk_used": {"GB", "MB"},
                   "disk_alloc": {"GB", "MB"}}


def _units(headers: list[Any], roles: dict[int, tuple[str, str | None]]) -> list[str]:
    """``'header' [unit]`` of each size column whose header states another unit
    than the template's (read in the header's unit)."""
    return [f"'{headers[i]}' [{size_unit(headers[i], d)}]" for i, (role, _) in
            roles.items() if (d := _TEMPLATE_UNIT.get(role)) and
            size_unit(headers[i], d) not in _TEMPLATE_UNITS[role]]


def _state_columns(
    file: str, ignored: list[str], unmapped: list[str], quality: QualityReport,
    units: list[str] | None = None,
) -> None:
    """One warning listing the columns not read: template columns that do not
    change host sizing, and columns that are not in the template; and one for
    size columns read in another unit than the template's, as their header says."""
    if units:
        quality.warn(
            "azure_migrate_header_unit",
            f"{file}: column(s) {', '.join(units)} read in the unit their header "
            "states, not the template's (memory MB, disks and storage in use GB)",
        )
    parts = []
    if ignored:
        parts.append("template column(s) " + ", ".join(f"'{h}'" for h in ignored)
                     + " not used (they do not change host sizing)")
    if unmapped:
        parts.append("column(s) " + ", ".join(f"'{h}'" for h in unmapped)
                     + " are not in the Azure Migrate template and not read")
    if parts:
        quality.warn("azure_migrate_columns_ignored", f"{file}: " + "; ".join(parts))


#: ``Server type`` values (any case) -> kind of server.
SERVER_TYPES = {"virtual": "virtual", "physical": "physical"}


def _server_kinds(
    records: list[ServerRecord], metadata: dict[str, Any], quality: QualityReport
) -> None:
    """``Server type`` and ``Hypervisor`` into the metadata: ``server_types``
    (name -> 'virtual'/'physical'), ``hypervisors`` (name -> as written) and
    ``virtualized`` (True when every server is virtual, False when every one is
    physical; absent when mixed or not given). One note states the counts."""
    kinds = {r.name: r.where.pop("server_type")[3] for r in records
             if "server_type" in r.where}
    hypervisors = {r.name: r.where.pop("hypervisor")[3] for r in records
                   if "hypervisor" in r.where}
    if not kinds and not hypervisors:
        return
    metadata["server_types"] = kinds
    metadata["hypervisors"] = hypervisors
    values = set(kinds.values())
    if len(kinds) == len(records) and len(values) == 1:
        metadata["virtualized"] = values == {"virtual"}
    counts = {k: sum(1 for v in kinds.values() if v == k) for k in ("virtual", "physical")}
    by_hv: dict[str, int] = {}
    for hv in hypervisors.values():
        by_hv[hv] = by_hv.get(hv, 0) + 1
    hv_text = ", ".join(f"{h} {n}" for h, n in by_hv.items())
    quality.note(
        f"Server type: {counts['virtual']} virtual, {counts['physical']} physical, "
        f"{len(records) - len(kinds)} not given"
        + (f"; hypervisor: {hv_text}" if hv_text else "")
    )


#: Percentage columns -> the field they give.
_PERCENT_ROLES = (("cpu_avg_util", "cpu_avg_util"), ("mem_used_pct", "mem_used_gib"))


def _percent_fractions(
    records: list[ServerRecord], file: str, quality: QualityReport
) -> None:
    """A percentage column whose values are all at most 1, one above 0, is read
    as fractions (0.6 = 60 %), with the ``percent_as_fraction`` warning, as in a
    server-list table (:func:`vsizer.inventory._choices.column_units`)."""
    for role, f in _PERCENT_ROLES:
        given = [(rec, parse_number(rec.where[role][3])) for rec in records
                 if role in rec.where]
        xs = [x for _, x in given if x is not None]
        if not xs or not all(0 <= x <= 1 for x in xs) or not any(x > 0 for x in xs):
            continue
        for rec, _ in given:
            if f in rec.values:
                rec.values[f] *= 100
        header = given[0][0].where[role][1]
        quality.warn(
            "percent_as_fraction",
            f"{file}: column '{header}' is in % and every value is at most 1 "
            f"(largest {max(xs):g}): read as fractions, 0.6 = 60 %; write 60 for "
            "60 % if the file means per cent",
        )


_EXPECT = {
    "vcpus": "a positive whole number",
    "mem_gib": "a positive memory size in MB",
    "cpu_avg_util": "a percentage in [0, 100]",
    "mem_used_pct": "a percentage in [0, 100]",
}


@dataclass
class _Cells:
    """One row's cells by role: text, single values (with where they were) and
    the per-disk / per-NIC numbers to be summed."""

    name: str | None = None
    os_name: str | None = None
    os_version: str | None = None
    got: dict[str, Any] = field(default_factory=dict)
    where: dict[str, tuple[int, str, str | None, str]] = field(default_factory=dict)
    sums: dict[str, list[float]] = field(default_factory=dict)


_TEXT_ROLES = {"name": "name", "os": "os_name", "os_version": "os_version"}
_SINGLE_ROLES = (
    "vcpus", "mem_gib", "cpu_avg_util", "mem_used_pct", "disk_used", "disk_alloc",
)
#: Text roles kept in ``where`` for the metadata (not server-list fields).
_KIND_ROLES = ("server_type", "hypervisor")


def _cell_number(raw: Any, role: str) -> tuple[float | None, str, bool]:
    """The number of a cell, what was expected, and whether it is out of range."""
    expect = _EXPECT.get(role, "a non-negative number")
    try:
        x = parse_number(raw)
    except NonFiniteError:
        x, expect = -1.0, "a finite number"
    except ValueError:
        x = -1.0
    bad = x is not None and (
        x < 0
        or (role in ("vcpus", "mem_gib") and x == 0)
        or (role in ("cpu_avg_util", "mem_used_pct") and x > 100)
        or (role == "vcpus" and not x.is_integer())
    )
    return x, expect, bad


def _read_cells(
    r: int,
    cells: list[Any],
    headers: list[Any],
    roles: dict[int, tuple[str, str | None]],
    problems: ProblemLog,
) -> _Cells:
    """The cells of row ``r`` by role; a bad number is a problem line, not a value."""
    c = _Cells()
    for i, (role, _) in roles.items():
        raw = cells[i] if i < len(cells) else None
        if role in _TEXT_ROLES:
            setattr(c, _TEXT_ROLES[role], clean_text(raw))
            continue
        if role in _KIND_ROLES:
            _kind_cell(c, r, str(headers[i]), role, raw, problems)
            continue
        x, expect, bad = _cell_number(raw, role)
        if bad:
            problems.cell(r, str(headers[i]), expect, "" if raw is None else raw)
            continue
        if x is None:
            if role == "vcpus":
                problems.cell(r, str(headers[i]), expect, clean_text(raw) or "")
            elif role == "mem_gib":  # left missing, for --vm-mem-gib
                c.got["mem_blank"] = f"{problems.prefix} row {r}, column '{headers[i]}'"
            continue
        if role in _SINGLE_ROLES:
            c.got[role] = x
            c.where[role] = (r, str(headers[i]), None, clean_text(raw) or "")
        elif role == "disk size":  # in GB, the template's unit, whatever the header
            c.sums.setdefault(role, []).append(
                disk_to_gib(x, size_unit(headers[i], "GB")) / disk_to_gib(1.0, "GB"))
        else:
            c.sums.setdefault(role, []).append(x)
    return c


def _kind_cell(
    c: _Cells, r: int, header: str, role: str, raw: Any, problems: ProblemLog
) -> None:
    """``Server type`` (Virtual/Physical) or ``Hypervisor`` of a row, kept in
    ``where`` for :func:`_server_kinds` (they are not server-list fields)."""
    text = clean_text(raw)
    if text is None:
        return
    if role == "server_type":
        kind = SERVER_TYPES.get(text.casefold())
        if kind is None:
            problems.cell(r, header, "Virtual or Physical", text)
            return
        text = kind
    c.where[role] = (r, header, None, text)


def _row(
    r: int,
    cells: list[Any],
    headers: list[Any],
    roles: dict[int, tuple[str, str | None]],
    problems: ProblemLog,
    quality: QualityReport,
) -> ServerRecord | None:
    """The server of row ``r`` with its values recorded in ``quality``, or None
    (no name: a problem line)."""
    c = _read_cells(r, cells, headers, roles, problems)
    if c.name is None:
        first = next(i for i, (role, _) in roles.items() if role == "name")
        problems.cell(r, str(headers[first]), "a server name", "")
        return None
    rec = ServerRecord(name=c.name, row=r, where=c.where)
    _put_values(rec, c, quality)
    return rec


def _put_values(rec: ServerRecord, c: _Cells, quality: QualityReport) -> None:
    """Canonical values of the server from its cells, each with its status."""
    name, got, sums = rec.name, c.got, c.sums
    v = rec.values

    def put(f: str, value: Any, status: Any, note: str = "") -> None:
        v[f] = value
        quality.record(name, f, status, note)

    if "mem_blank" in got:
        quality.record(name, "mem_gib", "missing", f"{got['mem_blank']} is empty")
    if "vcpus" in got:
        put("vcpus", int(got["vcpus"]), "given", "Cores")
    if "mem_gib" in got:
        unit = size_unit(c.where["mem_gib"][1], "MB")
        put("mem_gib", memory_to_gib(got["mem_gib"], unit), "given",
            f"{unit} read as {unit[0]}iB" if "i" not in unit else unit)
    if "cpu_avg_util" in got:
        # The format has one CPU figure; the peak is missing and is estimated
        # by the missing-data policy (vsizer.missing) when the list is finished.
        put("cpu_avg_util", got["cpu_avg_util"] / 100, "given")
    if "disk_used" in got:  # 'Storage in use (In GB)': decimal GB like the disks
        header = c.where["disk_used"][1]
        unit = size_unit(header, "GB")
        put("disk_used_gib", disk_to_gib(got["disk_used"], unit), "given",
            f"column '{header}' [{unit}]")
    if "mem_used_pct" in got and "mem_gib" in v:
        put("mem_used_gib", v["mem_gib"] * got["mem_used_pct"] / 100, "derived",
            f"{got['mem_used_pct']:g} % of memory")
    if c.os_name or c.os_version:
        put("os", " ".join(x for x in (c.os_name, c.os_version) if x), "given")
    if "disk size" in sums:
        total = sum(sums["disk size"])
        put("disk_gib", disk_to_gib(total, "GB"), "derived",
            f"sum of {len(sums['disk size'])} disk sizes [GB]")
    elif "disk_alloc" in got:  # the provisioned total, without per-disk sizes
        header = c.where["disk_alloc"][1]
        unit = size_unit(header, "GB")
        put("disk_gib", disk_to_gib(got["disk_alloc"], unit), "given",
            f"column '{header}' [{unit}]")
    for f, total_role, disk_roles, scale in (
        ("disk_iops", "iops_total", ("disk read ops", "disk write ops"), 1.0),
        ("disk_mb_s", "mbs_total", ("disk read throughput", "disk write throughput"),
         1.0),
    ):
        if total_role in sums:
            put(f, sum(sums[total_role]) * scale, "derived", "total read + write")
        elif any(d in sums for d in disk_roles):
            put(f, sum(sum(sums.get(d, [])) for d in disk_roles) * scale, "derived",
                "sum of per-disk read + write")
    if "net" in sums:
        put("net_mbps", sum(sums["net"]) * 8.0, "derived", "(in + out) MB/s x 8")


_EXTRA_EXPECT = {
    "cpu_mhz": "a positive clock rate such as 2400 or '2.4GHz'",
    "cpu_score_per_core": "a positive number",
}


def _cpu_cells(
    rec: ServerRecord,
    cells: list[Any],
    extra: dict[int, HeaderMatch],
    problems: ProblemLog,
    quality: QualityReport,
) -> None:
    """Read the CPU columns a user added (clock, score, basis, CPU name)."""
    v = rec.values
    for i, m in extra.items():
        raw = cells[i] if i < len(cells) else None
        if is_blank(raw) or m.field is None:
            continue
        if m.field in ("cpu_name", "cpu_score_basis"):
            v[m.field] = clean_text(raw)
            quality.record(rec.name, m.field, "given", f"column '{m.header}'")
            continue
        try:
            q = parse_quantity(raw)
        except NonFiniteError:
            problems.cell(rec.row, m.header, "a finite number", raw)
            continue
        except ValueError:
            q = None
        unit = (q[1] if q else None) or m.unit
        ok_unit = unit is None or unit_kind(unit) == (
            "clock" if m.field == "cpu_mhz" else "count"
        )
        if q is None or q[0] <= 0 or not ok_unit:
            problems.cell(rec.row, m.header, _EXTRA_EXPECT[m.field], raw)
            continue
        x, note = q[0], f"column '{m.header}'"
        if m.field == "cpu_mhz":
            if unit is None and x < 100:  # '2.4' in a clock column means GHz
                unit, note = "GHz", f"{note}; no unit: {x:g} read as GHz"
            x = clock_to_mhz(x, unit if unit not in (None, "count") else "MHz")
        v[m.field] = x
        quality.record(rec.name, m.field, "given", note)
    if v.get("cpu_score_per_core") is not None and v.get("cpu_score_basis") is None:
        m = next(x for x in extra.values() if x.field == "cpu_score_per_core")
        v["cpu_score_basis"] = m.basis
        stated = m.basis != "unstated"
        quality.record(
            rec.name, "cpu_score_basis", "given" if stated else "assumed",
            f"header '{m.header}'" + ("" if stated else " does not name the benchmark"),
        )
