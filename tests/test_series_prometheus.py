"""node_exporter scrapes and Prometheus query_range responses."""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from vsizer.errors import ConfigError, InputError, SeriesError
from vsizer.series.model import SERIES_COLUMNS
from vsizer.series.prometheus import read_node_exporter, read_query_range

DATA = Path(__file__).parent / "data" / "series" / "prometheus"
WEB01 = [DATA / f"web01_{x}.prom" for x in "abcd"]
GIB = 2.0**30
T0 = "2024-05-01T00:00:00Z"
T1 = "2024-05-01T00:01:00Z"


def _e2e(shared_data: Path) -> Path:
    return (
        shared_data
        / "formats"
        / "prometheus_node_exporter"
        / "node_exporter_e2e-output_linux.txt"
    )


def _check_contract(data: pd.DataFrame) -> None:
    assert tuple(data.columns) == SERIES_COLUMNS
    assert str(data["timestamp"].dtype) == "datetime64[ns, UTC]"
    for col in ("server", "metric", "unit"):
        assert data[col].dtype == pd.StringDtype()
    assert data["value"].dtype == np.float64
    resorted = data.sort_values(["server", "metric", "timestamp"], ignore_index=True)
    pd.testing.assert_frame_equal(data, resorted)


def _values(result, metric: str, server: str | None = None) -> np.ndarray:
    d = result.data
    mask = d["metric"] == metric
    if server is not None:
        mask &= d["server"] == server
    return d.loc[mask, "value"].to_numpy()


def _times(result, metric: str) -> list[pd.Timestamp]:
    return list(result.data.loc[result.data["metric"] == metric, "timestamp"])


# ------------------------------------------------------------ node_exporter


def test_real_single_scrape_needs_two_for_rates(shared_data):
    with pytest.raises(SeriesError) as err:
        read_node_exporter([_e2e(shared_data)], server="e2e")
    assert err.value.problems == [
        "node_exporter_e2e-output_linux.txt: needs two or more scrapes to compute "
        "rates (cpu_util, disk_iops, disk_mb_s, net_mbps); got 1 scrape of server "
        "'e2e'. Give --metric mem_used_gib (or mem_capacity_gib) to read a gauge only."
    ]


def test_real_single_scrape_gauges(shared_data):
    result = read_node_exporter(
        _e2e(shared_data),
        server="e2e",
        timestamps=[T0],
        metrics=["mem_used_gib", "mem_capacity_gib"],
    )
    _check_contract(result.data)
    # From the file: MemTotal 3.831959552e+09; no MemAvailable, so used =
    # MemTotal - (MemFree 2.30883328e+08 + Buffers 2.256896e+07
    # + Cached 9.53229312e+08 + SReclaimable 4.5846528e+07).
    used = 3.831959552e09 - (2.30883328e08 + 2.256896e07 + 9.53229312e08 + 4.5846528e07)
    assert_allclose(_values(result, "mem_capacity_gib"), [3.831959552e09 / GIB])
    assert_allclose(_values(result, "mem_used_gib"), [used / GIB])
    assert _times(result, "mem_used_gib") == [pd.Timestamp(T0)]
    assert result.metadata["scrapes"][0]["time_from"] == "argument"
    assert result.quality.notes == [
        "e2e: no node_memory_MemAvailable_bytes in 1 of 1 scrapes; used memory there "
        "= MemTotal - (MemFree + Buffers + Cached + SReclaimable)."
    ]


