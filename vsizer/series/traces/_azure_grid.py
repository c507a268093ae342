"""Growable per-VM x per-step matrices: where Azure readings are binned.

A :class:`Grid` holds, for the VMs seen so far (rows, in order of first
appearance) and the steps spanned so far (columns, absolute step numbers since
the Unix epoch), the float32 sum, the max and the count of the readings of
each cell. Readings are added straight into it (no frame of samples); its
capacity doubles when a VM or a step outside it arrives. A worker fills one
per file; the driver merges the workers' grids into one, in file order.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, TypeVar, cast

import numpy as np
import numpy.typing as npt
import pandas as pd

__all__ = ["MAX_GRID_CELLS", "Grid", "GridTooLarge"]

#: Largest grid (VMs x steps) built: 2**30 cells, 6 GiB of float32 sums and
#: uint16 counts. A month of 5-minute steps fits 124,000 VMs.
MAX_GRID_CELLS = 2**30


class GridTooLarge(ValueError):
    """The VMs x steps of the readings exceed :data:`MAX_GRID_CELLS`."""

F32 = npt.NDArray[np.float32]
A = TypeVar("A", bound=npt.NDArray[Any])

#: Largest count a cell holds (uint16).
_MAX_COUNT = np.iinfo(np.uint16).max


@dataclass
class Grid:
    """Cells of readings; see the module docstring. ``how`` is "mean" or "max"."""

    how: str = "mean"

    def __post_init__(self) -> None:
        self.names: list[str] = []
        self._known: pd.Index | None = None
        self.bin0 = 0
        self.n_bins = 0
        self.sums: F32 = np.zeros((0, 0), dtype=np.float32)
        self.peaks: F32 = np.zeros((0, 0), dtype=np.float32)
        self.counts = np.zeros((0, 0), dtype=np.uint16)
        self.clipped = np.zeros(0, dtype=np.int64)
        self.dropped = np.zeros(0, dtype=np.int64)

    @property
    def n_vms(self) -> int:
        return len(self.names)

    def rows_of(self, values: Iterable[str]) -> npt.NDArray[np.int64]:
        """Row of each name (distinct names; added at the end when new)."""
        names = pd.Index(list(values), dtype=object)
        if self._known is None or len(self._known) != len(self.names):
            self._known = pd.Index(self.names, dtype=object)
        rows = self._known.get_indexer(names).astype(np.int64)
        new = np.flatnonzero(rows < 0)
        if len(new):
            rows[new] = np.arange(len(self.names), len(self.names) + len(new))
            self.names.extend(str(n) for n in names[new])
        return rows

    def _ensure(self, lo: int, hi: int) -> None:
        """Room for every VM named so far and steps ``lo``..``hi`` (absolute)."""
        cap_v, cap_b = self.counts.shape
        if self.n_bins == 0:
            new_lo, new_hi = lo, hi
        else:
            new_lo, new_hi = min(lo, self.bin0), max(hi, self.bin0 + self.n_bins - 1)
        fits = self.n_vms <= cap_v and self.n_bins and new_lo == self.bin0
        if fits and new_hi - self.bin0 < cap_b:
            self.n_bins = new_hi - self.bin0 + 1
            return
        need_b = new_hi - new_lo + 1
        if need_b * max(self.n_vms, 1) > MAX_GRID_CELLS:
            raise GridTooLarge(
                f"the readings of {self.n_vms:,} VM(s) span {need_b:,} steps: "
                f"{need_b * self.n_vms:,} cells, over the limit of {MAX_GRID_CELLS:,}; "
                "give a coarser --step, fewer VMs, or check the timestamps"
            )
        cols = max(need_b, _grow(cap_b) if need_b > cap_b else cap_b)
        shift = self.bin0 - new_lo if self.n_bins else 0
        self._realloc(max(self.n_vms, cap_v), cols, shift)
        self.bin0, self.n_bins = new_lo, need_b

    def _realloc(self, rows: int, cols: int, shift: int) -> None:
        cap_v = self.counts.shape[0]
        if rows > cap_v:
            rows = max(rows, _grow(cap_v))
        self.counts = _grown(self.counts, rows, cols, shift, self.n_bins, 0)
        self.sums = _grown(self.sums, rows, cols, shift, self.n_bins, 0)
        if self.how == "max":
            self.peaks = _grown(self.peaks, rows, cols, shift, self.n_bins, np.nan)
        self.clipped = _grown_1d(self.clipped, rows)
        self.dropped = _grown_1d(self.dropped, rows)

    def add(
        self,
        rows: npt.NDArray[np.int64],
        bins: npt.NDArray[np.int64],
        values: npt.NDArray[np.float64],
    ) -> None:
        """Add readings ``values`` of VM ``rows`` at absolute steps ``bins``."""
        if not len(rows):
            self._ensure_vms()
            return
        self._ensure(int(bins.min()), int(bins.max()))
        cols = bins - self.bin0
        width = self.counts.shape[1]
        flat = rows * width + cols
        np.add.at(self.counts.reshape(-1), flat, 1)
        np.add.at(self.sums.reshape(-1), flat, values.astype(np.float32))
        if self.how == "max":
            np.fmax.at(self.peaks.reshape(-1), flat, values.astype(np.float32))

    def _ensure_vms(self) -> None:
        if self.n_vms > self.counts.shape[0]:
            self._realloc(self.n_vms, self.counts.shape[1], 0)

    def count_rows(self, which: str, rows: npt.NDArray[np.int64]) -> None:
        """Count one ``clipped`` or ``dropped`` reading per entry of ``rows``."""
        self._ensure_vms()
        target = self.clipped if which == "clipped" else self.dropped
        np.add.at(target, rows, 1)

    def merge(self, other: Grid) -> None:
        """Add ``other``'s cells and counts (its VMs mapped onto these rows)."""
        rows = self.rows_of(other.names)
        if other.n_bins:
            self._ensure(other.bin0, other.bin0 + other.n_bins - 1)
            c0 = other.bin0 - self.bin0
            sl = slice(c0, c0 + other.n_bins)
            counts = self.counts[rows, sl].astype(np.uint32) + other.trimmed("counts")
            self.counts[rows, sl] = np.minimum(counts, _MAX_COUNT).astype(np.uint16)
            self.sums[rows, sl] += other.trimmed("sums")
            if self.how == "max":
                self.peaks[rows, sl] = np.fmax(self.peaks[rows, sl], other.trimmed("peaks"))
        else:
            self._ensure_vms()
        self.clipped[rows] += other.clipped[: other.n_vms]
        self.dropped[rows] += other.dropped[: other.n_vms]

    def trimmed(self, what: str) -> npt.NDArray[Any]:
        """``sums``, ``peaks`` or ``counts`` without the spare capacity (a view)."""
        mat: npt.NDArray[Any] = getattr(self, what)
        return mat[: self.n_vms, : self.n_bins]

    def release(self) -> None:
        """Free the matrices (sizes and names stay)."""
        self.sums = np.zeros((0, 0), dtype=np.float32)
        self.peaks = np.zeros((0, 0), dtype=np.float32)
        self.counts = np.zeros((0, 0), dtype=np.uint16)

    def compact(self) -> None:
        """Drop the spare capacity (before sending the grid to the driver)."""
        for what in ("sums", "counts") + (("peaks",) if self.how == "max" else ()):
            setattr(self, what, np.ascontiguousarray(self.trimmed(what)))
        self.clipped = self.clipped[: self.n_vms].copy()
        self.dropped = self.dropped[: self.n_vms].copy()


def _grow(n: int) -> int:
    """Next capacity: 1.25 x (a grid's spare room stays under a quarter)."""
    return n + max(n // 4, 16)


def _grown(mat: A, rows: int, cols: int, shift: int, n_bins: int, fill: float) -> A:
    out = np.full((rows, cols), fill, dtype=mat.dtype)
    r, _ = mat.shape
    if r and n_bins:
        out[:r, shift : shift + n_bins] = mat[:, :n_bins]
    return cast(A, out)


def _grown_1d(vec: npt.NDArray[np.int64], n: int) -> npt.NDArray[np.int64]:
    out = np.zeros(n, dtype=vec.dtype)
    out[: len(vec)] = vec
    return out
