"""Numbers (issue 12 item 1): every numeric cell is finite and within the
plausible range of its field (vsizer.plausible), else one error line; a value
outside the usual band warns. Reproducers of the fuzz campaign are here."""

from __future__ import annotations

import json
import math
from pathlib import Path

import openpyxl
import pytest

from vsizer import plausible, units
from vsizer.cli import common as _cli_common
from vsizer.cli import main
from vsizer.inventory._build import ProblemLog, ServerRecord, check_ranges
from vsizer.quality import QualityReport

from .rvtools_fixture import write_old_layout

HEADER = "name,sockets,cores_per_socket,cpu_mhz,cpu_peak_pct,mem_gib"


@pytest.fixture(autouse=True)
def _plain_terminal(monkeypatch):
    monkeypatch.setitem(_cli_common.DEBUG, "on", False)
    monkeypatch.setenv("COLUMNS", "250")


def _run(argv: list[str], capsys) -> tuple[int, str]:
    with pytest.raises(SystemExit) as info:
        main(argv)
    return int(info.value.code or 0), capsys.readouterr().err


# --- units.parse_quantity ------------------------------------------------------


@pytest.mark.parametrize(
    "cell", ["1e400", "-1e400", "1e400 GB", "inf", "-inf", "+Inf", "Infinity", "∞",
             math.inf, -math.inf, 10**400]
)
def test_non_finite_cells_raise_non_finite_error(cell):
    with pytest.raises(units.NonFiniteError, match="^not a finite number: "):
        units.parse_quantity(cell)


def test_non_finite_error_is_a_value_error():
    assert issubclass(units.NonFiniteError, ValueError)


@pytest.mark.parametrize("cell", ["nan", "NaN", math.nan])
def test_nan_stays_a_missing_value(cell):
    # nan is a blank-like token of the missing-data policy (units.EMPTY_MARKERS)
    assert units.parse_quantity(cell) is None


def test_largest_float_still_parses():
    assert units.parse_quantity("1e308") == (1e308, None)


# --- the table -------------------------------------------------------------------


@pytest.mark.parametrize(
    "field, low, high",
    [
        ("sockets", 1, 16),
        ("cores_per_socket", 1, 512),
        ("vcpus", 1, 4096),
        ("cpu_mhz", 100, 10_000),
        ("mem_gib", 0, 65_536),  # 64 TiB
        ("disk_gib", 0, 931_323),  # 1 PB = 10^15 B
        ("disk_iops", 0, 10_000_000),
        ("net_mbps", 0, 1_000_000),  # 1 Tbit/s
        ("power_w", 0, 20_000),  # 20 kW
        ("cpu_peak_util", 0, 1),
    ],
)
def test_field_limits(field, low, high):
    r = plausible.FIELD_RANGES[field]
    assert (r.low, r.high) == (low, high)
    assert plausible.check(field, low) == (None, False) or r.usual_low > low
    assert plausible.check(field, high)[0] is None
    assert plausible.check(field, high * 1.01 + 1)[0] is not None
    assert r.low <= r.usual_low <= r.usual_high <= r.high


@pytest.mark.parametrize(
    "field, value, expected",
    [
        ("mem_gib", 70_000, ("a memory size from 0 to 65,536 GiB (64 TiB)", False)),
        ("mem_gib", 20_000, (None, True)),
        ("mem_gib", 512, (None, False)),
        ("sockets", 1e20, ("a number of sockets from 1 to 16", False)),
        ("sockets", 0, ("a number of sockets from 1 to 16", False)),
        ("cpu_mhz", 50, ("a clock rate from 100 to 10,000 MHz", False)),
        ("cpu_mhz", 800, (None, True)),
        ("power_w", 1e20, ("a power from 0 to 20,000 W (20 kW)", False)),
        ("power_w", 6_000, (None, True)),
        ("disk_iops", 1e308, ("a number of IOPS from 0 to 10,000,000", False)),
        ("net_mbps", math.inf, ("a finite number", False)),
        ("mem_gib", math.nan, ("a finite number", False)),
        ("not_in_table", 1e300, (None, False)),
        ("not_in_table", math.inf, ("a finite number", False)),
    ],
)
def test_check(field, value, expected):
    assert plausible.check(field, value) == expected


