"""Wide CSV with a step-index column: never Unix time, stated defaults, flags honoured.

Fixture ``wide_index.csv`` (hand-made): header ``step,a,b,c``; for step i = 1..24
the values are a = i, b = 50, c = 2i (percent, told by the values > 1).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from vsizer.errors import ConfigError, InputError, SeriesError
from vsizer.series.align import step_mismatch_notes
from vsizer.series.tabular import read_long
from vsizer.series.wide import read_wide

DATA = Path(__file__).parent / "data" / "series" / "tabular"
INDEX = DATA / "wide_index.csv"
METRIC_NOTE = (
    "wide_index.csv: no --metric given; the values (1 to 50) look like utilization "
    "(0 to 100), so they are read as cpu_util (CPU busy); give --metric if they "
    "are something else."
)


def _times(result, server: str = "a") -> list[str]:
    d = result.data[result.data["server"] == server]
    return [t.strftime("%Y-%m-%dT%H:%MZ") for t in d["timestamp"]]


def _values(result, server: str) -> np.ndarray:
    d = result.data[result.data["server"] == server]
    return d["value"].to_numpy()


def _write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_step_index_default_start_and_step_are_stated():
    r = read_wide(INDEX)
    # 24 steps of 5 min from the arbitrary start 2000-01-03T00:00Z (not 1970).
    times = _times(r)
    assert len(times) == 24
    assert times[0] == "2000-01-03T00:00Z"
    assert times[1] == "2000-01-03T00:05Z"
    assert times[-1] == "2000-01-03T01:55Z"  # 23 x 5 min = 115 min
    assert _times(r, "c") == times
    assert_allclose(_values(r, "a"), np.arange(1, 25) / 100)
    assert_allclose(_values(r, "b"), np.full(24, 0.5))
    assert_allclose(_values(r, "c"), 2 * np.arange(1, 25) / 100)
    assert r.metadata["step_s"] == 300.0
    assert r.metadata["metric"] == "cpu_util"
    assert r.metadata["index"] == {
        "first": 1,
        "last": 24,
        "start": "2000-01-03T00:00:00+00:00",
        "step_s": 300.0,
        "start_assumed": True,
        "step_assumed": True,
    }
    assert r.quality.notes == [
        "wide_index.csv: column 'step' is a step index (by its name; 1..24), not "
        "Unix time: step 300 s assumed (the default; give the real one with "
        "--series-step); start 2000-01-03T00:00:00Z assumed, an arbitrary date "
        "(give the real one with --start).",
        METRIC_NOTE,
    ]
    assert [(i["server"], i["kind"], i["count"]) for i in r.quality.issues] == [
        ("a", "unit_guess", 24),
        ("b", "unit_guess", 24),
        ("c", "unit_guess", 24),
    ]


def test_start_and_step_are_honoured():
    r = read_wide(INDEX, start="2019-11-01T00:00Z", step="10min")
    times = _times(r)
    assert times[0] == "2019-11-01T00:00Z"
    assert times[-1] == "2019-11-01T03:50Z"  # 23 x 10 min = 230 min
    assert r.metadata["step_s"] == 600.0
    assert r.metadata["index"]["start_assumed"] is False
    assert r.metadata["index"]["step_assumed"] is False
    assert r.quality.notes[0] == (
        "wide_index.csv: column 'step' is a step index (by its name; 1..24), not "
        "Unix time: step 600 s (--series-step); start 2019-11-01T00:00:00Z "
        "(--start)."
    )
    # A naive --start is in --tz: 09:00 in Tokyo is 00:00 UTC; seconds work too.
    tokyo = read_wide(INDEX, start="2019-11-01T09:00", tz="Asia/Tokyo", step=60)
    assert _times(tokyo)[:2] == ["2019-11-01T00:00Z", "2019-11-01T00:01Z"]


def test_index_told_by_values_or_named_by_flag(tmp_path):
    # No index-like header: whole numbers 0..5 rising by 1 are an index.
    rows = "\n".join(f"{i},{10 * i}" for i in range(6))
    plain = _write(tmp_path, "k.csv", "k,web01\n" + rows + "\n")
    r = read_wide(plain, metric="cpu_pct")
    assert _times(r, "web01")[-1] == "2000-01-03T00:25Z"
    assert r.quality.notes[1].startswith(
        "k.csv: column 'k' is a step index (whole numbers rising by 1, not dates; "
        "0..5), not Unix time:"
    )
    # --index-column: whatever the values, they are step numbers (here 10, 20, 30).
    named = _write(tmp_path, "n.csv", "web01,id\n1,10\n2,20\n3,30\n")
    r = read_wide(named, index_column="id", step="1h", metric="cpu_util")
    assert _times(r, "web01") == [
        "2000-01-03T00:00Z",
        "2000-01-03T10:00Z",
        "2000-01-03T20:00Z",
    ]
    assert "column 'id' is a step index (--index-column; 10..30)" in r.quality.notes[0]


def test_index_and_flag_errors(tmp_path):
    frac = _write(tmp_path, "f.csv", "step,a\n1,5\n1.5,6\n")
    with pytest.raises(InputError) as e:
        read_wide(frac)
    assert e.value.problems == [
        "f.csv line 3, column 'step': expected a whole-number step index, got '1.5'."
    ]
    dated = DATA / "wide_hints.csv"
    with pytest.raises(InputError) as e:
        read_wide(dated, start="2024-01-01T00:00Z")
    assert e.value.problems == [
        "wide_hints.csv: --start applies to a step-index column without dates; "
        "column 'datetime' holds times (e.g. '2024-05-01 09:00'), so leave --start "
        "out."
    ]
    with pytest.raises(InputError, match="--series-step applies to a step-index"):
        read_wide(dated, step="5min")
    with pytest.raises(InputError) as e:
        read_wide(INDEX, index_column="steps")
    assert e.value.problems == [
        "wide_index.csv: expected a --index-column 'steps', got 'step', 'a', 'b', 'c'."
    ]
    with pytest.raises(ConfigError) as e:
        read_wide(INDEX, start="yesterday")
    assert str(e.value) == (
        "--start must be an ISO 8601 time such as 2024-05-01T00:00:00Z. Got "
        "'yesterday' instead."
    )
    with pytest.raises(ConfigError) as e:
        read_wide(INDEX, step="often")
    assert str(e.value) == (
        "The '--series-step' option must be a duration such as 30s, 5min or 1h. "
        "Got 'often' instead."
    )


def test_seconds_without_dates_need_start(tmp_path):
    secs = _write(tmp_path, "s.csv", "offset,a\n0,10\n300,20\n600,30\n")
    with pytest.raises(InputError) as e:
        read_wide(secs)
    assert e.value.problems == [
        "s.csv: column 'offset' holds plain numbers (0 to 600) that as Unix seconds "
        "would be dates before 2000; expected dates, or give --start (the numbers "
        "are then seconds after it) or --index-column offset (step numbers, with "
        "--series-step)."
    ]
    r = read_wide(secs, start="2024-05-01T00:00Z")
    assert _times(r) == ["2024-05-01T00:00Z", "2024-05-01T00:05Z", "2024-05-01T00:10Z"]
    assert r.quality.notes[1] == (
        "s.csv: column 'offset' read as seconds after --start 2024-05-01T00:00:00Z."
    )


def test_long_refuses_small_numbers_as_unix_time(tmp_path):
    p = _write(
        tmp_path,
        "l.csv",
        "server,timestamp,metric,value\nweb,1,cpu,5\nweb,2,cpu,6\n",
    )
    with pytest.raises(SeriesError) as e:
        read_long(p)
    assert e.value.problems == [
        "l.csv: column 'timestamp' holds plain numbers up to 2 that as Unix seconds "
        "would be dates before 2000; expected ISO 8601 times or Unix time. For step "
        "numbers without dates use --series-format wide with --index-column "
        "timestamp (and --start, --series-step)."
    ]


def test_long_and_wide_tz_for_naive_times(tmp_path):
    p = _write(
        tmp_path,
        "l.csv",
        "server,timestamp,metric,value\nweb,2024-05-01 09:00,cpu,5\n",
    )
    r = read_long(p, tz="Asia/Tokyo")
    assert r.data["timestamp"].iloc[0] == pd.Timestamp("2024-05-01T00:00Z")
    assert r.quality.notes == [
        "l.csv: 1 times in column 'timestamp' have no UTC offset; read in --tz "
        "Asia/Tokyo."
    ]
    w = read_wide(DATA / "wide_hints.csv", tz="+09:00")
    assert _times(w, "db01")[0] == "2024-05-01T00:00Z"  # 09:00 at +09:00


def test_metric_default_refused_for_values_above_100(tmp_path):
    p = _write(tmp_path, "m.csv", "step,a\n1,2048\n2,4096\n")
    with pytest.raises(ConfigError) as e:
        read_wide(p)
    assert str(e.value) == (
        "m.csv: no --metric given and the values reach 4096, which is no percentage; "
        "say what the columns hold with --metric (cpu_util, mem_used_gib, disk_iops, "
        "net_mbps, ...)."
    )
    r = read_wide(p, metric="mem_used_mb")
    assert_allclose(_values(r, "a"), [2.0, 4.0])


def test_step_disagreeing_with_the_grid_by_more_than_10x():
    fine = read_wide(INDEX, step="1s")
    assert step_mismatch_notes(fine.data, "5min") == [
        "3 server(s) (a, b, c) are sampled every 1 s but the plan grid step (--step) "
        "is 300 s, more than 10x apart: 300 samples averaged into each grid step. "
        "Check the input's step (--series-step, --index-column) or set --step."
    ]
    coarse = read_wide(INDEX, step="1h")
    assert step_mismatch_notes(coarse.data, "5min") == [
        "3 server(s) (a, b, c) are sampled every 3600 s but the plan grid step "
        "(--step) is 300 s, more than 10x apart: only 1 grid step in 12 has a "
        "sample. Check the input's step (--series-step, --index-column) or set "
        "--step."
    ]
    # Exactly 10x (30 s on 5 min) and equal steps are fine.
    assert step_mismatch_notes(read_wide(INDEX, step="30s").data, "5min") == []
    assert step_mismatch_notes(read_wide(INDEX).data, "5min") == []
