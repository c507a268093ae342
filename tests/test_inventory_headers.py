"""Header vocabulary of server-list tables (vsizer.inventory.headers)."""

from __future__ import annotations

import pytest

from vsizer.catalogs.model import UNSTATED_BASIS
from vsizer.inventory import AZURE_MIGRATE_VARIABLE_MAP, VARIABLE_MAP
from vsizer.inventory.azure_migrate import column_role
from vsizer.inventory.headers import SCORE_BASIS, header_key, match_header
from vsizer.inventory.model import COLUMNS

ALIASES = [(field, h) for field, headers in VARIABLE_MAP.items() for h in headers]


@pytest.mark.parametrize(("field", "header"), ALIASES)
def test_every_alias_maps_to_its_field(field, header):
    assert match_header(header).field == field


@pytest.mark.parametrize(("field", "header"), ALIASES)
def test_aliases_match_in_full_width_and_other_case(field, header):
    wide = "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in header)
    assert match_header(wide.upper()).field == field


def test_every_field_is_canonical_and_keys_are_unique():
    assert set(VARIABLE_MAP) <= set(COLUMNS)
    keys = [header_key(h) for _, h in ALIASES]
    owners: dict[str, str] = {}
    for (field, _), key in zip(ALIASES, keys, strict=True):
        assert owners.setdefault(key, field) == field


@pytest.mark.parametrize(
    "header",
    ["name", "model", "cpu_name", "sockets", "cores_per_socket", "cpu_score_per_core",
     "cpu_mhz", "cpu_avg_pct", "cpu_peak_pct", "mem_gib", "mem_used_gib", "disk_gib",
     "disk_iops", "net_mbps", "power_w", "rank", "group", "pool", "redundant_with",
     "migrate", "vcpus", "rack_u", "load_rank", "pin_host", "disk_used_gib",
     "disk_mb_s", "cpu_score_basis", "os"],
)
def test_english_contract_names(header):
    renamed = {"cpu_avg_pct": "cpu_avg_util", "cpu_peak_pct": "cpu_peak_util"}
    assert match_header(header).field == renamed.get(header, header)


@pytest.mark.parametrize(
    ("header", "field", "unit", "stated"),
    [
        ("CPU 平均使用率(%)", "cpu_avg_util", "%", True),
        ("CPU平均使用率（％）", "cpu_avg_util", "%", True),
        ("CPU 最高使用率(%)", "cpu_peak_util", "%", True),
        ("cpu_avg_pct", "cpu_avg_util", "%", False),
        ("cpu_peak_util", "cpu_peak_util", "fraction", False),
        ("メモリ(MB)", "mem_gib", "MB", True),
        ("Memory [GiB]", "mem_gib", "GiB", True),
        ("Memory GB", "mem_gib", "GB", True),
        ("mem_gib", "mem_gib", "GiB", False),
        ("搭載メモリ(GB)", "mem_gib", "GB", True),
        ("メモリ使用量(GB)", "mem_used_gib", "GB", True),
        ("メモリ使用率", "mem_used_gib", "%", False),
        ("ディスク容量(TB)", "disk_gib", "TB", True),
        ("ディスク転送量(MB/s)", "disk_mb_s", "MB/s", True),
        ("ネットワーク使用量(Mbps)", "net_mbps", "Mbit/s", True),
        ("ネットワーク(Gbps)", "net_mbps", "Gbit/s", True),
        ("消費電力(W)", "power_w", "W", True),
        ("クロック(GHz)", "cpu_mhz", "GHz", True),
        ("CPU使用率(平均)", "cpu_avg_util", None, False),
        ("移行(○/×)", "migrate", None, False),
    ],
)
def test_units_in_headers(header, field, unit, stated):
    m = match_header(header)
    assert (m.field, m.unit, m.unit_stated) == (field, unit, stated)


def test_unit_of_the_wrong_kind_does_not_map():
    assert match_header("メモリ(Mbps)").field is None
    assert match_header("CPU名(%)").field is None


@pytest.mark.parametrize(
    ("header", "basis"),
    [
        ("SPEC CPU2000", "SPECint2000"),
        ("SPECint2000", "SPECint2000"),
        ("SPECrate2017", "SPECrate2017_int_base"),
        ("SPECrate2017/コア", "SPECrate2017_int_base"),
        ("SPECrate2017_int_base/core", "SPECrate2017_int_base"),
        ("SPEC CPU2017", "SPECrate2017_int_base"),
        ("cpu_score_per_core", UNSTATED_BASIS),
        ("CPU性能/コア", UNSTATED_BASIS),
    ],
)
def test_score_headers_carry_their_basis(header, basis):
    m = match_header(header)
    assert (m.field, m.basis) == ("cpu_score_per_core", basis)


def test_every_score_basis_header_is_an_alias():
    assert set(SCORE_BASIS) <= set(VARIABLE_MAP["cpu_score_per_core"])


@pytest.mark.parametrize(
    ("header", "derived"),
    [
        ("CPU性能 (CPU数×コア数×SPEC CPU)", "cpu_capacity"),
        ("CPU性能×CPU平均", "cpu_avg_demand"),
        ("CPU性能×CPU最高", "cpu_peak_demand"),
        ("CPU数×コア数", "formula"),
    ],
)
def test_derived_columns_are_recognized(header, derived):
    m = match_header(header)
    assert (m.field, m.derived) == (None, derived)


def test_unknown_header():
    m = match_header("備考")
    assert (m.field, m.derived, m.header) == (None, None, "備考")


AZURE_ALIASES = [
    (field, h.replace("Disk N", "Disk 3"))
    for field, headers in AZURE_MIGRATE_VARIABLE_MAP.items()
    for h in headers
]


@pytest.mark.parametrize(("field", "header"), AZURE_ALIASES)
def test_every_azure_migrate_header_is_recognized(field, header):
    role = column_role(header)
    assert role is not None
    assert column_role(header.lstrip("*").upper()) == role


def test_azure_migrate_roles():
    assert column_role("*Memory (In MB)") == ("mem_gib", None)
    assert column_role("Disk 2 size (In GB)") == ("disk size", "2")
    assert column_role("Total disks write ops") == ("iops_total", None)
    assert column_role("MAC address") == ("ignored", None)  # template, not sizing
    assert column_role("Storage in use (In GB)") == ("disk_used", None)
    assert column_role("Server type") == ("server_type", None)
    assert column_role("Rack") is None
