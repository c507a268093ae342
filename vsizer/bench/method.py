"""Benchmark method of DESIGN §8: warm-up, repetitions, trimmed mean, CV, foreign load.

Pure functions (statistics, ``/proc/stat`` and ``/proc/loadavg`` parsers) plus
:func:`run_repeated`, which drives one measurement function under the rule:

* run ``warmup`` times and discard those runs (DESIGN §8: "run 10 times, discard
  the first 5 (warm-up), drop the highest and lowest of the rest, average the
  remaining 3" is ``warmup=5, repetitions=5, trim=1``);
* around every run, read ``/proc/stat`` and the harness's own CPU time; the CPU
  time spent by *other* processes (foreign load) and the steal time, as fractions
  of the machine, are recorded in every sample, and a run whose foreign load or
  steal exceeds its threshold is re-done (at most ``max_reruns`` times per run;
  a run still over is kept and flagged ``foreign_load_exceeded``).
"""

from __future__ import annotations

import math
import os
import resource
import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from vsizer._validation import Interval, OneOf, check_param
from vsizer.bench.nec import SAMPLE_S, STEADY_MIN_S, steady_window_mean
from vsizer.bench.samples import Sample
from vsizer.errors import BenchmarkRunError, ConfigError

#: Averaging rules of the measured runs (``[method] rule``).
RULES = ("trimmed_mean", "steady_window")
#: Runs the steady-window rule needs: 30 s samples over 5 minutes.
STEADY_RUNS = round(STEADY_MIN_S / SAMPLE_S)

__all__ = [
    "CpuTimes",
    "MethodConfig",
    "aggregate",
    "coefficient_of_variation",
    "foreign_load",
    "parse_loadavg",
    "parse_proc_stat",
    "run_repeated",
    "trimmed_mean",
]

_CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def trimmed_mean(values: Sequence[float], trim: int = 1) -> float:
    """Mean after dropping the ``trim`` highest and ``trim`` lowest values (DESIGN §8).

    With ``2 * trim >= len(values)`` nothing is dropped that would leave no value:
    the trim shrinks until at least one value remains (one or two values: their mean).
    """
    if not values:
        raise ValueError("trimmed_mean needs at least one value")
    ordered = sorted(float(v) for v in values)
    k = max(0, min(trim, (len(ordered) - 1) // 2))
    kept = ordered[k : len(ordered) - k] if k else ordered
    return math.fsum(kept) / len(kept)


def coefficient_of_variation(values: Sequence[float]) -> float:
    """Sample standard deviation over mean [fraction]; 0 for one value, NaN for mean 0."""
    if not values:
        raise ValueError("coefficient_of_variation needs at least one value")
    if len(values) == 1:
        return 0.0
    mean = statistics.fmean(values)
    if mean == 0:
        return math.nan
    return statistics.stdev(values) / abs(mean)


@dataclass(frozen=True)
class CpuTimes:
    """The aggregate ``cpu`` line of ``/proc/stat`` [s]."""

    busy: float
    idle: float
    steal: float
    irq: float = 0.0

    @property
    def total(self) -> float:
        return self.busy + self.idle + self.steal + self.irq


def parse_proc_stat(text: str, clk_tck: int = _CLK_TCK) -> CpuTimes:
    """Parse the first ``cpu`` line of ``/proc/stat`` (proc(5)) into seconds.

    busy = user + nice + system (guest time is already in user); idle = idle +
    iowait; steal and irq = irq + softirq are kept apart: interrupt time is mostly
    the harness's own I/O and network traffic, which no process is charged for, so
    it is not counted as foreign load.
    """
    for line in text.splitlines():
        fields = line.split()
        if fields and fields[0] == "cpu":
            try:
                ticks = [int(f) for f in fields[1:]]
            except ValueError:
                break
            if len(ticks) < 8:
                break
            user, nice, system, idle, iowait, irq, softirq, steal = ticks[:8]
            return CpuTimes(
                busy=(user + nice + system) / clk_tck,
                idle=(idle + iowait) / clk_tck,
                steal=steal / clk_tck,
                irq=(irq + softirq) / clk_tck,
            )
    raise BenchmarkRunError(
        "/proc/stat: expected a 'cpu' line with at least 8 counters (proc(5)), found none."
    )


def parse_loadavg(text: str) -> float:
    """The 1-minute load average from ``/proc/loadavg``."""
    try:
        return float(text.split()[0])
    except (IndexError, ValueError):
        raise BenchmarkRunError(
            f"/proc/loadavg: expected '<1m> <5m> <15m> ...', found {text[:40]!r}."
        ) from None


def foreign_load(
    before: CpuTimes, after: CpuTimes, own_cpu_s: float
) -> tuple[float, float]:
    """Foreign busy and steal fractions of the machine between two ``/proc/stat`` reads.

    Parameters
    ----------
    before, after : CpuTimes
        ``/proc/stat`` totals at the start and end of a run.
    own_cpu_s : float
        CPU time the harness and its processes (tools, QEMU, virtiofsd) used in
        the same interval [s].

    Returns
    -------
    (foreign_busy, steal) : tuple of float
        ``max(0, busy - own) / total`` and ``steal / total`` [fraction of all CPUs].
    """
    total = after.total - before.total
    if total <= 0:
        return 0.0, 0.0
    busy = after.busy - before.busy
    steal = after.steal - before.steal
    return max(0.0, busy - own_cpu_s) / total, max(0.0, steal) / total


def _proc_cpu_s(pid: int) -> float:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = text.rsplit(")", 1)[1].split()
    # fields[11], [12] = utime, stime; [13], [14] = cutime, cstime (proc(5) 14-17)
    return sum(int(f) for f in fields[11:15]) / _CLK_TCK


def own_cpu_seconds(live_pids: Iterable[int] = ()) -> float:
    """CPU time of this process, its reaped children and the given live processes [s]."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (
        me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime
        + sum(_proc_cpu_s(p) for p in live_pids)
    )


@dataclass(frozen=True)
class MethodConfig:
    """Repetition rule and foreign-load thresholds (DESIGN §8).

    Parameters
    ----------
    warmup : int
        Runs discarded before the measured ones. Default 5.
    repetitions : int
        Measured runs. Default 5.
    trim : int
        Highest and lowest measured runs dropped before averaging. Default 1.
    foreign_threshold : float
        Foreign busy fraction of the machine above which a run is re-done [fraction].
    steal_threshold : float
        Steal fraction above which a run is re-done [fraction].
    max_reruns : int
        Re-runs allowed per run before it is kept and flagged.
    rule : {"trimmed_mean", "steady_window"}
        How the measured runs are averaged: the trimmed mean (default), or the
        steady-state sampling rule (:func:`vsizer.bench.nec.steady_window_mean`):
        each run is one 30 s sample, the mean of the 6 samples in the middle 3
        minutes of at least 10 (5 minutes).
    """

    warmup: int = 5
    repetitions: int = 5
    trim: int = 1
    foreign_threshold: float = 0.25
    steal_threshold: float = 0.10
    max_reruns: int = 2
    rule: str = "trimmed_mean"

    def __post_init__(self) -> None:
        where = "bench method"
        check_param("warmup", self.warmup, Interval(int, 0, None), where)
        check_param("repetitions", self.repetitions, Interval(int, 1, None), where)
        check_param("trim", self.trim, Interval(int, 0, None), where)
        for name in ("foreign_threshold", "steal_threshold"):
            check_param(name, getattr(self, name), Interval(float, 0, 1), where)
        check_param("max_reruns", self.max_reruns, Interval(int, 0, None), where)
        check_param("rule", self.rule, OneOf(RULES), where)
        if self.rule == "steady_window" and self.repetitions < STEADY_RUNS:
            raise ConfigError(
                f"bench method: rule 'steady_window' needs repetitions >= {STEADY_RUNS} "
                f"(30 s samples over at least 5 minutes), got {self.repetitions}.")


def _read(path: str) -> str:
    return Path(path).read_text()


def run_repeated(
    measure: Callable[[], list[Sample]],
    config: MethodConfig,
    live_pids: Callable[[], Iterable[int]] = tuple,
    on_run: Callable[[int, bool], None] | None = None,
) -> list[Sample]:
    """Run ``measure`` under the repetition rule; return every run's samples.

    Each returned sample carries ``run`` (0-based, warm-ups included), ``warmup``,
    ``attempt``, ``foreign_busy``, ``steal``, ``loadavg_1m`` and
    ``foreign_load_exceeded`` in its metadata. Aggregate with :func:`aggregate`.
    """
    result: list[Sample] = []
    for run in range(config.warmup + config.repetitions):
        is_warmup = run < config.warmup
        for attempt in range(config.max_reruns + 1):
            if on_run is not None:
                on_run(run, is_warmup)
            load1 = parse_loadavg(_read("/proc/loadavg"))
            before = parse_proc_stat(_read("/proc/stat"))
            own0 = own_cpu_seconds(live_pids())
            samples = measure()
            own1 = own_cpu_seconds(live_pids())
            after = parse_proc_stat(_read("/proc/stat"))
            busy, steal = foreign_load(before, after, own1 - own0)
            over = busy > config.foreign_threshold or steal > config.steal_threshold
            if over and attempt < config.max_reruns:
                time.sleep(1.0)
                continue
            result.extend(
                s.with_metadata(
                    run=run,
                    warmup=is_warmup,
                    attempt=attempt,
                    foreign_busy=round(busy, 4),
                    steal=round(steal, 4),
                    loadavg_1m=load1,
                    foreign_load_exceeded=over,
                )
                for s in samples
            )
            break
    return result


_RUN_KEYS = (
    "run", "warmup", "attempt", "foreign_busy", "steal", "loadavg_1m",
    "foreign_load_exceeded", "elapsed_s", "total_util_pct",
)


def _key(sample: Sample) -> tuple[str, str, str]:
    import json

    meta = {k: v for k, v in sample.metadata.items() if k not in _RUN_KEYS}
    return sample.metric, sample.unit, json.dumps(meta, sort_keys=True, default=str)


def aggregate(samples: Sequence[Sample], trim: int = 1,
              rule: str = "trimmed_mean") -> list[Sample]:
    """One summary sample per metric and parameter set over the measured runs.

    Warm-up samples are dropped; ``value`` is the trimmed mean, or with
    ``rule="steady_window"`` the mean of the middle 6 of the runs in run order
    (:func:`vsizer.bench.nec.steady_window_mean`); metadata gains
    ``aggregate`` (the rule), ``n_runs``, ``cv``, ``min``, ``max``, ``values``
    and ``foreign_load_exceeded`` (any run over the threshold).
    """
    groups: dict[tuple[str, str, str], list[Sample]] = {}
    for s in samples:
        if s.metadata.get("warmup") or s.metadata.get("aggregate"):
            continue
        groups.setdefault(_key(s), []).append(s)
    out = []
    for group in groups.values():
        values = [s.value for s in group]
        first = group[0]
        meta = {k: v for k, v in first.metadata.items() if k not in _RUN_KEYS}
        cv = coefficient_of_variation(values)
        meta.update(
            aggregate=rule,
            trim=trim,
            n_runs=len(values),
            cv=None if math.isnan(cv) else round(cv, 6),
            min=min(values),
            max=max(values),
            values=values,
            foreign_load_exceeded=any(
                bool(s.metadata.get("foreign_load_exceeded")) for s in group
            ),
        )
        value = (steady_window_mean(values) if rule == "steady_window"
                 else trimmed_mean(values, trim))
        out.append(
            Sample(first.metric, value, first.unit, meta, max(s.timestamp for s in group))
        )
    return out

