"""Pieces shared by the public-trace readers: time parsing and folder listing."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

#: Nanoseconds per second.
NS = 1_000_000_000


def utc_ns(value: str | pd.Timestamp) -> int | None:
    """``value`` as nanoseconds since the Unix epoch (UTC); a naive time is UTC.

    None when it is no time.
    """
    try:
        ts = pd.Timestamp(value)
    except (ValueError, TypeError):
        return None
    if ts is pd.NaT:
        return None
    ts = ts.tz_localize("UTC") if ts.tzinfo is None else ts.tz_convert("UTC")
    return int(ts.as_unit("ns").value)


def visible_files(folder: Path) -> list[Path]:
    """Regular files of ``folder`` not starting with ``.``, sorted by name."""
    return sorted(
        (p for p in folder.iterdir() if p.is_file() and not p.name.startswith(".")),
        key=lambda p: p.name,  # the contract's server order
    )
