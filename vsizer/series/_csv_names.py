"""Column and metric names of the generic CSV series formats (long and wide).

Shared by :mod:`vsizer.series.tabular` (long) and :mod:`vsizer.series.wide`:
the metric aliases (:data:`VARIABLE_MAP`), the header aliases of the long
format and the time column (:data:`COLUMN_ALIASES`), and the folding and
``name (unit)`` splitting that match headers against them.
"""

from __future__ import annotations

import re

from vsizer.series.model import METRICS
from vsizer.units import canonical_unit, normalize_text

__all__ = [
    "COLUMN_ALIASES",
    "VARIABLE_MAP",
    "column_roles",
    "fold",
    "resolve_metric",
    "split_unit",
]

#: Metric name or alias (casefolded, spaces and '-' as '_') -> (metric, unit it implies).
VARIABLE_MAP: dict[str, tuple[str, str | None]] = {
    **{m: (m, None) for m in METRICS},
    # CPU
    "cpu": ("cpu_util", None),
    "cpu_usage": ("cpu_util", None),
    "cpu_utilization": ("cpu_util", None),
    "cpu_utilisation": ("cpu_util", None),
    "cpu_used": ("cpu_util", None),
    "cpu_busy": ("cpu_util", None),
    "cpu_pct": ("cpu_util", "%"),
    "cpu_percent": ("cpu_util", "%"),
    "cpu_util_percent": ("cpu_util", "%"),
    "cpu_usage_percent": ("cpu_util", "%"),
    "%cpu": ("cpu_util", "%"),
    "cpu%": ("cpu_util", "%"),
    "cpu_fraction": ("cpu_util", "fraction"),
    "cpu_ratio": ("cpu_util", "fraction"),
    "cpu使用率": ("cpu_util", None),
    "cpu_capacity": ("cpu_capacity_mhz", None),
    # memory
    "mem_pct": ("mem_util", "%"),
    "mem_percent": ("mem_util", "%"),
    "mem_util_percent": ("mem_util", "%"),
    "memory_util": ("mem_util", None),
    "memory_utilization": ("mem_util", None),
    "memory_percent": ("mem_util", "%"),
    "%mem": ("mem_util", "%"),
    "メモリ使用率": ("mem_util", None),
    "mem": ("mem_used_gib", None),
    "memory": ("mem_used_gib", None),
    "mem_used": ("mem_used_gib", None),
    "memory_used": ("mem_used_gib", None),
    "mem_used_bytes": ("mem_used_gib", "B"),
    "mem_used_kb": ("mem_used_gib", "KB"),
    "mem_used_mb": ("mem_used_gib", "MB"),
    "mem_used_mib": ("mem_used_gib", "MiB"),
    "mem_used_gb": ("mem_used_gib", "GB"),
    "mem_total": ("mem_capacity_gib", None),
    "memory_total": ("mem_capacity_gib", None),
    "mem_capacity": ("mem_capacity_gib", None),
    "mem_total_bytes": ("mem_capacity_gib", "B"),
    "mem_total_mb": ("mem_capacity_gib", "MB"),
    "mem_total_gb": ("mem_capacity_gib", "GB"),
    # disk
    "iops": ("disk_iops", "count"),
    "disk_ops": ("disk_iops", "count"),
    "disk_io": ("disk_iops", "count"),
    "disk_throughput": ("disk_mb_s", None),
    "disk_bytes_s": ("disk_mb_s", "B/s"),
    "disk_bytes_per_sec": ("disk_mb_s", "B/s"),
    "disk_kb_s": ("disk_mb_s", "kB/s"),
    # network
    "net": ("net_mbps", None),
    "network": ("net_mbps", None),
    "net_throughput": ("net_mbps", None),
    "net_bps": ("net_mbps", "bit/s"),
    "net_kbps": ("net_mbps", "kbit/s"),
    "net_gbps": ("net_mbps", "Gbit/s"),
    "net_bytes_s": ("net_mbps", "B/s"),
    "net_bytes_per_sec": ("net_mbps", "B/s"),
    "net_kb_s": ("net_mbps", "kB/s"),
}

#: Column role -> accepted headers (casefolded) of the long format and the time column.
COLUMN_ALIASES: dict[str, tuple[str, ...]] = {
    "server": ("server", "host", "hostname", "host_name", "vm", "vm_name", "name",
               "instance", "node", "machine", "machine_id", "サーバ", "サーバ名",
               "サーバー名", "ホスト名"),
    "timestamp": ("timestamp", "time", "datetime", "date_time", "date", "ts",
                  "time_stamp", "日時", "時刻"),
    "metric": ("metric", "metric_name", "counter", "measure", "item", "項目"),
    "value": ("value", "val", "reading", "値"),
    "unit": ("unit", "units", "単位"),
}  # fmt: skip

_UNIT_SUFFIX_RE = re.compile(
    r"^(?P<base>.*?)\s*[\(\[（［](?P<unit>[^\)\]）］]+)[\)\]）］]$"
)


def fold(text: str) -> str:
    """Casefolded, white space and '-' runs as '_': how headers and aliases compare."""
    return re.sub(r"[\s\-]+", "_", normalize_text(text).casefold())


def split_unit(text: str) -> tuple[str, str | None]:
    """``"web01 (%)"`` -> ("web01", "%"); the brackets stay unless they hold a unit."""
    name = normalize_text(text)
    m = _UNIT_SUFFIX_RE.match(name)
    if m:
        try:
            return m.group("base").strip(), canonical_unit(m.group("unit"))
        except ValueError:
            pass
    return name, None


def resolve_metric(text: str) -> tuple[str, str | None, str | None] | None:
    """Metric name -> (canonical, unit the alias implies, unit in brackets)."""
    base, hint = split_unit(text)
    key = fold(base)
    if key in VARIABLE_MAP:
        metric, implied = VARIABLE_MAP[key]
        return metric, implied, hint
    return None


def column_roles(header: list[str]) -> dict[str, int]:
    """Role (:data:`COLUMN_ALIASES`) -> position of the first header naming it."""
    roles: dict[str, int] = {}
    for i, h in enumerate(header):
        key = fold(h)
        for role, names in COLUMN_ALIASES.items():
            if key in names and role not in roles:
                roles[role] = i
                break
    return roles
