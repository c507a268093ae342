"""Every ingestion choice stated (issue 23, part D): columns given twice, the sheet
of a workbook, %-columns of fractions, decimal commas, the Azure Migrate template."""

from __future__ import annotations

import html
import json
from pathlib import Path

import openpyxl
import pytest
from typer.testing import CliRunner

from vsizer.cli import app
from vsizer.errors import InventoryError
from vsizer.inventory import read_azure_migrate, read_inventory, read_table
from vsizer.inventory._choices import decimal_comma_grid

REAL = Path(__file__).parent / "data" / "real" / "azure_migrate"
GIB = 2**30


def _csv(tmp_path: Path, text: str, name: str = "servers.csv") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def _warnings(inv) -> dict[str, str]:
    return {w.code: w.message for w in inv.quality.warnings}


# -- two columns meaning one field ---------------------------------------------
def test_equal_duplicate_columns_are_one_note_each(tmp_path):
    # mem_gib (GiB), memory (no unit: GiB) and RAM (MB) agree on every row
    p = _csv(tmp_path, "name,vcpus,mem_gib,memory,RAM (MB)\n"
                       "a,2,16,16,16384\nb,4,32,32,32768\n")
    inv = read_table(p)
    assert list(inv.servers["mem_gib"]) == [16.0, 32.0]
    assert inv.metadata["duplicate_columns"] == ["memory", "RAM (MB)"]
    notes = [n for n in inv.quality.notes if "both give" in n]
    assert notes == [
        "columns 'mem_gib' and 'memory' both give 'mem_gib' and agree on every row; "
        "'mem_gib' read",
        "columns 'mem_gib' and 'RAM (MB)' both give 'mem_gib' and agree on every "
        "row; 'mem_gib' read",
    ]
    assert inv.quality.warnings == []


def test_different_duplicate_columns_are_one_error_each_with_the_other_errors(
    tmp_path,
):
    p = _csv(tmp_path, "name,vcpus,mem_gib,memory,RAM (MB)\n"
                       "a,2,16,16,16384\nb,4,32,64,32768\nc,4,8,9,\nd,x,8,9,8192\n")
    with pytest.raises(InventoryError) as exc:
        read_table(p)
    assert str(exc.value).splitlines() == [
        "servers.csv row 3: columns 'mem_gib' and 'memory' both give 'mem_gib' and "
        "differ: '32' and '64' (3 rows differ, the first shown); delete one of them "
        "or make them agree.",
        "servers.csv row 4: columns 'mem_gib' and 'RAM (MB)' both give 'mem_gib' and "
        "differ: '8' and ''; delete one of them or make them agree.",
        "servers.csv row 5, column 'vcpus': expected a positive whole number, got 'x'.",
    ]


def test_a_bad_cell_of_the_second_column_is_reported(tmp_path):
    p = _csv(tmp_path, "name,vcpus,mem_gib,RAM\na,2,16,lots\n")
    with pytest.raises(InventoryError, match=r"^servers.csv row 2, column 'RAM': "
                       r"expected a positive memory size such as 16, '16GB' or "
                       r"'512 MiB', got 'lots'\.$"):
        read_table(p)


def test_two_name_columns_that_differ_keep_the_first_with_a_warning(tmp_path):
    p = _csv(tmp_path, "name,hostname,vcpus,mem_gib\nweb01,web01.corp,2,4\n"
                       "db01,db01,2,8\n")
    inv = read_table(p)
    assert list(inv.servers["name"]) == ["web01", "db01"]
    assert _warnings(inv)["duplicate_column"] == (
        "servers.csv: columns 'name' and 'hostname' both give 'name' and differ on "
        "row 2: 'web01' and 'web01.corp'; 'name' read, 'hostname' ignored"
    )


def test_duplicate_migrate_columns_are_compared(tmp_path):
    p = _csv(tmp_path, "name,vcpus,mem_gib,migrate,移行対象\na,2,4,yes,○\n"
                       "b,2,4,yes,×\nc,2,4,no,○\n")
    with pytest.raises(InventoryError, match=r"^servers.csv row 3: columns 'migrate' "
                       r"and '移行対象' both give 'migrate' and differ: 'yes' and "
                       r"'×' \(2 rows differ, the first shown\); delete one of them "
                       r"or make them agree\.$"):
        read_table(p)


