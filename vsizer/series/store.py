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

import hashlib
import json
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from vsizer._atomic import fsync_dir
from vsizer.errors import ConfigError, SeriesError
from vsizer.series._journal import (
    JOURNAL_SUFFIX,
    is_locked,
    iso_utc,
    read_journal,
)
from vsizer.series.model import (
    METRICS,
    SERIES_COLUMNS,
    SeriesQuality,
    SeriesSet,
    empty_series,
)

__all__ = ["STORE_MARKER", "PartInfo", "SeriesStore", "require_pyarrow"]

STORE_MARKER = "vsizer-store.json"
STORE_FORMAT = "vsizer-series-store"
STORE_VERSION = 1
_META_KEY = b"vsizer"
_ROW_GROUP = 262_144
_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


def require_pyarrow() -> Any:
    """Import pyarrow, or raise ConfigError saying how to install it."""
    try:
        import pyarrow
        import pyarrow.parquet  # noqa: F401
    except ImportError:  # pragma: no cover - the test environment has the extra
        raise ConfigError(
            "The series store needs pyarrow: pip install 'vsizer[series]'"
        ) from None
    return pyarrow


def safe_name(text: str) -> str:
    """File-name-safe spelling of *text* (letters, digits, '.', '_', '-')."""
    return _SAFE.sub("_", text).strip("._") or "server"


@dataclass(frozen=True)
class PartInfo:
    """One part of a store.

    Attributes
    ----------
    name : str
        File name under ``parts/``.
    source, source_format : str
        What was imported (file as given) and its format ('collect' for the collector).
    rows : int
    servers, metrics : tuple of str
    start, end : Timestamp or None
        First and last sample time (UTC).
    created : bool
        False when :meth:`SeriesStore.append` found the same content already stored.
    sealed_from : str or None
        Journal file name, for a part sealed from a collector journal.
    quality : SeriesQuality
    machines : dict
        Per-server sizes the reader found (``metadata['machines']``, e.g.
        Alibaba ``machine_meta`` CPU counts); empty for most formats.
    """

    name: str
    source: str
    source_format: str
    rows: int
    servers: tuple[str, ...]
    metrics: tuple[str, ...]
    start: pd.Timestamp | None
    end: pd.Timestamp | None
    created: bool = True
    sealed_from: str | None = None
    quality: SeriesQuality = field(default_factory=SeriesQuality)
    machines: dict[str, Any] = field(default_factory=dict)


def _jsonable(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, (pd.Timestamp, datetime)):
        return obj.isoformat()
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    return str(obj)


def _canonical(data: pd.DataFrame, where: str) -> pd.DataFrame:
    """Check a tidy frame and return it with canonical dtypes and row order."""
    missing = [c for c in SERIES_COLUMNS if c not in data.columns]
    if missing:
        raise SeriesError(
            f"{where}: expected columns {', '.join(SERIES_COLUMNS)}, "
            f"missing {', '.join(missing)}"
        )
    frame = pd.DataFrame(
        {
            "server": data["server"].astype("string"),
            "timestamp": pd.to_datetime(data["timestamp"], utc=True).astype(
                "datetime64[ns, UTC]"
            ),
            "metric": data["metric"].astype("string"),
            "value": pd.to_numeric(data["value"], errors="coerce").astype("float64"),
            "unit": data["unit"].astype("string"),
        }
    )
    problems = []
    unknown = sorted(set(frame["metric"].dropna()) - set(METRICS))
    if unknown:
        problems.append(
            f"{where}: unknown metric(s) {', '.join(unknown)}; expected one of "
            f"{', '.join(METRICS)}"
        )
    pairs = frame[["metric", "unit"]].drop_duplicates()
    for metric, unit in pairs.itertuples(index=False):
        if metric in METRICS and unit != METRICS[metric]:
            problems.append(
                f"{where}: metric {metric} must be in {METRICS[metric]}, got unit {unit!r}"
            )
    for col in ("server", "timestamp", "metric"):
        n = int(frame[col].isna().sum())
        if n:
            problems.append(f"{where}: {n} row(s) with no {col}")
    if problems:
        raise SeriesError(problems)
    return frame.sort_values(
        ["server", "metric", "timestamp", "value"], kind="mergesort"
    ).reset_index(drop=True)


def content_sha256(frame: pd.DataFrame, source_format: str) -> str:
    """SHA-256 of a canonical tidy frame: same rows and format, same digest."""
    h = hashlib.sha256(f"vsizer-series-v1\0{source_format}\0{len(frame)}\0".encode())
    for col in ("server", "metric", "unit"):
        codes, uniques = pd.factorize(frame[col], sort=False)
        h.update("\x1f".join(str(u) for u in uniques).encode("utf-8") + b"\0")
        h.update(np.asarray(codes, dtype="<i8").tobytes())
    h.update(np.asarray(pd.DatetimeIndex(frame["timestamp"]).asi8, "<i8").tobytes())
    h.update(frame["value"].to_numpy(dtype="<f8").tobytes())
    return h.hexdigest()