def test_real_scrape_and_edited_second_scrape(shared_data):
    # The second file repeats the e2e counters with hand edits, 60 s later
    # (see its header): idle +30 s on cpu 0 and +57 s on cpus 1-7; sda and
    # dm-0 reads +1200, writes +1800, bytes read +6e7, written +1.2e8;
    # mmcblk0p1 reads +5; MemFree -1e8 bytes.
    result = read_node_exporter(
        [DATA / "node_exporter_e2e_edited_plus60s.txt", _e2e(shared_data)],
        server="e2e",
        timestamps=[T1, T0],
    )
    _check_contract(result.data)
    assert_allclose(
        _values(result, "cpu_util"), [1 - (30 + 7 * 57) / (60 * 8)], rtol=1e-9
    )
    # dm-0 (stacked on sda) and the partition mmcblk0p1 are left out.
    assert_allclose(_values(result, "disk_iops"), [(1200 + 1800) / 60], rtol=1e-12)
    assert_allclose(
        _values(result, "disk_mb_s"), [(6e7 + 1.2e8) / 60 / 1e6], rtol=1e-12
    )
    assert _times(result, "cpu_util") == [pd.Timestamp(T1)]
    used0 = 3.831959552e09 - (
        2.30883328e08 + 2.256896e07 + 9.53229312e08 + 4.5846528e07
    )
    assert_allclose(_values(result, "mem_used_gib"), [used0 / GIB, (used0 + 1e8) / GIB])
    assert "net_mbps" not in set(result.data["metric"])  # no byte counters in e2e
    assert result.metadata["servers"]["e2e"] == {
        "cpus": 8,
        "disk_devices": ["mmcblk0", "nvme0n1", "sda", "sdb", "sdc", "vda"],
        "net_devices": [],
    }
    assert (
        "e2e: no net_mbps for 1 of 1 intervals (the counters are missing from one "
        "of the two scrapes, or every device is excluded)."
    ) in result.quality.notes


def test_hand_made_scrapes_rates_and_restart():
    result = read_node_exporter(list(reversed(WEB01)))  # any order
    _check_contract(result.data)
    assert set(result.data["server"]) == {"web01"}  # node_uname_info nodename
    # a -> b (60 s): idle +45 s and +15 s of 2 x 60 s -> 0.5 busy; reads +600,
    # writes +1200 -> 30 IOPS; +3e7 and +9e7 bytes -> 2 MB/s; eth0 +7.5e7 and
    # +1.5e7 bytes -> 12 Mbit/s (lo left out). b -> c: reboot, no rates.
    # c -> d (60 s): idle +54 s twice -> 0.1; 120 I/Os -> 2 IOPS; 9e6 bytes ->
    # 0.15 MB/s; 1.5e7 bytes -> 2 Mbit/s.
    assert_allclose(_values(result, "cpu_util"), [0.5, 0.1])
    assert_allclose(_values(result, "disk_iops"), [30.0, 2.0])
    assert_allclose(_values(result, "disk_mb_s"), [2.0, 0.15])
    assert_allclose(_values(result, "net_mbps"), [12.0, 2.0])
    assert_allclose(_values(result, "mem_used_gib"), [4.0, 6.0, 2.0, 2.0])
    assert_allclose(_values(result, "mem_capacity_gib"), [8.0] * 4)
    assert _times(result, "cpu_util") == [
        pd.Timestamp("2024-05-01T10:01:00Z"),
        pd.Timestamp("2024-05-01T10:03:00Z"),
    ]
    assert result.quality.issues == [
        {
            "server": "web01",
            "kind": "restart",
            "count": 1,
            "detail": "no rates for the intervals web01_b.prom -> web01_c.prom "
            "(boot time changed)",
        }
    ]
    assert result.metadata["servers"]["web01"] == {
        "cpus": 2,
        "disk_devices": ["sda"],
        "net_devices": ["eth0"],
    }
    assert {s["time_from"] for s in result.metadata["scrapes"]} == {
        "scrape_time comment"
    }
    assert result.metadata["step_s"] == 60.0


def _copy(src: Path, dst: Path, *edits: tuple[str, str]) -> Path:
    text = src.read_text()
    for old, new in edits:
        assert old in text
        text = text.replace(old, new)
    dst.write_text(text)
    return dst


