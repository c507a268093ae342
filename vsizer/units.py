"""Unit conversions, done once when a file is read.

Every reader turns a cell such as ``"16GB"``, ``"512 MiB"``, ``"45%"``,
``"0.45"``, ``"1,024"`` or ``"４５％"`` into a number in the unit of the
canonical name it is stored under (``docs/nomenclature.md``): memory and disk
in GiB, utilization as a fraction, network in Mbit/s, disk throughput in MB/s,
clock in MHz, power in W. Downstream code never converts units again.

Conventions
-----------
Memory
    Server spec sheets and inventories write memory in "MB" and "GB" but mean
    binary units: a 16 GB DIMM holds 16 GiB, a "2048 MB" VM has 2 GiB. So for
    **memory**, MB is read as MiB and GB as GiB (KB as KiB, TB as TiB).
Disk
    Disk vendors and most tools mean decimal units: a "600 GB" disk holds
    600 x 10^9 bytes = 558.8 GiB. So for **disk**, KB/MB/GB/TB are decimal
    and converted exactly to GiB; KiB/MiB/GiB/TiB are binary.
Network
    ``Mbps``, ``Mbit/s``, ``Mb/s`` are megabits (10^6 bit) per second;
    ``MB/s`` and ``MBps`` are megabytes (10^6 byte) per second = 8 Mbit/s.
    The case of the ``b``/``B`` is significant for rates only.
Utilization
    ``%`` (percent) or ``fraction`` (0.45 = 45 %).

All functions here are pure. Parsers return ``None`` for an empty cell (any
blank-like text of :data:`EMPTY_MARKERS`: ``-``, ``N/A``, ``不明``, ``?`` ...) and
raise :class:`ValueError` (with a short reason) for a cell they cannot read;
readers turn that into an :class:`~vsizer.errors.InventoryError` line. An
infinite or overflowing number (``inf``, ``1e400``) raises
:class:`NonFiniteError`, a :class:`ValueError` that readers report as
"expected a finite number": it never becomes a missing value.
"""

from __future__ import annotations

import math
import re
import unicodedata
from functools import lru_cache
from typing import Any

__all__ = [
    "BYTES_PER_GIB",
    "EMPTY_MARKERS",
    "NonFiniteError",
    "canonical_unit",
    "clock_mhz_in_name",
    "clock_to_mhz",
    "disk_to_gib",
    "is_blank",
    "memory_to_gib",
    "normalize_text",
    "parse_bool",
    "parse_number",
    "parse_quantity",
    "percent_to_fraction",
    "power_to_w",
    "rate_to_mb_s",
    "rate_to_mbps",
    "unit_kind",
]

#: Bytes in one GiB.
BYTES_PER_GIB = 2**30

#: Cell texts that mean "no value", compared after NFKC normalization, stripping
#: and case folding (so ``－`` is ``-``, ``？`` is ``?``, ``N/A`` is ``n/a``):
#: empty, dashes, the not-available spellings of spreadsheets and databases
#: (``N/A``, ``NA``, ``#N/A``, ``none``, ``null``, ``nan``), "unknown"/"none" in
#: Japanese (``不明``, ``なし``, ``無し``) and a question mark. Every reader
#: treats such a cell as *missing* (:mod:`vsizer.missing` says what a missing
#: field becomes), never as an error and never as a number.
EMPTY_MARKERS: frozenset[str] = frozenset(
    {
        "", "-", "--", "---", "—", "–", "―", "‐", "ー",
        "n/a", "na", "#n/a", "none", "null", "nan",
        "不明", "なし", "無し",
        "?", "??", "???",
    }
)

# Binary multipliers to bytes of the size units (memory reading: MB = MiB).
_SIZE_BYTES_BINARY = {
    "B": 1,
    "KB": 2**10,
    "MB": 2**20,
    "GB": 2**30,
    "TB": 2**40,
    "KiB": 2**10,
    "MiB": 2**20,
    "GiB": 2**30,
    "TiB": 2**40,
}
# Decimal reading of the SI size units (disk reading: GB = 10^9 bytes).
_SIZE_BYTES_DECIMAL = {
    **_SIZE_BYTES_BINARY,
    "KB": 10**3,
    "MB": 10**6,
    "GB": 10**9,
    "TB": 10**12,
}

