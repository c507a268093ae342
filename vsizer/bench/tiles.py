"""Consolidation tiles (DESIGN §8): run 1..N tiles of guests at once.

A tile is a set of single-vCPU guests, each running one workload (``cpu``,
``database``, ``web``) or nothing (``idle``). For n = 1..N, n tiles are booted
and every workload guest is driven at the same time, each run under the §8
method. Per-VM relative performance = the guest's throughput divided by the same
guest's throughput with one tile; tile score = geometric mean of its guests'
relative performance; total score = sum over tiles (scores are comparable only
within one series, §8). Web client threads are split evenly over the web guests,
the remainder one each (:func:`split_threads`).
"""

from __future__ import annotations

import functools
import math
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from vsizer._validation import Interval, check_param
from vsizer.bench.guestimage import prepare_guest_image
from vsizer.bench.harness import (
    QEMU_PACKAGES,
    cache_dir,
    claim_work_dir,
    new_run_id,
    release_work_dir,
    work_dir,
)
from vsizer.bench.method import MethodConfig, aggregate, run_repeated
from vsizer.bench.prereq import ensure_packages
from vsizer.bench.procs import Reaper
from vsizer.bench.qemu import GuestSpec, VmEnv, boot
from vsizer.bench.samples import Sample, append_samples
from vsizer.bench.workloads import load
from vsizer.errors import BenchmarkRunError, ConfigError

__all__ = ["KINDS", "HEADLINE", "host_watts", "run_tiles", "score_per_watt", "score_tiles",
           "split_threads"]

KINDS = ("cpu", "database", "web", "idle")
#: The throughput each workload is scored on.
HEADLINE = {"cpu": "events_per_s_host", "database": "tps_host", "web": "throughput_rps"}
_TILE_CONFIG: dict[str, dict[str, Any]] = {
    "cpu": {"threads": [1], "max_prime": 10000},
    "database": {"modes": ["tpcb"], "scale": 1, "clients": 4},
    "web": {"threads": 20, "think_ms": 100.0, "cgi_share": 0.1, "static_kib": 4},
}


def split_threads(total: int, vms: int) -> list[int]:
    """Threads per VM: ``total // vms`` each, the first ``total % vms`` one more (DESIGN §8).

    >>> split_threads(200, 12)
    [17, 17, 17, 17, 17, 17, 17, 17, 16, 16, 16, 16]
    """
    check_param("vms", vms, Interval(int, 1, None), "split_threads")
    check_param("total", total, Interval(int, 0, None), "split_threads")
    base, extra = divmod(total, vms)
    return [base + 1 if i < extra else base for i in range(vms)]


def score_tiles(per_vm: list[dict[str, Any]]) -> dict[str, Any]:
    """Tile scores from per-VM relative performance.

    Parameters
    ----------
    per_vm : list of dict
        ``{"tile": int, "relative": float}`` per workload guest (idle guests omitted).

    Returns
    -------
    dict
        ``tiles``: {tile: geometric mean of its guests' relative performance};
        ``total``: sum of tile scores.
    """
    by_tile: dict[int, list[float]] = {}
    for row in per_vm:
        by_tile.setdefault(int(row["tile"]), []).append(float(row["relative"]))
    tiles = {t: math.exp(sum(math.log(max(v, 1e-12)) for v in vals) / len(vals))
             for t, vals in sorted(by_tile.items())}
    return {"tiles": tiles, "total": sum(tiles.values())}


def host_watts(idle_w: float, max_w: float, util: float) -> float:
    """Host power [W] at CPU utilization ``util`` [fraction, clipped to 0..1],
    linear between idle and full-load watts (the power model where only those two
    are known).

    >>> host_watts(79.0, 135.0, 0.5)
    107.0
    """
    u = min(max(float(util), 0.0), 1.0)
    return idle_w + (max_w - idle_w) * u


def score_per_watt(total_score: float, watts: float) -> float:
    """Tile score per watt: the total score over the host's power [1/W].

    >>> round(score_per_watt(3.21, 107.0), 5)
    0.03
    """
    if watts <= 0:
        raise ValueError(f"score per watt: expected watts > 0, got {watts:g}.")
    return total_score / watts


