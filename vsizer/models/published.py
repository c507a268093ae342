"""Published figures of the design method that are arithmetic on published numbers.

Each function returns a JSON-ready dict (inputs, result, ``source``) behind one
``vsizer model`` command: the MHz / SPECint2000 table and its error bound, the
MHz worked example, the 60 % rule's failover load, the single-blade power
ratios, the database cross-check of the Hyper-V R2 and vCPU-scaling figures,
the Hyper-V disk attachment limits as a check of a VM design, and the VMQ
file-copy cut.

References
----------
.. [1] Published CPU normalization table of older Xeons (effective MHz and
   SPECint2000 per CPU) and its worked example, in the consolidation method the
   vsizer design follows (2007-2010 performance reports; the original report is
   not named, so none is cited).
.. [2] SPEC, "SPEC CPU2000 (CINT2000) results," https://www.spec.org/cpu2000/results/.
.. [3] Published blade measurement: low-voltage Xeon L5520 blade 135 W max / 79 W
   min against 224 W / 162 W for an E5405 blade of the same class (the host
   catalog rows ``Blade 2x Xeon L5520`` and ``Blade 2x Xeon E5405``).
.. [4] Published Hyper-V 2008 -> 2008 R2 and 1 -> 2 vCPU database comparisons
   (:mod:`vsizer.models.platform`).
.. [5] Microsoft, "Requirements and Limits for Virtual Machines and Hyper-V in
   Windows Server 2008 R2," TechNet, 2009 (updated 2014),
   https://technet.microsoft.com/library/ee405267(v=ws.10).aspx (virtual IDE
   disks 4; virtual SCSI controllers 4; 64 disks per controller, 256 SCSI disks).
.. [6] Published Hyper-V R2 10 GbE VMQ measurement: more than 2x throughput
   (about 7.8 Gbit/s) and over 60 % shorter file-copy times.
"""

from __future__ import annotations

import math
from typing import Any

from vsizer._jsonable import rounded as _r
from vsizer._validation import Interval, OneOf, OrNone, validate_params
from vsizer.models.platform import SCENARIOS

SOURCE_MHZ = ("published CPU normalization table (older Xeons: effective MHz and "
              "SPECint2000, SPEC CPU2000 results)")
#: (CPU, cores, MHz, effective MHz, SPECint2000, MHz/SPECint as published)
MHZ_SPECINT_TABLE: tuple[tuple[str, int, int, int, int, float], ...] = (
    ("Xeon 3.0 GHz (estimated)", 1, 3000, 3000, 1429, 2.10),
    ("Xeon 3.4 GHz", 1, 3400, 3400, 1617, 2.10),
    ("Xeon 3.6 GHz", 1, 3600, 3600, 1718, 2.10),
    ("Xeon 5110 (1.6 GHz)", 2, 1600, 3200, 1712, 1.87),
    ("Xeon 5160 (3.0 GHz)", 2, 3000, 6000, 3025, 1.98),
)
SOURCE_BLADE = ("published blade measurement: Xeon L5520 blade 135 W max / 79 W min, "
                "Xeon E5405 blade 224 W / 162 W")
BLADES = {"L5520": (79.0, 135.0), "E5405": (162.0, 224.0)}  # (min W, max W)
SOURCE_HYPERV_LIMITS = (
    "Microsoft, 'Requirements and Limits for Virtual Machines and Hyper-V in Windows Server "
    "2008 R2', TechNet, https://technet.microsoft.com/library/ee405267(v=ws.10).aspx")
HYPERV_LIMITS = {"ide_disks": 4, "scsi_controllers": 4, "disks_per_scsi_controller": 64}
SOURCE_VMQ = ("published Hyper-V R2 10 GbE VMQ measurement: more than 2x throughput "
              "(about 7.8 Gbit/s), over 60 % shorter file-copy times")
VMQ_COPY_CUT = 0.60


