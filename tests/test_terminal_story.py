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
    assert "Machines (servers → hosts)" in text and f" {s['servers']} " in text
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


def _fits_80(text: str) -> None:
    lines = text.splitlines()
    assert [ln for ln in lines if cell_len(ln.rstrip()) > 80] == []
    assert [ln for ln in lines if "…" in ln] == []


@pytest.mark.slow  # the whole CPU catalog rendered: 11 CPU s
@pytest.mark.parametrize("args", [["catalog", "list"], ["catalog", "list", "--cpus"]])
def test_catalog_list_fits_80_columns(args: list[str]) -> None:
    res = CliRunner().invoke(app, args, env={"COLUMNS": "80"})
    assert res.exit_code == 0, res.output
    _fits_80(res.stdout)
    # the names stay readable (a host model wraps at its words at most once)
    assert ("Xeon 5160" if "--cpus" in args else "Dell PowerEdge R740 2x") in res.stdout


def test_predict_fits_80_columns() -> None:
    res = CliRunner().invoke(app, ["predict", str(GOLDEN / "demo.json")], env={"COLUMNS": "80"})
    assert res.exit_code == 0, res.output
    _fits_80(res.stdout)
    assert "per-host" in res.stdout


def test_detail_tables_fit_80_columns() -> None:
    plan = json.loads((GOLDEN / "demo.json").read_text(encoding="utf-8"))
    for lang in ("en", "ja"):
        _fits_80("\n".join(_printed(plan, lang, detail=True)))


def test_fit_table_leaves_out_droppable_columns_and_says_so() -> None:
    from rich.table import Table

    from vsizer.reporting._term_fit import fit_table

    t = Table("name", "a", "b", "c")
    t.add_row("x" * 30, "1" * 20, "2" * 20, "3" * 20)
    fit_table(t, 60, droppable=("b", "c"))
    assert [c.header for c in t.columns] == ["name", "a"]
    assert t.caption == "left out at this width: b, c"
