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
    rightsize = false      # resize VMs to their measured peak before placement

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
    shard_vms = 20000      # pools above this many VMs are placed in shards (0: never)
    bound_lp_vms = 100     # pools up to this many VMs get the configuration-LP bound (0: never)
    bound_lp_pools = 10    # ... at most this many pools of a plan (0: none)
    vm_cpu_mhz = 1000      # clock [MHz/core] of servers with no clock or score;
    vm_mem_gib = 1         # memory of servers with none (no inventory: every VM)

    [platform]             # what-if factors on the host (DESIGN §6.4)
    scenarios = ["hyperv-r2-java"]   # names: vsizer.models.platform.SCENARIOS
    hyperthreading = "off"           # "catalog" (as measured), "on", "off"

    [storage]              # mode, protection, ftt, slack, ...: vsizer.study._storage_rules
    protection = "raid5-4+1"

    [pools."開発"]          # per-pool overrides of ceiling, failures, min_hosts
    [growth]               # demand growth over the years (vsizer.study.growth)
    rate = "10%"           # per year (or 0.10); or one rate per year:
    # years = [0.10, 0.15, 0.05]
    size_for = "now"       # "now": day one + purchases; "horizon": the last year

    [pools."開発"]          # per-pool overrides of ceiling, failures, min_hosts, growth
    failures = 0
    ceiling = 0.8

Flags override the file; unknown keys are errors.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vsizer._toml import read_toml
from vsizer._validation import (
    Constraint,
    EachOf,
    Interval,
    OneOf,
    param_problem,
    param_problems,
)
from vsizer.errors import ConfigError
from vsizer.models.growth import RATE as _RATE
from vsizer.models.growth import RATES as _RATES
from vsizer.models.platform import SCENARIOS as PLATFORM_SCENARIOS
from vsizer.study import rule_meta as _rm
from vsizer.study._carbon_rules import CARBON_RULES as _CB
from vsizer.study._storage_rules import STORAGE_RULES as _ST
from vsizer.study.rule_meta import RuleMeta, percentile_quantile, rule

# Shared constraints (vsizer.study.rule_meta), under the names the fields use.
_CURRENCY = _rm.CURRENCY
_DURATION = _rm.DURATION
_FAILURES = _rm.FAILURES
_FRACTION = _rm.FRACTION
_MIN_HOSTS = _rm.MIN_HOSTS
_NON_NEGATIVE = _rm.NON_NEGATIVE
_PERCENTILE = _rm.PERCENTILE
_POSITIVE = _rm.POSITIVE
_up_to_plausible = _rm.up_to_plausible

#: Hypervisor memory kept per host before any VM [GiB]: a planning allowance
#: for the VMkernel/management agents (the vSphere Resource Management Guide
#: describes this fixed system-wide overhead without a figure; ESXi 7/8 need at
#: least 8 GB of host RAM to install). Measure and override for your platform.
DEFAULT_HOST_MEMORY_RESERVE_GIB = 4.0


@dataclass(frozen=True)
class PoolRules:
    """Per-pool overrides; None keeps the study-wide value."""

    ceiling: float | None = None
    failures: int | None = None
    min_hosts: int | None = None
    #: Yearly demand growth of the pool ("10%" or 0.10), over the plan's.
    growth: str | float | None = None


#: Constraints of a pool's overrides (``[pools."name"]``).
POOL_CONSTRAINTS: dict[str, Constraint] = {
    "ceiling": _FRACTION,
    "failures": _FAILURES,
    "min_hosts": _MIN_HOSTS,
    "growth": _RATE,
}


