"""The node_exporter series vsizer reads, and the devices it leaves out by default."""

from __future__ import annotations

__all__ = [
    "DEFAULT_DISK_EXCLUDE",
    "DEFAULT_NET_EXCLUDE",
    "NODE_EXPORTER_METRICS",
    "RATES",
    "VARIABLE_MAP",
    "WANTED",
]

#: Metrics read from node_exporter; the first four are rates of counters.
NODE_EXPORTER_METRICS: tuple[str, ...] = (
    "cpu_util",
    "disk_iops",
    "disk_mb_s",
    "net_mbps",
    "mem_used_gib",
    "mem_capacity_gib",
)
RATES = ("cpu_util", "disk_iops", "disk_mb_s", "net_mbps")

#: node_exporter series -> the metric it feeds.
VARIABLE_MAP: dict[str, str] = {
    "node_cpu_seconds_total": "cpu_util",  # mode="idle", per cpu
    "node_disk_reads_completed_total": "disk_iops",
    "node_disk_writes_completed_total": "disk_iops",
    "node_disk_read_bytes_total": "disk_mb_s",
    "node_disk_written_bytes_total": "disk_mb_s",
    "node_network_receive_bytes_total": "net_mbps",
    "node_network_transmit_bytes_total": "net_mbps",
    "node_memory_MemTotal_bytes": "mem_capacity_gib",
    "node_memory_MemAvailable_bytes": "mem_used_gib",
    # Fallback for kernels without MemAvailable (< 3.14): free + buffers + cache.
    "node_memory_MemFree_bytes": "mem_used_gib",
    "node_memory_Buffers_bytes": "mem_used_gib",
    "node_memory_Cached_bytes": "mem_used_gib",
    "node_memory_SReclaimable_bytes": "mem_used_gib",
}
# Read for the server name, the scrape time and restarts.
_META = ("node_uname_info", "node_time_seconds", "node_boot_time_seconds")
#: Every series name kept from a scrape; other lines are not even parsed.
WANTED = frozenset(VARIABLE_MAP) | frozenset(_META)

#: Disks left out by default: partitions (node_exporter's own default
#: exclusion), and devices stacked on other disks (device-mapper, md RAID),
#: optical drives, RAM and loop devices -- counting them would count an I/O twice.
DEFAULT_DISK_EXCLUDE = (
    r"^(z?ram\d+|loop\d+|fd\d+|sr\d+|dm-\d+|md\d+"
    r"|(h|s|v|xv)d[a-z]+\d+|nvme\d+n\d+p\d+|mmcblk\d+p\d+)$"
)
#: Network devices left out by default: the loopback.
DEFAULT_NET_EXCLUDE = r"^lo$"
