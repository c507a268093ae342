"""Every published figure of the design method: the command that computes it, the
value expected and the tolerance. Read by tests/test_published_figures.py (one test
per row) and by scripts/make_figures_table.py (the table of docs/models.md).

A row: (figure, source, expected, tolerance, command, path). ``command`` is the
argument list after ``vsizer`` (always with ``--json``); ``path`` picks the value
from the JSON: dotted keys, list indexes, ``key=value`` selects the first list item
whose ``key`` equals ``value``. ``tolerance`` is absolute, or relative when it ends
in ``%`` (a string).
"""

from __future__ import annotations

from typing import Any

TABLE = "vsizer/data/models/esx252_table61.csv"
_FIT = ["fit", TABLE, "--model", "cpu", "--max-util-pct", "400", "--normalize", "mu350",
        "--regress", "means", "--json"]
_FIT_ALL = ["fit", TABLE, "--model", "cpu", "--json"]
_DISK = ["model", "disk", "--json"]
_NET = ["model", "network", "--json"]
_PLAT = ["model", "platform", "--json"]
_ESX = "VMware ESX 2.5.2 table"
_HV = "Hyper-V R2 disk"
_NETS = "Hyper-V R2 / Xen network"
_PF = "platform comparisons"


def _cpu(vms: int, util: float) -> list[str]:
    return ["model", "cpu", "--vms", str(vms), "--physical-cpus", "4", "--total-util-pct",
            str(util), "--basis", "guest", "--json"]