@dataclass(frozen=True)
class Rules:
    """Every parameter of a plan, with defaults: one declared table.

    Each field's metadata (:func:`rule`) gives its help text, TOML section and
    key, ``vsizer plan`` flag and constraint; the TOML reader, the CLI flags and
    the checks are derived from it. See the module docstring for the layout.
    """

    ceiling: float = field(default=0.6, metadata=rule(
        "Utilization ceiling per host in normal operation [fraction]. Default 0.6.",
        "sizing", flag="--ceiling", constraint=_FRACTION))
    failures: int = field(default=1, metadata=rule(
        "Host failures to tolerate (N+k). Default 1.",
        "sizing", flag="--failures", constraint=_FAILURES))
    min_hosts: int | None = field(default=None, metadata=rule(
        "Minimum hosts per pool. Default 3, or 1 when failures = 0.",
        "sizing", flag="--min-hosts", constraint=_MIN_HOSTS))
    vcpu_per_core: float | str = field(default=2.0, metadata=rule(
        "vCPU : physical core limit, or 'today': the ratio the source's hosts "
        "run at today (a pool's cluster, else all hosts; needs hosts before, "
        "e.g. RVTools vHost). Default 2.",
        "sizing", flag="--vcpu-per-core", constraint=_rm.VCPU_PER_CORE))
    failover_limit: float = field(default=1.0, metadata=rule(
        "Utilization survivors may reach after a failure [fraction]. Default 1.0.",
        "sizing", constraint=_FRACTION))
    failover_budget: int = field(default=5_000_000, metadata=rule(
        "Work of one N+k check in host-scenarios (scenarios x hosts x k); beyond "
        "it, failures of the most loaded hosts first, warned. Default 5000000 "
        "(every scenario of N+1 up to 2,236 hosts, N+2 up to 171).",
        "sizing", flag="--failover-budget", constraint=Interval(int, 1, None)))
    cpu_basis: str = field(default="peak", metadata=rule(
        "Size CPU on 'peak' or 'average' utilization. Default peak.",
        "sizing", flag="--cpu-basis", constraint=OneOf(("peak", "average"))))
    assume_util: float = field(default=1.0, metadata=rule(
        "CPU utilization [fraction] of servers whose average and peak are "
        "both missing. Default 1.0 (fully busy).",
        "sizing", flag="--assume-util", constraint=Interval(float, 0, 1)))
    min_confidence: float = field(default=0.7, metadata=rule(
        "Data confidence [fraction] below which the plan's headline says it "
        "rests on assumptions. Default 0.7.",
        "sizing", flag="--min-confidence", constraint=Interval(float, 0, 1)))
    rightsize: bool = field(default=False, metadata=rule(
        "Resize VMs to their measured peak before placement (vCPUs: next power "
        "of two >= peak cores x 1.2; memory: used x 1.2 rounded up to 1 GiB).",
        "sizing", flag="--rightsize"))
    host_memory_reserve_gib: float = field(
        default=DEFAULT_HOST_MEMORY_RESERVE_GIB, metadata=rule(
            "Hypervisor memory kept per host before any VM [GiB]. Default 4.",
            "overhead", constraint=_NON_NEGATIVE))
    vm_memory_overhead_mib: float | None = field(default=None, metadata=rule(
        "Memory overhead per VM [MiB]. Default: the ESXi table-based estimate.",
        "overhead", constraint=_NON_NEGATIVE))
    price_kwh: float | None = field(default=None, metadata=rule(
        "Electricity price per kWh.",
        "power", flag="--price-kwh", constraint=_NON_NEGATIVE))
    currency: str = field(default="USD", metadata=rule(
        "Currency code for costs, e.g. JPY.",
        "power", flag="--currency", constraint=_CURRENCY))
    pue: float = field(default=1.0, metadata=rule(
        "Power usage effectiveness (>= 1). Default 1.",
        "power", flag="--pue", constraint=Interval(float, 1, None)))
    years: int = field(default=5, metadata=rule(
        "Years for the saving over the system's life, and of growth "
        "(--growth). Default 5.",
        "power", flag="--years", constraint=Interval(int, 1, None)))
    grid_gco2_kwh: float | None = field(default=None, metadata=rule(**_CB["grid_gco2_kwh"]))
    grid_region: str | None = field(default=None, metadata=rule(**_CB["grid_region"]))
    rack_size_u: int = field(default=42, metadata=rule(
        "Rack units per rack. Default 42.",
        "space", constraint=Interval(int, 1, None)))
    include_powered_off: bool = field(default=False, metadata=rule(
        "Plan powered-off RVTools VMs too.",
        "inventory", flag="--include-powered-off"))
    host_model: str | None = field(default=None, metadata=rule(
        "Host model name from the catalog (see 'vsizer catalog list'), or "
        "'auto': plan every candidate and pick the lowest total cost.",
        "hosts", key="model", flag="--host-model"))
    host_catalog: str | None = field(default=None, metadata=rule(
        "Host catalog CSV (merged over the shipped one). With one model "
        "it is the host model; with several, choose one with --host-model.",
        "hosts", key="catalog", flag="--hosts", path=True))
    cpu_catalog: str | None = field(default=None, metadata=rule(
        "CPU catalog CSV (e.g. from 'vsizer catalog import-spec'), merged over "
        "the shipped one.",
        "hosts", flag="--cpus", path=True))
    # Time-series sizing (used when the plan is given series; see [series] above).
    step: str = field(default="5min", metadata=rule(
        "Plan grid step the series are resampled to, e.g. 5min, 30s, 1h. "
        "Default 5min. (The input files' own step is --series-step.)",
        "series", flag="--step", constraint=_DURATION))
    percentile: str = field(default="max", metadata=rule(
        "Share of steps that must fit under the ceiling: max (every step), "
        "p99, p95. Default max.",
        "series", flag="--percentile", constraint=_PERCENTILE))
    resample: str = field(default="mean", metadata=rule(
        "Samples within a step: mean or max. Default mean.",
        "series", flag="--resample", constraint=OneOf(("mean", "max"))))
    gap_fill: str = field(default="peak", metadata=rule(
        "Steps without data: the VM's own peak (peak) or zero. Default peak.",
        "series", flag="--gap-fill", constraint=OneOf(("peak", "zero"))))
    mem_basis: str = field(default="auto", metadata=rule(
        "Memory: auto (the memory curve if any, else configured), used, "
        "configured. Default auto.",
        "series", flag="--mem-basis",
        constraint=OneOf(("auto", "used", "configured"))))
    solver: str = field(default="heuristic", metadata=rule(
        "Placement on curves: heuristic or cp-sat (OR-Tools; the exact "
        "model for small pools, then large-neighbourhood search that frees "
        "hosts of the heuristic's plan and an overflow search at one host "
        "fewer, never more hosts than it; reports "
        "status optimal/improved/hint and the gap). A pool whose search would "
        "need more than 1.5 GB (estimated before building: "
        "vsizer.placement.cpsat_model.MAX_MODEL_BYTES) is refused with one "
        "line. Default heuristic.",
        "series", flag="--solver", constraint=OneOf(("heuristic", "cp-sat"))))
    time_limit: float = field(default=30.0, metadata=rule(
        "Wall-clock seconds of the cp-sat search per pool (model building "
        "included). Its searches run on counted budgets (CP-SAT: 1/16 of it "
        "to free hosts; the overflow search at one host fewer: 0.7 of it of "
        "the compiled breakout search's counted work, or 0.2 of it of CP-SAT "
        "time without numba), so the plan does not depend on the machine unless "
        "this limit ends the search first (then solver.stopped_by is "
        "time_limit, and the plan has a solver_time_limit warning). Default 30.",
        "series", flag="--time-limit", constraint=_POSITIVE))
    # --- shards: pools too large for one process (vsizer.placement.shards)
    shard_vms: int = field(default=20_000, metadata=rule(
        "Largest pool, in VMs, placed on its curves in one piece; a larger "
        "pool is split into shards of at most this many VMs (curve shapes "
        "clustered and dealt round-robin), placed in parallel on --engine, "
        "merged, re-packed across shards and checked for N+k as a whole. "
        "0: never shard. Default 20000.",
        "series", flag="--shard-vms", constraint=Interval(int, 0, None)))
    # --- end shards
    bound_lp_vms: int = field(default=100, metadata=rule(
        "Largest pool, in VMs, whose lower bound on curves is also sought by "
        "the configuration LP (column generation, Gilmore and Gomory 1961; "
        "needs scipy) when the plan is above the other bounds: up to about "
        "13 CPU s a pool at 100 VMs. 0: never. Default 100.",
        "series", flag="--bound-lp-vms", constraint=Interval(int, 0, None)))
    bound_lp_pools: int = field(default=10, metadata=rule(
        "Most pools of one plan that get the configuration-LP bound (see "
        "--bound-lp-vms), in placement order; the plan's budget for it (up to "
        "about 13 CPU s a pool). Pools after them keep the other bounds, with a "
        "warning. 0: none. Default 10.",
        "series", flag="--bound-lp-pools", constraint=Interval(int, 0, None)))
    vm_cpu_mhz: float | None = field(default=None, metadata=rule(
        "Clock [MHz per core] of servers whose inventory row has neither "
        "clock nor CPU score (e.g. Azure Migrate); without inventory, the clock "
        "of each CPU of every VM, times its CPU count where the series gives one "
        "(a sar banner's '(14 CPU)', a trace's machine list), else one core "
        "(PlanetLab gives only %). Default without it: each core counts as one "
        "host core (a warning).",
        "series", flag="--vm-cpu-mhz", constraint=_up_to_plausible("cpu_mhz")))
    vm_mem_gib: float | None = field(default=None, metadata=rule(
        "Memory [GiB] of servers whose inventory row has none; without "
        "inventory, the memory of every VM (default there: the memory total the "
        "series gives, e.g. sar -r).",
        "series", flag="--vm-mem-gib", constraint=_up_to_plausible("mem_gib")))
    # Platform what-if (DESIGN §6.4, vsizer.models.platform): named published
    # comparisons applied to the host's CPU capacity and power; Hyper-Threading.
    platform: tuple[str, ...] = field(default=(), metadata=rule(
        "Named platform comparison applied to the host (published platform "
        "comparisons, listed by 'vsizer model platform'), e.g. "
        "hyperv-r2-java; repeatable. List: 'vsizer model platform'.",
        "platform", key="scenarios", flag="--platform",
        constraint=EachOf(OneOf(tuple(PLATFORM_SCENARIOS)))))
    hyperthreading: str = field(default="catalog", metadata=rule(
        "catalog (as measured), on, or off (CPU / 1.038, power / 1.094).",
        "platform", flag="--hyperthreading",
        constraint=OneOf(("catalog", "on", "off"))))
    # Storage (vsizer.study.storage; metadata in vsizer.study._storage_rules).
    storage_mode: str = field(default="external", metadata=rule(**_ST["storage_mode"]))
    protection: str | None = field(default=None, metadata=rule(**_ST["protection"]))
    ftt: int = field(default=1, metadata=rule(**_ST["ftt"]))
    provisioning: str = field(default="thin", metadata=rule(**_ST["provisioning"]))
    thin_ratio: float | None = field(default=None, metadata=rule(**_ST["thin_ratio"]))
    slack: float = field(default=0.25, metadata=rule(**_ST["slack"]))
    host_raw_gib: float | None = field(default=None, metadata=rule(**_ST["host_raw_gib"]))
    read_share: float | None = field(default=None, metadata=rule(**_ST["read_share"]))
    # Growth over the years (vsizer.study.growth); absent: no growth section.
    growth: str | None = field(default=None, metadata=rule(
        "Yearly demand growth, e.g. 10% (or 0.10), or one rate per year: "
        "10%,15%,5%. Gives the hosts needed at each year end up to --years, "
        "the year each pool runs out, and the purchases.",
        "growth", key="rate", flag="--growth", constraint=_RATES))
    growth_table: tuple[float, ...] = field(default=(), metadata=rule(
        "One yearly growth rate per year (0.10 or '10%'); sets the horizon.",
        "growth", key="years", constraint=EachOf(_RATE)))
    size_for: str = field(default="now", metadata=rule(
        "With growth: size the plan for day one (now; the purchases follow) "
        "or for the demand of the last year (horizon). Default now.",
        "growth", flag="--size-for", constraint=OneOf(("now", "horizon"))))
    # --- host-model choice and total cost of ownership
    # (vsizer.study.choice, vsizer.study.tco).
    candidates: tuple[str, ...] = field(default=(), metadata=rule(
        "Host models to choose among with host_model = 'auto' (names in the "
        "host catalog). Default: every model of the catalog.",
        "hosts"))
    candidates_file: str | None = field(default=None, metadata=rule(
        "Host catalog CSV whose every model is a candidate of --host-model "
        "auto (implies auto).",
        "hosts", flag="--candidates", path=True))
    licences: str | None = field(default=None, metadata=rule(
        "Licence catalog CSV (columns of vsizer/catalogs/data/licences.csv); "
        "every row applies to every host (or VM) of the plan. Default: none.",
        "hosts", flag="--licences", path=True))
    rack_cost_per_u_year: float | None = field(default=None, metadata=rule(
        "Cost of one rack unit per year (space, power distribution, cooling "
        "share) in the plan's currency. Default: not counted.",
        "space", flag="--rack-cost-per-u-year", constraint=_NON_NEGATIVE))
    # --- end host-model choice and total cost of ownership
    targets: dict[str, float] = field(default_factory=dict)
    pools: dict[str, PoolRules] = field(default_factory=dict)

    def __post_init__(self) -> None:
        v = self.vcpu_per_core
        if isinstance(v, str) and _rm.is_vcpu_per_core(v) and v != "today":
            object.__setattr__(self, "vcpu_per_core", float(v))  # a flag's text
        problems = rule_problems(self)
        if problems:
            raise ConfigError(problems)

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

    def with_flags(
        self,
        flags: Mapping[str, Any],
        targets: Mapping[str, float | None] | None = None,
    ) -> Rules:
        """The rules with command-line values over them (flags override the file).

        Parameters
        ----------
        flags : mapping
            Values by field name, as a command line gives them: None (and a
            switch left off, and an empty list) means "not given"; a path
            becomes its text, a list a tuple.
        targets : mapping, optional
            Values by target name (``host_ratio``), merged over ``self.targets``;
            None means "not given".

        Returns
        -------
        Rules
            A new, checked copy.
        """
        changes = {k: _flag_value(v) for k, v in flags.items()}
        merged = dict(self.targets)
        merged.update({k: v for k, v in (targets or {}).items() if v is not None})
        return self.replace(**changes, targets=merged)


