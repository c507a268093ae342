"""Per-VM demand curves from aligned series: the input of placement on curves.

Pure functions: aligned series + per-server facts in, arrays out.

Conversions (one per dimension, each stated in the plan's ``series`` report):

* **cpu** [capacity units]: ``cpu_util`` (fraction of the server) x the server's
  normalized CPU capacity (DESIGN §4); or ``cpu_mhz`` (MHz used, Bitbrains) /
  the server's MHz capacity (``cpu_capacity_mhz`` series, else the inventory's
  sockets x cores x clock) x the normalized capacity.
* **mem** [GiB]: ``mem_used_gib`` (or ``mem_util`` x configured memory) plus the
  per-VM hypervisor overhead when the basis is "used"; the configured size plus
  overhead, flat, when the basis is "configured". Basis "auto" uses the memory
  curve where one exists.
* **disk_iops, disk_mb_s, net_mbps**: the series as given.
* **vcpu**: flat (a count, not a load).

Dimensions without a curve for a server keep the server's flat inventory value
(its peak or average demand, as the core plan uses) over every step.

Gaps (steps with no sample after alignment) are filled with the server's own
peak of that metric (``gap_fill="peak"``, conservative) or with zero
(``"zero"``, for traces where a missing step means the VM did not exist yet);
the count is reported, never hidden.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from vsizer.series.align import AlignedSeries

FloatArray = npt.NDArray[np.float64]


def _rows(aligned: AlignedSeries, metric: str, names: Sequence[str]) -> FloatArray:
    """Matrix (len(names), T) of ``metric``; all-NaN rows for servers without it."""
    out = np.full((len(names), aligned.n_steps), np.nan)
    mat = aligned.values.get(metric)
    if mat is None:
        return out
    pos = {s: i for i, s in enumerate(aligned.servers)}
    have = [(k, pos[n]) for k, n in enumerate(names) if n in pos]
    if have:
        dst, src = zip(*have, strict=True)
        out[list(dst)] = mat[list(src)]
    return out


def _fill_gaps(mat: FloatArray, how: str) -> tuple[FloatArray, int]:
    """Fill NaN steps of rows that have some data; all-NaN rows stay NaN."""
    gaps = np.asarray(np.isnan(mat))
    has = np.asarray(~gaps.all(axis=1))
    fill_rows = gaps & has[:, None]
    n = int(fill_rows.sum())
    if n:
        if how == "peak":
            value = np.where(has, np.nanmax(np.where(has[:, None], mat, 0.0), axis=1), 0)
        else:
            value = np.zeros(len(mat))
        mat = np.where(fill_rows, value[:, None], mat)
    return mat, n


def cpu_util_stats(
    aligned: AlignedSeries,
    names: Sequence[str],
    capacity_mhz: FloatArray,
) -> tuple[FloatArray, FloatArray]:
    """Average and peak CPU utilization [fraction] per server from its curve (NaN: no curve).

    ``cpu_util`` is used where present, else ``cpu_mhz`` / ``capacity_mhz`` (the
    ``cpu_capacity_mhz`` series' maximum where given, else the argument).
    """
    util = _cpu_fraction(aligned, names, capacity_mhz)
    has = ~np.isnan(util).all(axis=1)
    avg = np.full(len(names), np.nan)
    peak = np.full(len(names), np.nan)
    if has.any():
        avg[has] = np.nanmean(util[has], axis=1)
        peak[has] = np.nanmax(util[has], axis=1)
    return avg, peak


def cpu_coverage(
    aligned: AlignedSeries, names: Sequence[str], capacity_mhz: FloatArray
) -> FloatArray:
    """Share of the grid's steps with a CPU value, per server (0 without a curve)."""
    util = _cpu_fraction(aligned, names, capacity_mhz)
    if util.shape[1] == 0:
        return np.zeros(len(names))
    return np.count_nonzero(~np.isnan(util), axis=1) / util.shape[1]


def _cpu_fraction(
    aligned: AlignedSeries, names: Sequence[str], capacity_mhz: FloatArray
) -> FloatArray:
    util = _rows(aligned, "cpu_util", names)
    mhz = _rows(aligned, "cpu_mhz", names)
    from_series = series_max(aligned, "cpu_capacity_mhz", names)
    cap = np.where(np.isnan(from_series), capacity_mhz, from_series)
    with np.errstate(all="ignore"):
        from_mhz = mhz / cap[:, None]
    use_mhz = np.isnan(util).all(axis=1) & ~np.isnan(mhz).all(axis=1)
    use_mhz &= np.isfinite(cap) & (cap > 0)
    util[use_mhz] = from_mhz[use_mhz]
    return util


def series_max(aligned: AlignedSeries, metric: str, names: Sequence[str]) -> FloatArray:
    """Largest value of ``metric`` per server (e.g. provisioned MHz or memory), NaN if none."""
    mat = _rows(aligned, metric, names)
    out = np.full(len(names), np.nan)
    has = ~np.isnan(mat).all(axis=1)
    if has.any():
        out[has] = np.nanmax(mat[has], axis=1)
    return out


def demand_curves(
    aligned: AlignedSeries,
    names: Sequence[str],
    dims: Sequence[str],
    flat: FloatArray,
    *,
    cpu_capacity: FloatArray,
    capacity_mhz: FloatArray,
    mem_gib: FloatArray,
    mem_overhead_gib: FloatArray,
    mem_basis: str = "auto",
    gap_fill: str = "peak",
) -> tuple[npt.NDArray[np.float32], dict[str, Any]]:
    """Demand of every server at every step, per dimension.

    Parameters
    ----------
    aligned : AlignedSeries
    names : sequence of str
        Servers in plan order; rows of the result.
    dims : sequence of str
        Placement dimensions (cpu, mem, vcpu, disk_iops, disk_mb_s, net_mbps).
    flat : ndarray, shape (n, len(dims))
        Flat demand per server and dimension, used where there is no curve.
    cpu_capacity : ndarray
        Normalized CPU capacity per server [capacity units].
    capacity_mhz : ndarray
        CPU capacity per server [MHz] for ``cpu_mhz`` series (NaN if unknown).
    mem_gib, mem_overhead_gib : ndarray
        Configured memory and per-VM overhead per server [GiB].
    mem_basis : {"auto", "used", "configured"}
    gap_fill : {"peak", "zero"}

    Returns
    -------
    curves : ndarray, shape (n, T, len(dims)), float32
    report : dict
        ``from_series`` {dim: servers with a curve}, ``flat`` {dim: servers
        without}, ``gap_steps_filled`` {dim: steps filled}, ``mem_basis``.
    """
    n, t = len(names), aligned.n_steps
    curves = np.empty((n, t, len(dims)), dtype=np.float32)
    report: dict[str, Any] = {
        "from_series": {},
        "flat": {},
        "gap_steps_filled": {},
        "gap_fill": gap_fill,
        "mem_basis": mem_basis,
    }
    for j, dim in enumerate(dims):
        mat: FloatArray
        if dim == "cpu":
            mat = _cpu_fraction(aligned, names, capacity_mhz) * cpu_capacity[:, None]
        elif dim == "mem":
            if mem_basis == "configured":
                mat = np.full((n, t), np.nan)
            else:
                used = _rows(aligned, "mem_used_gib", names)
                frac = _rows(aligned, "mem_util", names)
                no_used = np.isnan(used).all(axis=1)
                used[no_used] = (frac * mem_gib[:, None])[no_used]
                mat = used + mem_overhead_gib[:, None]
        elif dim in ("disk_iops", "disk_mb_s", "net_mbps"):
            mat = _rows(aligned, dim, names)
        else:
            mat = np.full((n, t), np.nan)
        mat, filled = _fill_gaps(mat, gap_fill)
        none = np.isnan(mat).all(axis=1)
        if none.any():
            mat[none] = flat[none, j][:, None]
        curves[:, :, j] = np.nan_to_num(mat, nan=0.0)
        report["from_series"][dim] = int((~none).sum())
        report["flat"][dim] = int(none.sum())
        report["gap_steps_filled"][dim] = filled
    return curves, report


def downsample_max(values: npt.NDArray[Any], points: int) -> tuple[npt.NDArray[Any], int]:
    """Max over consecutive blocks along the last-but-one axis so at most ``points`` remain.

    Returns the reduced array and the stride (steps per point).
    """
    t = values.shape[-2] if values.ndim >= 2 else values.shape[0]
    stride = max(1, -(-t // points))
    if stride == 1:
        return values, 1
    pad = (-t) % stride
    axis = values.ndim - 2 if values.ndim >= 2 else 0
    if pad:
        widths = [(0, 0)] * values.ndim
        widths[axis] = (0, pad)
        values = np.pad(values, widths, mode="edge")
    shape = list(values.shape)
    shape[axis : axis + 1] = [shape[axis] // stride, stride]
    return values.reshape(shape).max(axis=axis + 1), stride


def step_label(index: pd.DatetimeIndex, step: int | None) -> str | None:
    """ISO-8601 UTC time of a step index, or None."""
    if step is None or step < 0 or step >= len(index):
        return None
    return index[step].strftime("%Y-%m-%dT%H:%M:%SZ")
