"""Azure Migrate import CSV (vsizer.inventory.azure_migrate).

Fixtures in tests/data/inventory/ use the two header spellings recorded in
../shared/data/formats/azure_migrate_import/: the columns written by
lrivallain/rvtools2azmigrate (mandatory ones with '*', units in brackets) and
the field names of Microsoft's tutorial (no '*', no units, Total columns).
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pandas as pd
import pytest

import vsizer
from vsizer.catalogs import HostModel
from vsizer.errors import InventoryError
from vsizer.inventory import read_azure_migrate, read_inventory
from vsizer.inventory.azure_migrate import column_role
from vsizer.quality import PlanWarning, assumption_warnings

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
    assert "IP addresses" in inv.metadata["ignored"]
    assert inv.metadata["unmapped"] == []


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
    assert inv.metadata["unmapped"] == []
    assert set(inv.metadata["ignored"]) == {
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
    assert [h for h in expected if column_role(h) is None] == []
    ignored = [h for h in expected if column_role(h) == ("ignored", None)]
    assert ignored == ["IP addresses", "OS architecture", "Network adapters",
                       "Boot type", "Number of disks"]


def test_errors(tmp_path):
    p = tmp_path / "az.csv"
    p.write_text(
        "*Server Name,*Cores,*Memory (In MB),CPU utilization percentage\n"
        "a,2.5,1024,10\n"
        "b,2,0,150\n"
        ",2,1024,\n",
        encoding="utf-8",
    )
    with pytest.raises(InventoryError) as exc:
        read_azure_migrate(p)
    assert exc.value.problems == [
        "az.csv row 2, column '*Cores': expected a positive whole number, got '2.5'.",
        "az.csv row 3, column '*Memory (In MB)': expected a positive memory size in "
        "MB, got '0'.",
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


# --- CPU capacity: added clock/score columns, --vm-cpu-mhz, the 1:1 default ---

# Target host for hand computation: 10 SPECrate2017_int_base per core at
# 2500 MHz, i.e. 0.004 per MHz (a made-up round host, not a catalog entry).
HOST = HostModel(
    model="round-host", sockets=2, cores_per_socket=16, threads_per_core=2,
    cpu_mhz=2500, cpu_score_per_core=10.0, mem_gib=512, power_idle_w=100,
    power_max_w=400, cpu_score_basis="SPECrate2017_int_base",
)
NAMES = ["app01.contoso.local", "db01.contoso.local", "tools01.contoso.local"]
HOST_CORE_NOTE = (
    "no clock rate or CPU score: each core taken as one core of host round-host "
    "(10 SPECrate2017_int_base/core, a 1:1 core assumption); pass --vm-cpu-mhz or "
    "add a cpu_mhz (or cpu_score_per_core) column"
)


def _column(plan, col):
    return dict(zip(plan.servers["name"], plan.servers[col], strict=True))


def _capacity(plan):
    return _column(plan, "cpu_capacity")


def _named(values):
    return dict(zip(NAMES, values, strict=True))


def test_clock_column_is_read():
    inv = read_azure_migrate(DATA / "azure_migrate_with_clock.csv")
    assert [_row(inv, n)["cpu_mhz"] for n in NAMES] == [2400.0, 3000.0, None]
    assert inv.metadata["columns"]["CPU clock (GHz)"] == "cpu_mhz"
    assert inv.quality.status(NAMES[0], "cpu_mhz") == "given"


def test_plan_with_clock_column():
    # app01: 4 cores x 2400 MHz x 0.004 = 38.4; db01: 8 x 3000 x 0.004 = 96;
    # tools01 has no clock: 2 cores x the host's 10 = 20 (assumed).
    p = vsizer.plan(DATA / "azure_migrate_with_clock.csv", hosts=HOST)
    assert _capacity(p) == pytest.approx(_named([38.4, 96.0, 20.0]))
    # The format gives one CPU figure (the average); the peak is estimated as
    # average x 4.85 (vsizer.missing default; fewer than 3 servers give both),
    # capped at 100 %: 25 % and 40 % -> 100 %; tools01 has no utilization: 100 %
    # assumed. Peak demand = capacity.
    peak = _column(p, "cpu_peak_demand")
    assert peak == pytest.approx(_named([38.4, 96.0, 20.0]))
    q = p.quality
    assert q.status(NAMES[0], "cpu_capacity") == "assumed"  # host-ratio rule
    assert q.entries[NAMES[2]]["cpu_capacity"] == ("assumed", HOST_CORE_NOTE)
    # app01, db01 (clock x host ratio) and tools01 (host core): one warning.
    [w] = [w for w in assumption_warnings(q) if w.code == "assumed_cpu_capacity"]
    assert w.servers == tuple(NAMES)
    assert w.message.startswith("cpu_capacity assumed for 3 servers, e.g. ")


def _own_warnings(p):
    """Plan warnings other than those on the disk/network dimensions, the
    storage estimate (the fixture gives disks for two servers of three, without
    used space, and the test host states no capacity for them) and the template
    columns not used (tested in test_template_columns_not_used_are_listed), and
    the load rank derived from utilization (tests/test_load_rank.py)."""
    return [w for w in p.quality.warnings
            if not w.code.startswith("unchecked_")
            and w.code not in ("unconstrained_dimension", "storage_assumed",
                               "azure_migrate_columns_ignored", "derived_load_rank")]


def test_plan_without_clock_takes_the_host_core():
    # No clock in the format: every core is one host core: 4 x 10, 8 x 10, 2 x 10.
    p = vsizer.plan(DATA / "azure_migrate_rvtools2azmigrate.csv", hosts=HOST)
    assert _capacity(p) == pytest.approx(_named([40.0, 80.0, 20.0]))
    assert list(p.servers["score_source"]) == ["host-core"] * 3
    warnings = [w for w in assumption_warnings(p.quality)
                if w.code == "assumed_cpu_capacity"]
    assert warnings == [PlanWarning(
        "assumed_cpu_capacity",
        f"cpu_capacity assumed for 3 servers: {HOST_CORE_NOTE}.", tuple(NAMES))]
    assert _own_warnings(p) == []


def test_vm_cpu_mhz_fills_servers_without_clock():
    # --vm-cpu-mhz 2000 -> 2000 x 0.004 = 8 per core: 32, 64, 16 without the
    # clock column; with it only tools01 is filled (2 x 8 = 16).
    p = vsizer.plan(DATA / "azure_migrate_rvtools2azmigrate.csv", hosts=HOST,
                    vm_cpu_mhz=2000.0)
    assert _capacity(p) == pytest.approx(_named([32.0, 64.0, 16.0]))
    note = ("no clock rate or CPU score in the inventory: --vm-cpu-mhz 2000 taken, "
            "scaled by host round-host's 10 SPECrate2017_int_base/core at 2500 MHz")
    assert p.quality.entries[NAMES[0]]["cpu_capacity"] == ("assumed", note)
    p = vsizer.plan(DATA / "azure_migrate_with_clock.csv", hosts=HOST,
                    vm_cpu_mhz=2000.0)
    assert _capacity(p) == pytest.approx(_named([38.4, 96.0, 16.0]))
    assert list(p.servers["score_source"]) == ["host-ratio", "host-ratio", "option"]
    assert _own_warnings(p) == []


def test_vm_cpu_mhz_not_needed_is_said(tmp_path):
    src = (DATA / "azure_migrate_with_clock.csv").read_text(encoding="utf-8")
    f = tmp_path / "az.csv"
    assert src.endswith(",\n")  # tools01's clock cell is the last, blank
    f.write_text(src[:-1] + "1.5\n", encoding="utf-8")  # tools01 at 1.5 GHz
    p = vsizer.plan(f, hosts=HOST, vm_cpu_mhz=2000.0, vm_mem_gib=4.0)
    assert _capacity(p)[NAMES[2]] == pytest.approx(12.0)  # 2 x 1500 x 0.004
    assert [w.to_dict() for w in _own_warnings(p)] == [
        {"code": "vm_mem_gib_unused",
         "message": "--vm-mem-gib 4 was not used: every server's memory is in the "
         "inventory.", "servers": []},
        {"code": "vm_cpu_mhz_unused",
         "message": "--vm-cpu-mhz 2000 was not used: every server's CPU capacity "
         "comes from the inventory (cpu_score_per_core or cpu_mhz) or from the CPU "
         "catalog (cpu_name).", "servers": []},
    ]


def test_score_column_with_spec_header(tmp_path):
    f = tmp_path / "az.csv"
    f.write_text(
        "Server name,Cores,Memory,SPECrate2017_int_base/core,cpu_name\n"
        "a,4,4096,7.5,Xeon Old\n"
        "b,2,2048,,\n",
        encoding="utf-8",
    )
    inv = read_azure_migrate(f)
    a = _row(inv, "a")
    assert (a["cpu_score_per_core"], a["cpu_score_basis"], a["cpu_name"]) == (
        7.5, "SPECrate2017_int_base", "Xeon Old")
    p = vsizer.plan(inv, hosts=HOST)
    # a: 4 x 7.5 = 30 (its own score); b: 2 x 10 (host core, assumed).
    assert _capacity(p) == pytest.approx({"a": 30.0, "b": 20.0})
    assert p.quality.status("a", "cpu_capacity") == "given"


def test_blank_memory_is_filled_by_vm_mem_gib(tmp_path):
    f = tmp_path / "az.csv"
    f.write_text("Server name,Cores,Memory\na,2,\nb,2,2048\n", encoding="utf-8")
    inv = read_azure_migrate(f)
    assert _row(inv, "a")["mem_gib"] is None
    assert inv.quality.entries["a"]["mem_gib"] == (
        "missing", "az.csv row 2, column 'Memory' is empty")
    with pytest.raises(InventoryError, match=re.escape(
        "az.csv row 2, column 'Memory' is empty: no memory size for server 'a': "
        "fill the cell, or pass --vm-mem-gib F for servers without one.")):
        vsizer.plan(inv, hosts=HOST)
    p = vsizer.plan(inv, hosts=HOST, vm_mem_gib=3.0)
    assert _column(p, "mem_gib") == {"a": 3.0, "b": 2.0}
    assert p.quality.entries["a"]["mem_gib"] == (
        "assumed", "no memory in the inventory: --vm-mem-gib 3 GiB taken")
    assert _own_warnings(p) == []


def test_bad_added_cpu_cells(tmp_path):
    f = tmp_path / "az.csv"
    f.write_text(
        "Server name,Cores,Memory,cpu_mhz,cpu_score_per_core\n"
        "a,2,1024,fast,0\n"
        "b,2,1024,2GB,-1\n",
        encoding="utf-8",
    )
    with pytest.raises(InventoryError) as exc:
        read_azure_migrate(f)
    assert exc.value.problems == [
        "az.csv row 2, column 'cpu_mhz': expected a positive clock rate such as "
        "2400 or '2.4GHz', got 'fast'.",
        "az.csv row 2, column 'cpu_score_per_core': expected a positive number, "
        "got '0'.",
        "az.csv row 3, column 'cpu_mhz': expected a positive clock rate such as "
        "2400 or '2.4GHz', got '2GB'.",
        "az.csv row 3, column 'cpu_score_per_core': expected a positive number, "
        "got '-1'.",
    ]


def test_cli_vm_cpu_mhz_is_applied_to_an_inventory(tmp_path):
    from typer.testing import CliRunner

    from vsizer.cli import app

    def capacities(*flags):
        out = tmp_path / "p.json"
        r = CliRunner().invoke(app, ["plan", str(DATA / "azure_migrate_docs_fields.csv"),
                                     *flags, "-q", "-o", str(out)])
        assert r.exit_code == 0, r.output
        doc = json.loads(out.read_text(encoding="utf-8"))
        return [s["cpu_capacity"] for s in doc["servers"]], doc["quality"]

    # Shipped default host (Dell PowerEdge R740 2x Platinum 8180): 143
    # SPECrate2017_int_base over 28 cores = 5.107143 per core, at 2500 MHz.
    # Without a clock: 2 cores x 5.107143 = 10.214286 per web server.
    cap, _ = capacities()
    assert cap == pytest.approx([10.214286, 10.214286], abs=1e-6)
    # --vm-cpu-mhz 1250: 1250 x 5.107143 / 2500 = 2.553571 per core, x 2.
    cap, quality = capacities("--vm-cpu-mhz", "1250")
    assert cap == pytest.approx([5.107143, 5.107143], abs=1e-6)
    note = quality["servers"][0]["notes"]["cpu_capacity"]
    assert note.startswith("no clock rate or CPU score in the inventory: "
                           "--vm-cpu-mhz 1250 taken")
