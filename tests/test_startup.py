"""Fixed start: ``vsizer --help`` and ``vsizer plan --help`` load no heavy module
(pandas, numpy, pyarrow, openpyxl, plotly, numba, ortools, scipy); the package's
public names load on first use (:mod:`vsizer._lazy`)."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("pandas", "numpy", "pyarrow", "openpyxl", "plotly", "numba", "ortools", "scipy")

_PROBE = (
    "import sys, runpy; sys.argv = ['vsizer'] + sys.argv[1:]\n"
    "try:\n    runpy.run_module('vsizer', run_name='__main__')\n"
    "except SystemExit:\n    pass\n"
    "print('HEAVY:' + ' '.join(m for m in {heavy!r} if m in sys.modules), file=sys.stderr)\n"
)


@pytest.mark.parametrize("args", [["--help"], ["plan", "--help"], ["--version"],
                                  ["plan", "--no-such-flag"], ["plan", "--lang", "fr", "x.csv"],
                                  ["catalog", "--help"], ["predict", "--help"]])
def test_help_loads_no_heavy_module(args: list[str]) -> None:
    code = _PROBE.format(heavy=HEAVY)
    res = subprocess.run([sys.executable, "-c", code, *args], capture_output=True,
                         text=True, check=True)
    heavy = [ln for ln in res.stderr.splitlines() if ln.startswith("HEAVY:")]
    assert heavy == ["HEAVY:"], res.stderr


def test_public_names_load_on_use() -> None:
    import vsizer
    import vsizer.study

    assert vsizer.read_inventory.__module__ == "vsizer.inventory"
    assert vsizer.study.ConsolidationStudy.__name__ == "ConsolidationStudy"
    assert set(vsizer.__all__) <= set(dir(vsizer)) | {
        n for n in vsizer.__all__ if getattr(vsizer, n, None) is not None
    }


def test_unknown_name_is_an_attribute_error() -> None:
    import vsizer

    with pytest.raises(AttributeError, match="module 'vsizer' has no attribute 'nope'"):
        vsizer.nope  # noqa: B018


def test_version_answers_before_the_command_line_is_imported() -> None:
    """``vsizer --version`` imports neither typer nor rich nor any command module
    (vsizer._entry), so it starts in about the time of Python itself."""
    code = (
        "import sys, runpy; sys.argv = ['vsizer', '--version']\n"
        "runpy.run_module('vsizer', run_name='__main__')\n"
        "print('LOADED:' + ' '.join(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('typer', 'rich', 'click') or m.startswith('vsizer.cli'))), file=sys.stderr)\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert res.stdout.startswith("vsizer ") and res.stdout.count("\n") == 1
    assert "LOADED:\n" in res.stderr + "\n" and "LOADED: " not in res.stderr, res.stderr
