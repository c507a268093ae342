"""The licence catalog: what software each host (or VM) of a plan must license.

The shipped catalog (``vsizer/catalogs/data/licences.csv``) lists the counting
rules of common virtualization-stack licences with their source and date;
prices are left to the user (they vary by contract, channel and country). A
user's file has the same columns; every row of it applies to the plan
(``vsizer plan --licences lic.csv``): copy the rows you need from the shipped
file and fill in ``price``.

Columns: ``name`` (text), ``unit`` (``core``, ``socket``, ``host`` or ``vm``),
``min_per_cpu`` (cores licensed at least per processor; ``core`` only),
``min_per_host`` (cores or sockets licensed at least per host; ``core`` and
``socket`` only), ``min_per_order`` (units licensed at least for the whole
plan, e.g. an order minimum of 72 cores; ``core`` and
``socket`` only), ``pack`` (units sold together: a host's count is rounded
up to whole packs, e.g. Windows Server's 2-core packs; ``core`` only), ``vms_per_licence`` (VMs one licence of every core of a host
covers, e.g. 2 for Windows Server Standard; ``core`` only; empty: unlimited), ``term`` (``once``: a perpetual licence bought once;
``year``: a subscription paid every year), ``price`` (per unit and term; empty:
not known), ``currency`` (empty: the plan's), ``source``, ``date``.

Counting (declared, pure functions):

- per core: every physical core, each processor counted as at least
  ``min_per_cpu`` cores, the host as at least ``min_per_host``:
  ``max(sockets * max(cores_per_socket, min_per_cpu), min_per_host)``.
  A 2 x 12-core host needs 24 Windows Server Datacenter core licences (8 per
  CPU, 16 per server) and 32 VMware cores (16 per CPU); a 1 x 8-core host
  16 and 16.
- stacked per core (``vms_per_licence`` = v): a host running m VMs licenses
  its cores ``max(1, ceil(m / v))`` times. Windows Server Standard covers 2
  VMs per licensing of all cores, so a 2 x 16-core host running 7 VMs needs
  4 x 32 = 128 core licences (Microsoft Product Terms, Windows Server
  Standard: all physical cores are licensed again for every 2 more
  operating system environments). m is the most VMs the host runs in the plan, failover scenarios
  included: a licence stays with its host (reassigned at most once in 90
  days), so a survivor that takes over VMs must already be licensed for them.
- per socket: ``max(ceil(sockets / p), min_per_host)`` with ``p`` sockets per
  licence (1; 2 for a socket-pair subscription);
- per order: the plan's units at least ``min_per_order`` (2 hosts of 2 x 8
  cores with 16 per CPU and an order minimum of 72: 64 cores, raised to 72);
- per host: 1 per host; per VM: 1 per planned VM.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from vsizer._validation import Interval, OrNone, validate_params
from vsizer.catalogs._csv import Column, by_row, read_rows, shipped_path
from vsizer.catalogs.model import HostModel
from vsizer.errors import CatalogError

__all__ = [
    "LICENCE_COLUMNS",
    "LICENCE_TERMS",
    "LICENCE_UNITS",
    "SHIPPED_LICENCE_CATALOG",
    "Licence",
    "core_licences",
    "licence_count",
    "licences_per_host",
    "read_licences",
    "socket_licences",
    "stacked_licences",
]

#: File name of the shipped licence catalog in ``vsizer/catalogs/data``.
SHIPPED_LICENCE_CATALOG = "licences.csv"

#: What a licence counts.
LICENCE_UNITS = ("core", "socket", "host", "vm")

#: How a licence is paid: once (perpetual) or every year (subscription).
LICENCE_TERMS = ("once", "year")

#: Columns of a licence catalog CSV, in file order.
LICENCE_COLUMNS: dict[str, Column] = {
    c.name: c
    for c in (
        Column("name", required=True, nullable=False),
        Column("unit", required=True, nullable=False),
        Column("min_per_cpu", "int"),
        Column("min_per_host", "int"),
        Column("vms_per_licence", "int"),
        Column("min_per_order", "int"),
        Column("pack", "int"),
        Column("term", required=True, nullable=False),
        Column("price", "float", low_open=False),
        Column("currency"),
        Column("source"),
        Column("date"),
    )
}

_COUNT = Interval(int, 1, None)
_MINIMUM = OrNone(Interval(int, 1, None))


@dataclass(frozen=True)
class Licence:
    """One licence: what it counts, its minimums, its term and price."""

    name: str
    unit: str
    term: str = "once"
    min_per_cpu: int | None = None
    min_per_host: int | None = None
    vms_per_licence: int | None = None
    min_per_order: int | None = None
    #: Units sold together (per host, rounded up to whole packs).
    pack: int | None = None
    #: Sockets one licence covers (unit ``socket``): 2 for a socket pair.
    sockets_per_licence: int = 1
    price: float | None = None
    currency: str = ""
    source: str = ""
    date: str = ""


@validate_params(
    {
        "sockets": _COUNT,
        "cores_per_socket": _COUNT,
        "min_per_cpu": _MINIMUM,
        "min_per_host": _MINIMUM,
    }
)
def core_licences(
    sockets: int,
    cores_per_socket: int,
    min_per_cpu: int | None = None,
    min_per_host: int | None = None,
) -> int:
    """Core licences one host needs.

    .. math:: n = \\max\\bigl(s \\cdot \\max(c, m_{cpu}),\\; m_{host}\\bigr)

    with ``s`` sockets of ``c`` cores, ``m_cpu`` the minimum per processor and
    ``m_host`` the minimum per server (0 when not given).

    >>> core_licences(2, 12, 8, 16), core_licences(2, 12, 16)
    (24, 32)
    >>> core_licences(1, 8, 8, 16), core_licences(1, 8, 16)
    (16, 16)
    """
    per_cpu = max(cores_per_socket, min_per_cpu or 0)
    return max(sockets * per_cpu, min_per_host or 0)


@validate_params({"sockets": _COUNT, "min_per_host": _MINIMUM})
def socket_licences(sockets: int, min_per_host: int | None = None) -> int:
    """Socket licences one host needs: ``max(sockets, min_per_host)``.

    >>> socket_licences(1, 2), socket_licences(4, 2)
    (2, 4)
    """
    return max(sockets, min_per_host or 0)


@validate_params(
    {"per_host": _COUNT, "vms": Interval(int, 0, None), "vms_per_licence": _COUNT}
)
def stacked_licences(per_host: int, vms: int, vms_per_licence: int) -> int:
    """Licences a host running ``vms`` VMs needs when one licensing of its
    ``per_host`` units covers ``vms_per_licence`` VMs (at least one licensing).

    .. math:: n = p \\cdot \\max\\bigl(1, \\lceil m / v \\rceil\\bigr)

    >>> stacked_licences(32, 7, 2), stacked_licences(32, 2, 2), stacked_licences(16, 0, 2)
    (128, 32, 16)
    """
    return per_host * max(1, -(-vms // vms_per_licence))


def licences_per_host(licence: Licence, host: HostModel) -> int:
    """Units of ``licence`` one ``host`` needs (0 for a per-VM licence)."""
    if licence.unit == "core":
        n = int(
            core_licences(
                host.sockets, host.cores_per_socket,
                licence.min_per_cpu, licence.min_per_host,
            )
        )
        p = licence.pack or 1
        return -(-n // p) * p  # whole packs
    if licence.unit == "socket":
        pairs = -(-host.sockets // max(licence.sockets_per_licence, 1))
        return int(socket_licences(pairs, licence.min_per_host))
    return 1 if licence.unit == "host" else 0


def licence_count(
    licence: Licence,
    host: HostModel,
    hosts: int,
    vms: int,
    vms_on_hosts: Sequence[int] | None = None,
) -> int:
    """Units of ``licence`` a plan of ``hosts`` hosts of ``host`` running ``vms``
    VMs needs: per VM, ``vms``; stacked (``vms_per_licence``), the sum over
    hosts of :func:`stacked_licences` with the most VMs each host runs
    (``vms_on_hosts``, one count per host, failover included); otherwise
    ``hosts`` x per host.

    Raises
    ------
    ValueError
        A stacked licence without ``vms_on_hosts``, or with a count per host
        that does not match ``hosts``.
    """
    if licence.unit == "vm":
        return vms
    per_host = licences_per_host(licence, host)
    if licence.vms_per_licence is None:
        return max(hosts * per_host, licence.min_per_order or 0) if hosts else 0
    if vms_on_hosts is None or len(vms_on_hosts) != hosts:
        given = "none" if vms_on_hosts is None else f"{len(vms_on_hosts)}"
        raise ValueError(
            f"licence '{licence.name}' covers {licence.vms_per_licence} VMs per "
            f"licensing: it needs the VMs of each of the {hosts} hosts, got {given}."
        )
    v = licence.vms_per_licence
    total = sum(stacked_licences(per_host, int(m), v) for m in vms_on_hosts)
    return max(total, licence.min_per_order or 0) if hosts else 0


def _row_problems(row: dict, name: str) -> list[str]:
    """Problems of one parsed row beyond its cells' types."""
    r = row["_row"]
    out = []
    if row["unit"] is not None and row["unit"] not in LICENCE_UNITS:
        out.append(
            f"{name} row {r}, column 'unit': expected one of "
            f"{', '.join(LICENCE_UNITS)}, got '{row['unit']}'."
        )
    if row["term"] is not None and row["term"] not in LICENCE_TERMS:
        out.append(
            f"{name} row {r}, column 'term': expected one of "
            f"{', '.join(LICENCE_TERMS)}, got '{row['term']}'."
        )
    allowed = {
        "core": ("min_per_cpu", "min_per_host", "vms_per_licence", "min_per_order", "pack"),
        "socket": ("min_per_host", "min_per_order"),
    }
    for col in ("min_per_cpu", "min_per_host", "vms_per_licence", "min_per_order", "pack"):
        if row.get(col) is not None and col not in allowed.get(row["unit"], ()):
            out.append(
                f"{name} row {r}, column '{col}': expected empty for unit "
                f"'{row['unit']}', got '{row.get(col)}'."
            )
    return out


