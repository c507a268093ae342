"""The column-wise series path (issue 15, item 1): readers and the store give the
same aligned matrices, report and notes as the tidy path, without a tidy frame."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import vsizer
from vsizer.cli import app
from vsizer.series.align import AlignedSeries, align, step_mismatch_notes
from vsizer.series.columnar import SampleColumns, ServerSamples
from vsizer.series.grid import GridAccumulator
from vsizer.series.model import SeriesQuality, SeriesSet
from vsizer.series.sources import load_series
from vsizer.series.store import SeriesStore
from vsizer.series.traces import read_bitbrains, read_planetlab
from vsizer.study.config import Rules
from vsizer.study.series_match import align_for_plan

DATA = Path(__file__).parent / "data" / "series" / "traces"
HEADER = (
    "Timestamp [ms];\tCPU cores;\tCPU capacity provisioned [MHZ];\tCPU usage [MHZ];\t"
    "CPU usage [%];\tMemory capacity provisioned [KB];\tMemory usage [KB];\t"
    "Disk read throughput [KB/s];\tDisk write throughput [KB/s];\t"
    "Network received throughput [KB/s];\tNetwork transmitted throughput [KB/s]"
)
T0 = 1377993600  # 2013-09-01T00:00:00Z, Unix seconds as the trace writes them


def write_vm(folder: Path, name: str, seconds: list[int], cpu_pct: list[float]) -> None:
    lines = [HEADER]
    for t, pct in zip(seconds, cpu_pct, strict=True):
        lines.append(
            f"{t};\t4;\t10400.0;\t{pct * 104.0};\t{pct};\t16777216.0;\t"
            f"{4194304.0 + pct * 1000};\t{pct};\t1.5;\t{pct * 3};\t2.0"
        )
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.csv").write_text("\n".join(lines) + "\n")


@pytest.fixture
def jittered(tmp_path: Path) -> Path:
    """Three VMs sampled every 131-300 s with jitter, starting at different times:
    several samples share a grid step, spans differ, one VM has a gap."""
    rng = np.random.default_rng(7)
    folder = tmp_path / "bb"
    for k, (start, step, n) in enumerate([(0, 300, 60), (3_000, 131, 150), (600, 277, 70)]):
        t = T0 + start + np.cumsum(rng.integers(step - 20, step + 20, size=n))
        if k == 2:
            t[30:] += 7_200  # a two-hour gap
        write_vm(folder, f"vm{k}", t.tolist(), rng.uniform(0, 115, size=n).round(2).tolist())
    return folder


def assert_same(new: AlignedSeries, old: AlignedSeries, rtol: float = 0.0) -> None:
    assert new.servers == old.servers
    assert new.index.equals(old.index)
    assert new.step == old.step
    assert new.overlap == old.overlap
    assert new.units == old.units
    assert new.report == old.report
    assert list(new.values) == list(old.values)
    for m, mat in old.values.items():
        assert new.values[m].dtype == np.float64
        if rtol:
            np.testing.assert_allclose(new.values[m], mat, rtol=rtol, err_msg=m)
        else:
            np.testing.assert_array_equal(new.values[m], mat, err_msg=m)  # bit for bit


@pytest.mark.parametrize("step", ["5min", "7min", "1h"])
@pytest.mark.parametrize("how", ["mean", "max"])
def test_bitbrains_columns_align_as_the_tidy_path(jittered: Path, step: str, how: str) -> None:
    s = read_bitbrains(jittered)
    assert s.columns is not None and s._data is None  # no tidy frame was built
    assert_same(s.columns.align(step=step, how=how), align(s.data, step=step, how=how))


@pytest.mark.parametrize("fill,clip", [("ffill", "none"), ("none", "overlap"), ("ffill", "overlap")])
def test_gap_fill_and_overlap_as_the_tidy_path(jittered: Path, fill: str, clip: str) -> None:
    s = read_bitbrains(jittered)
    kw = {"step": "5min", "fill": fill, "clip": clip, "max_fill": 30}
    new, old = s.columns.align(**kw), align(s.data, **kw)
    assert_same(new, old)
    if fill == "ffill":
        assert sum(new.report["filled"].values()) > 0


def test_hand_computed_step_mean_and_max(tmp_path: Path) -> None:
    # 3 samples in the step 00:00-00:05 (10, 20, 60 %), 1 in the next (40 %)
    write_vm(tmp_path / "bb", "a", [T0, T0 + 60, T0 + 120, T0 + 300], [10.0, 20.0, 60.0, 40.0])
    cols = read_bitbrains(tmp_path / "bb").columns
    mean = cols.align(step="5min", how="mean").values["cpu_util"]
    peak = cols.align(step="5min", how="max").values["cpu_util"]
    np.testing.assert_allclose(mean, [[0.3, 0.4]])
    np.testing.assert_allclose(peak, [[0.6, 0.4]])


def test_bundled_quirks_and_planetlab_samples() -> None:
    s = read_bitbrains(DATA / "bitbrains" / "quirks.csv")
    assert_same(s.columns.align(step="5min"), align(s.data, step="5min"))
    p = read_planetlab(DATA / "planetlab" / "20110101")
    assert p.columns is not None
    assert_same(p.columns.align(step="5min"), align(p.data, step="5min"))
    assert_same(p.columns.align(step="1h", how="max"), align(p.data, step="1h", how="max"))


def test_step_notes_and_quality_as_the_tidy_path(jittered: Path) -> None:
    s = read_bitbrains(jittered)
    for step in ("1s", "5min", "2h"):
        assert s.columns.step_notes(step) == step_mismatch_notes(s.data, step)
    notes = s.columns.step_notes("1s")
    assert len(notes) == 3 and notes[0].startswith("1 server(s) (vm1) are sampled every 132 s")
    tidy_set = read_bitbrains(jittered)
    tidy_set.data = tidy_set.data  # drop the columns: the tidy path
    rules = Rules()
    align_for_plan(tidy_set, rules)
    col_set = read_bitbrains(jittered)
    align_for_plan(col_set, rules)
    assert col_set.quality.issues == tidy_set.quality.issues
    assert col_set.quality.notes == tidy_set.quality.notes
    assert col_set._data is None


def test_float32_on_request(jittered: Path) -> None:
    s = read_bitbrains(jittered)
    new = s.columns.align(step="5min", dtype=np.float32)
    old = align(s.data, step="5min")
    for m, mat in old.values.items():
        assert new.values[m].dtype == np.float32
        np.testing.assert_allclose(new.values[m], mat, rtol=1e-6)


def test_merged_sources_stay_columnar(tmp_path: Path) -> None:
    write_vm(tmp_path / "a", "vm1", [T0, T0 + 300], [10.0, 20.0])
    write_vm(tmp_path / "b", "vm2", [T0 + 300, T0 + 600], [30.0, 40.0])
    merged = load_series([tmp_path / "a", tmp_path / "b"], "bitbrains")
    assert isinstance(merged.columns, SampleColumns)
    assert merged.columns.servers == ["vm1", "vm2"]
    assert_same(merged.columns.align(), align(merged.data))
    # one server in both sources: the tidy path, which reports the duplicates
    write_vm(tmp_path / "c", "vm1", [T0, T0 + 900], [50.0, 60.0])
    both = load_series([tmp_path / "a", tmp_path / "c"], "bitbrains")
    assert both.columns is None
    assert [i["kind"] for i in both.quality.issues] == ["duplicate"] * 7  # T0, 7 metrics


def test_plan_numbers_unchanged_and_no_tidy_frame(jittered: Path) -> None:
    col = read_bitbrains(jittered)
    tidy = read_bitbrains(jittered)
    tidy.data = tidy.data
    a = vsizer.plan(series=col).to_dict()
    b = vsizer.plan(series=tidy).to_dict()
    assert a == b
    assert col._data is None


def test_study_from_prebuilt_aligned_builds_no_tidy_frame(jittered: Path) -> None:
    from vsizer.study.core import ConsolidationStudy, _plan_inventory, resolve_host

    s = read_bitbrains(jittered)
    aligned = s.columns.align(step="5min", dtype=np.float32)
    holder = SeriesSet(None, s.quality, "prebuilt", "bitbrains", s.metadata)
    rules = Rules()
    inv = _plan_inventory(None, holder, aligned, rules)
    host, name = resolve_host(None, rules.host_model)
    plan = ConsolidationStudy(
        inv, host, rules, host_catalog_name=name, series=holder, aligned=aligned
    ).run()
    doc = plan.to_dict()
    assert doc["summary"]["hosts"] >= 1
    assert holder._data is None


def test_accumulator_errors() -> None:
    acc = GridAccumulator(["a"], ["cpu_util"], {"cpu_util": "fraction"}, 0, 4)
    with pytest.raises(ValueError, match="^align got no samples$"):
        acc.finish()
    with pytest.raises(ValueError, match=r"^series of a \(cpu_util\) fall outside the grid"):
        acc.add_block("a", ("cpu_util",), np.array([0, 300 * 10**9 * 5]), np.array([[0.1, 0.2]]))
    cols = SampleColumns(
        [
            ServerSamples("a", np.array([0]), ("cpu_util",), np.array([[0.1]])),
            ServerSamples("b", np.array([3 * 10**12]), ("cpu_util",), np.array([[0.2]])),
        ]
    )
    with pytest.raises(ValueError, match="share no common window; cannot clip to overlap"):
        cols.align(clip="overlap")
    with pytest.raises(ValueError, match="'step' parameter of align must be positive"):
        cols.align(step="0s")
    with pytest.raises(ValueError, match="a server appears twice"):
        SampleColumns([cols.samples[0], cols.samples[0]])


# -- the store -----------------------------------------------------------------


def store_of(tmp_path: Path, src: SeriesSet, part_rows: int) -> SeriesStore:
    st = SeriesStore.create(tmp_path / "store")
    st.append_split(src, part_rows=part_rows)
    return st


def test_import_split_into_parts_and_reimport_is_a_no_op(jittered: Path, tmp_path: Path) -> None:
    src = read_bitbrains(jittered)
    st = SeriesStore.create(tmp_path / "store")
    infos = st.append_split(src, part_rows=900)
    assert [len(i.servers) for i in infos] == [1, 1, 1]  # each VM ~ 60-150 rows x 7
    assert sum(i.rows for i in infos) == src.columns.rows
    assert [i["server"] for i in infos[1].quality.issues] == ["vm1"] * len(infos[1].quality.issues)
    again = st.append_split(read_bitbrains(jittered), part_rows=900)
    assert [i.created for i in again] == [False, False, False]
    assert [i.name for i in again] == [i.name for i in infos]


@pytest.mark.parametrize("how", ["mean", "max"])
def test_store_streams_onto_the_grid_as_the_tidy_path(jittered: Path, tmp_path: Path, how: str) -> None:
    st = store_of(tmp_path, read_bitbrains(jittered), part_rows=900)
    s = st.read()
    assert s._data is None
    assert_same(s.columns.align(step="5min", how=how), align(s.data, step="5min", how=how))
    assert s.columns.step_notes("1s") == step_mismatch_notes(s.data, "1s")
    f = st.read(servers=["vm1", "vm2"], metrics=["cpu_util", "mem_used_gib"],
                start="2013-09-01T01:00Z", end="2013-09-01T05:00Z")  # fmt: skip
    assert_same(f.columns.align(step="10min", how=how), align(f.data, step="10min", how=how))


def test_store_duplicates_found_from_footers(jittered: Path, tmp_path: Path) -> None:
    st = store_of(tmp_path, read_bitbrains(jittered), part_rows=900)
    # vm1 again, from another copy of the same file with a changed last line
    copy = tmp_path / "copy"
    copy.mkdir()
    text = (jittered / "vm1.csv").read_text().splitlines()
    text[-1] = text[-1].replace(";\t4;\t", ";\t4;\t", 1)[:-3] + "9.0"
    (copy / "vm1.csv").write_text("\n".join(text) + "\n")
    st.append(read_bitbrains(copy))
    s = st.read()
    dup = [i for i in s.quality.issues if i["kind"] == "duplicate" and "stored more" in i["detail"]]
    assert len(dup) == 7 and {i["server"] for i in dup} == {"vm1"}
    assert {i["count"] for i in dup} == {150}
    # the tidy path's report, from every row
    from vsizer.series.store_read import (
        Gathered,
        StoreQuery,
        read_parts,
        report_duplicates,
    )

    got = Gathered()
    read_parts(st._part_entries(), StoreQuery.of(None, None, None, None), got)
    from vsizer.series.store_read import concat_frames

    ref = SeriesQuality()
    report_duplicates(concat_frames(got.frames), got.frames, got.labels, ref)
    assert dup == ref.issues
    # a step fed from two parts: sums added across parts (to the last bit)
    assert_same(s.columns.align(), align(s.data), rtol=1e-14)


def test_compaction_keeps_rows_quality_and_numbers(jittered: Path, tmp_path: Path) -> None:
    st = store_of(tmp_path, read_bitbrains(jittered), part_rows=900)
    write_vm(tmp_path / "more", "vm1", [T0 + 60, T0 + 360], [1.0, 2.0])  # duplicate-free extra rows
    st.append(read_bitbrains(tmp_path / "more"))
    before = st.read()
    a_before = before.columns.align(step="5min")
    issues_before = sorted(map(str, before.quality.issues))
    old_parts = {p.name for p in st.part_paths()}
    keep = tmp_path / "keep.parquet"
    shutil.copy(sorted(st.part_paths())[0], keep)
    rep = st.compact(target_rows=10_000)
    assert (rep.parts_before, rep.parts_after) == (4, 1)
    (merged, names), = rep.merged
    assert merged.startswith("compact-") and set(names) == old_parts
    after = st.read()
    assert_same(after.columns.align(step="5min"), a_before)
    assert sorted(map(str, after.quality.issues)) == issues_before
    assert after.quality.notes == before.quality.notes
    # a crash before the merged parts were removed: the leftover is not read twice
    shutil.copy(keep, st.parts_dir / sorted(old_parts)[0])
    assert_same(st.read().columns.align(step="5min"), a_before)
    again = st.compact(target_rows=10_000)
    assert again.removed_leftovers == [sorted(old_parts)[0]] and again.merged == []
    assert again.parts_after == 1


def test_compact_command(jittered: Path, tmp_path: Path) -> None:
    store_of(tmp_path, read_bitbrains(jittered), part_rows=900)
    res = CliRunner().invoke(app, ["series", "compact", str(tmp_path / "store")])
    assert res.exit_code == 0, res.output
    assert "3 parts merged" in res.output and "3 part(s) before, 1 after" in res.output
    res = CliRunner().invoke(app, ["series", "compact", str(tmp_path / "nope")])
    assert res.exit_code != 0
    assert "no such series store" in res.output


def test_plan_via_store_equals_plan_via_files(jittered: Path, tmp_path: Path) -> None:
    st = store_of(tmp_path, read_bitbrains(jittered), part_rows=900)
    a = vsizer.plan(series=read_bitbrains(jittered)).to_dict()
    b = vsizer.plan(series=load_series([st.path])).to_dict()
    assert a["summary"] == b["summary"]
    assert a["servers"] == b["servers"]
    assert pd.Series([len(a["warnings"])]).equals(pd.Series([len(b["warnings"])]))
