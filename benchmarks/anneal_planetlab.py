"""Benchmark: simulated annealing at a fixed host count on the PlanetLab days (CloudSim
setting), beside the default plan's search: how close a second metaheuristic gets to
the issue-25 target (floor(1.05 x bound) + 1 hosts).

Not part of the tool: a measurement of whether the default search's shortfall on these
days is the search's or the instances'. The annealing (S. Kirkpatrick, C. D. Gelatt,
M. P. Vecchi, "Optimization by simulated annealing," Science 220(4598), 1983) works
on a fixed count k: the state is a placement of every VM on k hosts, its cost the
overflow (load above the limit summed over hosts and steps, in host-steps, the
cost of the default search as well); a move takes a VM (half of the time from a
host that is over) to another host, the best at the VM's own peak step of
:data:`TOURNAMENT` hosts drawn at random, or swaps it with a VM of that host
(:data:`SWAP_SHARE` of the moves); a move that raises the cost by d is taken with
probability exp(-d / T), T falling geometrically from ``--t0`` to ``--t1`` host-steps
over the ``--iterations``. Seeded: the same run gives the same figures.

The start is the spread the default search uses (largest peak first, each VM where it
adds the least overflow). Printed per day and count: the least overflow seen
(0 = a placement on k hosts that fits), the iterations to reach it and CPU seconds,
beside the bound, the target and the default plan's count printed by
``benchmarks/cloudsim_planetlab.py``.

Run: ``python benchmarks/anneal_planetlab.py [--days N] [--iterations 1e8]
[--above 0 1] [--root DIR]`` (counts: the target plus each ``--above``); ``--smoke`` (CI): the
first 150 VMs of one day, 100,000 iterations, the target and one host less. Skips (exit 0) when ../shared/data or
numba is absent.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

#: Hosts drawn for a move; the one with the least load at the VM's peak step is taken.
TOURNAMENT = 3
#: Share of the moves that are swaps (a VM with one of the target host's).
SWAP_SHARE = 0.3
#: Share of the moves that take their VM from a host that is over.
FOCUS_SHARE = 0.5


def _overflow(row, cap):  # type: ignore[no-untyped-def]
    s = 0
    for x in row:
        if x > cap:
            s += x - cap
    return s


def _source(hov, k):  # type: ignore[no-untyped-def]
    """A host drawn at random among those over (FOCUS_SHARE of the time), else any."""
    if np.random.random() >= FOCUS_SHARE:
        return np.random.randint(k)
    n_over = 0
    for h in range(k):
        n_over += hov[h] > 0
    r = np.random.randint(n_over)
    for h in range(k):
        if hov[h] > 0:
            if r == 0:
                return h
            r -= 1
    return 0


def _relocate(members, count, pos, assign, v, src, dst):  # type: ignore[no-untyped-def]
    last = members[src, count[src] - 1]
    members[src, pos[v]] = last
    pos[last] = pos[v]
    count[src] -= 1
    members[dst, count[dst]] = v
    pos[v] = count[dst]
    count[dst] += 1
    assign[v] = dst


def _anneal(q, assign, k, cap, iters, t0, t1, seed):  # type: ignore[no-untyped-def]
    np.random.seed(seed)
    n_vms, n_steps = q.shape
    peak = np.zeros(n_vms, np.int64)
    for v in range(n_vms):
        peak[v] = np.argmax(q[v])
    load = np.zeros((k, n_steps), np.int64)
    members = np.zeros((k, n_vms), np.int64)
    count = np.zeros(k, np.int64)
    pos = np.zeros(n_vms, np.int64)
    for v in range(n_vms):
        h = assign[v]
        load[h] += q[v]
        members[h, count[h]] = v
        pos[v] = count[h]
        count[h] += 1
    hov = np.zeros(k, np.int64)
    for h in range(k):
        hov[h] = _overflow(load[h], cap)
    cost = hov.sum()
    best, best_it = cost, 0
    ratio = math.log(t1 / t0)
    it = 0
    while it < iters and cost > 0:
        temp = t0 * math.exp(ratio * it / iters)
        it += 1
        a = _source(hov, k)
        if count[a] == 0:
            continue
        v = members[a, np.random.randint(count[a])]
        b = -1
        for _ in range(TOURNAMENT):
            c = np.random.randint(k - 1)
            c += c >= a
            if b < 0 or load[c, peak[v]] < load[b, peak[v]]:
                b = c
        w = -1
        if np.random.random() < SWAP_SHARE and count[b] > 0:
            w = members[b, np.random.randint(count[b])]
        da = 0
        db = 0
        for s in range(n_steps):
            d = q[v, s] - (q[w, s] if w >= 0 else 0)
            da += max(load[a, s] - d - cap, 0)
            db += max(load[b, s] + d - cap, 0)
        delta = da + db - hov[a] - hov[b]
        if delta > 0 and np.random.random() >= math.exp(-delta / temp):
            continue
        for s in range(n_steps):
            d = q[v, s] - (q[w, s] if w >= 0 else 0)
            load[a, s] -= d
            load[b, s] += d
        hov[a], hov[b] = da, db
        cost += delta
        _relocate(members, count, pos, assign, v, a, b)
        if w >= 0:
            _relocate(members, count, pos, assign, w, b, a)
        if cost < best:
            best, best_it = cost, it
    return best, best_it, it


def _kernel():  # type: ignore[no-untyped-def]
    """The annealing compiled by numba (ImportError without it)."""
    import numba as nb

    names = ("_overflow", "_source", "_relocate", "_anneal")
    for name in names:  # callees first: numba resolves them as compiled globals
        globals()[name] = nb.njit(cache=True)(globals()[name])
    return globals()["_anneal"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--days", type=int, default=None, help="first N days (default all)")
    ap.add_argument("--iterations", type=float, default=1e8)
    ap.add_argument(
        "--above",
        type=int,
        nargs="+",
        default=[0, 1],
        help="counts tried: the target plus each of these",
    )
    ap.add_argument(
        "--t0", type=float, default=0.1, help="start temperature [host-steps]"
    )
    ap.add_argument(
        "--t1", type=float, default=0.001, help="end temperature [host-steps]"
    )
    ap.add_argument("--smoke", action="store_true", help="CI size: 150 VMs of one day")
    ap.add_argument("--root", type=Path, default=None,
                    help="a folder of day folders [default: ../shared/data's]")
    args = ap.parse_args()
    from cloudsim_planetlab import DATA, HOST_MIPS, cloudsim_demand

    folder = args.root or DATA / "planetlab_cloudsim"
    if not folder.is_dir():
        print(f"skip: {folder} not found (the shared trace data)")
        return 0
    try:
        anneal = _kernel()
    except ImportError:
        print("skip: numba is not installed (pip install 'vsizer[fast]')")
        return 0
    from vsizer.placement.breakout_reduce import TOLERANCE, UNIT, _spread, slots_of
    from vsizer.placement.series_fit import series_lower_bounds

    days = sorted(p for p in folder.iterdir() if p.is_dir())
    days = days[:1] if args.smoke else days[: args.days]
    iters = 100_000 if args.smoke else int(args.iterations)
    print(
        "| day | VMs | bound | target | hosts tried | least overflow [host-steps] "
        "| at iteration | CPU s |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for day in days:
        demand = cloudsim_demand(day, 150 if args.smoke else None)
        usable = np.array([HOST_MIPS])
        bounds = series_lower_bounds(demand, usable)
        bound = max(bounds["series"][0], bounds["l2"][0])
        q = slots_of(demand, usable)
        cap = UNIT + TOLERANCE
        target = math.floor(1.05 * bound) + 1
        name = day.name + ("[:150]" if args.smoke else "")
        above = (-1, 0) if args.smoke else args.above
        for k in (target + a for a in above):
            n_vms = q.shape[0]  # every VM spread from a host k onto hosts 0..k-1
            start = _spread(q, np.full(n_vms, k), k, np.arange(k), np.full(n_vms, -1), cap)
            t = time.process_time()
            best, at, _ = anneal(
                q, start, k, cap, iters, args.t0 * UNIT, args.t1 * UNIT, 0
            )
            print(
                f"| {name} | {q.shape[0]} | {bound} | {target} | {k} | "
                f"{best / UNIT:.4f} | {at:,} | {time.process_time() - t:.1f} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
