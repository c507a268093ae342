"""Issue 27: a plan's progress log names every stage, flushed line by line,
so that a killed run's log says where it was."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from vsizer.cli.app import app
from vsizer.cli.common import _progress

SAMPLES = Path(__file__).resolve().parents[1] / "vsizer" / "data" / "samples"
STAMP = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ "


def test_plan_log_names_each_stage(tmp_path: Path) -> None:
    log = tmp_path / "run.log"
    res = CliRunner().invoke(app, [
        "plan", str(SAMPLES / "inventory_ja.xlsx"), "--config", str(SAMPLES / "scenario.toml"),
        "-q", "--log", str(log), "-o", str(tmp_path / "p.json"),
    ])
    assert res.exit_code == 0, res.output
    assert res.output == ""  # -q: nothing on the terminal
    lines = log.read_text(encoding="utf-8").splitlines()
    assert all(re.match(STAMP, ln) for ln in lines)
    texts = [ln[21:] for ln in lines]
    assert texts[0] == "start" and texts[-1] == "done"
    assert texts[1] == "reading inventory_ja.xlsx"
    assert any(t.startswith("sizing 37 servers on ") for t in texts)
    assert "pool 本番: 28 VMs, failover scenarios (failures = 1)" in texts


def test_log_is_written_as_it_goes_and_names_an_interruption(tmp_path: Path) -> None:
    log = tmp_path / "run.log"
    with pytest.raises(KeyboardInterrupt), _progress(True, log) as event:
        event("candidate", (3, 19, "Dell PowerEdge R740 2x Platinum 8180"))
        # flushed already: a kill here leaves this line
        assert log.read_text(encoding="utf-8").splitlines()[-1].endswith(
            "host model 3/19 planned: Dell PowerEdge R740 2x Platinum 8180")
        raise KeyboardInterrupt
    assert log.read_text(encoding="utf-8").splitlines()[-1].endswith(" interrupted")


def test_quiet_without_log_has_no_progress() -> None:
    with _progress(True) as event:
        assert event is None
