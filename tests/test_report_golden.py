"""Golden reports: the HTML page, the workbook's cell values and the terminal
summary of a set of plans, in English and Japanese, are identical to
tests/data/golden/reports/ (written by the code before the issue-13 renovation
of ``vsizer.reporting``).

Plans: the golden plan documents of tests/data/golden/ (the demo, every bundled
scenario, a series plan), the demo with per-VM predictions, the hand-written
report test plan and its schema "2" version with curves (tests/report_plans.py),
and the what-if comparison of the two bundled scenarios (HTML and workbook).

Stored forms (no file over 1 MB): the HTML text with the embedded plotly.js
bundle replaced by its sha256; every sheet's every cell value as JSON; the
terminal text at 120 columns without colour (not of the synthetic schema "2"
plan, whose series block is only what the HTML and Excel reports read).

Regenerate only for an intended change of a report, and say so in the commit
message: ``PYTHONPATH=. .venv/bin/python -m tests.test_report_golden --write``.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
PLANS = REPO / "tests" / "data" / "golden"
GOLDEN = PLANS / "reports"
SCENARIOS = REPO / "vsizer" / "data" / "scenarios"
LANGS = ("en", "ja")


def _plans() -> dict[str, dict[str, Any]]:
    from tests.report_plans import small_plan, with_series
    from vsizer.study.predict import predict_plan

    plans = {
        p.stem: json.loads(p.read_text(encoding="utf-8"))
        for p in sorted(PLANS.glob("*.json"))
    }
    demo = json.loads(json.dumps(plans["demo"]))
    demo["predictions"] = predict_plan(demo, None)
    plans["demo-predict"] = demo
    plans["small"] = small_plan()
    plans["small-series"] = with_series(small_plan())
    return plans


def _strip_plotly(text: str) -> str:
    from vsizer.reporting._html_page import plotly_js

    for kind in ("basic", "cartesian", "full"):
        bundle = plotly_js(kind)
        if bundle in text:
            break
    digest = hashlib.sha256(bundle.encode("utf-8")).hexdigest()
    assert text.count(bundle) == 1
    return text.replace(bundle, f"/* plotly.js {kind} sha256 {digest} */")


def _cell(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value.isoformat()
    return repr(value)


def _cells(wb: Any) -> str:
    sheets = {
        ws.title: [[_cell(c) for c in row] for row in ws.iter_rows(values_only=True)]
        for ws in wb.worksheets
    }
    return json.dumps(sheets, ensure_ascii=False, indent=0) + "\n"


def _terminal(plan: dict[str, Any], lang: str) -> str:
    from rich.console import Console

    from vsizer.reporting.terminal import print_summary

    out = io.StringIO()
    console = Console(
        file=out, width=120, force_terminal=False, color_system=None, highlight=False
    )
    print_summary(json.loads(json.dumps(plan)), console, lang=lang)
    return out.getvalue()


def _renderers() -> Iterator[tuple[str, Callable[[], str]]]:
    """(golden file name, function giving its text), in a stable order."""
    from vsizer.reporting._html_compare import compare_html
    from vsizer.reporting._xlsx_compare import compare_workbook
    from vsizer.reporting.excel import plan_workbook
    from vsizer.reporting.html import plan_html
    from vsizer.study.compare import compare

    for name, plan in _plans().items():
        for lang in LANGS:
            yield (
                f"{name}.{lang}.html",
                lambda p=plan, g=lang: _strip_plotly(plan_html(p, lang=g)),
            )
            yield (
                f"{name}.{lang}.xlsx.json",
                lambda p=plan, g=lang: _cells(plan_workbook(p, lang=g)),
            )
            if name != "small-series":  # synthetic curves: not a planner's output
                yield f"{name}.{lang}.txt", lambda p=plan, g=lang: _terminal(p, g)
    doc = compare(
        [SCENARIOS / "older-r740-8180.toml", SCENARIOS / "current-rx2530m6-8380.toml"]
    )
    for lang in LANGS:
        yield (
            f"compare.{lang}.html",
            lambda g=lang: _strip_plotly(compare_html(doc, lang=g)),
        )
        yield (
            f"compare.{lang}.xlsx.json",
            lambda g=lang: _cells(compare_workbook(doc, lang=g)),
        )


def _golden_names() -> list[str]:
    return sorted(p.name for p in GOLDEN.iterdir()) if GOLDEN.is_dir() else []


@pytest.fixture(scope="module")
def rendered() -> dict[str, str]:
    return {name: render() for name, render in _renderers()}


def test_every_golden_report_is_produced(rendered: dict[str, str]) -> None:
    assert sorted(rendered) == _golden_names()


@pytest.mark.parametrize("name", _golden_names())
def test_report_is_identical_to_golden(rendered: dict[str, str], name: str) -> None:
    assert rendered[name] == (GOLDEN / name).read_text(encoding="utf-8"), (
        f"{name} changed; if intended, rerun python -m tests.test_report_golden --write"
    )


def main(argv: list[str]) -> int:
    if argv != ["--write"]:
        print(__doc__)
        return 2
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for name, render in _renderers():
        (GOLDEN / name).write_text(render(), encoding="utf-8")
        print(f"wrote {(GOLDEN / name).relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
