"""Rules bounded by the host model: declared combinations, checked once the host is known.

A value that passes its own range (:class:`vsizer.study.rule_meta.RuleMeta`)
can still leave no room on the host it is combined with: a
``host_memory_reserve_gib`` of ``1e300`` is a non-negative float, but no host
has that much memory (issue 24: it used to pass validation and fail later, one
line per VM, as "one host offers -1e+300"). Each :class:`HostBound` declares
such a combination as data: the memory a rule takes from every host, in GiB,
which must stay below the memory the host offers to VMs at its ceiling
(``mem_gib`` x the lowest ceiling in force: ``[sizing] ceiling`` or a pool's
``ceiling``). :func:`host_bound_problems` checks every declared bound and gives
one line per rule broken, naming the flag or TOML key, the value, the host
model and its memory; :func:`vsizer.study.core.plan` raises them as soon as the
host model is resolved, before the inventory or series are read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from vsizer.catalogs.model import HostModel
from vsizer.errors import ConfigError
from vsizer.study.config import Rules, rule_where

__all__ = ["HOST_BOUNDS", "HostBound", "check_host_bounds", "host_bound_problems"]


@dataclass(frozen=True)
class HostBound:
    """One rule whose value takes memory from every host (a declared combination).

    Attributes
    ----------
    name : str
        The :class:`Rules` field.
    unit : str
        Its unit in messages ('GiB', 'MiB').
    per_gib : float
        Units per GiB (1 for GiB, 1024 for MiB).
    others : callable
        Memory [GiB] the other bounded rules take from the same host, which
        this one must leave room beside.
    what : str
        What the memory is for, completing "must leave room on the host: ...".
    """

    name: str
    unit: str
    per_gib: float
    others: Callable[[Rules], float]
    what: str


def _overhead_gib(rules: Rules) -> float:
    v = rules.vm_memory_overhead_mib
    return 0.0 if v is None else float(v) / 1024.0


#: The declared combinations: each rule's memory plus the others' stays below
#: the host's memory at the ceiling (the ESXi table estimate of the VM overhead,
#: used when ``vm_memory_overhead_mib`` is not given, depends on each VM and is
#: not checked here).
HOST_BOUNDS: tuple[HostBound, ...] = (
    HostBound("host_memory_reserve_gib", "GiB", 1.0, _overhead_gib,
              "memory kept per host"),
    HostBound("vm_memory_overhead_mib", "MiB", 1024.0,
              lambda r: float(r.host_memory_reserve_gib), "overhead of one VM"),
)


def _tightest_ceiling(rules: Rules) -> tuple[float, str]:
    """The lowest ceiling in force and where it is set."""
    best, where = float(rules.ceiling), rule_where("ceiling")
    for pool, pr in sorted(rules.pools.items()):
        if pr.ceiling is not None and pr.ceiling < best:
            best, where = float(pr.ceiling), f"[pools.'{pool}'] ceiling"
    return best, where


def host_bound_problems(rules: Rules, host: HostModel) -> list[str]:
    """One line per declared bound that ``rules`` break on ``host`` (empty: none).

    A rule whose memory alone reaches the host's is named alone; when none
    does but together they do, each is named with the memory of the others.
    """
    ceiling, ceiling_where = _tightest_ceiling(rules)
    offered = float(host.mem_gib) * ceiling
    given = [(b, v) for b in HOST_BOUNDS if (v := getattr(rules, b.name)) is not None]
    alone = [(b, v) for b, v in given if float(v) / b.per_gib >= offered]
    together = sum(float(v) / b.per_gib for b, v in given) >= offered
    problems = []
    for bound, value in alone or (given if together else []):
        others = 0.0 if alone else bound.others(rules)
        room = max(offered - others, 0.0) * bound.per_gib
        beside = f", less {others:.6g} GiB for the other overheads" if others else ""
        problems.append(
            f"The '{bound.name}' parameter of plan ({rule_where(bound.name)}) must "
            f"leave room for VMs on host model '{host.model}': its {bound.what} must "
            f"be less than {room:.6g} {bound.unit} (the host's {host.mem_gib:.6g} GiB "
            f"of memory at the {ceiling:.0%} ceiling of {ceiling_where}{beside}). "
            f"Got {value!r} instead."
        )
    return problems


def check_host_bounds(rules: Rules, host: HostModel) -> None:
    """Raise :class:`ConfigError` with every line of :func:`host_bound_problems`."""
    problems = host_bound_problems(rules, host)
    if problems:
        raise ConfigError("\n".join(problems))
