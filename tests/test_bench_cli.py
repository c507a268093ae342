"""`vsizer bench` CLI: help with examples, error lines and exit codes."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from vsizer.bench.samples import Sample, append_samples
from vsizer.cli import app

runner = CliRunner()


@pytest.mark.parametrize("command", ["run", "tiles", "report", "export"])
def test_help_has_example(command):
    res = runner.invoke(app, ["bench", command, "--help"])
    assert res.exit_code == 0
    assert "Example: vsizer bench " + command in res.output


def test_run_unknown_suite():
    res = runner.invoke(app, ["bench", "run", "nosuch"])
    assert res.exit_code == 2
    assert res.output.startswith("error: nosuch: no such suite file, and not a bundled suite (bundled: quick")


def test_run_bad_env():
    res = runner.invoke(app, ["bench", "run", "quick", "--env", "cloud", "-w", "cpu"])
    assert res.exit_code == 2
    assert "error: --env must be one of physical, vm, both; got 'cloud'." in res.output


def test_run_unknown_workload():
    res = runner.invoke(app, ["bench", "run", "quick", "-w", "gpu"])
    assert res.exit_code == 2
    assert "error: suite quick: no workload 'gpu'; it has cpu, disk, network, database, web." in res.output


def test_tiles_bad_kind():
    res = runner.invoke(app, ["bench", "tiles", "--max", "2", "--tile", "cpu,java"])
    assert res.exit_code == 2
    assert "error: bench tiles: unknown guest kind(s) 'java'" in res.output


def test_export_needs_exactly_one_format(tmp_path):
    for extra in ([], ["--for-fit", "--parquet"]):
        res = runner.invoke(app, ["bench", "export", *extra, "--store", str(tmp_path / "s.jsonl")])
        assert res.exit_code == 2
        assert res.output == "error: choose one export format: --for-fit or --parquet\n"


def test_export_parquet_keeps_every_sample_typed(tmp_path):
    import pandas as pd

    store = tmp_path / "s.jsonl"
    append_samples(store, [
        Sample("events_per_s", 505.25, "events/s",
               {"workload": "cpu", "threads": 1, "emulated": True, "loads": [0.1, 0.2]}, 1.0),
        Sample("events_per_s", 990.5, "events/s",
               {"workload": "cpu", "threads": "all", "emulated": True}, 2.0),
        Sample("iops", 1200.0, "IO/s", {"workload": "disk", "queue_depth": 16}, 3.0),
    ])
    out = tmp_path / "x" / "samples.parquet"
    res = runner.invoke(app, ["bench", "export", "--parquet", "--store", str(store), "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert " ".join(res.output.split()) == f"wrote 3 rows to {out}"
    frame = pd.read_parquet(out)
    assert list(frame.columns) == ["metric", "value", "unit", "timestamp", "emulated", "loads",
                                   "queue_depth", "threads", "workload"]
    assert frame["value"].tolist() == [505.25, 990.5, 1200.0]
    assert frame["threads"].tolist()[:2] == ["1", "all"]  # mixed int/text -> text
    assert frame["loads"].tolist()[0] == "[0.1, 0.2]"
    assert frame["threads"].isna().tolist() == [False, False, True]
    assert frame["loads"].isna().tolist() == [False, True, True]
    assert frame["queue_depth"].tolist()[2] == 16


def test_export_parquet_empty_store(tmp_path):
    store = tmp_path / "s.jsonl"
    store.write_text("", encoding="utf-8")
    res = runner.invoke(app, ["bench", "export", "--parquet", "--store", str(store)])
    assert res.exit_code == 2
    assert "error: s.jsonl: the sample store is empty; nothing to export." in res.output


def test_export_missing_store(tmp_path):
    res = runner.invoke(app, ["bench", "export", "--for-fit", "--store", str(tmp_path / "s.jsonl")])
    assert res.exit_code == 2
    assert "s.jsonl: no such sample store." in res.output


def test_report_html_and_xlsx(tmp_path):
    store = tmp_path / "s.jsonl"
    base = {"workload": "disk", "aggregate": "trimmed_mean", "access_spec": "database",
            "backing": "prealloc", "write_cache": "on", "min": 90.0, "max": 110.0, "cv": 0.05,
            "n_runs": 3}
    append_samples(store, [
        Sample("iops", 100.0, "IO/s", {**base, "environment": "physical", "queue_depth": 1}),
        Sample("iops", 20.0, "IO/s", {**base, "environment": "vm", "emulated": True,
                                      "accelerator": "tcg", "queue_depth": 1, "min": 18.0, "max": 22.0}),
        Sample("iops", 5.0, "IO/s", {**base, "environment": "vm", "emulated": True,
                                     "queue_depth": 16, "backing": "<script>alert(1)</script>"}),
    ])
    html_out, xlsx_out = tmp_path / "r.html", tmp_path / "r.xlsx"
    res = runner.invoke(app, ["bench", "report", "--store", str(store), "-o", str(html_out), "-o", str(xlsx_out)])
    assert res.exit_code == 0, res.output
    text = html_out.read_text()
    assert "Disk database: throughput vs queue depth" in text
    assert "measure emulation, not virtualization overhead" in text
    assert "<script>alert(1)</script>" not in text.split("<h2>VM / physical ratios</h2>")[1]
    from openpyxl import load_workbook

    wb = load_workbook(xlsx_out)
    ws = wb["vm_vs_physical"]
    header = [c.value for c in ws[2]]
    row = dict(zip(header, [c.value for c in ws[3]], strict=True))
    assert row["ratio"] == pytest.approx(0.2)
    assert row["low"] == pytest.approx(18 / 110) and row["high"] == pytest.approx(22 / 90)
    assert row["emulated"] is True


def test_report_bad_suffix(tmp_path):
    store = tmp_path / "s.jsonl"
    append_samples(store, [Sample("x", 1.0, "u", {})])
    res = runner.invoke(app, ["bench", "report", "--store", str(store), "-o", str(tmp_path / "r.pdf")])
    assert res.exit_code == 2
    assert "r.pdf: expected a .html or .xlsx report file, got '.pdf'." in res.output
    res = runner.invoke(app, ["bench", "report", "--store", str(store), "-o", str(tmp_path / "r.html")])
    assert "s.jsonl: no aggregate samples to report; run 'vsizer bench run' first." in res.output


def test_run_summary_labels_tell_network_links_apart():
    from vsizer.cli.bench import _case

    meta = {"link": "guest-guest", "block_size": "8K", "direction": "send", "emulated": True}
    assert _case(meta) == "link=guest-guest block_size=8K direction=send"
    assert _case({**meta, "link": "host-guest"}) != _case(meta)
