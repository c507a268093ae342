"""One test per published figure: run its command, compare with the published value.

The rows and the table of docs/models.md ("Published figures") come from
tests/published_figures.py.
"""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.published_figures import FIGURES, pick, within
from vsizer.cli import app

ROOT = Path(__file__).parents[1]


@cache
def _run(args: tuple[str, ...]) -> dict:
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        r = CliRunner().invoke(app, list(args), env={"COLUMNS": "250"})
    finally:
        os.chdir(cwd)
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


@pytest.mark.parametrize(("figure", "source", "expected", "tolerance", "command", "path"),
                         FIGURES, ids=[f[0] for f in FIGURES])
def test_published_figure(figure, source, expected, tolerance, command, path):
    value = pick(_run(tuple(command)), path)
    assert within(float(value), expected, tolerance), f"{figure}: {value} vs {expected}"


def test_docs_table_lists_every_figure_and_command():
    text = (ROOT / "docs" / "models.md").read_text(encoding="utf-8")
    for figure, *_rest, command, _path in FIGURES:
        assert figure in text, figure
        assert "vsizer " + " ".join(a for a in command if a != "--json") in text, command
