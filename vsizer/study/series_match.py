"""The plan's time series: resampled to the plan's step, matched to the
inventory by name, turned into per-server demand curves."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from vsizer.catalogs.model import HostModel
from vsizer.errors import InputError, SeriesError
from vsizer.quality import QualityReport
from vsizer.series.align import AlignedSeries, align, step_mismatch_notes
from vsizer.series.coverage import (
    ambiguity_message,
    coverage_warnings,
    match_names,
    scalar_demand,
    short_series,
)
from vsizer.series.demand import cpu_coverage, cpu_util_stats, demand_curves
from vsizer.series.model import SeriesSet
from vsizer.series.outliers import drop_outlying
from vsizer.series.sources import why_empty
from vsizer.study.config import Rules
from vsizer.study.results import SeriesInfo


def align_for_plan(series: SeriesSet, rules: Rules) -> AlignedSeries:
    """Resample ``series`` to the plan's step (``rules.step``, ``rules.resample``)."""
    columns = series.columns
    if columns is None and series.data.empty:
        why = why_empty(series)
        raise SeriesError(
            f"series {series.source}: expected samples vsizer reads, got none"
            + (f" ({why})" if why else "") + "."
        )
    data: pd.DataFrame | None = None
    try:
        if columns is not None:  # Bitbrains, PlanetLab, a store: no tidy frame
            aligned = columns.align(step=rules.step, how=rules.resample)
        else:  # clock resets and far futures dropped (vsizer.series.outliers)
            data = drop_outlying(series.data, series.source, series.quality)
            aligned = align(data, step=rules.step, how=rules.resample)
    except ValueError as exc:
        raise SeriesError(f"series {series.source}: {exc}") from None
    if columns is not None:
        notes = columns.step_notes(rules.step)
    else:
        notes = step_mismatch_notes(data, rules.step) if data is not None else []
    for note in notes:
        series.quality.note(note)
    return aligned


def match_series(
    inv: pd.DataFrame,
    series: SeriesSet,
    aligned: AlignedSeries,
    quality: QualityReport,
) -> tuple[pd.DataFrame, SeriesInfo]:
    """Pair inventory rows with series by name, exactly or ignoring case and domain
    suffix (:func:`vsizer.series.coverage.match_names`); utilization from the CPU
    curves. The series are renamed to their inventory server's name."""
    names = inv["name"].astype(str).tolist()
    found = match_names(names, aligned.servers)
    if found.ambiguous:
        raise InputError(
            [ambiguity_message(series.source, i, s) for i, s in found.ambiguous]
        )
    if not found.pairs:
        raise InputError(
            f"series {series.source}: no server name matches the inventory, even "
            f"ignoring case, domain suffix and port ({len(names)} servers, e.g. "
            f"'{names[0] if names else ''}'; series has {len(aligned.servers)}, e.g. "
            f"'{aligned.servers[0] if aligned.servers else ''}')."
        )
    to_inventory = {s: n for n, s in found.pairs.items()}
    series_only = [s for s in aligned.servers if s not in to_inventory]
    aligned = dataclasses.replace(
        aligned, servers=[to_inventory.get(s, s) for s in aligned.servers]
    )
    inventory_only = [n for n in names if n not in found.pairs]
    coverage_warnings(quality, names, inventory_only, series_only, found.loose)
    inv = inv.copy()
    avg, peak = cpu_util_stats(aligned, names, server_mhz(inv))
    own_avg = pd.to_numeric(inv["cpu_avg_util"], errors="coerce").astype(float)
    own_peak = pd.to_numeric(inv["cpu_peak_util"], errors="coerce").astype(float)
    aligned, avg, peak = _keep_inventory_peaks(
        quality, names, aligned, server_mhz(inv),
        (own_avg.to_numpy(float), own_peak.to_numpy(float)), (avg, peak),
    )  # fmt: skip
    has = ~np.isnan(peak)
    own = dict(zip(names, zip(own_avg, own_peak, strict=True), strict=True))
    if has.any():
        inv["cpu_avg_util"] = inv["cpu_avg_util"].astype("Float64")
        inv["cpu_peak_util"] = inv["cpu_peak_util"].astype("Float64")
        inv.loc[has, "cpu_avg_util"] = avg[has]
        inv.loc[has, "cpu_peak_util"] = peak[has]
        for i in np.flatnonzero(has).tolist():
            for f in ("cpu_avg_util", "cpu_peak_util"):
                quality.record(names[i], f, "derived", "from the CPU series")
    info = SeriesInfo(
        source=series.source,
        source_format=series.source_format,
        aligned=aligned,
        demand_report={},
        matched=len(found.pairs),
        series_only=series_only,
        inventory_only=inventory_only,
        quality=series.quality,
        loose=found.loose,
        inventory_util={n: own[n] for n in found.pairs},
    )
    return inv, info