def test_warning_message():
    assert plausible.warning_message("power_w") == (
        "power_w outside the usual 0 to 5,000 W (5 kW) (the limits are 0 to "
        "20,000 W (20 kW)): check the unit and the value of these servers."
    )


def test_check_ranges_drops_the_value_and_locates_it():
    rec = ServerRecord("s1", 7, values={"sockets": 10**20, "mem_gib": 8.0})
    rec.where["sockets"] = (3, "Sockets", "vCPU", "1e20")
    problems, quality = ProblemLog("f.xlsx", "vInfo"), QualityReport()
    check_ranges([rec], problems, quality)
    assert problems.lines == [
        "f.xlsx sheet 'vCPU' row 3, column 'Sockets': expected a number of sockets "
        "from 1 to 16, got '1e20'."
    ]
    assert rec.values == {"mem_gib": 8.0}
    assert quality.warnings == []


# --- the table reader, through the CLI --------------------------------------------


def test_reproducer_overflowing_memory_is_an_error(tmp_path, capsys):
    f = tmp_path / "m.csv"
    f.write_text(f"{HEADER}\ns1,2,4,2400,40,1e400\n")
    code, err = _run(["plan", str(f), "-o", str(tmp_path / "m.json")], capsys)
    assert code == 2
    assert err == (
        "error: m.csv row 2, column 'mem_gib': expected a finite number, "
        "got '1e400'.\n"
    )
    assert not (tmp_path / "m.json").exists()


@pytest.mark.parametrize("column", ["cpu_mhz", "disk_iops", "net_mbps", "power_w"])
@pytest.mark.parametrize("cell", ["1e400", "inf", "-inf"])
def test_overflowing_cells_are_errors(tmp_path, capsys, column, cell):
    f = tmp_path / "m.csv"
    f.write_text(f"name,vcpus,mem_gib,{column}\ns1,2,8,{cell}\n")
    code, err = _run(["plan", str(f), "-q"], capsys)
    assert code == 2
    assert err == (
        f"error: m.csv row 2, column '{column}': expected a finite number, "
        f"got '{cell}'.\n"
    )


def test_absurd_finite_values_are_range_errors_all_at_once(tmp_path, capsys):
    f = tmp_path / "a.csv"
    f.write_text(
        "name,sockets,cores_per_socket,mem_gib,disk_iops,net_mbps,power_w\n"
        "s1,1e20,4,1e308 TB,1e308,1e20,1e20\n"
        "s2,2,1000,70000,5,5,5\n"
    )
    code, err = _run(["plan", str(f), "-q"], capsys)
    assert code == 2
    assert err.splitlines() == [
        "error: a.csv row 2, column 'sockets': expected a number of sockets from 1 "
        "to 16, got '1e20'.",
        "error: a.csv row 2, column 'mem_gib': expected a finite number, "
        "got '1e308 TB'.",
        "error: a.csv row 2, column 'disk_iops': expected a number of IOPS from 0 "
        "to 10,000,000, got '1e308'.",
        "error: a.csv row 2, column 'net_mbps': expected a network rate from 0 to "
        "1,000,000 Mbit/s (1 Tbit/s), got '1e20'.",
        "error: a.csv row 2, column 'power_w': expected a power from 0 to 20,000 W "
        "(20 kW), got '1e20'.",
        "error: a.csv row 3, column 'cores_per_socket': expected a number of cores "
        "per socket from 1 to 512, got '1000'.",
        "error: a.csv row 3, column 'mem_gib': expected a memory size from 0 to "
        "65,536 GiB (64 TiB), got '70000'.",
    ]


def test_unusual_values_plan_with_a_warning(tmp_path, capsys):
    f = tmp_path / "u.csv"
    f.write_text(f"{HEADER},power_w\ns1,2,4,2400,40,16,6000\ns2,2,4,2400,40,16,400\n")
    out = tmp_path / "u.json"
    code, _ = _run(["plan", str(f), "-q", "-o", str(out)], capsys)
    assert code == 0
    warnings = json.loads(out.read_text())["warnings"]
    assert [w for w in warnings if w["code"].startswith("unusual_")] == [
        {
            "code": "unusual_power_w",
            "message": "power_w outside the usual 0 to 5,000 W (5 kW) (the limits "
            "are 0 to 20,000 W (20 kW)): check the unit and the value of these "
            "servers.",
            "servers": ["s1"],
        }
    ]


