"""Which inventory servers have series: name matching and coverage.

Pure functions: names in, pairs and counts out.

**Name matching.** A series server matches an inventory server of the same
name; failing that, of the same name ignoring case (Unicode casefold) or with
and without a domain suffix (``web01.example.com`` ~ ``web01``; two different
domains do not match; a dotted IPv4 address is compared whole), a trailing
``:port`` left out (``web01:9100`` ~ ``web01``: Prometheus' ``instance``
label is ``host:port``). Every pair
matched that way is reported.
When, among the names that fold to one name, an inventory server could take
more than one series or a series could go to more than one server, the
pairing is ambiguous and no guess is made: the caller raises an error naming
them.

**Coverage.** Servers with a series / all servers of a pool. Servers without
one are placed at their inventory peak (a flat curve); see
``docs/inputs.md``. A server whose CPU series has a value in fewer than
:data:`MIN_SERIES_COVERAGE` (50 %) of the plan grid's steps keeps the larger of
its inventory peak and its series (:func:`short_series`), with the warning
``short_series``: one 5-minute sample at 5 % never replaces a 60 % peak.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from vsizer._validation import quoted_list
from vsizer.quality import QualityReport

_IPV4 = re.compile(r"\d{1,3}(\.\d{1,3}){3}")
_PORT = re.compile(r"([^:]+):\d{1,5}")


def _host(name: str) -> str:
    """A name casefolded, without a trailing ``:port`` (``web01:9100`` -> ``web01``)."""
    key = str(name).strip().casefold()
    port = _PORT.fullmatch(key)
    return port.group(1) if port else key


def fold_name(name: str) -> str:
    """A server name compared loosely: casefolded, without its domain suffix.

    >>> fold_name("WEB01.Example.com")
    'web01'
    >>> fold_name("10.0.0.1:9100")
    '10.0.0.1'
    """
    key = _host(name)
    if _IPV4.fullmatch(key):
        return key
    return key.split(".", 1)[0] or key


@dataclass
class NameMatch:
    """Result of :func:`match_names`.

    ``pairs`` maps inventory name -> series name (exact and loose);
    ``loose`` lists the (inventory, series) pairs that differ; ``ambiguous``
    lists, per folded name, the inventory and series names that cannot be
    paired one to one.
    """

    pairs: dict[str, str] = field(default_factory=dict)
    loose: list[tuple[str, str]] = field(default_factory=list)
    ambiguous: list[tuple[list[str], list[str]]] = field(default_factory=list)


def loosely_equal(a: str, b: str) -> bool:
    """Same name ignoring case and a ``:port``, or one is the other without its
    domain suffix.

    ``web01`` ~ ``WEB01.example.com`` ~ ``web01:9100``, but ``web01.site-a`` !~
    ``web01.site-b`` (both carry a domain, and they differ).
    """
    fa, fb = _host(a), _host(b)
    if fa == fb:
        return True
    return ("." not in fa and fa == fold_name(fb)) or ("." not in fb and fb == fold_name(fa))


def match_names(inventory: Sequence[str], series: Sequence[str]) -> NameMatch:
    """Pair inventory names with series names, exactly or by :func:`loosely_equal`.

    Link every inventory name to every series name equal to it exactly or
    loosely. A connected set of names in which every name has its exact
    partner is matched exactly; a single link between two different names is a loose
    pair; any other connected set is ambiguous: two series for one server
    (``WEB01`` and ``web01.example.com`` for ``web01``, or ``web01`` and
    ``WEB01`` for ``web01``, where the exact pair would hide the other series)
    or one series for two servers. Order follows ``inventory``.
    """
    groups: dict[str, tuple[list[str], list[str]]] = {}
    for n in inventory:
        groups.setdefault(fold_name(n), ([], []))[0].append(n)
    for s in series:
        groups.setdefault(fold_name(s), ([], []))[1].append(s)
    out = NameMatch()
    for inv_names, ser_names in groups.values():
        for inv_set, ser_set, links in _components(inv_names, ser_names):
            if set(inv_set) == set(ser_set):  # every name has its exact partner
                out.pairs.update((n, n) for n in inv_set)
            elif len(links) == 1:
                out.loose.append(links[0])
            else:
                out.ambiguous.append((inv_set, ser_set))
    out.pairs.update(dict(out.loose))
    order = {n: i for i, n in enumerate(inventory)}
    out.pairs = dict(sorted(out.pairs.items(), key=lambda kv: order[kv[0]]))
    out.loose.sort(key=lambda pair: order[pair[0]])
    out.ambiguous.sort(key=lambda group: order[group[0][0]])
    return out


def _components(
    inv_names: list[str], ser_names: list[str]
) -> list[tuple[list[str], list[str], list[tuple[str, str]]]]:
    """Connected sets of linked names in one group: (inventory, series, links)."""
    links = [(i, s) for i in inv_names for s in ser_names if loosely_equal(i, s)]
    parent = {("i", i): ("i", i) for i in inv_names} | {("s", s): ("s", s) for s in ser_names}

    def find(x: tuple[str, str]) -> tuple[str, str]:
        while parent[x] != x:
            x = parent[x]
        return x

    for i, s in links:
        parent[find(("i", i))] = find(("s", s))
    out: dict[tuple[str, str], tuple[list[str], list[str], list[tuple[str, str]]]] = {}
    for i, s in links:
        comp = out.setdefault(find(("i", i)), ([], [], []))
        comp[2].append((i, s))
    for i in inv_names:
        if (root := find(("i", i))) in out:
            out[root][0].append(i)
    for s in ser_names:
        if (root := find(("s", s))) in out:
            out[root][1].append(s)
    return list(out.values())


def ambiguity_message(source: str, inv_names: list[str], ser_names: list[str]) -> str:
    """One line for an ambiguous group of :func:`match_names`."""
    inv = " and ".join(f"'{n}'" for n in inv_names)
    ser = " and ".join(f"'{s}'" for s in ser_names)
    if len(ser_names) > 1:
        verb = "both match" if len(ser_names) == 2 else "all match"
        plural = "s" if len(inv_names) > 1 else ""
        what = f"series names {ser} {verb} inventory server{plural} {inv}"
    else:
        verb = "both match" if len(inv_names) == 2 else "all match"
        what = f"inventory servers {inv} {verb} series name {ser}"
    return (
        f"series {source}: {what} once case, domain suffix and port are ignored; "
        "rename one in the series or the inventory so each server has exactly "
        "one series."
    )


def series_coverage(names: Sequence[str], without: set[str]) -> dict[str, Any]:
    """``{with_series, servers, fraction}`` for one pool; ``without`` = no series."""
    n = len(names)
    with_series = sum(1 for x in names if x not in without)
    return {
        "with_series": with_series,
        "servers": n,
        "fraction": round(with_series / n, 6) if n else None,
    }


def host_avg_cpu(
    host_mean: npt.NDArray[np.floating],
    assignment: npt.NDArray[np.int64],
    vm_curve_mean: npt.NDArray[np.floating],
    vm_avg_demand: npt.NDArray[np.floating],
    flat: npt.NDArray[np.bool_],
    capacity: float,
) -> npt.NDArray[np.floating]:
    """Average CPU utilization per host [fraction] with flat VMs at their average.

    A VM without a CPU series is placed on a flat curve at its peak; its
    energy is its inventory *average* demand, as in a plan without series.
    ``host_mean`` is each host's mean utilization over the curves; for every
    flat VM the difference (average - curve mean) / capacity is added to its
    host. Without flat VMs ``host_mean`` is returned unchanged.
    """
    if not flat.any():
        return np.asarray(host_mean)  # dtype kept: plans with full coverage unchanged
    out = np.asarray(host_mean, dtype=np.float64)
    delta = np.where(flat, np.nan_to_num(vm_avg_demand) - vm_curve_mean, 0.0)
    adj = np.zeros(len(out))
    np.add.at(adj, assignment, delta)
    return out + adj / capacity


#: A CPU series with values in fewer than this share of the grid's steps is short.
MIN_SERIES_COVERAGE = 0.5

#: A CPU series with values over less time than this is short whatever the grid:
#: a day is the shortest span that holds a daily business cycle and its peak.
MIN_SERIES_SPAN = pd.Timedelta(days=1)


def short_series(
    quality: QualityReport,
    names: Sequence[str],
    coverage: npt.NDArray[np.float64],
    has: npt.NDArray[np.bool_],
    grid: tuple[int, pd.Timedelta],
) -> npt.NDArray[np.bool_]:
    """Servers whose CPU series covers less than :data:`MIN_SERIES_COVERAGE` of
    the grid, or less than :data:`MIN_SERIES_SPAN` of time (``has``: they have
    one; ``grid``: its steps and step), warned as ``short_series``."""
    n_steps, step = grid
    covered = coverage * n_steps * (step / pd.Timedelta(hours=1))
    span_h = MIN_SERIES_SPAN / pd.Timedelta(hours=1)
    short = has & ((coverage < MIN_SERIES_COVERAGE) | (covered < span_h))
    if short.any():
        rows = np.flatnonzero(short).tolist()
        who = [str(names[i]) for i in rows]
        shares = ", ".join(
            f"'{names[i]}' {coverage[i]:.1%}, {_hours(covered[i])}" for i in rows[:5]
        )
        shares += f" and {len(who) - 5} more" if len(who) > 5 else ""
        quality.warn(
            "short_series",
            f"{len(who)} server(s) have a CPU series covering less than "
            f"{MIN_SERIES_COVERAGE:.0%} of the plan's {n_steps:,} steps or less than "
            f"{span_h:g} hours ({shares}); "
            "each keeps the larger of its inventory peak and its series peak "
            "(placed flat at the inventory peak where that is larger).",
            who,
        )
    return np.asarray(short)


def _hours(h: float) -> str:
    return f"{h * 60:.0f} min" if h < 1 else f"{h:.1f} h"


def coverage_warnings(
    quality: QualityReport,
    names: Sequence[str],
    inventory_only: Sequence[str],
    series_only: Sequence[str],
    loose: Sequence[tuple[str, str]],
) -> None:
    """Warnings for partial coverage, unplanned series and loose name matches."""
    if inventory_only:
        quality.warn(
            "partial_series_coverage",
            f"{len(inventory_only)} of {len(names)} servers have no series and are "
            f"placed at their inventory peak, a flat curve: {quoted_list(inventory_only)}. "
            "Hosts never exceed what the inventory alone would need unless a series "
            "shows more demand; give their series with --series to place them on "
            "their curves.",
            inventory_only,
        )
    if series_only:
        quality.warn(
            "series_not_in_inventory",
            f"{len(series_only)} series server(s) are not in the inventory and are "
            f"not planned: {quoted_list(series_only)}.",
            series_only,
        )
    if loose:
        pairs = ", ".join(f"'{n}' = '{s}'" for n, s in loose[:5])
        more = f" and {len(loose) - 5} more" if len(loose) > 5 else ""
        quality.warn(
            "series_name_matched_loosely",
            f"{len(loose)} series matched an inventory server only once case, "
            f"domain suffix and port are ignored (inventory = series): {pairs}{more}.",
            [n for n, _ in loose],
        )


def scalar_demand(
    flat: npt.NDArray[np.floating],
    cpu_col: int | None,
    cpu_capacity: npt.NDArray[np.floating],
    inventory_util: npt.NDArray[np.floating],
) -> npt.NDArray[np.float64]:
    """Each server's demand as a plan without series sizes it.

    ``flat`` (n, D) is the plan's flat demand (a server with a CPU series at
    its series peak); in column ``cpu_col`` a server whose inventory states a
    utilization (``inventory_util``, NaN if not) is put back at
    ``cpu_capacity`` x that utilization. Placement on curves also sizes the
    pool on this demand (at least each curve's peak) and keeps that placement
    when it needs fewer hosts
    (:func:`vsizer.placement.curve_sizing.peak_candidate`).
    """
    out = np.array(flat, dtype=np.float64, copy=True)
    if cpu_col is None:
        return out
    known = ~np.isnan(inventory_util) & ~np.isnan(cpu_capacity)
    out[known, cpu_col] = cpu_capacity[known] * inventory_util[known]
    return out
