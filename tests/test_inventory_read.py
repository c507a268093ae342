"""read_inventory (format detection) and the bundled sample inventory."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import openpyxl
import pandas as pd
import pytest

import vsizer.inventory as inventory
from vsizer.errors import ConfigError, InventoryError
from vsizer.inventory import detect_format, read_inventory

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "vsizer" / "data" / "samples"
DATA = Path(__file__).parent / "data" / "inventory"
GIB = 2**30
SAMPLE_CPUS = {
    "Intel Xeon E5-2620 v2", "Intel Xeon E5-2620 v3", "Intel Xeon E5-2620 v4",
    "Intel Xeon E5-2650 v4", "Intel Xeon E5-2680 v3", "Intel Xeon Silver 4110",
    "Intel Xeon Gold 5118", "Intel Xeon Gold 6130", "Xeon 3.0GHz", "Xeon 5160",
}


def test_public_api():
    for name in ("Inventory", "read_inventory", "read_table", "read_rvtools",
                 "read_azure_migrate", "VARIABLE_MAP", "RVTOOLS_VARIABLE_MAP",
                 "AZURE_MIGRATE_VARIABLE_MAP"):
        assert name in inventory.__all__
        assert hasattr(inventory, name)


def test_detect_format(tmp_path):
    assert detect_format(DATA / "table_ja.csv") == "table"
    assert detect_format(DATA / "azure_migrate_docs_fields.csv") == "azure_migrate"
    assert detect_format(SAMPLES / "inventory_ja.xlsx") == "table"
    wb = openpyxl.Workbook()
    wb.active.title = "vinfo"
    wb.save(tmp_path / "rv.xlsx")
    assert detect_format(tmp_path / "rv.xlsx") == "rvtools"


def test_source_format_overrides_detection():
    inv = read_inventory(DATA / "table_en.csv", source_format="table")
    assert (inv.source_format, len(inv)) == ("table", 4)
    with pytest.raises(
        ConfigError,
        match=re.escape("The 'source_format' parameter of read_inventory must be one "
                        "of 'table', 'rvtools', 'azure_migrate'. Got 'sap' instead."),
    ):
        read_inventory(DATA / "table_en.csv", source_format="sap")


def test_file_errors_are_one_line(tmp_path):
    with pytest.raises(InventoryError) as exc:
        read_inventory(tmp_path / "missing.xlsx")
    assert exc.value.problems == [
        f"missing.xlsx: file not found: {tmp_path / 'missing.xlsx'}"
    ]
    p = tmp_path / "old.xls"
    p.write_bytes(b"\xd0\xcf\x11\xe0")
    with pytest.raises(
        InventoryError,
        match=re.escape("old.xls: Excel 97-2003 workbooks (.xls) are not supported; "
                        "save it as .xlsx or .csv"),
    ):
        read_inventory(p)


@pytest.mark.parametrize("name, data, line", [
    ("servers.ods", b"", "servers.ods: OpenDocument spreadsheets (.ods) are not "
     "supported; save it as .xlsx or .csv"),
    ("big.xlsb", b"PK", "big.xlsb: Excel binary workbooks (.xlsb) are not supported; "
     "save it as .xlsx or .csv"),
    ("servers.txt.bak", b"", "servers.txt.bak: unsupported file type '.bak'; expected "
     ".csv or .xlsx (a table, an RVTools export or an Azure Migrate CSV)"),
])
def test_other_file_types_are_one_line(tmp_path, name, data, line):
    p = tmp_path / name
    p.write_bytes(data)
    with pytest.raises(InventoryError) as exc:
        read_inventory(p)
    assert exc.value.problems == [line]


# --- the bundled sample ------------------------------------------------------


@pytest.fixture(scope="module", params=["xlsx", "csv"])
def sample(request):
    return read_inventory(SAMPLES / f"inventory_ja.{request.param}")


def _row(inv, name):
    s = inv.servers.set_index("name").loc[name]
    return {k: (None if pd.isna(v) else v) for k, v in s.items()}


def test_sample_counts_and_exclusions(sample):
    assert sample.source_format == "table"
    assert len(sample) == 37
    assert sample.metadata["n_rows"] == 40
    assert sample.metadata["header_row"] == 4  # below a title and a subtitle
    assert sample.excluded.to_dict("records") == [
        {"name": "seisan-plc01", "reason": "migrate = 対象外 (row 26)"},
        {"name": "bkup01", "reason": "migrate = 対象外 (row 34)"},
        {"name": "fax01", "reason": "migrate = 対象外 (row 35)"},
    ]
    assert sample.quality.notes == []  # the derived columns agree, peaks >= avgs


def test_sample_content(sample):
    s = sample.servers
    assert set(s["cpu_name"]) == SAMPLE_CPUS
    assert set(s["pool"]) == {"本番", "開発"}
    assert set(s["rank"]) == {"A", "B", "C"}
    systems = {"販売管理", "会計", "人事", "ファイルサーバ", "メール", "監視", "開発"}
    assert systems <= set(s["group"])
    assert s["mem_gib"].between(8, 256).all()
    assert s["cpu_avg_util"].between(0.05, 0.40).all()
    assert s["cpu_peak_util"].between(0.20, 0.85).all()
    assert s["power_w"].isna().sum() == 8
    assert s["cpu_score_per_core"].notna().sum() == 2
    db = _row(sample, "hanbai-db01")
    assert (db["model"], db["sockets"], db["cores_per_socket"], db["vcpus"]) == (
        "ProLiant DL380 Gen9", 2, 12, 24
    )
    assert (db["cpu_avg_util"], db["cpu_peak_util"]) == (0.38, 0.85)
    assert db["mem_gib"] == 128.0 and db["mem_used_gib"] == 96.0
    assert db["disk_gib"] == pytest.approx(2400e9 / GIB)
    assert (db["disk_iops"], db["disk_mb_s"]) == (2200.0, 85.0)
    assert db["net_mbps"] == 150.0
    assert (db["power_w"], db["rack_u"], db["redundant_with"]) == (
        390.0, 2.0, "hanbai-db02"
    )
    ap = _row(sample, "seisan-ap01")
    assert (ap["cpu_score_per_core"], ap["cpu_score_basis"]) == (
        4.98, "SPECrate2017_int_base"
    )
    assert _row(sample, "print01")["cpu_mhz"] == 3000.0
    assert sample.quality.status("print01", "cpu_mhz") == "derived"
    # portal-web02 names no partner; portal-web01 names it: the pair is mutual
    assert _row(sample, "portal-web02")["redundant_with"] == "portal-web01"
    assert sample.quality.status("portal-web02", "redundant_with") == "derived"
    assert sample.metadata["unmapped"] == ["備考"]


def test_sample_xlsx_and_csv_agree():
    x = read_inventory(SAMPLES / "inventory_ja.xlsx")
    c = read_inventory(SAMPLES / "inventory_ja.csv")
    pd.testing.assert_frame_equal(x.servers, c.servers)
    pd.testing.assert_frame_equal(x.excluded, c.excluded)
    assert x.quality.entries == c.quality.entries
    assert (SAMPLES / "inventory_ja.csv").read_bytes()[:3] == b"\xef\xbb\xbf"


def test_sample_generator_is_deterministic(tmp_path):
    spec = importlib.util.spec_from_file_location(
        "make_sample_inventory", ROOT / "scripts" / "make_sample_inventory.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["make_sample_inventory", str(tmp_path)]) == 0
    for name in ("inventory_ja.xlsx", "inventory_ja.csv"):
        assert (tmp_path / name).read_bytes() == (SAMPLES / name).read_bytes(), name


def test_records_with_blank_cells_store_as_field_by_field(tmp_path, monkeypatch):
    """The reader stores a record with blank cells at C speed and falls back to
    field by field for a note: the values, the quality pairs and their order
    are those of the field-by-field store (every row forced through it, the
    oracle); a 'なし' partner is noted, a blank cell stores nothing."""
    from vsizer.inventory import _columns, read_inventory

    f = tmp_path / "list.csv"
    f.write_text(
        "サーバ名,CPU数,コア数/CPU,CPU 最高使用率(%),メモリ(GB),消費電力(W),冗長相手\n"
        "a,2,8,40,64,,b\n"
        "b,2,8,30,64,300,a\n"
        "c,1,4,,32,200,なし\n"
        "d,1,4,20,,,\n",
        encoding="utf-8",
    )
    inv = read_inventory(f)
    q = inv.quality.entries
    assert q["c"]["redundant_with"] == ("given", "'なし': no partner")
    assert "redundant_with" not in q["d"] and q["a"]["redundant_with"] == ("given", "")
    assert "power_w" not in q["a"] and q["b"]["power_w"] == ("given", "")
    monkeypatch.setattr(_columns, "_partner_notes", lambda readings: range(10**6))
    oracle = read_inventory(f)
    assert [(k, list(v.items())) for k, v in q.items()] == [
        (k, list(v.items())) for k, v in oracle.quality.entries.items()]
    assert inv.servers.equals(oracle.servers)
