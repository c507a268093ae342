"""Default coefficients of the overhead models, each with its source.

Every coefficient the models in :mod:`vsizer.models` use by default lives here,
in nested dicts ``OVERHEAD_MODEL_PARAMETERS[model][configuration]``. Each leaf
group carries a ``source`` naming the publication table or figure it comes
from. Coefficients fitted to a user's own measurements (``vsizer fit``) live in
a profile (:mod:`vsizer.models.profile`) and override these, never edit them.

The numbers are published measurements from performance reports on VMware ESX
2.5.2, Hyper-V (Windows Server 2008 / 2008 R2) and Xen consolidation, 2007-2010,
as collected in the vsizer design brief. The brief does not name the original
reports; the references below describe each measurement (platform, workload,
configuration) and the model modules cite the public specifications and
vendor documents behind them.

References
----------
.. [1] VMware ESX 2.5.2, per-VM web throughput vs VM count and overcommit (2 x
   dual-core Xeon 2.8 GHz, IIS/.NET, closed-loop load): :data:`ESX_CPU_TABLE`
   and its findings; see :mod:`vsizer.models.cpu`.
.. [2] Disk: ESX volume contention; Hyper-V R2 throughput vs queue depth; Xen
   virtual disk formats; NFS-backed PostgreSQL pgbench; see
   :mod:`vsizer.models.disk`.
.. [3] Network: Xen tbench; Hyper-V R2 on 1 GbE; VMQ on 10 GbE; see
   :mod:`vsizer.models.network`.
.. [4] Platform, hardware generation and power plan comparisons; see
   :mod:`vsizer.models.platform`.
"""

from __future__ import annotations

from typing import Any

SOURCE_61 = (
    "published VMware ESX 2.5.2 measurement, table of VM count vs throughput "
    "(2 x dual-core Xeon 2.8 GHz, IIS/.NET)"
)

#: ESX 2.5.2 table rows: (VMs, client threads, lambda total [req/s], rho total [%],
#: mu total [req/s], relative per VM). The two physical baseline rows have ``vms = 0``.
ESX_CPU_TABLE: tuple[tuple[float, float, float, float, float, float], ...] = (
    (1, 100, 329, 46.4, 708, 2.02),
    (1, 200, 607, 88.2, 688, 1.97),
    (2, 100, 339, 47.6, 712, 2.03),
    (2, 200, 657, 94.2, 698, 1.99),
    (2, 400, 1211, 179, 678, 1.94),
    (4, 100, 343, 57.5, 597, 1.71),
    (4, 200, 675, 104, 651, 1.86),
    (4, 400, 1306, 201, 651, 1.86),
    (4, 600, 1875, 293, 641, 1.83),
    (8, 100, 346, 70.0, 494, 1.41),
    (8, 200, 685, 127, 537, 1.53),
    (8, 400, 1339, 253, 530, 1.51),
    (8, 600, 1939, 401, 483, 1.38),
    (8, 800, 2395, 620, 386, 1.10),
    (12, 100, 346, 80.8, 428, 1.22),
    (12, 200, 687, 151, 454, 1.30),
    (12, 400, 1345, 306, 439, 1.26),
    (12, 600, 1950, 532, 366, 1.05),
    (12, 800, 2384, 895, 266, 0.761),
)
#: ESX 2.5.2 physical baselines: (label, threads, lambda, rho %, mu, relative).
ESX_CPU_BASELINES: tuple[tuple[str, float, float, float, float, float], ...] = (
    ("Pentium III 1.0 GHz (physical)", 50, 174, 49.6, 350, 1.0),
    ("Xeon 2.8 dual-core (physical)", 400, 1305, 52.6, 2483, 7.09),
)

