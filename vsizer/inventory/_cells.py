"""Reading one cell of a server-list table into its field's canonical unit.

:func:`_convert_cell` turns a raw cell (a number, a text such as ``"16GB"`` or
``"45%"``, a percent-formatted Excel number) into ``(value, quality status,
note)`` or raises :class:`_Bad` naming what was expected. A text cell of a
field that does not depend on the rest of its row is read once per distinct
text (a server list repeats its sizes, clocks and percentages): the table
reader (:mod:`vsizer.inventory.tabular`) calls this for every cell.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any, NamedTuple

from vsizer.inventory._build import clean_text, split_names
from vsizer.inventory._choices import UTIL_FIELDS
from vsizer.inventory._io import PercentValue
from vsizer.units import (
    TEXT_CACHE_SIZE,
    NonFiniteError,
    clock_to_mhz,
    disk_to_gib,
    memory_to_gib,
    parse_quantity,
    percent_to_fraction,
    power_to_w,
    rate_to_mb_s,
    rate_to_mbps,
    unit_kind,
)

_TEXT_FIELDS = ("model", "cpu_name", "rank", "load_rank", "group", "pool", "pin_host",
                "os", "cpu_score_basis")
_INT_FIELDS = ("sockets", "cores_per_socket", "vcpus")
_EXPECT = {
    "sockets": "a positive whole number",
    "cores_per_socket": "a positive whole number",
    "vcpus": "a positive whole number",
    "cpu_score_per_core": "a positive number",
    "cpu_mhz": "a positive clock rate such as 2400 or '2.4GHz'",
    "mem_gib": "a positive memory size such as 16, '16GB' or '512 MiB'",
    "mem_used_gib": "a non-negative memory size such as 8, '8GB' or '40%'",
    "disk_gib": "a non-negative disk size such as 300, '300GB' or '1.2TB'",
    "disk_used_gib": "a non-negative disk size such as 120, '120GB' or '40%'",
    "disk_iops": "a non-negative number",
    "disk_mb_s": "a non-negative throughput such as 20 or '20MB/s'",
    "net_mbps": "a non-negative network rate such as 100 or '100Mbps'",
    "power_w": "a non-negative power such as 350 or '350W'",
    "rack_u": "a non-negative number",
}


class _Bad(Exception):
    """A cell that cannot be read; the argument says what was expected."""


def _display(value: Any) -> str:
    """A cell as its message shows it: whole floats without ``.0``, an Excel
    percentage as ``45%``, nothing for an empty cell."""
    if isinstance(value, PercentValue):
        return str(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return "" if value is None else str(value)


def _convert_cell(
    f: str, raw: Any, col_unit: str | None, row: dict[str, Any]
) -> tuple[Any, Any, str]:
    """One cell -> (value in canonical unit, quality status, note).

    A text cell of a field that does not depend on the row is read once per
    distinct text (:func:`_convert_text`); a bad one raises each time."""
    if type(raw) is str and f not in _ROW_FIELDS:
        return _convert_text(f, raw, col_unit)
    return _convert_any(f, raw, col_unit, row)


#: Fields whose reading depends on the row's other values (a used size in %).
_ROW_FIELDS = frozenset({"mem_used_gib", "disk_used_gib"})


@lru_cache(maxsize=TEXT_CACHE_SIZE)
def _convert_text(f: str, raw: str, col_unit: str | None) -> tuple[Any, Any, str]:
    return _convert_any(f, raw, col_unit, {})


class _Cell(NamedTuple):
    """A numeric cell parsed: its number, unit and status, with what it needs
    for its field's converter (the raw cell, its row, the message)."""

    x: float
    unit: str | None
    kind: str
    status: str
    note: str
    raw: Any
    row: dict[str, Any]
    expect: str


Converted = tuple[Any, Any, str]


def _convert_any(
    f: str, raw: Any, col_unit: str | None, row: dict[str, Any]
) -> Converted:
    whole = _WHOLE_CELL.get(f)
    if whole is not None:
        return whole(raw), "given", ""
    expect = _EXPECT.get(f, "a number")
    if f in UTIL_FIELDS:
        expect = "a fraction in [0, 1]" if col_unit == "fraction" else (
            "a percentage in [0, 100]"
        )
    convert = _NUMERIC.get(f)
    cell = _parsed(raw, col_unit, row, expect)
    if convert is None:  # pragma: no cover - every field has a converter
        raise _Bad(expect)
    try:
        return convert(cell)
    except ValueError:
        raise _Bad(expect) from None


