"""Storage of a plan, per pool: capacity provisioned and used, thin-provisioning
ratio, protection overhead, slack, raw capacity required, IOPS and MB/s at the
peak with the RAID write penalty, and on hyperconverged hosts the host count the
disks alone need (:mod:`vsizer.models.storage` for the arithmetic).

The section exists when the inventory gives disk capacity for at least one
server (``disk_gib`` or ``disk_used_gib``); otherwise :func:`plan_storage`
returns None and the plan document has no ``storage`` key.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from vsizer._jsonable import jsonable as _r
from vsizer.models.disk import throughput_ratio
from vsizer.models.storage import (
    Protection,
    backend_iops,
    hosts_for_storage,
    protection,
    required_raw_gib,
    thin_ratio,
)
from vsizer.study.config import Rules

if TYPE_CHECKING:
    from vsizer.study.results import PoolResult

#: Read share assumed when neither the rules nor the inventory give one: the
#: 67 %-read database and file-server access specifications of the disk model
#: (:func:`vsizer.models.disk.throughput_ratio`, DESIGN §6.2).
DEFAULT_READ_SHARE = 0.67
#: Protection when the rules name none, per storage mode.
DEFAULT_PROTECTION = {"external": "raid5", "hyperconverged": "mirror"}
#: Queue depth of the virtual-disk ratios: 1, the lowest measured (conservative).
_QUEUE_DEPTH = 1


@dataclass(frozen=True)
class StoragePool:
    """Storage of one pool (sizes [GiB], rates at the peak)."""

    name: str
    vms: int
    vms_with_disk: int
    vms_used_assumed: int
    provisioned_gib: float
    used_gib: float
    thin_ratio: float | None
    data_gib: float
    required_raw_gib: float
    # None when no server of the pool gives the figure: unknown is not zero
    iops_peak: float | None
    mb_s_peak: float | None
    write_iops_backend: float | None
    iops_backend: float | None
    mb_s_array: float | None
    hosts_planned: int
    hosts_for_storage: int | None


@dataclass(frozen=True)
class StorageReport:
    """The plan's storage: parameters in force and one :class:`StoragePool` per pool."""

    mode: str
    protection: Protection
    provisioning: str
    slack: float
    read_share: float
    read_share_source: str
    host_raw_gib: float | None
    mb_s_ratio: float
    pools: tuple[StoragePool, ...]
    notes: tuple[str, ...] = field(default=())

    def assumptions(self) -> list[str]:
        """What the storage figures assumed rather than read, one line each (the
        plan's ``storage_assumed`` warnings)."""
        out = list(self.notes)
        if self.read_share_source.startswith("assumed"):
            out.append(f"storage: read share {self.read_share_source}; give --read-share")
        return out

    def to_dict(self) -> dict[str, Any]:
        """The ``storage`` section of the plan document (docs/plan-schema.md)."""
        p = self.protection
        pools = [{k: _r(v) for k, v in vars(sp).items()} for sp in self.pools]
        return {
            "mode": self.mode,
            "protection": p.name,
            "overhead_factor": _r(p.overhead_factor),
            "write_penalty": p.write_penalty,
            "min_fault_domains": p.min_fault_domains,
            "provisioning": self.provisioning,
            "slack": _r(self.slack),
            "read_share": _r(self.read_share),
            "read_share_source": self.read_share_source,
            "host_raw_gib": _r(self.host_raw_gib),
            "mb_s_virtual_ratio": _r(self.mb_s_ratio),
            "pools": pools,
            "totals": _totals(pools),
            "notes": list(self.notes),
        }


def _totals(pools: list[dict[str, Any]]) -> dict[str, Any]:
    keys = ("provisioned_gib", "used_gib", "data_gib", "required_raw_gib", "iops_peak",
            "mb_s_peak", "write_iops_backend", "iops_backend", "mb_s_array")
    total = {k: _sum_known([p[k] for p in pools]) for k in keys}
    used = total["used_gib"]
    total["thin_ratio"] = _r(total["provisioned_gib"] / used) if used else None
    return total


def _sum_known(values: list[Any]) -> Any:
    """Sum of the figures given; None when none is (unknown is not zero)."""
    known = [v for v in values if v is not None]
    return _r(sum(known)) if known else None


def has_disk_capacity(servers: pd.DataFrame) -> bool:
    """Whether any server gives its disk capacity (provisioned or used)."""
    cols = [c for c in ("disk_gib", "disk_used_gib") if c in servers]
    return bool(cols) and bool(servers[cols].notna().to_numpy().any())


