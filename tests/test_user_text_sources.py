"""User-facing text cites primary sources, never the internal design brief.

The package does not ship DESIGN.md, so no message, label, JSON string, data
file or CLI help may point to it ("DESIGN", "§").
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import typer.main
from typer.testing import CliRunner

import vsizer
from vsizer.cli import app

PACKAGE = Path(vsizer.__file__).parent
FORBIDDEN = ("DESIGN", "§")
DATA_SUFFIXES = {".csv", ".toml", ".json", ".html", ".j2", ".txt", ".md", ".css", ".js"}


def _docstring_nodes(tree: ast.AST) -> set[int]:
    kinds = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    out = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None) if isinstance(node, kinds) else None
        if body and isinstance(body[0], ast.Expr):
            value = body[0].value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                out.add(id(value))
    return out


def test_no_string_in_the_code_cites_the_design_brief():
    """Messages, labels, JSON 'source' strings, help texts: every str literal
    that is not a docstring (CLI docstrings are checked through --help)."""
    bad = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = _docstring_nodes(tree)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in docs
                and any(f in node.value for f in FORBIDDEN)
            ):
                bad.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert bad == []


def test_no_shipped_data_file_cites_the_design_brief():
    bad = [
        str(p.relative_to(PACKAGE))
        for p in sorted(PACKAGE.rglob("*"))
        if p.is_file()
        and p.suffix in DATA_SUFFIXES
        and any(f in p.read_text(encoding="utf-8", errors="replace") for f in FORBIDDEN)
    ]
    assert bad == []


def _commands(cmd, path: tuple[str, ...] = ()):
    yield path
    for name, sub in getattr(cmd, "commands", {}).items():
        yield from _commands(sub, (*path, name))


ALL_COMMANDS = list(_commands(typer.main.get_command(app)))


@pytest.mark.parametrize("path", ALL_COMMANDS, ids=lambda p: " ".join(p) or "vsizer")
def test_cli_help_cites_no_design_section(path):
    r = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": "250"})
    assert r.exit_code == 0, r.output
    assert not [f for f in FORBIDDEN if f in r.output], r.output


def test_every_command_is_checked():
    assert ("plan",) in ALL_COMMANDS and len(ALL_COMMANDS) > 10
