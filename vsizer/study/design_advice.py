"""The design's decisions as plan sections: the storage choice for each pool and
hardware advice checked against the chosen host model (issue 28).

``storage_choice``: DAS / NAS / iSCSI / FC SAN ranked by
:func:`vsizer.models.published.storage_choice` for each pool's host count
(performance first; DAS only for a one-host pool: the hosts of a pool share
their VMs' disks).

``hardware_advice``: one line per rule, each ``holds`` or ``consider``:

- **blades**: four or more hosts -> consider a blade enclosure (vsizer's
  threshold from the design method; the enclosure shares power supplies and
  fans, ``vsizer model blade-power``);
- **cores over clock**: a catalog model of the same sockets with more cores per
  socket at a lower clock and no more maximum power;
- **low power first**: a catalog model of the same sockets, at least the chosen
  model's CPU capacity and lower maximum power (the published L5520 / E5405
  blade pair: 135 W / 79 W against 224 W / 162 W).

Capacity compares per-core scores when both models have one on the same basis,
else cores x MHz (stated in the line).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from vsizer.catalogs.host_catalog import read_host_catalog
from vsizer.catalogs.model import HostModel
from vsizer.models.published import SOURCE_BLADE, SOURCE_STORAGE, storage_choice

if TYPE_CHECKING:
    from vsizer.study.plan_result import PlanResult

__all__ = ["BLADE_MIN_HOSTS", "design_advice_doc", "hardware_advice", "storage_choice_doc"]

#: Hosts from which a blade enclosure is worth considering.
BLADE_MIN_HOSTS = 4

SOURCE_CORES = (
    "published Hyper-V WordPress measurement (2 x Xeon X5570, 1-vCPU VMs): "
    "Hyper-Threading +3.8 % throughput for +9.4 % power; 2 x Opteron 2435 (12 cores) "
    "within about 4 % of the Xeons (8 cores / 16 threads) at 16-18 % less power"
)


def design_advice_doc(plan: PlanResult) -> dict[str, Any]:
    """The plan's ``storage_choice`` and ``hardware_advice`` sections; the advice
    is checked against vsizer's shipped host catalog."""
    pools = [(pr.name, pr.sizing.n_hosts) for pr in plan.pools]
    return {
        "storage_choice": storage_choice_doc(pools),
        "hardware_advice": hardware_advice(plan.host, plan.economics.hosts,
                                           _shipped_hosts()),
    }


@functools.cache
def _shipped_hosts() -> tuple[HostModel, ...]:
    return tuple(read_host_catalog())


def storage_choice_doc(pools: Iterable[tuple[str, int]]) -> dict[str, Any]:
    """The ``storage_choice`` section: per ``(pool name, hosts)`` the eligible
    storage types best first, the excluded ones with the reason.

    >>> d = storage_choice_doc([("p", 3), ("q", 1)])
    >>> [(p["pool"], p["choice"], p["order"]) for p in d["pools"]]
    [('p', 'FC SAN', ['FC SAN', 'NAS', 'iSCSI']), ('q', 'FC SAN', ['FC SAN', 'NAS', 'iSCSI', 'DAS'])]
    """
    rows = []
    for name, hosts in pools:
        res = storage_choice(hosts=max(int(hosts), 1), prefer="performance")
        rows.append({
            "pool": name, "hosts": int(hosts), "choice": res["choice"],
            "order": [r["type"] for r in res["ranking"] if r["eligible"]],
            "excluded": [{"type": r["type"], "reason": r["reason"]}
                         for r in res["ranking"] if not r["eligible"]],
        })
    return {"ranked_by": "performance, then ease", "not_ranked": ["cost", "scale"],
            "pools": rows, "source": SOURCE_STORAGE}


def hardware_advice(
    host: HostModel, hosts: int, catalog: Sequence[HostModel]
) -> list[dict[str, str]]:
    """The advice lines for ``host`` chosen ``hosts`` times, against ``catalog``."""
    return [_blades(host, hosts), _cores(host, catalog), _low_power(host, catalog)]


def _line(code: str, holds: bool, message: str, source: str) -> dict[str, str]:
    return {"code": code, "status": "holds" if holds else "consider",
            "message": message, "source": source}


def _blades(host: HostModel, hosts: int) -> dict[str, str]:
    blade = "blade" in host.model.lower()
    if hosts < BLADE_MIN_HOSTS:
        msg = f"{hosts} host(s), fewer than {BLADE_MIN_HOSTS}: rack servers"
        return _line("blades", True, msg, SOURCE_BLADE)
    if blade:
        msg = f"{hosts} hosts, {BLADE_MIN_HOSTS} or more: the chosen {host.model} is a blade"
        return _line("blades", True, msg, SOURCE_BLADE)
    msg = (f"{hosts} hosts, {BLADE_MIN_HOSTS} or more: consider blades (shared power and "
           f"cooling, vsizer model blade-power) instead of {host.model}")
    return _line("blades", False, msg, SOURCE_BLADE)


def _cores(host: HostModel, catalog: Sequence[HostModel]) -> dict[str, str]:
    better = [m for m in catalog if m.sockets == host.sockets
              and m.cores_per_socket > host.cores_per_socket and m.cpu_mhz < host.cpu_mhz
              and m.power_max_w <= host.power_max_w]
    mine = f"{host.model}: {host.cores_per_socket} cores per socket at {host.cpu_mhz:g} MHz"
    if not better:
        return _line("cores_over_clock", True, f"{mine}; no catalog model of "
                     f"{host.sockets} sockets has more cores at a lower clock and no more "
                     "maximum power", SOURCE_CORES)
    b = max(better, key=lambda m: (m.cores_per_socket, -m.power_max_w, m.model))
    return _line("cores_over_clock", False, f"{mine}; consider {b.model}: "
                 f"{b.cores_per_socket} cores per socket at {b.cpu_mhz:g} MHz, "
                 f"{b.power_max_w:g} W max", SOURCE_CORES)


def _capacity(a: HostModel, b: HostModel) -> tuple[float, float, str]:
    """CPU capacity of ``a`` and ``b`` on a common measure, and its name."""
    if (a.cpu_score_per_core and b.cpu_score_per_core
            and a.cpu_score_basis == b.cpu_score_basis):
        return (a.sockets * a.cores_per_socket * a.cpu_score_per_core,
                b.sockets * b.cores_per_socket * b.cpu_score_per_core, a.cpu_score_basis)
    return (a.sockets * a.cores_per_socket * a.cpu_mhz,
            b.sockets * b.cores_per_socket * b.cpu_mhz, "cores x MHz")


def _low_power(host: HostModel, catalog: Sequence[HostModel]) -> dict[str, str]:
    better = []
    for m in catalog:
        if m.sockets != host.sockets or m.power_max_w >= host.power_max_w:
            continue
        mine, theirs, measure = _capacity(host, m)
        if theirs >= mine:
            better.append((m.power_max_w, m.model, m, measure))
    mine_text = (f"{host.model}: {host.power_max_w:g} W max / {host.power_idle_w:g} W idle")
    if not better:
        return _line("low_power_first", True, f"{mine_text}; no catalog model of "
                     f"{host.sockets} sockets has at least its CPU capacity at lower "
                     "maximum power", SOURCE_BLADE)
    _, _, b, measure = min(better, key=lambda t: (t[0], t[1]))
    return _line("low_power_first", False, f"{mine_text}; consider {b.model}: "
                 f"{b.power_max_w:g} W max / {b.power_idle_w:g} W idle at no less CPU "
                 f"capacity ({measure})", SOURCE_BLADE)