# Unit aliases, matched after NFKC + casefold + whitespace removal; rates are
# handled separately because their b/B case matters.
_UNIT_ALIASES: dict[str, str] = {
    "b": "B", "byte": "B", "bytes": "B", "バイト": "B",
    "k": "KB", "kb": "KB", "kbyte": "KB", "kbytes": "KB", "kバイト": "KB",
    "kib": "KiB",
    "m": "MB", "mb": "MB", "mbyte": "MB", "mbytes": "MB", "megabyte": "MB",
    "megabytes": "MB", "mバイト": "MB", "メガバイト": "MB", "mib": "MiB",
    "g": "GB", "gb": "GB", "gbyte": "GB", "gbytes": "GB", "gigabyte": "GB",
    "gigabytes": "GB", "gバイト": "GB", "ギガバイト": "GB", "gib": "GiB",
    "t": "TB", "tb": "TB", "tbyte": "TB", "terabyte": "TB", "terabytes": "TB",
    "tバイト": "TB", "テラバイト": "TB", "tib": "TiB",
    "%": "%", "percent": "%", "pct": "%", "パーセント": "%",
    "fraction": "fraction", "ratio": "fraction", "割合": "fraction",
    "比率": "fraction",
    "hz": "Hz", "khz": "kHz", "mhz": "MHz", "ghz": "GHz",
    "w": "W", "watt": "W", "watts": "W", "ワット": "W", "kw": "kW",
    "u": "U",
    "iops": "count", "ops/s": "count", "io/s": "count", "回/秒": "count",
    "個": "count", "コア": "count", "core": "count", "cores": "count",
    "cpu": "count", "cpus": "count", "socket": "count", "sockets": "count",
    "台": "count", "本": "count", "枚": "count",
}

_KIND: dict[str, str] = {
    **{u: "size" for u in _SIZE_BYTES_BINARY},
    "%": "ratio", "fraction": "ratio",
    "Hz": "clock", "kHz": "clock", "MHz": "clock", "GHz": "clock",
    "W": "power", "kW": "power",
    "U": "count", "count": "count",
}

# A rate: optional SI prefix, optional binary 'i', bit or byte, per second.
_RATE_RE = re.compile(
    r"^(?P<prefix>[kKmMgGtT]?)(?P<binary>i?)"
    r"(?:(?P<bits>bits?|b)|(?P<bytes>bytes?|B))"
    r"(?:/s|/sec|ps|/秒|毎秒)$"
)
_PREFIX = {"": 1.0, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12}
_PREFIX_BINARY = {"": 1.0, "k": 2.0**10, "m": 2.0**20, "g": 2.0**30, "t": 2.0**40}

_NUMBER_RE = re.compile(
    r"^(?P<num>[+-]?(?:(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)"
    r"\s*(?P<unit>.*)$"
)
_INFINITY_RE = re.compile(r"^[+-]?(?:inf|infinity|∞)$", re.IGNORECASE)
_CLOCK_IN_NAME_RE = re.compile(r"(\d+(?:\.\d+)?)\s*([GM])Hz", re.IGNORECASE)
_TRUE_WORDS = frozenset(
    {"yes", "y", "true", "t", "1", "○", "〇", "◯", "はい", "対象", "移行",
     "する", "要", "on"}
)
_FALSE_WORDS = frozenset(
    {"no", "n", "false", "f", "0", "×", "x", "✕", "いいえ", "対象外", "移行しない",
     "しない", "不要", "off", "非対象"}
)


class NonFiniteError(ValueError):
    """A cell holds an infinite number: ``inf``, ``-inf``, ``∞``, or a number
    too large for a float such as ``1e400``. Readers report it as
    "expected a finite number", never as a missing value."""

    def __init__(self, text: str):
        super().__init__(f"not a finite number: {text!r}")


def normalize_text(value: Any) -> str:
    """NFKC-normalize a cell to text and strip it (``None`` -> ``""``).

    NFKC turns full-width digits, letters, percent signs and parentheses into
    their ASCII forms (``"４５％"`` -> ``"45%"``); the Unicode minus sign is
    replaced by ``-`` as well.
    """
    if type(value) is str and value.isascii():
        return value.strip()  # ASCII is NFKC-normal and holds no minus sign
    if value is None:
        return ""
    if isinstance(value, float) and math.isnan(value):
        return ""
    text = unicodedata.normalize("NFKC", str(value))
    return text.replace("\u2212", "-").strip()


#: Distinct cell texts whose reading is remembered (:func:`is_blank`,
#: :func:`parse_quantity`): a server list repeats its sizes, clocks and
#: percentages across thousands of rows, and each text is parsed once.
TEXT_CACHE_SIZE = 1 << 16


