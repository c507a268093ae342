"""CPU workload: sysbench cpu (prime search), single- and multi-threaded.

Metric: events per second as sysbench reports it, and the same count divided by
the run's duration measured on the host (DESIGN §8: take time from outside the VM).
The multi-threaded variant uses one thread per vCPU of the environment
(``threads = "all"``).
"""

from __future__ import annotations

import re
import time
from typing import Any

from vsizer.bench.env import Environment
from vsizer.bench.method import parse_proc_stat
from vsizer.bench.prereq import ensure_packages
from vsizer.bench.procs import Reaper
from vsizer.bench.samples import Sample
from vsizer.errors import BenchmarkRunError

NAME = "cpu"
PACKAGES = ("sysbench",)
DEFAULT_CONFIG: dict[str, Any] = {
    "threads": [1, "all"],  # "all" = one per vCPU of the environment
    "time_s": 10,
    "max_prime": 10000,
}

_NUM = r"([0-9]+(?:\.[0-9]+)?)"
_PATTERNS = {
    "events_per_s": re.compile(r"events per second:\s*" + _NUM),
    "total_time_s": re.compile(r"total time:\s*" + _NUM + r"s"),
    "total_events": re.compile(r"total number of events:\s*" + _NUM),
    "latency_avg_ms": re.compile(r"^\s*avg:\s*" + _NUM, re.M),
    "latency_p95_ms": re.compile(r"95th percentile:\s*" + _NUM),
    "threads": re.compile(r"Number of threads:\s*" + _NUM),
}
_UNITS = {
    "events_per_s": "events/s", "total_time_s": "s", "total_events": "events",
    "latency_avg_ms": "ms", "latency_p95_ms": "ms",
}


def check_prerequisites() -> None:
    """Install sysbench when missing."""
    ensure_packages(PACKAGES)


def guest_needs(config: dict[str, Any]) -> dict[str, Any]:
    """Nothing beyond a booted guest."""
    return {}


def _parse_output(text: str) -> list[Sample]:
    """Samples from ``sysbench cpu run`` output.

    Raises
    ------
    BenchmarkRunError
        If the validity lines ('events per second:', 'total time:', 'total number
        of events:') are missing or unreadable.
    """
    found: dict[str, float] = {}
    for key, pattern in _PATTERNS.items():
        match = pattern.search(text)
        if match:
            found[key] = float(match.group(1))
    missing = [k for k in ("events_per_s", "total_time_s", "total_events") if k not in found]
    if missing:
        raise BenchmarkRunError(
            "sysbench cpu output: missing "
            + ", ".join(repr(_PATTERNS[k].pattern.split(":")[0].lstrip("^\\s*")) for k in missing)
            + " line(s); the run did not complete."
        )
    threads = int(found.pop("threads", 0))
    return [
        Sample(k, v, _UNITS[k], {"threads_reported": threads} if threads else {})
        for k, v in found.items()
    ]


def _util_pct(text: str, vcpus: int) -> float | None:
    """Utilization between the first and last ``cpu`` lines of ``/proc/stat`` in ``text``.

    In % of one CPU (each CPU counts 100 %, DESIGN §6.1's guest-reported convention).
    """
    lines = [ln for ln in text.splitlines() if ln.startswith("cpu ")]
    if len(lines) < 2:
        return None
    a, b = parse_proc_stat(lines[0]), parse_proc_stat(lines[-1])
    total = b.total - a.total
    return 100.0 * vcpus * (b.busy - a.busy) / total if total > 0 else None


def cases(config: dict[str, Any], env: Environment) -> list[dict[str, Any]]:
    """One case per thread count ('all' resolved to the environment's vCPUs)."""
    vcpus = int(env.metadata()["vcpus"])
    seen: list[int] = []
    for t in config["threads"]:
        n = vcpus if t == "all" else int(t)
        if n not in seen:
            seen.append(n)
    return [{"threads": n} for n in seen]


def prepare(env: Environment, config: dict[str, Any], reaper: Reaper) -> dict[str, Any]:
    """Nothing to prepare."""
    return {}


def run(
    env: Environment, case: dict[str, Any], config: dict[str, Any], state: dict[str, Any]
) -> list[Sample]:
    """One sysbench run; samples carry the host-timed rate as ``events_per_s_host``."""
    t = int(config["time_s"])
    argv = ["sysbench", "cpu", f"--threads={case['threads']}", f"--time={t}",
            f"--cpu-max-prime={int(config['max_prime'])}", "run"]
    # /proc/stat before and after: the environment's own (guest-reported) utilization
    script = "head -1 /proc/stat; " + " ".join(argv) + "; rc=$?; head -1 /proc/stat; exit $rc"
    res = env.run(["sh", "-c", script], timeout=t + 60)
    if res.returncode != 0:
        raise BenchmarkRunError(f"sysbench cpu exited with {res.returncode}: {res.stderr.strip()[:200]}")
    samples = _parse_output(res.stdout)
    events = next(s.value for s in samples if s.metric == "total_events")
    now = time.time()
    samples.append(Sample("events_per_s_host", events / res.elapsed_s, "events/s"))
    util = _util_pct(res.stdout, int(env.metadata()["vcpus"]))
    if util is not None:
        samples.append(Sample("util_pct", util, "%"))
    samples.append(Sample("elapsed_s", res.elapsed_s, "s"))
    return [
        Sample(s.metric, s.value, s.unit, {**s.metadata, **case, "time_s": t,
               "max_prime": int(config["max_prime"])}, now)
        for s in samples
    ]


def cleanup(env: Environment, state: dict[str, Any]) -> None:
    """Nothing to clean up."""
