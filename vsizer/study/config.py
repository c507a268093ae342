"""Study configuration: sizing rules, overheads, power prices, targets.

A scenario TOML file mirrors the CLI flags::

    [hosts]
    model = "Dell PowerEdge R650"        # from the catalog
    catalog = "my-hosts.csv"             # optional, merged over the shipped one
    cpu_catalog = "my-cpus.csv"          # optional, e.g. from `vsizer catalog import-spec`

    [sizing]
    ceiling = 0.6          # keep hosts at or below 60 % (the 60 % rule)
    failures = 1           # hosts that may fail at once (N+k)
    min_hosts = 3          # per redundant pool (default 3, or 1 when failures = 0)
    vcpu_per_core = 2.0    # vCPU : physical core limit
    failover_limit = 1.0   # survivors may run up to 100 % after a failure
    cpu_basis = "peak"     # size CPU on peak (or "average") utilization
    min_confidence = 0.7   # below this data confidence the plan's headline says so

    [overhead]
    host_memory_reserve_gib = 4.0
    vm_memory_overhead_mib = 150     # omit for the ESXi table-based estimate

    [power]
    price_kwh = 31.0
    currency = "JPY"
    pue = 1.5
    years = 5

    [targets]
    host_ratio = 0.5       # hosts / servers at most
    rack_ratio = 0.67      # rack units after / before at most
    power_ratio = 0.5      # watts after / before at most

    [series]               # only used when the plan is given time series
    step = "5min"          # grid every series is resampled to
    percentile = "max"     # share of steps that must fit: "max" (all), "p99", "p95"
    resample = "mean"      # within a step: "mean" or "max"
    gap_fill = "peak"      # steps with no data: the VM's own peak, or "zero"
    mem_basis = "auto"     # memory curve ("used") if given, else configured size
    solver = "heuristic"   # or "cp-sat" (OR-Tools, `vsizer[solver]`)
    time_limit = 30.0      # seconds for cp-sat
    vm_cpu_mhz = 1000      # clock [MHz/core] of servers with no clock or score;
    vm_mem_gib = 1         # memory of servers with none (no inventory: every VM)

    [platform]             # what-if factors on the host (DESIGN §6.4)
    scenarios = ["hyperv-r2-java"]   # names: vsizer.models.platform.SCENARIOS
    hyperthreading = "off"           # "catalog" (as measured), "on", "off"

    [pools."開発"]          # per-pool overrides of ceiling, failures, min_hosts
    failures = 0
    ceiling = 0.8

Flags override the file; unknown keys are errors.
"""

from __future__ import annotations

import dataclasses
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from vsizer._validation import Interval, OneOf, check_param
from vsizer.errors import ConfigError
from vsizer.plausible import FIELD_RANGES

#: Hypervisor memory kept per host before any VM [GiB]: a planning allowance
#: for the VMkernel/management agents (the vSphere Resource Management Guide
#: describes this fixed system-wide overhead without a figure; ESXi 7/8 need at
#: least 8 GB of host RAM to install). Measure and override for your platform.
DEFAULT_HOST_MEMORY_RESERVE_GIB = 4.0

#: Largest number of host failures a plan may be asked to survive (N+k): far
#: beyond any real cluster, small enough that the failover check stays finite.
MAX_FAILURES = 1000

#: Largest minimum number of hosts per pool (``min_hosts``), for the same reason.
MAX_MIN_HOSTS = 100_000


@dataclass(frozen=True)
class PoolRules:
    """Per-pool overrides; None keeps the study-wide value."""

    ceiling: float | None = None
    failures: int | None = None
    min_hosts: int | None = None


