"""Benchmark: building the CP-SAT model of ``--solver cp-sat``, before and after issue 15.

The 1,052-VM PlanetLab day 2011-03-03 (CloudSim copy, ../shared/data) with three
dimensions: CPU (the trace, 1,000 MHz VMs), memory (1 GiB per VM) and vCPU (one per
VM) on hosts of 8 x 1,000 MHz, 64 GiB and 64 vCPUs, ceiling 1.0. Memory and vCPU
are flat (the same value at every step). The full bin-packing model on the hosts of
first-fit decreasing is built two ways:

- *before*: one Python expression per row, ``sum(int(c) * x[v, h] ...)`` over a
  generator, every dimension at every step (the code before issue 15);
- *after*: :class:`vsizer.placement.cpsat_model.BinModel`, rows written into the proto
  from numpy arrays, flat dimensions one row per host.

It prints terms, build time and the resident memory the model holds, and the
estimate of :func:`vsizer.placement.cpsat_model.search_bytes`. The *before* builder
runs on a slice of the steps only (at full size it took 117 s and GBs, issue 15)
and is extrapolated per step. Last, ``solve_exact`` (what ``--solver cp-sat`` runs,
coarse CPU-only setting) with its ``time_limit``: the wall time it takes, model
building included, against that limit.

Run: ``.venv/bin/python benchmarks/bench_cpsat_model.py [--smoke]``. Skips (exit 0)
when ../shared/data is absent.
"""

from __future__ import annotations

import argparse
import gc
import multiprocessing as mp
import sys
import time
from pathlib import Path

import numpy as np

from vsizer.placement.cpsat import SCALE, _cp_model
from vsizer.placement.cpsat_model import BinModel, flat_dims, model_terms, search_bytes
from vsizer.placement.lns_exact import solve_exact
from vsizer.placement.series_fit import first_fit_series

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "planetlab_cloudsim"
DAY = "20110303"
#: Host: 8 x 1,000 MHz, 64 GiB, 64 vCPUs; VM: 1,000 MHz at 100 %, 1 GiB, 1 vCPU.
HOST = np.array([8000.0, 64.0, 64.0])
VM_MEM, VM_VCPU = 1.0, 1.0


def rss_mib() -> float:
    """Resident memory of this process now [MiB] (/proc/self/statm)."""
    with open("/proc/self/statm") as fh:
        pages = int(fh.read().split()[1])
    return pages * 4096 / 2**20


def day_curves(vms: int | None, steps: int | None) -> np.ndarray:
    """(n_vms, n_steps, 3): CPU [MHz] from the trace, flat memory [GiB] and vCPUs."""
    from benchmarks.bench_lns import coarse_day

    cpu = coarse_day(DATA / DAY, vms)[:, :steps, 0]
    n, t = cpu.shape
    return np.stack([cpu, np.full((n, t), VM_MEM), np.full((n, t), VM_VCPU)], axis=2)


def build_before(cp_model, q: np.ndarray, steps: list[int], n_hosts: int):
    """The model as built before issue 15 (cpsat.py ``_model``): Python expressions."""
    n, _, d = q.shape
    model = cp_model.CpModel()
    x = {(v, h): model.new_bool_var(f"x{v}_{h}") for v in range(n) for h in range(n_hosts)}
    y = [model.new_bool_var(f"y{h}") for h in range(n_hosts)]
    for v in range(n):
        model.add_exactly_one(x[v, h] for h in range(n_hosts))
    for h in range(n_hosts):
        for v in range(n):
            model.add_implication(x[v, h], y[h])
        for s in steps:
            for j in range(d):
                coef = q[:, s, j]
                nz = np.flatnonzero(coef)
                if nz.size == 0 or coef.sum() <= SCALE:
                    continue
                model.add(sum(int(coef[v]) * x[v, h] for v in nz.tolist()) <= SCALE * y[h])
    model.minimize(sum(y))
    return model


