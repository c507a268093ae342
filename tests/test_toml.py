"""One TOML reader (vsizer._toml) behind scenarios, comparisons, profiles and suites."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from vsizer._toml import read_toml
from vsizer.bench.suite import load_suite
from vsizer.errors import ConfigError
from vsizer.models.profile import load_profile


def test_a_folder_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    folder = tmp_path / "scenario.toml"
    folder.mkdir()
    with pytest.raises(ConfigError, match=re.escape(f"{folder}: cannot read the file (Is a directory).")):
        read_toml(folder)


def test_bad_toml_names_the_file_line_and_column(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[sizing]\nceiling = = 0.6\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"^.*bad\.toml: not valid TOML: .*\(at line 2, column 11\)\.$"):
        read_toml(bad)


def test_profile_and_suite_use_the_same_message(tmp_path: Path) -> None:
    bad = tmp_path / "site.toml"
    bad.write_text("[cpu\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"^site\.toml: not valid TOML: .*\(at line 1, column 5\)\.$"):
        load_profile(bad)
    with pytest.raises(ConfigError, match=r"site\.toml: not valid TOML: .*\(at line 1, column 5\)\.$"):
        load_suite(bad)


# ----------------------------------------- files without end (issue 24, beyond the suite)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_a_device_without_end_is_one_line_not_all_memory() -> None:
    """``--config /dev/zero`` read until killed: 9.7 GB in 60 s."""
    with pytest.raises(ConfigError) as err:
        read_toml("/dev/zero")
    assert str(err.value) == (
        "/dev/zero: more than 64 MiB, too large for a scenario file (is it a device "
        "or a pipe without end?); give the file itself."
    )


def test_small_files_read_as_read_text_did(tmp_path: Path) -> None:
    from vsizer._small_file import read_small_text

    p = tmp_path / "c.csv"
    p.write_bytes(b"\xef\xbb\xbfa,b\r\n1,2\r3\n")
    assert read_small_text(p, what="x", error=ConfigError, encoding="utf-8-sig") == (
        p.read_text(encoding="utf-8-sig"))
    with pytest.raises(ConfigError, match=r"more than 1 MiB, too large for a catalog"):
        p.write_bytes(b"x" * (1024 * 1024 + 1))
        read_small_text(p, what="a catalog", error=ConfigError, limit_mib=1)


def test_a_named_pipe_is_named_as_such_not_missing(tmp_path: Path) -> None:
    """A FIFO given as the inventory was 'file not found'."""
    import os

    from vsizer.errors import InventoryError
    from vsizer.inventory import read_inventory

    fifo = tmp_path / "f.csv"
    os.mkfifo(fifo)
    with pytest.raises(InventoryError) as err:
        read_inventory(fifo)
    assert str(err.value) == (
        f"f.csv: not a regular file (a device or a named pipe): {fifo}; give the "
        "file itself.")
