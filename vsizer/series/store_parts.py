"""Parts of a series store: their rows, content digest, Parquet schema and metadata.

A part is one Parquet file under ``STORE/parts/`` holding the tidy rows of
one import source or one sealed journal, with its description (source,
format, rows, time range, quality report) in the key-value metadata under
``vsizer`` (docs/series-store.md). :class:`~vsizer.series.store.SeriesStore`
lists, writes and reads parts through this module.

pyarrow is imported inside the functions that need it (extra ``series``).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from vsizer.errors import ConfigError, SeriesError
from vsizer.series.model import METRICS, SERIES_COLUMNS, SeriesQuality

__all__ = [
    "META_KEY",
    "PartInfo",
    "canonical_frame",
    "content_sha256",
    "meta_jsonable",
    "part_entries",
    "part_info",
    "part_meta",
    "require_pyarrow",
    "safe_name",
    "write_part",
]

#: Key of a part's description in its Parquet key-value metadata.
META_KEY = b"vsizer"
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
    compacted_from : tuple of str
        For a part made by :meth:`SeriesStore.compact`, the parts merged into it.
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
    compacted_from: tuple[str, ...] = ()


def meta_jsonable(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {str(k): meta_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set)):
        return [meta_jsonable(v) for v in obj]
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, (pd.Timestamp, datetime)):
        return obj.isoformat()
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    return str(obj)


def canonical_frame(data: pd.DataFrame, where: str) -> pd.DataFrame:
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


def part_footer(
    frame: pd.DataFrame,
    sha: str,
    *,
    store_version: int,
    source: str,
    source_format: str,
    quality: SeriesQuality,
    metadata: dict[str, Any],
    sealed_from: Any,
    written: str,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The footer of a new part holding ``frame`` (canonical): what :func:`part_info`
    reads back. ``extra`` keys (e.g. ``compacted_from``) go before ``written``."""
    return {
        "store_version": store_version,
        "source": source,
        "source_format": source_format,
        "sha256": sha,
        "rows": len(frame),
        "servers": sorted(frame["server"].unique().tolist()),
        "metrics": sorted(frame["metric"].unique().tolist()),
        "start": frame["timestamp"].min().isoformat(),
        "end": frame["timestamp"].max().isoformat(),
        "quality": {"issues": quality.issues, "notes": quality.notes},
        "metadata": metadata,
        "sealed_from": sealed_from,
        **(extra or {}),
        "written": written,
    }


def _ts(text: Any) -> pd.Timestamp | None:
    return None if text is None else pd.Timestamp(text)


def part_info(name: str, meta: dict[str, Any], created: bool = True) -> PartInfo:
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
        machines=_machines(meta),
        compacted_from=tuple(
            str(c.get("part")) for c in meta.get("compacted_from") or []
        ),
    )


def _machines(meta: dict[str, Any]) -> dict[str, Any]:
    """Per-server sizes of a part's reader; for a ``sar`` part written before the
    sysstat reader recorded them, its CPU counts (``metadata['cpu_count']``, per
    host name of the file) under the part's server names."""
    inner = meta.get("metadata") or {}
    machines = dict(inner.get("machines") or {})
    counts = inner.get("cpu_count")
    if machines or meta.get("source_format") != "sar" or not isinstance(counts, dict):
        return machines
    servers = list(meta.get("servers", []))
    if len(counts) == 1 and len(servers) == 1:  # --server renamed the one host
        counts = {servers[0]: next(iter(counts.values()))}
    return {
        str(name): {
            "cpu_count": int(n),
            "vcpus": int(n),
            "cpu_count_from": "the sysstat file's CPU count (store part metadata)",
        }
        for name, n in counts.items()
        if str(name) in servers and isinstance(n, int) and n > 0
    }


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


def write_part(
    parts_dir: Path, name: str, frame: pd.DataFrame, meta: dict[str, Any]
) -> None:
    """Write *frame* with *meta* as ``parts_dir/name``: temporary file, fsync, rename.

    Readers see the whole part or nothing (the directory is not fsynced here).
    """
    pa = require_pyarrow()
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(frame, schema=_schema(pa), preserve_index=False)
    table = table.replace_schema_metadata(
        {META_KEY: json.dumps(meta_jsonable(meta), ensure_ascii=False).encode("utf-8")}
    )
    parts_dir.mkdir(parents=True, exist_ok=True)
    tmp = parts_dir / f".tmp-{name}-{os.getpid()}"
    try:
        with open(tmp, "wb") as fh:
            pq.write_table(table, fh, compression="zstd", row_group_size=_ROW_GROUP)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, parts_dir / name)
    finally:
        tmp.unlink(missing_ok=True)


def part_meta(path: Path) -> dict[str, Any]:
    """The description stored in a part's footer (``{}`` without one)."""
    import pyarrow.parquet as pq

    raw = (pq.read_schema(path).metadata or {}).get(META_KEY, b"{}")
    meta: dict[str, Any] = json.loads(raw)
    return meta


def part_entries(paths: list[Path]) -> list[tuple[Path, PartInfo]]:
    """Each part file with its description, read from the Parquet footers only.

    Raises
    ------
    SeriesError
        One line per file that is not a readable vsizer part.
    """
    require_pyarrow()
    import pyarrow.parquet as pq

    entries: list[tuple[Path, PartInfo]] = []
    problems: list[str] = []
    for path in paths:
        try:
            meta = (pq.read_schema(path).metadata or {}).get(META_KEY)
        except (OSError, ValueError) as exc:  # ArrowInvalid is a ValueError
            problems.append(
                f"{path}: not a readable Parquet part ({first_line(exc)}); move it "
                "out of the store and import its source again"
            )
            continue
        if meta is None:
            problems.append(
                f"{path}: a Parquet file without vsizer metadata; the store holds "
                "only parts written by vsizer (move it out of parts/)"
            )
            continue
        entries.append((path, part_info(path.name, json.loads(meta))))
    if problems:
        raise SeriesError(problems)
    return entries


def first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