def _mean_host_util(raw: list[Sample]) -> float | None:
    """Mean over the measured runs of summed guest utilization / host cores [fraction]."""
    per_run: dict[int, tuple[float, float]] = {}
    for s in raw:
        m = s.metadata
        if m.get("warmup") or not m.get("host_cores") or m.get("total_util_pct") is None:
            continue
        per_run[int(m.get("run", 0))] = (float(m["total_util_pct"]), float(m["host_cores"]))
    if not per_run:
        return None
    return sum(u / (100.0 * c) for u, c in per_run.values()) / len(per_run)


def _check(max_tiles: int, tile: list[str], power_w: tuple[float, float] | None = None) -> None:
    if power_w is not None and not 0 < power_w[0] <= power_w[1]:
        raise ConfigError(f"bench tiles: expected 0 < --idle-w <= --max-w, got "
                          f"{power_w[0]:g} and {power_w[1]:g}.")
    check_param("max", max_tiles, Interval(int, 1, 16), "bench tiles")
    bad = [k for k in tile if k not in KINDS]
    if bad or not tile:
        raise ConfigError(
            f"bench tiles: unknown guest kind(s) {', '.join(map(repr, bad)) or '(none)'}; "
            f"expected a comma-separated list of {', '.join(KINDS)}."
        )
    if all(k == "idle" for k in tile):
        raise ConfigError("bench tiles: a tile of only idle guests measures nothing.")


_Member = tuple[int, int, str, VmEnv, dict[str, Any], dict[str, Any]]


def _per_watt(store: str | Path, run_id: str, n: int, scores: dict[str, Any],
              raw: list[Sample], power_w: tuple[float, float] | None) -> str:
    """Append the ``tile_score_per_watt`` sample; its text for the report line."""
    util = _mean_host_util(raw)
    if power_w is None or util is None:
        return ""
    watts = host_watts(power_w[0], power_w[1], util)
    value = score_per_watt(scores["total"], watts)
    append_samples(store, [Sample(
        "tile_score_per_watt", value, "1/W",
        {"workload": "tiles", "run_id": run_id, "tiles": n, "aggregate": "tile_score_per_watt",
         "watts": round(watts, 3), "host_util": round(util, 6),
         "watts_basis": f"linear between --idle-w {power_w[0]:g} and --max-w {power_w[1]:g} "
                        "at the measured host CPU utilization"},
        time.time())])
    return (f"; score per watt {value:.5f} (at {watts:.1f} W, host CPU {util:.0%}, "
            "linear between --idle-w and --max-w)")


def _measure(active: list[_Member], n: int, n_vms: int) -> list[Sample]:
    """Drive every workload guest at once (one thread each); one run's samples."""
    results: dict[int, list[Sample]] = {}
    errors: list[str] = []

    def one(i: int) -> None:
        t, _slot, kind, env, config, state = active[i]
        module = load(kind)
        try:
            case = module.cases(config, env)[0]
            got = module.run(env, case, config, state)
            results[i] = [s.with_metadata(**case) for s in got]
        except BenchmarkRunError as exc:
            errors.append(f"tile {t} {kind}: {exc}")

    threads = [threading.Thread(target=one, args=(i,)) for i in range(len(active))]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    if errors:
        raise BenchmarkRunError("; ".join(errors))
    total_util = sum(s.value for r in results.values() for s in r if s.metric == "util_pct")
    out = []
    for i, got in sorted(results.items()):
        t, slot, kind, env, _c, _s = active[i]
        out += [s.with_metadata(**env.metadata(), tile=t, slot=slot, tile_kind=kind,
                                tiles=n, vms=n_vms, total_util_pct=round(total_util, 3))
                for s in got]
    return out


