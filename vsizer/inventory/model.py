"""The normalized server list every reader returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from vsizer.quality import QualityReport

#: Canonical inventory columns, their dtype and unit (docs/nomenclature.md).
COLUMNS: dict[str, tuple[str, str]] = {
    "name": ("string", "server or VM name, unique"),
    "model": ("string", "server model (機種名)"),
    "cpu_name": ("string", "CPU model name (CPU名)"),
    "sockets": ("Int64", "CPU sockets (CPU数)"),
    "cores_per_socket": ("Int64", "cores per socket (コア数/CPU)"),
    "vcpus": ("Int64", "vCPUs the VM gets; default sockets x cores_per_socket"),
    "cpu_score_per_core": ("Float64", "per-core CPU benchmark score [score]"),
    "cpu_score_basis": ("string", "benchmark the score is in, e.g. SPECint2000"),
    "cpu_mhz": ("Float64", "nominal clock [MHz]"),
    "cpu_avg_util": ("Float64", "average CPU utilization [fraction]"),
    "cpu_peak_util": ("Float64", "peak CPU utilization [fraction]"),
    "mem_gib": ("Float64", "configured memory [GiB]"),
    "mem_used_gib": ("Float64", "memory in use [GiB]"),
    "disk_gib": ("Float64", "disk capacity [GiB]"),
    "disk_used_gib": ("Float64", "disk in use [GiB]"),
    "disk_iops": ("Float64", "disk I/O operations per second [IOPS]"),
    "disk_mb_s": ("Float64", "disk throughput [MB/s]"),
    "net_mbps": ("Float64", "network throughput [Mbit/s]"),
    "power_w": ("Float64", "measured or rated average power draw [W]"),
    "rack_u": ("Float64", "rack units the server occupies [U]"),
    "rank": ("string", "importance rank, e.g. A/B/C"),
    "load_rank": ("string", "load rank, e.g. A/B/C"),
    "group": ("string", "system the server belongs to"),
    "pool": ("string", "resource pool"),
    "redundant_with": ("string", "names of redundancy partners, ';'-separated"),
    "migrate": ("boolean", "whether the server is to be migrated"),
    "pin_host": ("string", "host id the VM must run on, e.g. 'production-01'"),
    "os": ("string", "operating system"),
}

#: Columns of :attr:`Inventory.hosts_before`, their dtype and unit.
HOST_COLUMNS: dict[str, tuple[str, str]] = {
    "name": ("string", "host name as the source lists it"),
    "cluster": ("string", "cluster of the host"),
    "model": ("string", "server vendor and model"),
    "cpu_name": ("string", "CPU model name"),
    "sockets": ("Int64", "CPU sockets"),
    "cores": ("Int64", "physical cores"),
    "cpu_mhz": ("Float64", "nominal clock [MHz]"),
    "mem_gib": ("Float64", "physical memory [GiB]"),
    "cpu_util": ("Float64", "CPU usage at export [fraction of cores x clock]"),
    "mem_util": ("Float64", "memory usage at export [fraction]"),
    "vms": ("Int64", "powered-on VMs of the inventory matched to this host"),
}


@dataclass
class Inventory:
    """A server list read from one file.

    Attributes
    ----------
    servers : DataFrame
        One row per server to plan, canonical columns of :data:`COLUMNS`
        (absent ones all-NA), in file order.
    excluded : DataFrame
        Servers read but not planned, columns ``name`` and ``reason``.
    quality : QualityReport
        Provenance of every field of every server.
    source : str
        The file path as given.
    source_format : str
        'table', 'rvtools' or 'azure_migrate'.
    metadata : dict
        Reader-specific facts (sheet used, header mapping, RVTools version layout...).
    hosts_before : DataFrame or None
        For a virtualized source whose hosts are known (RVTools vHost): the
        hosts the VMs run on today, one row each, columns of
        :data:`HOST_COLUMNS`. None for a list of physical servers.
    """

    servers: pd.DataFrame
    excluded: pd.DataFrame
    quality: QualityReport
    source: str
    source_format: str
    metadata: dict[str, Any] = field(default_factory=dict)
    hosts_before: pd.DataFrame | None = None

    def __len__(self) -> int:
        return len(self.servers)


def empty_frame(n: int = 0) -> pd.DataFrame:
    """A frame with every canonical column, all-NA, ``n`` rows."""
    return pd.DataFrame(
        {c: pd.Series([pd.NA] * n, dtype=dt) for c, (dt, _) in COLUMNS.items()}
    )
