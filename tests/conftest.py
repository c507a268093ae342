"""Shared fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


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
