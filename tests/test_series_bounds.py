"""Issue 24: utilization series that stretch the grid, cover too little, or
cross a daylight-saving change (reproducers of the attacks, small files).

* one clock-reset sample (1970) among 864 5-minute samples stretched the grid
  over 54 years (90 s, 1.5 GB); 1970 and 2262 reached 3.4 GB in 60 s: such
  samples are now dropped and counted (``outlying_time``), the grid is 864 steps;
* a grid still over ``--max-grid-cells`` is refused, one line, before it is built;
* five yearly samples: a 420,481-step grid, within the budget, planned with the
  step-mismatch note and the ``short_series`` warning;
* one 5-minute sample at 5 % no longer replaces a 60 % inventory peak;
* ``--tz Europe/Berlin``: the repeated hour read by order, the skipped hour one
  line naming the gap.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from vsizer.cli import app
from vsizer.errors import ConfigError, SeriesError
from vsizer.limits import DEFAULT_LIMITS, LIMIT_FLAGS, Limits, using
from vsizer.series.grid import GridAccumulator
from vsizer.series.model import SeriesQuality
from vsizer.series.outliers import drop_outlying, outlying_times
from vsizer.series.tabular import read_long

runner = CliRunner()
HEAD = "server,timestamp,metric,value,unit"
T0 = pd.Timestamp("2024-03-01T00:00Z")


def normal_rows(server: str = "web01", n: int = 864) -> list[str]:
    return [
        f"{server},{(T0 + pd.Timedelta(minutes=5 * i)).strftime('%Y-%m-%dT%H:%M:%SZ')},"
        f"cpu_util,{20 + i % 30},%"
        for i in range(n)
    ]


def write(path: Path, rows: list[str]) -> Path:
    path.write_text("\n".join([HEAD, *rows]) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def inv(tmp_path: Path) -> Path:
    p = tmp_path / "inv.csv"
    p.write_text("name,vcpus,mem_gib,cpu_peak_util\nweb01,4,16,0.6\ndb01,8,32,0.6\n")
    return p


def plan_json(tmp_path: Path, *args: str) -> tuple[int, str, dict]:
    out = tmp_path / "plan.json"
    r = runner.invoke(app, ["plan", *args, "--series-format", "long", "-q", "-o", str(out)])
    doc = json.loads(out.read_text()) if r.exit_code == 0 else {}
    return r.exit_code, r.output, doc


# ------------------------------------------------------------ outlying times


def test_one_epoch_sample_is_outlying_the_bulk_is_not() -> None:
    times = pd.date_range(T0, periods=864, freq="5min").as_unit("ns").asi8
    with_reset = np.concatenate(([0], times))
    bad = outlying_times(with_reset)
    assert bad.tolist() == [True] + [False] * 864
    assert not outlying_times(times).any()
    yearly = pd.to_datetime([f"{2020 + y}-01-01" for y in range(5)]).as_unit("ns").asi8
    assert not outlying_times(yearly).any()  # evenly spread: nothing is far


def test_clock_reset_sample_is_dropped_and_the_grid_is_864_steps(tmp_path, inv) -> None:
    series = write(tmp_path / "reset.csv",
                   [*normal_rows(), "web01,1970-01-01T00:00:00Z,cpu_util,50,%"])  # fmt: skip
    code, output, doc = plan_json(tmp_path, str(inv), "--series", str(series))
    assert code == 0, output
    assert doc["series"]["steps"] == 864  # was 5,681,089 steps (54 years)
    assert doc["series"]["start"] == "2024-03-01T00:00:00Z"
    (w,) = [w for w in doc["warnings"] if w["code"] == "series_outlying_time"]
    assert w["servers"] == ["web01"]
    assert "1 point(s) in 1 series" in w["message"]
    assert "reset.csv: 1 sample(s) far from the bulk of the series dropped" in w["message"]
    assert "first 1970-01-01T00:00:00Z" in w["message"]


def test_samples_in_1970_and_2262_are_both_dropped(tmp_path, inv) -> None:
    series = write(tmp_path / "both.csv", [
        *normal_rows(),
        "web01,1970-01-01T00:00:00Z,cpu_util,50,%",
        "web01,2262-01-01T00:00:00Z,cpu_util,50,%",
    ])  # fmt: skip
    code, output, doc = plan_json(tmp_path, str(inv), "--series", str(series))
    assert code == 0, output
    assert doc["series"]["steps"] == 864  # was 30.7 million steps (3.4 GB in 60 s)
    (w,) = [w for w in doc["warnings"] if w["code"] == "series_outlying_time"]
    assert "2 point(s)" in w["message"]


def test_a_grid_still_over_the_budget_is_one_error_line(tmp_path, inv) -> None:
    # two hours in 1970 and two in 2262 (2.7 % each): not outlying, the grid
    # would be 30,715,512 steps; refused before anything is allocated
    rows = normal_rows()
    rows += [f"web01,1970-01-01T{h:02d}:{m:02d}:00Z,cpu_util,50,%"
             for h in range(2) for m in range(0, 60, 5)]  # fmt: skip
    rows += [f"web01,2262-01-01T{h:02d}:{m:02d}:00Z,cpu_util,50,%"
             for h in range(2) for m in range(0, 60, 5)]  # fmt: skip
    series = write(tmp_path / "apart.csv", rows)
    code, output, _ = plan_json(tmp_path, str(inv), "--series", str(series))
    assert code == 2
    lines = output.strip().splitlines()
    assert len(lines) == 1, output
    assert lines[0] == (
        "error: series " + str(series) + ": the time grid would be 30,715,512 steps "
        "(of 300 s, 1970-01-01 to 2262-01-01), over the limit of 1,051,200 steps (ten "
        "years of 5-minute steps); keep the series to the period to plan, or plan on "
        "a coarser --step."
    )


@pytest.mark.slow
def test_five_yearly_samples_plan_within_the_budget_or_are_refused_below_it(
    tmp_path, inv
) -> None:
    stamps = [(T0 + pd.Timedelta(days=365 * y)).isoformat() for y in range(5)]
    series = write(tmp_path / "yearly.csv", [f"web01,{t},cpu_util,40,%" for t in stamps])
    code, output, doc = plan_json(tmp_path, str(inv), "--series", str(series))
    assert code == 0, output
    assert doc["series"]["steps"] == 420_481  # 420,481 cells, within 200,000,000
    codes = {w["code"] for w in doc["warnings"]}
    assert "short_series" in codes  # 5 of 420,481 steps
    web = next(s for s in doc["servers"] if s["name"] == "web01")
    assert web["cpu_peak_util"] == 0.6  # the inventory's peak, above the series' 40 %
    code, output, _ = plan_json(tmp_path, str(inv), "--series", str(series),
                                "--max-grid-cells", "100000")  # fmt: skip
    assert code == 2
    assert "420,481 steps" in output and "--max-grid-cells" in output


def test_grid_accumulator_checks_the_budget_before_allocating() -> None:
    # 10**12 steps would be 8 TB of float64: refused at once
    with pytest.raises(ValueError, match=r"1,000,000,000,000 steps .* 1,051,200 steps"):
        GridAccumulator(["a"], ["cpu_util"], {"cpu_util": "fraction"}, 0, 10**12)
    with pytest.raises(ValueError, match=r"1,000 server\(s\) = 1,000,000,000 cells"):
        GridAccumulator(
            [str(i) for i in range(1000)], ["cpu_util"], {"cpu_util": "fraction"}, 0,
            10**6,
        )
    with using(DEFAULT_LIMITS.replace(max_grid_cells=10)), pytest.raises(ValueError):
        GridAccumulator(["a", "b"], ["cpu_util"], {"cpu_util": "fraction"}, 0, 6)


def test_the_limit_has_a_flag_and_is_checked() -> None:
    assert DEFAULT_LIMITS.max_grid_cells == 200_000_000
    assert LIMIT_FLAGS["max_grid_cells"] == "--max-grid-cells"
    with pytest.raises(ConfigError, match="--max-grid-cells"):
        Limits(max_grid_cells=0)
    for command in ("plan", "compare", "import"):
        r = runner.invoke(app, [command, "--help"], env={"COLUMNS": "200"})
        assert "--max-grid-cells" in r.output, command


def test_import_drops_outlying_times_before_storing(tmp_path) -> None:
    series = write(tmp_path / "reset.csv",
                   [*normal_rows(), "web01,1970-01-01T00:00:00Z,cpu_util,50,%"])  # fmt: skip
    store = tmp_path / "st"
    r = runner.invoke(app, ["import", str(series), "--format", "long", "--store", str(store)],
                      env={"COLUMNS": "250"})  # fmt: skip
    assert r.exit_code == 0, r.output
    assert "outlying_time" in r.output and "1970-01-01T00:00:00Z" in r.output
    assert "2024-03-01" in r.output  # the stored start: the reset sample is not stored
    r = runner.invoke(app, ["import", str(series), "--format", "long", "--store",
                            str(tmp_path / "st2"), "--max-grid-cells", "100"])  # fmt: skip
    assert r.exit_code == 2
    assert "864 steps" in r.output and "--max-grid-cells" in r.output


def test_drop_outlying_leaves_a_clean_frame_unchanged() -> None:
    frame = pd.DataFrame({
        "server": ["a"] * 4, "timestamp": pd.date_range(T0, periods=4, freq="5min"),
        "metric": ["cpu_util"] * 4, "value": [0.1] * 4, "unit": ["fraction"] * 4,
    })  # fmt: skip
    quality = SeriesQuality()
    assert drop_outlying(frame, "x.csv", quality) is frame
    assert quality.issues == []


# ------------------------------------------------------------------ coverage


def test_one_short_sample_no_longer_replaces_the_inventory_peak(tmp_path, inv) -> None:
    series = write(tmp_path / "short.csv",
                   [*normal_rows(), "db01,2024-03-01T12:00:00Z,cpu_util,5,%"])  # fmt: skip
    code, output, doc = plan_json(tmp_path, str(inv), "--series", str(series))
    assert code == 0, output
    by_name = {s["name"]: s for s in doc["servers"]}
    assert by_name["db01"]["cpu_peak_util"] == 0.6  # was 0.05: undersized
    assert by_name["web01"]["cpu_peak_util"] == 0.49  # full series: its own peak
    (w,) = [w for w in doc["warnings"] if w["code"] == "short_series"]
    assert w["servers"] == ["db01"]
    assert "covering less than 50% of the plan's 864 steps or less than 24 hours " in w["message"]
    assert "('db01' 0.1%, 5 min)" in w["message"]


def test_a_lone_sample_that_is_the_whole_grid_is_still_short(tmp_path, inv) -> None:
    """The series holds one server and one sample: the grid is that one step,
    coverage 100 %, yet five minutes cannot show a 60 % daily peak."""
    series = write(tmp_path / "lone.csv", ["db01,2024-03-01T12:00:00Z,cpu_util,5,%"])
    code, output, doc = plan_json(tmp_path, str(inv), "--series", str(series))
    assert code == 0, output
    by_name = {s["name"]: s for s in doc["servers"]}
    assert by_name["db01"]["cpu_peak_util"] == 0.6  # was 0.05 with only low_confidence
    (w,) = [w for w in doc["warnings"] if w["code"] == "short_series"]
    assert w["servers"] == ["db01"]
    assert "the plan's 1 steps or less than 24 hours ('db01' 100.0%, 5 min)" in w["message"]


def test_a_full_day_of_series_is_not_short(tmp_path, inv) -> None:
    day = normal_rows(n=288)  # 288 x 5 min = 24 h exactly
    code, output, doc = plan_json(tmp_path, str(inv), "--series", str(write(tmp_path / "d.csv", day)))
    assert code == 0, output
    assert not [w for w in doc["warnings"] if w["code"] == "short_series"]
    assert {s["name"]: s for s in doc["servers"]}["web01"]["cpu_peak_util"] == 0.49


def test_short_series_above_the_inventory_peak_is_kept(tmp_path, inv) -> None:
    series = write(tmp_path / "short.csv",
                   [*normal_rows(), "db01,2024-03-01T12:00:00Z,cpu_util,90,%"])  # fmt: skip
    code, output, doc = plan_json(tmp_path, str(inv), "--series", str(series))
    assert code == 0, output
    by_name = {s["name"]: s for s in doc["servers"]}
    assert by_name["db01"]["cpu_peak_util"] == 0.9  # max(0.6, 0.9)
    assert any(w["code"] == "short_series" for w in doc["warnings"])


# ---------------------------------------------------------------- DST changes


def test_dst_overlap_is_read_by_order(tmp_path) -> None:
    rows = [
        "web01,2024-10-27T01:30:00,cpu_util,10,%",
        "web01,2024-10-27T02:00:00,cpu_util,20,%",  # CEST (UTC+2)
        "web01,2024-10-27T02:30:00,cpu_util,30,%",
        "web01,2024-10-27T02:00:00,cpu_util,40,%",  # CET (UTC+1): the hour again
        "web01,2024-10-27T02:30:00,cpu_util,50,%",
        "web01,2024-10-27T03:00:00,cpu_util,60,%",
    ]
    got = read_long(write(tmp_path / "dst.csv", rows), tz="Europe/Berlin")
    stamps = got.data["timestamp"].dt.strftime("%H:%M").tolist()
    assert stamps == ["23:30", "00:00", "00:30", "01:00", "01:30", "02:00"]
    assert got.data["value"].round(2).tolist() == [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]
    (note,) = [n for n in got.quality.notes if "overlap" in n]
    assert note.startswith("dst.csv: 4 times in column 'timestamp' fall in the "
                           "daylight-saving overlap of Europe/Berlin")  # fmt: skip
    assert "(2 read as standard time)" in note


def test_dst_overlap_is_resolved_per_series(tmp_path) -> None:
    rows = [f"{s},2024-10-27T02:30:00,cpu_util,{v},%" for s in ("a", "b") for v in (1, 2)]
    got = read_long(write(tmp_path / "two.csv", rows), tz="Europe/Berlin")
    hours = got.data.groupby("server")["timestamp"].apply(
        lambda t: t.dt.strftime("%H:%M").tolist()).to_dict()  # fmt: skip
    assert hours == {"a": ["00:30", "01:30"], "b": ["00:30", "01:30"]}


def test_dst_gap_is_one_line_naming_the_gap(tmp_path) -> None:
    rows = [
        "web01,2024-03-31T01:30:00,cpu_util,10,%",
        "web01,2024-03-31T02:30:00,cpu_util,20,%",  # does not exist in Berlin
        "web01,2024-03-31T03:30:00,cpu_util,30,%",
    ]
    with pytest.raises(SeriesError) as err:
        read_long(write(tmp_path / "gap.csv", rows), tz="Europe/Berlin")
    assert str(err.value) == (
        "gap.csv line 3, column 'timestamp': expected a local time that exists in "
        "Europe/Berlin (this one is in the daylight-saving gap of Europe/Berlin on "
        "2024-03-31), got '2024-03-31T02:30:00'."
    )


def test_cli_import_of_a_dst_overlap_succeeds(tmp_path) -> None:
    rows = [f"web01,2024-10-27T{t},cpu_util,{v},%"
            for v, t in enumerate(["01:30:00", "02:30:00", "02:30:00", "03:30:00"])]
    series = write(tmp_path / "dst.csv", rows)
    r = runner.invoke(app, ["import", str(series), "--format", "long", "--tz",
                            "Europe/Berlin", "--store", str(tmp_path / "st")])  # fmt: skip
    assert r.exit_code == 0, r.output
    assert "expected an ISO 8601 time" not in r.output


@pytest.mark.parametrize(
    ("start", "stored", "error"),
    [
        ("2024-10-27T02:30:00", "2024-10-27 00:30", None),  # overlap: the first (DST)
        ("2024-03-31T02:30:00", None,
         "error: --start 2024-03-31T02:30:00: the time does not exist in Europe/Berlin: "
         "it is in the daylight-saving gap of Europe/Berlin on 2024-03-31; give a time "
         "that exists there, or one with a UTC offset."),
    ],
)  # fmt: skip
def test_start_of_a_step_index_at_a_dst_change(tmp_path, start, stored, error) -> None:
    # was: internal error (ValueError: Cannot infer dst time ...)
    wide = tmp_path / "idx.csv"
    wide.write_text("step,web01\n0,10\n1,20\n")
    r = runner.invoke(app, ["import", str(wide), "--format", "wide", "--index-column",
                            "step", "--start", start, "--step", "5min", "--tz",
                            "Europe/Berlin", "--store", str(tmp_path / "st")],
                      env={"COLUMNS": "250"})  # fmt: skip
    if error is None:
        assert r.exit_code == 0, r.output
        assert stored in r.output
    else:
        assert r.exit_code == 2
        assert r.output.strip().splitlines() == [error]