def mhz_specint() -> dict[str, Any]:
    """MHz / SPECint2000 per CPU of the published table, and the error of using one ratio.

    Returns
    -------
    dict
        ``rows`` (``ratio`` = effective MHz / SPECint2000, ``published``),
        ``min``, ``max``, ``spread_pct`` = 100 (max / min - 1) [%] (the error bound
        of the MHz fallback: about 12 %), ``spread_pct_published`` (the same on the
        published two-decimal ratios).
    """
    rows = [{"cpu": c, "cores": n, "mhz": m, "effective_mhz": e, "specint2000": s,
             "ratio": _r(e / s), "published": p}
            for c, n, m, e, s, p in MHZ_SPECINT_TABLE]
    ratios = [e / s for _, _, _, e, s, _ in MHZ_SPECINT_TABLE]
    pub = [p for *_, p in MHZ_SPECINT_TABLE]
    return {"model": "mhz-specint", "rows": rows, "min": _r(min(ratios)), "max": _r(max(ratios)),
            "spread_pct": _r(100.0 * (max(ratios) / min(ratios) - 1.0)),
            "spread_pct_published": _r(100.0 * (max(pub) / min(pub) - 1.0)),
            "source": SOURCE_MHZ}


@validate_params({"server_mhz": Interval(float, 0, None, "neither"),
                  "server_cores": Interval(int, 1, None), "util": Interval(float, 0, 1),
                  "host_mhz": Interval(float, 0, None, "neither"),
                  "host_cores": Interval(int, 1, None),
                  "host_mem_mb": Interval(float, 0, None, "neither"),
                  "vm_mem_mb": Interval(float, 0, None, "neither")}, where="model mhz-example")
def mhz_example(server_mhz: float = 3000.0, server_cores: int = 2, util: float = 0.2,
                host_mhz: float = 2260.0, host_cores: int = 8, host_mem_mb: float = 49152.0,
                vm_mem_mb: float = 2048.0) -> dict[str, Any]:
    """VMs per host by CPU in MHz and by memory (the published worked example).

    ``demand = MHz x cores x util``; ``by_cpu = floor(host MHz x cores / demand)``;
    ``by_memory = floor(host memory / VM memory)``; the smaller binds (before the
    60 % ceiling). Defaults: 3000 x 2 x 0.2 = 1200 MHz; 18080 / 1200 = 15;
    49152 / 2048 = 24.
    """
    demand = server_mhz * server_cores * util
    host = host_mhz * host_cores
    by_cpu = math.floor(host / demand) if demand > 0 else None
    by_mem = math.floor(host_mem_mb / vm_mem_mb)
    binds = "memory" if by_cpu is None or by_mem < by_cpu else "cpu"
    return {"model": "mhz-example", "demand_mhz": _r(demand), "host_mhz": _r(host),
            "vms_by_cpu": by_cpu, "vms_by_memory": by_mem, "binding": binds,
            "vms": min(by_mem, by_cpu) if by_cpu is not None else by_mem,
            "source": SOURCE_MHZ + ", worked example"}


@validate_params({"hosts": Interval(int, 2, None), "ceiling": Interval(float, 0, 1, "right"),
                  "failed": Interval(int, 1, None)}, where="model ceiling")
def failover_load(hosts: int = 3, ceiling: float = 0.6, failed: int = 1) -> dict[str, Any]:
    """Load of the survivors when ``failed`` of ``hosts`` hosts at ``ceiling`` fail.

    ``c N / (N - k)``: 0.6 x 3 / 2 = 0.9 (the 60 % rule's 90 % for a 3-host pool).
    """
    if failed >= hosts:
        from vsizer.errors import ConfigError

        raise ConfigError(f"model ceiling: --failed {failed} leaves no survivor of {hosts} hosts.")
    load = ceiling * hosts / (hosts - failed)
    return {"model": "ceiling", "hosts": hosts, "ceiling": ceiling, "failed": failed,
            "survivor_load": _r(load), "over_100": load > 1.0,
            "source": "60 % rule: with N hosts at a ceiling c, the survivors of k failures "
            "carry c N / (N - k) (90 % for N = 3, c = 0.6)"}


