"""Two-column Google cluster-derived VM traces (``--format gcd``) and the flood cap.

Files are hand-made after the published ones (GCD_VMs.tar.gz of
github.com/HiPro-IT/CPU-and-Memory-resource-usage-from-Google-Cluster-Data:
files named ``vm_<job>_<n>``, no suffix, 288 lines "CPU% MEM%" with float
noise; memory up to 215 % in 12 of 1,600 files).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from typer.testing import CliRunner

from vsizer.cli import app
from vsizer.errors import InputError
from vsizer.series import load_series
from vsizer.series.model import SERIES_COLUMNS
from vsizer.series.traces import GCD_START, read_gcd, read_planetlab

runner = CliRunner()


def _values(result, server: str, metric: str) -> np.ndarray:
    d = result.data
    return d.loc[(d["server"] == server) & (d["metric"] == metric), "value"].to_numpy()


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "GCD_VMs"
    folder.mkdir()
    (folder / "vm_5544436380_8").write_text(
        "58.713 10.115200000000002\n58.282999999999994 10.1457\n58.169 10.1326\n"
    )
    # Memory above 100 % (as in the published files), tab-separated, no final newline.
    (folder / "vm_6233569879_4.txt").write_text(
        "7.0\t101.5\n6.5\t215.31365140000008\n8 99"
    )
    (folder / ".hidden").write_text("not read\n")
    return folder


def test_gcd_folder_values_times_and_quality(tmp_path):
    result = read_gcd(_folder(tmp_path))
    data = result.data
    assert tuple(data.columns) == SERIES_COLUMNS
    assert str(data["timestamp"].dtype) == "datetime64[ns, UTC]"
    assert data["server"].dtype == pd.StringDtype()
    resorted = data.sort_values(["server", "metric", "timestamp"], ignore_index=True)
    pd.testing.assert_frame_equal(data, resorted)
    assert result.source_format == "gcd"
    assert sorted(set(result.data["server"])) == ["vm_5544436380_8", "vm_6233569879_4"]
    assert_allclose(
        _values(result, "vm_5544436380_8", "cpu_util"), [0.58713, 0.58283, 0.58169]
    )
    assert_allclose(
        _values(result, "vm_5544436380_8", "mem_util"), [0.101152, 0.101457, 0.101326]
    )
    # 101.5 and 215.3 % clipped to 1.0 and counted; the server name drops ".txt".
    assert_allclose(_values(result, "vm_6233569879_4", "mem_util"), [1.0, 1.0, 0.99])
    assert_allclose(_values(result, "vm_6233569879_4", "cpu_util"), [0.07, 0.065, 0.08])
    assert result.quality.issues == [
        {
            "server": "vm_6233569879_4",
            "kind": "clipped",
            "count": 2,
            "detail": "memory % above 100 set to 100 %",
        }
    ]
    stamps = result.data.loc[
        (result.data["server"] == "vm_5544436380_8")
        & (result.data["metric"] == "cpu_util"),
        "timestamp",
    ]
    assert list(stamps) == [
        pd.Timestamp("2011-05-01T23:00:00Z"),
        pd.Timestamp("2011-05-01T23:05:00Z"),
        pd.Timestamp("2011-05-01T23:10:00Z"),
    ]
    assert result.metadata == {
        "start": "2011-05-01T23:00:00+00:00",
        "start_from": "default",
        "step_s": 300,
        "files": 2,
        "values_per_file": [3],
    }
    notes = result.quality.notes
    assert notes[0] == (
        "2 of 2 files do not hold 288 lines (24 hours at 5-minute steps); read as they are."
    )
    assert notes[1].startswith(
        "gcd files carry no times: line i is placed at 2011-05-01T23:00:00+00:00 + "
        "i x 5 min for every file (the start of Google's clusterdata-2011-2 trace"
    )
    assert GCD_START == "2011-05-01T23:00:00Z"


def test_gcd_one_day_file_with_start_and_gz(tmp_path):
    rows = "".join(f"{i % 90 + 5}.5 {i % 7 + 10}\n" for i in range(288))
    with gzip.open(tmp_path / "vm_1.gz", "wt") as fh:
        fh.write(rows)
    result = read_gcd(tmp_path / "vm_1.gz", start="2026-01-05T09:00:00+09:00")
    assert set(result.data["server"]) == {"vm_1"}
    cpu = _values(result, "vm_1", "cpu_util")
    assert len(cpu) == 288
    assert cpu[0] == pytest.approx(0.055) and cpu[287] == pytest.approx(
        0.225
    )  # 287 % 90 + 5.5 = 22.5
    assert result.data["timestamp"].iloc[0] == pd.Timestamp("2026-01-05T00:00:00Z")
    assert result.data["timestamp"].iloc[287] == pd.Timestamp("2026-01-05T23:55:00Z")
    assert result.metadata["start_from"] == "--start"
    assert result.metadata["values_per_file"] == [288]
    assert result.quality.notes == [
        "gcd files carry no times: line i is placed at 2026-01-05T00:00:00+00:00 + "
        "i x 5 min for every file (--start)."
    ]


def test_gcd_bad_lines_and_files(tmp_path):
    (tmp_path / "vm_a").write_text("10 20\n10\n10 20 30\nx 5\n-1 3\n")
    (tmp_path / "vm_b").write_text("")
    with pytest.raises(InputError) as err:
        read_gcd(tmp_path)
    what = "two numbers separated by white space (CPU % and memory %), each 0 or more"
    assert err.value.problems == [
        f"vm_a line 2: expected {what}, got '10'.",
        f"vm_a line 3: expected {what}, got '10 20 30'.",
        f"vm_a line 4: expected {what}, got 'x 5'.",
        f"vm_a line 5: expected {what}, got '-1 3'.",
        "vm_b: expected 288 lines of 'CPU% memory%', got an empty file.",
    ]


def test_gcd_folder_errors(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(InputError, match=r"^empty: expected gcd trace files"):
        read_gcd(empty)
    with pytest.raises(InputError, match=r"no such file or folder\.$"):
        read_gcd(tmp_path / "missing")
    twice = tmp_path / "twice"
    twice.mkdir()
    (twice / "vm_1").write_text("1 2\n")
    (twice / "vm_1.txt").write_text("1 2\n")
    with pytest.raises(
        InputError, match=r"^vm_1.txt: server 'vm_1' is also read from vm_1\.$"
    ):
        read_gcd(twice)
    with pytest.raises(
        InputError,
        match=r"^--start: expected an ISO 8601 time such as 2011-05-01T23:00:00Z, "
        r"got 'monday'\.$",
    ):
        read_gcd(twice / "vm_1", start="monday")


def test_planetlab_files_read_as_gcd_get_a_hint(tmp_path):
    (tmp_path / "vm").write_text("12\n15\n")
    with pytest.raises(InputError) as err:
        read_gcd(tmp_path / "vm")
    assert err.value.problems[-1] == (
        "hint: the lines look like the PlanetLab format (one whole CPU % per line): "
        "use --format planetlab (--series-format planetlab for vsizer plan)."
    )
    assert len(err.value.problems) == 3


def _gcd_day_folder(tmp_path: Path, n_files: int) -> Path:
    """n_files gcd files of 288 lines under a PlanetLab-style day folder."""
    folder = tmp_path / "20110501"
    folder.mkdir()
    day = "".join(f"{20 + i % 30}.25 {30 + i % 11}.5\n" for i in range(288))
    for k in range(n_files):
        (folder / f"vm_{k:04d}").write_text(day)
    return folder


def test_gcd_folder_as_planetlab_is_capped_with_a_hint(tmp_path):
    # 60 files x 288 lines = 17,280 bad lines: 20 shown, one summary, one hint.
    folder = _gcd_day_folder(tmp_path, 60)
    with pytest.raises(InputError) as err:
        read_planetlab(folder)
    lines = err.value.problems
    assert len(lines) == 22
    assert lines[0] == (
        "vm_0000 line 1: expected a whole-number CPU percentage 0-100, got '20.25 30.5'."
    )
    assert lines[19].startswith("vm_0000 line 20: ")
    assert lines[20] == (
        "vm_0000: … and 17,260 more like it (expected a whole-number CPU percentage "
        "0-100) in 60 files."
    )
    assert lines[21] == (
        "hint: the files look like the two-column gcd format (CPU % and memory % per "
        "5-minute line): use --format gcd (--series-format gcd for vsizer plan)."
    )
    assert str(err.value).count("\n") == 21


def test_gcd_is_a_series_format_for_plans(tmp_path):
    got = load_series([_folder(tmp_path)], "gcd")
    assert got.source_format == "gcd"
    assert sorted(set(got.data["metric"])) == ["cpu_util", "mem_util"]
    (tmp_path / "x").mkdir()
    got = load_series([_folder(tmp_path / "x")], "gcd", start="2026-01-01")
    assert got.metadata["start"] == "2026-01-01T00:00:00+00:00"


def test_cli_import_gcd_and_capped_planetlab_error(tmp_path):
    pytest.importorskip("pyarrow")
    folder = _gcd_day_folder(tmp_path, 30)
    r = runner.invoke(
        app,
        [
            "import",
            str(folder),
            "--format",
            "planetlab",
            "--store",
            str(tmp_path / "s"),
        ],
        env={"COLUMNS": "250"},
    )
    assert r.exit_code == 2
    errors = [ln for ln in r.output.splitlines() if ln.startswith("error: ")]
    assert len(errors) == 22
    assert errors[20] == (
        "error: vm_0000: … and 8,620 more like it (expected a whole-number CPU "
        "percentage 0-100) in 30 files."
    )
    assert "use --format gcd" in errors[21]
    ok = runner.invoke(
        app,
        ["import", str(folder), "--format", "gcd", "--store", str(tmp_path / "s")],
        env={"COLUMNS": "250"},
    )
    assert ok.exit_code == 0, ok.output
    assert "cpu_util, mem_util" in ok.output


def test_gcd_rows_in_server_order_when_suffixes_reorder_names(tmp_path):
    # File order: "x-y" < "x.txt"; server order: "x" < "x-y".
    (tmp_path / "x.txt").write_text("10 20\n")
    (tmp_path / "x-y").write_text("30 40\n")
    data = read_gcd(tmp_path).data
    assert list(data["server"]) == ["x", "x", "x-y", "x-y"]
    assert list(data["metric"]) == ["cpu_util", "mem_util"] * 2
    assert_allclose(data["value"], [0.1, 0.2, 0.3, 0.4])


def test_cli_plan_on_a_gcd_folder(tmp_path):
    out = tmp_path / "plan.json"
    r = runner.invoke(
        app,
        [
            "plan",
            "--series",
            str(_folder(tmp_path)),
            "--series-format",
            "gcd",
            "--vm-cpu-mhz",
            "2000",
            "--vm-mem-gib",
            "4",
            "-o",
            str(out),
        ],
        env={"COLUMNS": "250"},
    )
    assert r.exit_code == 0, r.output
    doc = json.loads(out.read_text())
    vm = {s["name"]: s for s in doc["servers"]}["vm_5544436380_8"]
    assert (vm["cpu_mhz"], vm["cores_per_socket"], vm["mem_gib"]) == (2000.0, 1, 4.0)
    assert vm["cpu_peak_util"] == pytest.approx(0.58713)
    assert vm["cpu_avg_util"] == pytest.approx((0.58713 + 0.58283 + 0.58169) / 3)
