"""A server list made from series alone, for plans without an inventory file.

Traces such as Bitbrains carry each VM's provisioned CPU (MHz) and memory; PlanetLab
and the gcd traces give only percentages, so one size for every VM comes from the
user (``--vm-cpu-mhz``, ``--vm-mem-gib``). The Alibaba trace's ``machine_meta``
and the Azure trace's vmtable give each machine's CPU count (series metadata
``machines``): that machine then has that many cores, each at ``--vm-cpu-mhz``;
the vmtable's memory bucket gives its memory where no series does. A sysstat file
gives its CPU count (the banner's ``(14 CPU)``) and memory total (``sar -r``): the
server then has that many cores at ``--vm-cpu-mhz`` each, as many vCPUs, and that
memory unless ``--vm-mem-gib`` is given. Each VM becomes one row: its cores
(one where no count is known) at their MHz (CPU capacity then follows the clock
fallback, MHz x cores on the host's score per MHz), its memory, a vCPU count only
where the machine list gives one (else the vCPU:core limit is not applied) and no
physical "before" power (they are VMs already; power before is not estimated).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from vsizer._validation import quoted_list
from vsizer.errors import InputError
from vsizer.inventory.model import Inventory, empty_frame
from vsizer.quality import QualityReport
from vsizer.series._tidy import FloatArray
from vsizer.series.align import AlignedSeries
from vsizer.series.demand import cpu_util_stats, series_max


def machines_from_metadata(metadata: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Per-server sizes a reader put in ``metadata['machines']``, at any depth.

    Looks in the set's own metadata and in its ``sources`` (merged sets and
    series stores keep each source's metadata, or its ``machines``, there).
    """
    found: dict[str, dict[str, Any]] = {}

    def merge(more: Mapping[str, Any]) -> None:
        # per server and key: a CPU file and a memory file of one host both count
        for k, v in more.items():
            found.setdefault(str(k), {}).update(dict(v))

    machines = metadata.get("machines")
    if isinstance(machines, Mapping):
        merge(machines)
    for src in metadata.get("sources") or []:
        if isinstance(src, Mapping):
            merge(machines_from_metadata(src))
            inner = src.get("metadata")
            if isinstance(inner, Mapping):
                merge(machines_from_metadata(inner))
    return found


def _machine_sizes(
    names: list[str], machines: Mapping[str, Mapping[str, Any]] | None, key: str
) -> FloatArray:
    """``machines[server][key]`` per server (``cpu_count``, ``mem_gib``); 0 where
    none is known."""
    out = np.zeros(len(names), dtype=np.float64)
    for i, name in enumerate(names):
        value = (machines or {}).get(name, {}).get(key)
        if value is not None and float(value) > 0:
            out[i] = float(value)
    return out


def inventory_from_series(
    aligned: AlignedSeries,
    *,
    source: str,
    vm_cpu_mhz: float | None = None,
    vm_mem_gib: float | None = None,
    machines: Mapping[str, Mapping[str, Any]] | None = None,
) -> Inventory:
    """One inventory row per series server.

    Cores: ``machines[server]['cpu_count']`` where given (Alibaba
    ``machine_meta``, the sar banner; recorded as given), else 1; vCPUs:
    ``machines[server]['vcpus']`` where given. Clock per core [MHz]:
    ``vm_cpu_mhz`` when given, else the server's ``cpu_capacity_mhz`` series
    divided by its cores. Memory [GiB]: ``vm_mem_gib`` when given, else its
    ``mem_capacity_gib`` series. Utilization (average, peak) comes from the
    CPU curve. Servers lacking either size are all reported in one error.
    """
    names = list(aligned.servers)
    n = len(names)
    counts = _machine_sizes(names, machines, "cpu_count").astype(np.int64)
    cores = np.where(counts > 0, counts, 1)
    clock = series_max(aligned, "cpu_capacity_mhz", names) / cores
    mem = series_max(aligned, "mem_capacity_gib", names)
    cpu_from = np.where(np.isnan(clock), "option", "series")
    mem_from = np.where(np.isnan(mem), "option", "series").astype(object)
    listed = _machine_sizes(names, machines, "mem_gib")
    from_list = np.isnan(mem) & (listed > 0)  # Azure vmtable: the memory bucket
    mem[from_list] = listed[from_list]
    mem_from[from_list] = "machines"
    if vm_cpu_mhz is not None:
        clock = np.full(n, float(vm_cpu_mhz))
        cpu_from[:] = "option"
    if vm_mem_gib is not None:
        mem = np.full(n, float(vm_mem_gib))
        mem_from[:] = "option"
    _check_sizes(names, clock, mem, counts, source)
    avg, peak = cpu_util_stats(aligned, names, clock * cores)
    vcpus = _machine_sizes(names, machines, "vcpus").astype(np.int64)
    df = empty_frame(n)
    df["name"] = pd.array(names, dtype="string")
    df["sockets"] = pd.array([1] * n, dtype="Int64")
    df["cores_per_socket"] = pd.array(cores.tolist(), dtype="Int64")
    df["vcpus"] = pd.array([int(v) if v > 0 else None for v in vcpus], dtype="Int64")
    df["cpu_mhz"] = pd.array(clock, dtype="Float64")
    df["mem_gib"] = pd.array(mem, dtype="Float64")
    df["cpu_avg_util"] = pd.array(avg, dtype="Float64")  # NaN -> NA
    df["cpu_peak_util"] = pd.array(peak, dtype="Float64")
    df["pool"] = pd.array(["default"] * n, dtype="string")
    df["power_w"] = pd.array([0.0] * n, dtype="Float64")
    df["rack_u"] = pd.array([0.0] * n, dtype="Float64")
    count_from = [
        str((machines or {}).get(n, {}).get("cpu_count_from") or _LISTS) for n in names
    ]
    for i in np.flatnonzero(mem_from == "machines"):  # where the reader says, say it
        said = (machines or {}).get(names[i], {}).get("mem_gib_from")
        if said:
            mem_from[i] = f"machines:{said}"
    quality = _quality(
        names, counts, count_from, cpu_from, mem_from, avg, vm_cpu_mhz, vm_mem_gib,
        source,
    )  # fmt: skip
    _warn_memory_in_use(quality, names, series_max(aligned, "mem_used_gib", names), mem)
    return Inventory(
        servers=df,
        excluded=pd.DataFrame({"name": [], "reason": []}),
        quality=quality,
        source=source,
        source_format="series",
        metadata={"from_series": True},
    )