def run_tiles(
    max_tiles: int, tile: list[str], time_s: int = 5, repetitions: int = 3, warmup: int = 1,
    store: str | Path = "bench-results/samples.jsonl",
    progress: Callable[[str], None] = lambda _m: None,
    power_w: tuple[float, float] | None = None,
) -> list[str]:
    """Run 1..``max_tiles`` tiles; append samples to ``store``; return report lines.

    ``power_w`` = (idle, full-load) watts of the host: each tile count also gets
    ``tile_score_per_watt`` (:func:`score_per_watt` at :func:`host_watts` of the
    measured host CPU utilization)."""
    _check(max_tiles, tile, power_w)
    method = MethodConfig(warmup=warmup, repetitions=repetitions, trim=1 if repetitions >= 3 else 0)
    run_id = new_run_id()
    ensure_packages(QEMU_PACKAGES)
    for kind in set(tile) - {"idle"}:
        load(kind).check_prerequisites()
    image = prepare_guest_image(cache_dir())
    work = work_dir(store)
    claim_work_dir(work, progress)  # removes one a killed run left behind
    try:
        baseline: dict[tuple[int, str], float] = {}
        lines: list[str] = []
        for n in range(1, max_tiles + 1):
            progress(f"{n} tile(s): booting {n * len(tile)} guest(s)")
            with Reaper() as reaper:
                members: list[_Member] = []
                web_count = sum(1 for k in tile if k == "web") * n
                web_threads = split_threads(_TILE_CONFIG["web"]["threads"] * n, web_count) if web_count else []
                for t in range(n):
                    for slot, kind in enumerate(tile):
                        config = {**_TILE_CONFIG.get(kind, {}), "time_s": time_s}
                        if kind == "web":
                            config["threads"] = web_threads.pop(0)
                        needs = load(kind).guest_needs(config) if kind != "idle" else {}
                        spec = GuestSpec(name=f"t{t}-{kind}{slot}", vcpus=1, memory_mib=384, **needs)
                        env = boot(spec, image, reaper, work)
                        state = load(kind).prepare(env, config, reaper) if kind != "idle" else {}
                        members.append((t, slot, kind, env, config, state))
                active = [m for m in members if m[2] != "idle"]
                n_vms = len(members)

                def pids(members: list[_Member] = members) -> list[int]:
                    return [p for m in members for p in m[3].live_pids()]

                def announce(r: int, w: bool, n: int = n) -> None:
                    progress(f"{n} tile(s): run {r + 1}{' (warm-up)' if w else ''}")

                measure = functools.partial(_measure, active, n, n_vms)
                raw = run_repeated(measure, method, pids, on_run=announce)
            raw = [s.with_metadata(workload="tiles", suite="tiles", run_id=run_id, tile_members=",".join(tile))
                   for s in raw]
            agg = aggregate(raw, method.trim, method.rule)
            per_vm = []
            for s in agg:
                kind = s.metadata["tile_kind"]
                if s.metric != HEADLINE[kind]:
                    continue
                key = (s.metadata["slot"], kind)
                if n == 1:
                    baseline[key] = s.value
                rel = s.value / baseline[key] if baseline.get(key) else math.nan
                per_vm.append({"tile": s.metadata["tile"], "relative": rel})
                s.metadata["relative"] = round(rel, 6)
            scores = score_tiles(per_vm)
            append_samples(store, [*raw, *agg, *(
                Sample("tile_score", v, "score", {"workload": "tiles", "run_id": run_id, "tiles": n,
                                                  "tile": t, "aggregate": "tile_score",
                                                  "emulated": agg[0].metadata.get("emulated") if agg else None},
                       time.time()) for t, v in scores["tiles"].items())])
            emulated = " (emulated: TCG)" if agg and agg[0].metadata.get("emulated") else ""
            rels = ", ".join(f"{r['relative']:.3f}" for r in per_vm)
            lines.append(f"{n} tile(s), {n_vms} VM(s){emulated}: total score {scores['total']:.3f}; "
                         f"per-VM relative {rels}" + _per_watt(store, run_id, n, scores, raw, power_w))
            progress(lines[-1])
        return lines
    finally:
        release_work_dir(work)  # also on SIGTERM/SIGINT (Interrupted)