def _flag_value(value: Any) -> Any:
    """A command-line value as a Rules value; None when not given."""
    if value is False or (isinstance(value, (list, tuple)) and not value):
        return None
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, list):
        return tuple(value)
    return value


def rule_fields() -> dict[str, RuleMeta]:
    """The declared table: field name -> :class:`RuleMeta`, in field order."""
    return {
        f.name: f.metadata["rule"] for f in dataclasses.fields(Rules) if "rule" in f.metadata
    }


def rule_constraints(rules: Rules) -> dict[str, Constraint]:
    """Declared constraints of the fields of ``rules`` that are given (None skipped)."""
    defaults = {f.name: f.default for f in dataclasses.fields(Rules)}
    return {
        name: meta.constraint
        for name, meta in rule_fields().items()
        if meta.constraint is not None
        and not (defaults[name] is None and getattr(rules, name) is None)
    }


def rule_where(name: str) -> str:
    """Where a user sets rule ``name``: its flag and TOML key (``--ceiling, [sizing]
    ceiling``), or the TOML key alone."""
    meta = rule_fields()[name]
    toml = f"[{meta.section}] {meta.key or name}"
    return f"{meta.flag}, {toml}" if meta.flag else toml


def _with_flag(problem: str) -> str:
    """``problem`` about a rule, naming its flag and TOML key after the parameter."""
    found = re.match(r"The '(\w+)' parameter of plan ", problem)
    if found is None or found.group(1) not in rule_fields():
        return problem
    head = found.group(0)
    return f"{head}({rule_where(found.group(1))}) " + problem[len(head):]