def test_counter_reset_without_boot_time(tmp_path):
    a = _copy(WEB01[2], tmp_path / "a.prom", ("10:02:00Z", "10:02:00Z"))
    b = _copy(
        WEB01[3],
        tmp_path / "b.prom",
        ('{device="eth0"} 1.6e+07', '{device="eth0"} 5e+05'),  # went down
    )
    result = read_node_exporter([a, b])
    assert result.quality.issues[0]["kind"] == "restart"
    assert result.quality.issues[0]["detail"] == (
        "no rates for the intervals a.prom -> b.prom (a counter went down)"
    )
    assert "cpu_util" not in set(result.data["metric"])  # no negative, no partial


def test_scrape_time_sources(tmp_path):
    no_comment = ("# scrape_time 2024-05-01T10:00:00Z\n", "")
    a = _copy(WEB01[0], tmp_path / "a.prom", no_comment)
    b = _copy(
        WEB01[1],
        tmp_path / "b.prom",
        ("# scrape_time 2024-05-01T10:01:00Z\n", ""),
        (
            "node_boot_time_seconds 1714500000",
            "node_time_seconds 1714557660.5\nnode_boot_time_seconds 1714500000",
        ),
    )
    os.utime(a, (1714557600, 1714557600))
    result = read_node_exporter([a, b])
    scrapes = {s["file"]: s for s in result.metadata["scrapes"]}
    assert scrapes["a.prom"]["time_from"] == "file time"
    assert scrapes["a.prom"]["time"] == "2024-05-01T10:00:00+00:00"
    assert scrapes["b.prom"]["time_from"] == "node_time_seconds"
    assert scrapes["b.prom"]["time"] == "2024-05-01T10:01:00.500000+00:00"
    assert result.quality.notes[0] == (
        "scrape time taken from the file modification time (no timestamps argument, "
        "'# scrape_time' comment or node_time_seconds): a.prom"
    )
    # 60.5 s instead of 60 s: idle 60 s of 121 cpu-s.
    assert_allclose(_values(result, "cpu_util"), [1 - 60 / 121])
    # Unix seconds in the comment and the argument work too.
    c = _copy(WEB01[0], tmp_path / "c.prom", ("2024-05-01T10:00:00Z", "1714557600"))
    got = read_node_exporter([c, WEB01[1]])
    assert got.metadata["scrapes"][0]["time"] == "2024-05-01T10:00:00+00:00"
    got = read_node_exporter(WEB01[:2], timestamps=[1714557600, 1714557630])
    assert_allclose(_values(got, "disk_iops"), [60.0])


def test_cpu_clipped_and_custom_excludes(tmp_path):
    # Scrape times 20 s apart while the counters moved 60 s: idle 60 of 40 cpu-s.
    result = read_node_exporter(
        WEB01[:2],
        timestamps=[T0, "2024-05-01T00:00:20Z"],
        disk_exclude=r"^sda\d+$",
        net_exclude=r"^$",
    )
    assert_allclose(_values(result, "cpu_util"), [0.0])
    assert result.quality.issues == [
        {
            "server": "web01",
            "kind": "clipped",
            "count": 1,
            "detail": "cpu_util outside [0, 1] clipped",
        }
    ]
    # dm-0 and lo now counted: twice the I/O and twice the traffic, per 20 s.
    assert_allclose(_values(result, "disk_iops"), [2 * 1800 / 20])
    assert_allclose(_values(result, "net_mbps"), [2 * 9e7 * 8 / 20 / 1e6])
    assert result.metadata["servers"]["web01"]["net_devices"] == ["eth0", "lo"]