@dataclass(frozen=True)
class Rules:
    """Every parameter of a plan, with defaults. See the module docstring."""

    ceiling: float = 0.6
    failures: int = 1
    min_hosts: int | None = None
    vcpu_per_core: float = 2.0
    failover_limit: float = 1.0
    cpu_basis: str = "peak"
    assume_util: float = 1.0
    min_confidence: float = 0.7
    host_memory_reserve_gib: float = DEFAULT_HOST_MEMORY_RESERVE_GIB
    vm_memory_overhead_mib: float | None = None
    price_kwh: float | None = None
    currency: str = "USD"
    pue: float = 1.0
    years: int = 5
    rack_size_u: int = 42
    include_powered_off: bool = False
    host_model: str | None = None
    host_catalog: str | None = None
    cpu_catalog: str | None = None
    # Time-series sizing (used when the plan is given series; see [series] above).
    step: str = "5min"
    percentile: str = "max"
    resample: str = "mean"
    gap_fill: str = "peak"
    mem_basis: str = "auto"
    solver: str = "heuristic"
    time_limit: float = 30.0
    vm_cpu_mhz: float | None = None
    vm_mem_gib: float | None = None
    # Platform what-if (DESIGN §6.4, vsizer.models.platform): named published
    # comparisons applied to the host's CPU capacity and power; Hyper-Threading.
    platform: tuple[str, ...] = ()
    hyperthreading: str = "catalog"
    targets: dict[str, float] = field(default_factory=dict)
    pools: dict[str, PoolRules] = field(default_factory=dict)

    def __post_init__(self) -> None:
        where = "plan"
        check_param("ceiling", self.ceiling, Interval(float, 0, 1, "right"), where)
        check_param("failures", self.failures, Interval(int, 0, MAX_FAILURES), where)
        if self.min_hosts is not None:
            check_param(
                "min_hosts", self.min_hosts, Interval(int, 1, MAX_MIN_HOSTS), where
            )
        check_param(
            "vcpu_per_core",
            self.vcpu_per_core,
            Interval(float, 0, None, "neither"),
            where,
        )
        check_param(
            "failover_limit", self.failover_limit, Interval(float, 0, 1, "right"), where
        )
        check_param("cpu_basis", self.cpu_basis, OneOf(("peak", "average")), where)
        check_param("assume_util", self.assume_util, Interval(float, 0, 1), where)
        check_param(
            "min_confidence", self.min_confidence, Interval(float, 0, 1), where
        )
        check_param(
            "host_memory_reserve_gib",
            self.host_memory_reserve_gib,
            Interval(float, 0, None),
            where,
        )
        if self.vm_memory_overhead_mib is not None:
            check_param(
                "vm_memory_overhead_mib",
                self.vm_memory_overhead_mib,
                Interval(float, 0, None),
                where,
            )
        if self.price_kwh is not None:
            check_param("price_kwh", self.price_kwh, Interval(float, 0, None), where)
        if not _is_currency(self.currency):
            raise ConfigError(
                "The 'currency' parameter of plan must be a currency code such as "
                "'JPY' or 'USD' (1 to 8 letters, or a currency sign such as '¥'). "
                f"Got {self.currency!r} instead."
            )
        check_param("pue", self.pue, Interval(float, 1, None), where)
        check_param("years", self.years, Interval(int, 1, None), where)
        check_param("rack_size_u", self.rack_size_u, Interval(int, 1, None), where)
        try:
            step_td = pd.Timedelta(self.step)
        except (ValueError, TypeError):
            step_td = pd.Timedelta(0)
        if step_td <= pd.Timedelta(0):
            raise ConfigError(
                f"The 'step' parameter of plan must be a positive duration like "
                f"'5min' or '30s'. Got {self.step!r} instead."
            )
        if self.percentile != "max" and percentile_quantile(self.percentile) is None:
            raise ConfigError(
                "The 'percentile' parameter of plan must be 'max' or 'pNN' with "
                f"0 < NN < 100 (e.g. 'p95', 'p99.9'). Got {self.percentile!r} instead."
            )
        check_param("resample", self.resample, OneOf(("mean", "max")), where)
        check_param("gap_fill", self.gap_fill, OneOf(("peak", "zero")), where)
        check_param(
            "mem_basis", self.mem_basis, OneOf(("auto", "used", "configured")), where
        )
        check_param("solver", self.solver, OneOf(("heuristic", "cp-sat")), where)
        check_param(
            "time_limit", self.time_limit, Interval(float, 0, None, "neither"), where
        )
        check_param(
            "hyperthreading", self.hyperthreading, OneOf(("catalog", "on", "off")), where
        )
        from vsizer.models.platform import SCENARIOS as PLATFORM_SCENARIOS

        for name in self.platform:
            check_param("platform", name, OneOf(tuple(PLATFORM_SCENARIOS)), where)
        for name, field_name in (("vm_cpu_mhz", "cpu_mhz"), ("vm_mem_gib", "mem_gib")):
            value = getattr(self, name)
            if value is not None:  # within the inventory limits (vsizer.plausible)
                high = FIELD_RANGES[field_name].high
                check_param(name, value, Interval(float, 0, high, "right"), where)
        if self.ceiling > self.failover_limit:
            raise ConfigError(
                f"The 'ceiling' parameter of plan ({self.ceiling}) must not exceed "
                f"'failover_limit' ({self.failover_limit})."
            )
        for name, value in self.targets.items():
            check_param(name, name, OneOf(TARGETS), "[targets]")
            check_param(name, value, Interval(float, 0, None, "neither"), "[targets]")
        for pool, pr in self.pools.items():
            w = f"[pools.{pool}]"
            if pr.ceiling is not None:
                check_param("ceiling", pr.ceiling, Interval(float, 0, 1, "right"), w)
            if pr.failures is not None:
                check_param("failures", pr.failures, Interval(int, 0, MAX_FAILURES), w)
            if pr.min_hosts is not None:
                check_param(
                    "min_hosts", pr.min_hosts, Interval(int, 1, MAX_MIN_HOSTS), w
                )

    @property
    def quantile(self) -> float | None:
        """Share of steps that must fit: None for every step ('max'), 0.95 for 'p95'."""
        return percentile_quantile(self.percentile)

    def for_pool(self, pool: str) -> tuple[float, int, int]:
        """(ceiling, failures, min_hosts) in force for ``pool``."""
        pr = self.pools.get(pool, PoolRules())
        ceiling = self.ceiling if pr.ceiling is None else pr.ceiling
        failures = self.failures if pr.failures is None else pr.failures
        # ``min_hosts`` is the minimum of a *redundant* pool (DESIGN §5: at least 3,
        # like RAID 5); a pool without redundancy may have 1 host unless it says more.
        if pr.min_hosts is not None:
            min_hosts = pr.min_hosts
        elif failures == 0:
            min_hosts = 1
        else:
            min_hosts = self.min_hosts if self.min_hosts is not None else 3
        return ceiling, failures, min_hosts

    def replace(self, **changes: Any) -> Rules:
        """A copy with ``changes`` applied (None values are ignored)."""
        return dataclasses.replace(
            self, **{k: v for k, v in changes.items() if v is not None}
        )


