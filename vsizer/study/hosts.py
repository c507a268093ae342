"""The host model of a plan: picked from a catalog, adjusted for platform
scenarios and Hyper-Threading, and its capacity per dimension."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pandas as pd

from vsizer.catalogs.host_catalog import HostCatalog, read_host_catalog
from vsizer.catalogs.model import HostModel
from vsizer.catalogs.normalize import host_cpu_capacity
from vsizer.errors import ConfigError
from vsizer.models.platform import SCENARIOS
from vsizer.placement.problem import IO_DIMS
from vsizer.quality import QualityReport
from vsizer.study.config import Rules


def resolve_host(
    hosts: HostModel | HostCatalog | str | Path | None, host_model: str | None
) -> tuple[HostModel, str]:
    """Pick the host model: a HostModel as is; a catalog (object or CSV path) and a
    model name (default: the catalog's default); or a model name in the shipped catalog.

    A host catalog CSV without ``host_model`` must list exactly one model,
    which is then used; with several models it is a
    :class:`~vsizer.errors.ConfigError` listing them (the shipped default is
    never taken silently in place of the user's hosts).
    """
    if isinstance(hosts, HostModel):
        return hosts, "given"
    if isinstance(hosts, HostCatalog):
        catalog, name = hosts, "given"
    elif hosts is not None and (Path(str(hosts)).suffix.lower() == ".csv"):
        catalog, name = read_host_catalog(hosts, merge=True), Path(str(hosts)).name
        if not host_model:
            own = read_host_catalog(hosts).models
            if len(own) > 1:
                raise ConfigError(
                    f"--hosts {name} lists {len(own)} host models: "
                    + "; ".join(own)
                    + f". Choose one with --host-model, e.g. --host-model "
                    f'"{own[0]}".'
                )
            host_model = own[0]
    else:
        catalog, name = read_host_catalog(), "builtin"
        if hosts is not None:
            host_model = str(hosts)
    model = catalog.get(host_model) if host_model else catalog.default
    return model, name


#: Hyper-Threading factor: the one published measurement (the X5570 scenario of
#: vsizer.models.platform, with its source), reused.
HT_SCENARIO = "hyperthreading-x5570"


def platform_adjustment(
    host: HostModel, rules: Rules
) -> tuple[HostModel, float, list[str]]:
    """Apply the rules' platform scenarios and Hyper-Threading choice to ``host``.

    Returns the host with its power scaled, the CPU capacity factor, and notes.
    Each named scenario multiplies CPU capacity by its published throughput
    ratio and applies its power change (ratio, or watts added at every load).
    ``hyperthreading="off"`` on a host with 2 threads per core divides capacity
    by 1.038 and power by 1.094 (the X5570 measurement inverted: catalog scores
    and power curves are measured with Hyper-Threading on); "on" on a host with
    one thread per core cannot add threads and is noted.
    """
    factor, ratio, delta = 1.0, 1.0, 0.0
    notes: list[str] = []
    for name in rules.platform:
        sc = SCENARIOS[name]
        factor *= sc.factor
        ratio *= sc.power_ratio or 1.0
        delta += sc.power_delta_w or 0.0
        notes.append(f"platform '{name}': CPU x {sc.factor:g} ({sc.source}).")
    if rules.hyperthreading == "off" and host.threads_per_core > 1:
        ht = SCENARIOS[HT_SCENARIO]
        factor /= ht.factor
        ratio /= ht.power_ratio or 1.0
        notes.append(
            f"Hyper-Threading off: CPU / {ht.factor:g}, power / {ht.power_ratio:g} "
            f"({ht.source})."
        )
    elif rules.hyperthreading == "on" and host.threads_per_core <= 1:
        notes.append(
            f"Hyper-Threading on was asked, but host model '{host.model}' has one "
            "thread per core; nothing changed."
        )
    if ratio != 1.0 or delta != 0.0:
        host = dataclasses.replace(
            host,
            power_idle_w=host.power_idle_w * ratio + delta,
            power_max_w=host.power_max_w * ratio + delta,
            power_curve_w=tuple(w * ratio + delta for w in host.power_curve_w)
            if host.power_curve_w
            else None,
        )
    return host, factor, notes


def host_capacity(
    host: HostModel,
    unit: str,
    rules: Rules,
    servers: pd.DataFrame,
    quality: QualityReport,
) -> dict[str, float]:
    """Capacity of one host per dimension: CPU in ``unit``, memory [GiB], vCPUs
    (cores x ``rules.vcpu_per_core``), and disk / network where the host model
    states them and the servers give them (warnings otherwise)."""
    capacity = {
        "cpu": host_cpu_capacity(host, unit)
        * max(0.0, 1.0 - host.cpu_reserve_cores / host.cores),
        "mem": float(host.mem_gib),
        # "today" is resolved to a number first (vsizer.study.baseline)
        "vcpu": host.cores * float(rules.vcpu_per_core),
    }
    unconstrained = []
    for dim in IO_DIMS:
        host_value = getattr(host, dim, None)
        given = int(servers[dim].notna().sum()) if dim in servers else 0
        if given and host_value:
            capacity[dim] = float(host_value)
            missing = len(servers) - given
            if missing and not any(
                w.code == f"unchecked_{dim}" for w in quality.warnings
            ):
                quality.warn(
                    f"missing_{dim}",
                    f"{missing} server(s) have no {dim}; they count as 0 in that "
                    "dimension.",
                    servers.loc[servers[dim].isna(), "name"].astype(str).tolist(),
                )
        elif given:
            unconstrained.append(f"{dim} ({given} servers)")
    if unconstrained:
        quality.warn(
            "unconstrained_dimension",
            f"not constrained: {', '.join(unconstrained)}: host model '{host.model}' "
            "states no capacity for them (add disk_iops / disk_mb_s / net_mbps to its "
            "host catalog row to place on them; totals are still reported)."
        )
    return capacity
