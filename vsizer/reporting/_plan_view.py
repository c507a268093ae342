"""Read-only views of a plan dict shared by the HTML and Excel reports.

The plan document (``docs/plan-schema.md``) changed shape between
``schema_version`` "1" and "2" in a few places (failover scenarios, the lower
bound, time-series curves). Each function here returns the same shape for
both, so that a writer renders either without checking versions itself.
Nothing here changes the plan.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import datetime, timedelta
from typing import Any

from vsizer.errors import InputError

__all__ = [
    "REQUIRED_KEYS",
    "SCHEMA_VERSIONS",
    "check_plan",
    "failover_scenarios",
    "host_rows",
    "lower_bound_hosts",
    "predictions",
    "replay",
    "scenario_count",
    "series_times",
    "vm_shares",
    "warnings",
]

#: Versions of ``docs/plan-schema.md`` the reports render.
SCHEMA_VERSIONS: tuple[str, ...] = ("1", "2")

#: Top-level keys every report needs.
REQUIRED_KEYS: tuple[str, ...] = (
    "schema_version",
    "inputs",
    "parameters",
    "host_model",
    "summary",
    "demand",
    "servers",
    "excluded",
    "pools",
    "power",
    "space",
    "targets",
    "quality",
    "warnings",
)


def check_plan(plan: Any) -> None:
    """Raise :class:`InputError` listing every top-level problem of ``plan``.

    Parameters
    ----------
    plan : Any
        The value to check; a report needs a dict after ``docs/plan-schema.md``.

    Raises
    ------
    vsizer.errors.InputError
        ``plan`` is not a dict, misses a top-level key or has a
        ``schema_version`` other than those of :data:`SCHEMA_VERSIONS`.
    """
    if not isinstance(plan, Mapping):
        raise InputError(
            f"plan: expected a dict as described in docs/plan-schema.md, "
            f"got {type(plan).__name__}."
        )
    problems = [
        f"plan: missing key {key!r} (see docs/plan-schema.md)."
        for key in REQUIRED_KEYS
        if key not in plan
    ]
    version = plan.get("schema_version")
    if "schema_version" in plan and version not in SCHEMA_VERSIONS:
        expected = " or ".join(repr(v) for v in SCHEMA_VERSIONS)
        problems.append(
            f"plan: key 'schema_version': expected {expected}, got {version!r}."
        )
    if problems:
        raise InputError(problems)


def host_rows(plan: Mapping[str, Any]) -> Iterator[tuple[Mapping, float, Mapping]]:
    """``(pool, ceiling in force, host)`` for every host, pools in plan order."""
    default = plan["parameters"]["ceiling"]
    for pool in plan["pools"]:
        ceiling = pool.get("ceiling", default)
        for host in pool.get("hosts", []):
            yield pool, ceiling, host


def lower_bound_hosts(pool: Mapping[str, Any]) -> int | None:
    """The pool's lower bound on hosts (an int in schema "1", an object in "2")."""
    lb = pool.get("lower_bound")
    if isinstance(lb, Mapping):
        lb = lb.get("hosts")
    return None if lb is None else int(lb)


def scenario_count(pool: Mapping[str, Any]) -> int:
    """How many failure scenarios the pool's failover check tried."""
    fo = pool.get("failover") or {}
    if "scenario_count" in fo:
        return int(fo["scenario_count"])
    if isinstance(fo.get("scenarios"), int):
        return int(fo["scenarios"])
    return len(failover_scenarios(pool))


