"""Series store: Parquet parts, idempotent appends, filters, journals, damage."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import numpy as np
import pandas as pd
import pytest

from vsizer.errors import ConfigError, SeriesError
from vsizer.series._journal import JournalWriter, read_journal
from vsizer.series.model import SeriesQuality, SeriesSet
from vsizer.series.store import STORE_MARKER, SeriesStore

pq = pytest.importorskip("pyarrow.parquet")

T0 = pd.Timestamp("2024-05-01T00:00:00Z")


def tidy(rows: list[tuple[str, str, str, float]]) -> pd.DataFrame:
    """rows: (server, time offset like '5min', metric, value)."""
    units = {"cpu_util": "fraction", "mem_used_gib": "GiB", "disk_iops": "IOPS"}
    return pd.DataFrame(
        {
            "server": [r[0] for r in rows],
            "timestamp": [T0 + pd.Timedelta(r[1]) for r in rows],
            "metric": [r[2] for r in rows],
            "value": [r[3] for r in rows],
            "unit": [units[r[2]] for r in rows],
        }
    )


ROWS = [
    ("web01", "0min", "cpu_util", 0.125),
    ("web01", "5min", "cpu_util", 0.5),
    ("web01", "10min", "cpu_util", 0.875),
    ("web01", "0min", "mem_used_gib", 3.25),
    ("db01", "0min", "cpu_util", 0.0625),
    ("db01", "5min", "disk_iops", 1234.5),
]


def series(rows=ROWS, source="fleet.csv", fmt="long") -> SeriesSet:
    q = SeriesQuality()
    q.add("web01", "gap", 1, "1 step missing after 2024-05-01T00:10:00Z")
    q.add("db01", "unit_guess", 1, "percent guessed")
    q.note("times given with offsets")
    return SeriesSet(tidy(rows), q, source, fmt, {"interval_s": 300})


def test_round_trip_keeps_exact_values_and_dtypes(tmp_path):
    store = SeriesStore.create(tmp_path / "st")
    info = store.append(series())
    assert info.created and info.rows == 6
    assert info.servers == ("db01", "web01")
    assert info.metrics == ("cpu_util", "disk_iops", "mem_used_gib")
    assert info.start == T0 and info.end == T0 + pd.Timedelta("10min")
    back = SeriesStore.open(tmp_path / "st").read()
    assert back.source_format == "store"
    assert [str(t) for t in back.data.dtypes] == [
        "string",
        "datetime64[ns, UTC]",
        "string",
        "float64",
        "string",
    ]
    got = sorted(
        (r.server, r.timestamp, r.metric, r.value, r.unit)
        for r in back.data.itertuples()
    )
    want = sorted(
        (r.server, r.timestamp, r.metric, r.value, r.unit)
        for r in tidy(ROWS).itertuples()
    )
    assert got == want
    # quality travels with the part
    assert {i["kind"] for i in back.quality.issues} == {"gap", "unit_guess"}
    assert back.quality.notes == ["times given with offsets"]
    # one zstd Parquet part, self-describing
    (part,) = store.part_paths()
    assert part.name == info.name and part.name.startswith("long-")
    meta = pq.ParquetFile(part).metadata
    assert meta.row_group(0).column(0).compression == "ZSTD"
    doc = json.loads(meta.metadata[b"vsizer"])
    assert doc["source"] == "fleet.csv" and doc["rows"] == 6
    assert doc["metadata"] == {"interval_s": 300}


def test_reimporting_the_same_content_stores_nothing_new(tmp_path):
    store = SeriesStore.create(tmp_path / "st")
    first = store.append(series())
    # same rows in another order, from another path: same content
    again = store.append(series(rows=list(reversed(ROWS)), source="copy/fleet.csv"))
    assert not again.created and again.name == first.name
    assert len(store.part_paths()) == 1
    assert len(store.read().data) == 6
    # one changed value is new content
    changed = [*ROWS[:-1], ("db01", "5min", "disk_iops", 1234.25)]
    assert store.append(series(rows=changed)).created
    assert len(store.part_paths()) == 2


def test_duplicates_across_parts_are_kept_and_reported(tmp_path):
    store = SeriesStore.create(tmp_path / "st")
    store.append(series())
    store.append(
        series(
            rows=[
                ("web01", "5min", "cpu_util", 0.55),
                ("web01", "15min", "cpu_util", 1),
            ],
            source="b.csv",
        )
    )
    back = store.read()
    web = back.data[(back.data.server == "web01") & (back.data.metric == "cpu_util")]
    assert sorted(web.value) == [0.125, 0.5, 0.55, 0.875, 1.0]
    (dup,) = [i for i in back.quality.issues if i["kind"] == "duplicate"]
    assert dup["server"] == "web01" and dup["count"] == 1
    assert "1 cpu_util sample time(s) stored more than once" in dup["detail"]
    assert "all rows kept" in dup["detail"]


def test_filters_servers_metrics_and_half_open_time_window(tmp_path):
    store = SeriesStore.create(tmp_path / "st")
    store.append(series())
    got = store.read(
        servers=["web01"],
        metrics=["cpu_util"],
        start="2024-05-01T00:05",  # naive = UTC
        end=T0 + pd.Timedelta("10min"),  # excluded
    )
    assert got.data[["server", "metric", "value"]].values.tolist() == [
        ["web01", "cpu_util", 0.5]
    ]
    # quality is filtered to the servers read
    assert {i["server"] for i in got.quality.issues} == {"web01"}
    assert store.read(servers=["nobody"]).data.empty


def test_filter_errors_name_the_parameter(tmp_path):
    store = SeriesStore.create(tmp_path / "st")
    with pytest.raises(ConfigError, match="'metrics' parameter .* Got 'cpu' instead"):
        store.read(metrics=["cpu"])
    with pytest.raises(ConfigError, match="'start' parameter .* Got 'yesterday'"):
        store.read(start="yesterday")


def test_summary_per_server_and_metric(tmp_path):
    store = SeriesStore.create(tmp_path / "st")
    store.append(series())
    s = store.summary()
    row = s[(s.server == "web01") & (s.metric == "cpu_util")].iloc[0]
    assert (row.rows, row.steps, row.step_s) == (3, 3, 300.0)
    assert row.start == T0 and row.end == T0 + pd.Timedelta("10min")
    assert s.attrs == {"parts": 1, "journals": 0, "rows": 6, "issues": 2}


def test_store_is_read_while_a_journal_is_open_and_sealing_is_idempotent(tmp_path):
    store = SeriesStore.create(tmp_path / "st")
    store.append(series())
    path = store.journal_dir / "web01-20240501T000000000000Z-1.jsonl"
    w = JournalWriter(path, "web01", 300)
    w.append(datetime(2024, 5, 1, 0, 20, tzinfo=UTC), {"cpu_util": 0.25})
    w.append(datetime(2024, 5, 1, 0, 25, tzinfo=UTC), {"cpu_util": 0.75})
    live = store.read(servers=["web01"], metrics=["cpu_util"])
    assert live.data.value.tolist() == [0.125, 0.5, 0.875, 0.25, 0.75]
    assert live.metadata["open_journals"] == [path.name]
    # a live (locked) journal is not sealed by another process's recovery
    assert store.seal_stale_journals() == []
    assert path.exists()
    w.close()
    (info,) = store.seal_stale_journals()
    assert info.sealed_from == path.name and info.rows == 2
    assert not path.exists()
    # a crash between rename and unlink: the same journal again -> same part, removed
    path.write_bytes(
        b'{"vsizer_journal":1,"server":"web01","interval_s":300}\n'
        b'{"time":"2024-05-01T00:20:00.000000Z","cpu_util":0.25}\n'
        b'{"time":"2024-05-01T00:25:00.000000Z","cpu_util":0.75}\n'
    )
    again = store.seal_journal(path)
    assert again is not None and again.name == info.name and not again.created
    assert not path.exists()
    assert store.read(servers=["web01"], metrics=["cpu_util"]).data.value.tolist() == [
        0.125,
        0.5,
        0.875,
        0.25,
        0.75,
    ]


def test_journal_torn_last_line_and_bad_lines_are_dropped_and_counted(tmp_path):
    path = tmp_path / "j.jsonl"
    path.write_bytes(
        b'{"vsizer_journal":1,"server":"s1","interval_s":30}\n'
        b'{"time":"2024-05-01T00:00:30.000000Z","cpu_util":0.5,"net_mbps":12.5}\n'
        b"garbage\n"
        b'{"time":"2024-05-01T00:01:00.000000Z","cpu_util":0.25}\n'
        b'{"time":"2024-05-01T00:01:30.0000'
    )
    j = read_journal(path, label="journal/j.jsonl")
    assert (j.samples, j.torn, j.bad_lines) == (2, 1, 1)
    d = j.series.data
    assert d[d.metric == "cpu_util"].value.tolist() == [0.5, 0.25]
    assert d[d.metric == "net_mbps"].unit.tolist() == ["Mbit/s"]
    details = [i["detail"] for i in j.series.quality.issues]
    assert details == [
        "journal/j.jsonl: torn last line dropped (the sample being written when the "
        "collector stopped, or still being written)",
        "journal/j.jsonl: 1 unreadable line(s) dropped, first at line 3",
    ]


def test_journal_without_header_is_an_error(tmp_path):
    store = SeriesStore.create(tmp_path / "st")
    (store.journal_dir / "x.jsonl").write_text('{"time": "2024-05-01T00:00Z"}\n')
    with pytest.raises(
        SeriesError, match=r"journal/x.jsonl line 1: expected a vsizer journal header"
    ):
        store.read()


def test_empty_journal_is_removed_on_sealing(tmp_path):
    store = SeriesStore.create(tmp_path / "st")
    path = store.journal_dir / "a.jsonl"
    JournalWriter(path, "a", 30).close()
    assert store.seal_journal(path) is None and not path.exists()


def test_open_errors_name_the_directory(tmp_path):
    with pytest.raises(SeriesError, match=r"nope: no such series store"):
        SeriesStore.open(tmp_path / "nope")
    foreign = tmp_path / "photos"
    foreign.mkdir()
    (foreign / "cat.jpg").write_bytes(b"\xff\xd8")
    with pytest.raises(
        SeriesError,
        match=r"photos is not a vsizer series store \(no vsizer-store.json\)$",
    ):
        SeriesStore.open(foreign)
    with pytest.raises(
        SeriesError,
        match=r"photos is not a vsizer series store .* not empty \(cat.jpg\); give a new or empty directory",
    ):
        SeriesStore.create(foreign)
    (tmp_path / "file").write_text("x")
    with pytest.raises(
        SeriesError, match="file is a file, not a series store directory"
    ):
        SeriesStore.create(tmp_path / "file")


def test_damaged_marker_and_newer_version(tmp_path):
    store = SeriesStore.create(tmp_path / "st")
    marker = store.path / STORE_MARKER
    marker.write_text("{not json")
    with pytest.raises(
        SeriesError, match="vsizer-store.json: expected a JSON object with"
    ):
        SeriesStore.open(store.path)
    marker.write_text('{"format": "vsizer-series-store", "version": 9}')
    with pytest.raises(
        SeriesError, match="store format version 9; this vsizer reads version 1"
    ):
        SeriesStore.open(store.path)


def test_damaged_and_foreign_parts_are_all_named(tmp_path):
    store = SeriesStore.create(tmp_path / "st")
    store.append(series())
    (store.parts_dir / "broken.parquet").write_bytes(b"PAR1 not really")
    pq.write_table(
        __import__("pyarrow").table({"x": [1]}), store.parts_dir / "other.parquet"
    )
    with pytest.raises(SeriesError) as e:
        store.read()
    assert len(e.value.problems) == 2
    assert "broken.parquet: not a readable Parquet part (" in e.value.problems[0]
    assert (
        "other.parquet: a Parquet file without vsizer metadata" in e.value.problems[1]
    )


def test_temporary_files_are_ignored_and_dead_ones_removed(tmp_path):
    store = SeriesStore.create(tmp_path / "st")
    store.append(series())
    dead = store.parts_dir / ".tmp-long-x.parquet-999999999"
    dead.write_bytes(b"half")
    assert len(store.read().data) == 6
    store.seal_stale_journals()
    assert not dead.exists()


def test_append_rejects_bad_frames(tmp_path):
    store = SeriesStore.create(tmp_path / "st")
    bad = tidy(ROWS)
    bad.loc[0, "unit"] = "%"
    bad.loc[1, "metric"] = "cpu_pct"
    with pytest.raises(SeriesError) as e:
        store.append(SeriesSet(bad, SeriesQuality(), "x.csv", "long"))
    assert e.value.problems == [
        "x.csv: unknown metric(s) cpu_pct; expected one of cpu_util, cpu_mhz, "
        "cpu_capacity_mhz, mem_used_gib, mem_util, mem_capacity_gib, disk_iops, "
        "disk_mb_s, net_mbps",
        "x.csv: metric cpu_util must be in fraction, got unit '%'",
    ]
    with pytest.raises(SeriesError, match="x.csv: no samples to store"):
        store.append(SeriesSet(tidy(ROWS).iloc[:0], SeriesQuality(), "x.csv", "long"))
    with pytest.raises(SeriesError, match="x.csv: expected columns .* missing unit"):
        store.append(
            SeriesSet(tidy(ROWS).drop(columns="unit"), SeriesQuality(), "x.csv", "long")
        )


def test_parts_are_readable_without_vsizer(tmp_path):
    store = SeriesStore.create(tmp_path / "st")
    store.append(series())
    frame = pd.read_parquet(store.parts_dir)
    assert len(frame) == 6
    assert np.isclose(frame[frame.metric == "disk_iops"].value.iloc[0], 1234.5)


def test_doc_describes_the_layout_and_every_collected_metric():
    from pathlib import Path

    from vsizer.series.collect import Reading as R
    from vsizer.series.collect import rates

    doc = (Path(__file__).parents[1] / "docs" / "series-store.md").read_text("utf-8")
    for name in (STORE_MARKER, "parts/", "journal/", "sealed_from", "flock"):
        assert name in doc, name
    full = rates(
        R(0, 10, 5, {"sda": (0, 0)}, {"eth0": 0}, 8, 4),
        R(1, 20, 10, {"sda": (1, 1)}, {"eth0": 1}, 8, 4),
    )
    for metric in full:
        assert f"| `{metric}` [" in doc, metric