# --- RVTools and Azure Migrate --------------------------------------------------------


def _rvtools(tmp_path: Path, changes: dict[tuple[int, str], object]) -> Path:
    p = write_old_layout(tmp_path / "rv.xlsx")
    wb = openpyxl.load_workbook(p)
    ws = wb["vInfo"]
    header = [c.value for c in ws[1]]
    for (row, column), value in changes.items():
        ws.cell(row, header.index(column) + 1).value = value
    wb.save(p)
    return p


def test_rvtools_absurd_cpus_and_memory_are_range_errors(tmp_path, capsys):
    # row 2 = app01, row 3 = app02 (tests/rvtools_fixture.py)
    p = _rvtools(tmp_path, {(2, "CPUs"): 1e20, (3, "Memory"): 1e20})
    code, err = _run(["plan", str(p), "-q"], capsys)
    assert code == 2
    assert err.splitlines() == [
        "error: rv.xlsx sheet 'vInfo' row 2, column 'CPUs': expected a number of "
        "vCPUs from 1 to 4,096, got '100000000000000000000'.",
        "error: rv.xlsx sheet 'vInfo' row 3, column 'Memory': expected a VM memory "
        "size from 0 to 245,760 GiB (240 TiB), got '100000000000000000000'.",
    ]


def test_rvtools_overflowing_memory_is_an_error(tmp_path, capsys):
    p = _rvtools(tmp_path, {(2, "Memory"): "1e400"})
    code, err = _run(["plan", str(p), "-q"], capsys)
    assert code == 2
    assert err == (
        "error: rv.xlsx sheet 'vInfo' row 2, column 'Memory': expected a finite "
        "number, got '1e400'.\n"
    )


def test_azure_migrate_overflowing_cores_is_an_error(tmp_path, capsys):
    f = tmp_path / "az.csv"
    f.write_text(
        "*Server Name,*Cores,*Memory (In MB),*OS name,CPU utilization percentage\n"
        "app01,1e400,8192,Linux,25\n"
        "app02,5000,8192,Linux,25\n"
    )
    code, err = _run(["plan", str(f), "-q"], capsys)
    assert code == 2
    assert err.splitlines() == [
        "error: az.csv row 2, column '*Cores': expected a finite number, "
        "got '1e400'.",
        "error: az.csv row 3, column '*Cores': expected a number of vCPUs from 1 "
        "to 4,096, got '5000'.",
    ]


def test_docs_list_every_range():
    doc = (Path(__file__).parents[1] / "docs" / "reliability.md").read_text()
    for table in (plausible.FIELD_RANGES, plausible.VM_FIELD_RANGES):
        for field, r in table.items():
            row = f"| `{field}` | {r.unit} | {r.limits_text()} | {r.usual_text()} |"
            assert row in doc, row


@pytest.mark.parametrize(
    "field, value, kind, expected",
    [
        # 32 virtual sockets x 1 core: ordinary for a VM, impossible for a server
        ("sockets", 32, "vm", (None, False)),
        ("sockets", 32, "server", ("a number of sockets from 1 to 16", False)),
        ("sockets", 12, "vm", (None, False)),
        ("sockets", 12, "server", (None, True)),
        ("sockets", 200, "vm", (None, True)),  # above vSphere's 128 virtual sockets
        ("sockets", 5000, "vm", ("a number of virtual sockets from 1 to 4,096",
                                 False)),
        ("mem_gib", 30_000, "vm", (None, True)),  # above vSphere's 24 TB
        ("mem_gib", 100_000, "vm", (None, True)),  # within Hyper-V's 240 TB
        ("mem_gib", 100_000, "server",
         ("a memory size from 0 to 65,536 GiB (64 TiB)", False)),
        ("mem_gib", 300_000, "vm",
         ("a VM memory size from 0 to 245,760 GiB (240 TiB)", False)),
        ("cpu_mhz", 50, "vm", ("a clock rate from 100 to 10,000 MHz", False)),
    ],
)
def test_check_by_kind(field, value, kind, expected):
    assert plausible.check(field, value, kind) == expected


