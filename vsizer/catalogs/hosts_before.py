"""Power and rack space of the hosts a virtualized inventory runs on today.

For a virtualized source (RVTools), "before" is the existing hypervisor hosts,
not the VMs: each VM would otherwise be costed as a physical server. Each host
(:attr:`vsizer.inventory.model.Inventory.hosts_before`) is costed like a
physical server by :func:`vsizer.catalogs.server_power.estimate_server_power`
at its measured CPU usage:

- power: its vendor and model in the SPECpower catalog (derived), else the
  median idle and full-load watts of published single-node SPECpower_ssj2008
  results with its chip count (assumed, warned);
- utilization: the host's CPU usage at export (vHost ``CPU usage %``), else
  ``assume_util`` (assumed, warned);
- rack units: the host catalog's ``rack_u`` when the model is in it, else
  :data:`DEFAULT_RACK_U` (assumed, warned).

References
----------
.. [1] SPEC, "SPECpower_ssj2008," https://www.spec.org/power_ssj2008/.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pandas as pd

from vsizer.catalogs.host_catalog import HostCatalog, read_host_catalog
from vsizer.catalogs.server_power import ServerPowerCatalog, estimate_server_power
from vsizer.quality import QualityReport

__all__ = ["DEFAULT_RACK_U", "estimate_hosts_before", "vm_power_on_hosts"]

#: Rack units of a source host whose model gives none [U]: the common 2-socket
#: virtualization server (e.g. HPE ProLiant DL380, Dell PowerEdge R7x0) is 2U.
DEFAULT_RACK_U = 2.0


def estimate_hosts_before(
    hosts: pd.DataFrame,
    power_catalog: ServerPowerCatalog | None,
    quality: QualityReport,
    *,
    assume_util: float = 1.0,
    host_catalog: HostCatalog | None = None,
) -> pd.DataFrame:
    """Power [W] and rack units [U] of every source host.

    Parameters
    ----------
    hosts : DataFrame
        :data:`vsizer.inventory.model.HOST_COLUMNS`.
    power_catalog : ServerPowerCatalog, optional
        None: the shipped ``server_power.csv``.
    quality : QualityReport
        Receives the warnings (codes ``assumed_host_power``,
        ``assumed_host_cpu_util``, ``assumed_host_rack_u``).
    assume_util : float, default 1.0
        CPU utilization [fraction] of a host whose usage is unknown.
    host_catalog : HostCatalog, optional
        Where a host model's ``rack_u`` is looked up (None: the shipped one).

    Returns
    -------
    DataFrame
        A copy of ``hosts`` with ``power_w``, ``power_source`` ('catalog' |
        'assumed'), ``power_note``, ``rack_u`` and ``rack_source``
        ('catalog' | 'assumed').
    """
    out = hosts.reset_index(drop=True).copy()
    frame = pd.DataFrame({
        "name": out["name"], "model": out["model"], "sockets": out["sockets"],
        "cpu_avg_util": out["cpu_util"],
    })
    pw = estimate_server_power(frame, power_catalog, None, assume_util=assume_util)
    out["power_w"] = pw["power_w"].to_numpy(dtype=float)
    out["power_source"] = pw["power_source"].to_numpy()
    out["power_note"] = pw["power_note"].to_numpy()
    names = out["name"].astype(str).tolist()
    assumed = [n for n, s in zip(names, out["power_source"], strict=True)
               if s == "assumed"]
    if assumed:
        quality.warn(
            "assumed_host_power",
            f"{len(assumed)} source host(s) have a model not in the SPECpower catalog "
            "(or none): their power is the median idle and full-load watts of "
            "published single-node SPECpower_ssj2008 results with the same chip "
            "count (https://www.spec.org/power_ssj2008/), linear in utilization.",
            assumed,
        )
    no_util = [n for n, u in zip(names, out["cpu_util"], strict=True) if pd.isna(u)]
    if no_util:
        quality.warn(
            "assumed_host_cpu_util",
            f"CPU usage of {len(no_util)} source host(s) unknown: {assume_util:g} "
            "assumed for their power (scenario setting [sizing] assume_util).",
            no_util,
        )
    rack, source = _rack_units(out, host_catalog)
    out["rack_u"], out["rack_source"] = rack, source
    no_rack = [n for n, s in zip(names, source, strict=True) if s == "assumed"]
    if no_rack:
        quality.warn(
            "assumed_host_rack_u",
            f"rack units of {len(no_rack)} source host(s) unknown: "
            f"{DEFAULT_RACK_U:g} U assumed each.",
            no_rack,
        )
    return out


def _rack_units(
    hosts: pd.DataFrame, catalog: HostCatalog | None
) -> tuple[np.ndarray, np.ndarray]:
    rack = np.full(len(hosts), DEFAULT_RACK_U)
    source = np.full(len(hosts), "assumed", dtype=object)
    if catalog is None:
        catalog = _shipped_host_catalog()
    for i, model in enumerate(hosts["model"]):
        if pd.notna(model) and str(model) in catalog:
            rack[i], source[i] = float(catalog.get(str(model)).rack_u), "catalog"
    return rack, source


@lru_cache(maxsize=1)
def _shipped_host_catalog() -> HostCatalog:
    return read_host_catalog()


def vm_power_on_hosts(
    servers: pd.DataFrame, quality: QualityReport, *, hosts_known: bool = True
) -> pd.DataFrame:
    """Per-VM power of a virtualized source: none of its own, the "before"
    power is the hosts' (``hosts_known``) or unknown. Recorded as derived."""
    note = ("a VM: the before power is its source hosts' (before.hosts)" if hosts_known
            else "a VM whose hosts are unknown: no power before")
    for name in servers["name"].astype(str):
        quality.record(name, "power_w", "derived", note)
    n = len(servers)
    return pd.DataFrame(
        {"power_w": np.full(n, np.nan), "power_source": np.full(n, "host", dtype=object),
         "power_note": np.full(n, "counted on the source hosts", dtype=object)},
        index=servers.index,
    )


#: Host fields in the plan JSON's ``before.hosts``, in order.
BEFORE_FIELDS = (
    "name", "cluster", "model", "cpu_name", "sockets", "cores", "cpu_mhz",
    "mem_gib", "cpu_util", "vms", "power_w", "power_source", "rack_u",
)


def _json(x: object) -> object:
    if x is None or x is pd.NA or (isinstance(x, float) and np.isnan(x)):
        return None
    if isinstance(x, (np.integer, int)) and not isinstance(x, bool):
        return int(x)
    if isinstance(x, (np.floating, float)):
        v = round(float(x), 6)
        return 0.0 if v == 0 else v
    return str(x)


def before_summary(before: pd.DataFrame) -> dict[str, object]:
    """The plan JSON's ``before`` section: the hosts and their totals."""
    hosts = [
        {f: _json(row.get(f)) for f in BEFORE_FIELDS}
        for row in before.to_dict("records")
    ]
    sources = before["power_source"].value_counts()
    return {
        "hosts_count": len(before),
        "cores": int(pd.to_numeric(before["cores"]).fillna(0).sum()),
        "vms": int(pd.to_numeric(before["vms"]).fillna(0).sum()),
        "power_w": _json(float(before["power_w"].astype(float).sum())),
        "rack_u": _json(float(before["rack_u"].astype(float).sum())),
        "power_from": {k: int(sources.get(k, 0)) for k in ("catalog", "assumed")},
        "hosts": hosts,
    }
