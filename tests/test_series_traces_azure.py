"""Azure Public Dataset reader: hand-computed binning, chunked == unchunked, CSV ==
Parquet, the tidy align path on the real V2 sample, engines, vmtable buckets,
every error message, hostile inputs.

Real sample: tests/data/series/traces/azure (20 VMs of the V2 trace; README there).
"""

from __future__ import annotations

import gzip
import random
import shutil
import tempfile
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fuzz.mutate import FAMILIES
from vsizer.errors import ConfigError, SeriesError
from vsizer.series.align import align
from vsizer.series.traces._azure_files import FileTask, bin_readings_file
from vsizer.series.traces.azure import (
    AZURE_READINGS_COLUMNS,
    AZURE_VMTABLE_COLUMNS,
    read_azure,
    read_azure_series,
)

SAMPLE = Path(__file__).parent / "data" / "series" / "traces" / "azure"
FILE1 = SAMPLE / "vm_cpu_readings-file-1-of-195.csv.gz"
T = TypeVar("T")
R = TypeVar("R")

#: vmtable rows: a (2 cores, 4 GB), b (>24 cores, >64 GB), z (no readings).
VMTABLE = (
    "a,s1,d1,0,2591400,90.0,10.0,50.0,Interactive,2,4\n"
    "b,s1,d1,0,2591400,90.0,10.0,50.0,Delay-insensitive,>24,>64\n"
    "z,s2,d2,0,600,1.0,1.0,1.0,Unknown,8,32\n"
)


def _write(folder: Path, readings: str, vmtable: str | None = VMTABLE) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "vm_cpu_readings-file-1-of-1.csv").write_text(readings)
    if vmtable is not None:
        (folder / "vmtable.csv").write_text(vmtable)
    return folder


def _to_parquet(src: Path, dst: Path, row_group: int | None = None) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    frame = pd.read_csv(src, header=None, names=list(AZURE_READINGS_COLUMNS))
    table = pa.Table.from_pandas(frame, preserve_index=False)
    pq.write_table(table, dst, row_group_size=row_group)
    return dst


def test_hand_computed_binning_on_a_10_minute_grid(tmp_path: Path) -> None:
    # a: 10 % at 0 s and 20 % at 300 s -> step 0 mean 15 %; 40 % at 600 s -> step 1.
    # b: an empty avgcpu at 0 s (dropped), 120 % at 600 s (clipped to 100 %),
    #    and 600 s again at 50 % (3 readings in a 2-slot step: 1 duplicate).
    folder = _write(
        tmp_path / "t",
        "0,a,1,12,10\n300,a,1,30,20\n600,a,1,50,40\n"
        "0,b,0,0,\n600,b,90,130,120\n600,b,40,60,50\n900,b,1,1,50\n",
    )
    aligned, quality, meta = read_azure(folder, step="10min")
    assert aligned.servers == ["a", "b"]
    assert aligned.values["cpu_util"].dtype == np.float32
    np.testing.assert_allclose(
        aligned.values["cpu_util"], [[0.15, 0.40], [np.nan, (100 + 50 + 50) / 300]], rtol=1e-6
    )
    assert aligned.step == pd.Timedelta("10min")
    assert str(aligned.index[0]) == "1970-01-01 00:00:00+00:00"
    issues = {(i["server"], i["kind"]): i["count"] for i in quality.issues}
    assert issues == {("b", "dropped"): 1, ("b", "clipped"): 1, ("b", "duplicate"): 1}
    assert meta["rows"] == 7 and meta["grid_step_s"] == 600
    assert aligned.report["gaps"] == {"cpu_util": 1}
    assert meta["machines"]["b"] == {
        "cpu_count": 30, "mem_gib": 70.0, "vm_category": "Delay-insensitive",
        "core_bucket": ">24", "memory_bucket": ">64",
    }  # fmt: skip
    assert meta["machines"]["a"]["cpu_count"] == 2 and meta["machines"]["a"]["mem_gib"] == 4.0
    assert [a["count"] for a in meta["assumptions"]] == [1, 1]
    assert any(n.startswith("Assumption: 1 VM(s) in the open bucket vmcorecountbucket '>24' sized 30 cores") for n in quality.notes)
    assert meta["vmtable_rows_without_readings"] == 1  # z
    assert any("1 VM(s) have no reading" in n for n in quality.notes)


