"""Pieces shared by the public-trace readers: time parsing, folder listing, counts."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from vsizer._textio import utc_ns
from vsizer.series.model import SeriesQuality

__all__ = ["NS", "first_per_time", "note_day_lengths", "utc_ns", "visible_files"]

#: Nanoseconds per second.
NS = 1_000_000_000


def visible_files(folder: Path) -> list[Path]:
    """Regular files of ``folder`` not starting with ``.``, sorted by name."""
    return sorted(
        (p for p in folder.iterdir() if p.is_file() and not p.name.startswith(".")),
        key=lambda p: p.name,  # the contract's server order
    )


def first_per_time(
    ts: np.ndarray, quality: SeriesQuality, server: str, detail: str
) -> np.ndarray:
    """Mask keeping the first row of each run of equal times in sorted ``ts``;
    the rows dropped are counted as ``duplicate`` issues of ``server``."""
    first = np.ones(len(ts), dtype=bool)
    first[1:] = ts[1:] != ts[:-1]
    n_dup = int((~first).sum())
    if n_dup:
        quality.add(server, "duplicate", n_dup, detail)
    return first


def note_day_lengths(
    quality: SeriesQuality, lengths: np.ndarray, what: str
) -> list[int]:
    """The distinct lengths of one-day files; a note when some are not 288.

    ``what`` names the 288 items, e.g. ``"values (one day at 5-minute steps)"``.
    """
    counts = sorted({int(n) for n in lengths})
    if counts != [288]:
        off = int((lengths != 288).sum())
        quality.note(
            f"{off} of {len(lengths)} files do not hold 288 {what}; read as they are."
        )
    return counts
