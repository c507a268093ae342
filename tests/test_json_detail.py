"""``plan --json-detail`` (issue 25): a large plan's JSON holds the summary and its
per-server records go to a columnar side file, the same values; small plans
are written as before (byte for byte)."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from unittest import mock

import pytest
from typer.testing import CliRunner

import vsizer
from vsizer.cli import app
from vsizer.study import detail

SAMPLES = Path(vsizer.__file__).parent / "data" / "samples"
INV = str(SAMPLES / "inventory_ja.xlsx")
CONFIG = str(SAMPLES / "scenario.toml")
runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, ["plan", INV, "--config", CONFIG, "-q", *args],
                         env={"COLUMNS": "250"})


def test_auto_below_the_threshold_writes_the_whole_document(tmp_path: Path) -> None:
    full, auto = tmp_path / "full.json", tmp_path / "auto.json"
    assert run("--json-detail", "full", "-o", str(full)).exit_code == 0
    r = run("-o", str(auto))
    assert r.exit_code == 0, r.output
    assert auto.read_bytes() == full.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["auto.json", "full.json"]


def test_summary_moves_the_records_to_the_csv_with_the_same_values(tmp_path: Path) -> None:
    full, brief = tmp_path / "full.json", tmp_path / "brief.json"
    assert run("-o", str(full)).exit_code == 0
    r = run("--json-detail", "summary", "-o", str(brief))
    assert r.exit_code == 0, r.output
    f = json.loads(full.read_text(encoding="utf-8"))
    b = json.loads(brief.read_text(encoding="utf-8"))
    assert b["servers"] == [] and b["quality"]["servers"] == []
    assert b["rightsizing"]["vms"] == [] and b["rightsizing"]["totals"] == f["rightsizing"]["totals"]
    assert b["quality"]["confidence"] == f["quality"]["confidence"]
    assert b["summary"]["warnings"] == f["summary"]["warnings"] + 1
    assert b["warnings"][-1]["code"] == "json_detail_summary"
    assert "37 servers' records" in b["warnings"][-1]["message"]
    assert b["detail"]["file"] == "brief.servers.csv" and b["detail"]["rows"] == 37
    assert list(b).index("detail") == list(b).index("servers") + 1
    assert b["pools"] == f["pools"] and b["summary"]["hosts"] == f["summary"]["hosts"]
    with (tmp_path / "brief.servers.csv").open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0]) == b["detail"]["columns"]
    assert [r["name"] for r in rows] == [s["name"] for s in f["servers"]]
    for row, s, q in zip(rows, f["servers"], f["quality"]["servers"], strict=True):
        assert row["host"] == s["host"]
        assert float(row["vm_mem_gib"]) == s["vm_mem_gib"]
        assert int(row["vcpus"]) == s["vcpus"]
        assert float(row["quality_confidence"]) == q["confidence"]
        assert row["quality_given"].split(";") == q["given"]
        assert json.loads(row["quality_notes"] or "{}") == q["notes"]
    recs = {v["name"]: v for v in f["rightsizing"]["vms"]}
    first = rows[0]
    assert int(first["vcpus_recommended"]) == recs[first["name"]]["vcpus_recommended"]
    assert first["rightsizing_reason"] == recs[first["name"]]["reason"]


def test_summary_is_deterministic(tmp_path: Path) -> None:
    for d in ("a", "b"):
        assert run("--json-detail", "summary", "-o", str(tmp_path / d / "p.json")).exit_code == 0
    for name in ("p.json", "p.servers.csv"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_auto_above_the_threshold_warns_in_the_terminal(tmp_path: Path) -> None:
    with mock.patch.object(detail, "DETAIL_MAX_SERVERS", 30):
        r = runner.invoke(app, ["plan", INV, "--config", CONFIG, "-o",
                                str(tmp_path / "p.json")], env={"COLUMNS": "250"})
    assert r.exit_code == 0, r.output
    assert "json_detail_summary" in r.output and "more than 30 servers" in r.output
    assert (tmp_path / "p.servers.csv").is_file()


def test_parquet_detail_file(tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    side = tmp_path / "servers.parquet"
    r = run("--detail-file", str(side), "-o", str(tmp_path / "p.json"))
    assert r.exit_code == 0, r.output
    table = pq.read_table(side)
    assert table.num_rows == 37 and table.column_names[0] == "name"
    doc = json.loads((tmp_path / "p.json").read_text(encoding="utf-8"))
    assert doc["detail"]["format"] == "parquet" and doc["servers"] == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--json-detail", "some"],
         "--json-detail: expected one of auto, full, summary, got 'some'"),
        (["--json-detail", "full", "--detail-file", "x.csv"],
         "--detail-file: a detail file is written only with --json-detail summary or "
         "auto, not full"),
        (["--detail-file", "x.txt"],
         "--detail-file x.txt: expected a .csv or .parquet file name, got '.txt'"),
    ],
)
def test_bad_detail_flags_are_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    r = run(*args, "-o", str(tmp_path / "p.json"))
    assert r.exit_code != 0
    assert message in r.output.replace("\n", " ")
    assert "Traceback" not in r.output
    assert not (tmp_path / "p.json").exists()


def test_detail_file_never_replaces_the_inventory(tmp_path: Path) -> None:
    src = tmp_path / "inv.csv"
    src.write_bytes((SAMPLES / "inventory_ja.csv").read_bytes())
    r = runner.invoke(app, ["plan", str(src), "--config", CONFIG, "-q", "--detail-file",
                            str(src), "-o", str(tmp_path / "p.json")],
                      env={"COLUMNS": "250"})
    assert r.exit_code != 0
    assert src.read_bytes() == (SAMPLES / "inventory_ja.csv").read_bytes()


def _to_csv_bytes(frame) -> bytes:
    import io

    buf = io.BytesIO()
    frame.to_csv(buf, index=False, lineterminator="\n", encoding="utf-8")
    return buf.getvalue()


def test_detail_csv_writer_gives_the_bytes_of_to_csv() -> None:
    """The column-wise writer (vsizer.study.detail_csv) against pandas' to_csv on
    every kind of cell the detail file holds: floats (NaN, -0.0, 1e-07, 1e+16),
    nullable integers, strings with commas, quotes, line ends, carriage returns,
    tabs and spaces, empty strings, None, Python and numpy floats and booleans in
    object columns, and non-ASCII text."""
    import io

    import numpy as np
    import pandas as pd

    from vsizer.study.detail_csv import write_csv

    frame = pd.DataFrame({
        "name": pd.array(["a", "b,c", 'q"d', "x\ny", "r\rs", "t\tu", " sp", "", "サーバ"],
                         dtype="string"),
        "f": [0.1, np.nan, -0.0, 1e-07, 1e16, 2600.0, 8.088955, np.inf, 3.0],
        "i": pd.array([1, None, 3, 4, 5, 6, 7, 8, 9], dtype="Int64"),
        "o": np.array([None, np.nan, 1.5, np.float64(2.25), True, 7, "", '{"a": "b"}',
                       "x,y"], dtype=object),
        "b": [True, False, True, False, True, False, True, False, True],
        "n": np.arange(9, dtype=np.int64),
    })
    buf = io.BytesIO()
    write_csv(frame, buf)
    assert buf.getvalue() == _to_csv_bytes(frame)
    for cols in (["name"], ["name", "f"]):  # one column: to_csv; a slice of rows
        part = frame[cols].iloc[2:5]
        buf = io.BytesIO()
        write_csv(part, buf)
        assert buf.getvalue() == _to_csv_bytes(part)
    mixed = pd.DataFrame({  # equal as keys (1 == 1.0 == True), not as text
        "a": np.array([True, 1, 1.0, 0, False, -0.0, 0.0, "x"], dtype=object),
        "b": range(8)})
    buf = io.BytesIO()
    write_csv(mixed, buf)
    assert buf.getvalue() == _to_csv_bytes(mixed)
    assert buf.getvalue().startswith(b"a,b\nTrue,0\n1,1\n1.0,2\n0,3\nFalse,4\n-0.0,5\n")
    rng = np.random.default_rng(25)  # float64 text: repr, as numpy's astype(str)
    floats = pd.DataFrame({"x": rng.standard_normal(5000) * 10.0 ** rng.integers(
        -30, 30, 5000), "y": np.round(rng.random(5000) * 1e4, 3)})
    buf = io.BytesIO()
    write_csv(floats, buf)
    assert buf.getvalue() == _to_csv_bytes(floats)
    f32 = pd.DataFrame({"a": np.array([0.1, 2.5], dtype=np.float32), "b": [1, 2]})
    buf = io.BytesIO()
    write_csv(f32, buf)  # float32: left to to_csv
    assert buf.getvalue() == _to_csv_bytes(f32) == b"a,b\n0.1,1\n2.5,2\n"
    empty = frame.iloc[:0]
    buf = io.BytesIO()
    write_csv(empty, buf)
    assert buf.getvalue() == _to_csv_bytes(empty) == b"name,f,i,o,b,n\n"