def rule_problems(rules: Rules) -> list[str]:
    """Every problem of ``rules``, one line each (declared constraints first)."""
    constraints = rule_constraints(rules)
    problems = [_with_flag(p) for p in param_problems(vars(rules), constraints, "plan")]
    limits_valid = not any(
        param_problem(n, getattr(rules, n), constraints[n], "plan")
        for n in ("ceiling", "failover_limit")
    )
    if limits_valid and rules.ceiling > rules.failover_limit:
        problems.append(
            f"The 'ceiling' parameter of plan ({rules.ceiling}) must not exceed "
            f"'failover_limit' ({rules.failover_limit})."
        )
    for name, value in rules.targets.items():
        problems += param_problems({name: name}, {name: OneOf(TARGETS)}, "[targets]")
        problems += param_problems({name: value}, {name: _POSITIVE}, "[targets]")
    for pool, pr in rules.pools.items():
        given = {k: v for k, v in vars(pr).items() if v is not None}
        problems += param_problems(given, POOL_CONSTRAINTS, f"[pools.{pool}]")
    return problems


#: Stated targets and how each is judged (actual <= target unless noted).
TARGETS: tuple[str, ...] = (
    "host_ratio",
    "rack_ratio",
    "power_ratio",
    "consolidation_ratio",
)

