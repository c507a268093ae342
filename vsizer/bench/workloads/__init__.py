"""Benchmark workloads, one module each (PerfKitBenchmarker style).

Every module defines ``NAME``, ``PACKAGES`` (Debian packages), ``DEFAULT_CONFIG``,
``check_prerequisites()``, ``guest_needs(config)`` (disks and forwarded ports a
guest must be booted with), ``cases(config, env)`` (one parameter set per
measured case), ``prepare(env, config, reaper) -> state``,
``run(env, case, config, state) -> list[Sample]``, ``cleanup(env, state)`` and a
pure ``_parse_output(text) -> list[Sample]`` tested on captured output.
Optionally ``peer_guest_needs(config)``: settings of a second guest booted next to
the first (``None`` = no peer); the workload then reaches it as ``env.peer``
(the network workload's guest ↔ guest link).
"""

from __future__ import annotations

import importlib
from types import ModuleType

from vsizer.errors import ConfigError

__all__ = ["NAMES", "load"]

NAMES = ("cpu", "disk", "network", "database", "web")


def load(name: str) -> ModuleType:
    """The workload module called ``name``."""
    if name not in NAMES:
        raise ConfigError(
            f"unknown workload {name!r}; expected one of {', '.join(NAMES)}."
        )
    return importlib.import_module(f"vsizer.bench.workloads.{name}")
