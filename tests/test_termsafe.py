"""Terminal safety: control and bidi characters in user strings become visible escapes."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from rich.table import Table
from rich.text import Text
from typer.testing import CliRunner

from vsizer.cli import app
from vsizer.termsafe import UNSAFE_CODEPOINTS, SafeConsole, terminal_safe

REPO = Path(__file__).resolve().parents[1]
runner = CliRunner()

HEADER = "name,sockets,cores_per_socket,cpu_mhz,cpu_peak_pct,mem_gib,pool\n"


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("a\x1b[2Jb", "a\\x1b[2Jb"),
        ("\x00\x07\x08\t\r\x7f", "\\x00\\x07\\x08\\x09\\x0d\\x7f"),
        ("\x9b31m\x85", "\\x9b31m\\x85"),
        ("web\u202e10bew", "web\\u202e10bew"),
        ("\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069", "\\u202a\\u202b\\u202c\\u202d\\u2066\\u2067\\u2068\\u2069"),
        ("two\nlines", "two\\x0alines"),
        ("サーバー01 café", "サーバー01 café"),
        ("already \\x1b escaped", "already \\x1b escaped"),
    ],
)
def test_terminal_safe_escapes_controls_and_bidi(raw, shown):
    assert terminal_safe(raw) == shown
    assert terminal_safe(shown) == shown  # idempotent


def test_terminal_safe_keeps_our_newlines_on_request():
    assert terminal_safe("one\ntwo\x1b", keep_newlines=True) == "one\ntwo\\x1b"


def test_unsafe_set_is_c0_del_c1_and_bidi():
    assert len(UNSAFE_CODEPOINTS) == 32 + 1 + 32 + 5 + 4
    assert ord("\u200f") not in UNSAFE_CODEPOINTS and ord(" ") not in UNSAFE_CODEPOINTS


def test_safe_console_escapes_cells_but_keeps_its_own_styling():
    buf = io.StringIO()
    console = SafeConsole(file=buf, force_terminal=True, color_system="standard", width=80)
    table = Table("name")
    table.add_row(Text("a\x1b[2Jb", style="red"))
    console.print(table)
    console.print("line one\nline two \x1b]0;title\x07", style="bold")
    text = buf.getvalue()
    assert "a\\x1b[2Jb" in text
    assert "\x1b[2J" not in text and "\x1b]0" not in text
    assert "\x1b[31m" in text  # rich's own colour codes still work
    assert "line one\x1b[0m\n" in text  # our newline is kept, not escaped


def _inventory(tmp_path: Path) -> Path:
    path = tmp_path / "esc.csv"
    path.write_bytes(
        (HEADER + "a\x1b[2Jb,2,4,2400,40,16,p\x1b[31mool\u202e\n").encode("utf-8")
    )
    return path


@pytest.mark.slow
def test_plan_terminal_output_has_no_raw_escape(tmp_path):
    r = runner.invoke(app, ["plan", str(_inventory(tmp_path))], env={"COLUMNS": "250"})
    assert r.exit_code == 0, r.output
    assert "\x1b" not in r.output and "\u202e" not in r.output
    assert "p\\x1b[31mool\\u202e" in r.output


def test_error_line_echoing_a_cell_has_no_raw_escape(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_bytes(
        b"name,sockets,cores_per_socket,cpu_mhz,cpu_peak_pct,mem_gib\n"
        b"db01,2,4,24\x1b[2J00,40,16\n"
    )
    r = runner.invoke(app, ["plan", str(bad)])
    assert r.exit_code == 2
    assert "\x1b" not in r.output
    assert "got '24\\x1b[2J00'." in r.output


def test_error_line_with_a_raw_user_string_is_escaped(tmp_path):
    name = "x\x1b[2J\u202e.txt"
    r = runner.invoke(app, ["plan", str(_inventory(tmp_path)), "-o", name])
    assert r.exit_code == 2
    assert r.output == (
        "error: -o x\\x1b[2J\\u202e.txt: unsupported output format '.txt'; use "
        ".json, .xlsx or .html.\n"
    )


@pytest.mark.slow
def test_cli_process_on_a_terminal_like_stream_writes_no_raw_escape(tmp_path):
    """The acceptance check: the real process, colour forced, output through cat -v."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "FORCE_COLOR": "1", "COLUMNS": "200"}
    env.pop("NO_COLOR", None)
    proc = subprocess.run(
        [sys.executable, "-m", "vsizer", "plan", str(_inventory(tmp_path))],
        capture_output=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode("utf-8")
    assert "p\\x1b[31mool\\u202e" in out
    assert "\x1b[1m" in out  # colour is on: rich's own styling is kept
    # the only ESC bytes left are rich's SGR colour codes (ESC [ digits;… m)
    assert re.sub(r"\x1b\[[0-9;]*m", "", out).count("\x1b") == 0
    assert "\x1b[31mool" not in out and "\x1b[2J" not in out
