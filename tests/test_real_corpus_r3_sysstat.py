"""Real sysstat outputs, third round (issue 25): sysstat's own test-suite outputs of
data files recorded on real hosts (9.1.6 on Fedora, 11.7.2 on PowerPC), its
``sar --human`` and ``--pretty`` layouts and iostat, plus the locale forms of the
banner date and of the summary label (tests/data/real/sysstat/README.md, "Third
round"). Each test pins figures checked by hand and the defect class it found.

Hand checks (from tests/data/real/sysstat/):

* sar -h, all-CPU %idle: ``awk '/%idle$/ {h=1; next} h && $2=="all" {print $1,
  $NF} /^$/ {h=0}' sysstat_tests_expected.sar-human.txt`` -> 82.9% 95.3% 71.7%
  75.9% (13:20:19 to 13:20:49) and 73.3% (13:54:35).
* sar -h, network: ``awk 'function v(x, u,n){u=substr(x,length(x),1);
  n=substr(x,1,length(x)-1); return n*1024^(index("BkMGTP",u)-1)} /IFACE
  rxpck/ {h=1; next} /^$/ {h=0} h && $2!="lo" && $1~/^[0-9]/ {s[$1]+=v($5)+v($6)}
  END {for (t in s) print t, s[t]*8/1e6}'`` -> 13:20:49 76.824576 Mbit/s, of
  which virbr0 (libvirt's bridge) 1.2k + 1.2k = 0.019661: 76.804915 without it.
* sar -h, values with a unit in the columns vsizer reads: %idle and %iowait of
  the 5 all-CPU rows (10), 7 memory columns x 5 rows (35), rkB/s and wkB/s of 84
  device rows (168), rxkB/s and txkB/s of 35 interface rows (70): 283.
* sar --pretty, 13:20:39, whole disks sda sdf sdg sdr sds: tps 1604.70 + 1.22 +
  2.91 + 3.90 + 3.32 = 1616.05; rkB/s + wkB/s = 52,417.45 KiB/s = 53.675469 MB/s.
* data-9.1.6 (kluane.home, 8 CPU): %idle 99.37 at 08:17:02; kbmemfree 5,647,308 +
  kbmemused 2,508,300 = 8,155,608 KiB = 7.778 GiB; in use without the page cache
  2,508,300 - 78,272 - 1,016,052 = 1,413,976 KiB = 1.348473 GiB.
* sadf -p, first interval: ``awk -F'\t' '$4=="all" && $5=="%idle"'`` -> 82.88;
  device ``-``: tps 20.85, bread/s 57.43, bwrtn/s 38.50, kbmemused 3,755,444
  (%memused 46.11), kbavail 4,389,516 (total 8,144,960 KiB = 7.768 GiB);
  non-``lo`` rxkB/s + txkB/s = 0.65 KiB/s, of which wlp5s0 0.40 KiB/s =
  0.0032768 Mbit/s (virbr0 0.03, virbr0-1 0.22: bridges).
* data-ppc-11.7.2 (partch, 16 CPU): rows at 19:43:21 and 00:03:37 under the banner
  date 04/27/17; kbmemused 578,048 + kbavail 1,468,288 = 2,046,336 KiB =
  1.952 GiB (578,048 / 0.2825 = 2,046,188, within %memused's rounding).
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from vsizer.cli import app
from vsizer.errors import SeriesError
from vsizer.series._sysstat_fields import human_value
from vsizer.series.sysstat import read_sysstat

pytestmark = pytest.mark.slow

SYSSTAT = Path(__file__).parent / "data" / "real" / "sysstat"
HUMAN = SYSSTAT / "sysstat_tests_expected.sar-human.txt"
PRETTY = SYSSTAT / "sysstat_tests_expected.sar-pretty.txt"
V916 = SYSSTAT / "sysstat_tests_expected.data-9.1.6.txt"
PPC = SYSSTAT / "sysstat_tests_expected.data-ppc-11.7.2.txt"
IOSTAT = SYSSTAT / "sysstat_tests_expected.iostat.txt"
SADF_P = SYSSTAT / "sysstat_tests_expected.sadf-p_first_interval.txt"
SADF_P_POWER = SYSSTAT / "sysstat_tests_expected.data-11.6.5-sadf-p.txt"
SADF_X = SYSSTAT / "sysstat_tests_expected.data-11.6.5-sadf-x.xml"
IOSTAT_JSON = SYSSTAT / "sysstat_tests_expected.iostat-x-p-ALL-JSON.json"
runner = CliRunner()


def series(s, metric: str) -> pd.Series:  # type: ignore[no-untyped-def]
    d = s.data[s.data["metric"] == metric]
    return d.set_index("timestamp")["value"]


def issues(s) -> dict[str, dict]:  # type: ignore[no-untyped-def]
    return {i["kind"]: i for i in s.quality.issues}


def at(hms: str, day: str = "2019-04-18") -> pd.Timestamp:
    return pd.Timestamp(f"{day} {hms}Z")


# ------------------------------------------------------------- sar -h (--human)


def test_sar_human_values_read_in_the_columns_unit() -> None:
    # Once: CPU and memory rows ('82.9%', '1.4G') had no plain number, so each was
    # taken for a new table header and dropped with no word; device and interface
    # rows ('0.0k', '25.7B') were refused, 42 errors.
    s = read_sysstat(HUMAN)
    cpu = series(s, "cpu_util")
    assert cpu.round(4).tolist() == [0.171, 0.047, 0.283, 0.241, 0.267]
    assert cpu.index[-1] == at("13:54:35")
    mem = series(s, "mem_used_gib")
    assert mem.tolist() == [pytest.approx(3.6)] * 5  # '3.6G'
    assert series(s, "mem_util").tolist() == [pytest.approx(0.461)] * 5  # '46.1%'
    net = series(s, "net_mbps")
    assert net[at("13:20:49")] == pytest.approx(76.804915, abs=1e-6)  # no virbr*
    assert series(s, "disk_iops")[at("13:20:19")] == pytest.approx(20.85)
    human = issues(s)["human_units"]
    assert human["count"] == 283
    assert human["detail"] == (
        "values printed by sar -h with a unit and one decimal (1.4G, 46.1%) read in "
        "powers of 1024 bytes (sysstat cprintf_unit): rounded to 2 to 4 significant "
        "digits"
    )
    # per-CPU rows '0.0%' all zero still tell offline CPUs
    assert issues(s)["offline"]["count"] == 4


def test_sar_human_plan_warns(tmp_path: Path) -> None:
    out = tmp_path / "plan.json"
    r = runner.invoke(
        app,
        ["plan", "--series", str(HUMAN), "--series-format", "sar",
         "--vm-cpu-mhz", "2600", "-o", str(out)],
        env={"COLUMNS": "250"},
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    doc = json.loads(out.read_text())
    (vm,) = doc["servers"]
    # 3.6 GiB x 100 / 46.1: the rounded fields fit no sum of sar -r fields
    assert (vm["vcpus"], vm["mem_gib"], vm["cpu_peak_util"]) == (10, 7.809, 0.267)
    (w,) = [w for w in doc["warnings"] if w["code"] == "series_human_units"]
    assert w["servers"] == ["SYSSTAT.TEST"]


@pytest.mark.parametrize(
    ("text", "name", "value"),
    [
        ("25.7B", "rxkB/s", 25.7 / 1024),
        ("64.4k", "rxkB/s", 64.4),
        ("1.4G", "kbmemfree", 1.4 * 1024**2),
        ("0.5k", "areq-sz", None),  # not a size column vsizer knows as such
        ("46.1%", "%memused", 46.1),
        ("3.5M", "MBfsfree", 3.5),
        ("2.0k", "rxbyt/s", 2048.0),
        ("1.2k", "tps", None),
        ("5%", "kbmemused", None),
        ("12,5%", "%idle", 12.5),
    ],
)
def test_human_value(text: str, name: str, value: float | None) -> None:
    got = human_value(text, name)
    assert got == (None if value is None else pytest.approx(value))


def test_a_unit_on_a_count_is_an_error(tmp_path: Path) -> None:
    f = tmp_path / "b.txt"
    f.write_text(
        "Linux 6.1 (h) \t04/18/19 \t_x86_64_\t(2 CPU)\n\n"
        "13:20:09          tps      rtps      wtps   bread/s   bwrtn/s\n"
        "13:20:19         1.2k      0.00      0.00      0.00      0.00\n"
    )
    with pytest.raises(SeriesError) as info:
        read_sysstat(f)
    assert info.value.problems == [
        "b.txt line 4: expected a number for 'tps', got '1.2k'."
    ]


# --------------------------------------------- other layouts and real hosts' data


def test_sar_pretty_device_name_last() -> None:
    s = read_sysstat(PRETTY)
    assert series(s, "disk_iops")[at("13:20:39")] == pytest.approx(1616.05)
    assert series(s, "disk_mb_s")[at("13:20:39")] == pytest.approx(53.6754688)
    assert s.metadata["disk_source"] == ["sum over devices (sar -d)"]


def test_sysstat_9_1_6_data_of_kluane() -> None:
    s = read_sysstat(V916)
    assert s.metadata["hosts"] == ["kluane.home"]
    assert series(s, "cpu_util").to_dict() == {
        at("08:17:02", "2017-01-21"): pytest.approx(0.0063)
    }
    assert series(s, "mem_used_gib").iloc[0] == pytest.approx(1.348473, abs=1e-6)
    m = s.metadata["machines"]["kluane.home"]
    assert (m["cpu_count"], m["mem_gib"]) == (8, 7.778)
    assert issues(s)["page_cache"]["count"] == 1
    assert s.metadata["restarts"] == [
        {"server": "kluane.home", "time": "2017-01-21T08:16:11Z", "detail": "(8 CPU)"}
    ]


def test_ppc_rows_roll_past_midnight() -> None:
    s = read_sysstat(PPC)
    cpu = series(s, "cpu_util")
    assert cpu.index.tolist() == [
        at("19:43:21", "2017-04-27"), at("00:03:37", "2017-04-28")
    ]
    assert cpu.tolist() == [0.0, 0.0]
    m = s.metadata["machines"]["partch"]
    assert (m["cpu_count"], m["mem_gib"]) == (16, 1.952)


@pytest.mark.parametrize(
    ("path", "line", "shown"),
    [
        (IOSTAT, 3, "avg-cpu:  %user   %nice %system %iowait  %steal   %idle"),
        (IOSTAT_JSON, 12, '"avg-cpu":  {"user": 1.49, "nice": 39.91, "system": '
         '1.67, "iowait": 0.94, "st...'),
    ],
)  # fmt: skip
def test_iostat_refused_in_one_line(path: Path, line: int, shown: str) -> None:
    # once: one "expected a time (HH:MM:SS)" per row (12), or per JSON record
    with pytest.raises(SeriesError) as info:
        read_sysstat(path)
    assert str(info.value) == (
        f"{path.name} line {line}: expected sar or sadf output, got iostat output "
        f"('{shown}'), which vsizer does not read; give 'sar -u -d' text or "
        "'sadf -d -- -u -d'."
    )


# ------------------------------------------------------------ virtual interfaces


def test_bridges_left_out_of_net_mbps() -> None:
    # libvirt's virbr0/virbr0-nic were summed with the NIC: a VM's traffic counted
    # on its tap, the bridge and the NIC alike
    s = read_sysstat(HUMAN)
    assert issues(s)["virtual_interfaces"] == {
        "server": "SYSSTAT.TEST",
        "kind": "virtual_interfaces",
        "count": 5,
        "detail": "virbr0, virbr0-1, virbr0-nic left out of net_mbps (bridges, their "
        "ports, tunnels, VLANs: their traffic crosses a listed physical interface "
        "too); up to 0.0196608 Mbit/s left out",
    }


@pytest.mark.parametrize(
    ("ifaces", "mbps"),
    [
        # a Docker host: a container's traffic crosses eth0, docker0 and its veth
        ({"eth0": 1000, "docker0": 1000, "veth1a2b3c": 1000, "lo": 50}, 1000),
        # VLAN 100 of a listed eth0, and a bond with its slaves (not told apart)
        ({"eth0": 1000, "eth0.100": 1000}, 1000),
        ({"bond0": 1000, "eth0": 500, "eth1": 500}, 2000),
        # inside a container only the veth end (named eth0) or a bridge is seen
        ({"br0": 250}, 250),
    ],
)
def test_interfaces_counted(
    tmp_path: Path, ifaces: dict[str, float], mbps: float
) -> None:
    rows = ["00:00:01        IFACE   rxpck/s   txpck/s    rxkB/s    txkB/s"] + [
        f"00:00:02 {n:>12}      1.00      1.00 {v / 2:9.2f} {v / 2:9.2f}"
        for n, v in ifaces.items()
    ]
    s = read_sysstat(sar_file(tmp_path, "2022-03-05", rows))
    assert series(s, "net_mbps").iloc[0] == pytest.approx(mbps * 8 * 1024 / 1e6)


# ---------------------------------------------------------------------- sadf -p


def test_sadf_p_read() -> None:
    # sadf's default form (-p) was refused whole: "expected sysstat output (sadf
    # -d, sadf -dh, sadf -j or sar text), got 'SYSSTAT.TEST\t-1\t...'"
    s = read_sysstat(SADF_P)
    assert s.metadata["variant"] == "sadf -p"
    t = at("13:20:19")
    got = {m: series(s, m)[t] for m in sorted(set(s.data["metric"]))}
    assert got == {
        "cpu_util": pytest.approx(0.1712),
        "disk_iops": pytest.approx(20.85),
        "disk_mb_s": pytest.approx((57.43 + 38.50) * 512 / 1e6),
        "mem_used_gib": pytest.approx(3_755_444 / 2**20),
        "mem_util": pytest.approx(0.4611),
        "net_mbps": pytest.approx(0.0032768),  # wlp5s0; virbr0, virbr0-1 left out
    }
    assert s.metadata["disk_source"] == ["I/O totals (sar -b)"]
    assert s.metadata["intervals_s"] == [31]
    m = s.metadata["machines"]["SYSSTAT.TEST"]
    assert (m["cpu_count"], m["mem_gib"]) == (10, 7.768)  # the later restart's 10
    assert [r["time"] for r in s.metadata["restarts"]] == [
        "2019-04-18T13:37:29Z", "2019-04-18T13:54:09Z"
    ]
    # per-CPU rows (device 0 to 8) tell the CPUs: none offline in this interval
    assert "offline" not in issues(s)


def test_sadf_p_of_power_management_only() -> None:
    s = read_sysstat(SADF_P_POWER)
    assert s.data.empty
    assert s.metadata["ignored_records"] == {
        "DEVICE;rpm;drpm": 4, "DEVICE;degC;%temp": 9, "DEVICE;inV;%in": 4
    }


def test_sadf_p_bad_lines_named(tmp_path: Path) -> None:
    f = tmp_path / "p.txt"
    f.write_text(
        "h\t60\t2019-04-18 13:20:19 UTC\tall\t%idle\t82.88\n"
        "h\t60\t2019-04-18 13:21:19 UTC\tall\t%idle\tlots\n"
        "h\t60\t2019-04-18 25:21:19 UTC\tall\t%idle\t80.00\n"
        "h 60 2019-04-18 13:22:19 UTC all %idle 80.00\n"
    )
    with pytest.raises(SeriesError) as info:
        read_sysstat(f)
    assert info.value.problems == [
        "p.txt line 2: expected a number for '%idle', got 'lots'.",
        "p.txt line 3: expected a time such as '2019-04-18 13:20:19 UTC', got "
        "'2019-04-18 25:21:19 UTC'.",
        "p.txt line 4: expected 'hostname<TAB>interval<TAB>timestamp<TAB>device<TAB>"
        "field<TAB>value' (sadf -p), got 'h 60 2019-04-18 13:22:19 UTC all %idle "
        "80.00'.",
    ]


def test_sadf_x_refused_naming_what_to_give() -> None:
    with pytest.raises(SeriesError) as info:
        read_sysstat(SADF_X)
    assert str(info.value) == (
        "sysstat_tests_expected.data-11.6.5-sadf-x.xml line 1: expected sysstat "
        "output (sadf -d, sadf -dh, sadf -j, sadf -p or sar text), got '<?xml "
        "version=\"1.0\" encoding=\"UTF-8\"?>' (XML or SVG, as sadf -x or -g writes, "
        "is not read: give sadf -j or -d)."
    )


# ------------------------------------------------------------------ locale forms

CPU_HEAD = "CPU     %user     %nice   %system   %iowait    %steal     %idle"


def sar_file(tmp_path: Path, date: str, rows: list[str], name: str = "s.txt") -> Path:
    f = tmp_path / name
    f.write_text(
        f"Linux 5.14.0-202.el9.x86_64 (localhost) \t{date} \t_x86_64_\t(3 CPU)\n\n"
        + "\n".join(rows) + "\n",
        encoding="utf-8",
    )  # fmt: skip
    return f


PT_BR = [
    "23:27:45     LINUX RESTART\t(3 CPU)",
    "",
    f"23:30:01        {CPU_HEAD}",
    "23:30:17        all      0,21      0,00      1,85      0,04      0,00     97,90",
    "Média:         all      0,21      0,00      1,85      0,04      0,00     97,90",
]


def test_pt_br_slashed_date_read_day_first(tmp_path: Path) -> None:
    # pt_BR (glibc d_fmt %d/%m/%Y), as a RHEL 9 tutorial's `sar` shows it; once
    # read as April 1 with the C-locale guess
    s = read_sysstat(sar_file(tmp_path, "04/01/2023", PT_BR))
    assert series(s, "cpu_util").to_dict() == {
        pd.Timestamp("2023-01-04 23:30:17Z"): pytest.approx(0.021)
    }
    assert [i["detail"] for i in s.quality.issues if i["kind"] == "unit_guess"][1] == (
        "banner date '04/01/2023' read as day/month/year (a decimal comma shows a "
        "non-English locale, which writes the day first)"
    )


def test_a_translated_summary_alone_shows_the_locale(tmp_path: Path) -> None:
    rows = [r.replace(",", ".") if not r.startswith("Média") else r for r in PT_BR]
    s = read_sysstat(sar_file(tmp_path, "04/01/2023", rows))
    assert series(s, "cpu_util").index[0] == pd.Timestamp("2023-01-04 23:30:17Z")
    assert "the summary 'Média:' shows" in str(s.quality.issues)


def test_c_locale_slashed_date_stays_month_first(tmp_path: Path) -> None:
    rows = [r.replace(",", ".").replace("Média:", "Average:") for r in PT_BR]
    s = read_sysstat(sar_file(tmp_path, "04/01/2023", rows))
    assert series(s, "cpu_util").index[0] == pd.Timestamp("2023-04-01 23:30:17Z")
    assert "read as month/day/year (C locale)" in str(s.quality.issues)


def test_english_extrema_labels_are_no_locale_hint(tmp_path: Path) -> None:
    # sar -x prints 'Minimum:', 'Maximum:', 'Last:' (sysstat.pot): English, so a
    # slashed date stays month first (a first draft read sar -Ax day first)
    rows = [r.replace(",", ".") for r in PT_BR[:4]] + [
        f"Summary:        {CPU_HEAD}",
        "Minimum:        all      0.21      0.00      1.85      0.04      0.00     97.90",
        "Maximum:        all      0.21      0.00      1.85      0.04      0.00     97.90",
        "Last:           all      0.21      0.00      1.85      0.04      0.00     97.90",
    ]
    s = read_sysstat(sar_file(tmp_path, "04/01/2023", rows))
    assert series(s, "cpu_util").index[0] == pd.Timestamp("2023-04-01 23:30:17Z")


@pytest.mark.parametrize(
    ("date", "day"),
    [
        ("02-03-2022", "2022-03-02"),  # pt_PT (older glibc), da_DK, tr_TR %d-%m-%Y
        ("28-05-20", "2020-05-28"),  # nl_NL %d-%m-%y
        ("5.3.2022", "2022-03-05"),  # cs_CZ %-d.%-m.%Y
        ("05.03.22", "2022-03-05"),  # uk_UA %d.%m.%y
        ("2022-03-05", "2022-03-05"),  # sv_SE, hu_HU, S_TIME_FORMAT=ISO
        ("2022년 03월 05일", "2022-03-05"),  # ko_KR, with spaces
        ("2022年03月05日", "2022-03-05"),  # ja_JP, zh_CN
    ],
)
def test_banner_dates_of_glibc_locales(tmp_path: Path, date: str, day: str) -> None:
    # '02-03-2022' and '28-05-20' were refused ("expected a date such as
    # 04/18/19 or 2019-04-18"); the Korean date split the banner at its spaces
    rows = [
        f"21:40:01        {CPU_HEAD}",
        "21:50:01        all      6,23      0,00      4,42      0,52      0,00     88,83",
    ]
    s = read_sysstat(sar_file(tmp_path, date, rows))
    assert series(s, "cpu_util").to_dict() == {
        pd.Timestamp(f"{day} 21:50:01Z"): pytest.approx(0.1117)
    }
    assert s.metadata["machines"]["localhost"]["cpu_count"] == 3


@pytest.mark.parametrize(
    "label", ["Moyenne :", "Trung bình:", "平均時間：", "Durchschn.:"]
)
def test_translated_summaries_between_tables(tmp_path: Path, label: str) -> None:
    # fr 'Moyenne :' (space before the colon), vi 'Trung bình:', zh_TW '平均時間：'
    # (fullwidth colon): once "expected a time (HH:MM:SS) ... got 'Moyenne'" when
    # another table followed, or counted as a footer when last
    rows = [
        f"21:40:01        {CPU_HEAD}",
        "21:50:01        all      6,23      0,00      4,42      0,52      0,00     88,83",
        f"{label}       all      6,23      0,00      4,42      0,52      0,00     88,83",
        "",
        "21:40:01    kbmemfree kbmemused  %memused kbbuffers  kbcached",
        "21:50:01      1048576   3145728     75,00         0         0",
        f"{label}      1048576   3145728     75,00         0         0",
    ]
    s = read_sysstat(sar_file(tmp_path, "02.03.2022", rows))
    assert series(s, "mem_used_gib").tolist() == [3.0]
    assert s.metadata["skipped_lines"] == 0
    assert s.metadata["machines"]["localhost"]["mem_gib"] == 4.0


def test_a_label_line_that_is_no_summary_stays_an_error(tmp_path: Path) -> None:
    # a wrapper's 'Load average: 0,52 0,61' has not the table's fields: not
    # skipped as a summary of more words
    rows = [
        f"21:40:01        {CPU_HEAD}",
        "21:50:01        all      6,23      0,00      4,42      0,52      0,00     88,83",
        "Load average: 0,52 0,61",
        "21:51:01        all      6,23      0,00      4,42      0,52      0,00     88,83",
    ]
    with pytest.raises(SeriesError) as info:
        read_sysstat(sar_file(tmp_path, "02.03.2022", rows))
    assert info.value.problems == [
        "s.txt line 5: expected a time (HH:MM:SS) at the start of the line, "
        "'Average:' or a 'Linux ...' banner, got 'Load'."
    ]
