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