def is_blank(value: Any) -> bool:
    """True for ``None``, NaN/NA, and texts in :data:`EMPTY_MARKERS` (any case,
    any width: ``"N/A"``, ``"n/a"``, ``"－"``, ``"？"``, ``"不明"``)."""
    if type(value) is str:
        return _blank_text(value)
    if value is None:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    if type(value).__name__ in ("NAType", "NaTType"):  # pandas NA / NaT
        return True
    if isinstance(value, (int, float)):
        return False
    return normalize_text(value).casefold() in EMPTY_MARKERS


@lru_cache(maxsize=TEXT_CACHE_SIZE)
def _blank_text(text: str) -> bool:
    return normalize_text(text).casefold() in EMPTY_MARKERS


def canonical_unit(text: str) -> str:
    """Canonical spelling of a unit: ``"gb"`` -> ``"GB"``, ``"Mbps"`` -> ``"Mbit/s"``.

    Rates come back as ``"<prefix>bit/s"`` or ``"<prefix>B/s"`` (``"Mbit/s"``,
    ``"MB/s"``, ``"MiB/s"``). Raises :class:`ValueError` for an unknown unit.
    """
    raw = normalize_text(text).replace(" ", "")
    if raw[:1] + raw[-1:] in ("()", "[]"):
        raw = raw[1:-1]
    m = _RATE_RE.match(raw)
    if m:
        prefix = m.group("prefix")
        # In "MBps"/"MB/s" the capital B means bytes; "Mbps"/"Mb/s" are bits.
        is_bytes = m.group("bytes") is not None
        p = prefix.upper() if prefix.lower() != "k" else "k"
        return f"{p}{m.group('binary')}{'B' if is_bytes else 'bit'}/s"
    key = raw.casefold()
    if key in _UNIT_ALIASES:
        return _UNIT_ALIASES[key]
    raise ValueError(f"unknown unit {text!r}")


def unit_kind(unit: str) -> str:
    """Kind of a canonical unit: 'size', 'ratio', 'rate', 'clock', 'power', 'count'."""
    if unit.endswith("/s"):
        return "rate"
    try:
        return _KIND[unit]
    except KeyError:
        raise ValueError(f"unknown unit {unit!r}") from None


def parse_quantity(value: Any) -> tuple[float, str | None] | None:
    """Split a cell into a number and its canonical unit.

    Parameters
    ----------
    value : object
        A cell: number, or text such as ``"16GB"``, ``"512 MiB"``, ``"1,024"``,
        ``"４５％"``.

    Returns
    -------
    tuple of (float, str or None), or None
        ``None`` for an empty cell; the unit is ``None`` when the cell has none.

    Raises
    ------
    NonFiniteError
        The number is infinite (``inf``, ``-inf``) or overflows a float
        (``1e400``); a subclass of :class:`ValueError`.
    ValueError
        The text is not a number optionally followed by a known unit.
    """
    if type(value) is str:
        return _quantity_text(value)
    if isinstance(value, bool):
        raise ValueError("a boolean is not a number")
    if isinstance(value, (int, float)):
        if isinstance(value, float) and math.isnan(value):
            return None
        try:
            number = float(value)
        except OverflowError:  # an int beyond the float range
            raise NonFiniteError(str(value)) from None
        if not math.isfinite(number):
            raise NonFiniteError(str(value))
        return number, None
    return _quantity(value)


@lru_cache(maxsize=TEXT_CACHE_SIZE)
def _quantity_text(value: str) -> tuple[float, str | None] | None:
    """:func:`parse_quantity` of a text (remembered: the result is immutable;
    a text that raises is parsed again each time)."""
    return _quantity(value)


def _quantity(value: Any) -> tuple[float, str | None] | None:
    if is_blank(value):
        return None
    text = normalize_text(value)
    m = _NUMBER_RE.match(text)
    if not m:
        if _INFINITY_RE.match(text.replace(" ", "")):
            raise NonFiniteError(text)
        raise ValueError(f"not a number: {text!r}")
    number = float(m.group("num").replace(",", ""))
    if not math.isfinite(number):
        raise NonFiniteError(text)
    unit_text = m.group("unit").strip()
    if not unit_text:
        return number, None
    return number, canonical_unit(unit_text)


def parse_number(value: Any) -> float | None:
    """A plain number from a cell (``"1,024"`` -> 1024.0); a unit is an error."""
    q = parse_quantity(value)
    if q is None:
        return None
    number, unit = q
    if unit not in (None, "count"):
        raise ValueError(f"expected a plain number, got unit {unit!r}")
    return number


def memory_to_gib(x: float, unit: str) -> float:
    """Memory in ``unit`` -> GiB; MB/GB are read as MiB/GiB (spec-sheet usage).

    Examples: 2048 MB -> 2.0 GiB; 16 GB -> 16.0 GiB; 1 TB -> 1024.0 GiB.
    """
    if unit not in _SIZE_BYTES_BINARY:
        raise ValueError(f"{unit!r} is not a size unit")
    return x * _SIZE_BYTES_BINARY[unit] / BYTES_PER_GIB