# -- the sheet of a workbook ---------------------------------------------------
@pytest.fixture
def book(tmp_path: Path) -> Path:
    """A stale hidden list first, a note sheet, the list, a DR-site list, and a
    very hidden list."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "stale"
    ws.append(["name", "vcpus", "mem_gib"])
    ws.append(["old01", 1, 1])
    ws.sheet_state = "hidden"
    wb.create_sheet("notes").append(["inventory of 2024"])
    ws = wb.create_sheet("servers")
    ws.append(["name", "vcpus", "mem_gib"])
    ws.append(["web01", 2, 8])
    ws.append(["db01", 4, 32])
    ws = wb.create_sheet("DR site")
    ws.append(["server", "vcpu", "memory"])
    ws.append(["dr01", 2, 8])
    ws = wb.create_sheet("vh")
    ws.append(["name", "vcpus", "mem_gib"])
    ws.append(["ghost", 1, 1])
    ws.sheet_state = "veryHidden"
    p = tmp_path / "book.xlsx"
    wb.save(p)
    return p


def test_hidden_sheets_are_skipped_and_other_lists_named(book):
    inv = read_table(book)
    assert list(inv.servers["name"]) == ["web01", "db01"]
    assert inv.metadata["sheet"] == "servers"
    assert inv.metadata["hidden_sheets"] == ["stale", "vh"]
    assert inv.metadata["other_server_sheets"] == ["DR site"]
    assert _warnings(inv) == {
        "hidden_sheets_skipped": "book.xlsx: hidden sheet(s) 'stale', 'vh' look like "
        "server lists and were skipped; read one with --sheet NAME",
        "other_server_sheets": "book.xlsx: read sheet 'servers'; sheet(s) 'DR site' "
        "also look like server lists: use --sheet NAME to read another",
    }


def test_a_hidden_sheet_of_drop_down_values_is_skipped_without_a_warning(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["name", "vcpus", "mem_gib"])
    ws.append(["a", 2, 4])
    lists = wb.create_sheet("lists")
    for v in ("本番", "開発", "検証"):
        lists.append([v])
    lists.sheet_state = "hidden"
    p = tmp_path / "template.xlsx"
    wb.save(p)
    inv = read_table(p)
    assert inv.metadata["hidden_sheets"] == ["lists"]
    assert inv.quality.warnings == []


def test_a_named_sheet_is_read_even_hidden(book):
    inv = read_table(book, sheet="DR site")
    assert list(inv.servers["name"]) == ["dr01"]
    assert inv.quality.warnings == []
    inv = read_table(book, sheet="stale")
    assert list(inv.servers["name"]) == ["old01"]
    assert _warnings(inv) == {
        "hidden_sheet_read": "book.xlsx: sheet 'stale' is hidden in the workbook; "
        "read because --sheet names it"
    }


def test_an_unknown_sheet_lists_the_sheets(book):
    with pytest.raises(InventoryError, match=r"^book.xlsx: no sheet named 'nope'; "
                       r"sheets: 'stale' \(hidden\), 'notes', 'servers', 'DR site', "
                       r"'vh' \(hidden\)$"):
        read_inventory(book, sheet="nope")


def test_no_visible_sheet_with_a_header_names_the_hidden_ones(tmp_path):
    wb = openpyxl.Workbook()
    wb.active.title = "memo"
    wb.active.append(["nothing here"])
    ws = wb.create_sheet("old")
    ws.append(["name", "vcpus", "mem_gib"])
    ws.sheet_state = "hidden"
    p = tmp_path / "b.xlsx"
    wb.save(p)
    with pytest.raises(InventoryError, match=r"^b.xlsx: no sheet has a recognizable "
                       r"header row in its first 10 rows \(sheets: memo; hidden, not "
                       r"read: old\)"):
        read_table(p)


def test_a_sheet_for_a_file_that_has_none_is_an_error():
    with pytest.raises(InventoryError, match=r"^AzureMigrateimport-01.csv: sheet "
                       r"'x' given, but the file is read as azure_migrate; a sheet is "
                       r"chosen only in a server-list workbook$"):
        read_inventory(REAL / "AzureMigrateimport-01.csv", sheet="x")


# -- a %-column of fractions ---------------------------------------------------
def test_percent_column_of_values_at_most_one_is_read_as_fractions(tmp_path):
    p = _csv(tmp_path, "name,vcpus,mem_gib,CPU peak (%),CPU avg (%),memory "
                       "utilization\na,2,16,0.6,0.2,0.5\nb,4,32,1,0.1,0.25\n")
    inv = read_table(p)
    assert list(inv.servers["cpu_peak_util"]) == [0.6, 1.0]
    assert list(inv.servers["cpu_avg_util"]) == [0.2, 0.1]
    assert list(inv.servers["mem_used_gib"]) == [8.0, 8.0]
    assert [w.message for w in inv.quality.warnings] == [
        f"servers.csv: column '{h}' is in % and every value is at most 1 (largest "
        f"{m}): read as fractions, 0.6 = 60 %; write 60 for 60 % if the file means "
        "per cent"
        for h, m in (("CPU peak (%)", "1"), ("CPU avg (%)", "0.2"),
                     ("memory utilization", "0.5"))
    ]


def test_percent_column_with_a_value_above_one_or_all_zero_stays_percent(tmp_path):
    p = _csv(tmp_path, "name,vcpus,mem_gib,CPU peak (%),CPU avg (%)\n"
                       "a,2,16,0.6,0\nb,4,32,2,0\n")
    inv = read_table(p)
    assert list(inv.servers["cpu_peak_util"]) == [0.006, 0.02]
    assert list(inv.servers["cpu_avg_util"]) == [0.0, 0.0]
    assert "percent_as_fraction" not in _warnings(inv)


# -- decimal commas ------------------------------------------------------------
def test_semicolon_file_with_decimal_commas(tmp_path):
    p = _csv(tmp_path, "name;vcpus;mem_gib;disk_gib;CPU avg (%);model\n"
                       "a;2;1,5;1.024,5;12,5;R740\nb;4;32;1,024;3;R640\n")
    inv = read_table(p)
    assert list(inv.servers["mem_gib"]) == [1.5, 32.0]
    assert list(inv.servers["disk_gib"]) == [1024.5, 1.024]
    assert list(inv.servers["cpu_avg_util"]) == pytest.approx([0.125, 0.03])
    assert inv.metadata["decimal_comma"] == ["mem_gib", "disk_gib", "CPU avg (%)"]
    assert _warnings(inv)["decimal_comma"] == (
        "servers.csv: ';'-separated with decimal commas: column(s) 'mem_gib', "
        "'disk_gib', 'CPU avg (%)' read with ',' as the decimal mark ('1,024' = "
        "1.024; a '.' before three digits is a thousands separator, '1.024,5' = "
        "1024.5)"
    )


def test_semicolon_column_of_three_digit_commas_only_is_stated_as_a_guess(tmp_path):
    p = _csv(tmp_path, "name;vcpus;mem_gib;disk_gib\na;2;4;1,024\nb;2;4;2,048\n")
    inv = read_table(p)
    assert list(inv.servers["disk_gib"]) == [1.024, 2.048]  # 'disk_gib' is in GiB
    assert _warnings(inv)["decimal_comma"].endswith(
        "; in 'disk_gib' every comma has three digits after it, so they could be "
        "thousands separators: check those columns"
    )


def test_semicolon_column_with_comma_thousands_keeps_them(tmp_path):
    p = _csv(tmp_path, "name;vcpus;mem_gib;disk_iops\na;2;4;1,234,567\nb;2;4;1,024\n")
    inv = read_table(p)
    assert list(inv.servers["disk_iops"]) == [1234567.0, 1024.0]
    assert "decimal_comma" not in inv.metadata


def test_comma_file_keeps_thousands_separators(tmp_path):
    p = _csv(tmp_path, 'name,vcpus,mem_gib,disk_gib\na,2,16,"1,024"\n')
    inv = read_table(p)
    assert list(inv.servers["disk_gib"]) == [1024.0]
    assert inv.quality.warnings == []


def test_decimal_comma_grid_reads_units_and_signs():
    grid = [(1, ["h", "x"]), (2, ["a", "1,5 GB"]), (3, ["b", "-0,25"]),
            (4, ["c", "2.048"]), (5, ["d", "n/a"])]
    out, cols, ambiguous = decimal_comma_grid(grid, 0)
    assert (cols, ambiguous) == ([1], [])
    assert [c[1] for _, c in out] == ["x", "1.5 GB", "-0.25", "2048", "n/a"]


# -- Azure Migrate: the template as downloaded ---------------------------------
def test_real_azure_migrate_import_file():
    # polichtm/Nested_Hyper-V_in_Azure@8e43863 AzureMigrateimport-01.csv (README)
    inv = read_inventory(REAL / "AzureMigrateimport-01.csv")
    assert inv.source_format == "azure_migrate"
    assert (len(inv), len(inv.excluded)) == (3, 0)
    s = inv.servers.set_index("name")
    dc = s.loc["DC01"]
    assert (dc["vcpus"], dc["mem_gib"], dc["cpu_avg_util"]) == (1, 2.0, 0.25)
    assert dc["mem_used_gib"] == pytest.approx(0.9)
    assert dc["disk_used_gib"] == pytest.approx(40e9 / GIB)  # Storage in use 40 GB
    assert dc["disk_gib"] == pytest.approx(45e9 / GIB)
    assert (dc["disk_iops"], dc["disk_mb_s"], dc["net_mbps"]) == (30.0, 80.0, 400.0)
    assert s.loc["FS01", "disk_used_gib"] == pytest.approx(50e9 / GIB)
    assert s.loc["FS01", "disk_iops"] == 550.0
    assert inv.quality.status("DC01", "disk_used_gib") == "given"
    assert inv.metadata["server_types"] == dict.fromkeys(
        ["DC01", "FS01", "WEB01"], "virtual")
    assert inv.metadata["hypervisors"] == dict.fromkeys(
        ["DC01", "FS01", "WEB01"], "Hyper-V")
    assert inv.metadata["virtualized"] is True
    assert inv.metadata["unmapped"] == []
    assert _warnings(inv) == {
        "azure_migrate_columns_ignored": "AzureMigrateimport-01.csv: template "
        "column(s) 'IP addresses', 'OS architecture', 'Network adapters', 'Boot "
        "type', 'Number of disks' not used (they do not change host sizing)"
    }
    assert "Server type: 3 virtual, 0 physical, 0 not given; hypervisor: Hyper-V 3" \
        in inv.quality.notes


def test_real_azure_migrate_template():
    inv = read_azure_migrate(REAL / "AzureMigrateimporttemplate.csv")
    assert list(inv.servers["name"]) == ["FS01.tailwindtraders.org",
                                         "WEB01.tailwindtraders.org"]
    assert list(inv.servers["disk_used_gib"]) == pytest.approx([50e9 / GIB,
                                                                35e9 / GIB])


def test_azure_migrate_server_type_physical_mixed_and_storage_in_mb(tmp_path):
    p = _csv(tmp_path, "*Server name,*Cores,*Memory (In MB),*OS name,Server type,"
                       "Hypervisor,Storage in use (In MB),Rack\n"
                       "p1,8,65536,Windows,Physical,,40960,R1\n"
                       "v1,2,4096,Ubuntu,virtual,VMware,1024,R1\n", "az.csv")
    inv = read_inventory(p)
    assert inv.metadata["server_types"] == {"p1": "physical", "v1": "virtual"}
    assert inv.metadata["hypervisors"] == {"v1": "VMware"}
    assert "virtualized" not in inv.metadata
    assert list(inv.servers["disk_used_gib"]) == pytest.approx([40960e6 / GIB,
                                                                1024e6 / GIB])
    assert _warnings(inv)["azure_migrate_columns_ignored"] == (
        "az.csv: column(s) 'Rack' are not in the Azure Migrate template and not read"
    )


def test_azure_migrate_bad_server_type_is_an_error(tmp_path):
    p = _csv(tmp_path, "Server name,Cores,Memory,Server type\na,2,4096,Cloud\n",
             "az.csv")
    with pytest.raises(InventoryError, match=r"^az.csv row 2, column 'Server type': "
                       r"expected Virtual or Physical, got 'Cloud'\.$"):
        read_inventory(p)


# -- the CLI and the reports ---------------------------------------------------
runner = CliRunner()


def _run(*args: str):
    return runner.invoke(app, list(args), env={"COLUMNS": "250"})


def test_plan_sheet_flag_reads_that_sheet_and_records_it(book, tmp_path):
    j = tmp_path / "plan.json"
    h = tmp_path / "plan.html"
    x = tmp_path / "plan.xlsx"
    r = _run("plan", str(book), "--sheet", "DR site", "-o", str(j), "-o", str(h),
             "-o", str(x))
    assert r.exit_code == 0, r.output
    doc = json.loads(j.read_text(encoding="utf-8"))
    assert doc["inputs"]["sheet"] == "DR site"
    assert [s["name"] for s in doc["servers"]] == ["dr01"]
    assert "Sheet read" in h.read_text(encoding="utf-8")
    wb = openpyxl.load_workbook(x, read_only=True)
    values = [c for row in wb["Summary"].iter_rows(values_only=True) for c in row]
    assert "DR site" in values


def test_plan_states_sheet_choices_in_terminal_json_html_and_excel(book, tmp_path):
    j, h, x = tmp_path / "p.json", tmp_path / "p.html", tmp_path / "p.xlsx"
    r = _run("plan", str(book), "-o", str(j), "-o", str(h), "-o", str(x))
    assert r.exit_code == 0, r.output
    message = ("book.xlsx: hidden sheet(s) 'stale', 'vh' look like server lists and "
               "were skipped; read one with --sheet NAME")
    doc = json.loads(j.read_text(encoding="utf-8"))
    assert doc["inputs"]["sheet"] == "servers"
    assert message in [w["message"] for w in doc["warnings"]]
    assert message in " ".join(r.output.split())
    assert html.escape(message) in h.read_text(encoding="utf-8")
    wb = openpyxl.load_workbook(x, read_only=True)
    cells = [c for row in wb["Warnings"].iter_rows(values_only=True) for c in row]
    assert message in cells


def test_plan_unknown_sheet_and_sheet_without_inventory(book):
    r = _run("plan", str(book), "--sheet", "nope")
    assert r.exit_code == 2
    assert "book.xlsx: no sheet named 'nope'; sheets: 'stale' (hidden), 'notes', " \
        "'servers', 'DR site', 'vh' (hidden)" in " ".join(r.output.split())
    r = _run("plan", "--sheet", "x", "--series", "store")
    assert r.exit_code == 2
    assert "--sheet needs an inventory file." in r.output


def test_whole_sheet_problems_name_the_sheet(book):
    with pytest.raises(InventoryError) as exc:
        read_table(book, sheet="notes")
    assert str(exc.value).splitlines()[0].startswith(
        "book.xlsx sheet 'notes': no column for 'name'; accepted headers: name, "
    )


# -- real tables -----------------------------------------------------------------
TABLES = Path(__file__).parent / "data" / "real" / "tables"


def test_real_racktrack_server_list_cpu_column_of_core_counts():
    # Arnav052oo5/RackTrack@9a2011d Data/servers.csv (MIT), README in TABLES
    inv = read_inventory(TABLES / "racktrack_servers.csv")
    assert (len(inv), len(inv.excluded)) == (10, 0)
    s = inv.servers.set_index("name")
    assert (s.loc["DBServer-1", "vcpus"], s.loc["DBServer-1", "mem_gib"]) == (16, 64.0)
    assert int(inv.servers["vcpus"].sum()) == 80
    assert float(inv.servers["mem_gib"].sum()) == 264.0
    assert inv.servers["cpu_name"].isna().all()
    assert inv.metadata["columns"]["cpu"] == "vcpus"
    assert _warnings(inv) == {
        "cpu_column_counts": "racktrack_servers.csv: column 'cpu' holds core counts "
        "('8 cores'), not CPU names: read as vcpus (the cores each server has)"
    }


def test_racktrack_cpu_column_given_twice(tmp_path):
    # found by tests/fuzz (column_duplicate): a second 'cpu' column was compared as
    # 'cpu_name' after the first was read as vcpus: internal KeyError 'cpu_name'
    rows = (TABLES / "racktrack_servers.csv").read_text().splitlines()
    same = [rows[0] + ",cpu"] + [r + "," + r.split(",")[3] for r in rows[1:]]
    inv = read_table(_csv(tmp_path, "\n".join(same) + "\n", "same.csv"))
    assert int(inv.servers["vcpus"].sum()) == 80
    other = [same[0], same[1].rsplit(",", 1)[0] + ",12 cores", *same[2:]]
    with pytest.raises(InventoryError) as err:
        read_table(_csv(tmp_path, "\n".join(other) + "\n", "other.csv"))
    assert str(err.value) == (
        "other.csv row 2: columns 'cpu' and 'cpu' both give 'vcpus' and differ: "
        "'8 cores' and '12 cores'; delete one of them or make them agree."
    )


def test_cpu_column_of_names_stays_the_cpu_name(tmp_path):
    p = _csv(tmp_path, "name,cpu,vcpus,ram\na,Xeon Gold 6130,4,8\nb,8,2,4\n")
    inv = read_table(p)
    assert list(inv.servers["cpu_name"]) == ["Xeon Gold 6130", "8"]
    p = _csv(tmp_path, "name,cpu,vcpu,ram\na,8,8,16\n", "both.csv")
    inv = read_table(p)  # a vCPU column is there: 'cpu' keeps its meaning
    assert list(inv.servers["cpu_name"]) == ["8"]


def test_azure_migrate_percentages_of_fractions(tmp_path):
    p = _csv(tmp_path, "Server name,Cores,Memory,CPU utilization percentage,"
                       "Memory utilization percentage\na,2,4096,0.25,0.5\n"
                       "b,2,8192,0.5,40\n", "az.csv")
    inv = read_inventory(p)
    assert list(inv.servers["cpu_avg_util"]) == [0.25, 0.5]  # read as fractions
    assert list(inv.servers["mem_used_gib"]) == pytest.approx([0.02, 3.2])  # per cent
    assert _warnings(inv)["percent_as_fraction"] == (
        "az.csv: column 'CPU utilization percentage' is in % and every value is at "
        "most 1 (largest 0.5): read as fractions, 0.6 = 60 %; write 60 for 60 % if "
        "the file means per cent"
    )


def test_compare_sheet_flag_reads_that_sheet(book, tmp_path):
    shipped = Path(__file__).parents[1] / "vsizer" / "data" / "scenarios"
    paths = []
    for name in ("older-r740-8180.toml", "current-rx2530m6-8380.toml"):
        # without the [pools."開発"] override: the DR sheet has no such pool
        text = (shipped / name).read_text(encoding="utf-8")
        paths.append(tmp_path / name)
        paths[-1].write_text(text.split('[pools."開発"]')[0], encoding="utf-8")
    j = tmp_path / "compare.json"
    r = _run("compare", *map(str, paths), "--inventory", str(book),
             "--sheet", "DR site", "-q", "-o", str(j))
    assert r.exit_code == 0, r.output
    doc = json.loads(j.read_text(encoding="utf-8"))
    for plan in doc["plans"].values():
        assert plan["inputs"]["sheet"] == "DR site"
        assert [s["name"] for s in plan["servers"]] == ["dr01"]


def test_two_group_columns_that_differ_keep_the_first_with_a_warning(tmp_path):
    p = _csv(tmp_path, "サーバ名,vcpus,mem_gib,システム名,業務名\nsv1,2,4,販売,受注\n"
                       "sv2,2,4,販売,販売\n")
    inv = read_table(p)
    assert list(inv.servers["group"]) == ["販売", "販売"]
    assert _warnings(inv)["duplicate_column"] == (
        "servers.csv: columns 'システム名' and '業務名' both give 'group' and differ "
        "on row 2: '販売' and '受注'; 'システム名' read, '業務名' ignored"
    )


def test_real_azure_migrate_used_storage_reaches_the_plan():
    import vsizer

    doc = vsizer.plan(REAL / "AzureMigrateimport-01.csv").to_dict()
    totals = doc["storage"]["totals"]
    # Storage in use 40 + 50 + 35 GB; disk sizes 45 + 60 + 50 GB
    assert totals["used_gib"] == pytest.approx(125e9 / GIB, rel=1e-6)
    assert totals["provisioned_gib"] == pytest.approx(155e9 / GIB, rel=1e-6)
    assert doc["storage"]["provisioning"] == "thin"


def test_azure_migrate_semicolon_file_with_decimal_commas(tmp_path):
    p = _csv(tmp_path, "*Server name;*Cores;*Memory (In MB);CPU utilization percentage;"
                       "Storage in use (In GB)\na;2;4096;12,5;1.024,5\n", "az.csv")
    inv = read_inventory(p)
    assert inv.source_format == "azure_migrate"
    assert list(inv.servers["cpu_avg_util"]) == [0.125]
    assert list(inv.servers["disk_used_gib"]) == pytest.approx([1024.5e9 / GIB])
    assert _warnings(inv)["decimal_comma"] == (
        "az.csv: ';'-separated with decimal commas: column(s) 'CPU utilization "
        "percentage', 'Storage in use (In GB)' read with ',' as the decimal mark "
        "('1,024' = 1.024; a '.' before three digits is a thousands separator, "
        "'1.024,5' = 1024.5)"
    )