def _parsed(raw: Any, col_unit: str | None, row: dict[str, Any], expect: str) -> _Cell:
    """The number and unit of a cell (a negative number is refused); a unit
    written in the cell itself (not the column's) makes the value derived."""
    try:
        q = parse_quantity(raw)
    except NonFiniteError:
        raise _Bad("a finite number") from None
    except ValueError:
        raise _Bad(expect) from None
    if q is None:  # pragma: no cover - blank cells are skipped by the caller
        raise _Bad(expect)
    x, cell_unit = q
    if isinstance(raw, PercentValue):
        cell_unit = "fraction"
    unit = cell_unit or col_unit
    own = cell_unit not in (None, "count", col_unit) and not isinstance(
        raw, PercentValue
    )
    if x < 0:
        raise _Bad(expect)
    return _Cell(
        x, unit, unit_kind(unit) if unit else "count", "derived" if own else "given",
        f"unit in the cell: '{_display(raw)}'" if own else "", raw, row, expect,
    )


def _whole_number(c: _Cell) -> Converted:
    if c.kind != "count" or c.x <= 0 or not float(c.x).is_integer():
        raise _Bad(c.expect)
    return int(c.x), c.status, c.note


def _count(positive: bool) -> Callable[[_Cell], Converted]:
    def convert(c: _Cell) -> Converted:
        if c.kind != "count" or (positive and c.x <= 0):
            raise _Bad(c.expect)
        return c.x, c.status, c.note
    return convert


def _utilization(c: _Cell) -> Converted:
    frac = percent_to_fraction(c.x, c.unit or "%")
    if frac > 1:
        raise _Bad(c.expect)
    return frac, c.status, c.note


def _used(
    size_field: str, size: Callable[[_Cell], Converted]
) -> Callable[[_Cell], Converted]:
    """A used size: a percentage of the row's ``size_field``, else a size."""
    def convert(c: _Cell) -> Converted:
        if c.kind != "ratio":
            return size(c)
        base = c.row.get(size_field)
        frac = percent_to_fraction(c.x, c.unit or "%")
        if base is None or frac > 1:
            raise _Bad(c.expect)
        return base * frac, "derived", f"{_display(c.raw)} of {base:g} GiB"
    return convert


def _in_unit(
    to_canonical: Callable[[float, str], float], default: str, positive: bool = False
) -> Callable[[_Cell], Converted]:
    """A quantity in its field's canonical unit (``default`` when none is given)."""
    def convert(c: _Cell) -> Converted:
        value = to_canonical(c.x, c.unit or default)
        if positive and value <= 0:
            raise _Bad(c.expect)
        return value, c.status, c.note
    return convert


def _clock(c: _Cell) -> Converted:
    if c.unit is None and c.x < 100:  # "3.0" in a clock column means GHz
        return clock_to_mhz(c.x, "GHz"), "given", f"no unit: {c.x:g} read as GHz"
    return _in_unit(clock_to_mhz, "MHz", positive=True)(c)


#: Fields read from the whole cell as text.
_WHOLE_CELL: dict[str, Callable[[Any], Any]] = {
    **dict.fromkeys(_TEXT_FIELDS, clean_text),
    "redundant_with": lambda raw: ";".join(split_names(raw)) or None,
}

_memory = _in_unit(memory_to_gib, "GiB")
_disk = _in_unit(disk_to_gib, "GB")

#: Numeric field -> its converter from the parsed cell.
_NUMERIC: dict[str, Callable[[_Cell], Converted]] = {
    **dict.fromkeys(_INT_FIELDS, _whole_number),
    "cpu_score_per_core": _count(positive=True),
    "disk_iops": _count(positive=False),
    "rack_u": _count(positive=False),
    **dict.fromkeys(UTIL_FIELDS, _utilization),
    "mem_gib": _in_unit(memory_to_gib, "GiB", positive=True),
    "mem_used_gib": _used("mem_gib", _memory),
    "disk_gib": _disk,
    "disk_used_gib": _used("disk_gib", _disk),
    "cpu_mhz": _clock,
    "net_mbps": _in_unit(rate_to_mbps, "Mbit/s"),
    "disk_mb_s": _in_unit(rate_to_mb_s, "MB/s"),
    "power_w": _in_unit(power_to_w, "W"),
}
