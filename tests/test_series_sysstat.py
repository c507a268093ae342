"""vsizer.series.sysstat: sadf -d / -dh / -j and sar text.

Real samples: ../shared/data/formats/sysstat_sar_sadf/ (sysstat's own test
outputs, host SYSSTAT.TEST, 2019-04-18; README there). Expected values below
were read from those files by hand; the line is given next to each.
Hand-made files in tests/data/series/sysstat/ pin one quirk each.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from vsizer.errors import InputError, SeriesError
from vsizer.series.model import METRICS, SERIES_COLUMNS
from vsizer.series.sysstat import VARIABLE_MAP, read_sysstat

DATA = Path(__file__).parent / "data" / "series" / "sysstat"
SAMPLES = [
    "expected.sadf-d.txt",
    "expected.sadf-d-qu.txt",
    "expected.sadf-dh.txt",
    "expected.sadf-j.txt",
    "expected.sar-all.txt",
]
KIB_PER_S_TO_MBPS = 8 * 1024 / 1e6


@pytest.fixture
def sysstat_dir(shared_data: Path) -> Path:
    return shared_data / "formats" / "sysstat_sar_sadf"


def value(series, metric: str, when: str, server: str | None = None) -> float:
    df = series.data
    rows = df[(df["metric"] == metric) & (df["timestamp"] == pd.Timestamp(when))]
    if server is not None:
        rows = rows[rows["server"] == server]
    assert len(rows) == 1, (metric, when, rows)
    return float(rows["value"].iloc[0])


def issues(series, kind: str) -> pd.DataFrame:
    frame = series.quality.to_frame()
    return frame[frame["kind"] == kind]


def assert_contract(frame: pd.DataFrame) -> None:
    assert tuple(frame.columns) == SERIES_COLUMNS
    assert str(frame["timestamp"].dtype) == "datetime64[ns, UTC]"
    assert frame["value"].dtype == np.float64
    assert str(frame["server"].dtype) == "string"
    assert str(frame["metric"].dtype) == "string"
    assert set(frame["metric"]) <= set(METRICS)
    assert (frame["unit"] == frame["metric"].map(METRICS)).all()
    ordered = frame.sort_values(["server", "metric", "timestamp"], kind="stable")
    assert ordered.index.equals(frame.index)
    assert not frame.duplicated(["server", "metric", "timestamp"]).any()
    assert frame["value"].notna().all()


# ------------------------------------------------------------ real samples


@pytest.mark.parametrize("name", SAMPLES)
def test_every_sample_parses_to_the_contract(sysstat_dir: Path, name: str) -> None:
    s = read_sysstat(sysstat_dir / name)
    assert_contract(s.data)
    assert set(s.data["server"]) == {"SYSSTAT.TEST"}
    assert s.source_format == "sar"
    assert s.source == str(sysstat_dir / name)
    cpu = s.data[s.data["metric"] == "cpu_util"]
    assert len(cpu) == (4 if name.startswith("expected.sar") else 5)


def test_sadf_d_values_read_by_hand(sysstat_dir: Path) -> None:
    s = read_sysstat(sysstat_dir / "expected.sadf-d.txt")
    assert s.metadata["variant"] == "sadf -d"
    # line 2: CPU -1, %idle 82.88; line 607+1: after the restarts, %idle 73.34
    assert value(s, "cpu_util", "2019-04-18 13:20:19Z") == pytest.approx(0.1712)
    assert value(s, "cpu_util", "2019-04-18 13:54:35Z") == pytest.approx(0.2666)
    # line 236: kbmemused 3755444 KiB, %memused 46.11
    assert value(s, "mem_used_gib", "2019-04-18 13:20:19Z") == pytest.approx(
        3755444 * 1024 / 2**30
    )
    assert value(s, "mem_util", "2019-04-18 13:20:19Z") == pytest.approx(0.4611)
    # line 231 (sar -b totals): tps 20.85, bread/s 57.43, bwrtn/s 38.50 sectors
    assert value(s, "disk_iops", "2019-04-18 13:20:19Z") == pytest.approx(20.85)
    assert value(s, "disk_mb_s", "2019-04-18 13:20:19Z") == pytest.approx(
        (57.43 + 38.50) * 512 / 1e6
    )
    # lines 359-366: enp6s0 8891.46 + 466.82 kB/s; lo left out, and virbr0 (1.20 +
    # 1.20, libvirt's bridge, whose traffic crosses enp6s0 too: virtual_interfaces)
    assert value(s, "net_mbps", "2019-04-18 13:20:49Z") == pytest.approx(
        (8891.46 + 466.82) * KIB_PER_S_TO_MBPS
    )
    assert s.metadata["intervals_s"] == [22, 31, 39]  # the odd intervals
    assert s.metadata["disk_source"] == ["I/O totals (sar -b)"]
    assert s.metadata["ignored_records"]["proc/s;cswch/s"] == 5
    assert s.metadata["timezone"] == "written in the file (converted to UTC)"


def test_sadf_d_restarts_offline_cpus_and_the_gap(sysstat_dir: Path) -> None:
    s = read_sysstat(sysstat_dir / "expected.sadf-d.txt")
    restart = issues(s, "restart")
    assert restart["count"].tolist() == [2]
    assert (
        "2019-04-18T13:37:29Z (9 CPU), 2019-04-18T13:54:09Z (10 CPU)"
        in (restart["detail"].iloc[0])
    )
    # CPU 6 is missing at 13:20:29 and 13:20:39, CPU 8 appears at 13:20:39
    offline = issues(s, "offline")
    assert offline["count"].tolist() == [4]
    assert "CPU 6 x2, CPU 8 x2, CPU 9 x4" in offline["detail"].iloc[0]
    gap = issues(s, "gap")
    assert gap["count"].tolist() == [1]
    assert "longest 2026 s after 2019-04-18T13:20:49Z" in gap["detail"].iloc[0]
    assert [r["time"] for r in s.metadata["restarts"]] == [
        "2019-04-18T13:37:29Z",
        "2019-04-18T13:54:09Z",
    ]


def test_the_four_forms_agree(sysstat_dir: Path) -> None:
    d = read_sysstat(sysstat_dir / "expected.sadf-d.txt").data
    j = read_sysstat(sysstat_dir / "expected.sadf-j.txt").data
    pd.testing.assert_frame_equal(d, j)
    sar = read_sysstat(sysstat_dir / "expected.sar-all.txt").data  # until restart
    pd.testing.assert_frame_equal(
        d[d["timestamp"] < pd.Timestamp("2019-04-18 13:30Z")].reset_index(drop=True),
        sar,
    )
    for name in ("expected.sadf-dh.txt", "expected.sadf-d-qu.txt"):
        cpu = read_sysstat(sysstat_dir / name).data
        pd.testing.assert_frame_equal(
            cpu, d[d["metric"] == "cpu_util"].reset_index(drop=True)
        )


def test_sadf_j_metadata(sysstat_dir: Path) -> None:
    s = read_sysstat(sysstat_dir / "expected.sadf-j.txt")
    assert s.metadata["variant"] == "sadf -j"
    assert s.metadata["release"] == {"SYSSTAT.TEST": "1.2.3-TEST"}
    assert s.metadata["cpu_count"] == {"SYSSTAT.TEST": 9}
    assert issues(s, "restart")["count"].tolist() == [2]


def test_sar_text_without_zone_is_read_as_utc_with_a_guess(sysstat_dir: Path) -> None:
    s = read_sysstat(sysstat_dir / "expected.sar-all.txt")
    assert s.metadata["variant"] == "sar"
    assert s.metadata["cpu_count"] == {"SYSSTAT.TEST": 9}
    guess = issues(s, "unit_guess")
    assert guess["count"].tolist() == [5]  # 4 samples and the restart
    assert "read as UTC; give --tz" in guess["detail"].iloc[0]
    tokyo = read_sysstat(sysstat_dir / "expected.sar-all.txt", tz="Asia/Tokyo")
    assert issues(tokyo, "unit_guess").empty
    assert tokyo.data["timestamp"].min() == pd.Timestamp("2019-04-18 04:20:19Z")
    assert tokyo.metadata["restarts"][0]["time"] == "2019-04-18T04:37:29Z"
    fixed = read_sysstat(sysstat_dir / "expected.sar-all.txt", tz="+09:00")
    pd.testing.assert_frame_equal(fixed.data, tokyo.data)


def test_server_parameter_renames(sysstat_dir: Path) -> None:
    s = read_sysstat(sysstat_dir / "expected.sadf-d-qu.txt", server="db-primary")
    assert set(s.data["server"]) == {"db-primary"}
    assert set(s.quality.to_frame()["server"]) == {"db-primary"}
    assert s.metadata["hosts"] == ["SYSSTAT.TEST"]


# ------------------------------------------------------------ hand-made quirks


def test_sar_ampm_midnight_restart_and_offline_cpu() -> None:
    s = read_sysstat(DATA / "sar_u_r_ampm_restart.txt")
    cpu = s.data[s.data["metric"] == "cpu_util"]
    assert cpu["timestamp"].dt.strftime("%Y-%m-%d %H:%M:%S").tolist() == [
        "2023-12-31 23:50:01",  # 11:50:01 PM
        "2024-01-01 00:00:01",  # 12:00:01 AM, the next day
        "2024-01-01 00:10:01",
        "2024-01-01 00:20:01",  # after LINUX RESTART at 12:15:33 AM
    ]
    assert_allclose(cpu["value"], [0.16, 0.30, 0.50, 0.10])
    assert value(s, "mem_used_gib", "2024-01-01 00:00:01Z") == pytest.approx(3.25)
    assert value(s, "mem_util", "2023-12-31 23:50:01Z") == pytest.approx(0.75)
    assert s.metadata["restarts"] == [
        {"server": "web01", "time": "2024-01-01T00:15:33Z", "detail": "(2 CPU)"}
    ]
    offline = issues(s, "offline")
    assert offline["count"].tolist() == [1]
    assert "CPU 1 x1" in offline["detail"].iloc[0]
    assert issues(s, "gap").empty  # the restart does not break the 10-min grid


def test_sar_local_time_in_a_dst_zone() -> None:
    s = read_sysstat(DATA / "sar_u_r_ampm_restart.txt", tz="America/New_York")
    assert s.data["timestamp"].min() == pd.Timestamp("2024-01-01 04:50:01Z")  # EST
    assert s.metadata["timezone"] == "America/New_York (--tz)"


def test_sadf_d_quirks() -> None:
    s = read_sysstat(DATA / "sadf_d_quirks.csv")
    assert_contract(s.data)
    cpu = s.data[s.data["metric"] == "cpu_util"].set_index("timestamp")["value"]
    # 00:02 all-CPU row is all zeros: no sample, not 100 % busy
    assert pd.Timestamp("2024-03-01 00:02Z") not in cpu.index
    assert issues(s, "dropped")["count"].tolist() == [1]
    # 00:03 %idle 100.50 -> -0.005, clipped to 0
    assert cpu[pd.Timestamp("2024-03-01 00:03Z")] == 0.0
    clipped = issues(s, "clipped")
    assert clipped["detail"].tolist() == [
        "cpu_util: 1 value outside [0, 1] clipped (min -0.005, max -0.005)"
    ]
    # 00:04 read twice: the first (idle 50) kept
    assert cpu[pd.Timestamp("2024-03-01 00:04Z")] == 0.5
    assert issues(s, "duplicate")["count"].tolist() == [1]
    # CPU 0 all zeros at 00:02 = offline
    assert issues(s, "offline")["count"].tolist() == [1]
    assert issues(s, "restart")["count"].tolist() == [1]
    # disks: sda + nvme0n1; partitions, dm-0 (on sda) and loop0 left out
    assert value(s, "disk_iops", "2024-03-01 00:01Z") == pytest.approx(300.0)
    assert value(s, "disk_mb_s", "2024-03-01 00:01Z") == pytest.approx(
        (1000 + 500 + 2000) * 1024 / 1e6
    )
    assert s.metadata["disk_source"] == ["sum over devices (sar -d)"]
    # network: eth0 + eth1, lo left out
    assert value(s, "net_mbps", "2024-03-01 00:01Z") == pytest.approx(
        (1000 + 250) * KIB_PER_S_TO_MBPS
    )
    assert value(s, "mem_used_gib", "2024-03-01 00:04Z") == pytest.approx(7.0)
    assert s.metadata["ignored_records"] == {"proc/s;cswch/s": 1}


def test_sadf_dh_repeating_groups() -> None:
    s = read_sysstat(DATA / "sadf_dh_cpu_mem_dev.csv")
    assert s.metadata["variant"] == "sadf -dh"
    # CPU groups -1, 0, 1 then -1, 0 (CPU 1 offline); DEV is the last group
    assert value(s, "cpu_util", "2024-05-01 10:10Z") == pytest.approx(0.2)
    assert value(s, "cpu_util", "2024-05-01 10:20Z") == pytest.approx(0.4)
    assert value(s, "mem_used_gib", "2024-05-01 10:20Z") == pytest.approx(2.25)
    assert value(s, "disk_iops", "2024-05-01 10:10Z") == pytest.approx(160.0)
    assert value(s, "disk_mb_s", "2024-05-01 10:10Z") == pytest.approx(
        (1000 + 500 + 100) * 1024 / 1e6
    )
    assert value(s, "disk_iops", "2024-05-01 10:20Z") == pytest.approx(300.0)
    assert issues(s, "offline")["count"].tolist() == [1]
    assert s.quality.notes == []


def test_sadf_dh_group_that_cannot_be_delimited_is_noted() -> None:
    s = read_sysstat(DATA / "sadf_dh_dev_net.csv")
    assert sorted(set(s.data["metric"])) == ["cpu_util", "mem_used_gib", "mem_util"]
    assert s.quality.notes == [
        "sadf_dh_dev_net.csv: sadf -dh does not write how often the group 'DEV' "
        "repeats, so the block devices, network interfaces behind it could not be "
        "read; use sadf -d for those."
    ]


def test_sadf_j_zone_abbreviation() -> None:
    s = read_sysstat(DATA / "sadf_j_jst.json")
    # 09:10:01 JST = 00:10:01 UTC
    assert value(s, "cpu_util", "2024-02-01 00:10:01Z") == pytest.approx(0.35)
    assert value(s, "net_mbps", "2024-02-01 00:10:01Z") == pytest.approx(
        (500 + 125) * KIB_PER_S_TO_MBPS
    )
    assert s.metadata["restarts"][0]["time"] == "2024-02-01T00:00:00Z"
    assert issues(s, "unit_guess").empty


def test_sadf_unix_seconds_and_local_time(tmp_path: Path) -> None:
    header = (
        "# hostname;interval;timestamp;CPU;%user;%nice;%system;%iowait;%steal;%idle"
    )
    (tmp_path / "u.csv").write_text(
        f"{header}\nh;60;1704067200;-1;1.00;0.00;1.00;0.00;0.00;75.00\n"
    )
    s = read_sysstat(tmp_path / "u.csv")
    assert s.data["timestamp"].tolist() == [pd.Timestamp("2024-01-01 00:00Z")]
    (tmp_path / "t.csv").write_text(
        f"{header}\nh;60;2024-01-01 09:00:00;-1;1.00;0.00;1.00;0.00;0.00;75.00\n"
    )
    s = read_sysstat(tmp_path / "t.csv")
    assert issues(s, "unit_guess")["count"].tolist() == [1]
    s = read_sysstat(tmp_path / "t.csv", tz="Asia/Tokyo")
    assert s.data["timestamp"].tolist() == [pd.Timestamp("2024-01-01 00:00Z")]


def test_ambiguous_banner_date_is_a_guess(tmp_path: Path) -> None:
    text = (
        (DATA / "sar_u_r_ampm_restart.txt").read_text().replace("12/31/23", "04/05/24")
    )
    (tmp_path / "sar.txt").write_text(text)
    s = read_sysstat(tmp_path / "sar.txt")
    assert s.data["timestamp"].min() == pd.Timestamp("2024-04-05 23:50:01Z")
    assert "banner date '04/05/24' read as month/day/year (C locale)" in set(
        issues(s, "unit_guess")["detail"]
    )
    (tmp_path / "iso.txt").write_text(text.replace("04/05/24", "2024-05-04"))
    s = read_sysstat(tmp_path / "iso.txt")
    assert s.data["timestamp"].min() == pd.Timestamp("2024-05-04 23:50:01Z")


def test_variable_map_names_only_known_roles() -> None:
    assert VARIABLE_MAP["%idle"] == "cpu_idle_pct"
    assert VARIABLE_MAP["kbmemused"] == "mem_used_kib"
    assert VARIABLE_MAP["rkB/s"] == VARIABLE_MAP["rkB"] == "read_kib_s"


# ------------------------------------------------------------ errors


def copy_with(src: Path, dst: Path, edits: dict[int, tuple[str, str]]) -> Path:
    """Copy ``src`` to ``dst`` replacing text on the given 1-based lines."""
    lines = src.read_text().splitlines(keepends=True)
    for n, (old, new) in edits.items():
        assert old in lines[n - 1], (n, old)
        lines[n - 1] = lines[n - 1].replace(old, new, 1)
    dst.write_text("".join(lines))
    return dst


def test_corrupted_sadf_d_lists_every_problem(
    sysstat_dir: Path, tmp_path: Path
) -> None:
    bad = copy_with(
        sysstat_dir / "expected.sadf-d.txt",
        tmp_path / "expected.sadf-d.txt",
        {
            2: ("82.88", "8x.88"),
            3: ("13:20:19", "25:20:19"),
            4: (";0.00;0.00;91.99", ";91.99"),
            236: ("3755444", "lots"),
        },
    )
    with pytest.raises(SeriesError) as info:
        read_sysstat(bad)
    assert info.value.problems == [
        "expected.sadf-d.txt line 2: expected a number for '%idle', got '8x.88'.",
        "expected.sadf-d.txt line 3: expected a time such as "
        "'2019-04-18 13:20:19 UTC', got '2019-04-18 25:20:19 UTC'.",
        "expected.sadf-d.txt line 4: expected 14 fields as in the header on line 1 "
        "(the line has 12), got 'SYSSTAT.TEST;31;2019-04-18 13:20:19 UTC;1;2.85;0.00;"
        "4.28;0.00;0.00;0.68;0.19;...'.",
        "expected.sadf-d.txt line 236: expected a number for 'kbmemused', got 'lots'.",
    ]
    assert isinstance(info.value, InputError)


def test_corrupted_sar_text(sysstat_dir: Path, tmp_path: Path) -> None:
    bad = copy_with(
        sysstat_dir / "expected.sar-all.txt",
        tmp_path / "expected.sar-all.txt",
        {4: ("13:20:19", "13:2O:19"), 5: ("94.14", "94.14 7"), 13: ("95.31", "x")},
    )
    with pytest.raises(SeriesError, match="line 4") as info:
        read_sysstat(bad)
    assert info.value.problems == [
        "expected.sar-all.txt line 4: expected a time (HH:MM:SS) at the start of the "
        "line, 'Average:' or a 'Linux ...' banner, got '13:2O:19'.",
        "expected.sar-all.txt line 5: expected 12 columns as in the header on line 3 "
        "(the line has 13), got '13:20:19          0      2.71      0.03      2.16 "
        "     0.00      0.00      0....'.",
        "expected.sar-all.txt line 13: expected a number for '%idle', got 'x'.",
    ]


def test_corrupted_sar_banner_date(sysstat_dir: Path, tmp_path: Path) -> None:
    bad = copy_with(
        sysstat_dir / "expected.sar-all.txt",
        tmp_path / "expected.sar-all.txt",
        {1: ("04/18/19", "04/31/19")},
    )
    with pytest.raises(SeriesError) as info:
        read_sysstat(bad)
    assert info.value.problems == [
        "expected.sar-all.txt line 1: expected a date such as 04/18/19, 2019-04-18, "
        "18.04.2019 or 18-04-2019 in the banner, got '04/31/19'."
    ]


def test_corrupted_sadf_j(sysstat_dir: Path, tmp_path: Path) -> None:
    src = sysstat_dir / "expected.sadf-j.txt"
    syntax = copy_with(
        src, tmp_path / "syntax.json", {16: ('"idle": 82.88', '"idle": ,')}
    )
    with pytest.raises(
        SeriesError, match=r"^syntax.json line 16 column \d+: expected JSON"
    ):
        read_sysstat(syntax)
    value_bad = copy_with(src, tmp_path / "value.json", {16: ("82.88", '"n/a"')})
    with pytest.raises(SeriesError) as info:
        read_sysstat(value_bad)
    assert info.value.problems == [
        "value.json sysstat.hosts[0].statistics[0].cpu-load[0]: expected a number "
        "for 'idle', got 'n/a'."
    ]
    (tmp_path / "other.json").write_text('{"data": []}')
    with pytest.raises(SeriesError, match="expected sadf -j JSON with 'sysstat.hosts'"):
        read_sysstat(tmp_path / "other.json")


def test_many_problems_are_summarized(tmp_path: Path) -> None:
    header = (
        "# hostname;interval;timestamp;CPU;%user;%nice;%system;%iowait;%steal;%idle"
    )
    rows = [f"h;60;2024-01-01 00:{m:02d}:00 UTC;-1;1;0;1;0;0;x" for m in range(25)]
    (tmp_path / "many.csv").write_text("\n".join([header, *rows]) + "\n")
    with pytest.raises(SeriesError) as info:
        read_sysstat(tmp_path / "many.csv")
    assert len(info.value.problems) == 21
    assert info.value.problems[-1] == (
        "many.csv: … and 5 more like it (expected a number for '%idle')."
    )


def test_not_sysstat_binary_missing_and_bad_parameters(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello;world\n")
    with pytest.raises(SeriesError) as info:
        read_sysstat(tmp_path / "notes.txt")
    assert str(info.value) == (
        "notes.txt line 1: expected sysstat output (sadf -d, sadf -dh, sadf -j, "
        "sadf -p or sar text), got 'hello;world'."
    )
    (tmp_path / "sa18").write_bytes(b"\x96\xd5\x00\x00binary")
    with pytest.raises(SeriesError, match=r"got a binary file; convert .*'sadf -d"):
        read_sysstat(tmp_path / "sa18")
    with pytest.raises(SeriesError, match=r"^gone.txt: file not found: "):
        read_sysstat(tmp_path / "gone.txt")
    with pytest.raises(
        SeriesError,
        match=r"^--tz must be an IANA time-zone name "
        r"such as 'Asia/Tokyo' or a UTC offset such as '\+09:00'. Got 'Mars/Base' "
        r"instead.$",
    ):
        read_sysstat(DATA / "sadf_d_quirks.csv", tz="Mars/Base")


def test_server_name_needs_a_one_host_file(tmp_path: Path) -> None:
    header = (
        "# hostname;interval;timestamp;CPU;%user;%nice;%system;%iowait;%steal;%idle"
    )
    (tmp_path / "two.csv").write_text(
        f"{header}\n"
        "a;60;2024-01-01 00:00:00 UTC;-1;1;0;1;0;0;50.00\n"
        "b;60;2024-01-01 00:00:00 UTC;-1;1;0;1;0;0;60.00\n"
    )
    s = read_sysstat(tmp_path / "two.csv")
    assert sorted(set(s.data["server"])) == ["a", "b"]
    with pytest.raises(
        SeriesError,
        match=r"^two.csv: the file holds 2 hosts \(a, b\); --server can only name a "
        r"one-host file.$",
    ):
        read_sysstat(tmp_path / "two.csv", server="x")


def test_sar_rows_before_a_banner(tmp_path: Path) -> None:
    (tmp_path / "cut.txt").write_text(
        "10:00:01 CPU %user %nice %system %iowait %steal %idle\n"
        "10:10:01 all 1.00 0.00 1.00 0.00 0.00 98.00\n"
    )
    with pytest.raises(SeriesError) as info:
        read_sysstat(tmp_path / "cut.txt")
    assert info.value.problems == [
        "cut.txt line 1: expected the banner 'Linux <release> (<host>) <date> ...' "
        "first, got '10:00:01 CPU %user %nice %system %iowait %steal %idle'."
    ]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.sampled_from(
            (DATA / "sar_u_r_ampm_restart.txt").read_text().splitlines()
            + (DATA / "sadf_d_quirks.csv").read_text().splitlines()
            + ["", "garbage", "12:00:01 AM all x", "#", "a;b;c;d", "{"]
        ),
        max_size=30,
    )
)
def test_any_mix_of_lines_reads_or_raises_series_error(lines: list[str]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "mix.txt"
        path.write_text("\n".join(lines))
        try:
            s = read_sysstat(path)
        except SeriesError:
            return
    assert_contract(s.data)


def test_truncated_json_on_the_line_after_a_final_newline(tmp_path: Path) -> None:
    # Found by the mixed-lines property test: the JSON error sits on line 2, the
    # empty line after the final newline; it must be one problem line, not a crash.
    path = tmp_path / "cut.json"
    path.write_text("{\n")
    with pytest.raises(SeriesError) as exc:
        read_sysstat(path)
    assert exc.value.problems == [
        "cut.json line 2 column 1: expected JSON (Expecting property name enclosed "
        "in double quotes), got ''."
    ]


HEADER = "# hostname;interval;timestamp;CPU;%user;%nice;%system;%iowait;%steal;%idle"
BANNER = "Linux 5.1 (h) \t2024-01-01 \t_x86_64_\t(2 CPU)\n\n"


@pytest.mark.parametrize(
    ("name", "text", "problems"),
    [
        (
            "noheader.csv",
            f"h;60;2024-01-01 00:00:00 UTC;-1;1;0;1;0;0;50\n{HEADER}\n",
            [
                "noheader.csv line 1: expected a '# hostname;interval;timestamp;...' "
                "header first, got 'h;60;2024-01-01 00:00:00 UTC;-1;1;0;1;0;0;50'."
            ],
        ),
        (
            "interval.csv",
            f"{HEADER}\nh;sixty;2024-01-01 00:00:00 UTC;-1;1;0;1;0;0;50\n",
            [
                "interval.csv line 2: expected the interval in seconds (an integer), "
                "got 'sixty'."
            ],
        ),
        (
            "short.csv",
            f"{HEADER}\nh;60\n",
            [
                "short.csv line 2: expected 'hostname;interval;timestamp;...' fields, "
                "got 'h;60'."
            ],
        ),
        (
            "inf.csv",
            f"{HEADER}\nh;60;2024-01-01 00:00:00 UTC;-1;1;0;1;0;0;inf\n",
            ["inf.csv line 2: expected a finite number for '%idle', got 'inf'."],
        ),
        (
            "dh.csv",
            "# hostname;interval;timestamp;CPU;%idle[...];kbmemfree;kbmemused;%memused\n"
            "h;60;2024-01-01 00:00:00 UTC;-1;50.00;1\n",
            [
                "dh.csv line 2: expected at least 8 fields for the header (the line has "
                "6), got '-1;50.00;1'."
            ],
        ),
        (
            "nohdr.txt",
            f"{BANNER}10:00:01 all 1.00 2.00\n",
            [
                "nohdr.txt line 3: expected a table header before the rows (a time, "
                "then column names such as 'CPU %user ... %idle'); 1 row from here on "
                "without one, not read (give sar's whole output), got "
                "'10:00:01 all 1.00 2.00'."
            ],
        ),
        (
            "hour.txt",
            f"{BANNER}10:00:01 CPU %user %idle\n25:10:01 all 1.00 2.00\n",
            ["hour.txt line 4: expected a time of day, got '25:10:01'."],
        ),
        (
            "stamp.json",
            '{"sysstat": {"hosts": [{"nodename": "h", "statistics": [{"timestamp": '
            '{"date": "2024-13-01", "time": "00:00:00"}}], "restarts": [{"boot": '
            '{"date": "x"}}]}]}}',
            [
                "stamp.json sysstat.hosts[0].restarts[0]: expected a boot date and "
                "time, got '{'date': 'x'}'.",
                "stamp.json sysstat.hosts[0].statistics[0]: expected a 'timestamp' "
                "with 'date' and 'time', got '{'date': '2024-13-01', 'time': "
                "'00:00:00'}'.",
            ],
        ),
    ],
)
def test_each_problem_line(
    tmp_path: Path, name: str, text: str, problems: list[str]
) -> None:
    (tmp_path / name).write_text(text)
    with pytest.raises(SeriesError, match=r" expected ") as info:
        read_sysstat(tmp_path / name)
    assert info.value.problems == problems