def test_max_within_step_and_max_reading(tmp_path: Path) -> None:
    folder = _write(tmp_path / "t", "0,a,1,12,10\n300,a,1,30,20\n", vmtable=None)
    by_max, _, _ = read_azure(folder, step="10min", how="max")
    assert by_max.values["cpu_util"][0, 0] == pytest.approx(0.20)
    peak, quality, meta = read_azure(folder, step="5min", cpu="max")
    np.testing.assert_allclose(peak.values["cpu_util"], [[0.12, 0.30]], rtol=1e-6)
    assert "machines" not in meta
    assert any("No vmtable file was given" in n for n in quality.notes)


def test_vms_filter_and_start(tmp_path: Path) -> None:
    folder = _write(tmp_path / "t", "0,a,1,12,10\n0,b,1,12,30\n")
    aligned, quality, meta = read_azure(folder, vms=["b"], start="2019-01-01T00:00:00Z")
    assert aligned.servers == ["b"]
    assert str(aligned.index[0]) == "2019-01-01 00:00:00+00:00"
    assert meta["start_is_real_date"] is True


def test_real_sample_equals_the_tidy_align_path() -> None:
    aligned, quality, meta = read_azure(SAMPLE)
    frames = [
        pd.read_csv(f, header=None, names=list(AZURE_READINGS_COLUMNS))
        for f in sorted(SAMPLE.glob("vm_cpu_readings*"))
    ]
    raw = pd.concat(frames)
    tidy = pd.DataFrame({
        "server": raw["vmid"], "timestamp": pd.to_datetime(raw["timestamp"], unit="s", utc=True),
        "metric": "cpu_util", "value": raw["avgcpu"] / 100.0, "unit": "fraction",
    })  # fmt: skip
    old = align(tidy, step="5min")
    assert aligned.servers == old.servers
    assert (aligned.index == old.index).all()
    np.testing.assert_allclose(aligned.values["cpu_util"], old.values["cpu_util"], rtol=2e-6)
    assert aligned.report["gaps"] == old.report["gaps"] == {"cpu_util": 67}
    # Published V2 figures of these 20 VMs: 2 cores x 4 GB is the common size.
    assert meta["rows"] == len(raw) == 8853
    assert len(meta["machines"]) == 20
    assert sum(i["count"] for i in quality.issues if i["kind"] == "gap") == 67
    assert not [i for i in quality.issues if i["kind"] == "duplicate"]


def test_chunked_equals_unchunked_csv_and_parquet(tmp_path: Path) -> None:
    whole = bin_readings_file(FileTask(str(FILE1), "f", 0, 300))
    small = bin_readings_file(FileTask(str(FILE1), "f", 0, 300, block_bytes=4096))
    pq_file = _to_parquet(FILE1, tmp_path / "vm_cpu_readings-1.parquet", row_group=333)
    batched = bin_readings_file(FileTask(str(pq_file), "f", 0, 300, batch_rows=100))
    for other in (small, batched):
        assert other.grid.names == whole.grid.names
        assert other.grid.bin0 == whole.grid.bin0
        np.testing.assert_array_equal(other.grid.trimmed("counts"), whole.grid.trimmed("counts"))
        np.testing.assert_allclose(other.grid.trimmed("sums"), whole.grid.trimmed("sums"), rtol=1e-6)
    assert whole.rows == small.rows == batched.rows == 4442


