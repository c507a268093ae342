"""An older RVTools export written with openpyxl: sheets vInfo, vNetwork,
vPartition and vHost only, sizes in MB headers, no vCPU/vMemory/vDisk sheet.

Built to reproduce what issue 11 saw in a real older export:

- vInfo's ``Host`` differs from vHost's: domain suffix and case
  (``VMSP-02.Customer.com`` -> ``vmsp-02``), and a prefix as well
  (``bovmsp-03.customer.com`` -> ``vmsp-03``, a suffix match);
- cluster ``Prod``: two E5-2620 v3 hosts at 2400 and 2399 MHz (1 MHz apart);
- cluster ``Legacy``: X5675 and X5690 hosts mixed;
- two VMs on hosts vHost does not list (``esx-99``, ``bovmsp-09``);
- host ``vmsp-05`` without ``CPU usage %``; hosts of ``Legacy`` without
  ``Memory usage %``.

The hand-checked figures are in tests/test_inventory_rvtools.py.
"""

from __future__ import annotations

from pathlib import Path

import openpyxl

E5 = "Intel(R) Xeon(R) CPU E5-2620 v3 @ 2.40GHz"
X5675 = "Intel(R) Xeon(R) CPU           X5675  @ 3.07GHz"
X5690 = "Intel(R) Xeon(R) CPU           X5690  @ 3.47GHz"

#: VM, power state, template, CPUs, Memory [MB], vInfo Host, Cluster
VMS = [
    ("app01", "poweredOn", "False", 4, 8192, "vmsp-01.customer.com", "Prod"),
    ("app02", "poweredOn", "False", 2, 4096, "vmsp-01.customer.com", "Prod"),
    ("off01", "poweredOff", "False", 2, 4096, "vmsp-01.customer.com", "Prod"),
    ("tmpl01", "poweredOff", "True", 1, 2048, "vmsp-01.customer.com", "Prod"),
    ("db01", "poweredOn", "False", 8, 16384, "VMSP-02.Customer.com", "Prod"),
    ("web01", "poweredOn", "False", 4, 4096, "VMSP-02.Customer.com", "Prod"),
    ("prod99", "poweredOn", "False", 2, 2048, "esx-99.customer.com", "Prod"),
    ("leg01", "poweredOn", "False", 2, 2048, "bovmsp-03.customer.com", "Legacy"),
    ("leg02", "poweredOn", "False", 2, 2048, "bovmsp-03.customer.com", "Legacy"),
    ("leg03", "poweredOn", "False", 1, 1024, "bovmsp-04.customer.com", "Legacy"),
    ("leg04", "poweredOn", "False", 4, 4096, "vmsp-05", "Legacy"),
    ("leg09", "poweredOn", "False", 1, 1024, "bovmsp-09.customer.com", "Legacy"),
]

#: Host, Cluster, CPU Model, Speed, # CPU, Cores per CPU, CPU usage %,
#: # Memory [MB], Memory usage %, Vendor, Model
HOSTS = [
    ("vmsp-01", "Prod", E5, 2400, 2, 6, 25, 131072, 6, "HP", "ProLiant DL380 Gen9"),
    ("vmsp-02", "Prod", E5, 2399, 2, 6, 40, 262144, 5, "HP", "ProLiant DL380 Gen9"),
    ("vmsp-03", "Legacy", X5675, 3066, 2, 6, 20, 98304, None, "HP",
     "ProLiant DL380 G7"),
    ("vmsp-04", "Legacy", X5690, 3466, 2, 6, 30, 98304, None, "HP",
     "ProLiant DL380 G7"),
    ("vmsp-05", "Legacy", X5675, 3066, 2, 6, None, 98304, None, "HP",
     "ProLiant DL380 G7"),
]


def write_old_layout(path: Path) -> Path:
    """Write the workbook to ``path`` and return it."""
    wb = openpyxl.Workbook()
    info = wb.active
    info.title = "vInfo"
    info.append(["VM", "Powerstate", "Template", "CPUs", "Memory", "NICs",
                 "Provisioned MB", "In Use MB", "Host", "Cluster", "Folder", "OS"])
    for vm, state, tmpl, cpus, mem, host, cluster in VMS:
        info.append([vm, state, tmpl, cpus, mem, 1, 40960, 10240, host, cluster,
                     f"/DC/vm/{cluster}", "Microsoft Windows Server 2008 R2 (64-bit)"])
    net = wb.create_sheet("vNetwork")
    net.append(["VM", "Powerstate", "NIC label", "Adapter", "Network", "Connected"])
    for vm, state, *_ in VMS:
        net.append([vm, state, "Network adapter 1", "Vmxnet3", "VM Network", "True"])
    part = wb.create_sheet("vPartition")
    part.append(["VM", "Powerstate", "Disk", "Capacity MB", "Consumed MB", "Free MB"])
    for vm, state, *_ in VMS:
        part.append([vm, state, "C:\\", 40960, 10240, 30720])
    hv = wb.create_sheet("vHost")
    hv.append(["Host", "Datacenter", "Cluster", "CPU Model", "Speed", "# CPU",
               "Cores per CPU", "# Cores", "CPU usage %", "# Memory", "Memory usage %",
               "Vendor", "Model"])
    for host, cluster, cpu, mhz, sockets, cps, usage, mem, mem_pct, vendor, model in (
        HOSTS
    ):
        hv.append([host, "DC", cluster, cpu, mhz, sockets, cps, sockets * cps, usage,
                   mem, mem_pct, vendor, model])
    wb.save(path)
    return path
