"""CLI: vsizer import, vsizer collect, vsizer series show."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from vsizer.cli import app
from vsizer.series.store import SeriesStore

pytest.importorskip("pyarrow")

runner = CliRunner()
SYSSTAT = Path(__file__).parent / "data" / "series" / "sysstat"
LONG = (
    "server,timestamp,metric,value,unit\n"
    "web01,2024-05-01T00:00:00Z,cpu_util,0.25,fraction\n"
    "web01,2024-05-01T00:05:00Z,cpu_util,0.5,fraction\n"
    "db01,2024-05-01T00:00:00Z,mem_used_gib,3.5,GiB\n"
)


def run(*args: str):
    return runner.invoke(app, [str(a) for a in args], env={"COLUMNS": "250"})


@pytest.mark.parametrize("cmd", [["import"], ["collect"], ["series", "show"]])
def test_every_series_command_has_help_with_an_example(cmd):
    r = run(*cmd, "--help")
    assert r.exit_code == 0
    assert "Example:" in r.output


def test_import_prints_each_source_and_is_idempotent(tmp_path):
    src = tmp_path / "fleet.csv"
    src.write_text(LONG)
    store = tmp_path / "st"
    r = run("import", src, "--format", "long", "--store", store)
    assert r.exit_code == 0, r.output
    assert "fleet.csv" in r.output
    assert "cpu_util, mem_used_gib" in r.output
    assert "2024-05-01 00:00:00Z" in r.output and "2024-05-01 00:05:00Z" in r.output
    assert f"store: {store}" in r.output
    again = run("import", src, "--format", "long", "--store", store)
    assert again.exit_code == 0
    assert "(already stored)" in again.output
    assert len(SeriesStore.open(store).part_paths()) == 1


def test_import_sysstat_with_tz_and_quality_table(tmp_path):
    store = tmp_path / "st"
    r = run(
        "import",
        SYSSTAT / "sar_u_r_ampm_restart.txt",
        "--format",
        "sar",
        "--tz",
        "Asia/Tokyo",
        "--store",
        store,
    )
    assert r.exit_code == 0, r.output
    assert "quality issues" in r.output and "restart" in r.output
    info = SeriesStore.open(store).parts()[0]
    assert info.source_format == "sar" and info.rows > 0


def test_import_keeps_good_sources_and_exits_2_on_bad_ones(tmp_path):
    good = tmp_path / "good.csv"
    good.write_text(LONG)
    bad = tmp_path / "bad.csv"
    bad.write_text("server,timestamp,metric,value\nweb01,never,cpu_util,0.5\n")
    r = run("import", good, bad, "--format", "long", "--store", tmp_path / "st")
    assert r.exit_code == 2
    assert "error: " in r.output and "bad.csv" in r.output
    assert len(SeriesStore.open(tmp_path / "st").part_paths()) == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--format", "csv"],
            "error: Unknown series format 'csv'; expected one of sar, perfmon, "
            "prometheus, long, wide, planetlab, bitbrains, alibaba, gcd.",
        ),
        (
            ["--format", "long", "--tz", "UTC"],
            "error: --tz does not apply to series format 'long'; it accepts: none.",
        ),
    ],
)
def test_import_option_errors(tmp_path, args, message):
    src = tmp_path / "fleet.csv"
    src.write_text(LONG)
    r = run("import", src, *args, "--store", tmp_path / "st")
    assert r.exit_code == 2
    assert r.output.strip() == message


def test_import_into_a_foreign_directory_is_refused(tmp_path):
    src = tmp_path / "fleet.csv"
    src.write_text(LONG)
    r = run("import", src, "--format", "long", "--store", tmp_path)
    assert r.exit_code == 2
    assert (
        "is not a vsizer series store (no vsizer-store.json) and is not empty"
        in r.output
    )


def test_series_show_summarizes(tmp_path):
    src = tmp_path / "fleet.csv"
    src.write_text(LONG)
    store = tmp_path / "st"
    run("import", src, "--format", "long", "--store", store)
    r = run("series", "show", store)
    assert r.exit_code == 0, r.output
    lines = [line for line in r.output.splitlines() if "web01" in line]
    assert len(lines) == 1
    cells = [c.strip() for c in lines[0].split("│") if c.strip()]
    assert cells == [
        "web01",
        "cpu_util",
        "2024-05-01 00:00:00Z",
        "2024-05-01 00:05:00Z",
        "300",
        "2",
        "2",
    ]
    assert "1 part(s), 0 open journal(s), 3 rows, 0 quality issue(s)" in r.output
    by = run("series", "show", store, "--by-metric")
    assert by.exit_code == 0 and "mem_used_gib" in by.output and "GiB" in by.output


def test_series_show_errors(tmp_path):
    r = run("series", "show", tmp_path / "nope")
    assert r.exit_code == 2
    assert (
        r.output.strip()
        == f"error: {tmp_path / 'nope'}: no such series store (the directory does not exist)"
    )


def test_collect_counts_samples_and_seals(tmp_path):
    store = tmp_path / "st"
    r = run(
        "collect",
        "--interval",
        "50ms",
        "--count",
        "3",
        "--out",
        store,
        "--server",
        "t1",
    )
    assert r.exit_code == 0, r.output
    lines = [line for line in r.output.splitlines() if line.strip()[:1].isdigit()]
    assert [int(line.split()[0]) for line in lines] == [1, 2, 3]
    assert " cpu " in lines[0] and " GiB " in lines[0] and "Mbit/s" in lines[0]
    assert "stopped (count): 3 samples of t1" in r.output
    st = SeriesStore.open(store)
    assert st.journal_paths() == []
    assert len(st.read(metrics=["cpu_util"]).data) == 3


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--interval", "fast"],
            "error: The '--interval' option must be a duration such as 30s, 5min or "
            "1h. Got 'fast' instead.",
        ),
        (
            ["--duration", "-1h"],
            "error: The '--duration' option must be a duration such as 30s, 5min or "
            "1h. Got '-1h' instead.",
        ),
        (
            ["--count", "0"],
            "error: The 'count' parameter of collect must be an int in the range "
            "[1, inf]. Got 0 instead.",
        ),
    ],
)
def test_collect_option_errors(tmp_path, args, message):
    r = run("collect", "--out", tmp_path / "st", *args)
    assert r.exit_code == 2
    assert r.output.strip() == message
