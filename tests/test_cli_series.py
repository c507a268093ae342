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
            "prometheus, long, wide, planetlab, bitbrains, alibaba, gcd, azure.",
        ),
        (
            ["--format", "long", "--metric", "cpu_util"],
            "error: --metric does not apply to series format 'long'; it "
            "accepts: --tz.",
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
            "[1, inf). Got 0 instead.",
        ),
    ],
)
def test_collect_option_errors(tmp_path, args, message):
    r = run("collect", "--out", tmp_path / "st", *args)
    assert r.exit_code == 2
    assert r.output.strip() == message


# ------------------------------------------- shared reader flags: import and plan

WIDE_INDEX = Path(__file__).parent / "data" / "series" / "tabular" / "wide_index.csv"
SIZES = ("--vm-cpu-mhz", "2000", "--vm-mem-gib", "4")


def _plan_json(tmp_path, *args):
    import json

    out = tmp_path / "plan.json"
    r = run("plan", "--series", WIDE_INDEX, "--series-format", "wide", *SIZES,
            *args, "-q", "-o", out)  # fmt: skip
    assert r.exit_code == 0, r.output
    return json.loads(out.read_text(encoding="utf-8"))


@pytest.mark.parametrize("step_flag", ["--step", "--series-step"])
def test_import_wide_step_index_with_start_and_step(tmp_path, step_flag):
    store = tmp_path / "st"
    r = run("import", WIDE_INDEX, "--format", "wide", "--index-column", "step",
            "--start", "2019-11-01T09:00", "--tz", "Asia/Tokyo", step_flag, "10min",
            "--metric", "cpu_pct", "--store", store)  # fmt: skip
    assert r.exit_code == 0, r.output
    data = SeriesStore.open(store).read()
    a = data.data[data.data["server"] == "a"]
    assert len(a) == 24
    assert a["timestamp"].iloc[0].isoformat() == "2019-11-01T00:00:00+00:00"
    assert a["timestamp"].iloc[-1].isoformat() == "2019-11-01T03:50:00+00:00"
    assert a["value"].iloc[-1] == pytest.approx(0.24)


def test_plan_wide_step_index_default_assumptions_and_flags(tmp_path):
    doc = _plan_json(tmp_path)
    s = doc["series"]
    assert (s["start"], s["end"], s["steps"]) == (
        "2000-01-03T00:00:00Z",
        "2000-01-03T01:55:00Z",
        24,
    )
    assert s["quality_notes"][0].startswith(
        "wide_index.csv: column 'step' is a step index (by its name; 1..24), not "
        "Unix time: step 300 s assumed"
    )
    doc = _plan_json(tmp_path, "--start", "2019-11-01T00:00Z", "--series-step",
                     "10min", "--metric", "cpu_util", "--unit", "%")  # fmt: skip
    s = doc["series"]
    # 24 samples 10 min apart on the 5-min grid: 230 min / 5 + 1 = 47 steps.
    assert (s["start"], s["end"], s["steps"]) == (
        "2019-11-01T00:00:00Z",
        "2019-11-01T03:50:00Z",
        47,
    )
    doc = _plan_json(tmp_path, "--series-step", "1s")
    assert (
        "3 server(s) (a, b, c) are sampled every 1 s but the plan grid step (--step) "
        "is 300 s, more than 10x apart: 300 samples averaged into each grid step. "
        "Check the input's step (--series-step, --index-column) or set --step."
    ) in doc["series"]["quality_notes"]


@pytest.mark.parametrize(
    ("command", "args", "message"),
    [
        (
            "import",
            ["--format", "long", "--index-column", "t"],
            "error: --index-column does not apply to series format 'long'; it "
            "accepts: --tz.",
        ),
        (
            "plan",
            ["--series-format", "long", "--index-column", "t"],
            "error: --index-column does not apply to series format 'long'; it "
            "accepts: --tz.",
        ),
        (
            "import",
            ["--format", "bitbrains", "--series-step", "5min", "--server", "x"],
            "error: --server, --series-step do not apply to series format "
            "'bitbrains'; it accepts: none of the reader flags.",
        ),
        (
            "plan",
            ["--series-format", "bitbrains", "--series-step", "5min", "--server", "x"],
            "error: --server, --series-step do not apply to series format "
            "'bitbrains'; it accepts: none of the reader flags.",
        ),
        (
            "plan",
            ["--metric", "cpu_util", "--start", "2024-01-01"],
            "error: --metric, --start: reader flags apply to --series files read "
            "with --series-format; give --series-format, or leave them out for a "
            "series store (it was read with them at 'vsizer import').",
        ),
        (
            "plan",
            ["--series-format", "wide", "--series-step", "often"],
            "error: The '--series-step' option must be a duration such as 30s, 5min "
            "or 1h. Got 'often' instead.",
        ),
        (
            "import",
            ["--format", "wide", "--step", "often"],
            "error: The '--series-step' option must be a duration such as 30s, 5min "
            "or 1h. Got 'often' instead.",
        ),
    ],
)
def test_reader_flag_errors_on_both_commands(tmp_path, command, args, message):
    src = tmp_path / "fleet.csv"
    src.write_text(LONG)
    if command == "import":
        r = run("import", src, *args, "--store", tmp_path / "st")
    else:
        r = run("plan", "--series", src, *args, *SIZES)
    assert r.exit_code == 2
    assert r.output.strip() == message


def test_import_and_plan_read_a_gz_wide_file(tmp_path):
    import gzip

    packed = tmp_path / "wide_index.csv.gz"
    packed.write_bytes(gzip.compress(WIDE_INDEX.read_bytes()))
    r = run("import", packed, "--format", "wide", "--store", tmp_path / "st")
    assert r.exit_code == 0, r.output
    assert "wide_index.csv.gz" in r.output
    assert len(SeriesStore.open(tmp_path / "st").read().data) == 72  # 3 x 24
