"""Unit conversions at read time (vsizer.units), against hand-computed values."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from vsizer import units


@pytest.mark.parametrize(
    ("x", "unit", "gib"),
    [
        (2048, "MB", 2.0),  # spec-sheet MB is MiB: 2048 / 1024
        (16, "GB", 16.0),  # a 16 GB DIMM holds 16 GiB
        (1, "TB", 1024.0),
        (512, "MiB", 0.5),
        (1.5, "GiB", 1.5),
        (1_073_741_824, "B", 1.0),
        (1_048_576, "KB", 1.0),
    ],
)
def test_memory_to_gib_reads_mb_gb_as_binary(x, unit, gib):
    assert units.memory_to_gib(x, unit) == gib


@pytest.mark.parametrize(
    ("x", "unit", "gib"),
    [
        (600, "GB", 558.7935447692871),  # 600e9 / 2**30
        (1, "TB", 931.3225746154785),  # 1e12 / 2**30
        (146, "GB", 135.97309589385986),  # 146e9 / 2**30
        (102400, "MiB", 100.0),
        (0.5, "TiB", 512.0),
        (1000, "MB", 0.9313225746154785),  # 1e9 / 2**30
    ],
)
def test_disk_to_gib_reads_si_units_as_decimal(x, unit, gib):
    assert_allclose(units.disk_to_gib(x, unit), gib, rtol=1e-12)


def test_size_conversions_reject_other_units():
    with pytest.raises(ValueError, match="not a size unit"):
        units.memory_to_gib(1, "%")
    with pytest.raises(ValueError, match="not a size unit"):
        units.disk_to_gib(1, "MB/s")


@pytest.mark.parametrize(
    ("x", "unit", "frac"), [(45, "%", 0.45), (0.45, "fraction", 0.45), (100, "%", 1.0)]
)
def test_percent_to_fraction(x, unit, frac):
    assert units.percent_to_fraction(x, unit) == pytest.approx(frac, abs=1e-15)


def test_percent_to_fraction_rejects_other_units():
    with pytest.raises(ValueError, match="'%' or 'fraction'"):
        units.percent_to_fraction(1, "MB")


@pytest.mark.parametrize(
    ("x", "unit", "mbps"),
    [
        (1, "Gbit/s", 1000.0),
        (100, "Mbit/s", 100.0),
        (800, "kbit/s", 0.8),
        (12.5, "MB/s", 100.0),  # 12.5 MB/s x 8 bit/byte
        (1, "MiB/s", 8.388608),  # 2**20 x 8 / 1e6
        (1, "GB/s", 8000.0),
    ],
)
def test_rate_to_mbps(x, unit, mbps):
    assert units.rate_to_mbps(x, unit) == pytest.approx(mbps, rel=1e-12)


@pytest.mark.parametrize(
    ("x", "unit", "mb_s"),
    [(1, "MiB/s", 1.048576), (100, "Mbit/s", 12.5), (20, "MB/s", 20.0)],
)
def test_rate_to_mb_s(x, unit, mb_s):
    assert units.rate_to_mb_s(x, unit) == pytest.approx(mb_s, rel=1e-12)


def test_rate_rejects_non_rates():
    with pytest.raises(ValueError, match="not a rate unit"):
        units.rate_to_mbps(1, "GB")


def test_clock_and_power():
    assert units.clock_to_mhz(3.0, "GHz") == 3000.0
    assert units.clock_to_mhz(2400, "MHz") == 2400.0
    assert units.power_to_w(1.2, "kW") == 1200.0
    assert units.power_to_w(350, "W") == 350.0
    with pytest.raises(ValueError, match="not a clock unit"):
        units.clock_to_mhz(1, "W")
    with pytest.raises(ValueError, match="not a power unit"):
        units.power_to_w(1, "MHz")


@pytest.mark.parametrize(
    ("text", "unit"),
    [
        ("Mbps", "Mbit/s"),
        ("Mb/s", "Mbit/s"),
        ("MBps", "MB/s"),
        ("MB/s", "MB/s"),
        ("KB/s", "kB/s"),
        ("kbps", "kbit/s"),
        ("Gbps", "Gbit/s"),
        ("MiB/s", "MiB/s"),
        ("gb", "GB"),
        ("GiB", "GiB"),
        ("(MB)", "MB"),
        ("[GiB]", "GiB"),
        ("％", "%"),
        ("percent", "%"),
        ("fraction", "fraction"),
        ("GHz", "GHz"),
        ("kW", "kW"),
        ("U", "U"),
    ],
)
def test_canonical_unit(text, unit):
    assert units.canonical_unit(text) == unit


def test_canonical_unit_unknown():
    with pytest.raises(ValueError, match="unknown unit 'parsecs'"):
        units.canonical_unit("parsecs")


@pytest.mark.parametrize(
    ("cell", "expected"),
    [
        ("16GB", (16.0, "GB")),
        ("512 MiB", (512.0, "MiB")),
        ("45%", (45.0, "%")),
        ("0.45", (0.45, None)),
        ("1,024", (1024.0, None)),
        ("1,234,567.5", (1234567.5, None)),
        ("４５％", (45.0, "%")),  # full-width digits and percent sign
        ("１６ＧＢ", (16.0, "GB")),
        ("100 Mbps", (100.0, "Mbit/s")),
        ("12.5MB/s", (12.5, "MB/s")),
        ("3.0GHz", (3.0, "GHz")),
        ("1.5e3", (1500.0, None)),
        ("\u22124", (-4.0, None)),  # Unicode minus sign
        ("  8 ", (8.0, None)),
        (7, (7.0, None)),
        (0.25, (0.25, None)),
    ],
)
def test_parse_quantity(cell, expected):
    assert units.parse_quantity(cell) == expected


@pytest.mark.parametrize(
    "cell",
    [None, "", "  ", "-", "—", "ー", float("nan"), "－", "N/A", "n/a", "NA", "#N/A",
     "不明", "なし", "無し", "?", "？", "none", "NULL", "nan", " Ｎ／Ａ "],
)
def test_parse_quantity_blank(cell):
    assert units.parse_quantity(cell) is None


@pytest.mark.parametrize("cell", ["abc", "1,5", "16 parsecs", "n/a/b", "#VALUE!", True])
def test_parse_quantity_rejects(cell):
    with pytest.raises(ValueError):
        units.parse_quantity(cell)


def test_parse_number_rejects_units():
    assert units.parse_number("1,024") == 1024.0
    assert units.parse_number("2 CPU") == 2.0  # a count word is not a unit
    with pytest.raises(ValueError, match="plain number"):
        units.parse_number("16GB")


@given(st.integers(min_value=0, max_value=10**12))
def test_thousands_separators_round_trip(n):
    assert units.parse_quantity(f"{n:,}") == (float(n), None)


@given(st.floats(min_value=0, max_value=1e6, allow_nan=False))
def test_memory_mb_to_gib_round_trip(mb):
    back = units.memory_to_gib(mb, "MB") * 1024
    assert math.isclose(back, mb, rel_tol=1e-12, abs_tol=1e-300)


@pytest.mark.parametrize(
    "cell",
    ["yes", "Y", "TRUE", "1", 1, "○", "〇", "はい", "対象", "移行", "する", True],
)
def test_parse_bool_true(cell):
    assert units.parse_bool(cell) is True


@pytest.mark.parametrize(
    "cell",
    ["no", "N", "false", "0", 0, "×", "いいえ", "対象外", "移行しない", "しない"],
)
def test_parse_bool_false(cell):
    assert units.parse_bool(cell) is False


def test_parse_bool_blank_and_invalid():
    assert units.parse_bool("") is None
    assert units.parse_bool(None) is None
    with pytest.raises(ValueError, match="not a yes/no value: 'maybe'"):
        units.parse_bool("maybe")
    with pytest.raises(ValueError, match="not a yes/no value"):
        units.parse_bool(2)


@pytest.mark.parametrize(
    ("name", "mhz"),
    [
        ("Xeon 3.0GHz", 3000.0),
        ("Intel(R) Xeon(R) Gold 5218 CPU @ 2.30GHz", 2300.0),
        ("Pentium III 1000MHz", 1000.0),
        ("Ｘｅｏｎ ３．４ＧＨｚ", 3400.0),
        ("Intel Xeon E5-2620 v4", None),
        (None, None),
    ],
)
def test_clock_mhz_in_name(name, mhz):
    assert units.clock_mhz_in_name(name) == mhz


def test_normalize_text():
    assert units.normalize_text("  ＣＰＵ（％） ") == "CPU(%)"
    assert units.normalize_text(None) == ""
    assert units.is_blank("—")
    assert not units.is_blank("0")
    assert not units.is_blank(0) and not units.is_blank(0.0)
    assert not units.is_blank("nano")  # whole-cell match only