def build_after(cp_model, q: np.ndarray, steps: list[int], n_hosts: int):
    free = np.full(q.shape[0], -1, dtype=np.int64)
    bm = BinModel.build(cp_model, q, steps, flat_dims(q), n_hosts, scale=SCALE,
                        groups=free, pins=free)
    bm.minimize_hosts(1, n_hosts)
    return bm.model


def measure(builder, cp_model, q, steps, n_hosts) -> tuple[float, float]:
    """Build time [s] and the memory the built model holds [MiB], measured in a forked
    child (a fresh heap: memory freed by an earlier build is not reused)."""
    ctx = mp.get_context("fork")
    out = ctx.Queue()

    def child() -> None:
        gc.collect()
        before = rss_mib()
        t0 = time.perf_counter()
        model = builder(cp_model, q, steps, n_hosts)
        out.put((time.perf_counter() - t0, rss_mib() - before))
        del model

    proc = ctx.Process(target=child)
    proc.start()
    seconds, held = out.get()
    proc.join()
    return seconds, held


def _have_ortools() -> bool:
    try:
        import ortools  # noqa: F401
    except ImportError:
        return False
    return True


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--smoke", action="store_true",
                    help="CI size: 120 VMs, 48 steps, a 3 s search")
    ap.add_argument("--slice", type=int, default=18,
                    help="steps the 'before' builder runs on (default 18 of 288)")
    ap.add_argument("--time-limit", type=float, default=20.0,
                    help="time_limit of the solve_exact run [s] (default 20)")
    args = ap.parse_args()
    vms, steps = (120, 48) if args.smoke else (None, None)
    if args.smoke:
        args.slice, args.time_limit = 6, 3.0
    if not _have_ortools():
        print("skip: OR-Tools is not installed (pip install 'vsizer[solver]')")
        return 0
    if not DATA.is_dir():
        print(f"skip: {DATA} is absent")
        return 0
    curves = day_curves(vms, steps)
    cp_model = _cp_model()
    q = np.ceil(curves / HOST * SCALE - 1e-9).astype(np.int64)
    start, n_hosts = first_fit_series(curves, HOST)
    n, t, _ = q.shape
    every, part = list(range(t)), list(range(args.slice))
    print(f"PlanetLab {DAY}: {n} VMs x {t} steps x 3 dimensions (memory, vCPU flat: "
          f"{flat_dims(q).tolist()}), {n_hosts} hosts (first-fit decreasing)")
    print()
    print("| builder | steps | terms | build time | memory held | estimate |")
    print("|---|---|---|---|---|---|")
    rows = [("after", build_after, every), ("after", build_after, part),
            ("before", build_before, part)]
    flat_none = np.zeros(3, dtype=bool)
    for name, builder, st in rows:
        flat = flat_dims(q) if name == "after" else flat_none
        terms = model_terms(q, st, flat, n_hosts)
        secs, held = measure(builder, cp_model, q, st, n_hosts)
        est = search_bytes(0, terms) / 2**20
        print(f"| {name} | {len(st)} | {terms:,} | {secs:.2f} s | {held:.0f} MiB | "
              f"{est:.0f} MiB |")
        if name == "before":
            scale = t / len(st)
            full = model_terms(q, every, flat_none, n_hosts)
            print(f"| before, extrapolated | {t} | {full:,} | {secs * scale:.0f} s | "
                  f"{held * scale:.0f} MiB | {search_bytes(0, full) / 2**20:.0f} MiB |")
    cpu = curves[:, :, :1]
    start1, _ = first_fit_series(cpu, HOST[:1])
    free = np.full(n, -1, dtype=np.int64)
    t0 = time.perf_counter()
    res = solve_exact(cpu, HOST[:1], base_load=np.zeros(1), groups=free, pins=free,
                      start=start1, bound=1, time_limit=args.time_limit)
    wall = time.perf_counter() - t0
    print()
    print(f"solve_exact (CPU only): time_limit {args.time_limit:g} s, wall {wall:.1f} s "
          f"(model building included), stopped by {res.stopped_by}, "
          f"{res.start_hosts} -> {res.n_hosts} hosts")
    return 0


if __name__ == "__main__":
    sys.exit(main())
