"""sar as collected (issue 23, part C): footers and comments cost a count, and a
sar-only plan sizes each server from the file's CPU count and memory total.

The fixture ``sar_r_u_14cpu_footer.txt`` is a faithful reconstruction of the case
in the issue (sysstat ``sar -u -r`` text of a 14-CPU host with 512 GiB, about
160 GiB in use, and a 4-line ``## ...`` footer a collection tool appended).
Figures checked by hand from the file: 11 samples 300 s apart (00:05:01 to
00:55:01), %idle lowest 40.00 at 12:30:01 AM (CPU 60 % busy), kbmemused highest
168,820,736 KiB = 161.0 GiB at the same time, kbmemfree + kbmemused + kbbuffers
+ kbcached = 536,870,912 KiB = 512 GiB on every row (%memused 31.45 =
168,820,736 / 536,870,912).
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from vsizer.cli import app
from vsizer.errors import SeriesError
from vsizer.series.store_parts import part_info
from vsizer.series.sysstat import read_sysstat

DATA = Path(__file__).parent / "data" / "series" / "sysstat"
SAR14 = DATA / "sar_r_u_14cpu_footer.txt"
runner = CliRunner()


def run(*args: object) -> str:
    r = runner.invoke(app, [str(a) for a in args], env={"COLUMNS": "250"})
    assert r.exit_code == 0, r.output
    return r.output


def without_footer(tmp_path: Path) -> Path:
    lines = SAR14.read_text().splitlines(keepends=True)
    out = tmp_path / SAR14.name
    out.write_text("".join(lines[:-5]))  # the blank line and the 4 '##' lines
    return out


def test_footer_is_skipped_and_counted(tmp_path: Path) -> None:
    s = read_sysstat(SAR14)
    bare = read_sysstat(without_footer(tmp_path))
    pd.testing.assert_frame_equal(s.data, bare.data)
    skipped = [i for i in s.quality.issues if i["kind"] == "skipped_lines"]
    assert skipped == [
        {
            "server": "db01",
            "kind": "skipped_lines",
            "count": 4,
            "detail": "4 comment or footer lines of sar_r_u_14cpu_footer.txt not "
            "read (first on line 30: '## collected by sarcollect on db01')",
        }
    ]
    assert s.metadata["skipped_lines"] == 4
    assert not [i for i in bare.quality.issues if i["kind"] == "skipped_lines"]


def test_figures_read_by_hand() -> None:
    s = read_sysstat(SAR14)
    cpu = s.data[s.data["metric"] == "cpu_util"].set_index("timestamp")["value"]
    assert len(cpu) == 11 and s.metadata["median_interval_s"] == 300
    assert cpu.max() == pytest.approx(0.60)
    assert cpu.idxmax() == pd.Timestamp("2025-11-20 00:30:01Z")  # no --tz: as UTC
    mem = s.data[s.data["metric"] == "mem_used_gib"]["value"]
    assert mem.max() == pytest.approx(168_820_736 / 2**20)  # 161.0 GiB
    assert s.metadata["machines"] == {
        "db01": {
            "cpu_count": 14,
            "vcpus": 14,
            "cpu_count_from": "the sysstat file's CPU count: sar banner '(N CPU)', "
            "LINUX RESTART",
            "mem_gib": 512.0,
            "mem_gib_from": "sar -r (kbmemused x 100 / %memused)",
        }
    }


def test_comment_inside_is_counted_but_garbage_inside_is_an_error(
    tmp_path: Path,
) -> None:
    lines = SAR14.read_text().splitlines()
    commented = tmp_path / "commented.txt"
    commented.write_text("\n".join([*lines[:5], "# sampled by cron", *lines[5:]]))
    s = read_sysstat(commented)
    counted = [i for i in s.quality.issues if i["kind"] == "skipped_lines"]
    assert counted[0]["count"] == 5 and "first on line 6: '# sampled by cron'" in (
        counted[0]["detail"]
    )
    dated = tmp_path / "dated.txt"  # a footer starting with a digit is a footer
    dated.write_text("\n".join([*lines, "2025-11-20 01:00 collection done"]))
    assert read_sysstat(dated).metadata["skipped_lines"] == 5
    cut = tmp_path / "cut.txt"  # a last row cut short is not
    cut.write_text("\n".join([*lines[:27], "12:5"]))
    with pytest.raises(SeriesError, match="cut.txt line 28: expected a time"):
        read_sysstat(cut)
    titled = tmp_path / "titled.txt"  # text without a number: a wrapper's title
    titled.write_text("\n".join([*lines[:5], "collected by cron", *lines[5:]]))
    (foreign,) = [
        i for i in read_sysstat(titled).quality.issues if i["kind"] == "foreign_lines"
    ]
    assert foreign["detail"] == (
        "1 line of titled.txt (not sar's: no time first) not read (first on line 6: "
        "'collected by cron')"
    )
    garbage = tmp_path / "garbage.txt"  # with numbers it may be data: an error
    garbage.write_text("\n".join([*lines[:5], "cpu 12.50 87.50", *lines[5:]]))
    with pytest.raises(SeriesError) as info:
        read_sysstat(garbage)
    assert info.value.problems == [
        "garbage.txt line 6: expected a time (HH:MM:SS) at the start of the line, "
        "'Average:' or a 'Linux ...' banner, got 'cpu'."
    ]


def test_sadf_d_footer_and_comment(tmp_path: Path) -> None:
    head = "# hostname;interval;timestamp;CPU;%user;%nice;%system;%iowait;%steal;%idle"
    rows = [f"h;60;2024-01-01 00:0{i}:00 UTC;-1;1.00;0.00;1.00;0.00;0.00;50.00"
            for i in range(3)]  # fmt: skip
    path = tmp_path / "d.csv"
    path.write_text("\n".join(["# exported by tool 2.1", head, *rows, "", "## end"]))
    s = read_sysstat(path)
    assert len(s.data) == 3
    issue = [i for i in s.quality.issues if i["kind"] == "skipped_lines"][0]
    assert issue["count"] == 2 and "first on line 1: '# exported by tool 2.1'" in (
        issue["detail"]
    )
    path.write_text("\n".join([head, *rows, "h;60"]))  # a cut last row stays an error
    with pytest.raises(SeriesError, match="line 5: expected 'hostname;interval"):
        read_sysstat(path)


def test_memory_total_of_each_sysstat_generation() -> None:
    from vsizer.series._sysstat_sizes import mem_total_kib as _mem_total_kib

    # older sysstat: used = total - free
    old = {"mem_free_kib": 250.0, "mem_used_kib": 750.0, "mem_used_pct": 75.0}
    assert _mem_total_kib(old) == 1000.0
    # current: used = total - free - buffers - cached - slab (pr_stats.c)
    new = {"mem_free_kib": 100.0, "mem_used_kib": 500.0, "mem_used_pct": 50.0,
           "mem_buffers_kib": 100.0, "mem_cached_kib": 250.0, "mem_slab_kib": 50.0}  # fmt: skip
    assert _mem_total_kib(new) == 1000.0
    # no sum agrees: kbmemused x 100 / %memused
    odd = {"mem_free_kib": 1.0, "mem_used_kib": 400.0, "mem_used_pct": 40.0}
    assert _mem_total_kib(odd) == 1000.0
    assert _mem_total_kib({"mem_used_kib": 1.0}) is None


def plan_json(tmp_path: Path, sar: Path, *extra: object) -> dict:
    store = tmp_path / f"store-{sar.stem}-{len(list(tmp_path.iterdir()))}"
    run("import", sar, "--format", "sar", "--store", store)
    out = tmp_path / f"{store.name}.json"
    run("plan", "--series", store, "--vm-cpu-mhz", 2594, *extra, "-o", out)
    doc: dict = json.loads(out.read_text())
    return doc


def test_sar_only_plan_plans_the_banner_cpus(tmp_path: Path) -> None:
    doc = plan_json(tmp_path, SAR14, "--vm-mem-gib", 64)
    (vm,) = doc["servers"]
    assert vm["name"] == "db01"
    assert vm["sockets"] * vm["cores_per_socket"] == 14 and vm["vcpus"] == 14
    assert vm["cpu_mhz"] == 2594.0  # MHz per core, as --help says
    assert vm["cpu_capacity"] == pytest.approx(14 * vm["cpu_score_per_core"])
    assert vm["cpu_peak_util"] == pytest.approx(0.60)
    assert vm["cpu_peak_demand"] == pytest.approx(0.60 * vm["cpu_capacity"], rel=1e-4)
    assert vm["mem_gib"] == 64.0
    notes = doc["quality"]["servers"][0]["notes"]
    assert notes["mem_gib"] == "--vm-mem-gib 64.0"
    assert "assumed_mem_gib" in [w["code"] for w in doc["warnings"]]
    (warning,) = [w for w in doc["warnings"] if w["code"] == "mem_in_use_over_size"]
    assert warning["servers"] == ["db01"]
    assert warning["message"].startswith(
        "Server db01: its series shows up to 161.0 GiB of memory in use, more than "
        "the 64 GiB it is sized with"
    )


def test_sar_only_plan_takes_the_memory_total_without_vm_mem_gib(
    tmp_path: Path,
) -> None:
    doc = plan_json(tmp_path, SAR14)
    (vm,) = doc["servers"]
    assert vm["mem_gib"] == 512.0 and vm["vcpus"] == 14
    assert not [w for w in doc["warnings"] if w["code"] == "mem_in_use_over_size"]
    notes = doc["quality"]["servers"][0]["notes"]
    assert notes["mem_gib"] == "sar -r (kbmemused x 100 / %memused)"
    assert notes["cores_per_socket"].startswith("CPU count 14 (the sysstat file")


def test_a_footer_costs_nothing_but_a_count(tmp_path: Path) -> None:
    with_footer = plan_json(tmp_path, SAR14, "--vm-mem-gib", 64)
    bare = plan_json(tmp_path, without_footer(tmp_path), "--vm-mem-gib", 64)
    for key in ("servers", "pools", "demand"):
        assert with_footer[key] == bare[key], key
    counted = {**bare["summary"], "warnings": bare["summary"]["warnings"] + 1}
    assert with_footer["summary"] == counted
    codes = [w["code"] for w in with_footer["warnings"]]
    assert [c for c in codes if c != "series_skipped_lines"] == [
        w["code"] for w in bare["warnings"]
    ]
    assert "series_skipped_lines" in codes


def test_a_store_part_written_before_machines_gives_its_cpu_count() -> None:
    meta = {
        "source_format": "sar",
        "servers": ["db-renamed"],
        "metadata": {"variant": "sar", "cpu_count": {"db01": 14}},
    }
    assert part_info("p.parquet", meta).machines == {
        "db-renamed": {
            "cpu_count": 14,
            "vcpus": 14,
            "cpu_count_from": "the sysstat file's CPU count (store part metadata)",
        }
    }
    meta["source_format"] = "long"
    assert part_info("p.parquet", meta).machines == {}


def test_cjk_locale_clocks_and_average_lines() -> None:
    # sar prints times in the locale's %X (glibc localedata t_fmt): reconstructed
    # from sysstat 9.0.4 output under ja_JP.UTF-8 (RHEL 6) and sysstat 12 output
    # under zh_CN and ko_KR, as published in Japanese, Chinese and Korean docs.
    ja = read_sysstat(DATA / "sar_u_r_ja_jp_rhel6.txt")
    cpu = ja.data[ja.data["metric"] == "cpu_util"]
    assert cpu["timestamp"].tolist() == [
        pd.Timestamp(f"2015-01-23 18:25:{s}Z") for s in (48, 49, 50)
    ]
    assert cpu["value"].tolist() == [1.0, 1.0, 1.0]  # %idle 0.00
    # older sysstat: kbmemfree + kbmemused = 1,016,372 KiB (782,688 / 77.01 %)
    assert ja.metadata["machines"]["server.example.com"]["mem_gib"] == 0.969
    zh_ko = read_sysstat(DATA / "sar_r_zh_ko_clock.txt")
    assert sorted(zh_ko.data["timestamp"].unique()) == [
        pd.Timestamp("2025-05-21 21:47:25Z"),  # 21시 47분 25초
        pd.Timestamp("2025-05-21 22:27:51Z"),  # 22时27分51秒
    ]
    assert zh_ko.metadata["machines"]["fedora"]["cpu_count"] == 16
