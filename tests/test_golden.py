"""Golden plan documents: the demo, every bundled scenario and a series plan give
byte-identical plan JSON to tests/data/golden/ (regenerate with
scripts/make_golden.py only for an intended change of the plan)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
GOLDEN = REPO / "tests" / "data" / "golden"


def _documents() -> dict[str, str]:
    spec = importlib.util.spec_from_file_location(
        "make_golden", REPO / "scripts" / "make_golden.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.golden_documents()


@pytest.fixture(scope="module")
def documents() -> dict[str, str]:
    import os

    cwd = os.getcwd()
    try:
        return _documents()
    finally:
        os.chdir(cwd)


def test_every_golden_file_is_produced(documents: dict[str, str]) -> None:
    assert sorted(documents) == sorted(p.name for p in GOLDEN.glob("*.json"))


@pytest.mark.parametrize("name", sorted(p.name for p in GOLDEN.glob("*.json")))
def test_plan_is_byte_identical_to_golden(documents: dict[str, str], name: str) -> None:
    assert documents[name] == (GOLDEN / name).read_text(encoding="utf-8"), (
        f"{name} changed; if intended, rerun scripts/make_golden.py"
    )
