"""Benchmark: Ray and Dask (distributed) as local clusters on this machine,
against the local engine, through ``vsizer.engines.get_engine``.

For each engine and each worker count, in one process (so the ratios are
firm even when the shared machine's load moves the times):

- start-up: ``get_engine(name, workers=W)`` until the cluster answers;
- per-task overhead: a map of ``--tiny`` trivial tasks (``abs``), wall time per task;
- throughput: a map of ``--tasks`` numpy tasks (eigenvalues of a 300 x 300
  symmetric matrix, ~10 ms each on one core; BLAS held to one thread) in
  tasks per second, and its ratio to the local engine's (the local engine is
  measured again just before each engine's run, and the ratio is to that);
- a what-if sweep: ``vsizer.study.compare.compare`` of ``--scenarios``
  scenarios (the shipped R740 scenario at ceilings 0.50, 0.52, ...) on the
  shipped sample inventory, its time, ratio to local, and whether the
  document is byte-identical to the local one;
- memory: resident set size of this process and every process it started
  (cluster daemons and workers; shared pages counted in each, so an upper bound).

``--workers 1,2`` measures the scaling from 1 to 2 workers on the 2 cores;
``--workers 8`` simulates a larger cluster by oversubscription (8 worker
processes on 2 cores): it shows the scheduler's and the transport's cost of 8
workers, not the speed of 8 cores (see docs/scale.md).

Run: ``.venv/bin/python benchmarks/bench_engines.py [--workers 1,2,8]
[--tasks 400] [--scenarios 8]``; ``--smoke``: 2 workers, 20 tasks, 2 scenarios.
An engine whose extra is not installed prints ``skip: ray not installed`` and
the others run.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # one BLAS thread per task, here and in workers

import argparse  # noqa: E402
import contextlib  # noqa: E402
import importlib.util  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

from vsizer.engines import get_engine  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "vsizer" / "data" / "samples" / "inventory_ja.xlsx"
R740 = REPO / "vsizer" / "data" / "scenarios" / "older-r740-8180.toml"
MODULES = {"ray": "ray", "dask": "distributed"}


def numpy_task(seed: int) -> float:
    """One unit of numeric work: the largest eigenvalue of a random 300 x 300 Gram matrix."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((300, 300))
    return float(np.linalg.eigvalsh(a @ a.T)[-1])


def tree_rss_mib() -> float:
    """RSS of this process and all its descendants, MiB."""
    import psutil

    me = psutil.Process()
    total = 0
    for p in [me, *me.children(recursive=True)]:
        with contextlib.suppress(psutil.Error):
            total += p.memory_info().rss
    return total / 2**20


def scenarios(n: int) -> list[Any]:
    from vsizer.study.compare import Scenario, load_scenario

    base = load_scenario(R740)
    return [
        Scenario(f"ceiling {0.5 + 0.02 * i:.2f}", base.rules.replace(ceiling=0.5 + 0.02 * i))
        for i in range(n)
    ]


def measure(name: str, workers: int | None, args: argparse.Namespace) -> dict[str, Any]:
    """The figures of one engine at one worker count."""
    from vsizer.study.compare import compare

    base = local_reference(args) if name != "local" else None
    t0 = time.perf_counter()
    engine = get_engine(name, workers=workers)
    t1 = time.perf_counter()
    with engine:
        engine.map(abs, [-1])  # warm: the first task imports on the workers
        t2 = time.perf_counter()
        engine.map(abs, list(range(args.tiny)))
        t3 = time.perf_counter()
        results = engine.map(numpy_task, list(range(args.tasks)))
        t4 = time.perf_counter()
        doc = compare(scenarios(args.scenarios), SAMPLE, engine=engine)
        t5 = time.perf_counter()
        rss = tree_rss_mib()
    return {
        "engine": name,
        "workers": engine.workers,
        "start_s": t1 - t0,
        "first_task_s": t2 - t1,
        "per_task_ms": (t3 - t2) / args.tiny * 1e3,
        "tasks_per_s": args.tasks / (t4 - t3),
        "checksum": round(sum(results), 6),
        "sweep_s": t5 - t4,
        "sweep_doc": json.dumps(doc, ensure_ascii=False),
        "rss_mib": rss,
        "local": base,
    }


def local_reference(args: argparse.Namespace) -> dict[str, float]:
    """The local engine's throughput and sweep, measured just before an engine's
    run: the ratios compare runs minutes apart at most, not the whole script."""
    from vsizer.study.compare import compare

    t0 = time.perf_counter()
    [numpy_task(i) for i in range(args.tasks)]
    t1 = time.perf_counter()
    compare(scenarios(args.scenarios), SAMPLE)
    t2 = time.perf_counter()
    return {"tasks_per_s": args.tasks / (t1 - t0), "sweep_s": t2 - t1}


def table(rows: list[dict[str, Any]]) -> str:
    first = rows[0]
    lines = [
        "| engine | workers | start-up s | per-task ms | numpy tasks/s | x local "
        "| sweep s | x local | same doc | RSS MiB |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|---:|",
    ]
    for r in rows:
        local = r["local"] or first
        lines.append(
            f"| {r['engine']} | {r['workers']} | {r['start_s']:.2f} | "
            f"{r['per_task_ms']:.3f} | {r['tasks_per_s']:.1f} | "
            f"{r['tasks_per_s'] / local['tasks_per_s']:.2f} | {r['sweep_s']:.2f} | "
            f"{local['sweep_s'] / r['sweep_s']:.2f} | "
            f"{'yes' if r['sweep_doc'] == first['sweep_doc'] and r['checksum'] == first['checksum'] else 'NO'} | "
            f"{r['rss_mib']:.0f} |"
        )
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", default="1,2,8", help="worker counts, comma-separated")
    ap.add_argument("--tasks", type=int, default=400, help="numpy tasks in the throughput map")
    ap.add_argument("--tiny", type=int, default=1000, help="trivial tasks for the overhead")
    ap.add_argument("--scenarios", type=int, default=8, help="scenarios of the sweep")
    ap.add_argument("--engines", default="ray,dask", help="engines besides local")
    ap.add_argument("--smoke", action="store_true", help="CI size: 2 workers, 20 tasks")
    args = ap.parse_args()
    if args.smoke:
        args.workers, args.tasks, args.tiny, args.scenarios = "2", 20, 50, 2
    counts = [int(w) for w in args.workers.split(",")]
    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} (1, 5 min); "
          f"cores: {os.cpu_count()}", flush=True)
    rows = [measure("local", None, args)]
    for name in args.engines.split(","):
        if importlib.util.find_spec(MODULES[name]) is None:
            print(f"skip: {name} not installed (pip install 'vsizer[{name}]')")
            continue
        for w in counts:
            rows.append(measure(name, w, args))
            print(f"  {name} x{w}: done", flush=True)
    print(table(rows))
    print(f"engines timed: {len(rows)} runs, {args.tasks} numpy tasks, "
          f"{args.tiny} tiny tasks, {args.scenarios} scenarios each")
    return 0


if __name__ == "__main__":
    sys.exit(main())
