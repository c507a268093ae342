"""PlanetLab, Bitbrains and Alibaba trace readers: real samples and hand-made quirks."""

from __future__ import annotations

import gzip
import re
import shutil
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from vsizer.errors import InputError
from vsizer.series.model import SERIES_COLUMNS
from vsizer.series.traces import (
    read_alibaba_machine_usage,
    read_bitbrains,
    read_planetlab,
)

DATA = Path(__file__).parent / "data" / "series" / "traces"
PLANETLAB_FILE = "146-179_surfsnel_dsl_internl_net_colostate_557"


def _check_contract(data: pd.DataFrame) -> None:
    assert tuple(data.columns) == SERIES_COLUMNS
    assert str(data["timestamp"].dtype) == "datetime64[ns, UTC]"
    assert data["server"].dtype == pd.StringDtype()
    assert data["metric"].dtype == pd.StringDtype()
    assert data["unit"].dtype == pd.StringDtype()
    assert data["value"].dtype == np.float64
    resorted = data.sort_values(["server", "metric", "timestamp"], ignore_index=True)
    pd.testing.assert_frame_equal(data, resorted)


def _issues(result, kind: str) -> dict[str, int]:
    return {i["server"]: i["count"] for i in result.quality.issues if i["kind"] == kind}


def _values(result, server: str, metric: str) -> np.ndarray:
    d = result.data
    return d.loc[(d["server"] == server) & (d["metric"] == metric), "value"].to_numpy()


# ------------------------------------------------------------------ PlanetLab


@pytest.mark.slow
def test_planetlab_real_day(shared_data):
    folder = shared_data / "planetlab_cloudsim" / "20110303"
    t0 = time.perf_counter()
    result = read_planetlab(folder)
    elapsed = time.perf_counter() - t0
    _check_contract(result.data)
    assert result.source_format == "planetlab"
    assert result.metadata["files"] == 1052  # README: 1052 VMs on 20110303
    assert result.data["server"].nunique() == 1052
    assert set(result.data.groupby("server").size()) == {288}
    assert result.metadata["start"] == "2011-03-03T00:00:00+00:00"
    assert result.metadata["start_from"] == "folder name"
    one = result.data[result.data["server"] == PLANETLAB_FILE]
    # First lines of the file, read by hand: 24, 34, 29, 26, 26.
    assert_allclose(one["value"].to_numpy()[:5], [0.24, 0.34, 0.29, 0.26, 0.26])
    assert one["timestamp"].iloc[0] == pd.Timestamp("2011-03-03T00:00:00Z")
    assert one["timestamp"].iloc[287] == pd.Timestamp("2011-03-03T23:55:00Z")
    assert result.quality.issues == []
    assert elapsed < 2.0


def test_planetlab_single_file_and_start_argument(shared_data):
    path = shared_data / "planetlab_cloudsim" / "20110303" / PLANETLAB_FILE
    by_folder = read_planetlab(path)
    assert by_folder.metadata["start"] == "2011-03-03T00:00:00+00:00"
    moved = read_planetlab(path, start="2020-01-01T09:00:00+09:00")
    assert moved.metadata["start_from"] == "argument"
    assert moved.data["timestamp"].iloc[0] == pd.Timestamp("2020-01-01T00:00:00Z")


def test_planetlab_hand_made_folder():
    result = read_planetlab(DATA / "planetlab" / "20110101")
    _check_contract(result.data)
    assert list(result.data["server"].unique()) == ["vm b", "vm_a"]  # names with spaces
    assert_allclose(_values(result, "vm_a", "cpu_util"), [0.0, 0.5, 0.99])
    assert list(result.data["timestamp"].iloc[:2]) == [
        pd.Timestamp("2011-01-01T00:00:00Z"),
        pd.Timestamp("2011-01-01T00:05:00Z"),
    ]
    assert result.metadata["values_per_file"] == [2, 3]
    assert result.quality.notes == [
        "2 of 2 files do not hold 288 values (one day at 5-minute steps); "
        "read as they are."
    ]


def test_planetlab_over_100_is_clipped(tmp_path):
    day = tmp_path / "20110102"
    day.mkdir()
    (day / "vm").write_text("100\n101\n5\n")
    result = read_planetlab(day)
    assert_allclose(_values(result, "vm", "cpu_util"), [1.0, 1.0, 0.05])
    assert _issues(result, "clipped") == {"vm": 1}


