"""Pieces shared by the public-trace readers: time parsing and folder listing."""

from __future__ import annotations

from pathlib import Path

from vsizer.series._tidy import utc_ns

__all__ = ["NS", "utc_ns", "visible_files"]

#: Nanoseconds per second.
NS = 1_000_000_000


def visible_files(folder: Path) -> list[Path]:
    """Regular files of ``folder`` not starting with ``.``, sorted by name."""
    return sorted(
        (p for p in folder.iterdir() if p.is_file() and not p.name.startswith(".")),
        key=lambda p: p.name,  # the contract's server order
    )
