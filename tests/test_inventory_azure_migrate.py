"""Azure Migrate import CSV (vsizer.inventory.azure_migrate).

Fixtures in tests/data/inventory/ use the two header spellings recorded in
../shared/data/formats/azure_migrate_import/: the columns written by
lrivallain/rvtools2azmigrate (mandatory ones with '*', units in brackets) and
the field names of Microsoft's tutorial (no '*', no units, Total columns).
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pandas as pd
import pytest

from vsizer.errors import InventoryError
from vsizer.inventory import read_azure_migrate, read_inventory
from vsizer.inventory.azure_migrate import column_role

DATA = Path(__file__).parent / "data" / "inventory"
SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "formats"
GIB = 2**30


def _row(inv, name):
    s = inv.servers.set_index("name").loc[name]
    return {k: (None if pd.isna(v) else v) for k, v in s.items()}


def test_converter_headers_with_star():
    inv = read_azure_migrate(DATA / "azure_migrate_rvtools2azmigrate.csv")
    assert inv.source_format == "azure_migrate"
    assert list(inv.servers["name"]) == [
        "app01.contoso.local", "db01.contoso.local", "tools01.contoso.local"
    ]
    app = _row(inv, "app01.contoso.local")
    assert app["vcpus"] == 4
    assert app["sockets"] is None and app["cores_per_socket"] is None
    assert app["mem_gib"] == 8.0  # 8192 MB
    assert app["cpu_avg_util"] == 0.25
    # The format has no peak: average x the default factor 4.85 (fewer than 3
    # servers give both) = 1.21, capped at 100 % (vsizer.missing).
    assert app["cpu_peak_util"] == 1.0
    assert app["mem_used_gib"] == pytest.approx(4.8)  # 60 % of 8 GiB
    assert app["disk_gib"] == pytest.approx((100 + 200) * 1e9 / GIB)
    assert app["disk_iops"] == 100.0  # 50 + 30 + 10 + 10
    assert app["disk_mb_s"] == pytest.approx(4.0)  # 2 + 1 + 0.5 + 0.5
    assert app["net_mbps"] == pytest.approx(16.0)  # (1.5 + 0.5) MB/s x 8
    assert app["os"] == "Microsoft Windows Server 2019 (64-bit)"
    assert (app["pool"], app["group"]) == ("default", "default")
    db = _row(inv, "db01.contoso.local")
    assert db["os"] == "Red Hat Enterprise Linux 8 (64-bit) 8.6"
    assert db["disk_iops"] == 1200.0
    tools = _row(inv, "tools01.contoso.local")
    assert tools["cpu_avg_util"] is None and tools["disk_gib"] is None
    q = inv.quality
    assert q.status("app01.contoso.local", "cpu_avg_util") == "given"
    assert q.status("app01.contoso.local", "cpu_peak_util") == "estimated"
    assert q.status("app01.contoso.local", "disk_gib") == "derived"
    assert q.status("app01.contoso.local", "pool") == "assumed"
    assert q.status("tools01.contoso.local", "cpu_avg_util") == "missing"
    assert "IP addresses" in inv.metadata["unmapped"]


def test_docs_field_names_and_totals():
    inv = read_azure_migrate(DATA / "azure_migrate_docs_fields.csv")
    web01, web02 = (_row(inv, f"web0{i}.contoso.local") for i in (1, 2))
    assert web01["disk_iops"] == 200.0  # Total columns win over Disk 1 columns
    assert web01["disk_mb_s"] == 10.0
    assert web02["disk_iops"] == 30.0  # no totals: Disk 1 read + write
    assert web02["disk_mb_s"] == 2.0
    assert web01["cpu_avg_util"] == 0.125
    assert web01["mem_used_gib"] == 2.0
    assert web01["net_mbps"] == pytest.approx(4.0)
    assert web01["disk_gib"] == pytest.approx(128e9 / GIB)
    assert set(inv.metadata["unmapped"]) == {
        "IP address", "OS architecture", "Number of disks", "Firmware type",
        "MAC address",
    }


@pytest.mark.parametrize(
    "name", ["azure_migrate_rvtools2azmigrate.csv", "azure_migrate_docs_fields.csv"]
)
def test_read_inventory_detects_azure_migrate(name):
    assert read_inventory(DATA / name).source_format == "azure_migrate"


def test_fixture_header_is_the_recorded_one():
    recorded = (
        SHARED / "azure_migrate_import" / "columns_as_emitted_by_rvtools2azmigrate.csv"
    )
    if not recorded.is_file():
        pytest.skip(f"shared Azure Migrate column list not available: {recorded}")
    with recorded.open(encoding="utf-8") as f:
        expected = next(csv.reader(f))
    with (DATA / "azure_migrate_rvtools2azmigrate.csv").open(encoding="utf-8") as f:
        assert next(csv.reader(f)) == expected
    unknown = [h for h in expected if column_role(h) is None]
    assert unknown == ["IP addresses", "OS architecture", "Network adapters",
                       "Boot type", "Number of disks"]


def test_errors(tmp_path):
    p = tmp_path / "az.csv"
    p.write_text(
        "*Server Name,*Cores,*Memory (In MB),CPU utilization percentage\n"
        "a,2.5,1024,10\n"
        "b,2,,150\n"
        ",2,1024,\n",
        encoding="utf-8",
    )
    with pytest.raises(InventoryError) as exc:
        read_azure_migrate(p)
    assert exc.value.problems == [
        "az.csv row 2, column '*Cores': expected a positive whole number, got '2.5'.",
        "az.csv row 3, column '*Memory (In MB)': expected a positive memory size in "
        "MB, got ''.",
        "az.csv row 3, column 'CPU utilization percentage': expected a percentage "
        "in [0, 100], got '150'.",
        "az.csv row 4, column '*Server Name': expected a server name, got ''.",
    ]


def test_missing_columns(tmp_path):
    p = tmp_path / "az.csv"
    p.write_text("Server name,Cores\nx,2\n", encoding="utf-8")
    with pytest.raises(
        InventoryError,
        match=re.escape("az.csv: no column for 'mem_gib'; accepted headers: "
                        "*Memory (In MB), Memory"),
    ):
        read_azure_migrate(p)
    with pytest.raises(InventoryError, match=r"^none\.csv: file not found"):
        read_azure_migrate(tmp_path / "none.csv")
    empty = tmp_path / "empty.csv"
    empty.write_text("\n\n", encoding="utf-8")
    with pytest.raises(InventoryError, match=r"^empty\.csv: no data$"):
        read_azure_migrate(empty)
