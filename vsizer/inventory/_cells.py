"""Reading one cell of a server-list table into its field's canonical unit.

:func:`_convert_cell` turns a raw cell (a number, a text such as ``"16GB"`` or
``"45%"``, a percent-formatted Excel number) into ``(value, quality status,
note)`` or raises :class:`_Bad` naming what was expected. A text cell of a
field that does not depend on the rest of its row is read once per distinct
text (a server list repeats its sizes, clocks and percentages): the table
reader (:mod:`vsizer.inventory.tabular`) calls this for every cell.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

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


def _convert_any(
    f: str, raw: Any, col_unit: str | None, row: dict[str, Any]
) -> tuple[Any, Any, str]:
    if f in _TEXT_FIELDS:
        return clean_text(raw), "given", ""
    if f == "redundant_with":
        return ";".join(split_names(raw)) or None, "given", ""
    expect = _EXPECT.get(f, "a number")
    if f in UTIL_FIELDS:
        expect = "a fraction in [0, 1]" if col_unit == "fraction" else (
            "a percentage in [0, 100]"
        )
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
    kind = unit_kind(unit) if unit else "count"
    # A unit written in the cell itself (not the column's) makes the value derived.
    own = cell_unit not in (None, "count", col_unit) and not isinstance(
        raw, PercentValue
    )
    st: Any = "derived" if own else "given"
    note = f"unit in the cell: '{_display(raw)}'" if own else ""
    if x < 0:
        raise _Bad(expect)
    if f in _INT_FIELDS:
        if kind != "count" or x <= 0 or not float(x).is_integer():
            raise _Bad(expect)
        return int(x), st, note
    if f in ("cpu_score_per_core", "disk_iops", "rack_u"):
        if kind != "count" or (f == "cpu_score_per_core" and x <= 0):
            raise _Bad(expect)
        return x, st, note
    try:
        if f in UTIL_FIELDS:
            frac = percent_to_fraction(x, unit or "%")
            if frac > 1:
                raise _Bad(expect)
            return frac, st, note
        if f in ("mem_used_gib", "disk_used_gib") and kind == "ratio":
            base = row.get("mem_gib" if f == "mem_used_gib" else "disk_gib")
            frac = percent_to_fraction(x, unit or "%")
            if base is None or frac > 1:
                raise _Bad(expect)
            return base * frac, "derived", f"{_display(raw)} of {base:g} GiB"
        if f in ("mem_gib", "mem_used_gib"):
            gib = memory_to_gib(x, unit or "GiB")
            if f == "mem_gib" and gib <= 0:
                raise _Bad(expect)
            return gib, st, note
        if f in ("disk_gib", "disk_used_gib"):
            return disk_to_gib(x, unit or "GB"), st, note
        if f == "cpu_mhz":
            if unit is None and x < 100:  # "3.0" in a clock column means GHz
                return clock_to_mhz(x, "GHz"), "given", f"no unit: {x:g} read as GHz"
            mhz = clock_to_mhz(x, unit or "MHz")
            if mhz <= 0:
                raise _Bad(expect)
            return mhz, st, note
        if f == "net_mbps":
            return rate_to_mbps(x, unit or "Mbit/s"), st, note
        if f == "disk_mb_s":
            return rate_to_mb_s(x, unit or "MB/s"), st, note
        if f == "power_w":
            return power_to_w(x, unit or "W"), st, note
    except ValueError:
        raise _Bad(expect) from None
    raise _Bad(expect)  # pragma: no cover - every field is handled above
