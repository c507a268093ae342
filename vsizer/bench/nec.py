"""The steady-state sampling and load-ramp rules of the benchmark method (pure).

* **Sampling** (:func:`steady_window_mean`): sample every 30 s under a steady
  load of at least 5 minutes and average the middle 3 minutes, i.e. the 6
  samples in the middle of the run (with 10 samples over 5 minutes: samples
  3-8, 1-based).
* **Load ramp** (:func:`ramp_levels`, :func:`ramp_stop`): raise the closed-loop
  load 100, 200, 400, ... clients until errors, until CPU utilization reaches
  95 %, or until throughput stops growing (a plateau; vsizer's threshold: less
  than 5 % more throughput than the previous level, stated in the reason).
* **Runs 11-20** (:func:`runs_mean`): the mean of runs 11 to 20 of 20 (the first
  10 warm up); the same as the suite method ``warmup = 10, repetitions = 10,
  trim = 0`` (bundled suite ``runs-11-20``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "PLATEAU_GAIN", "RAMP_UTIL", "SAMPLE_S", "STEADY_MIN_S", "WINDOW_S", "RampStop",
    "ramp_levels", "ramp_stop", "runs_mean", "steady_window", "steady_window_mean",
]

SAMPLE_S = 30.0  #: sampling interval [s]
WINDOW_S = 180.0  #: averaged middle window [s]
STEADY_MIN_S = 300.0  #: shortest steady run [s]
RAMP_UTIL = 0.95  #: CPU utilization that ends the ramp [fraction]
PLATEAU_GAIN = 0.05  #: throughput gain below which the ramp has plateaued [fraction]


def steady_window(n: int, interval_s: float = SAMPLE_S, window_s: float = WINDOW_S,
                  min_s: float = STEADY_MIN_S) -> tuple[int, int]:
    """``(first, stop)`` indices (0-based, stop exclusive) of the middle window
    of ``n`` samples taken every ``interval_s``.

    >>> steady_window(10)
    (2, 8)
    >>> steady_window(11)
    (2, 8)
    >>> steady_window(12)
    (3, 9)
    """
    k = round(window_s / interval_s)
    if n * interval_s < min_s:
        raise ValueError(
            f"steady sampling: {n} samples every {interval_s:g} s cover {n * interval_s:g} s; "
            f"expected a steady run of at least {min_s:g} s ({math.ceil(min_s / interval_s)} "
            "samples).")
    first = (n - k) // 2
    return first, first + k


def steady_window_mean(values: Sequence[float], interval_s: float = SAMPLE_S,
                       window_s: float = WINDOW_S, min_s: float = STEADY_MIN_S) -> float:
    """Mean of the samples in the middle ``window_s`` of a steady run.

    >>> steady_window_mean([0, 0, 10, 11, 12, 13, 14, 15, 0, 0])
    12.5
    """
    first, stop = steady_window(len(values), interval_s, window_s, min_s)
    kept = [float(v) for v in values[first:stop]]
    return math.fsum(kept) / len(kept)


def ramp_levels(start: int = 100, limit: int = 6400) -> list[int]:
    """Load levels, doubling from ``start`` up to ``limit`` clients.

    >>> ramp_levels(100, 1000)
    [100, 200, 400, 800]
    """
    if start < 1:
        raise ValueError(f"load ramp: start must be at least 1 client, got {start}.")
    out, level = [], start
    while level <= limit:
        out.append(level)
        level *= 2
    return out


@dataclass(frozen=True)
class RampStop:
    """Where the ramp stopped: ``index`` into the levels, and why."""

    index: int
    reason: str


def ramp_stop(throughput: Sequence[float], cpu_util: Sequence[float],
              errors: Sequence[int] | None = None, util_limit: float = RAMP_UTIL,
              plateau: float = PLATEAU_GAIN) -> RampStop | None:
    """The first level at which the ramp stops, or None when it should go on.

    Per level (in ramp order): ``throughput``, ``cpu_util`` [fraction] and
    ``errors``. Stops at the first level with errors, with utilization at or
    above ``util_limit``, or whose throughput is less than ``1 + plateau`` times
    the previous level's.

    >>> ramp_stop([100, 190, 370], [0.3, 0.6, 0.96]).reason
    'CPU utilization 96 % >= 95 %'
    >>> ramp_stop([100, 190, 195], [0.3, 0.6, 0.7])
    RampStop(index=2, reason='throughput plateau: +2.6 % over the previous level (< 5 %)')
    >>> ramp_stop([100, 190], [0.3, 0.6]) is None
    True
    """
    errs = list(errors) if errors is not None else [0] * len(throughput)
    for i, (tp, u) in enumerate(zip(throughput, cpu_util, strict=True)):
        if errs[i]:
            return RampStop(i, f"{errs[i]} error(s)")
        if u >= util_limit:
            return RampStop(i, f"CPU utilization {u:.0%} >= {util_limit:.0%}".replace("%", " %"))
        if i and throughput[i - 1] > 0:
            gain = tp / throughput[i - 1] - 1.0
            if gain < plateau:
                return RampStop(i, f"throughput plateau: {gain:+.1%} over the previous level "
                                   f"(< {plateau:.0%})".replace("%", " %"))
    return None


def runs_mean(values: Sequence[float], first: int = 11, last: int = 20) -> float:
    """Mean of runs ``first`` to ``last`` (1-based, inclusive).

    >>> runs_mean(list(range(1, 21)))
    15.5
    """
    if len(values) < last:
        raise ValueError(f"runs {first}-{last}: expected at least {last} runs, got {len(values)}.")
    kept = [float(v) for v in values[first - 1:last]]
    return math.fsum(kept) / len(kept)