def test_planetlab_corrupted_copy(shared_data, tmp_path):
    src = shared_data / "planetlab_cloudsim" / "20110303" / PLANETLAB_FILE
    day = tmp_path / "20110303"
    day.mkdir()
    lines = src.read_text().splitlines()
    lines[2] = "2x"
    lines[9] = "-4"
    (day / "vm1").write_text("\n".join(lines) + "\n")
    (day / "vm2").write_text("")
    with pytest.raises(InputError) as err:
        read_planetlab(day)
    assert err.value.problems == [
        "vm1 line 3: expected a whole-number CPU percentage 0-100, got '2x'.",
        "vm1 line 10: expected a whole-number CPU percentage 0-100, got '-4'.",
        "vm2: expected 288 lines of whole-number CPU %, got an empty file.",
    ]


def test_planetlab_needs_a_day(tmp_path):
    (tmp_path / "vm").write_text("1\n")
    with pytest.raises(
        InputError, match=re.escape("give --start 2011-03-03T00:00:00Z instead.")
    ):
        read_planetlab(tmp_path / "vm")
    with pytest.raises(InputError, match="^--start: expected an ISO 8601 time"):
        read_planetlab(tmp_path / "vm", start="yesterday")
    empty = tmp_path / "20110101"
    empty.mkdir()
    with pytest.raises(InputError, match="found none"):
        read_planetlab(empty)


# ------------------------------------------------------------------ Bitbrains


@pytest.mark.slow
def test_bitbrains_real_sample(shared_data):
    result = read_bitbrains(shared_data / "bitbrains_rnd" / "sample_raw")
    _check_contract(result.data)
    assert result.source_format == "bitbrains"
    assert sorted(result.data["server"].unique()) == ["1", "2", "3", "4", "5"]
    # First data row of 1.csv, read by hand:
    # 1375308176; 2; 5851.9989; 747.1051929; 12.766666666666667; 8388608.0;
    # 1308620.0; 0.0; 1.0; 11.0; 27.2
    d = result.data
    row = d[(d["server"] == "1") & (d["timestamp"] == d["timestamp"].min())]
    got = dict(zip(row["metric"], row["value"], strict=True))
    assert row["timestamp"].iloc[0] == pd.Timestamp(1375308176, unit="s", tz="UTC")
    assert row["timestamp"].iloc[0] == pd.Timestamp("2013-07-31T22:02:56Z")
    assert_allclose(got["cpu_util"], 0.12766666666666667, rtol=1e-12)
    assert_allclose(got["cpu_mhz"], 747.1051929, rtol=1e-12)
    assert_allclose(got["cpu_capacity_mhz"], 5851.9989, rtol=1e-12)
    assert_allclose(got["mem_used_gib"], 1308620.0 / 2**20, rtol=1e-12)
    assert_allclose(got["mem_capacity_gib"], 8.0, rtol=1e-12)
    assert_allclose(got["disk_mb_s"], 0.001, rtol=1e-12)
    assert_allclose(got["net_mbps"], (11.0 + 27.2) * 8 / 1000, rtol=1e-12)
    assert len(got) == 7
    assert dict(zip(row["metric"], row["unit"], strict=True))["net_mbps"] == "Mbit/s"
    # Timestamps are seconds: 5-minute steps.
    assert result.metadata["step_s"] == 300.0
    assert result.metadata["timestamp_unit"] == ["seconds"]
    assert _issues(result, "clipped") == {}


def test_bitbrains_real_clipped_and_gz(shared_data):
    # 33.csv.gz of month 2013-8 has 3 rows with CPU usage [%] above 100.
    result = read_bitbrains(shared_data / "bitbrains_rnd" / "2013-8" / "33.csv.gz")
    assert _issues(result, "clipped") == {"33": 3}
    assert _values(result, "33", "cpu_util").max() == 1.0


def test_bitbrains_real_zero_capacity(shared_data):
    # 20.csv.gz: 25,673 rows, 25,558 with CPU cores = 0; its 8,600 repeated
    # timestamps all fall in those rows.
    result = read_bitbrains(shared_data / "bitbrains_rnd" / "2013-8" / "20.csv.gz")
    assert _issues(result, "dropped") == {"20": 25558}
    assert _issues(result, "duplicate") == {}
    assert result.metadata["rows"] == 25673
    assert result.metadata["rows_kept"] == 25673 - 25558


