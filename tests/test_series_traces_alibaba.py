"""Alibaba cluster-trace-v2018 as a folder: machine_usage + machine_meta, line widths.

Hand-made after alibaba/clusterdata cluster-trace-v2018/schema.md: machine_meta
(machine_id, time_stamp, failure_domain_1, failure_domain_2, cpu_num,
mem_size, status) and machine_usage (machine_id, time_stamp,
cpu_util_percent, mem_util_percent, mem_gps, mkpi, net_in, net_out,
disk_io_percent); neither has a header line.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from numpy.testing import assert_allclose
from typer.testing import CliRunner

import vsizer
from vsizer.catalogs.model import HostModel
from vsizer.cli import app
from vsizer.errors import InputError
from vsizer.series import load_series
from vsizer.series.align import align
from vsizer.series.as_inventory import inventory_from_series, machines_from_metadata
from vsizer.series.traces import read_alibaba_machine_meta, read_alibaba_machine_usage

USAGE = Path(__file__).parent / "data" / "series" / "traces" / "alibaba"
USAGE_FILE = USAGE / "machine_usage_sample.csv"
META = (
    "m_1,0,1,a,96,100,USING\n"
    "m_1,3600,1,a,96,100,USING\n"
    "m_2,0,2,b,64,,USING\n"
    "m_2,7200,2,b,96,50,USING\n"
    "m_9,0,3,c,32,40,USING\n"
)
EXPECTED_FIELDS = (
    "9 comma-separated fields (machine_id, time_stamp, cpu_util_percent, ...)"
)

#: 10 cores x 1000 MHz, no score: capacity 10,000 MHz.
HOST = HostModel(
    model="Test host",
    sockets=1,
    cores_per_socket=10,
    threads_per_core=1,
    cpu_mhz=1000.0,
    cpu_score_per_core=None,
    mem_gib=1000.0,
    power_idle_w=100.0,
    power_max_w=200.0,
)


def _trace_folder(tmp_path: Path, extra_usage: str = "") -> Path:
    folder = tmp_path / "cluster-trace-v2018"
    folder.mkdir()
    shutil.copy(USAGE_FILE, folder / "machine_usage.csv")
    if extra_usage:
        with open(folder / "machine_usage.csv", "a") as fh:
            fh.write(extra_usage)
    (folder / "machine_meta.csv").write_text(META)
    (folder / "container_meta.csv").write_text("c_1,m_1,0,app_1,started,400,400,1.56\n")
    return folder


def test_folder_reads_usage_and_machine_meta(tmp_path):
    folder = _trace_folder(tmp_path, "m_3,0,40,50,,,1,1,1\n")
    result = read_alibaba_machine_usage(folder)
    assert sorted(set(result.data["server"])) == ["m_1", "m_2", "m_3"]
    # Same values as the file alone (test_series_traces.py pins them).
    got = result.data
    m1 = got[(got["server"] == "m_1") & (got["metric"] == "cpu_util")]["value"]
    assert_allclose(m1, [0.21, 0.23, 1.0, 0.24, 0.25])
    md = result.metadata
    assert md["files"] == ["machine_usage.csv"]
    assert md["ignored"] == ["container_meta.csv"]
    assert md["machine_meta"] == "machine_meta.csv"
    # m_2: cpu_num 64 then 96 -> the largest; mem_size empty then 50 -> 50.
    # m_9 has no usage rows and is left out; m_3 has no meta row.
    assert md["machines"] == {
        "m_1": {"cpu_count": 96, "mem_size_normalized": 100.0},
        "m_2": {"cpu_count": 96, "mem_size_normalized": 50.0},
    }
    notes = result.quality.notes
    assert (
        "machine_meta.csv: CPU count (cpu_num) of 2 of 3 machines; mem_size is "
        "normalized to [0, 100] with no stated scale, so memory in GiB comes from "
        "--vm-mem-gib." in notes
    )
    assert (
        "machine_meta.csv: no row for 1 machine(s) (m_3); their CPU size comes from "
        "--vm-cpu-mhz alone." in notes
    )
    assert (
        "machine_meta.csv: cpu_num changes over time for 1 machine(s); the largest "
        "is used." in notes
    )


def test_file_beside_machine_meta_says_the_folder_sizes_machines(tmp_path):
    folder = _trace_folder(tmp_path)
    result = read_alibaba_machine_usage(folder / "machine_usage.csv")
    assert "machines" not in result.metadata
    assert (
        "machine_meta.csv lies beside machine_usage.csv but was not read (a file was "
        "given); give the folder to size each machine by its cpu_num."
        in result.quality.notes
    )


def test_short_and_long_lines_are_errors_not_pandas_tracebacks(tmp_path):
    lines = USAGE_FILE.read_text().splitlines()
    lines[2] = "m_1,10"  # short
    lines[4] = lines[4] + ",7,8"  # 11 fields
    (tmp_path / "machine_usage.csv").write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError) as err:
        read_alibaba_machine_usage(tmp_path / "machine_usage.csv")
    assert err.value.problems == [
        f"machine_usage.csv line 3: expected {EXPECTED_FIELDS}, got 'm_1,10'.",
        f"machine_usage.csv line 5: expected {EXPECTED_FIELDS}, got "
        "'m_1,30,101,89,,,43.3,36.0,101,7,8'.",
    ]
    # A long first line used to raise pandas' "Number of passed names".
    (tmp_path / "first.csv").write_text("m_1,0,21,88,1,2,3,4,5,6,7\nm_1,10,1,2,,,,,\n")
    with pytest.raises(InputError) as err:
        read_alibaba_machine_usage(tmp_path / "first.csv")
    assert err.value.problems == [
        f"first.csv line 1: expected {EXPECTED_FIELDS}, got 'm_1,0,21,88,1,2,3,4,5,6,7'."
    ]


def test_blank_lines_keep_line_numbers(tmp_path):
    (tmp_path / "u.csv").write_text("m_1,0,21,88,,,,,\n\nm_1,10,x,88,,,,,\n")
    with pytest.raises(InputError) as err:
        read_alibaba_machine_usage(tmp_path / "u.csv")
    assert err.value.problems == [
        "u.csv line 3, column 'cpu_util_percent': expected a percentage 0-100 or an "
        "empty cell, got 'x'."
    ]


def test_machine_meta_errors(tmp_path):
    (tmp_path / "machine_meta.csv").write_text(
        "m_1,0,1,a,96,100,USING\nm_2,0,2,b,many,100,USING\nm_3,0,3\nm_4,0,4,d,8,big,X\n"
    )
    with pytest.raises(InputError) as err:
        read_alibaba_machine_meta(tmp_path / "machine_meta.csv")
    assert err.value.problems == [
        "machine_meta.csv line 3: expected 7 comma-separated fields (machine_id, "
        "time_stamp, failure_domain_1, ...), got 'm_3,0,3'."
    ]
    (tmp_path / "machine_meta.csv").write_text(
        "m_1,0,1,a,96,100,USING\nm_2,0,2,b,many,100,USING\nm_4,0,4,d,0,big,X\n"
    )
    with pytest.raises(InputError) as err:
        read_alibaba_machine_meta(tmp_path / "machine_meta.csv")
    assert err.value.problems == [
        "machine_meta.csv line 2, column 'cpu_num': expected a whole number of CPUs "
        "above 0, got 'many'.",
        "machine_meta.csv line 3, column 'cpu_num': expected a whole number of CPUs "
        "above 0, got '0'.",
        "machine_meta.csv line 3, column 'mem_size': expected a normalized memory "
        "size 0-100 or an empty cell, got 'big'.",
    ]


def test_folder_errors(tmp_path):
    (tmp_path / "batch_task.csv").write_text("x\n")
    with pytest.raises(InputError) as err:
        read_alibaba_machine_usage(tmp_path)
    assert err.value.problems == [
        f"{tmp_path.name}: expected a machine_usage.csv file (cluster-trace-v2018) in "
        "the folder, found batch_task.csv."
    ]
    (tmp_path / "x").mkdir()
    folder = _trace_folder(tmp_path / "x")
    (folder / "machine_meta.csv.gz").write_bytes(b"")
    with pytest.raises(InputError, match="expected one machine_meta file, found"):
        read_alibaba_machine_usage(folder)
    with pytest.raises(InputError, match=r"^--start: expected an ISO 8601 time"):
        read_alibaba_machine_usage(folder, start="day one")


def _sized(tmp_path: Path, **kw):
    folder = _trace_folder(tmp_path, "m_3,0,40,50,,,1,1,1\n")
    series = read_alibaba_machine_usage(folder)
    aligned = align(series.data, step="5min")
    return inventory_from_series(
        aligned,
        source=str(folder),
        machines=machines_from_metadata(series.metadata),
        **kw,
    )


def test_machine_meta_cpu_count_sizes_each_machine(tmp_path):
    inv = _sized(tmp_path, vm_cpu_mhz=50.0, vm_mem_gib=4.0)
    df = inv.servers.set_index("name")
    assert df.loc["m_1", "cores_per_socket"] == 96
    assert df.loc["m_2", "cores_per_socket"] == 96
    assert df.loc["m_3", "cores_per_socket"] == 1
    assert list(df["cpu_mhz"]) == [50.0, 50.0, 50.0]
    q = inv.quality
    assert q.entries["m_1"]["cores_per_socket"] == (
        "given",
        "CPU count 96 (the series' machine list: Alibaba machine_meta cpu_num, "
        "Azure vmtable core bucket)",
    )
    assert "cores_per_socket" not in q.entries["m_3"]
    assert q.entries["m_3"]["cpu_mhz"] == ("assumed", "--vm-cpu-mhz 50.0")
    assert (
        "CPU count of 2 of 3 servers from the series' machine list (Alibaba "
        "machine_meta cpu_num, Azure vmtable core bucket); each CPU at "
        "--vm-cpu-mhz 50.0." in q.notes
    )


def test_machine_meta_without_clock_names_the_flag(tmp_path):
    with pytest.raises(InputError) as err:
        _sized(tmp_path, vm_mem_gib=4.0)
    assert err.value.problems == [
        f"series {tmp_path / 'cluster-trace-v2018'}: 3 server(s) have no CPU size "
        "('m_1', 'm_2', 'm_3'): expected a cpu_capacity_mhz series or an inventory; "
        "give --vm-cpu-mhz F (the clock of each CPU; the machine list gives the CPU "
        "count) or an inventory file."
    ]


def test_plan_from_an_alibaba_folder(tmp_path):
    folder = _trace_folder(tmp_path, "m_3,0,40,50,,,1,1,1\n")
    series = load_series([folder], "alibaba")
    doc = vsizer.plan(
        series=series, hosts=HOST, vm_cpu_mhz=50.0, vm_mem_gib=4.0, failures=0
    ).to_dict()
    caps = {
        s["name"]: (s["cores_per_socket"], s["cpu_capacity"]) for s in doc["servers"]
    }
    # 96 CPUs x 50 MHz = 4,800 MHz; m_3 has no meta row: 1 x 50 MHz.
    assert caps == {"m_1": (96, 4800.0), "m_2": (96, 4800.0), "m_3": (1, 50.0)}


def test_machines_survive_the_series_store(tmp_path):
    pytest.importorskip("pyarrow")
    from vsizer.series.store import SeriesStore

    folder = _trace_folder(tmp_path)
    store = SeriesStore.create(tmp_path / "store")
    store.append(read_alibaba_machine_usage(folder))
    read = SeriesStore.open(tmp_path / "store").read()
    assert machines_from_metadata(read.metadata) == {
        "m_1": {"cpu_count": 96, "mem_size_normalized": 100.0},
        "m_2": {"cpu_count": 96, "mem_size_normalized": 50.0},
    }
    only = SeriesStore.open(tmp_path / "store").read(servers=["m_2"])
    assert list(machines_from_metadata(only.metadata)) == ["m_2"]


def test_cli_import_and_plan_an_alibaba_folder(tmp_path):
    pytest.importorskip("pyarrow")
    runner = CliRunner()
    folder = _trace_folder(tmp_path)
    store = tmp_path / "store"
    r = runner.invoke(
        app,
        ["import", str(folder), "--format", "alibaba", "--store", str(store)],
        env={"COLUMNS": "250"},
    )
    assert r.exit_code == 0, r.output
    assert "Is a directory" not in r.output
    assert "cpu_util, mem_util" in r.output
    out = tmp_path / "plan.json"
    r = runner.invoke(
        app,
        [
            "plan",
            "--series",
            str(store),
            "--vm-cpu-mhz",
            "50",
            "--vm-mem-gib",
            "4",
            "--failures",
            "0",
            "-o",
            str(out),
        ],
        env={"COLUMNS": "250"},
    )
    assert r.exit_code == 0, r.output
    doc = json.loads(out.read_text())
    cores = {s["name"]: s["cores_per_socket"] for s in doc["servers"]}
    assert cores == {"m_1": 96, "m_2": 96}


@pytest.mark.parametrize(
    "line, shown",
    [("m_1,10,23,8\r8,12.5,3,43.2,35.9,5", "m_1,10,23,8\\r8,12.5,3,43.2,35.9,5"),
     ('m_1,10,"23,8,12.5,3,43.2,35.9,5', 'm_1,10,"23,8,12.5,3,43.2,35.9,5')],
    ids=["bare-cr", "quote"],
)
def test_a_quote_or_bare_cr_inside_a_line_is_one_error_line(tmp_path, line, shown):
    # pandas would split the line at the CR (or read on to the closing quote),
    # so the line is reported instead of parsed (found by tests/fuzz).
    from vsizer.errors import SeriesError
    from vsizer.series.traces import read_alibaba_machine_usage

    f = tmp_path / "a.csv"
    f.write_bytes(f"m_1,0,21,88,,,43.19,35.81,5\n{line}\n".encode())
    with pytest.raises(SeriesError) as exc:
        read_alibaba_machine_usage(f)
    assert str(exc.value) == (
        "a.csv line 2: expected 9 comma-separated fields (machine_id, time_stamp, "
        f"cpu_util_percent, ...) without quotes or carriage returns, got '{shown}'."
    )


def _usage_parquet(path: Path, rows: dict[str, list[object]]) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table(rows), path)
    return path


def test_parquet_usage_equals_csv(tmp_path: Path) -> None:
    """The same rows as Parquet give the same series and quality (issue 15)."""
    import pandas as pd

    frame = pd.read_csv(USAGE_FILE, header=None, dtype=str, keep_default_na=False,
                        names=["machine_id", "time_stamp", "cpu_util_percent",
                               "mem_util_percent", "a", "b", "c", "d", "e"])
    cols = {
        "machine_id": frame["machine_id"].tolist(),
        "time_stamp": frame["time_stamp"].astype(float).tolist(),
        "cpu_util_percent": [float(v) if v else None for v in frame["cpu_util_percent"]],
        "mem_util_percent": [float(v) if v else None for v in frame["mem_util_percent"]],
    }
    pq_file = _usage_parquet(tmp_path / "machine_usage.parquet", cols)
    a = read_alibaba_machine_usage(USAGE_FILE)
    b = read_alibaba_machine_usage(pq_file)
    assert_allclose(b.data["value"].to_numpy(), a.data["value"].to_numpy())
    assert (b.data["server"] == a.data["server"]).all()
    assert b.quality.issues == a.quality.issues


def test_parquet_usage_bad_cells(tmp_path: Path) -> None:
    f = _usage_parquet(tmp_path / "machine_usage.parquet", {
        "machine_id": ["m_1", None], "time_stamp": ["0", "x"],
        "cpu_util_percent": ["5", "lots"], "mem_util_percent": [1.0, None],
    })
    with pytest.raises(InputError) as err:
        read_alibaba_machine_usage(f)
    text = str(err.value)
    assert "machine_usage.parquet row 2, column 'machine_id': expected a machine id, got ''." in text
    assert (
        "machine_usage.parquet row 2, column 'time_stamp': expected a time in seconds "
        "from the trace start, got 'x'."
    ) in text
    assert (
        "machine_usage.parquet row 2, column 'cpu_util_percent': expected a percentage "
        "0-100 or an empty cell, got 'lots'."
    ) in text
    g = _usage_parquet(tmp_path / "other.parquet", {"machine_id": ["m_1"], "ts": [0]})
    with pytest.raises(InputError) as err:
        read_alibaba_machine_usage(g)
    assert (
        "other.parquet: expected Parquet columns machine_id, time_stamp, cpu_util_percent, "
        "mem_util_percent, found machine_id, ts (missing time_stamp, cpu_util_percent, "
        "mem_util_percent)."
    ) in str(err.value)