def test_parquet_folder_equals_csv_folder(tmp_path: Path) -> None:
    folder = tmp_path / "pq"
    folder.mkdir()
    for f in sorted(SAMPLE.glob("vm_cpu_readings*")):
        _to_parquet(f, folder / f.name.replace(".csv.gz", ".parquet"))
    shutil.copy(SAMPLE / "vmtable.csv", folder / "vmtable.csv")
    a, _, _ = read_azure(SAMPLE)
    b, _, meta = read_azure(folder)
    np.testing.assert_array_equal(a.values["cpu_util"], b.values["cpu_util"])
    assert meta["files"] == [
        "vm_cpu_readings-file-1-of-195.parquet", "vm_cpu_readings-file-2-of-195.parquet"
    ]


class _PoolEngine:
    """A two-process engine (the Engine protocol) to check pickling and order."""

    name = "pool"
    workers = 2

    def map(self, fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
        with ProcessPoolExecutor(2) as pool:
            return list(pool.map(fn, items))

    def close(self) -> None:
        return None

    def __enter__(self) -> _PoolEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


def test_two_worker_engine_gives_the_same_series() -> None:
    a, qa, _ = read_azure(SAMPLE)
    b, qb, meta = read_azure(SAMPLE, engine=_PoolEngine())  # type: ignore[arg-type]
    np.testing.assert_array_equal(a.values["cpu_util"], b.values["cpu_util"])
    assert qa.issues == qb.issues and qa.notes == qb.notes
    assert meta["workers"] == 2 and len(meta["worker_maxrss_kib"]) == 2


def test_boundary_time_split_over_two_files_is_no_duplicate() -> None:
    # 66,600 s: 18 VMs in file 1 and the other 2 in file 2 (README).
    aligned, quality, _ = read_azure(SAMPLE)
    col = int((pd.Timestamp(66_600, unit="s", tz="UTC") - aligned.index[0]) / aligned.step)
    assert int(np.isfinite(aligned.values["cpu_util"][:, col]).sum()) == 20


def test_header_line_is_skipped(tmp_path: Path) -> None:
    folder = _write(tmp_path / "t", "timestamp,vm_id,min_cpu,max_cpu,avg_cpu\n0,a,1,2,3\n", None)
    aligned, quality, _ = read_azure(folder)
    assert aligned.values["cpu_util"][0, 0] == pytest.approx(0.03)
    assert "A header line (timestamp, vmid, ...) was skipped." in quality.notes


def _message(paths: Any, **kw: Any) -> str:
    with pytest.raises(SeriesError) as err:
        read_azure(paths, **kw)
    return str(err.value)


def test_bad_cells_are_all_listed_one_line_each(tmp_path: Path) -> None:
    folder = _write(
        tmp_path / "t",
        "0,a,1,2,3\nx,a,1,2,3\n300,,1,2,3\n600,a,1,2,abc\n900,a,1,2\n",
        "a,s,d,0,1,1,1,1,Interactive,two,4\n",
    )
    text = _message(folder)
    f = "vm_cpu_readings-file-1-of-1.csv"
    assert (
        f"{f} line 5: expected 5 comma-separated fields (timestamp, vmid, mincpu, ...), "
        "got '900,a,1,2'."
    ) in text
    # the block with the short line is not parsed: fix it and the cells show.
    (folder / f).write_text("0,a,1,2,3\nx,a,1,2,3\n300,,1,2,3\n600,a,1,2,abc\n")
    text = _message(folder)
    assert (
        f"{f} line 2, column 'timestamp': expected a time in seconds from the trace start "
        "(0 to 315,360,000), got 'x'."
    ) in text
    assert f"{f} line 3, column 'vmid': expected a VM id, got ''." in text
    assert (
        f"{f} line 4, column 'avgcpu': expected a CPU utilization in percent (0-100) "
        "or an empty cell, got 'abc'."
    ) in text


def test_bad_vmtable_bucket(tmp_path: Path) -> None:
    folder = _write(tmp_path / "t", "0,a,1,2,3\n", "a,s,d,0,1,1,1,1,Interactive,two,>128\n")
    text = _message(folder)
    assert (
        "vmtable.csv line 1, column 'vmcorecountbucket': expected a core-count bucket "
        "(2, 4, 8, 24, >24 or a whole number above 0), got 'two'."
    ) in text
    assert "column 'vmmemorybucket': expected a memory bucket in GB" in text
    assert "got '>128'." in text


def test_parquet_problems(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = tmp_path / "t"
    folder.mkdir()
    pq.write_table(pa.table({"timestamp": [0, 300], "vmid": ["a", None], "avgcpu": ["5", "x"]}),
                   folder / "vm_cpu_readings-1.parquet")
    pq.write_table(pa.table({"timestamp": [0], "vm": ["a"]}), folder / "vm_cpu_readings-2.parquet")
    pq.write_table(pa.table({"timestamp": [0], "vmid": ["a"], "avgcpu": [True]}),
                   folder / "vm_cpu_readings-3.parquet")
    (folder / "vm_cpu_readings-4.parquet").write_bytes(b"PAR1 not really")
    text = _message(folder)
    assert "vm_cpu_readings-1.parquet row 2, column 'vmid': expected a VM id, got ''." in text
    assert (
        "vm_cpu_readings-1.parquet row 2, column 'avgcpu': expected a CPU utilization "
        "in percent (0-100) or an empty cell, got 'x'."
    ) in text
    assert (
        "vm_cpu_readings-2.parquet: expected Parquet columns timestamp, vmid, avgcpu, "
        "found timestamp, vm (missing vmid, avgcpu)."
    ) in text
    assert "vm_cpu_readings-3.parquet: column 'avgcpu': expected a CPU utilization" in text
    assert "found type bool." in text
    assert "vm_cpu_readings-4.parquet: cannot read the file as Parquet:" in text


def test_inputs_problems(tmp_path: Path) -> None:
    assert f"{tmp_path / 'nope'}: no such file or folder." in _message(tmp_path / "nope")
    folder = tmp_path / "t"
    folder.mkdir()
    (folder / "notes.txt").write_text("x")
    assert "expected vm_cpu_readings files (Azure Public Dataset), found notes.txt." in _message(folder)
    _write(folder, "0,a,1,2,3\n")
    (folder / "vmtable2.csv").write_text(VMTABLE)
    assert "vmtable2.csv: expected one vmtable file, found vmtable2.csv, vmtable.csv." in _message(folder)
    assert "expected vm_cpu_readings files (Azure Public Dataset), found vmtable.csv." in _message(
        folder / "vmtable.csv"
    )
    empty = _write(tmp_path / "e", "\n\n", None)
    assert "vm_cpu_readings-file-1-of-1.csv: expected readings rows, got none." in _message(empty)


@pytest.mark.parametrize(
    ("kw", "text"),
    [
        ({"step": "0s"}, "The 'step' parameter of read_azure must be a positive whole number"),
        ({"step": "1.5s"}, "Got '1.5s' instead."),
        ({"how": "sum"}, "The 'how' parameter of read_azure"),
        ({"cpu": "min"}, "The 'cpu' parameter of read_azure"),
        ({"start": "someday"}, "--start: expected an ISO 8601 time"),
    ],
)
def test_option_errors(kw: dict[str, Any], text: str) -> None:
    with pytest.raises(ConfigError, match=None) as err:
        read_azure(SAMPLE, **kw)
    assert text in str(err.value)


def test_series_set_adapter_matches() -> None:
    sset = read_azure_series(SAMPLE)
    aligned, _, _ = read_azure(SAMPLE)
    assert sset.source_format == "azure"
    # Column-wise: the plan bins the columns, no tidy frame is built for it.
    assert sset.columns is not None and sset._data is None
    direct = sset.columns.align(step="5min", how="mean")
    np.testing.assert_array_equal(
        direct.values["cpu_util"], aligned.values["cpu_util"].astype(np.float64)
    )
    assert sset._data is None
    assert len(sset.data) == int(np.isfinite(aligned.values["cpu_util"]).sum())
    again = align(sset.data)
    np.testing.assert_allclose(again.values["cpu_util"], aligned.values["cpu_util"], rtol=1e-6)


def test_vmtable_columns_match_the_schema() -> None:
    assert AZURE_VMTABLE_COLUMNS[-2:] == ("vmcorecountbucket", "vmmemorybucket")
    assert AZURE_READINGS_COLUMNS == ("timestamp", "vmid", "mincpu", "maxcpu", "avgcpu")


_SEED = gzip.decompress(FILE1.read_bytes()).split(b"\n")
_SMALL_SEED = b"\n".join(_SEED[:60]) + b"\n"


@settings(max_examples=40, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(family=st.sampled_from(sorted(f for f in FAMILIES if f != "xlsx_member")),
       rnd=st.randoms(use_true_random=False))
def test_hostile_inputs_end_in_series_or_a_clean_error(family: str, rnd: random.Random) -> None:
    data = FAMILIES[family](_SMALL_SEED, "text", rnd)
    with tempfile.TemporaryDirectory(prefix="vsizer-azure-fuzz-") as tmp:
        folder = Path(tmp)
        (folder / "vm_cpu_readings-file-1-of-1.csv").write_bytes(data)
        shutil.copy(SAMPLE / "vmtable.csv", folder / "vmtable.csv")
        try:
            aligned, _, _ = read_azure(folder)
        except (SeriesError, ConfigError) as exc:
            assert str(exc).strip()
            return
    mat = aligned.values["cpu_util"]
    finite = mat[np.isfinite(mat)]
    assert ((finite >= 0) & (finite <= 1)).all()
    assert len(aligned.servers) == mat.shape[0]


def test_far_timestamps_and_huge_grids_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _write(tmp_path / "t", "0,a,1,2,3\n1e20,a,1,2,3\n-300,a,1,2,3\n", None)
    text = _message(folder)
    assert "line 2, column 'timestamp': expected a time in seconds from the trace start (0 to 315,360,000), got '1e20'." in text
    assert "line 3, column 'timestamp'" in text and "got '-300'." in text
    from vsizer.series.traces import _azure_grid

    monkeypatch.setattr(_azure_grid, "MAX_GRID_CELLS", 100)
    big = _write(tmp_path / "b", "0,a,1,2,3\n86400,a,1,2,3\n", None)
    assert (
        "vm_cpu_readings-file-1-of-1.csv: the readings of 1 VM(s) span 289 steps: 289 cells, "
        "over the limit of 100; give a coarser --step, fewer VMs, or check the timestamps."
    ) in _message(big)


def test_plan_without_inventory_takes_memory_from_the_vmtable() -> None:
    import vsizer

    sset = read_azure_series(SAMPLE)
    machines = sset.metadata["machines"]
    plan = vsizer.plan(series=sset, vm_cpu_mhz=2400)
    servers = plan.servers.set_index("name")
    for name, size in machines.items():
        assert float(servers.loc[name, "mem_gib"]) == size["mem_gib"]
        assert int(servers.loc[name, "cores_per_socket"]) == size["cpu_count"]
    first = next(iter(machines))
    assert plan.quality.entries[first]["mem_gib"] == (
        "given", "the series' machine list (Azure vmtable memory bucket)"
    )
    # --vm-mem-gib still overrides, and is then an assumption.
    plan = vsizer.plan(series=read_azure_series(SAMPLE), vm_cpu_mhz=2400, vm_mem_gib=3)
    assert set(plan.servers["mem_gib"].astype(float)) == {3.0}
    assert plan.quality.entries[first]["mem_gib"] == ("assumed", "--vm-mem-gib 3")
