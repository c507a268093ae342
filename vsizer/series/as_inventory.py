"""A server list made from series alone, for plans without an inventory file.

Traces such as Bitbrains carry each VM's provisioned CPU (MHz) and memory; PlanetLab
gives only a CPU percentage, so one size for every VM comes from the user
(``vm_cpu_mhz``, ``vm_mem_gib``). Each VM becomes one row: one "core" at its MHz
(CPU capacity then follows DESIGN §4's clock fallback on the host's score per
MHz), its memory, no vCPU count (the vCPU:core limit is not applied) and no
physical "before" power (they are VMs already; power before is not estimated).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from vsizer._validation import quoted_list
from vsizer.errors import InputError
from vsizer.inventory.model import Inventory, empty_frame
from vsizer.quality import QualityReport
from vsizer.series.align import AlignedSeries
from vsizer.series.demand import cpu_util_stats, series_max


def inventory_from_series(
    aligned: AlignedSeries,
    *,
    source: str,
    vm_cpu_mhz: float | None = None,
    vm_mem_gib: float | None = None,
) -> Inventory:
    """One inventory row per series server.

    CPU capacity [MHz]: ``vm_cpu_mhz`` when given, else the server's
    ``cpu_capacity_mhz`` series. Memory [GiB]: ``vm_mem_gib`` when given, else
    its ``mem_capacity_gib`` series. Utilization (average, peak) comes from the
    CPU curve. Servers lacking either size are all reported in one error.
    """
    names = list(aligned.servers)
    n = len(names)
    cap_mhz = series_max(aligned, "cpu_capacity_mhz", names)
    mem = series_max(aligned, "mem_capacity_gib", names)
    quality = QualityReport()
    cpu_from = np.where(np.isnan(cap_mhz), "option", "series")
    mem_from = np.where(np.isnan(mem), "option", "series")
    if vm_cpu_mhz is not None:
        cap_mhz = np.full(n, float(vm_cpu_mhz))
        cpu_from[:] = "option"
    if vm_mem_gib is not None:
        mem = np.full(n, float(vm_mem_gib))
        mem_from[:] = "option"
    problems = []
    no_cpu = [names[i] for i in np.flatnonzero(np.isnan(cap_mhz) | (cap_mhz <= 0))]
    if no_cpu:
        problems.append(
            f"series {source}: {len(no_cpu)} server(s) have no CPU size "
            f"({quoted_list(no_cpu)}): expected a cpu_capacity_mhz series or an "
            "inventory; give --vm-cpu-mhz F (one size for every VM) or an inventory file."
        )
    no_mem = [names[i] for i in np.flatnonzero(np.isnan(mem) | (mem <= 0))]
    if no_mem:
        problems.append(
            f"series {source}: {len(no_mem)} server(s) have no memory size "
            f"({quoted_list(no_mem)}): expected a mem_capacity_gib series or an "
            "inventory; give --vm-mem-gib F (one size for every VM) or an inventory file."
        )
    if problems:
        raise InputError(problems)
    avg, peak = cpu_util_stats(aligned, names, cap_mhz)
    df = empty_frame(n)
    df["name"] = pd.array(names, dtype="string")
    df["sockets"] = pd.array([1] * n, dtype="Int64")
    df["cores_per_socket"] = pd.array([1] * n, dtype="Int64")
    df["cpu_mhz"] = pd.array(cap_mhz, dtype="Float64")
    df["mem_gib"] = pd.array(mem, dtype="Float64")
    df["cpu_avg_util"] = pd.array(avg, dtype="Float64")  # NaN -> NA
    df["cpu_peak_util"] = pd.array(peak, dtype="Float64")
    df["pool"] = pd.array(["default"] * n, dtype="string")
    df["power_w"] = pd.array([0.0] * n, dtype="Float64")
    df["rack_u"] = pd.array([0.0] * n, dtype="Float64")
    for i, name in enumerate(names):
        quality.record(
            name,
            "cpu_mhz",
            "given" if cpu_from[i] == "series" else "assumed",
            "cpu_capacity_mhz series"
            if cpu_from[i] == "series"
            else f"--vm-cpu-mhz {vm_cpu_mhz}",
        )
        quality.record(
            name,
            "mem_gib",
            "given" if mem_from[i] == "series" else "assumed",
            "mem_capacity_gib series"
            if mem_from[i] == "series"
            else f"--vm-mem-gib {vm_mem_gib}",
        )
        for field_name in ("cpu_avg_util", "cpu_peak_util"):
            if not np.isnan(avg[i]):
                quality.record(name, field_name, "derived", "from the CPU series")
        quality.record(
            name, "power_w", "given", "a VM already: no physical power before"
        )
    quality.note(
        "No inventory: servers, sizes and utilization come from the series "
        f"({source}); 'before' power and rack space are not estimated (VMs)."
    )
    return Inventory(
        servers=df,
        excluded=pd.DataFrame({"name": [], "reason": []}),
        quality=quality,
        source=source,
        source_format="series",
        metadata={"from_series": True},
    )