def plan_storage(
    servers: pd.DataFrame, pools: Sequence[PoolResult], rules: Rules
) -> StorageReport | None:
    """The storage of a plan; None when no server gives its disk capacity.

    Parameters
    ----------
    servers : DataFrame
        The plan's servers (``disk_gib``, ``disk_used_gib``, ``disk_iops``,
        ``disk_mb_s``, ``pool``).
    pools : sequence of PoolResult
        The sized pools (host count, failures, demand curves when on series).
    rules : Rules
        ``storage_mode``, ``protection``, ``ftt``, ``provisioning``,
        ``thin_ratio``, ``slack``, ``host_raw_gib``, ``read_share``.
    """
    if not has_disk_capacity(servers):
        return None
    prot = protection(rules.protection or DEFAULT_PROTECTION[rules.storage_mode], rules.ftt)
    read, source = (
        (rules.read_share, "rules") if rules.read_share is not None
        else (DEFAULT_READ_SHARE, "assumed: 67 % read (database and file-server access "
                               "specifications of the disk model)")
    )
    mb_s_ratio = min(
        float(throughput_ratio(_QUEUE_DEPTH, spec, "file"))
        for spec in ("sequential_read", "sequential_write")
    )
    notes: list[str] = []
    raw_per_host = rules.host_raw_gib if rules.storage_mode == "hyperconverged" else None
    if rules.storage_mode == "hyperconverged" and raw_per_host is None:
        notes.append("hyperconverged without host_raw_gib (--host-raw-gib): the "
                     "storage-bound host count is not computed")
    out = []
    for pr in pools:
        rows = servers[(servers["pool"] == pr.name).to_numpy()]
        out.append(_pool(pr, rows, rules, prot, read, mb_s_ratio, raw_per_host))
    assumed = sum(p.vms_used_assumed for p in out)
    if assumed:
        how = (f"provisioned / thin_ratio {rules.thin_ratio:g}" if rules.thin_ratio
               else "their provisioned size")
        notes.append(f"{assumed} VM(s) with no used disk space count at {how}")
    return StorageReport(
        mode=rules.storage_mode, protection=prot, provisioning=rules.provisioning,
        slack=rules.slack, read_share=read, read_share_source=source,
        host_raw_gib=raw_per_host, mb_s_ratio=mb_s_ratio, pools=tuple(out),
        notes=tuple(notes),
    )


def _column(rows: pd.DataFrame, name: str) -> np.ndarray:
    if name not in rows:
        return np.full(len(rows), np.nan)
    return rows[name].astype(float).to_numpy()


def _pool(
    pr: PoolResult,
    rows: pd.DataFrame,
    rules: Rules,
    prot: Protection,
    read: float,
    mb_s_ratio: float,
    raw_per_host: float | None,
) -> StoragePool:
    """One pool's storage (see :func:`plan_storage`)."""
    prov, used = _column(rows, "disk_gib"), _column(rows, "disk_used_gib")
    has_prov = ~np.isnan(prov)
    assumed = np.isnan(used) & has_prov
    guess = prov / rules.thin_ratio if rules.thin_ratio else prov
    used_all = np.where(assumed, guess, used)
    # a VM giving only its used space is provisioned at least that much
    prov_all = np.where(has_prov, prov, used)
    provisioned = float(np.nansum(prov_all))
    used_gib = float(np.nansum(used_all))
    data = used_gib if rules.provisioning == "thin" else provisioned
    raw = required_raw_gib(data, prot.overhead_factor, rules.slack)
    iops = _peak(pr, rows, "disk_iops")
    mb_s = _peak(pr, rows, "disk_mb_s")
    backend, writes = (
        backend_iops(iops, read, prot.write_penalty) if iops is not None
        else (None, None)
    )
    hosts = pr.sizing.placement.n_hosts
    bound = (
        hosts_for_storage(raw, raw_per_host, pr.failures, prot.min_fault_domains)
        if raw_per_host is not None else None
    )
    return StoragePool(
        name=pr.name, vms=len(rows),
        vms_with_disk=int((has_prov | ~np.isnan(used)).sum()),
        vms_used_assumed=int(assumed.sum()),
        provisioned_gib=provisioned, used_gib=used_gib,
        thin_ratio=thin_ratio(provisioned, used_gib), data_gib=data,
        required_raw_gib=raw, iops_peak=iops, mb_s_peak=mb_s,
        write_iops_backend=writes, iops_backend=backend,
        mb_s_array=None if mb_s is None else mb_s / mb_s_ratio, hosts_planned=hosts, hosts_for_storage=bound,
    )


def _peak(pr: PoolResult, rows: pd.DataFrame, dim: str) -> float | None:
    """The pool's peak of ``dim``: the highest step of the summed demand curves
    when the pool was placed on curves with that dimension, else the sum of the
    servers' figures (each its own peak: an upper bound); None when no server
    of the pool gives the figure (an export without IOPS has unknown IOPS, not
    zero)."""
    problem = pr.problem
    if pr.vm_curves is not None and problem is not None and dim in problem.dims:
        d = problem.dims.index(dim)
        return float(pr.vm_curves[:, :, d].sum(axis=0).max(initial=0.0))
    values = _column(rows, dim)
    if np.isnan(values).all():
        return None
    return float(np.nansum(values))
