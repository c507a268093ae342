"""The shipped catalogs are what scripts/build_catalogs.py makes from the data."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import vsizer.catalogs

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"
SHIPPED = Path(vsizer.catalogs.__file__).parent / "data"
FILES = ["cpus.csv", "hosts.csv", "server_power.csv", "server_power_by_chips.csv"]
BUILT = [*FILES, "score_bridge.csv", "score_ranges.csv"]


@pytest.mark.slow
@pytest.mark.skipif(
    not (SHARED / "cpu_perf_spec_cpu2017").exists()
    or not (SHARED / "power_specpower").exists()
    or not (REPO / "scripts" / "build_catalogs.py").exists(),
    reason="../shared/data not present",
)
def test_build_script_reproduces_shipped_files(tmp_path):
    subprocess.run(
        [
            sys.executable,
            str(REPO / "scripts" / "build_catalogs.py"),
            "--data",
            str(SHARED),
            "--out",
            str(tmp_path),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    for name in BUILT:
        assert (tmp_path / name).read_bytes() == (SHIPPED / name).read_bytes(), name


@pytest.mark.parametrize("name", FILES)
def test_every_shipped_row_has_a_source(name):
    import csv

    with (SHIPPED / name).open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert rows
    assert all(r["source"].strip() for r in rows)


def test_bridge_rows_cite_both_suites():
    import csv

    with (SHIPPED / "score_bridge.csv").open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 10
    old, new = rows[:2], rows[2:]
    assert all(r["from_basis"] == "SPECint2000" for r in old)
    assert all("https://www.spec.org/cpu2000/results/" in r["from_source"] for r in old)
    assert all("https://www.spec.org/cpu2006/results/res20" in r["to_source"] for r in old)
    assert all("CINT2006rate" in r["from_source"] for r in new)
    assert all("https://www.spec.org/cpu2017/results/" in r["to_source"] for r in new)