def blade_power() -> dict[str, Any]:
    """Power of the low-voltage L5520 blade over the E5405 blade, at max and at min load.

    135 / 224 = 60.3 % at maximum, 79 / 162 = 48.8 % at minimum.
    """
    lo_min, lo_max = BLADES["L5520"]
    hi_min, hi_max = BLADES["E5405"]
    return {"model": "blade-power", "l5520_w": {"min": lo_min, "max": lo_max},
            "e5405_w": {"min": hi_min, "max": hi_max},
            "max_ratio_pct": _r(100.0 * lo_max / hi_max),
            "min_ratio_pct": _r(100.0 * lo_min / hi_min), "source": SOURCE_BLADE}


def db_scaling_check() -> dict[str, Any]:
    """Cross-check of the database figures: 1-core R2 gain x 2-vCPU scaling (new / old).

    The 2-core R2 gain should equal the 1-core gain times the ratio of the 1 -> 2
    vCPU scaling on the new and the old hypervisor: 1.44 x 1.75 / 1.92 = 1.3125,
    against the published 2-core gain 1.32 (-0.6 %).
    """
    one = SCENARIOS["hyperv-r2-db-1core"].factor
    new = SCENARIOS["db-2vcpu-xeon5500-new"].factor
    old = SCENARIOS["db-2vcpu-xeon5500-old"].factor
    two = SCENARIOS["hyperv-r2-db-2core"].factor
    derived = one * new / old
    return {"model": "db-scaling-check", "r2_gain_1core": one, "scaling_2vcpu_new": new,
            "scaling_2vcpu_old": old, "derived_r2_gain_2core": _r(derived),
            "published_r2_gain_2core": two, "difference_pct": _r(100.0 * (derived / two - 1.0)),
            "source": "published database comparisons: " + "; ".join(
                SCENARIOS[k].description for k in ("hyperv-r2-db-1core", "db-2vcpu-xeon5500-new",
                                                   "db-2vcpu-xeon5500-old", "hyperv-r2-db-2core"))}


@validate_params({"ide_disks": Interval(int, 0, None), "scsi_controllers": Interval(int, 0, None),
                  "scsi_disks": Interval(int, 0, None)}, where="model hyperv-disks")
def hyperv_disks(ide_disks: int, scsi_controllers: int, scsi_disks: int) -> dict[str, Any]:
    """Check a VM's virtual disk design against the Hyper-V (2008 R2) limits.

    IDE disks <= 4 (the startup disk must be one of them); SCSI controllers <= 4;
    SCSI disks <= 64 per controller, 4 x 64 = 256 in all.
    """
    lim = HYPERV_LIMITS
    max_scsi = lim["disks_per_scsi_controller"] * min(scsi_controllers, lim["scsi_controllers"])
    problems = []
    if ide_disks > lim["ide_disks"]:
        problems.append(f"{ide_disks} IDE disks: at most {lim['ide_disks']}.")
    if ide_disks == 0:
        problems.append("no IDE disk: the startup disk must be attached to an IDE device.")
    if scsi_controllers > lim["scsi_controllers"]:
        problems.append(f"{scsi_controllers} SCSI controllers: at most {lim['scsi_controllers']}.")
    if scsi_disks > max_scsi:
        problems.append(f"{scsi_disks} SCSI disks on {scsi_controllers} controller(s): at most "
                        f"{max_scsi} ({lim['disks_per_scsi_controller']} per controller).")
    return {"model": "hyperv-disks", "ide_disks": ide_disks, "scsi_controllers": scsi_controllers,
            "scsi_disks": scsi_disks, "max_ide_disks": lim["ide_disks"],
            "max_scsi_disks": lim["disks_per_scsi_controller"] * lim["scsi_controllers"],
            "max_scsi_disks_here": max_scsi, "fits": not problems, "problems": problems,
            "source": SOURCE_HYPERV_LIMITS}