def test_node_exporter_bad_input(tmp_path):
    bad = _copy(
        WEB01[1],
        tmp_path / "bad.prom",
        ('{cpu="1",mode="idle"} 1015', '{cpu="1",mode="idle"} lots'),
        (
            'node_disk_reads_completed_total{device="sda"}',
            "node_disk_reads_completed_total{device=sda}",
        ),
    )
    with pytest.raises(SeriesError) as err:
        read_node_exporter([WEB01[0], bad])
    assert err.value.problems == [
        "bad.prom line 11: expected a sample such as "
        'node_cpu_seconds_total{cpu="0",mode="idle"} 123.4, got '
        '\'node_cpu_seconds_total{cpu="1",mode="idle"} lots\'.',
        "bad.prom line 16: expected a sample such as "
        'node_cpu_seconds_total{cpu="0",mode="idle"} 123.4, got '
        "'node_disk_reads_completed_total{device=sda} 1600'.",
    ]
    nameless = _copy(WEB01[1], tmp_path / "n.prom", ('nodename="web01"', 'nodename=""'))
    with pytest.raises(SeriesError, match=re.escape("give it with --server NAME.")):
        read_node_exporter([WEB01[0], nameless])
    same = _copy(WEB01[1], tmp_path / "same.prom", ("10:01:00Z", "10:00:00Z"))
    with pytest.raises(SeriesError) as err:
        read_node_exporter([WEB01[0], same])
    assert err.value.problems == [
        "same.prom: has the same scrape time as web01_a.prom "
        "(2024-05-01T10:00:00+00:00); rates need distinct times."
    ]
    (tmp_path / "empty.prom").write_text("# nothing here\n")
    with pytest.raises(InputError, match="expected node_exporter samples"):
        read_node_exporter([tmp_path / "empty.prom"], server="x")
    with pytest.raises(InputError, match="cannot read the file"):
        read_node_exporter([tmp_path / "missing.prom"], server="x")
    bad_time = _copy(WEB01[0], tmp_path / "t.prom", ("2024-05-01T10:00:00Z", "noon"))
    with pytest.raises(InputError, match="expected '# scrape_time' to give"):
        read_node_exporter([bad_time, WEB01[1]])


def test_node_exporter_bad_parameters():
    with pytest.raises(ConfigError, match="^--metric must hold names from 'cpu_util'"):
        read_node_exporter(WEB01, metrics=["power_w"])
    with pytest.raises(ConfigError, match="one time per path"):
        read_node_exporter(WEB01, timestamps=[T0])
    with pytest.raises(ConfigError, match="regular expression"):
        read_node_exporter(WEB01, disk_exclude="(")
    with pytest.raises(ConfigError, match="at least one"):
        read_node_exporter([])


# ------------------------------------------------------------- query_range


def test_query_range_fraction():
    result = read_query_range(DATA / "query_range_cpu.json", metric="cpu_util")
    _check_contract(result.data)
    assert result.source_format == "prometheus"
    # web01: 1.0000000002 is float rounding of a fraction -> clipped to 1.
    assert_allclose(
        _values(result, "cpu_util", "web01:9100"), [0.1, 0.2, 1.0, 0.4, 0.5]
    )
    assert_allclose(_values(result, "cpu_util", "web02:9100"), [0.25, 0.3, 0.35])
    first = result.data["timestamp"].iloc[0]
    assert first == pd.Timestamp("2024-05-01T10:00:00.781Z")  # to the millisecond
    kinds = sorted((i["server"], i["kind"], i["count"]) for i in result.quality.issues)
    assert kinds == [
        ("web01:9100", "clipped", 1),
        ("web01:9100", "gap", 1),
        ("web01:9100", "unit_guess", 5),
        ("web02:9100", "dropped", 1),  # "NaN"
        ("web02:9100", "unit_guess", 3),
    ]
    assert result.metadata["unit"] == "fraction"
    assert result.metadata["series"]["web02:9100"] == {
        "instance": "web02:9100",
        "job": "node",
    }


def test_query_range_percent_and_rates():
    pct = read_query_range(DATA / "query_range_cpu.json", metric="cpu_util", unit="%")
    assert_allclose(_values(pct, "cpu_util", "web02:9100"), [0.0025, 0.003, 0.0035])
    assert "unit_guess" not in {i["kind"] for i in pct.quality.issues}
    net = read_query_range(
        DATA / "query_range_net_bytes.json", metric="net_mbps", unit="B/s"
    )
    assert_allclose(_values(net, "net_mbps"), [1.0, 2.0, 10.0])  # "+Inf" left out
    assert net.quality.issues[0]["kind"] == "dropped"
    assert net.quality.notes == [
        "query_range_net_bytes.json: Prometheus warning: query may be slow: 20000 series"
    ]
    disk = read_query_range(
        DATA / "query_range_net_bytes.json", metric="disk_iops", server_label="instance"
    )
    assert_allclose(_values(disk, "disk_iops"), [125000.0, 250000.0, 1.25e6])


