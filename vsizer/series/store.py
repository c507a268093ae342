"""The series store: a directory of Parquet parts plus the collector's open journals.

Layout (docs/series-store.md)::

    STORE/vsizer-store.json          marker: {"format": "vsizer-series-store", "version": 1}
    STORE/parts/<format>-<sha>.parquet   tidy rows of one import source or one
                                     sealed journal; zstd; <sha> = first 16 hex of
                                     the SHA-256 of the rows, so the same content
                                     is stored once (re-import is a no-op)
    STORE/journal/<server>-<start>-<pid>.jsonl   collector journals (vsizer.series._journal)

Each part carries, in its Parquet key-value metadata under ``vsizer``, its
source, format, row count, time range, the reader's quality report and, for a
sealed journal, the journal's name. A part is written to a dot-named temporary
file, fsynced, renamed into place and the directory fsynced: readers see
whole parts or nothing, and need no lock, so ``plan`` can read a store while
``collect`` writes to it.

Why Parquet rather than DuckDB: a DuckDB database file is locked by the process
writing it, so ``plan`` could not read while ``collect`` runs; append-only parts
with atomic renames need no lock, and Parquet is read by pandas, polars, DuckDB
and Spark without vsizer.

pyarrow is imported inside the functions that need it (extra ``series``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from vsizer._atomic import fsync_dir
from vsizer.errors import SeriesError
from vsizer.series._journal import (
    JOURNAL_SUFFIX,
    is_locked,
    iso_utc,
    read_journal,
)
from vsizer.series.model import SeriesQuality, SeriesSet
from vsizer.series.store_columnar import StoreColumns, store_duplicates
from vsizer.series.store_compact import CompactReport, compact_store
from vsizer.series.store_parts import (
    PartInfo,
    canonical_frame,
    content_sha256,
    meta_jsonable,
    part_entries,
    part_footer,
    part_info,
    part_meta,
    require_pyarrow,
    safe_name,
    write_part,
)
from vsizer.series.store_read import (
    Gathered,
    StoreQuery,
    live_entries,
    merge_quality,
    read_journals,
    source_entry,
)

__all__ = [
    "STORE_MARKER",
    "PartInfo",
    "SeriesStore",
    "content_sha256",
    "require_pyarrow",
    "safe_name",
]

STORE_MARKER = "vsizer-store.json"
STORE_FORMAT = "vsizer-series-store"
STORE_VERSION = 1
#: Rows per part when a large column-wise set is imported (8 row groups).
PART_ROWS = 2_097_152


class SeriesStore:
    """A series store directory. Use :meth:`create` or :meth:`open`.

    Examples
    --------
    >>> store = SeriesStore.create("fleet-store")            # doctest: +SKIP
    >>> store.append(read_sysstat("web01.sadf-d.txt"))      # doctest: +SKIP
    >>> store.read(servers=["web01"], metrics=["cpu_util"])  # doctest: +SKIP
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.parts_dir = self.path / "parts"
        self.journal_dir = self.path / "journal"

    def __repr__(self) -> str:
        return f"SeriesStore({str(self.path)!r})"

    # -- opening -------------------------------------------------------------
    @staticmethod
    def is_store(path: str | os.PathLike[str]) -> bool:
        """True if *path* is a directory holding a store marker."""
        return (Path(path) / STORE_MARKER).is_file()

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> SeriesStore:
        """Open an existing store.

        Raises
        ------
        SeriesError
            *path* does not exist, is not a store (no marker), or its marker is
            not a version this vsizer reads.
        """
        p = Path(path)
        if not p.exists():
            raise SeriesError(
                f"{p}: no such series store (the directory does not exist)"
            )
        if not cls.is_store(p):
            raise SeriesError(f"{p} is not a vsizer series store (no {STORE_MARKER})")
        marker = p / STORE_MARKER
        try:
            doc = json.loads(marker.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError):
            doc = None
        if not isinstance(doc, dict) or doc.get("format") != STORE_FORMAT:
            raise SeriesError(
                f'{marker}: expected a JSON object with "format": "{STORE_FORMAT}"; '
                "the file is damaged or belongs to another program"
            )
        if doc.get("version") != STORE_VERSION:
            raise SeriesError(
                f"{marker}: store format version {doc.get('version')!r}; this vsizer "
                f"reads version {STORE_VERSION}"
            )
        return cls(p)

    @classmethod
    def create(cls, path: str | os.PathLike[str]) -> SeriesStore:
        """Open the store at *path*, creating it if absent.

        Raises
        ------
        SeriesError
            *path* is a file, or a non-empty directory that is not a store.
        """
        p = Path(path)
        if cls.is_store(p):
            return cls.open(p)
        if p.exists() and not p.is_dir():
            raise SeriesError(f"{p} is a file, not a series store directory")
        if p.is_dir():
            entries = sorted(e.name for e in p.iterdir())
            if entries:
                shown = ", ".join(entries[:3]) + (", ..." if len(entries) > 3 else "")
                raise SeriesError(
                    f"{p} is not a vsizer series store (no {STORE_MARKER}) and is not "
                    f"empty ({shown}); give a new or empty directory"
                )
        p.mkdir(parents=True, exist_ok=True)
        doc = {
            "format": STORE_FORMAT,
            "version": STORE_VERSION,
            "created": iso_utc(datetime.now(UTC)),
            "layout": "parts/*.parquet (tidy rows: server, timestamp, metric, value, "
            "unit) + journal/*.jsonl (collector tail); see vsizer docs/series-store.md",
        }
        # the marker first: if it cannot be written (full disk) the directory
        # stays empty and a rerun can create the store there
        _atomic_write(p / STORE_MARKER, (json.dumps(doc, indent=2) + "\n").encode())
        (p / "parts").mkdir(exist_ok=True)
        (p / "journal").mkdir(exist_ok=True)
        return cls(p)

    # -- listing ---------------------------------------------------------------
    def part_paths(self) -> list[Path]:
        """Part files, sorted by name (temporary files excluded)."""
        if not self.parts_dir.is_dir():
            return []
        return sorted(
            p
            for p in self.parts_dir.iterdir()
            if p.suffix == ".parquet" and not p.name.startswith(".")
        )

    def journal_paths(self) -> list[Path]:
        """Journal files, sorted by name."""
        if not self.journal_dir.is_dir():
            return []
        return sorted(
            p
            for p in self.journal_dir.iterdir()
            if p.suffix == JOURNAL_SUFFIX and not p.name.startswith(".")
        )

    def parts(self) -> list[PartInfo]:
        """Every part's description, read from the Parquet footers only.

        Raises
        ------
        SeriesError
            One line per part that is not a readable vsizer part.
        """
        return [info for _, info in self._part_entries()]

    def _part_entries(self) -> list[tuple[Path, PartInfo]]:
        return part_entries(self.part_paths())

    # -- writing ---------------------------------------------------------------
    def append(self, series: SeriesSet, *, sealed_from: str | None = None) -> PartInfo:
        """Store a series set as one part; the same rows already stored are not repeated.

        Parameters
        ----------
        series : SeriesSet
            Tidy rows (:data:`~vsizer.series.model.SERIES_COLUMNS`) in canonical
            units, as every reader returns them.
        sealed_from : str, optional
            Journal file name the rows come from (set by the collector).

        Returns
        -------
        PartInfo
            ``created`` is False when a part with the same content existed.

        Raises
        ------
        SeriesError
            No rows, missing columns, unknown metrics or non-canonical units.
        """
        require_pyarrow()

        where = series.source or "series"
        frame = canonical_frame(series.data, where)
        if frame.empty:
            raise SeriesError(f"{where}: no samples to store")
        fmt = safe_name(series.source_format or "series")
        sha = content_sha256(frame, fmt)
        name = f"{fmt}-{sha[:16]}.parquet"
        final = self.parts_dir / name
        if final.exists():
            return part_info(name, part_meta(final), created=False)
        meta = part_footer(
            frame, sha, store_version=STORE_VERSION, source=series.source,
            source_format=series.source_format, quality=series.quality,
            metadata=series.metadata, sealed_from=sealed_from,
            written=iso_utc(datetime.now(UTC)),
        )  # fmt: skip
        write_part(self.parts_dir, name, frame, meta)
        fsync_dir(self.parts_dir)
        return part_info(name, meta_jsonable(meta))

    def append_split(
        self, series: SeriesSet, *, part_rows: int = PART_ROWS
    ) -> list[PartInfo]:
        """Store a series set as parts of at most about ``part_rows`` rows each.

        A set held column-wise (:class:`~vsizer.series.columnar.SampleColumns`:
        Bitbrains, PlanetLab) larger than ``part_rows`` is cut between servers
        and each piece written as its own part (its servers' quality issues, the
        set's notes and metadata), so importing a month of traces never builds
        the tidy frame of the whole set. Otherwise one part, as :meth:`append`.
        The cut depends on the content only: importing again stores nothing.
        """
        from vsizer.series.columnar import SampleColumns

        cols = series.columns
        if not isinstance(cols, SampleColumns) or cols.rows <= part_rows:
            return [self.append(series)]
        infos: list[PartInfo] = []
        chunk: list[Any] = []
        rows = 0
        for s in cols.samples:
            n = int(np.count_nonzero(~np.isnan(s.block)))
            if chunk and rows + n > part_rows:
                infos.append(self.append(_piece(series, chunk)))
                chunk, rows = [], 0
            chunk.append(s)
            rows += n
        if chunk:
            infos.append(self.append(_piece(series, chunk)))
        return infos

    def compact(self, *, target_rows: int = PART_ROWS) -> CompactReport:
        """Merge small parts (fewer than ``target_rows / 2`` rows) into parts of at
        most ``target_rows`` rows; readers see the same rows and quality
        (:mod:`vsizer.series.store_compact`)."""
        require_pyarrow()
        return compact_store(
            self.parts_dir, self.journal_dir, STORE_VERSION, target_rows=target_rows
        )

    def seal_journal(self, path: Path) -> PartInfo | None:
        """Turn a (closed) journal into a part, then remove the journal.

        Idempotent: if the part already exists (a crash between the rename and
        the removal), the journal is just removed. A torn last line is dropped
        and recorded in the part's quality report. Returns None for a journal
        with no complete sample (it is removed) or one already gone.
        """
        try:
            contents = read_journal(path, label=f"journal/{path.name}")
        except FileNotFoundError:
            return None
        info = None
        if not contents.series.data.empty:
            info = self.append(contents.series, sealed_from=path.name)
        path.unlink(missing_ok=True)
        fsync_dir(path.parent)
        return info

    def seal_stale_journals(self) -> list[PartInfo]:
        """Seal every journal no live collector holds (left by a crash or kill)."""
        sealed = []
        for path in self.journal_paths():
            if is_locked(path):
                continue
            info = self.seal_journal(path)
            if info is not None:
                sealed.append(info)
        self._remove_dead_temporaries()
        return sealed

    def _remove_dead_temporaries(self) -> None:
        """Remove ``.tmp-*-<pid>`` part files whose writer process is gone."""
        if not self.parts_dir.is_dir():
            return
        for tmp in self.parts_dir.glob(".tmp-*"):
            pid = tmp.name.rsplit("-", 1)[-1]
            if pid.isdigit() and not _pid_alive(int(pid)):
                tmp.unlink(missing_ok=True)

    # -- reading ---------------------------------------------------------------
    def read(
        self,
        servers: Iterable[str] | None = None,
        metrics: Iterable[str] | None = None,
        start: Any = None,
        end: Any = None,
    ) -> SeriesSet:
        """Read the store (parts and open journals) into one series set.

        Parameters
        ----------
        servers, metrics : iterable of str, optional
            Keep only these (default all).
        start, end : time, optional
            Keep samples with ``start <= timestamp < end`` (naive times are UTC).

        Returns
        -------
        SeriesSet
            ``source_format='store'``; quality: every part's report (for the
            servers read) plus one ``duplicate`` issue per server and metric
            whose samples at one time appear in more than one part (all kept).

        Raises
        ------
        ConfigError
            An unknown metric or a time that cannot be parsed.
        SeriesError
            A damaged part or journal.
        """
        require_pyarrow()
        query = StoreQuery.of(servers, metrics, start, end)
        # Journals first, then parts: a journal sealed in between is then found
        # as a part naming it in sealed_from, never lost nor read twice.
        journals = self.journal_paths()
        entries = live_entries(self._part_entries())
        sealed = {info.sealed_from for _, info in entries if info.sealed_from}
        got = Gathered()
        for _, info in entries:  # footers only: the rows are streamed when aligned
            merge_quality(got.quality, info.quality, query.servers)
            got.sources.append(source_entry(info, query.servers))
        read_journals([p for p in journals if p.name not in sealed], query, got)
        if got.problems:
            raise SeriesError(got.problems)
        store_duplicates(entries, query, got.frames, got.labels, got.quality)
        return SeriesSet(
            None,
            got.quality,
            str(self.path),
            "store",
            {
                "store": str(self.path),
                "parts": len(entries),
                "open_journals": got.live,
                "sources": got.sources,
            },
            columns=StoreColumns(entries, query, got.frames),
        )

    def summary(self) -> pd.DataFrame:
        """One row per server and metric: unit, rows, distinct times, start, end, median step [s].

        Also lists the parts and journals in ``DataFrame.attrs``
        (``parts``, ``journals``, ``rows``, ``issues``).
        """
        series = self.read()
        data = series.data
        rows = []
        for (server, metric), g in data.groupby(["server", "metric"], sort=True):
            ts = g["timestamp"].drop_duplicates().sort_values()
            steps = ts.diff().dropna().dt.total_seconds()
            rows.append(
                {
                    "server": server,
                    "metric": metric,
                    "unit": str(g["unit"].iloc[0]),
                    "rows": len(g),
                    "steps": len(ts),
                    "start": ts.iloc[0],
                    "end": ts.iloc[-1],
                    "step_s": float(steps.median()) if len(steps) else float("nan"),
                }
            )
        out = pd.DataFrame(
            rows,
            columns=[
                "server",
                "metric",
                "unit",
                "rows",
                "steps",
                "start",
                "end",
                "step_s",
            ],
        )
        out.attrs.update(
            parts=series.metadata["parts"],
            journals=len(series.metadata["open_journals"]),
            rows=len(data),
            issues=len(series.quality.issues),
        )
        return out


def _piece(series: SeriesSet, samples: list[Any]) -> SeriesSet:
    """The part of a column-wise set holding ``samples`` (a run of its servers)."""
    from vsizer.series.columnar import SampleColumns

    names = {s.server for s in samples}
    quality = SeriesQuality(
        issues=[dict(i) for i in series.quality.issues if i.get("server") in names],
        notes=list(series.quality.notes),
    )
    return SeriesSet(
        None, quality, series.source, series.source_format, series.metadata,
        columns=SampleColumns(samples),
    )  # fmt: skip


def _atomic_write(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".tmp-{path.name}-{os.getpid()}")
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    fsync_dir(path.parent)


def _pid_alive(pid: int) -> bool:
    if os.name == "nt":  # pragma: no cover - os.kill would terminate it on Windows
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # pragma: no cover - someone else's process
        return True
    return True