@validate_params({"copy_before_s": OrNone(Interval(float, 0, None, "neither")),
                  "copy_after_s": OrNone(Interval(float, 0, None, "neither"))}, where="model vmq")
def vmq(copy_before_s: float | None = None, copy_after_s: float | None = None) -> dict[str, Any]:
    """The published VMQ figures, and a measured copy-time cut checked against > 60 %.

    A cut of 60 % means the copy takes at most 40 % of the time: an effective copy
    throughput of 1 / (1 - 0.6) = 2.5x.
    """
    out: dict[str, Any] = {"model": "vmq", "throughput_gain_min": 2.0, "throughput_gbps": 7.8,
                           "copy_time_cut_min_pct": _r(100.0 * VMQ_COPY_CUT),
                           "copy_speedup_min": _r(1.0 / (1.0 - VMQ_COPY_CUT)),
                           "source": SOURCE_VMQ}
    if copy_before_s is not None and copy_after_s is not None:
        cut = 1.0 - copy_after_s / copy_before_s
        out.update({"copy_before_s": copy_before_s, "copy_after_s": copy_after_s,
                    "copy_time_cut_pct": _r(100.0 * cut), "meets_published": cut > VMQ_COPY_CUT})
    return out


SOURCE_STORAGE = ("published storage comparison of the consolidation method: performance "
                  "FC SAN > NAS >= iSCSI >= DAS; ease DAS > NAS > iSCSI > FC; pgbench on NFS "
                  "read-write at 65-70 % of local disk")
#: name -> (performance rank, ease rank, shared by the pool's hosts); 1 = best, in the
#: order the method lists them ("NAS >= iSCSI >= DAS" kept as an order)
STORAGE_TYPES: dict[str, tuple[int, int, bool]] = {
    "FC SAN": (1, 4, True), "NAS": (2, 2, True), "iSCSI": (3, 3, True), "DAS": (4, 1, False),
}


@validate_params({"hosts": Interval(int, 1, None),
                  "prefer": OneOf(("performance", "ease"))},
                 where="model storage-choice")
def storage_choice(hosts: int = 3, prefer: str = "performance") -> dict[str, Any]:
    """DAS / NAS / iSCSI / FC SAN ranked on the method's criteria for a pool of ``hosts``.

    A pool of 2 or more hosts needs storage its hosts share (a VM runs anywhere in
    the pool and restarts elsewhere when its host fails), so DAS is not eligible
    there. Eligible types are ordered by ``prefer`` first, the other criterion
    next. Cost and scale are not ranked: the method gives no figures for them.
    """
    rows = []
    for name, (perf, ease, shared) in STORAGE_TYPES.items():
        eligible = shared or hosts == 1
        rows.append({"type": name, "performance_rank": perf, "ease_rank": ease,
                     "shared": shared, "eligible": eligible,
                     "reason": "" if eligible else f"not shared: a pool of {hosts} hosts "
                     "needs storage every host reaches"})
    first, second = (("performance_rank", "ease_rank") if prefer == "performance"
                     else ("ease_rank", "performance_rank"))
    rows.sort(key=lambda r: (not r["eligible"], r[first], r[second], r["type"]))
    return {"model": "storage-choice", "hosts": hosts, "prefer": prefer,
            "choice": rows[0]["type"], "ranking": rows,
            "not_ranked": ["cost", "scale"],
            "notes": ["NAS through NFS: read-write about 65 % of local disk, 70 % with "
                      "rsize/wsize 8192, 17 % when the server cache cannot hold the "
                      "working set (vsizer emit nfs)"],
            "source": SOURCE_STORAGE}
