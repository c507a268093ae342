"""Shared fixtures, and the ``needs`` marker of tests that need an optional extra.

``@pytest.mark.needs("numba")`` (or ``pytestmark = pytest.mark.needs(...)``)
skips a test with one named reason when the extra is missing, instead of
failing or running for minutes on a slower fallback.
"""

from __future__ import annotations

import functools
import importlib.util
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"

#: Optional extra -> (what must be present: a module or an executable, how to get it).
EXTRAS: dict[str, tuple[str, str]] = {
    "ortools": ("module:ortools", "pip install 'vsizer[solver]'"),
    "numba": ("module:numba", "pip install 'vsizer[fast]'"),
    "ray": ("module:ray", "pip install 'vsizer[ray]'"),
    "dask": ("module:distributed", "pip install 'vsizer[dask]'"),
    "pyarrow": ("module:pyarrow", "pip install 'vsizer[series]'"),
    "scipy": ("module:scipy", "pip install 'vsizer[fit]'"),
    "plotly": ("module:plotly", "pip install 'vsizer[report]'"),
    "chromium": ("exe:chromium", "apt-get install chromium"),
    "qemu": ("exe:qemu-system-x86_64", "apt-get install qemu-system-x86"),
}


@functools.cache
def have(extra: str) -> bool:
    """Whether the optional extra ``extra`` (a key of :data:`EXTRAS`) is present."""
    kind, _, name = EXTRAS[extra][0].partition(":")
    if kind == "exe":
        return shutil.which(name) is not None
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "needs(*extras): skip unless every optional extra is present "
        f"(one of {', '.join(EXTRAS)})"
    )


def pytest_runtest_setup(item: pytest.Item) -> None:
    for mark in item.iter_markers("needs"):
        for extra in mark.args:
            if extra not in EXTRAS:
                raise pytest.UsageError(f"needs({extra!r}): not one of {', '.join(EXTRAS)}")
            if not have(extra):
                pytest.skip(f"needs {extra}: not installed ({EXTRAS[extra][1]})")


@pytest.fixture
def shared_data() -> Path:
    """../shared/data, or skip when the shared folder is absent."""
    path = SHARED / "data"
    if not path.is_dir():
        pytest.skip("../shared/data is absent")
    return path


@pytest.fixture(autouse=True)
def _forget_solver_results() -> None:
    """Every test runs its cp-sat searches itself: the results ``solve_exact``
    remembers within a process (an N+k pool and its count reason) start empty."""
    from vsizer.placement import lns_exact

    lns_exact.forget()