#: Targets a ``vsizer plan`` flag can state (``--target-host-ratio``), with its help.
TARGET_FLAGS: dict[str, str] = {
    "host_ratio": "Target: hosts / servers at most this.",
    "rack_ratio": "Target: rack units after / before at most this.",
    "power_ratio": "Target: power after / before at most this.",
}

#: TOML sections of the rules, in the order messages list them.
_SECTION_ORDER = (
    "hosts", "sizing", "overhead", "power", "space", "inventory", "platform", "series",
    "storage",
    "growth",
)


def _toml_layout() -> dict[str, dict[str, str]]:
    """Section -> {key: Rules field}, from the declared table."""
    layout: dict[str, dict[str, str]] = {s: {} for s in _SECTION_ORDER}
    for name, meta in rule_fields().items():
        layout[meta.section][meta.key or name] = name
    return layout


#: TOML layout: section -> {key: Rules field} (derived from :class:`Rules`).
_SECTIONS: dict[str, dict[str, str]] = _toml_layout()
_FLOAT_FIELDS = {f.name for f in dataclasses.fields(Rules) if "float" in str(f.type)}
_TUPLE_FIELDS = {f.name for f in dataclasses.fields(Rules) if "tuple" in str(f.type)}
_PATH_FIELDS = {name for name, meta in rule_fields().items() if meta.path}