OVERHEAD_MODEL_PARAMETERS: dict[str, dict[str, Any]] = {
    "cpu": {
        "esx252": {
            # relative(N) = intercept + slope * N on the 4-core host: the published
            # regression of the per-VM-count means over the rows with total guest
            # utilization <= 400 %, 2.0918 - 0.0710 N (reproduced by
            # vsizer fit vsizer/data/models/esx252_table61.csv --model cpu
            # --max-util-pct 400 --normalize mu350 --regress means).
            "intercept": 2.0918,
            "slope": -0.0710,
            "reference_cpus": 4,
            # Contention beyond the CPUs: guest-reported utilization = demand *
            # (demand/P)^k, per-VM performance / (demand/P)^k. k fitted to the four
            # overcommitted rows of the table (vsizer fit ... --model cpu on all 19
            # rows): 1.72, 95 % CI [0.71, 5.6]; plain processor sharing is k = 1.
            "contention_exponent": 1.72,
            "contention_exponent_ci": (0.71, 5.6),
            # Relative error of a prediction out of sample: RMS of the errors when
            # each VM count of the table is left out, refitted and predicted
            # (vsizer fit ... --model cpu, "leave-one-group-out", 19 rows).
            "prediction_rms_error": 0.060,
            "baseline_mu": 350.0,
            "host_relative": 7.09,
            "logical_cpus": 8,
            "source": SOURCE_61 + ", findings: linear regression of the per-VM-count "
            "means over the rows with total utilization <= 400 %: 2.0918 - 0.0710 per VM; "
            "contention exponent k = 1.72 (95 % CI 0.71-5.6) fitted to the overcommitted "
            "rows (8 VMs at 401/620 %, 12 VMs at 532/895 %); leave-one-VM-count-out RMS "
            "error 6.0 %.",
            # Validity: measured 1..12 VMs (1 vCPU each) on 4 physical CPUs, total
            # guest-reported utilization up to 895 % (true demand up to 1.5 x P).
            "max_vms_per_cpu": 3.0,
            "max_overcommit": 1.5,
        },
        "vm_saturation_util": {
            "value": 0.9,
            "source": "published VMware ESX 2.5.2 measurement, findings: 'a VM near 100 % fails even when the "
            "host is idle'; 'near' taken as >= 90 % of the VM's vCPUs (vsizer's choice).",
        },
    },
    "disk": {
        # Hyper-V R2 (Windows Server 2008 R2), throughput VM / native vs queue depth.
        "queue_depth": {
            "sequential_read": {
                "saturation_queue_depth": 4,
                "floor": {"pass-through": 0.77, "file": 0.72},
            },
            "sequential_write": {
                "saturation_queue_depth": 8,
                "floor": {"pass-through": 0.86, "file": 0.84},
            },
            "database": {
                "saturation_queue_depth": 1,
                "floor": {"pass-through": 1.0, "file": 1.0},
            },
            "file_server": {
                "saturation_queue_depth": 1,
                "floor": {"pass-through": 1.0, "file": 1.0},
            },
            "queue_depth_range": (1, 32),
            "source": "published measurement 'Throughput vs queue depth (Hyper-V, Windows "
            "Server 2008 R2)': sequential 64 KB read reaches native from queue "
            "depth ~4 (below: >= 77 % pass-through, >= 72 % file VHD); sequential "
            "64 KB write needs >= 8 (below: >= 86 % pass-through, 84 % file); "
            "database 8 KB and file-server 64 KB random 67 % read close to native; "
            "queue depths 1-32 measured.",
        },
        "contention": {
            "untrustworthy_vms": 4,
            "source": "published measurement 'Contention (ESX)': N VMs on one volume each get "
            "about 1/N and each guest reports its share as 100 % (N-fold summed "
            "utilization); two volumes doubled the load handled; guest-reported "
            "disk utilization not trustworthy with 4 or more VMs on a volume.",
        },
        "format": {
            "order": ("volume", "preallocated", "sparse"),
            "write_heavy_fraction": 0.33,
            "source": "published measurement 'Virtual disk formats (Xen)': LVM volume >= "
            "preallocated file >= sparse file, all close with a controller write "
            "cache; without it sparse files drop sharply on writes. 'Write-heavy' "
            "is taken as >= 33 % writes, the write share of the published 67 %-read "
            "access specifications (vsizer's choice).",
        },
        "nfs": {
            "read_write": 0.65,
            "read_write_8k": 0.70,
            "cache_short": 0.17,
            "read_only": 1.0,
            "source": "published measurement 'NFS-backed VM disks (PostgreSQL, pgbench "
            "TPC-B)': read-write about 65 % of local disk; 70 % with rsize/wsize = "
            "8192; 17 % when the NFS server's cache cannot hold the working set; "
            "select-only about equal to local.",
        },
    },
    "network": {
        "wire": {
            # [Mbit/s] conservative planning figure per NIC speed [Gbit/s] and direction.
            "1": {"send": 800.0, "send_high": 940.0, "receive": 900.0},
            "10": {"vmq": 7800.0, "vmq_gain": 2.0},
            "source": "published measurement 'Hyper-V (R2) on 1 GbE: send 800-940 Mbps, "
            "receive > 900 Mbps'; 'VMQ on 10 GbE: more than 2x throughput (about "
            "7.8 Gbps)' (without VMQ therefore at most 7.8 / 2 = 3.9 Gbit/s).",
        },
        "vm_to_vm": {
            "senders": (1, 4),
            "mbps": (2037.0, 3937.0),
            "block_kb": 2,
            "source": "published measurement 'VM-to-VM on one host is not limited by the "
            "wire: 2037 Mbps at 2 KB blocks; 4 senders -> 1 receiver: 3937 Mbps "
            "total; 1 -> many: no gain' (Hyper-V R2).",
        },
        "xen": {
            "single_vm_ratio": 0.80,
            "two_vm_ratio_min": 1.0,
            "source": "published measurement 'Xen, 1 VM vs physical (tbench): about 20 % "
            "lower throughput; with 2 VMs the total exceeds the physical machine's'.",
        },
    },
}
