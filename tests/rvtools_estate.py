"""A modern-layout RVTools estate (issue 23 part B) whose production cluster
runs at 3.6 vCPUs per core: sheets vInfo, vCPU and vHost, sizes in MiB.

Nine ESXi hosts of 2 x 22 cores (Xeon Gold 6152, 2100 MHz, 384 GiB) in three
clusters, every VM 4 GiB:

========  =====  =====  ===========  =========  ==============
cluster   hosts  cores  VMs x vCPUs  vCPUs      vCPUs per core
========  =====  =====  ===========  =========  ==============
Prod      4      176    160 x 4      640        3.636364
Dev       3      132    50 x 4       200        1.515152
Test      2      88     30 x 5       150        1.704545
all       9      396    240          990        2.5
========  =====  =====  ===========  =========  ==============

Memory allocated: Prod 640 GiB / 1536 GiB = 0.416667; all 960 / 3456 =
0.277778. CPU usage (vHost ``CPU usage %``): Prod hosts 30, 40, 50, 60 % ->
0.45; Dev 10 % each; Test 20 % each -> all (equal cores) 110 / 396 = 0.277778.

Two powered-off VMs (``off1``, ``off2``, 8 vCPUs each, on a Prod host) are
not counted. VMs are dealt round-robin over their cluster's hosts. The vCPU
sheet gives each VM ``Overall`` = 10 % of ``Max``; ``with_usage=False``
leaves out the vCPU sheet's ``Overall``/``Max`` and the hosts' ``CPU usage %``
(an estate with no utilization at all, like the Hyper-V export of issue 23).
"""

from __future__ import annotations

from pathlib import Path

import openpyxl

CPU = "Intel(R) Xeon(R) Gold 6152 CPU @ 2.10GHz"
MHZ = 2100
CORES = 44
MEM_MIB = 384 * 1024

#: cluster -> (hosts, VMs, vCPUs per VM, CPU usage % per host)
CLUSTERS = {
    "Prod": (4, 160, 4, (30, 40, 50, 60)),
    "Dev": (3, 50, 4, (10, 10, 10)),
    "Test": (2, 30, 5, (20, 20)),
}


def _hosts() -> list[tuple[str, str, int]]:
    """(host, cluster, CPU usage %) in vHost order."""
    out = []
    for cluster, (n, _, _, usage) in CLUSTERS.items():
        out += [(f"esx-{cluster.lower()}-{i + 1}.example.com", cluster, usage[i])
                for i in range(n)]
    return out


def _vms() -> list[tuple[str, str, int, str, str]]:
    """(VM, power state, vCPUs, host, cluster)."""
    hosts = _hosts()
    out = []
    for cluster, (_, n_vms, vcpus, _) in CLUSTERS.items():
        mine = [h for h, c, _ in hosts if c == cluster]
        out += [(f"{cluster.lower()}-vm{i + 1:03d}", "poweredOn", vcpus,
                 mine[i % len(mine)], cluster) for i in range(n_vms)]
    first = hosts[0][0]
    out += [("off1", "poweredOff", 8, first, "Prod"), ("off2", "poweredOff", 8, first,
                                                        "Prod")]
    return out


def write_estate(path: Path, *, with_usage: bool = True) -> Path:
    """Write the workbook to ``path`` and return it."""
    wb = openpyxl.Workbook()
    info = wb.active
    info.title = "vInfo"
    info.append(["VM", "Powerstate", "Template", "CPUs", "Memory", "Host", "Cluster",
                 "Provisioned MiB", "In Use MiB"])
    cpu = wb.create_sheet("vCPU")
    cpu.append(["VM", "Powerstate", "CPUs", "Sockets", "Cores p/s",
                *(("Overall", "Max") if with_usage else ())])
    for vm, state, vcpus, host, cluster in _vms():
        info.append([vm, state, "False", vcpus, 4096, host, cluster, 40960, 20480])
        used = (int(0.1 * vcpus * MHZ), vcpus * MHZ) if with_usage else ()
        cpu.append([vm, state, vcpus, vcpus, 1, *used])
    hv = wb.create_sheet("vHost")
    hv.append(["Host", "Cluster", "CPU Model", "Speed", "# CPU", "Cores per CPU",
               "# Cores", *(("CPU usage %",) if with_usage else ()), "# Memory",
               "Vendor", "Model"])
    for host, cluster, usage in _hosts():
        hv.append([host, cluster, CPU, MHZ, 2, 22, CORES,
                   *((usage,) if with_usage else ()), MEM_MIB, "HPE",
                   "ProLiant DL380 Gen10"])
    wb.save(path)
    return path