def test_query_range_errors(tmp_path):
    with pytest.raises(SeriesError) as err:
        read_query_range(DATA / "query_range_error.json", metric="cpu_util")
    assert err.value.problems == [
        "query_range_error.json: Prometheus returned an error (bad_data): 1:26: "
        "parse error: unexpected right parenthesis ')'"
    ]
    with pytest.raises(SeriesError) as err:
        read_query_range(DATA / "query_range_vector.json", metric="cpu_util")
    assert err.value.problems == [
        "query_range_vector.json: expected resultType 'matrix' (a query_range "
        "response), got 'vector'; save /api/v1/query_range, not /api/v1/query."
    ]
    with pytest.raises(SeriesError) as err:
        read_query_range(DATA / "query_range_bad.json", metric="cpu_util")
    assert err.value.problems == [
        'query_range_bad.json: result 1 point 2: expected [unix_time, "value"], '
        "got '[1714557660, 0.2]'.",
        'query_range_bad.json: result 1 point 3: expected [unix_time, "value"], '
        'got \'["x", "0.3"]\'.',
        "query_range_bad.json: result 1 point 4: expected a non-negative value, "
        "got '-0.5'.",
        'query_range_bad.json: result 1 point 5: expected [unix_time, "value"], '
        "got '[1714557840]'.",
        "query_range_bad.json: result 2: expected a label 'instance' naming the "
        'server, got labels {"job": "node"}; aggregate the query by a label '
        "naming the server.",
        "query_range_bad.json: result 3: instance='a' also names result 1; aggregate "
        "the query by (instance), e.g. avg by (instance) (...).",
    ]
    (tmp_path / "cut.json").write_text('{"status": "success", "data": {')
    with pytest.raises(SeriesError, match=re.escape("got invalid JSON (line 1")):
        read_query_range(tmp_path / "cut.json", metric="cpu_util")
    (tmp_path / "list.json").write_text("[1, 2]")
    with pytest.raises(SeriesError, match="expected a Prometheus API response"):
        read_query_range(tmp_path / "list.json", metric="cpu_util")
    with pytest.raises(ConfigError, match="^--metric must be one of 'cpu_util', "):
        read_query_range(DATA / "query_range_cpu.json", metric="cpu")
    with pytest.raises(ConfigError) as cerr:
        read_query_range(DATA / "query_range_cpu.json", metric="net_mbps", unit="%")
    assert str(cerr.value) == (
        "--unit must be a network rate unit such as Mbit/s, kbit/s, Gbit/s or MB/s "
        "for --metric net_mbps. Got '%' instead."
    )


def test_query_range_empty_result(tmp_path):
    (tmp_path / "none.json").write_text(
        '{"status":"success","data":{"resultType":"matrix","result":[]}}'
    )
    result = read_query_range(tmp_path / "none.json", metric="cpu_util")
    assert len(result.data) == 0
    assert tuple(result.data.columns) == SERIES_COLUMNS
    assert result.quality.notes == ["none.json: the query returned no series."]


def test_query_range_with_a_huge_integer_is_one_error(tmp_path):
    # Python refuses to convert integers of over 4,300 digits (found by tests/fuzz).
    f = tmp_path / "big.json"
    f.write_text('{"status": "success", "data": {"resultType": "matrix", "result": '
                 '[{"metric": {"instance": "a"}, "values": [[' + "9" * 5000 + ', "1"]]}]}}')
    with pytest.raises(SeriesError) as err:
        read_query_range(f, metric="cpu_util")
    assert str(err.value).startswith(
        "big.json: expected a Prometheus query_range JSON response, got JSON that "
        "cannot be read (ValueError: Exceeds the limit (4300 digits)"
    )