def test_bitbrains_quirks():
    result = read_bitbrains(DATA / "bitbrains" / "quirks.csv")
    _check_contract(result.data)
    assert _issues(result, "dropped") == {"quirks": 1}
    assert _issues(result, "duplicate") == {"quirks": 1}
    assert _issues(result, "clipped") == {"quirks": 1}
    assert _issues(result, "gap") == {"quirks": 1}
    stamps = result.data.loc[result.data["metric"] == "cpu_util", "timestamp"]
    assert list(stamps.astype("int64") // 10**9 - 1377993600) == [
        0,
        300,
        900,
        1800,
        2100,
    ]
    # The first of the two rows at +300 s is kept: 110 % -> 1.0.
    assert_allclose(_values(result, "quirks", "cpu_util"), [0.25, 1.0, 0.5, 0.0, 1.0])
    assert_allclose(
        _values(result, "quirks", "mem_used_gib"), [4.0, 8.0, 2.0, 0.0, 16.0]
    )
    assert_allclose(_values(result, "quirks", "mem_capacity_gib"), [16.0] * 5)
    assert_allclose(_values(result, "quirks", "disk_mb_s"), [0.15, 0.0, 2.0, 0.0, 0.0])
    assert_allclose(_values(result, "quirks", "net_mbps"), [10.0, 0.0, 1.0, 0.0, 0.0])
    assert_allclose(_values(result, "quirks", "cpu_mhz")[:2], [2600.0, 11440.0])


def test_bitbrains_gz_equals_csv(tmp_path):
    src = DATA / "bitbrains" / "quirks.csv"
    with gzip.open(tmp_path / "quirks.csv.gz", "wb") as f:
        f.write(src.read_bytes())
    (tmp_path / "notes.txt").write_text("not a trace")
    got = read_bitbrains(tmp_path)
    pd.testing.assert_frame_equal(got.data, read_bitbrains(src).data)
    assert got.metadata["ignored"] == ["notes.txt"]


def test_bitbrains_corrupted_copy(shared_data, tmp_path):
    lines = (
        (shared_data / "bitbrains_rnd" / "sample_raw" / "1.csv")
        .read_text()
        .splitlines()
    )
    cells = lines[4].split(";\t")
    cells[4] = "abc"
    lines[4] = ";\t".join(cells)
    cells = lines[6].split(";\t")
    cells[0] = ""
    lines[6] = ";\t".join(cells)
    (tmp_path / "1.csv").write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError) as err:
        read_bitbrains(tmp_path / "1.csv")
    assert err.value.problems == [
        "1.csv line 5, column 'CPU usage [%]': expected a non-negative number, got 'abc'.",
        "1.csv line 7, column 'Timestamp [ms]': expected a non-negative number, got ''.",
    ]


def test_bitbrains_blank_and_negative_cells(tmp_path):
    lines = (DATA / "bitbrains" / "quirks.csv").read_text().splitlines()
    lines[1] = lines[1].replace("2600.0", "")
    lines[2] = lines[2].replace("110.0", "-3")
    (tmp_path / "v.csv").write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError) as err:
        read_bitbrains(tmp_path / "v.csv")
    assert err.value.problems == [
        "v.csv line 2, column 'CPU usage [MHZ]': expected a non-negative number, got ''.",
        "v.csv line 3, column 'CPU usage [%]': expected a non-negative number, got '-3'.",
    ]


