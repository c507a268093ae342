"""CPU and host catalogs, their importers, CPU normalization and source-server power.

Shipped data (``vsizer/catalogs/data``, rebuilt by ``scripts/build_catalogs.py``):
``cpus.csv`` (per-core scores), ``hosts.csv`` (host models),
``server_power.csv`` (published power of server models),
``server_power_by_chips.csv`` (assumed power by chip count),
``score_bridge.csv`` (CPUs measured in two SPEC suites) and
``score_ranges.csv`` (plausible per-core range of each score basis).
"""

from __future__ import annotations

from vsizer.catalogs._csv import write_catalog_csv
from vsizer.catalogs.cpu_catalog import CPU_COLUMNS, CpuCatalog, read_cpu_catalog
from vsizer.catalogs.host_catalog import (
    CURRENT_HOST_MODELS,
    DEFAULT_HOST_MODEL,
    HOST_COLUMNS,
    HostCatalog,
    read_host_catalog,
    resolve_cpu_scores,
)
from vsizer.catalogs.import_spec import SPEC_CPU2017_BASIS, import_spec_cpu2017
from vsizer.catalogs.import_spec2006 import SPEC_CPU2006_BASIS, import_cint2006rate
from vsizer.catalogs.import_specpower import import_specpower, read_specpower_results
from vsizer.catalogs.model import UNSTATED_BASIS, CpuEntry, HostModel
from vsizer.catalogs.normalize import MHZ_UNIT, host_cpu_capacity, normalize_cpu
from vsizer.catalogs.score_bridge import Bridge, bridge, score_range_problems
from vsizer.catalogs.server_power import (
    ServerPowerCatalog,
    ServerPowerEntry,
    estimate_server_power,
    read_server_power_catalog,
)

__all__ = [
    "CPU_COLUMNS",
    "CURRENT_HOST_MODELS",
    "DEFAULT_HOST_MODEL",
    "HOST_COLUMNS",
    "MHZ_UNIT",
    "SPEC_CPU2006_BASIS",
    "SPEC_CPU2017_BASIS",
    "UNSTATED_BASIS",
    "Bridge",
    "CpuCatalog",
    "CpuEntry",
    "HostCatalog",
    "HostModel",
    "ServerPowerCatalog",
    "ServerPowerEntry",
    "bridge",
    "estimate_server_power",
    "host_cpu_capacity",
    "import_cint2006rate",
    "import_spec_cpu2017",
    "import_specpower",
    "normalize_cpu",
    "read_cpu_catalog",
    "read_host_catalog",
    "read_server_power_catalog",
    "read_specpower_results",
    "resolve_cpu_scores",
    "score_range_problems",
    "write_catalog_csv",
]
