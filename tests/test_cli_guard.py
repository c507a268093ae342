"""The top-level guard: no traceback reaches a user unless asked for with --debug."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

import vsizer
import vsizer.study
from vsizer.cli import common as _cli_common
from vsizer.cli import main

INVENTORY = str(Path(vsizer.__file__).parent / "data" / "samples" / "inventory_ja.csv")


@pytest.fixture(autouse=True)
def _no_debug(monkeypatch):
    monkeypatch.delenv("VSIZER_DEBUG", raising=False)
    monkeypatch.setitem(_cli_common.DEBUG, "on", False)
    monkeypatch.setenv("COLUMNS", "250")


def _exit_code(argv: list[str]) -> int:
    with pytest.raises(SystemExit) as info:
        main(argv)
    return int(info.value.code or 0)


def _raise(exc: BaseException):
    def boom(*args, **kwargs):
        raise exc

    return boom


def test_unexpected_exception_is_one_line_exit_1(monkeypatch, capsys):
    monkeypatch.setattr(vsizer.study, "plan", _raise(ZeroDivisionError("float division by zero\nmore")))
    assert _exit_code(["plan", INVENTORY, "-q"]) == 1
    captured = capsys.readouterr()
    assert captured.err == (
        "error: internal error (ZeroDivisionError: float division by zero); rerun "
        "with --debug for the traceback\n"
    )
    assert captured.out == ""


@pytest.mark.parametrize("how", ["flag", "env"])
def test_debug_shows_the_traceback(monkeypatch, capsys, how):
    monkeypatch.setattr(vsizer.study, "plan", _raise(ZeroDivisionError("float division by zero")))
    argv = ["plan", INVENTORY, "-q"]
    if how == "flag":
        argv.insert(0, "--debug")
    else:
        monkeypatch.setenv("VSIZER_DEBUG", "1")
    assert _exit_code(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith("Traceback (most recent call last):")
    assert err.rstrip().endswith("ZeroDivisionError: float division by zero")
    assert "error: internal error" not in err


def test_os_error_is_one_line_exit_2(monkeypatch, capsys):
    exc = PermissionError(errno.EACCES, "Permission denied", "/srv/inventory.csv")
    monkeypatch.setattr(vsizer.study, "plan", _raise(exc))
    assert _exit_code(["plan", INVENTORY, "-q"]) == 2
    assert capsys.readouterr().err == "error: /srv/inventory.csv: Permission denied.\n"


def test_os_error_without_a_file_name(monkeypatch, capsys):
    monkeypatch.setattr(vsizer.study, "plan", _raise(OSError(errno.ENOSPC, "No space left on device")))
    assert _exit_code(["plan", INVENTORY, "-q"]) == 2
    assert capsys.readouterr().err == "error: No space left on device.\n"


def test_non_utf8_toml_is_one_line_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_bytes(b'ceiling = "\xff"\n')
    assert _exit_code(["plan", INVENTORY, "-q", "--config", str(bad)]) == 2
    assert capsys.readouterr().err == (
        f"error: {bad}: not UTF-8 text (invalid start byte at byte 11); save the "
        "file as UTF-8.\n"
    )


def test_unicode_decode_error_elsewhere_is_one_line_exit_2(monkeypatch, capsys):
    exc = UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte")
    monkeypatch.setattr(vsizer.study, "plan", _raise(exc))
    assert _exit_code(["plan", INVENTORY, "-q"]) == 2
    assert capsys.readouterr().err == (
        "error: an input is not valid utf-8 text (invalid start byte at byte 0).\n"
    )


def test_interrupt_is_exit_130(monkeypatch, capsys):
    monkeypatch.setattr(vsizer.study, "plan", _raise(KeyboardInterrupt()))
    assert _exit_code(["plan", INVENTORY, "-q"]) == 130  # typer maps it; no traceback
    assert "Traceback" not in capsys.readouterr().err


def test_success_and_input_errors_pass_through(tmp_path, capsys):
    assert _exit_code(["plan", INVENTORY, "-q"]) == 0
    assert _exit_code(["plan", str(tmp_path / "missing.csv"), "-q"]) == 2
    assert capsys.readouterr().err.startswith("error: ")
