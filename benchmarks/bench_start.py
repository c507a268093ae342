"""Benchmark: the fixed start of the command line (issue 25: "a fixed start under one
second when no placement runs").

Each command runs in a fresh subprocess, as a user runs it: ``vsizer --help``,
``vsizer plan --help``, ``vsizer plan <sample> -q -o <tmp>.json`` for each
shipped inventory sample without series, then ``vsizer predict`` and ``vsizer emit``
of the first sample's plan (no placement runs). The figure is the child's CPU time
(user + system, from ``getrusage(RUSAGE_CHILDREN)``), the lowest of the runs,
with compiled bytecode in place (one untimed run first writes it, as an
installed package has it: ``PYTHONDONTWRITEBYTECODE`` is cleared for the
children). Each child also reports which heavy modules it imported (the same
list as tests/test_startup.py). The floors: Python alone, and Python importing
numpy and pandas (which every plan needs: the inventory is a pandas table).

Run: ``.venv/bin/python benchmarks/bench_start.py [--runs N] [--smoke]``.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "vsizer" / "data" / "samples"

#: The shipped inventory samples without series.
PLAN_SAMPLES = ("inventory_ja.csv", "servers.csv", "azure_migrate_import.csv",
                "inventory_ja.xlsx", "rvtools_export.xlsx")

HEAVY = ("pandas", "numpy", "pyarrow", "openpyxl", "plotly", "numba", "ortools", "scipy")

_PROBE = (
    "import sys, runpy; sys.argv = ['vsizer'] + sys.argv[1:]\n"
    "try:\n    runpy.run_module('vsizer', run_name='__main__')\n"
    "except SystemExit as e:\n    code = e.code\nelse:\n    code = 0\n"
    "print('HEAVY:' + ' '.join(sorted(m for m in {heavy!r} if m in sys.modules)),"
    " file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def cpu_of(argv: list[str], env: dict[str, str]) -> tuple[float, str]:
    """CPU seconds (user + system) of one child running ``argv``, and the heavy
    modules it imported (as the probe printed them; '' for the floors)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    res = subprocess.run(argv, capture_output=True, text=True, cwd=REPO, env=env,
                         timeout=600)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if res.returncode != 0:
        raise SystemExit(f"{' '.join(argv[2:])}: exit {res.returncode}: "
                         f"{res.stderr.strip()[-500:]}")
    heavy = [ln[6:] for ln in res.stderr.splitlines() if ln.startswith("HEAVY:")]
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, (heavy[-1] if heavy else "")


def commands(out: Path) -> list[tuple[str, list[str]]]:
    """(label, argv) of every timed command."""
    probe = [sys.executable, "-c", _PROBE.format(heavy=HEAVY)]
    rows = [
        ("python -c pass (floor)", [sys.executable, "-c", "pass"]),
        ("python -c 'import numpy, pandas' (floor)",
         [sys.executable, "-c", "import numpy, pandas"]),
        ("vsizer --help", [*probe, "--help"]),
        ("vsizer plan --help", [*probe, "plan", "--help"]),
    ]
    for name in PLAN_SAMPLES:
        rows.append((f"vsizer plan {name}",
                     [*probe, "plan", str(SAMPLES / name), "-q", "-o",
                      str(out / f"{name}.json")]))
    plan = str(out / f"{PLAN_SAMPLES[0]}.json")  # written by the first plan above
    rows += [  # commands that read a plan and place nothing
        (f"vsizer predict {PLAN_SAMPLES[0]}.json -o",
         [*probe, "predict", plan, "-o", str(out / "predicted.json")]),
        (f"vsizer emit vmq {PLAN_SAMPLES[0]}.json", [*probe, "emit", "vmq", plan]),
    ]
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5, help="timed runs per command")
    ap.add_argument("--smoke", action="store_true", help="CI size: one timed run")
    args = ap.parse_args()
    runs = 1 if args.smoke else args.runs
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = os.pathsep.join(
        [str(REPO), *([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])])
    print(f"fixed start, CPU s (user + system) of a fresh process, lowest of {runs} "
          f"run(s) after one untimed run; {os.cpu_count()} CPUs, Python "
          f"{sys.version.split()[0]}\n")
    print("| command | CPU s | heavy modules imported |")
    print("|---|---:|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for label, argv in commands(Path(tmp)):
            cpu_of(argv, env)  # writes the bytecode (and numba's cache, if any)
            best, heavy = min(cpu_of(argv, env) for _ in range(runs))
            print(f"| {label} | {best:.2f} | {heavy or '-'} |", flush=True)
    print("\nfixed start timed: every command above ran")


if __name__ == "__main__":
    main()
