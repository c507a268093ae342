"""Compaction of a series store: small parts merged into larger ones.

Each ``vsizer import`` of a small file and each sealed collector journal (every
720 samples by default) makes one part; a store fed for months holds thousands
of parts of a few hundred rows, and every read opens each of them.
:func:`compact_store` merges the small parts (fewer than half ``target_rows``
rows), in the order of their first server and start, into parts of at most
``target_rows`` rows:

* the merged part is named by its content like any part and lists the parts it
  replaces in its footer (``compacted_from``); it is written (temporary file,
  fsync, rename) *before* they are removed, and a reader skips every part a
  compacted part lists: a crash in between loses nothing and reads nothing
  twice, and the next compaction removes the leftovers;
* rows are kept as they are (samples stored twice stay twice); the quality
  reports of the merged parts are kept, plus the ``duplicate`` issues reading
  them as separate parts gave, so a plan reads the same numbers and notes;
* a part sealed from a journal that still exists (a seal in progress) is left.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from vsizer._atomic import fsync_dir
from vsizer._validation import Interval, check_param
from vsizer.series._journal import iso_utc
from vsizer.series.model import SeriesQuality
from vsizer.series.store_parts import (
    PartInfo,
    canonical_frame,
    content_sha256,
    meta_jsonable,
    part_entries,
    part_footer,
    write_part,
)
from vsizer.series.store_read import report_duplicates

__all__ = ["CompactReport", "compact_store"]


@dataclass
class CompactReport:
    """What :func:`compact_store` did: parts before and after, and the merges."""

    parts_before: int = 0
    parts_after: int = 0
    merged: list[tuple[str, list[str]]] = field(default_factory=list)
    removed_leftovers: list[str] = field(default_factory=list)


def compact_store(
    parts_dir: Path,
    journal_dir: Path,
    store_version: int,
    *,
    target_rows: int = 2_097_152,
) -> CompactReport:
    """Merge the small parts of ``parts_dir`` (see the module docstring)."""
    check_param("target_rows", target_rows, Interval(int, 2, None), "compact")
    paths = sorted(p for p in parts_dir.glob("*.parquet") if not p.name.startswith("."))
    entries = part_entries(paths)
    report = CompactReport(parts_before=len(entries))
    merged_away = {n for _, i in entries for n in i.compacted_from}
    live = []
    for path, info in entries:
        if info.name in merged_away:  # a compaction stopped before removing it
            path.unlink(missing_ok=True)
            report.removed_leftovers.append(info.name)
        else:
            live.append((path, info))
    pending = {p.name for p in journal_dir.glob("*.jsonl")} if journal_dir.is_dir() else set()
    small = [
        (p, i) for p, i in live
        if i.rows < target_rows // 2 and not (i.sealed_from and i.sealed_from in pending)
    ]  # fmt: skip
    small.sort(key=lambda e: (min(e[1].servers, default=""), str(e[1].start), e[1].name))
    for group in _groups(small, target_rows):
        name = _merge(parts_dir, group, store_version)
        report.merged.append((name, [i.name for _, i in group]))
    if report.merged or report.removed_leftovers:
        fsync_dir(parts_dir)
    report.parts_after = len(
        [p for p in parts_dir.glob("*.parquet") if not p.name.startswith(".")]
    )
    return report


def _groups(
    small: list[tuple[Path, PartInfo]], target_rows: int
) -> list[list[tuple[Path, PartInfo]]]:
    """Runs of consecutive small parts of at most ``target_rows`` rows (two or more)."""
    groups: list[list[tuple[Path, PartInfo]]] = []
    current: list[tuple[Path, PartInfo]] = []
    rows = 0
    for e in small:
        if current and rows + e[1].rows > target_rows:
            groups.append(current)
            current, rows = [], 0
        current.append(e)
        rows += e[1].rows
    groups.append(current)
    return [g for g in groups if len(g) > 1]


def _merge(parts_dir: Path, group: list[tuple[Path, PartInfo]], store_version: int) -> str:
    """Write the merged part of ``group``, then remove the parts it holds."""
    import pyarrow.parquet as pq

    frames = [pq.read_table(p).to_pandas() for p, _ in group]
    labels = [f"parts/{i.name}" for _, i in group]
    frame = canonical_frame(pd.concat(frames, ignore_index=True), str(parts_dir))
    quality = SeriesQuality()
    for _, info in group:
        quality.issues.extend(dict(i) for i in info.quality.issues)
        for note in info.quality.notes:
            quality.note(note)
    report_duplicates(frame, frames, labels, quality)
    formats = sorted({i.source_format for _, i in group})
    fmt = formats[0] if len(formats) == 1 else "mixed"
    sha = content_sha256(frame, fmt)
    name = f"compact-{sha[:16]}.parquet"
    machines: dict[str, Any] = {}
    for _, info in group:
        machines.update(info.machines)
    compacted_from = [
        {"part": i.name, "source": i.source, "format": i.source_format, "rows": i.rows}
        for _, i in group
    ]
    meta = part_footer(
        frame, sha, store_version=store_version,
        source="; ".join(dict.fromkeys(i.source for _, i in group)), source_format=fmt,
        quality=quality, metadata={"machines": machines} if machines else {},
        sealed_from=None, written=iso_utc(datetime.now(UTC)),
        extra={"compacted_from": compacted_from},
    )  # fmt: skip
    if not (parts_dir / name).exists():
        write_part(parts_dir, name, frame, meta_jsonable(meta))
        fsync_dir(parts_dir)
    for path, _ in group:
        path.unlink(missing_ok=True)
    return name