FIGURES: list[tuple[str, str, float, Any, list[str], str]] = [
    # CPU normalization
    *[(f"MHz/SPECint2000, {cpu}", "Xeon MHz/SPECint table", exp, 0.005,
       ["model", "mhz-specint", "--json"], f"rows.{i}.ratio")
      for i, (cpu, exp) in enumerate([("Xeon 3.0 GHz", 2.10), ("Xeon 3.4 GHz", 2.10),
                                      ("Xeon 3.6 GHz", 2.10), ("Xeon 5110", 1.87),
                                      ("Xeon 5160", 1.98)])],
    ("MHz fallback error bound (max / min ratio - 1) [%]", "Xeon MHz/SPECint table", 12.0, 0.5,
     ["model", "mhz-specint", "--json"], "spread_pct_published"),
    ("worked example: 3000 MHz x 2 x 20 % [MHz]", "worked example", 1200, 0,
     ["model", "mhz-example", "--json"], "demand_mhz"),
    ("worked example: VMs by CPU (18080 / 1200)", "worked example", 15, 0,
     ["model", "mhz-example", "--json"], "vms_by_cpu"),
    ("worked example: VMs by memory (49152 / 2048)", "worked example", 24, 0,
     ["model", "mhz-example", "--json"], "vms_by_memory"),
    # sizing rules
    ("60 % rule: survivors of 1 of 3 hosts at 60 %", "60 % rule", 0.90, 1e-9,
     ["model", "ceiling", "--hosts", "3", "--ceiling", "0.6", "--failed", "1", "--json"],
     "survivor_load"),
    # ESX 2.5.2 CPU
    *[(f"ESX average relative performance, {n} VM(s), rows <= 400 %", _ESX, exp, 0.005, _FIT,
       f"curve.vms={n}.measured_mean")
      for n, exp in [(1, 1.99), (2, 1.99), (4, 1.81), (8, 1.49), (12, 1.26)]],
    ("ESX regression intercept", _ESX, 2.0918, 0.00005, _FIT, "parameters.intercept.value"),
    ("ESX regression slope per VM", _ESX, -0.0710, 0.00005, _FIT, "parameters.slope.value"),
    ("ESX collapse: 8 VMs at 620 % (default model)", _ESX, 1.10, "10%", _cpu(8, 620),
     "relative_performance"),
    ("ESX collapse: 12 VMs at 895 % (default model)", _ESX, 0.761, "10%", _cpu(12, 895),
     "relative_performance"),
    ("ESX contention exponent k fitted to the table", _ESX, 1.72, 0.005, _FIT_ALL,
     "parameters.contention_exponent.value"),
    ("ESX host share per logical CPU (2 x 7.09 / 8)", _ESX, 1.775, 0.005, _cpu(1, 50),
     "published_host_share_per_logical_cpu"),
    # disk
    ("sequential read below queue depth 4, pass-through", _HV, 0.77, 1e-9,
     [*_DISK, "--access-spec", "sequential_read", "--queue-depth", "2", "--backing", "pass-through"],
     "throughput_ratio"),
    ("sequential read below queue depth 4, file VHD", _HV, 0.72, 1e-9,
     [*_DISK, "--access-spec", "sequential_read", "--queue-depth", "2", "--backing", "file"],
     "throughput_ratio"),
    ("sequential write below queue depth 8, pass-through", _HV, 0.86, 1e-9,
     [*_DISK, "--access-spec", "sequential_write", "--queue-depth", "4", "--backing", "pass-through"],
     "throughput_ratio"),
    ("sequential write below queue depth 8, file VHD", _HV, 0.84, 1e-9,
     [*_DISK, "--access-spec", "sequential_write", "--queue-depth", "4", "--backing", "file"],
     "throughput_ratio"),
    ("sequential read at queue depth 4: native", _HV, 1.0, 1e-9,
     [*_DISK, "--access-spec", "sequential_read", "--queue-depth", "4"], "throughput_ratio"),
    ("ESX: 4 VMs on one volume, share each", "ESX disk contention", 0.25, 1e-9,
     [*_DISK, "--vms-on-volume", "4"], "volume_share"),
    ("ESX: 4 VMs on one volume, guest-reported utilization x", "ESX disk contention", 4, 1e-9,
     [*_DISK, "--vms-on-volume", "4"], "guest_util_inflation"),
    ("NFS read-write / local", "pgbench on NFS", 0.65, 1e-9, [*_DISK, "--nfs", "read-write"],
     "nfs_ratio"),
    ("NFS read-write / local, rsize/wsize 8192", "pgbench on NFS", 0.70, 1e-9,
     [*_DISK, "--nfs", "read-write", "--rsize-kb", "8"], "nfs_ratio"),
    ("NFS / local, server cache short", "pgbench on NFS", 0.17, 1e-9,
     [*_DISK, "--nfs", "read-write", "--nfs-cache-short"], "nfs_ratio"),
    ("NFS select-only / local", "pgbench on NFS", 1.0, 1e-9, [*_DISK, "--nfs", "read-only"],
     "nfs_ratio"),
    # network
    ("1 GbE send [Mbit/s] (of 800-940)", _NETS, 800, 0, _NET, "wire_limit_mbps"),
    ("1 GbE receive [Mbit/s]", _NETS, 900, 0, [*_NET, "--direction", "receive"], "wire_limit_mbps"),
    ("VM-to-VM, 1 sender, 2 KB blocks [Mbit/s]", _NETS, 2037, 0, _NET, "vm_to_vm_mbps"),
    ("VM-to-VM, 4 senders -> 1 [Mbit/s]", _NETS, 3937, 0, [*_NET, "--senders", "4"], "vm_to_vm_mbps"),
    ("10 GbE with VMQ [Mbit/s]", _NETS, 7800, 0, [*_NET, "--nic-gbps", "10", "--vmq"],
     "wire_limit_mbps"),
    ("10 GbE without VMQ (VMQ more than 2x) [Mbit/s]", _NETS, 3900, 0, [*_NET, "--nic-gbps", "10"],
     "wire_limit_mbps"),
    ("VMQ file-copy time cut [%]", _NETS, 60, 0, ["model", "vmq", "--json"], "copy_time_cut_min_pct"),
    ("Xen, 1 VM / physical (tbench)", _NETS, 0.80, 1e-9, [*_NET, "--xen-vms", "1"],
     "xen_relative_throughput"),
    # platform
    *[(f"platform: {name}", _PF, exp, 1e-9, _PLAT, f"name={name}.{key}")
      for name, key, exp in [
          ("hyperv-r2-java", "factor", 1.161), ("hyperv-r2-db-1core", "factor", 1.44),
          ("hyperv-r2-db-2core", "factor", 1.32), ("hyperv-r2-web", "factor", 2.0),
          ("hyperv-r2-tiles", "factor", 1.32), ("xeon5500-java", "factor", 1.405),
          ("xeon5500-db-2core", "factor", 1.76), ("xeon5500-tiles-light", "factor", 1.61),
          ("xeon5500-tiles-full", "factor", 2.70), ("db-2vcpu-xeon5500-old", "factor", 1.92),
          ("db-2vcpu-xeon5500-new", "factor", 1.75), ("db-2vcpu-xeon5400", "factor", 1.44),
          ("hyperthreading-x5570", "factor", 1.038), ("hyperthreading-x5570", "power_ratio", 1.094),
          ("opteron2435-vs-xeon-ht", "power_ratio", 0.83),
          ("power-plan-high-performance", "factor", 1.36),
          ("power-plan-high-performance", "power_delta_w", 16),
          ("power-plan-balanced-min-100", "factor", 1.26),
          ("power-plan-balanced-min-100", "power_delta_w", 10)]],
    ("database cross-check 1.44 x 1.75 / 1.92", _PF, 1.3125, 1e-9,
     ["model", "db-scaling-check", "--json"], "derived_r2_gain_2core"),
    # power
    ("L5520 / E5405 blade at max load [%]", "blade measurement", 60.3, 0.05,
     ["model", "blade-power", "--json"], "max_ratio_pct"),
    ("L5520 / E5405 blade at min load [%]", "blade measurement", 48.8, 0.05,
     ["model", "blade-power", "--json"], "min_ratio_pct"),
    # Hyper-V limits
    ("Hyper-V VM: virtual IDE disks at most", "Microsoft TechNet ee405267", 4, 0,
     ["model", "hyperv-disks", "--json"], "max_ide_disks"),
    ("Hyper-V VM: SCSI disks at most (4 controllers x 64)", "Microsoft TechNet ee405267", 256, 0,
     ["model", "hyperv-disks", "--json"], "max_scsi_disks"),
    # benchmark method
    ("200 threads on 12 VMs: VMs with 17", "benchmark method", 8, 0,
     ["model", "threads", "--threads", "200", "--vms", "12", "--json"], "vms_with.17"),
    ("200 threads on 12 VMs: VMs with 16", "benchmark method", 4, 0,
     ["model", "threads", "--threads", "200", "--vms", "12", "--json"], "vms_with.16"),
]


def pick(doc: Any, path: str) -> Any:
    """The value at ``path`` (see the module docstring)."""
    for token in path.split("."):
        if "=" in token:
            key, want = token.split("=", 1)
            doc = next(item for item in doc if str(item.get(key)) == want)
        elif isinstance(doc, list):
            doc = doc[int(token)]
        else:
            doc = doc[token]
    return doc


def within(value: float, expected: float, tolerance: Any) -> bool:
    """``value`` equals ``expected`` within the absolute or relative (``"10%"``) tolerance."""
    if isinstance(tolerance, str):
        return abs(value / expected - 1.0) <= float(tolerance.rstrip("%")) / 100.0
    return abs(value - expected) <= tolerance + 1e-12