def _keep_inventory_peaks(
    quality: QualityReport,
    names: list[str],
    aligned: AlignedSeries,
    mhz: np.ndarray,
    own: tuple[np.ndarray, np.ndarray],
    stats: tuple[np.ndarray, np.ndarray],
) -> tuple[AlignedSeries, np.ndarray, np.ndarray]:
    """Servers whose CPU series covers under half the grid or under a day (``short_series``)
    keep the larger of their inventory peak and their series: where the
    inventory's is larger, their CPU curve is dropped (placed flat at it)."""
    avg, peak = stats
    cover = cpu_coverage(aligned, names, mhz)
    grid = (aligned.n_steps, aligned.step)
    short = short_series(quality, names, cover, ~np.isnan(peak), grid)
    with np.errstate(invalid="ignore"):
        higher = short & (own[1] > peak)
    if not higher.any():
        return aligned, avg, peak
    avg, peak = avg.copy(), peak.copy()
    peak[higher] = np.nan
    avg[higher] = np.nan
    pos = {s: i for i, s in enumerate(aligned.servers)}
    rows = [pos[names[i]] for i in np.flatnonzero(higher)]
    values = dict(aligned.values)
    for metric in ("cpu_util", "cpu_mhz"):
        if metric in values:
            values[metric] = values[metric].copy()
            values[metric][rows] = np.nan
    return dataclasses.replace(aligned, values=values), avg, peak


def server_mhz(servers: pd.DataFrame) -> np.ndarray:
    """CPU capacity in MHz per server (sockets x cores x clock; NaN without a clock),
    the divisor of ``cpu_mhz`` series."""
    def col(name: str, default: float) -> np.ndarray:
        return pd.to_numeric(servers[name], errors="coerce").fillna(default).to_numpy(float)

    return col("sockets", 1.0) * col("cores_per_socket", 1.0) * col("cpu_mhz", np.nan)


def plan_curves(
    servers: pd.DataFrame,
    info: SeriesInfo,
    dims: tuple[str, ...],
    flat: np.ndarray,
    unit: str,
    host: HostModel,
    rules: Rules,
) -> np.ndarray:
    """Demand curves (servers, steps, dims) of the planned servers; fills
    ``info.demand_report``, ``info.cpu_flat`` and ``info.scalar_demand``."""
    names = servers["name"].astype(str).tolist()
    mhz = server_mhz(servers)
    mem = servers["mem_gib"].to_numpy(dtype=np.float64, na_value=np.nan)
    overhead = servers["vm_mem_gib"].to_numpy(dtype=np.float64, na_value=np.nan) - mem
    curves, report = demand_curves(
        info.aligned,
        names,
        dims,
        flat,
        cpu_capacity=servers["cpu_capacity"].to_numpy(dtype=np.float64),
        capacity_mhz=mhz,
        mem_gib=mem,
        mem_overhead_gib=np.nan_to_num(overhead),
        mem_basis=rules.mem_basis,
        gap_fill=rules.gap_fill,
    )
    info.demand_report = report
    info.cpu_flat = np.isnan(cpu_util_stats(info.aligned, names, mhz)[1])
    k = 1 if rules.cpu_basis == "peak" else 0
    own = np.array([info.inventory_util.get(n, (np.nan, np.nan))[k] for n in names])
    info.scalar_demand = scalar_demand(
        flat,
        dims.index("cpu") if "cpu" in dims else None,
        servers["cpu_capacity"].to_numpy(dtype=np.float64, na_value=np.nan),
        own,
    )
    return curves
