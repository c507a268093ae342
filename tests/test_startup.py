"""Fixed start: ``vsizer --help`` and ``vsizer plan --help`` load no heavy module
(pandas, numpy, pyarrow, openpyxl, plotly, numba, ortools, scipy); the package's
public names load on first use (:mod:`vsizer._lazy`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("pandas", "numpy", "pyarrow", "openpyxl", "plotly", "numba", "ortools", "scipy")

_PROBE = (
    "import sys, runpy; sys.argv = ['vsizer'] + sys.argv[1:]\n"
    "try:\n    runpy.run_module('vsizer', run_name='__main__')\n"
    "except SystemExit:\n    pass\n"
    "print('HEAVY:' + ' '.join(sorted(m for m in {heavy!r} if m in sys.modules)),\n"
    "      file=sys.stderr)\n"
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


def test_a_small_plan_loads_neither_numba_nor_scipy(tmp_path: Path) -> None:
    """``vsizer plan`` of the shipped inventory_ja.csv (20 servers, no series):
    its placement runs on numpy's kernels (vsizer.placement._kernel's budget),
    so neither numba (llvmlite) nor the scipy.linalg that numba loads is
    imported, nor ortools, plotly or openpyxl; numpy and pandas are (the
    inventory is a pandas table: every plan needs them), and pyarrow with pandas
    where it is installed."""
    sample = Path(__file__).resolve().parents[1] / "vsizer/data/samples/inventory_ja.csv"
    code = _PROBE.format(heavy=HEAVY + ("llvmlite",))
    res = subprocess.run(
        [sys.executable, "-c", code, "plan", str(sample), "-q", "-o",
         str(tmp_path / "p.json")],
        capture_output=True, text=True, check=True,
    )
    assert json.loads((tmp_path / "p.json").read_text())["servers"], res.stderr
    heavy = [ln for ln in res.stderr.splitlines() if ln.startswith("HEAVY:")]
    assert heavy in (["HEAVY:numpy pandas"], ["HEAVY:numpy pandas pyarrow"]), res.stderr


def test_predict_on_a_plan_loads_no_pandas(tmp_path: Path) -> None:
    """``vsizer predict plan.json -o out.json`` reads a plan document and writes it
    back with predictions: numpy only (vsizer._jsonable's rounding no longer loads
    pandas, which took it from 1.1 to 0.8 CPU s), and the same bytes as before."""
    plan = Path(__file__).resolve().parent / "data" / "golden" / "demo.json"
    code = _PROBE.format(heavy=HEAVY)
    res = subprocess.run(
        [sys.executable, "-c", code, "predict", str(plan), "-o", str(tmp_path / "p.json")],
        capture_output=True, text=True, check=True,
    )
    assert json.loads((tmp_path / "p.json").read_text())["predictions"], res.stderr
    heavy = [ln for ln in res.stderr.splitlines() if ln.startswith("HEAVY:")]
    assert heavy == ["HEAVY:numpy"], res.stderr


def test_jsonable_turns_pandas_na_into_null_with_pandas_loaded() -> None:
    import numpy as np
    import pandas as pd

    from vsizer._jsonable import jsonable

    assert jsonable(pd.NA) is None and jsonable(None) is None
    assert jsonable(np.float64("nan")) is None and jsonable(-0.0) == 0.0
    assert jsonable(np.int64(3)) == 3 and jsonable("x") == "x"


@pytest.mark.parametrize(("text", "valid"), [
    ("5min", True), ("30s", True), ("1h", True), ("250ms", True), ("9999h", True),
    ("0s", False), ("05min", True), ("2D", True), ("10000min", True), ("soon", False),
    ("-5min", False), ("5 min", True), ("", False), ("5", True), (5, True),
])
def test_a_plain_duration_is_checked_as_pandas_checks_it(text: object, valid: bool) -> None:
    """The default step ('5min') is checked without importing pandas
    (rule_meta._PLAIN_DURATION); the answer is pandas' answer, for the plain
    forms and for every other one (which pandas checks)."""
    import pandas as pd

    from vsizer.study.rule_meta import _PLAIN_DURATION, is_duration

    try:
        want = bool(pd.Timedelta(text) > pd.Timedelta(0))  # type: ignore[arg-type]
    except (ValueError, TypeError):
        want = False
    assert is_duration(text) is want is valid
    plain = isinstance(text, str) and _PLAIN_DURATION.fullmatch(text) is not None
    assert plain == (text in ("5min", "30s", "1h", "250ms", "9999h"))
