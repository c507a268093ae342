"""Benchmark suites: TOML files naming workloads, their parameters and the method.

A suite file has ``[suite]`` (name, description), ``[method]`` (see
:class:`~vsizer.bench.method.MethodConfig`), ``[vm]`` (``vcpus``, ``memory_mib``)
and one ``[workloads.<name>]`` table per workload, whose keys override the
workload's ``DEFAULT_CONFIG``. Unknown keys are errors. Bundled suites live in
``vsizer/data/bench/`` and are named without the ``.toml`` (``quick``, ``standard``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from importlib import resources
from pathlib import Path
from typing import Any

from vsizer._toml import parse_toml
from vsizer.bench.method import MethodConfig
from vsizer.bench.workloads import NAMES, load
from vsizer.errors import ConfigError, VsizerError

__all__ = ["Suite", "bundled_suites", "load_suite"]

_TOP = {"suite", "method", "vm", "workloads"}
_VM_KEYS = {"vcpus": int, "memory_mib": int}
QUICK_TIME_S = 5


@dataclass(frozen=True)
class Suite:
    """A loaded suite: workloads in file order with their full configuration."""

    name: str
    description: str
    method: MethodConfig
    vm: dict[str, int]
    workloads: dict[str, dict[str, Any]] = field(default_factory=dict)
    source: str = ""

    def quick(self) -> Suite:
        """Every ``time_s`` capped at 5 s; method 1 warm-up, 3 runs, trim 1, trimmed mean."""
        wl = {n: {**c, "time_s": min(int(c.get("time_s", QUICK_TIME_S)), QUICK_TIME_S)}
              for n, c in self.workloads.items()}
        method = replace(self.method, warmup=min(self.method.warmup, 1),
                         repetitions=min(self.method.repetitions, 3), trim=min(self.method.trim, 1),
                         rule="trimmed_mean")
        return replace(self, workloads=wl, method=method)

    def only(self, names: list[str]) -> Suite:
        """The suite restricted to ``names`` (which must be in it)."""
        unknown = [n for n in names if n not in self.workloads]
        if unknown:
            raise ConfigError(
                f"suite {self.name}: no workload {', '.join(map(repr, unknown))}; "
                f"it has {', '.join(self.workloads)}."
            )
        return replace(self, workloads={n: c for n, c in self.workloads.items() if n in names})


def bundled_suites() -> list[str]:
    """Names of the suites shipped in ``vsizer/data/bench``."""
    folder = resources.files("vsizer") / "data" / "bench"
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".toml"))


def _resolve(name_or_path: str | Path) -> tuple[str, str]:
    path = Path(name_or_path)
    if path.suffix == ".toml" or path.exists():
        try:
            return str(path), path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"{path}: cannot read the suite ({exc.strerror}).") from None
    names = bundled_suites()
    if str(name_or_path) not in names:
        raise ConfigError(
            f"{name_or_path}: no such suite file, and not a bundled suite "
            f"(bundled: {', '.join(names)})."
        )
    res = resources.files("vsizer") / "data" / "bench" / f"{name_or_path}.toml"
    return f"{name_or_path} (bundled)", res.read_text(encoding="utf-8")


def load_suite(name_or_path: str | Path) -> Suite:
    """Read a suite by bundled name or path; all problems reported at once.

    Raises
    ------
    ConfigError
        Unreadable TOML, unknown tables or keys, wrong types, unknown workloads.
    """
    where, text = _resolve(name_or_path)
    doc = parse_toml(text, where)
    problems = [f"{where}: unknown table [{k}]; expected {', '.join(sorted(_TOP))}."
                for k in doc if k not in _TOP]
    head = doc.get("suite", {})
    for key in head:
        if key not in ("name", "description"):
            problems.append(f"{where}, [suite]: unknown key '{key}'; expected name, description.")
    method_keys = {f.name for f in fields(MethodConfig)}
    method_doc = doc.get("method", {})
    for key in method_doc:
        if key not in method_keys:
            problems.append(f"{where}, [method]: unknown key '{key}'; expected {', '.join(sorted(method_keys))}.")
    vm = {"vcpus": 1, "memory_mib": 512}
    for key, value in doc.get("vm", {}).items():
        if key not in _VM_KEYS:
            problems.append(f"{where}, [vm]: unknown key '{key}'; expected {', '.join(_VM_KEYS)}.")
        elif isinstance(value, bool) or not isinstance(value, int) or value < 1:
            problems.append(f"{where}, [vm] '{key}': expected a positive integer, got {value!r}.")
        else:
            vm[key] = value
    workloads: dict[str, dict[str, Any]] = {}
    for name, overrides in doc.get("workloads", {}).items():
        if name not in NAMES:
            problems.append(f"{where}: unknown workload [workloads.{name}]; expected one of {', '.join(NAMES)}.")
            continue
        if not isinstance(overrides, dict):
            problems.append(f"{where}: [workloads.{name}] must be a table.")
            continue
        defaults = load(name).DEFAULT_CONFIG
        for key, value in overrides.items():
            if key not in defaults:
                problems.append(
                    f"{where}, [workloads.{name}]: unknown key '{key}'; expected {', '.join(defaults)}."
                )
            elif type(value) is not type(defaults[key]) and not (
                isinstance(defaults[key], float) and isinstance(value, int)
            ):
                problems.append(
                    f"{where}, [workloads.{name}] '{key}': expected a "
                    f"{type(defaults[key]).__name__}, got {value!r}."
                )
        workloads[name] = {**defaults, **overrides}
    if not workloads and not problems:
        problems.append(f"{where}: no [workloads.<name>] table; nothing to run.")
    method = MethodConfig()
    try:
        method = MethodConfig(**{k: v for k, v in method_doc.items() if k in method_keys})
    except VsizerError as exc:
        problems.append(f"{where}, [method]: {exc}")
    if problems:
        raise ConfigError(problems)
    return Suite(
        name=str(head.get("name", Path(str(name_or_path)).stem)),
        description=str(head.get("description", "")),
        method=method, vm=vm, workloads=workloads, source=where,
    )