def test_bitbrains_bad_files(tmp_path):
    (tmp_path / "a.csv").write_text("Timestamp [ms];\tCPU cores\n1;\t2\n")
    data = gzip.compress((DATA / "bitbrains" / "quirks.csv").read_bytes())
    (tmp_path / "b.csv.gz").write_bytes(data[: len(data) // 2])
    shutil.copy(DATA / "bitbrains" / "quirks.csv", tmp_path / "c.csv")
    shutil.copy(DATA / "bitbrains" / "quirks.csv", tmp_path / "c.csv.gz")
    with pytest.raises(InputError) as err:
        read_bitbrains(tmp_path)
    assert err.value.problems == ["c.csv.gz: server 'c' is also read from c.csv."]
    (tmp_path / "c.csv.gz").unlink()
    with pytest.raises(InputError) as err:
        read_bitbrains(tmp_path)
    assert err.value.problems[0].startswith(
        "a.csv: expected the Bitbrains columns 'CPU capacity provisioned [MHZ]'"
    )
    assert err.value.problems[1].startswith("b.csv.gz: cannot read the file:")
    assert len(err.value.problems) == 2
    with pytest.raises(InputError, match="no such file or folder"):
        read_bitbrains(tmp_path / "missing")


# -------------------------------------------------------------------- Alibaba

ALIBABA = DATA / "alibaba" / "machine_usage_sample.csv"


def test_alibaba_hand_made_sample():
    # Hand-made after alibaba/clusterdata cluster-trace-v2018/schema.txt
    # ("machine usage": machine_id, time_stamp, cpu_util_percent,
    # mem_util_percent, mem_gps, mkpi, net_in, net_out, disk_io_percent).
    result = read_alibaba_machine_usage(ALIBABA)
    _check_contract(result.data)
    assert result.source_format == "alibaba"
    assert set(result.data["metric"]) == {"cpu_util", "mem_util"}
    # m_1: t=20 empty cpu (dropped), t=30 twice (first, 101 -> clipped),
    # t=40 cpu -1 (abnormal marker, dropped), 80 s gap before t=130.
    assert_allclose(_values(result, "m_1", "cpu_util"), [0.21, 0.23, 1.0, 0.24, 0.25])
    assert_allclose(
        _values(result, "m_1", "mem_util"), [0.88, 0.88, 0.88, 0.89, 0.89, 0.90, 0.90]
    )
    # m_2 rows are out of order in the file.
    assert_allclose(_values(result, "m_2", "cpu_util"), [0.34, 0.35, 0.36])
    first = result.data["timestamp"].iloc[0]
    assert first == pd.Timestamp("1970-01-01T00:00:00Z")
    issues = result.quality.to_frame()
    assert sorted(zip(issues["kind"], issues["count"], strict=True)) == [
        ("clipped", 1),
        ("dropped", 1),
        ("dropped", 1),
        ("duplicate", 1),
        ("gap", 1),
    ]
    assert set(issues["server"]) == {"m_1"}
    assert result.metadata["start_is_real_date"] is False
    assert "not a real date" in result.quality.notes[0]
    assert result.metadata["rows"] == 11


def test_alibaba_start_and_machines():
    result = read_alibaba_machine_usage(
        ALIBABA, start="2018-01-01T00:00:00Z", machines=["m_2"]
    )
    assert list(result.data["server"].unique()) == ["m_2"]
    assert result.data["timestamp"].iloc[1] == pd.Timestamp("2018-01-01T00:00:10Z")
    assert result.metadata["start_is_real_date"] is True


def test_alibaba_corrupted_copy(tmp_path):
    lines = ALIBABA.read_text().splitlines()
    lines[1] = lines[1].replace("m_1,0,21", "m_1,zero,21")
    lines[2] = lines[2].replace(",23,", ",23%,")
    (tmp_path / "machine_usage.csv").write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError) as err:
        read_alibaba_machine_usage(tmp_path / "machine_usage.csv")
    assert err.value.problems == [
        "machine_usage.csv line 2, column 'time_stamp': expected a time in seconds "
        "from the trace start, got 'zero'.",
        "machine_usage.csv line 3, column 'cpu_util_percent': expected a percentage "
        "0-100 or an empty cell, got '23%'.",
    ]
    with pytest.raises(InputError, match="expected an ISO 8601 time"):
        read_alibaba_machine_usage(ALIBABA, start="day one")


def test_planetlab_value_past_int64_is_an_error_line(tmp_path):
    # Found by tests/fuzz (seed 13): int() overflowed numpy's int64 slot.
    from vsizer.errors import SeriesError
    from vsizer.series.traces import read_planetlab

    day = tmp_path / "20110303"
    day.mkdir()
    (day / "vm_a").write_text("0\n99999999999999999999999\n99\n")
    with pytest.raises(SeriesError) as exc:
        read_planetlab(day)
    assert str(exc.value) == (
        "vm_a line 2: expected a whole-number CPU percentage 0-100, got "
        "'99999999999999999999999'."
    )
