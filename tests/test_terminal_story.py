"""The default terminal summary tells the story on one screen (issue 27): at
most 60 lines at 80 columns, no line wider than 80 cells, no column shrunk to
an ellipsis; the full tables only with ``--detail``."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.cells import cell_len
from rich.console import Console
from typer.testing import CliRunner

from vsizer.cli.app import app
from vsizer.reporting.terminal import print_summary

REPO = Path(__file__).resolve().parents[1]
GOLDEN = REPO / "tests" / "data" / "golden"
SAMPLES = REPO / "vsizer" / "data" / "samples"


def _printed(plan: dict, lang: str, detail: bool = False) -> list[str]:
    buf = io.StringIO()
    console = Console(file=buf, width=80, color_system=None, force_terminal=False)
    print_summary(plan, console, lang=lang, detail=detail)
    return buf.getvalue().splitlines()


def _check_screen(lines: list[str]) -> None:
    assert len(lines) <= 60, len(lines)
    wide = [ln for ln in lines if cell_len(ln) > 80]
    assert wide == []
    # a column squeezed to an ellipsis ('0…', 'dimensi…') is unreadable
    squeezed = [ln for ln in lines if "…" in ln and "│" in ln]
    assert squeezed == []


@pytest.mark.parametrize("name", ["demo", "scenario-current-rx2530m6-8380", "series-wide"])
@pytest.mark.parametrize("lang", ["en", "ja"])
def test_default_summary_fits_one_screen(name: str, lang: str) -> None:
    plan = json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))
    lines = _printed(plan, lang)
    _check_screen(lines)
    assert lines[1].startswith("Decision: " if lang == "en" else "判断: ")
    assert any(ln.startswith("- ") for ln in lines)  # the risks


def test_demo_summary_names_before_after_savings_and_top_warnings() -> None:
    plan = json.loads((GOLDEN / "demo.json").read_text(encoding="utf-8"))
    text = "\n".join(_printed(plan, "en"))
    n = len(plan["warnings"])
    assert f"- {n} warnings, top 3:" in text
    s = plan["summary"]
    assert f"Machines (servers → hosts)" in text and f" {s['servers']} " in text
    assert "over 5 years" in text
    assert "--detail" in text
    assert "Warnings (" not in text  # the full table is behind --detail
    assert f"Warnings ({n})" in "\n".join(_printed(plan, "en", detail=True))


def test_cli_plan_fits_80_columns_and_60_lines(tmp_path: Path) -> None:
    out = tmp_path / "plan.json"
    res = CliRunner().invoke(
        app,
        ["plan", str(SAMPLES / "inventory_ja.xlsx"), "--config",
         str(SAMPLES / "scenario.toml"), "-o", str(out)],
        env={"COLUMNS": "80"},
    )
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    _check_screen(lines)
    assert lines[-1] == f"wrote {out}"  # where the files went