def disk_to_gib(x: float, unit: str) -> float:
    """Disk size in ``unit`` -> GiB; KB/MB/GB/TB are decimal, KiB..TiB binary.

    Examples: 600 GB -> 600e9 / 2^30 = 558.7935 GiB; 102400 MiB -> 100.0 GiB.
    """
    if unit not in _SIZE_BYTES_DECIMAL:
        raise ValueError(f"{unit!r} is not a size unit")
    return x * _SIZE_BYTES_DECIMAL[unit] / BYTES_PER_GIB


def percent_to_fraction(x: float, unit: str) -> float:
    """Utilization in ``'%'`` or ``'fraction'`` -> fraction (45 % -> 0.45)."""
    if unit == "%":
        return x / 100.0
    if unit == "fraction":
        return x
    raise ValueError(f"{unit!r} is not '%' or 'fraction'")


def _rate_bits_per_s(x: float, unit: str) -> float:
    m = re.fullmatch(r"(?P<p>[kKMGT]?)(?P<i>i?)(?P<u>bit|B)/s", unit)
    if not m:
        raise ValueError(f"{unit!r} is not a rate unit")
    p = m.group("p").lower()
    factor = _PREFIX_BINARY[p] if m.group("i") else _PREFIX[p]
    return x * factor * (8.0 if m.group("u") == "B" else 1.0)


def rate_to_mbps(x: float, unit: str) -> float:
    """Network rate in ``unit`` -> Mbit/s (10^6 bit/s).

    Examples: 1 Gbit/s -> 1000.0; 12.5 MB/s -> 100.0; 800 kbit/s -> 0.8.
    """
    return _rate_bits_per_s(x, unit) / 1e6


def rate_to_mb_s(x: float, unit: str) -> float:
    """Throughput in ``unit`` -> MB/s (10^6 byte/s); 1 MiB/s = 1.048576 MB/s."""
    return _rate_bits_per_s(x, unit) / 8e6


def clock_to_mhz(x: float, unit: str) -> float:
    """Clock in Hz/kHz/MHz/GHz -> MHz (3.0 GHz -> 3000.0)."""
    factor = {"Hz": 1e-6, "kHz": 1e-3, "MHz": 1.0, "GHz": 1e3}
    if unit not in factor:
        raise ValueError(f"{unit!r} is not a clock unit")
    return x * factor[unit]


def power_to_w(x: float, unit: str) -> float:
    """Power in W or kW -> W."""
    if unit == "W":
        return x
    if unit == "kW":
        return x * 1000.0
    raise ValueError(f"{unit!r} is not a power unit")


def clock_mhz_in_name(cpu_name: Any) -> float | None:
    """The clock written in a CPU name, in MHz, or ``None``.

    ``"Xeon 3.0GHz"`` -> 3000.0;
    ``"Intel(R) Xeon(R) Gold 5218 CPU @ 2.30GHz"`` -> 2300.0;
    ``"Intel Xeon E5-2620 v4"`` -> None.
    """
    if type(cpu_name) is str:  # a fleet repeats its CPU names: each read once
        return _clock_in_text(cpu_name)
    return _clock_mhz(cpu_name)


@lru_cache(maxsize=TEXT_CACHE_SIZE)
def _clock_in_text(cpu_name: str) -> float | None:
    return _clock_mhz(cpu_name)


def _clock_mhz(cpu_name: Any) -> float | None:
    text = normalize_text(cpu_name)[:200]  # real names are short; the regex is not linear
    m = _CLOCK_IN_NAME_RE.search(text)
    if not m:
        return None
    value = float(m.group(1))
    return value * 1000.0 if m.group(2).upper() == "G" else value


def parse_bool(value: Any) -> bool | None:
    """Yes/no cell -> bool; ``None`` when empty.

    Accepts yes/no, true/false, y/n, 1/0, ○/×, はい/いいえ, 対象/対象外,
    移行/移行しない, する/しない (case- and width-insensitive).
    """
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and not (
        isinstance(value, float) and math.isnan(value)
    ):
        if value in (0, 1):
            return bool(value)
        raise ValueError(f"not a yes/no value: {value!r}")
    if is_blank(value):
        return None
    key = normalize_text(value).casefold()
    if key in _TRUE_WORDS:
        return True
    if key in _FALSE_WORDS:
        return False
    raise ValueError(f"not a yes/no value: {value!r}")