def test_unknown_kind_is_refused():
    with pytest.raises(ValueError, match="unknown kind 'host'"):
        plausible.check("sockets", 2, "host")


def test_vm_warning_names_the_kind():
    records = [ServerRecord("big", 2, {"sockets": 1000, "vcpus": 1000})]
    quality = QualityReport()
    check_ranges(records, ProblemLog("f.xlsx"), quality, kind="vm")
    (w1, w2) = quality.warnings
    assert (w1.code, w1.servers) == ("unusual_sockets", ("big",))
    assert "for a VM (VMware vSphere 8 per-VM maximums" in w1.message
    assert w2.code == "unusual_vcpus"
    # a row's own kind overrides the reader's
    records = [ServerRecord("pm", 2, {"sockets": 12}, kind="server")]
    quality = QualityReport()
    check_ranges(records, ProblemLog("f.xlsx"), quality, kind="vm")
    assert quality.warnings[0].message.startswith("sockets outside the usual 1 to 8 ")


def test_host_catalog_numbers_respect_the_same_limits(tmp_path, capsys):
    hosts = tmp_path / "hosts.csv"
    hosts.write_text(
        "model,sockets,cores_per_socket,cpu_mhz,mem_gib,power_idle_w,power_max_w\n"
        "big,1e20,28,2500,768,100,1e400\n"
    )
    inv = tmp_path / "s.csv"
    inv.write_text(f"{HEADER}\ns1,2,4,2400,40,8\n")
    code, err = _run(["plan", str(inv), "--hosts", str(hosts), "-q"], capsys)
    assert code == 2
    assert err.splitlines() == [
        "error: hosts.csv row 2, column 'sockets': expected a positive integer from "
        "1 to 16, got '1e20'.",
        "error: hosts.csv row 2, column 'power_max_w': expected a finite number, "
        "got '1e400'.",
    ]


SAMPLE = (
    Path(__file__).resolve().parents[2] / "shared" / "data" / "formats" / "rvtools"
    / "kubev2v_migration-planner_example1.xlsx"
)


@pytest.mark.slow
@pytest.mark.parametrize(
    "value, expected",
    [
        (1e20, "a VM memory size from 0 to 245,760 GiB (240 TiB), "
               "got '100000000000000000000'"),
        ("1e400", "a finite number, got '1e400'"),
    ],
)
def test_rvtools_vmemory_consumed(tmp_path, capsys, value, expected):
    if not SAMPLE.is_file():
        pytest.skip(f"shared RVTools sample not available: {SAMPLE}")
    wb = openpyxl.load_workbook(SAMPLE)
    ws = wb["vMemory"]
    ws.cell(4, [c.value for c in ws[1]].index("Consumed") + 1).value = value
    p = tmp_path / "rvm.xlsx"
    wb.save(p)
    code, err = _run(["plan", str(p), "-q"], capsys)
    assert code == 2
    assert err == (
        f"error: rvm.xlsx sheet 'vMemory' row 4, column 'Consumed': expected "
        f"{expected}.\n"
    )


def test_perfmon_infinite_values_are_errors_not_gaps(tmp_path, capsys):
    # pandas reads 'inf' and '1e400' as inf; they used to vanish from the series
    counter = "\\\\web01\\Processor(_Total)\\% Processor Time"
    f = tmp_path / "pm.csv"
    f.write_text(
        f'"(PDH-CSV 4.0) (UTC)(0)","{counter}"\n'
        '"05/01/2024 10:00:00.000","1e400"\n'
        '"05/01/2024 10:00:15.000","-inf"\n'
        '"05/01/2024 10:00:30.000","12"\n'
    )
    code, err = _run(
        ["import", str(f), "--format", "perfmon", "--store", str(tmp_path / "s")],
        capsys,
    )
    assert code == 2
    assert err.splitlines() == [
        f"error: pm.csv row 2, column '{counter}': expected a finite number or a "
        "blank, got '1e400'.",
        f"error: pm.csv row 3, column '{counter}': expected a finite number or a "
        "blank, got '-inf'.",
    ]