def read_licences(path: str | os.PathLike[str] | None = None) -> list[Licence]:
    """Read a licence catalog CSV (None: the shipped one).

    Raises
    ------
    CatalogError
        Every invalid value at once, e.g. ``lic.csv row 3, column 'unit':
        expected one of core, socket, host, vm, got 'cpu'.``; a file with no
        licence.
    """
    p = Path(path) if path is not None else shipped_path(SHIPPED_LICENCE_CATALOG)
    rows, problems, name = read_rows(p, LICENCE_COLUMNS)
    seen: dict[str, int] = {}
    for row in rows:
        problems += _row_problems(row, name)
        key = " ".join(str(row["name"]).casefold().split())
        if row["name"] is not None and key in seen:
            problems.append(
                f"{name} row {row['_row']}, column 'name': expected a licence not "
                f"listed before, got '{row['name']}' (also row {seen[key]})."
            )
        seen[key] = row["_row"]
    if problems:
        raise CatalogError(by_row(problems))
    if not rows:
        raise CatalogError(f"{name}: expected at least one licence, got none.")
    return [
        Licence(
            name=row["name"],
            unit=row["unit"],
            term=row["term"],
            min_per_cpu=row["min_per_cpu"],
            min_per_host=row["min_per_host"],
            vms_per_licence=row.get("vms_per_licence"),
            min_per_order=row.get("min_per_order"),
            pack=row.get("pack"),
            price=row["price"],
            currency=row["currency"] or "",
            source=row["source"] or f"{name} row {row['_row']}",
            date=row["date"] or "",
        )
        for row in rows
    ]