def _ts(text: Any) -> pd.Timestamp | None:
    return None if text is None else pd.Timestamp(text)


def _part_info(name: str, meta: dict[str, Any], created: bool = True) -> PartInfo:
    q = meta.get("quality") or {}
    quality = SeriesQuality(
        issues=list(q.get("issues", [])), notes=list(q.get("notes", []))
    )
    return PartInfo(
        name=name,
        source=str(meta.get("source", "")),
        source_format=str(meta.get("source_format", "")),
        rows=int(meta.get("rows", 0)),
        servers=tuple(meta.get("servers", [])),
        metrics=tuple(meta.get("metrics", [])),
        start=_ts(meta.get("start")),
        end=_ts(meta.get("end")),
        created=created,
        sealed_from=meta.get("sealed_from"),
        quality=quality,
        machines=dict((meta.get("metadata") or {}).get("machines") or {}),
    )


def _parse_when(value: Any, name: str) -> pd.Timestamp | None:
    if value is None:
        return None
    try:
        ts = pd.Timestamp(value)
    except (ValueError, TypeError):
        raise ConfigError(
            f"The '{name}' parameter of SeriesStore.read must be a time such as "
            f"2024-05-01T00:00Z. Got {value!r} instead."
        ) from None
    return ts.tz_localize("UTC") if ts.tzinfo is None else ts.tz_convert("UTC")


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
        require_pyarrow()
        import pyarrow.parquet as pq

        entries: list[tuple[Path, PartInfo]] = []
        problems: list[str] = []
        for path in self.part_paths():
            try:
                meta = (pq.read_schema(path).metadata or {}).get(_META_KEY)
            except (OSError, ValueError) as exc:  # ArrowInvalid is a ValueError
                problems.append(
                    f"{path}: not a readable Parquet part ({_first_line(exc)}); move it "
                    "out of the store and import its source again"
                )
                continue
            if meta is None:
                problems.append(
                    f"{path}: a Parquet file without vsizer metadata; the store holds "
                    "only parts written by vsizer (move it out of parts/)"
                )
                continue
            entries.append((path, _part_info(path.name, json.loads(meta))))
        if problems:
            raise SeriesError(problems)
        return entries

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
        pa = require_pyarrow()
        import pyarrow.parquet as pq

        where = series.source or "series"
        frame = _canonical(series.data, where)
        if frame.empty:
            raise SeriesError(f"{where}: no samples to store")
        fmt = safe_name(series.source_format or "series")
        sha = content_sha256(frame, fmt)
        name = f"{fmt}-{sha[:16]}.parquet"
        final = self.parts_dir / name
        if final.exists():
            return _part_info(name, self._meta_of(final), created=False)
        meta = {
            "store_version": STORE_VERSION,
            "source": series.source,
            "source_format": series.source_format,
            "sha256": sha,
            "rows": len(frame),
            "servers": sorted(frame["server"].unique().tolist()),
            "metrics": sorted(frame["metric"].unique().tolist()),
            "start": frame["timestamp"].min().isoformat(),
            "end": frame["timestamp"].max().isoformat(),
            "quality": {"issues": series.quality.issues, "notes": series.quality.notes},
            "metadata": series.metadata,
            "sealed_from": sealed_from,
            "written": iso_utc(datetime.now(UTC)),
        }
        table = pa.Table.from_pandas(frame, schema=_schema(pa), preserve_index=False)
        table = table.replace_schema_metadata(
            {_META_KEY: json.dumps(_jsonable(meta), ensure_ascii=False).encode("utf-8")}
        )
        self.parts_dir.mkdir(parents=True, exist_ok=True)
        tmp = self.parts_dir / f".tmp-{name}-{os.getpid()}"
        try:
            with open(tmp, "wb") as fh:
                pq.write_table(table, fh, compression="zstd", row_group_size=_ROW_GROUP)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, final)
        finally:
            tmp.unlink(missing_ok=True)
        fsync_dir(self.parts_dir)
        return _part_info(name, _jsonable(meta))

    def _meta_of(self, path: Path) -> dict[str, Any]:
        import pyarrow.parquet as pq

        raw = (pq.read_schema(path).metadata or {}).get(_META_KEY, b"{}")
        meta: dict[str, Any] = json.loads(raw)
        return meta

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
        import pyarrow.compute as pc
        import pyarrow.parquet as pq

        server_list = None if servers is None else [str(s) for s in servers]
        metric_list = None if metrics is None else [str(m) for m in metrics]
        for m in metric_list or []:
            if m not in METRICS:
                raise ConfigError(
                    f"The 'metrics' parameter of SeriesStore.read must name metrics "
                    f"among {', '.join(METRICS)}. Got {m!r} instead."
                )
        t0 = _parse_when(start, "start")
        t1 = _parse_when(end, "end")
        # Journals first, then parts: a journal sealed in between is then found
        # as a part naming it in sealed_from, never lost nor read twice.
        journals = self.journal_paths()
        entries = self._part_entries()
        sealed = {info.sealed_from for _, info in entries if info.sealed_from}

        expr = None
        conds = []
        if server_list is not None:
            conds.append(pc.field("server").isin(server_list))
        if metric_list is not None:
            conds.append(pc.field("metric").isin(metric_list))
        if t0 is not None:
            conds.append(pc.field("timestamp") >= t0.to_pydatetime())
        if t1 is not None:
            conds.append(pc.field("timestamp") < t1.to_pydatetime())
        for c in conds:
            expr = c if expr is None else expr & c

        frames: list[pd.DataFrame] = []
        labels: list[str] = []
        quality = SeriesQuality()
        sources: list[dict[str, Any]] = []
        problems: list[str] = []
        for path, info in entries:
            try:
                table = pq.read_table(path, filters=expr)
            except (OSError, ValueError) as exc:
                problems.append(
                    f"{path}: not a readable Parquet part ({_first_line(exc)})"
                )
                continue
            frames.append(table.to_pandas())
            labels.append(f"parts/{info.name}")
            _merge_quality(quality, info.quality, server_list)
            entry: dict[str, Any] = {
                "part": info.name,
                "source": info.source,
                "format": info.source_format,
            }
            machines = {
                k: v
                for k, v in info.machines.items()
                if server_list is None or k in server_list
            }
            if machines:
                entry["machines"] = machines
            sources.append(entry)
        live = []
        for path in journals:
            if path.name in sealed:
                continue
            try:
                contents = read_journal(path, label=f"journal/{path.name}")
            except FileNotFoundError:
                continue  # sealed meanwhile; its part was listed after
            except SeriesError as exc:
                problems.extend(exc.problems)
                continue
            df = contents.series.data
            mask = np.ones(len(df), dtype=bool)
            if server_list is not None:
                mask &= df["server"].isin(server_list).to_numpy()
            if metric_list is not None:
                mask &= df["metric"].isin(metric_list).to_numpy()
            if t0 is not None:
                mask &= (df["timestamp"] >= t0).to_numpy()
            if t1 is not None:
                mask &= (df["timestamp"] < t1).to_numpy()
            frames.append(df[mask])
            labels.append(f"journal/{path.name}")
            _merge_quality(quality, contents.series.quality, server_list)
            live.append(path.name)
        if problems:
            raise SeriesError(problems)
        data = _concat(frames)
        _report_duplicates(data, frames, labels, quality)
        return SeriesSet(
            data=data,
            quality=quality,
            source=str(self.path),
            source_format="store",
            metadata={
                "store": str(self.path),
                "parts": len(entries),
                "open_journals": live,
                "sources": sources,
            },
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


def _schema(pa: Any) -> Any:
    return pa.schema(
        [
            ("server", pa.string()),
            ("timestamp", pa.timestamp("ns", tz="UTC")),
            ("metric", pa.string()),
            ("value", pa.float64()),
            ("unit", pa.string()),
        ]
    )


def _concat(frames: Sequence[pd.DataFrame]) -> pd.DataFrame:
    frames = [f for f in frames if len(f)]
    if not frames:
        return empty_series()
    data = pd.concat(frames, ignore_index=True)
    data = data.astype(
        {
            "server": "string",
            "metric": "string",
            "unit": "string",
            "value": "float64",
            "timestamp": "datetime64[ns, UTC]",
        }
    )
    return data.sort_values(
        ["server", "metric", "timestamp"], kind="mergesort"
    ).reset_index(drop=True)[list(SERIES_COLUMNS)]


def _report_duplicates(
    data: pd.DataFrame,
    frames: Sequence[pd.DataFrame],
    labels: Sequence[str],
    quality: SeriesQuality,
) -> None:
    """Add a ``duplicate`` issue per server and metric sampled twice at one time
    by different parts/journals (rows are kept)."""
    if len([f for f in frames if len(f)]) < 2 or data.empty:
        return
    keys = ["server", "metric", "timestamp"]
    origin = pd.concat(
        [f[keys].assign(_origin=i) for i, f in enumerate(frames) if len(f)],
        ignore_index=True,
    )
    dup = origin[origin.duplicated(keys, keep=False)]
    if dup.empty:
        return
    per_time = dup.groupby(keys, sort=True)["_origin"].agg(["nunique", "min", "max"])
    per_time = per_time[per_time["nunique"] > 1].reset_index()
    for (server, metric), g in per_time.groupby(["server", "metric"], sort=True):
        origins = sorted(set(g["min"]).union(g["max"]))
        names = ", ".join(labels[i] for i in origins[:3])
        more = f" and {len(origins) - 3} more" if len(origins) > 3 else ""
        quality.add(
            str(server),
            "duplicate",
            len(g),
            f"{len(g)} {metric} sample time(s) stored more than once (in {names}{more}); "
            "all rows kept",
        )


def _merge_quality(
    into: SeriesQuality, part: SeriesQuality, servers: list[str] | None
) -> None:
    for issue in part.issues:
        if servers is None or not issue.get("server") or issue["server"] in servers:
            into.issues.append(dict(issue))
    for note in part.notes:
        into.note(note)


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


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