def failover_scenarios(pool: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per failure scenario of ``pool``, the same keys in both schemas.

    Returns
    -------
    list of dict
        Keys ``failed`` (host ids), ``moves`` (``{"vm", "to"}``), ``unplaced``
        (VM names), ``worst_host``, ``worst_dimension``, ``worst_util``
        [fraction], ``worst_step`` (ISO time or ``None``), ``steps_over_100``
        (``None`` without series) and ``survivor_util`` (``{host: {dim: u}}``).
        Schema "1" keeps unplaced VMs in ``failed_scenarios``; they are merged
        in by the failed host list.
    """
    fo = pool.get("failover") or {}
    raw = fo.get("scenarios")
    rows = raw if isinstance(raw, list) else fo.get("detail") or []
    unplaced_of = {
        tuple(f.get("failed") or ()): list(f.get("unplaced") or ())
        for f in fo.get("failed_scenarios") or ()
    }
    out = []
    for row in rows:
        failed = list(row.get("failed") or ())
        unplaced = row.get("unplaced")
        out.append(
            {
                "failed": failed,
                "moves": list(row.get("moves") or ()),
                "unplaced": list(
                    unplaced
                    if unplaced is not None
                    else unplaced_of.get(tuple(failed), [])
                ),
                "worst_host": row.get("worst_host"),
                "worst_dimension": row.get("worst_dimension"),
                "worst_util": row.get("worst_util"),
                "worst_step": row.get("worst_step"),
                "steps_over_100": row.get("steps_over_100"),
                "survivor_util": dict(row.get("survivor_util") or {}),
            }
        )
    return out


def replay(pool: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The pool's step-by-step replay (schema "2" with series), else ``None``."""
    value = pool.get("replay")
    return value if isinstance(value, Mapping) else None


def _parse_time(text: Any) -> datetime | None:
    if not isinstance(text, str):
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None


def series_times(plan: Mapping[str, Any], length: int) -> list[str]:
    """Time of each of ``length`` sampled steps of the plan's host curves.

    Parameters
    ----------
    plan : dict
        A plan with a ``series`` object (schema "2").
    length : int
        Number of points of a host curve.

    Returns
    -------
    list of str
        ``YYYY-MM-DD HH:MM`` (UTC as given) of sample ``i`` = ``start + i x
        step_seconds x stride``; the step numbers as text when the plan has
        no usable start or step.
    """
    series = plan.get("series") or {}
    start = _parse_time(series.get("start"))
    step = series.get("step_seconds")
    stride = series.get("stride") or 1
    if start is None or not isinstance(step, (int, float)) or step <= 0:
        return [str(i * int(stride)) for i in range(length)]
    delta = timedelta(seconds=float(step) * float(stride))
    return [(start + i * delta).strftime("%Y-%m-%d %H:%M") for i in range(length)]


def vm_shares(plan: Mapping[str, Any]) -> dict[str, dict[str, float]]:
    """Each server's CPU and memory demand as a fraction of one host.

    CPU uses the demand the plan was sized on (``parameters.cpu_basis``:
    peak or average); memory uses ``vm_mem_gib`` (memory plus per-VM
    overhead). Capacities are ``host_model.capacity``.

    Returns
    -------
    dict
        ``{server name: {"cpu": fraction, "mem": fraction}}``; a dimension is
        left out when the plan lacks the value or the capacity.
    """
    capacity = plan["host_model"].get("capacity") or {}
    basis = plan["parameters"].get("cpu_basis", "peak")
    cpu_key = "cpu_avg_demand" if basis == "average" else "cpu_peak_demand"
    out: dict[str, dict[str, float]] = {}
    for server in plan["servers"]:
        share: dict[str, float] = {}
        for dim, key in (("cpu", cpu_key), ("mem", "vm_mem_gib")):
            value, cap = server.get(key), capacity.get(dim)
            if (
                isinstance(value, (int, float))
                and isinstance(cap, (int, float))
                and cap
            ):
                share[dim] = float(value) / float(cap)
        out[str(server["name"])] = share
    return out


def predictions(plan: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The plan's ``predictions`` object when it holds anything, else ``None``."""
    value = plan.get("predictions")
    if not isinstance(value, Mapping):
        return None
    if not any(value.get(k) for k in ("vms", "hosts", "warnings")):
        return None
    return value


def warnings(plan: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The plan's warnings as ``{code, message, servers}`` dicts: plans before
    the structured form held plain strings, shown here with code ``""``."""
    out: list[dict[str, Any]] = []
    for w in plan.get("warnings") or ():
        if isinstance(w, Mapping):
            out.append(
                {
                    "code": str(w.get("code", "")),
                    "message": str(w.get("message", "")),
                    "servers": [str(s) for s in w.get("servers") or ()],
                }
            )
        else:
            out.append({"code": "", "message": str(w), "servers": []})
    return out
