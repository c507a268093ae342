"""vsizer.series.perfmon: Windows Performance Monitor PDH-CSV logs.

Real samples: ../shared/data/formats/windows_perfmon_pdh_csv/ (perfmon data
collector logs; README there). They log Process and LogicalDisk queue counters
only, none that vsizer maps, so they are checked through
:func:`read_perfmon_counters` (values read from the files by hand) and for the
error naming their counters. Hand-made files in tests/data/series/perfmon/ pin
the counters and quirks.
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

from vsizer.errors import SeriesError
from vsizer.series.model import METRICS, SERIES_COLUMNS
from vsizer.series.perfmon import (
    COUNTER_ALIASES,
    OBJECT_ALIASES,
    VARIABLE_MAP,
    read_perfmon,
    read_perfmon_counters,
)

DATA = Path(__file__).parent / "data" / "series" / "perfmon"
NARMADHA = "narmadha6790_sample_DataCollector01.csv"
JG = [f"jg185342_memeData_DataCollector0{i}.csv" for i in (1, 2, 3)]


@pytest.fixture
def perfmon_dir(shared_data: Path) -> Path:
    return shared_data / "formats" / "windows_perfmon_pdh_csv"


def series_of(s, metric: str, server: str | None = None) -> pd.Series:
    df = s.data[s.data["metric"] == metric]
    if server is not None:
        df = df[df["server"] == server]
    return df.set_index("timestamp")["value"]


def issues(s, kind: str) -> pd.DataFrame:
    frame = s.quality.to_frame()
    return frame[frame["kind"] == kind]


def assert_contract(frame: pd.DataFrame) -> None:
    assert tuple(frame.columns) == SERIES_COLUMNS
    assert str(frame["timestamp"].dtype) == "datetime64[ns, UTC]"
    assert frame["value"].dtype == np.float64
    assert (frame["unit"] == frame["metric"].map(METRICS)).all()
    ordered = frame.sort_values(["server", "metric", "timestamp"], kind="stable")
    assert ordered.index.equals(frame.index)
    assert frame["value"].notna().all()


# ------------------------------------------------------------ real samples


def test_real_sample_counters_read_by_hand(perfmon_dir: Path) -> None:
    frame, meta = read_perfmon_counters(perfmon_dir / NARMADHA)
    assert meta == {
        "hosts": ["IMPC3116"],
        "encoding": "utf-8",
        "pdh_version": "4.0",
        "timezone_name": "India Standard Time",
        "bias_minutes": -330,
    }
    assert frame.shape == (21, 12)
    assert str(frame.index.dtype) == "datetime64[ns, UTC]"
    # row 2 "09/19/2017 09:51:39.073" IST (bias -330) = 04:21:39.073 UTC
    assert frame.index[0] == pd.Timestamp("2017-09-19 04:21:39.073Z")
    assert frame.index[1] == pd.Timestamp("2017-09-19 04:21:54.050Z")
    read_q = "\\\\IMPC3116\\LogicalDisk(C:)\\Avg. Disk Read Queue Length"
    current = "\\\\IMPC3116\\LogicalDisk(_Total)\\Current Disk Queue Length"
    # row 2: rate counters blank (" "), instantaneous ones "0"
    assert np.isnan(frame[read_q].iloc[0])
    assert frame[current].iloc[0] == 0.0
    # row 3 holds 17-20 significant digits
    assert frame[read_q].iloc[1] == 0.032083023520161361
    assert frame[read_q].iloc[2] == 0.0011060789995203616


@pytest.mark.parametrize("name", JG)
def test_real_process_logs_eastern_daylight_time(perfmon_dir: Path, name: str) -> None:
    frame, meta = read_perfmon_counters(perfmon_dir / name)
    assert meta["bias_minutes"] == 240  # EDT, UTC-4
    assert frame.shape[1] == 8
    assert frame.notna().all().all()
    assert (np.diff(frame.index.asi8) > 0).all()


def test_real_process_log_values(perfmon_dir: Path) -> None:
    frame, _ = read_perfmon_counters(perfmon_dir / JG[0])
    assert len(frame) == 208
    # row 2: "09/16/2021 07:51:58.569" EDT, _Total Virtual Bytes 238132991823872
    assert frame.index[0] == pd.Timestamp("2021-09-16 11:51:58.569Z")
    total = "\\\\7702-48817743\\Process(_Total)\\Virtual Bytes"
    assert frame[total].iloc[0] == 238132991823872.0
    assert frame["\\\\7702-48817743\\Process(AnyDesk#2)\\Private Bytes"].iloc[0] == (
        53964800.0
    )


def test_real_samples_without_mapped_counters_name_what_they_hold(
    perfmon_dir: Path,
) -> None:
    with pytest.raises(SeriesError) as info:
        read_perfmon(perfmon_dir / NARMADHA)
    message = str(info.value)
    assert message.startswith(
        f"{NARMADHA}: expected a counter vsizer reads (Processor(_Total)\\% Processor "
        "Time, Memory\\Available MBytes or \\Committed Bytes, PhysicalDisk(_Total)\\"
        "Disk Transfers/sec or \\Disk Bytes/sec, Network Interface(*)\\Bytes "
        "Total/sec), got '\\\\IMPC3116\\LogicalDisk(HarddiskVolume2)\\Avg. Disk Read "
        "Queue Length', "
    )
    assert "'\\\\IMPC3116\\LogicalDisk(_Total)\\Current Disk Queue Length'." in message
    for name in JG:
        with pytest.raises(SeriesError, match=r"Process\(_Total\)\\Virtual Bytes"):
            read_perfmon(perfmon_dir / name)


# ------------------------------------------------------------ hand-made


def test_english_counters_bias_and_blank_first_row() -> None:
    s = read_perfmon(DATA / "en_tokyo_bias.csv")
    assert_contract(s.data)
    assert set(s.data["server"]) == {"WEB-TK01"}
    assert s.source_format == "perfmon"
    # 04/01/2024 09:00:15.125 Tokyo (bias -540) = 00:00:15.125 UTC; row 2 is
    # blank for the rate counters and gives no cpu_util (not 0)
    cpu = series_of(s, "cpu_util")
    assert cpu.index.tolist() == [
        pd.Timestamp("2024-04-01 00:00:15.125Z"),
        pd.Timestamp("2024-04-01 00:00:30.131Z"),
        pd.Timestamp("2024-04-01 00:00:45.127Z"),
    ]
    assert_allclose(cpu, [0.125, 0.375, 1.0])
    assert_allclose(series_of(s, "disk_iops"), [150.25, 300.5, 0.0])
    assert_allclose(series_of(s, "disk_mb_s"), [5.24288, 10.48576, 0.0])
    # the I219-LM adapter only; the isatap tunnel is left out
    assert_allclose(series_of(s, "net_mbps"), [10.0, 20.0, 0.0])
    # Committed Bytes 4294967296 = 4 GiB (instantaneous: row 2 has it)
    assert_allclose(series_of(s, "mem_used_gib"), [4.0, 4.015625, 4.03125, 4.046875])
    assert "mem_util" not in set(s.data["metric"])
    dropped = issues(s, "dropped")
    assert dropped["count"].tolist() == [2]  # Process(Idle), Process(_Total)
    assert "relative to one core" in dropped["detail"].iloc[0]
    assert s.metadata["bias_minutes"] == -540
    assert s.metadata["timezone_name"] == "Tokyo Standard Time"
    assert s.metadata["ignored_counters"] == [
        "\\\\WEB-TK01\\LogicalDisk(C:)\\% Free Space"
    ]
    assert s.metadata["counters"]["cpu_util"] == [
        "\\\\WEB-TK01\\Processor(_Total)\\% Processor Time"
    ]
    assert (
        s.metadata["blank_values"]["\\\\WEB-TK01\\Processor(_Total)\\% Processor Time"]
        == 1
    )


def test_available_memory_needs_the_size() -> None:
    s = read_perfmon(DATA / "en_tokyo_bias.csv")
    available = s.metadata["mem_available_gib"]["WEB-TK01"]
    assert_allclose(available["value"], [6.0, 6100 / 1024, 5.0, 4.0])
    assert str(available["timestamp"].dtype) == "datetime64[ns, UTC]"
    assert any("needs the server's memory size" in n for n in s.quality.notes)
    sized = read_perfmon(DATA / "en_tokyo_bias.csv", mem_capacity_gib=8)
    assert_allclose(series_of(sized, "mem_used_gib"), [2.0, 8 - 6100 / 1024, 3.0, 4.0])
    assert_allclose(
        series_of(sized, "mem_util"), [0.25, (8 - 6100 / 1024) / 8, 0.375, 0.5]
    )
    assert "mem_available_gib" not in sized.metadata


def test_utf16_file_reads_like_its_utf8_twin() -> None:
    a = read_perfmon(DATA / "en_tokyo_bias.csv")
    b = read_perfmon(DATA / "en_tokyo_bias_utf16.csv")
    assert b.metadata["encoding"] == "utf-16"
    pd.testing.assert_frame_equal(a.data, b.data)


def test_japanese_counters_in_cp932() -> None:
    s = read_perfmon(DATA / "ja_cp932.csv")
    assert s.metadata["encoding"] == "cp932"
    assert s.metadata["timezone_name"] == "東京 (標準時)"
    # 12/31/2023 23:59:55 JST = 14:59:55 UTC
    cpu = series_of(s, "cpu_util", "SV-JP01")
    assert cpu.index[0] == pd.Timestamp("2023-12-31 14:59:55Z")
    assert_allclose(cpu, [0.25, 0.50])
    assert_allclose(series_of(s, "disk_iops"), [12.5, 25.0])
    assert_allclose(series_of(s, "net_mbps"), [1.0, 2.0])
    assert issues(s, "dropped")["count"].tolist() == [1]  # プロセス(Idle)
    sized = read_perfmon(DATA / "ja_cp932.csv", mem_capacity_gib=4)
    assert_allclose(series_of(sized, "mem_util"), [0.5, (4 - 2000 / 1024) / 4, 0.75])


def test_russian_cp1251_and_a_cut_off_time_zone() -> None:
    s = read_perfmon(DATA / "ru_cp1251_garbled_zone.csv")
    assert s.metadata["encoding"] == "cp1251"
    assert s.metadata["bias_minutes"] is None
    assert s.metadata["timezone_name"] == "RTZ 2 ("
    assert_allclose(series_of(s, "cpu_util"), [0.2, 0.4])
    guess = issues(s, "unit_guess")
    assert guess["detail"].tolist() == [
        "the header '(PDH-CSV 4.0) (RTZ 2 (' gives no time-zone bias; times read as "
        "UTC (give --tz with the host's zone)"
    ]
    moscow = read_perfmon(DATA / "ru_cp1251_garbled_zone.csv", tz="Europe/Moscow")
    assert series_of(moscow, "cpu_util").index[0] == pd.Timestamp(
        "2024-03-10 07:00:10Z"
    )
    assert issues(moscow, "unit_guess").empty


def test_unknown_localized_counters_are_named(tmp_path: Path) -> None:
    # Portuguese is not mapped: the message names the columns found
    f = tmp_path / "pt_unknown_counters.csv"
    f.write_text(
        '"(PDH-CSV 4.0) (Hora oficial do Brasil)(180)",'
        '"\\\\SRV-PT\\Processador(_Total)\\% Tempo de Processador",'
        '"\\\\SRV-PT\\Memória\\Mbytes disponíveis"\n'
        '"05/02/2024 08:00:00.000"," ","1024"\n',
        encoding="utf-8",
    )
    with pytest.raises(SeriesError) as info:
        read_perfmon(f)
    assert str(info.value) == (
        "pt_unknown_counters.csv: expected a counter vsizer reads (Processor(_Total)\\% "
        "Processor Time, Memory\\Available MBytes or \\Committed Bytes, PhysicalDisk("
        "_Total)\\Disk Transfers/sec or \\Disk Bytes/sec, Network Interface(*)\\Bytes "
        "Total/sec), got '\\\\SRV-PT\\Processador(_Total)\\% Tempo de Processador', "
        "'\\\\SRV-PT\\Memória\\Mbytes disponíveis'. Names are matched in English, "
        "Japanese, German, French, Russian and Spanish; for another language add them "
        "to vsizer.series.perfmon.OBJECT_ALIASES and COUNTER_ALIASES. The file was "
        "decoded as utf-8: if the names look garbled, give --encoding."
    )
    # Spanish (once the example of an unknown language) is read
    es = read_perfmon(DATA / "es_unknown_counters.csv")
    assert es.data["value"].tolist() == [0.10]
    assert es.metadata["counters"]["cpu_util"] == [
        "\\\\SRV-ES\\Procesador(_Total)\\% de tiempo de procesador"
    ]


def test_quirks_repeated_time_gap_clip_and_a_nic_that_goes_away() -> None:
    s = read_perfmon(DATA / "quirks_gmt.csv")
    assert_contract(s.data)
    cpu = series_of(s, "cpu_util")
    # 10:00:15 twice: the first (20 %) kept; 100.5 % clipped to 1
    assert_allclose(cpu, [0.2, 1.0, 0.3, 0.4])
    assert issues(s, "duplicate")["count"].tolist() == [1]
    assert issues(s, "clipped")["detail"].tolist() == [
        "cpu_util: 1 value outside [0, 1] clipped (min 1.005, max 1.005)"
    ]
    gap = issues(s, "gap")
    assert gap["detail"].tolist() == [
        "1 step longer than 1.5 x the median step (15 s); longest 75 s after "
        "2024-01-15T10:00:45Z"
    ]
    # received + sent of both NICs, then of the one left
    assert_allclose(series_of(s, "net_mbps"), [0.04, 0.032, 0.0, 0.002])
    # disk read + write over C: and D: (no _Total, no transfers counter)
    assert_allclose(series_of(s, "disk_mb_s"), [1.75, 3.0, 0.0, 0.0])
    assert "disk_iops" not in set(s.data["metric"])


def test_two_hosts_and_processor_instances() -> None:
    s = read_perfmon(DATA / "two_hosts.csv")
    assert sorted(set(s.data["server"])) == ["HV-A", "HV-B"]
    assert_allclose(series_of(s, "cpu_util", "HV-A"), [0.1, 0.3])
    # HV-B: mean of Processor(0) and (1); at 12:00:20 (1) is blank: no value
    assert_allclose(series_of(s, "cpu_util", "HV-B"), [0.3])
    assert s.quality.notes == [
        "HV-B: no Processor(_Total) counter; cpu_util is the mean of 2 Processor(n) "
        "instances."
    ]
    with pytest.raises(
        SeriesError,
        match=r"^two_hosts.csv: the file holds 2 hosts \(HV-A, HV-B\); --server can "
        r"only name a one-host file.$",
    ):
        read_perfmon(DATA / "two_hosts.csv", server="x")
    renamed = read_perfmon(DATA / "ja_cp932.csv", server="erp-db")
    assert set(renamed.data["server"]) == {"erp-db"}


def test_localized_names_map_to_english_keys() -> None:
    english = {obj for obj, _ in VARIABLE_MAP} | {c for _, c in VARIABLE_MAP}
    assert set(OBJECT_ALIASES.values()) <= english
    assert set(COUNTER_ALIASES.values()) <= english
    assert OBJECT_ALIASES["プロセッサ"] == "Processor"
    assert COUNTER_ALIASES["% プロセッサ時間"] == "% Processor Time"
    assert COUNTER_ALIASES["利用可能メモリ (MB)"] == "Available MBytes"
    assert COUNTER_ALIASES["ディスク転送/秒"] == "Disk Transfers/sec"
    assert COUNTER_ALIASES["合計バイト数/秒"] == "Bytes Total/sec"


# ------------------------------------------------------------ errors


def copy_with(src: Path, dst: Path, edits: dict[int, tuple[str, str]]) -> Path:
    """Copy ``src`` (bytes kept) replacing text on the given 1-based lines."""
    lines = src.read_bytes().decode("utf-8").split("\n")
    for n, (old, new) in edits.items():
        assert old in lines[n - 1], (n, old)
        lines[n - 1] = lines[n - 1].replace(old, new, 1)
    dst.write_bytes("\n".join(lines).encode("utf-8"))
    return dst


def test_corrupted_real_sample(perfmon_dir: Path, tmp_path: Path) -> None:
    bad = copy_with(
        perfmon_dir / NARMADHA,
        tmp_path / NARMADHA,
        {
            2: ("09/19/2017 09:51:39.073", "19/09/2017 09:51:39.073"),
            3: ('"0.032083023520161361"', '"0.03x"'),
            4: ('"09/19/2017 09:52:09.058","0",', '"09/19/2017 09:52:09.058",'),
        },
    )
    with pytest.raises(SeriesError) as info:
        read_perfmon_counters(bad)
    assert info.value.problems == [
        f"{NARMADHA} row 2, column '(PDH-CSV 4.0) (India Standard Time)(-330)': "
        "expected a time such as '09/16/2021 07:51:58.569', got "
        "'19/09/2017 09:51:39.073'.",
        f"{NARMADHA} row 3, column '\\\\IMPC3116\\LogicalDisk(C:)\\Avg. Disk Read Queue "
        "Length': expected a number or a blank, got '0.03x'.",
        f"{NARMADHA} row 4: expected 13 fields as in the header (the row has 12), got "
        "'09/19/2017 09:52:09.058,0.0011060789995203616,0,0.0011060789995203616,0,0.008"
        "...'.",
    ]


def test_corrupted_hand_made_log(tmp_path: Path) -> None:
    bad = copy_with(
        DATA / "en_tokyo_bias.csv",
        tmp_path / "en_tokyo_bias.csv",
        {3: ('"12.5"', '"12,5%"'), 5: ('"4096"', '"n/a"')},
    )
    with pytest.raises(SeriesError) as info:
        read_perfmon(bad)
    assert info.value.problems == [
        "en_tokyo_bias.csv row 3, column '\\\\WEB-TK01\\Processor(_Total)\\% Processor "
        "Time': expected a number or a blank, got '12,5%'.",
        "en_tokyo_bias.csv row 5, column '\\\\WEB-TK01\\Memory\\Available MBytes': "
        "expected a number or a blank, got 'n/a'.",
    ]


def test_not_pdh_csv(tmp_path: Path) -> None:
    (tmp_path / "export.csv").write_text('"Time","CPU"\n"10:00","5"\n')
    with pytest.raises(SeriesError) as info:
        read_perfmon(tmp_path / "export.csv")
    assert str(info.value) == (
        "export.csv row 1: expected a PDH-CSV or PDH-TSV header cell such as "
        "'(PDH-CSV 4.0) (Tokyo Standard Time)(-540)', got 'Time'."
    )
    (tmp_path / "empty.csv").write_text("")
    with pytest.raises(SeriesError, match=r"^empty.csv row 1: expected a PDH-CSV"):
        read_perfmon(tmp_path / "empty.csv")


def test_bad_parameters_and_missing_file(tmp_path: Path) -> None:
    ja = DATA / "ja_cp932.csv"
    with pytest.raises(SeriesError, match=r"^gone.csv: file not found: "):
        read_perfmon(tmp_path / "gone.csv")
    with pytest.raises(
        SeriesError,
        match=r"^ja_cp932.csv: cannot decode the file as 'klingon' \(unknown "
        r"encoding: klingon\).$",
    ):
        read_perfmon(ja, encoding="klingon")
    with pytest.raises(
        SeriesError, match=r"^ja_cp932.csv: cannot decode the file as 'ascii'"
    ):
        read_perfmon(ja, encoding="ascii")
    with pytest.raises(
        SeriesError,
        match=r"^The 'mem_capacity_gib' parameter of read_perfmon must be a positive "
        r"number. Got -1 instead.$",
    ):
        read_perfmon(ja, mem_capacity_gib=-1)
    with pytest.raises(SeriesError, match=r"^--tz must be an IANA time-zone name"):
        read_perfmon(ja, tz="Nowhere/Land")
    # a wrong code page given on purpose: the names do not match, and say so
    with pytest.raises(
        SeriesError, match=r"decoded as latin-1: if the names look garbled"
    ):
        read_perfmon(ja, encoding="latin-1")


def test_typeperf_layout_and_fallback_counters(tmp_path: Path) -> None:
    # typeperf -f CSV starts with an empty line; newer Windows logs Processor
    # Information and Network Adapter; LogicalDisk(_Total) stands in for disks
    h = "\\\\VM7"
    lines = [
        "",
        '"(PDH-CSV 4.0) (UTC)(0)","'
        + '","'.join(
            [
                h + "\\Processor Information(_Total)\\% Processor Time",
                h + "\\LogicalDisk(_Total)\\Disk Transfers/sec",
                h + "\\LogicalDisk(C:)\\Disk Transfers/sec",
                h
                + "\\Network Adapter(Microsoft Hyper-V Network Adapter)\\Bytes Total/sec",
            ]
        )
        + '"',
        '"07/01/2024 00:00:00.000"," "," "," "," "',
        "",
        '"07/01/2024 00:01:00.000","5","10","10","125000"',
        '"07/01/2024 00:02:00.000","x","20","20","250000"',
    ]
    (tmp_path / "typeperf.csv").write_text("\n".join(lines) + "\n")
    with pytest.raises(SeriesError) as info:
        read_perfmon(tmp_path / "typeperf.csv")
    assert info.value.problems == [  # the line in the file, blank lines counted
        "typeperf.csv row 6, column '\\\\VM7\\Processor Information(_Total)\\% "
        "Processor Time': expected a number or a blank, got 'x'."
    ]
    (tmp_path / "typeperf.csv").write_text(
        "\n".join(lines).replace('"x"', '"15"') + "\n"
    )
    s = read_perfmon(tmp_path / "typeperf.csv")
    assert_allclose(series_of(s, "cpu_util"), [0.05, 0.15])
    assert_allclose(series_of(s, "disk_iops"), [10.0, 20.0])  # _Total, not C: too
    assert_allclose(series_of(s, "net_mbps"), [1.0, 2.0])
    assert (
        "VM7: no PhysicalDisk counters; disk metrics come from LogicalDisk(_Total)"
        in (s.quality.notes[0])
    )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.sampled_from(
            (DATA / "en_tokyo_bias.csv").read_text().splitlines()
            + (DATA / "quirks_gmt.csv").read_text().splitlines()
            + ["", '" "', '"x","1"', "garbage", '"(PDH-CSV 4.0)"']
        ),
        max_size=12,
    ),
    st.sampled_from(["utf-8", "utf-16", "cp932"]),
)
def test_any_mix_of_rows_reads_or_raises_series_error(
    lines: list[str], encoding: str
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "mix.csv"
        path.write_bytes("\n".join(lines).encode(encoding))
        try:
            s = read_perfmon(path)
        except SeriesError:
            return
    assert_contract(s.data)


def test_undecodable_file(tmp_path: Path) -> None:
    (tmp_path / "odd.csv").write_bytes(
        b'"(PDH-CSV 4.0) (x)(0)","\\\\H\\\x81\x98\x98\x81\xfd\xfe"\n'
    )
    with pytest.raises(
        SeriesError,
        match=r"^odd.csv: cannot decode the file as utf-8-sig, cp932, cp1252, cp1251; "
        r"save it as UTF-8 or UTF-16 \(Performance Monitor's own CSV\).$",
    ):
        read_perfmon(tmp_path / "odd.csv")


def test_encoding_flag_of_import_and_plan(tmp_path: Path) -> None:
    """--encoding reaches the perfmon reader (the message that names it is true),
    and is refused with one line for a format that does not read it."""
    from typer.testing import CliRunner

    from vsizer.cli import app

    ja = str(DATA / "ja_cp932.csv")
    run = CliRunner().invoke
    r = run(app, ["import", ja, "--format", "perfmon", "--encoding", "latin-1",
                  "--store", str(tmp_path / "a")])
    assert r.exit_code == 2
    assert "The file was decoded as latin-1: if the names look garbled, give --encoding." in (
        " ".join(r.output.split()))
    r = run(app, ["import", ja, "--format", "perfmon", "--encoding", "cp932",
                  "--store", str(tmp_path / "b")])
    assert r.exit_code == 0, r.output
    r = run(app, ["plan", "--series", ja, "--series-format", "sar", "--encoding", "cp932",
                  "-q"])
    assert r.exit_code == 2
    assert "error: --encoding does not apply to series format 'sar'; it accepts: " \
        "--server, --tz." in " ".join(r.output.split())


# ------------------------------------------- daylight-saving changes (issue 24)


def _no_bias_log(tmp_path: Path, times: list[str]) -> Path:
    """A PDH-CSV log whose header has no bias (read with --tz), one CPU counter."""
    lines = ['"(PDH-CSV 4.0)","\\\\APP\\Processor(_Total)\\% Processor Time"']
    lines += [f'"{t}","{10 + i}"' for i, t in enumerate(times)]
    path = tmp_path / "dst.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_overlap_hour_is_read_by_order_with_a_note(tmp_path: Path) -> None:
    """Europe/Berlin falls back at 03:00 CEST on 2024-10-27: the log shows
    02:00-02:59 twice; the first pass is CEST (UTC+2), the second CET (UTC+1)."""
    times = ["10/27/2024 01:30:00.000", "10/27/2024 02:30:00.000",
             "10/27/2024 02:30:00.000", "10/27/2024 03:30:00.000"]  # fmt: skip
    s = read_perfmon(_no_bias_log(tmp_path, times), tz="Europe/Berlin")
    utc = sorted(s.data.loc[s.data["metric"] == "cpu_util", "timestamp"].astype(str))
    assert utc == ["2024-10-26 23:30:00+00:00", "2024-10-27 00:30:00+00:00",
                   "2024-10-27 01:30:00+00:00", "2024-10-27 02:30:00+00:00"]  # fmt: skip
    assert s.quality.notes == [
        "dst.csv: 2 times fall in the daylight-saving overlap of Europe/Berlin "
        "(e.g. '2024-10-27 02:30:00'), when the clock shows an hour twice; the first "
        "occurrence is read as daylight-saving time, the next as standard time "
        "(1 read as standard time)."
    ]


def test_gap_hour_is_one_line_naming_the_gap(tmp_path: Path) -> None:
    """2024-03-31 02:00-02:59 does not exist in Europe/Berlin: it was shifted
    forward silently; now it is a bad row."""
    times = ["03/31/2024 01:30:00.000", "03/31/2024 02:30:00.000", "03/31/2024 03:30:00.000"]
    with pytest.raises(SeriesError) as e:
        read_perfmon(_no_bias_log(tmp_path, times), tz="Europe/Berlin")
    assert str(e.value) == (
        "dst.csv row 3, column '(PDH-CSV 4.0)': expected a local time that exists in "
        "Europe/Berlin (this one is in the daylight-saving gap of Europe/Berlin on "
        "2024-03-31), got '03/31/2024 02:30:00'."
    )