def _warn_memory_in_use(
    quality: QualityReport, names: list[str], used: FloatArray, mem: FloatArray
) -> None:
    """A warning per server whose series shows more memory in use than its size."""
    for i in np.flatnonzero(~np.isnan(used) & (used > mem * 1.0005)):
        quality.warn(
            "mem_in_use_over_size",
            f"Server {names[i]}: its series shows up to {used[i]:.1f} GiB of memory "
            f"in use, more than the {mem[i]:g} GiB it is sized with; give its real "
            "memory (--vm-mem-gib, or an inventory row).",
            [names[i]],
        )


def _check_sizes(
    names: list[str],
    clock: FloatArray,
    mem: FloatArray,
    counts: npt.NDArray[np.int64],
    source: str,
) -> None:
    """One error listing every server without a CPU or memory size."""
    problems = []
    no_cpu = [names[i] for i in np.flatnonzero(np.isnan(clock) | (clock <= 0))]
    if no_cpu:
        counted = bool((counts > 0).any())
        problems.append(
            f"series {source}: {len(no_cpu)} server(s) have no CPU size "
            f"({quoted_list(no_cpu)}): expected a cpu_capacity_mhz series or an "
            "inventory; give --vm-cpu-mhz F ("
            + (
                "the clock of each CPU; the machine list gives the CPU count"
                if counted
                else "one size for every VM"
            )
            + ") or an inventory file."
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


#: Where a CPU count comes from when the reader does not say.
_LISTS = (
    "the series' machine list (Alibaba machine_meta cpu_num, Azure vmtable core "
    "bucket)"
)


def _quality(
    names: list[str],
    counts: npt.NDArray[np.int64],
    count_from: list[str],
    cpu_from: npt.NDArray[np.str_],
    mem_from: npt.NDArray[np.str_],
    avg: FloatArray,
    vm_cpu_mhz: float | None,
    vm_mem_gib: float | None,
    source: str,
) -> QualityReport:
    """Where each size came from, per server and field."""
    quality = QualityReport()
    for i, name in enumerate(names):
        if counts[i] > 0:
            quality.record(
                name,
                "cores_per_socket",
                "given",
                f"CPU count {counts[i]} ("
                + count_from[i].replace(" (", ": ").rstrip(")") + ")",
            )
        quality.record(
            name,
            "cpu_mhz",
            "given" if cpu_from[i] == "series" else "assumed",
            "cpu_capacity_mhz series"
            if cpu_from[i] == "series"
            else f"--vm-cpu-mhz {vm_cpu_mhz}",
        )
        if mem_from[i] == "option":
            quality.record(name, "mem_gib", "assumed", f"--vm-mem-gib {vm_mem_gib}")
        else:
            quality.record(name, "mem_gib", "given", (
                "mem_capacity_gib series" if mem_from[i] == "series"
                else str(mem_from[i])[len("machines:"):]
                if str(mem_from[i]).startswith("machines:")
                else "the series' machine list (Azure vmtable memory bucket)"
            ))  # fmt: skip
        for field_name in ("cpu_avg_util", "cpu_peak_util"):
            if not np.isnan(avg[i]):
                quality.record(name, field_name, "derived", "from the CPU series")
        quality.record(
            name, "power_w", "given", "a VM already: no physical power before"
        )
    # File names only: the plan must not depend on how the path was typed.
    shown = ", ".join(Path(part.strip()).name for part in str(source).split(","))
    quality.note(
        "No inventory: servers, sizes and utilization come from the series "
        f"({shown}); 'before' power and rack space are not estimated (VMs)."
    )
    if (counts > 0).any():
        quality.note(
            f"CPU count of {int((counts > 0).sum())} of {len(names)} servers from "
            + "; ".join(sorted({count_from[i] for i in np.flatnonzero(counts > 0)}))
            + f"; each CPU at --vm-cpu-mhz {vm_cpu_mhz}."
        )
    return quality
