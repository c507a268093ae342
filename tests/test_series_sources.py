"""load_series: stores or files in a named format, merged with duplicates reported."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

from vsizer.errors import ConfigError, SeriesError
from vsizer.series import read_node_exporter, read_planetlab, read_query_range
from vsizer.series.sources import FORMATS, load_series, plan_reads
from vsizer.series.store import SeriesStore

pytest.importorskip("pyarrow")

PROM = Path(__file__).parent / "data" / "series" / "prometheus"
WEB01 = [PROM / f"web01_{x}.prom" for x in "abcd"]


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def two_longs(tmp_path):
    a = write(
        tmp_path / "a.csv",
        "server,timestamp,metric,value,unit\n"
        "web01,2024-05-01T00:00:00Z,cpu_util,0.25,fraction\n"
        "web01,2024-05-01T00:05:00Z,cpu_util,0.5,fraction\n",
    )
    b = write(
        tmp_path / "b.csv",
        "server,timestamp,metric,value,unit\n"
        "web01,2024-05-01T00:05:00Z,cpu_util,0.625,fraction\n"
        "db01,2024-05-01T00:05:00Z,cpu_util,0.125,fraction\n",
    )
    return a, b


def test_formats_are_the_contract_names():
    assert list(FORMATS) == [
        "sar",
        "perfmon",
        "prometheus",
        "long",
        "wide",
        "planetlab",
        "bitbrains",
        "alibaba",
        "gcd",
        "azure",  # issue 15
    ]


def test_files_in_a_format_are_merged_and_duplicates_kept_and_reported(two_longs):
    got = load_series(two_longs, "long")
    assert got.source_format == "long"
    rows = got.data[["server", "value"]].values.tolist()
    assert rows == [["db01", 0.125], ["web01", 0.25], ["web01", 0.5], ["web01", 0.625]]
    dup = [i for i in got.quality.issues if i["kind"] == "duplicate"]
    assert dup == [
        {
            "server": "web01",
            "kind": "duplicate",
            "count": 1,
            "detail": f"1 cpu_util sample time(s) stored more than once (in "
            f"{two_longs[0]}, {two_longs[1]}); all rows kept",
        }
    ]


def test_one_source_is_returned_as_read(two_longs):
    got = load_series([two_longs[0]], "long")
    assert got.source == str(two_longs[0])
    assert got.data.value.tolist() == [0.25, 0.5]
    assert load_series(two_longs[0], "long").data.value.tolist() == [0.25, 0.5]


def test_stores_without_format(tmp_path, two_longs):
    s1 = SeriesStore.create(tmp_path / "s1")
    s1.append(load_series([two_longs[0]], "long"))
    s2 = SeriesStore.create(tmp_path / "s2")
    s2.append(load_series([two_longs[1]], "long"))
    got = load_series([s1.path, s2.path])
    assert len(got.data) == 4
    assert [i["kind"] for i in got.quality.issues] == ["duplicate"]
    only = load_series([s1.path, s2.path], servers=["db01"], metrics=["cpu_util"])
    assert only.data.value.tolist() == [0.125]
    assert len(load_series([s1.path], "store").data) == 2


def test_source_that_is_not_a_store_says_to_give_a_format(tmp_path, two_longs):
    with pytest.raises(SeriesError) as e:
        load_series([two_longs[0], tmp_path / "missing"])
    assert e.value.problems == [
        f"{two_longs[0]} is not a vsizer series store (no vsizer-store.json); give "
        "--series-format sar|perfmon|prometheus|long|wide|planetlab|bitbrains|alibaba|gcd|azure",
        f"{tmp_path / 'missing'}: no such series store or file",
    ]


def test_option_and_format_errors(tmp_path, two_longs):
    with pytest.raises(
        ConfigError, match=r"Unknown series format 'csv'; expected one of sar, perfmon"
    ):
        load_series(two_longs, "csv")
    with pytest.raises(ConfigError) as e:
        load_series(two_longs, "long", metric="cpu_util", step="5min")
    assert str(e.value) == (
        "--metric, --series-step do not apply to series format 'long'; it "
        "accepts: --tz."
    )
    with pytest.raises(ConfigError) as e:
        load_series(two_longs, "bitbrains", tz="UTC")
    assert str(e.value) == (
        "--tz does not apply to series format 'bitbrains'; it accepts: none of the "
        "reader flags."
    )
    # None values are ignored (the CLI passes every option)
    assert len(load_series(two_longs, "long", tz=None).data) == 4
    with pytest.raises(ConfigError) as e:
        load_series([tmp_path], tz="UTC")
    assert str(e.value) == (
        "--tz applies to series files, not to a series store; give "
        "--series-format, or leave it out."
    )
    with pytest.raises(SeriesError, match=r"nope.csv: no such file or folder"):
        load_series([tmp_path / "nope.csv"], "long")
    with pytest.raises(ConfigError, match="No series source given"):
        load_series([], "long")


def test_prometheus_scrapes_are_read_together_and_json_by_content(tmp_path):
    folder = tmp_path / "scrapes"
    folder.mkdir()
    for f in WEB01:
        (folder / f.name).write_bytes(f.read_bytes())
    reads = plan_reads(
        [folder, PROM / "query_range_cpu.json"], "prometheus", metric="cpu_util"
    )
    assert [r.label for r in reads] == [
        str(PROM / "query_range_cpu.json"),
        f"{folder}/ (4 scrapes)",
    ]
    direct = read_node_exporter(WEB01, metrics=["cpu_util"])
    via = load_series([folder], "prometheus", metric="cpu_util")
    assert_frame_equal(via.data, direct.data)
    q = load_series([PROM / "query_range_cpu.json"], "prometheus", metric="cpu_util")
    assert_frame_equal(
        q.data, read_query_range(PROM / "query_range_cpu.json", metric="cpu_util").data
    )
    with pytest.raises(
        ConfigError,
        match=r"query_range_cpu.json: a Prometheus query_range response holds one metric; say which with --metric",
    ):
        load_series([PROM / "query_range_cpu.json"], "prometheus")


@pytest.mark.slow
def test_planetlab_day_round_trips_through_the_store(shared_data, tmp_path):
    day = shared_data / "planetlab_cloudsim" / "20110303"
    direct = read_planetlab(day)
    store = SeriesStore.create(tmp_path / "st")
    (read,) = plan_reads([day], "planetlab")
    info = store.append(read.run())
    assert info.rows == len(direct.data) == 302976
    assert len(info.servers) == 1052
    back = load_series([store.path])
    assert_frame_equal(back.data, direct.data)
    # half a day of three VMs, read with filters
    vms = sorted(direct.data.server.unique())[:3]
    part = load_series(
        [store.path], servers=vms, start="2011-03-03T00:00Z", end="2011-03-03T12:00Z"
    )
    assert len(part.data) == 3 * 144
    assert part.data.timestamp.max() == pd.Timestamp("2011-03-03T11:55Z")
