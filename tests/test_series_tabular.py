"""Generic long and wide CSV series: units, times, quirks and error lines."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from vsizer.errors import ConfigError, InputError
from vsizer.series.model import SERIES_COLUMNS
from vsizer.series.tabular import read_long
from vsizer.series.wide import read_wide

DATA = Path(__file__).parent / "data" / "series" / "tabular"


def _check_contract(data: pd.DataFrame) -> None:
    assert tuple(data.columns) == SERIES_COLUMNS
    assert str(data["timestamp"].dtype) == "datetime64[ns, UTC]"
    for col in ("server", "metric", "unit"):
        assert data[col].dtype == pd.StringDtype()
    assert data["value"].dtype == np.float64
    resorted = data.sort_values(["server", "metric", "timestamp"], ignore_index=True)
    pd.testing.assert_frame_equal(data, resorted)


def _series(result, server: str, metric: str) -> pd.Series:
    d = result.data
    one = d[(d["server"] == server) & (d["metric"] == metric)]
    return pd.Series(one["value"].to_numpy(), index=pd.DatetimeIndex(one["timestamp"]))


def _issues(result) -> list[tuple[str, str, int]]:
    return sorted((i["server"], i["kind"], i["count"]) for i in result.quality.issues)


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# ----------------------------------------------------------------------- long


def test_long_units_aliases_and_offsets():
    result = read_long(DATA / "long_units.csv")
    _check_contract(result.data)
    assert result.source_format == "long"
    web01_cpu = _series(result, "web01", "cpu_util")
    # +09:00 -> UTC; unit column '%' -> fraction; 101 % clipped to 1.0.
    assert web01_cpu.index[0] == pd.Timestamp("2024-05-01T01:00:00Z")
    assert_allclose(web01_cpu.to_numpy(), [0.45, 0.505, 1.0])
    assert_allclose(_series(result, "web01", "mem_used_gib").to_numpy(), [2.0, 3.0])
    assert_allclose(_series(result, "web01", "net_mbps").to_numpy(), [0.8])
    assert_allclose(_series(result, "web01", "disk_iops").to_numpy(), [120.0])
    # cpu_pct implies %; the empty value is skipped, the repeated time keeps 30.
    assert_allclose(
        _series(result, "web02", "cpu_util").to_numpy(), [0.1, 0.3, 0.4, 0.5]
    )
    assert_allclose(_series(result, "web02", "disk_mb_s").to_numpy(), [12.5])
    assert_allclose(_series(result, "web02", "net_mbps").to_numpy(), [1000.0])
    units = dict(zip(result.data["metric"], result.data["unit"], strict=True))
    assert units == {
        "cpu_util": "fraction",
        "disk_iops": "IOPS",
        "mem_used_gib": "GiB",
        "net_mbps": "Mbit/s",
        "disk_mb_s": "MB/s",
    }
    assert _issues(result) == [
        ("web01", "clipped", 1),
        ("web01", "dropped", 1),  # load1: not a metric vsizer reads
        ("web02", "dropped", 1),  # empty value
        ("web02", "duplicate", 1),
    ]
    assert result.metadata["skipped_metrics"] == {"load1": 1}
    assert result.metadata["metrics"]["cpu"] == "cpu_util"
    assert result.quality.notes == []  # every time had an offset


def test_long_fraction_guess_and_naive_times():
    result = read_long(DATA / "long_guess.csv")  # host/time headers are aliases
    _check_contract(result.data)
    assert_allclose(_series(result, "a", "cpu_util").to_numpy(), [0.25, 0.5])
    assert _series(result, "a", "cpu_util").index[0] == pd.Timestamp(
        "2024-05-01T00:00Z"
    )
    assert _issues(result) == [("a", "unit_guess", 2), ("b", "unit_guess", 2)]
    detail = result.quality.issues[0]["detail"]
    assert detail == (
        "cpu_util has no unit; read as fraction: all such values of the file are <= 1"
    )
    assert result.quality.notes == [
        "long_guess.csv: 4 times in column 'time' have no UTC offset; read as UTC."
    ]


def test_long_percent_guess_and_unix_ms():
    result = read_long(DATA / "long_unix_ms.csv")
    assert_allclose(_series(result, "a", "mem_util").to_numpy(), [0.5, 0.6])
    assert list(_series(result, "a", "mem_util").index) == [
        pd.Timestamp("2024-05-01T00:00:00Z"),
        pd.Timestamp("2024-05-01T00:01:00Z"),
    ]
    assert result.quality.issues[0]["detail"] == (
        "mem_util has no unit; read as %: such values of the file reach 60"
    )
    assert result.quality.notes == [
        "long_unix_ms.csv: column 'timestamp' read as Unix milliseconds (by magnitude)."
    ]


def test_long_unix_seconds_and_name_unit(tmp_path):
    path = _write(
        tmp_path,
        "s.csv",
        "server;timestamp;metric;value\n"
        "a;1714521600;mem_used [MB];1024\n"
        "\n"
        "a;1714521900;mem_used [MB];512\n",
    )
    result = read_long(path)  # semicolons; a blank line is skipped
    assert_allclose(_series(result, "a", "mem_used_gib").to_numpy(), [1.0, 0.5])
    assert result.quality.notes == [
        "s.csv: column 'timestamp' read as Unix seconds (by magnitude)."
    ]


def test_long_gap(tmp_path):
    text = "server,timestamp,metric,value\n" + "".join(
        f"a,2024-05-01T00:{m:02d}:00Z,cpu_util,0.1\n" for m in (0, 5, 10, 30, 35)
    )
    result = read_long(_write(tmp_path, "g.csv", text))
    # A canonical name without a unit is guessed too (all <= 1: fraction).
    assert _issues(result) == [("a", "gap", 1), ("a", "unit_guess", 5)]
    gap = next(i for i in result.quality.issues if i["kind"] == "gap")
    assert gap["detail"] == (
        "1 step longer than 1.5 x the median step (300 s); longest 1200 s "
        "after 2024-05-01T00:10:00Z"
    )
    assert result.metadata["step_s"] == 300.0


def test_long_bad_cells_listed_at_once(tmp_path):
    path = _write(
        tmp_path,
        "bad.csv",
        "server,timestamp,metric,value,unit\n"
        "a,2024-05-01T00:00:00Z,cpu,45,%\n"
        "a,yesterday,cpu,45,%\n"
        "a,2024-05-01T00:10:00Z,cpu,n/a,%\n"
        ",2024-05-01T00:15:00Z,cpu,3,%\n"
        "a,2024-05-01T00:20:00Z,cpu,-3,%\n"
        "a,2024-05-01T00:25:00Z,mem_used,3,parsecs\n",
    )
    with pytest.raises(InputError) as err:
        read_long(path)
    assert err.value.problems == [
        "bad.csv line 5, column 'server': expected a server name, got ''.",
        "bad.csv line 3, column 'timestamp': expected an ISO 8601 time such as "
        "2024-05-01T10:00:00Z or Unix seconds/milliseconds, got 'yesterday'.",
        "bad.csv line 4, column 'value': expected a non-negative number, got 'n/a'.",
        "bad.csv line 6, column 'value': expected a non-negative number, got '-3'.",
        "bad.csv line 7, column 'unit': expected a unit such as %, fraction, MB, GiB, "
        "MB/s or Mbit/s, got 'parsecs'.",
    ]


def test_long_unit_that_does_not_fit_the_metric(tmp_path):
    path = _write(
        tmp_path,
        "u.csv",
        "server,timestamp,metric,value,unit\na,2024-05-01T00:00:00Z,cpu,45,MB\n",
    )
    with pytest.raises(InputError) as err:
        read_long(path)
    assert err.value.problems == [
        "u.csv line 2, column 'unit': expected a unit of cpu_util: % or fraction, "
        "got 'MB'."
    ]


def test_long_missing_columns_and_empty_file(tmp_path):
    path = _write(tmp_path, "m.csv", "server,when,value\na,1,2\n")
    with pytest.raises(InputError, match=re.escape("missing timestamp, metric.")):
        read_long(path)
    with pytest.raises(InputError, match="got an empty file"):
        read_long(_write(tmp_path, "e.csv", "\n\n"))
    ragged = _write(tmp_path, "r.csv", "server,timestamp,metric,value\na,1,cpu,1,2,3\n")
    with pytest.raises(InputError, match=re.escape(
        "r.csv line 2: expected 4 fields as in the header (the line has 6), got "
        "'a,1,cpu,1,2,3'."
    )):  # fmt: skip
        read_long(ragged)
    with pytest.raises(InputError, match="cannot read the file"):
        read_long(tmp_path / "missing.csv")


def test_long_many_problems_are_summarized(tmp_path):
    rows = "".join(f"a,2024-05-01T00:00:{i:02d}Z,cpu,x{i},%\n" for i in range(25))
    path = _write(tmp_path, "many.csv", "server,timestamp,metric,value,unit\n" + rows)
    with pytest.raises(InputError) as err:
        read_long(path)
    assert len(err.value.problems) == 21
    assert err.value.problems[-1] == (
        "many.csv, column 'value': … and 5 more like it (expected a non-negative number)."
    )


def test_long_cp932(tmp_path):
    path = tmp_path / "ja.csv"
    path.write_bytes(
        "サーバ名,日時,項目,値\nweb,2024-05-01T09:00:00+09:00,CPU使用率,50\n".encode(
            "cp932"
        )
    )
    result = read_long(path)
    assert list(result.data["server"]) == ["web"]
    assert_allclose(result.data["value"], [0.5])


# ----------------------------------------------------------------------- wide


def test_wide_percent_guess_blank_and_gap():
    result = read_wide(DATA / "wide_percent.csv")
    _check_contract(result.data)
    assert result.source_format == "wide"
    assert_allclose(
        _series(result, "web01", "cpu_util").to_numpy(), [0.1, 0.2, 0.3, 0.4, 0.5]
    )
    # File-wide rule: values exceed 1, so web02's 0.5 is 0.5 %.
    assert_allclose(
        _series(result, "web02", "cpu_util").to_numpy(), [0.005, 0.015, 0.02, 0.03]
    )
    assert _issues(result) == [
        ("web01", "gap", 1),
        ("web01", "unit_guess", 5),
        ("web02", "dropped", 1),  # its steps 10, 5, 15 min: median 10, no gap
        ("web02", "unit_guess", 4),
    ]
    assert result.metadata["servers"] == ["web01", "web02"]
    assert result.metadata["timestamp_col"] == "timestamp"


def test_wide_unit_argument_beats_the_guess():
    result = read_wide(DATA / "wide_percent.csv", unit="%")
    assert [i["kind"] for i in result.quality.issues].count("unit_guess") == 0
    result = read_wide(DATA / "wide_percent.csv", metric="cpu_pct")
    assert [i["kind"] for i in result.quality.issues].count("unit_guess") == 0


def test_wide_header_hints_bom_semicolons_naive_times():
    result = read_wide(DATA / "wide_hints.csv")
    _check_contract(result.data)
    assert result.metadata["servers"] == ["db01", "db02"]
    assert_allclose(_series(result, "db01", "cpu_util").to_numpy(), [0.45, 0.55])
    assert_allclose(_series(result, "db02", "cpu_util").to_numpy(), [0.45, 0.55])
    assert result.metadata["units"] == {"cpu_util": ["%", "fraction"]}
    assert _issues(result) == []
    assert result.quality.notes == [
        "wide_hints.csv: 2 times in column 'datetime' have no UTC offset; read as "
        "UTC.",
        "wide_hints.csv: no --metric given; the values (0.45 to 55) look like "
        "utilization (0 to 100), so they are read as cpu_util (CPU busy); give "
        "--metric if they are something else.",
    ]


def test_wide_epoch_first_column_and_other_metric():
    result = read_wide(DATA / "wide_epoch.csv", metric="mem_util")
    assert set(result.data["metric"]) == {"mem_util"}
    assert result.data["timestamp"].iloc[1] == pd.Timestamp("2024-05-01T00:05:00Z")
    assert result.quality.notes == [
        "wide_epoch.csv: no column named like a time; the first column 'epoch' is "
        "read as the time.",
        "wide_epoch.csv: column 'epoch' read as Unix seconds (by magnitude).",
    ]
    mem = read_wide(DATA / "wide_epoch.csv", metric="mem_used_gib", unit="MB")
    assert_allclose(
        _series(mem, "vm1", "mem_used_gib").to_numpy(), [0.1 / 1024, 0.3 / 1024]
    )
    col = read_wide(DATA / "wide_epoch.csv", timestamp_col="epoch")
    assert col.quality.notes == [
        "wide_epoch.csv: column 'epoch' read as Unix seconds (by magnitude).",
        "wide_epoch.csv: no --metric given; the values (0.1 to 0.4) look like "
        "utilization (0 to 100), so they are read as cpu_util (CPU busy); give "
        "--metric if they are something else.",
    ]


def test_wide_errors(tmp_path):
    with pytest.raises(ConfigError) as err:
        read_wide(DATA / "wide_epoch.csv", metric="watts")
    assert str(err.value).startswith("--metric must be one of 'cpu_util', ")
    assert str(err.value).endswith(
        "or an alias such as cpu_pct, mem_used_mb, iops, net_kbps. Got 'watts' "
        "instead."
    )
    with pytest.raises(ConfigError) as err:
        read_wide(DATA / "wide_epoch.csv", unit="MB")
    assert str(err.value) == (
        "--unit must be % or fraction for --metric cpu_util (assumed without "
        "--metric). Got 'MB' instead."
    )
    with pytest.raises(InputError) as err:
        read_wide(DATA / "wide_epoch.csv", timestamp_col="time")
    assert err.value.problems == [
        "wide_epoch.csv: expected a time column 'time', got 'epoch', 'vm1', 'vm2'."
    ]
    dup = _write(
        tmp_path,
        "dup.csv",
        "time,a,a,\n2024-05-01T00:00Z,1,2,3\n2024-05-01T00:05Z,oops,2,3\n",
    )
    with pytest.raises(InputError) as err:
        read_wide(dup)
    assert err.value.problems == [
        "dup.csv: server 'a' has two columns (2 and 3).",
        "dup.csv: expected a server name in header column 4.",
    ]
    only_time = _write(tmp_path, "t.csv", "time\n2024-05-01T00:00Z\n")
    with pytest.raises(InputError, match="one column per server"):
        read_wide(only_time)
    bad = _write(tmp_path, "bad.csv", "time,a\n2024-05-01T00:00Z,1\nnoon,x\n")
    with pytest.raises(InputError) as err:
        read_wide(bad)
    assert err.value.problems == [
        "bad.csv line 3, column 'time': expected an ISO 8601 time such as "
        "2024-05-01T10:00:00Z or Unix seconds/milliseconds, got 'noon'.",
        "bad.csv line 3, column 'a': expected a non-negative number, got 'x'.",
    ]