def _is_currency(text: object) -> bool:
    """1 to 8 letters (ISO 4217 'JPY', '円') or currency signs ('¥', '$')."""
    import unicodedata

    return (
        isinstance(text, str)
        and 1 <= len(text) <= 8
        and all(c.isalpha() or unicodedata.category(c) == "Sc" for c in text)
    )


def percentile_quantile(text: str) -> float | None:
    """'p95' -> 0.95, 'p99.9' -> 0.999; 'max' or anything else -> None."""
    if not isinstance(text, str) or not text.startswith("p"):
        return None
    try:
        value = float(text[1:])
    except ValueError:
        return None
    return value / 100.0 if 0 < value < 100 else None


#: Stated targets and how each is judged (actual <= target unless noted).
TARGETS: tuple[str, ...] = (
    "host_ratio",
    "rack_ratio",
    "power_ratio",
    "consolidation_ratio",
)

#: TOML layout: section -> {key: Rules field}.
_SECTIONS: dict[str, dict[str, str]] = {
    "hosts": {
        "model": "host_model",
        "catalog": "host_catalog",
        "cpu_catalog": "cpu_catalog",
    },
    "sizing": {
        k: k
        for k in (
            "ceiling",
            "failures",
            "min_hosts",
            "vcpu_per_core",
            "failover_limit",
            "cpu_basis",
            "assume_util",
            "min_confidence",
        )
    },
    "overhead": {k: k for k in ("host_memory_reserve_gib", "vm_memory_overhead_mib")},
    "power": {k: k for k in ("price_kwh", "currency", "pue", "years")},
    "space": {"rack_size_u": "rack_size_u"},
    "inventory": {"include_powered_off": "include_powered_off"},
    "platform": {"scenarios": "platform", "hyperthreading": "hyperthreading"},
    "series": {
        k: k
        for k in (
            "step",
            "percentile",
            "resample",
            "gap_fill",
            "mem_basis",
            "solver",
            "time_limit",
            "vm_cpu_mhz",
            "vm_mem_gib",
        )
    },
}
_FLOAT_FIELDS = {f.name for f in dataclasses.fields(Rules) if "float" in str(f.type)}


