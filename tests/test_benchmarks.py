"""Every script under benchmarks/ runs at its smoke size (``--smoke``) and prints
its figures, so a benchmark cannot break silently (the slow tier: ``make
test-slow``, once in CI). Scripts that need ../shared/data or an optional extra
print one ``skip: ...`` line and exit 0 when it is absent."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPTS = sorted((REPO / "benchmarks").glob("*.py"))

#: A line each script prints when it ran (not skipped).
EXPECTED = {
    "bench_cg_bound.py": "configuration-LP bounds measured",  # issue 25
    "bench_count_reason.py": "count reasons timed",
    "bench_curve_fleet.py": "| 300 x 288 | N+1 |",  # issue 25
    "bench_engines.py": "engines timed: ",  # issue 15 (engine)
    "bench_choice.py": "candidates, ",  # issue 16 (tco)
    "bench_fleet.py": "fleet benchmark done",
    "bench_identical.py": "plans byte-identical",
    "bench_ingest.py": "Parquet ingestion: same series on every engine: True",  # issue 15 (azure)
    "bench_lns.py": "| PlanetLab day |",
    "bench_cpsat_model.py": "solve_exact (CPU only): time_limit",  # issue 15 (cpsat)
    "bench_limits.py": "long sheets refused by the row limit",
    "bench_growth.py": "growth study",
    "bench_placement.py": "ratio target/baseline:",
    "bench_series_memory.py": "old/new on 5 files: peak RSS",  # issue 15 (columnar)
    "bench_series_scale.py": "400 VMs:",
    "bench_shards.py": "quality loss measured",  # issue 15 (shards)
    "bench_start.py": "fixed start timed: every command above ran",  # issue 25
    "bench_xlsx_read.py": "xlsx read: same servers by both readers: True",  # issue 25
    "bench_month_10k.py": "month plan:",  # issue 15 (shards)
    "anneal_planetlab.py": "| 20110303[:150] | 150 | 7 | 8 | 7 |",  # issue 25
    "cloudsim_planetlab.py": "| 20110303[:150] | 150 |",  # issue 25
    "placement_quality.py": "| PlanetLab 20110303[:150] | coarse | cpu | N+0 |",
    "traces.py": "| PlanetLab ",
}


def test_every_benchmark_is_listed() -> None:
    assert sorted(p.name for p in SCRIPTS) == sorted(EXPECTED)


@pytest.mark.slow
@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_benchmark_runs_at_smoke_size(script: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    res = subprocess.run(
        [sys.executable, str(script), "--smoke"],
        capture_output=True, text=True, timeout=600, cwd=REPO, env=env,
    )
    assert res.returncode == 0, res.stderr[-2000:]
    if res.stdout.startswith("skip:"):
        pytest.skip(res.stdout.strip())
    assert EXPECTED[script.name] in res.stdout, res.stdout[-2000:]


@pytest.mark.parametrize("script", ["bench_lns.py", "bench_cpsat_model.py"])
def test_a_benchmark_needing_or_tools_skips_in_one_line_without_it(
    script: str, tmp_path: Path
) -> None:
    """``import ortools`` fails (a package of that name raising ImportError first on
    the path): the script prints one ``skip:`` line naming OR-Tools and exits 0."""
    shadow = tmp_path / "ortools"
    shadow.mkdir()
    (shadow / "__init__.py").write_text('raise ImportError("No module named ortools")\n')
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(REPO)]))
    res = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / script), "--smoke"],
        capture_output=True, text=True, timeout=300, cwd=REPO, env=env,
    )
    assert (res.returncode, res.stdout, res.stderr) == (
        0, "skip: OR-Tools is not installed (pip install 'vsizer[solver]')\n", ""
    )