def load_rules(path: str | Path) -> Rules:
    """Read a scenario TOML file into :class:`Rules`; every problem is reported at once."""
    return rules_from_dict(read_toml(path), str(Path(path)))


def rules_from_dict(data: dict[str, Any], source: str = "config") -> Rules:
    """Build :class:`Rules` from a parsed TOML document.

    Unknown sections and keys are all reported at once (:class:`ConfigError`
    with one line each); then the values are checked by :class:`Rules`.
    """
    kwargs: dict[str, Any] = {}
    problems: list[str] = []
    base_path = Path(source).parent if source != "config" else None
    for section, body in data.items():
        if section == "targets":
            kwargs["targets"] = _targets(body, source, problems)
        elif section == "pools":
            kwargs["pools"] = _pools(body, source, problems)
        else:
            kwargs.update(_rule_section(section, body, source, base_path, problems))
    if problems:
        raise ConfigError(problems)
    return Rules(**kwargs)


def _targets(body: Any, source: str, problems: list[str]) -> dict[str, float]:
    """The ``[targets]`` table; unknown keys go to ``problems``."""
    if not isinstance(body, dict):
        problems.append(f"{source}: [targets] must be a table.")
        return {}
    targets: dict[str, float] = {}
    for key, value in body.items():
        if key not in TARGETS:
            problems.append(
                f"{source}: unknown key 'targets.{key}'; accepted: {', '.join(TARGETS)}."
            )
        else:
            targets[key] = _num(value)
    return targets


def _pools(body: Any, source: str, problems: list[str]) -> dict[str, PoolRules]:
    """The ``[pools."name"]`` tables; unknown keys go to ``problems``."""
    pools: dict[str, PoolRules] = {}
    for pool, body2 in (body or {}).items():
        extra = set(body2) - set(POOL_CONSTRAINTS)
        for key in sorted(extra):
            problems.append(
                f"{source}: unknown key 'pools.{pool}.{key}'; "
                f"accepted: {', '.join(POOL_CONSTRAINTS)}."
            )
        pools[pool] = PoolRules(
            ceiling=_num(body2["ceiling"]) if "ceiling" in body2 else None,
            failures=body2.get("failures"),
            min_hosts=body2.get("min_hosts"),
            growth=body2.get("growth"),
        )
    return pools


def _rule_section(
    section: str, body: Any, source: str, base_path: Path | None, problems: list[str]
) -> dict[str, Any]:
    """Rules fields of one declared section; unknown sections and keys go to ``problems``."""
    keys = _SECTIONS.get(section)
    if keys is None or not isinstance(body, dict):
        problems.append(
            f"{source}: unknown section [{section}]; accepted: "
            + ", ".join(f"[{s}]" for s in [*_SECTIONS, "targets", "pools"])
            + "."
        )
        return {}
    values: dict[str, Any] = {}
    for key, value in body.items():
        if key not in keys:
            problems.append(
                f"{source}: unknown key '{section}.{key}'; accepted: {', '.join(keys)}."
            )
            continue
        name = keys[key]
        if name in _PATH_FIELDS and base_path is not None:
            value = str(base_path / value) if not Path(value).is_absolute() else value
        if name in _TUPLE_FIELDS:
            value = tuple([value] if isinstance(value, str) else value)
        values[name] = _num(value) if name in _FLOAT_FIELDS else value
    return values


def _num(value: Any) -> Any:
    """TOML ints where floats are expected become floats (0 -> 0.0)."""
    return (
        float(value)
        if isinstance(value, int) and not isinstance(value, bool)
        else value
    )