def load_rules(path: str | Path) -> Rules:
    """Read a scenario TOML file into :class:`Rules`; every problem is reported at once."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: file not found.") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start}); save the "
            "scenario as UTF-8."
        ) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}.") from None
    return rules_from_dict(data, str(path))


def rules_from_dict(data: dict[str, Any], source: str = "config") -> Rules:
    """Build :class:`Rules` from a parsed TOML document."""
    kwargs: dict[str, Any] = {}
    problems: list[str] = []
    base_path = Path(source).parent if source != "config" else None
    for section, body in data.items():
        if section == "targets":
            if not isinstance(body, dict):
                problems.append(f"{source}: [targets] must be a table.")
                continue
            for key, value in body.items():
                if key not in TARGETS:
                    problems.append(
                        f"{source}: unknown key 'targets.{key}'; accepted: {', '.join(TARGETS)}."
                    )
                else:
                    kwargs.setdefault("targets", {})[key] = _num(value)
            continue
        if section == "pools":
            pools: dict[str, PoolRules] = {}
            for pool, body2 in (body or {}).items():
                extra = set(body2) - {"ceiling", "failures", "min_hosts"}
                for key in sorted(extra):
                    problems.append(
                        f"{source}: unknown key 'pools.{pool}.{key}'; "
                        "accepted: ceiling, failures, min_hosts."
                    )
                pools[pool] = PoolRules(
                    ceiling=_num(body2["ceiling"]) if "ceiling" in body2 else None,
                    failures=body2.get("failures"),
                    min_hosts=body2.get("min_hosts"),
                )
            kwargs["pools"] = pools
            continue
        keys = _SECTIONS.get(section)
        if keys is None or not isinstance(body, dict):
            problems.append(
                f"{source}: unknown section [{section}]; accepted: "
                + ", ".join(f"[{s}]" for s in [*_SECTIONS, "targets", "pools"])
                + "."
            )
            continue
        for key, value in body.items():
            if key not in keys:
                problems.append(
                    f"{source}: unknown key '{section}.{key}'; accepted: {', '.join(keys)}."
                )
                continue
            name = keys[key]
            if name in ("host_catalog", "cpu_catalog") and base_path is not None:
                value = (
                    str(base_path / value) if not Path(value).is_absolute() else value
                )
            if name == "platform":
                value = tuple([value] if isinstance(value, str) else value)
            kwargs[name] = _num(value) if name in _FLOAT_FIELDS else value
    if problems:
        raise ConfigError(problems)
    return Rules(**kwargs)


def _num(value: Any) -> Any:
    """TOML ints where floats are expected become floats (0 -> 0.0)."""
    return (
        float(value)
        if isinstance(value, int) and not isinstance(value, bool)
        else value
    )
