"""Read utilization series from a store or from files named with their format.

:data:`FORMATS` maps each ``--format`` / ``--series-format`` name to its reader
and the options the reader accepts. :func:`load_series` is what
``vsizer plan --series`` calls: without a format every source must be a series
store; with one, each path is read by that reader and the results merged.
Samples of one server, metric and time found in more than one source are all
kept and reported as ``duplicate`` quality issues, never dropped.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vsizer._textio import open_binary
from vsizer.errors import ConfigError, SeriesError
from vsizer.series.model import SeriesQuality, SeriesSet

__all__ = [
    "FORMATS",
    "READER_FLAGS",
    "SeriesFormat",
    "SourceRead",
    "load_series",
    "merge_series",
    "plan_reads",
    "why_empty",
]

Reader = Callable[..., SeriesSet]


@dataclass(frozen=True)
class SeriesFormat:
    """One input format.

    Attributes
    ----------
    name : str
        ``--format`` value.
    description : str
        What files it reads (shown in errors and docs).
    options : tuple of str
        Reader keyword options it accepts (``None`` values are ignored).
    """

    name: str
    description: str
    options: tuple[str, ...]


#: Format name -> description and accepted options (the readers live in
#: vsizer.series.{sysstat,perfmon,prometheus,tabular,traces}).
FORMATS: dict[str, SeriesFormat] = {
    f.name: f
    for f in (
        SeriesFormat(
            "sar",
            "sysstat output: sadf -d, -dh, -j, -p or sar text (read_sysstat)",
            ("server", "tz"),
        ),
        SeriesFormat(
            "perfmon",
            "Windows Performance Monitor log saved as CSV or TSV (PDH-CSV/TSV) "
            "(read_perfmon)",
            ("server", "tz", "encoding", "mem_capacity_gib"),
        ),
        SeriesFormat(
            "prometheus",
            "node_exporter /metrics scrapes (two or more files, or a folder of them; "
            "read_node_exporter) or a query_range JSON response (read_query_range, "
            "needs metric); told apart by content",
            (
                "server",
                "metric",
                "unit",
                "server_label",
                "metrics",
                "timestamps",
                "disk_exclude",
                "net_exclude",
            ),
        ),
        SeriesFormat(
            "long",
            "CSV with one row per server, time, metric and value (read_long)",
            ("tz",),
        ),
        SeriesFormat(
            "wide",
            "CSV with a time or step-index column and one column per server "
            "(read_wide)",
            ("metric", "unit", "timestamp_col", "index_column", "start", "step", "tz"),
        ),
        SeriesFormat(
            "planetlab",
            "CloudSim PlanetLab traces: a folder of per-VM files (read_planetlab)",
            ("start",),
        ),
        SeriesFormat(
            "bitbrains",
            "Bitbrains GWA-T-12 per-VM files or their folder (read_bitbrains)",
            (),
        ),
        SeriesFormat(
            "alibaba",
            "Alibaba cluster-trace-v2018: machine_usage.csv, or the folder holding it "
            "and machine_meta.csv (read_alibaba_machine_usage)",
            ("start", "machines"),
        ),
        SeriesFormat(
            "gcd",
            "Google cluster-derived VM traces: per-VM files of 'CPU% memory%' lines "
            "at 5-minute steps, or their folder (read_gcd)",
            ("start",),
        ),
        SeriesFormat(  # tidy stopgap until SeriesSet carries matrices
            "azure",
            "Azure Public Dataset VM trace: vm_cpu_readings files (CSV or Parquet) and "
            "vmtable, or their folder (read_azure)",
            ("start",),
        ),
    )
}
_STORE_OPTIONS = ("servers", "metrics", "start", "end")

#: Reader option -> the command-line flag that sets it ('vsizer import' and
#: 'vsizer plan --series'); options without a flag are library-only.
READER_FLAGS: dict[str, str] = {
    "server": "--server",
    "tz": "--tz",
    "encoding": "--encoding",
    "metric": "--metric",
    "unit": "--unit",
    "index_column": "--index-column",
    "start": "--start",
    "step": "--series-step",
}


def _flag(option: str) -> str:
    return READER_FLAGS.get(option, f"{option}=")


@dataclass(frozen=True)
class SourceRead:
    """One read to do: a label for messages and progress, and the call."""

    label: str
    run: Callable[[], SeriesSet]


def _format_names() -> str:
    return "|".join(FORMATS)


def _check_format(fmt: str) -> SeriesFormat:
    if fmt not in FORMATS:
        raise ConfigError(
            f"Unknown series format {fmt!r}; expected one of {', '.join(FORMATS)}."
        )
    return FORMATS[fmt]


def _options(fmt: SeriesFormat, options: dict[str, Any]) -> dict[str, Any]:
    given = {k: v for k, v in options.items() if v is not None}
    wrong = [k for k in given if k not in fmt.options]
    if wrong:
        flags = [_flag(o) for o in fmt.options if o in READER_FLAGS]
        accepted = ", ".join(flags) if flags else "none of the reader flags"
        raise ConfigError(
            f"{', '.join(_flag(w) for w in wrong)} "
            f"{'does' if len(wrong) == 1 else 'do'} not apply to series format "
            f"{fmt.name!r}; it accepts: {accepted}."
        )
    return given


def _is_json(path: Path) -> bool:
    with open_binary(path) as fh:
        head = fh.read(256).lstrip(b"\xef\xbb\xbf \t\r\n")
    return head.startswith((b"{", b"["))


def _files_of(path: Path) -> list[Path]:
    if path.is_dir():
        return sorted(
            p for p in path.iterdir() if p.is_file() and not p.name.startswith(".")
        )
    return [path]


def plan_reads(
    sources: Sequence[str | os.PathLike[str]], fmt: str, **options: Any
) -> list[SourceRead]:
    """The reads that turn *sources* in format *fmt* into series sets.

    One read per source, except node_exporter scrapes: all scrape files (and
    the files of scrape folders) are read together, since rates need
    consecutive scrapes of a server.

    Raises
    ------
    ConfigError
        Unknown format or an option the format does not accept; a query_range
        JSON without ``metric``.
    SeriesError
        A source that does not exist.
    """
    spec = _check_format(fmt)
    opts = _options(spec, options)
    paths = [Path(s) for s in sources]
    if not paths:
        raise ConfigError("No series source given; name at least one file or folder.")
    missing = [f"{p}: no such file or folder" for p in paths if not p.exists()]
    if missing:
        raise SeriesError(missing)
    if fmt == "prometheus":
        return _prometheus_reads(paths, opts)
    reader = _reader(fmt)
    if fmt in _PER_FILE:
        return [read for p in paths for read in _folder_reads(p, reader, opts)]
    return [SourceRead(str(p), _bind(reader, p, opts)) for p in paths]


#: Formats whose reader takes one file: a folder given as a source is its files.
_PER_FILE = frozenset({"sar", "perfmon"})


def _folder_reads(path: Path, reader: Reader, opts: dict[str, Any]) -> list[SourceRead]:
    """One read per file of a folder source (not hidden, sorted), *path* itself when
    it is a file; a subfolder is one error saying it is not read, never skipped
    silently; an empty folder is an error."""
    if not path.is_dir():
        return [SourceRead(str(path), _bind(reader, path, opts))]
    inside = sorted(p for p in path.iterdir() if not p.name.startswith("."))
    reads = [SourceRead(str(p), _bind(reader, p, opts)) for p in inside if p.is_file()]
    reads += [SourceRead(str(p), _refuse(_SUBFOLDER.format(p))) for p in inside if p.is_dir()]
    return reads or [SourceRead(str(path), _refuse(f"{path}: expected files in the folder, got none"))]


_SUBFOLDER = (
    "{}: a folder inside a source folder is not read; give it as a source of its own"
)


def why_empty(series: SeriesSet) -> str:
    """What a source without samples held: records its reader left unread (sar) or
    its first note (an empty query_range result), else ''."""
    ignored = series.metadata.get("ignored_records") or {}
    if ignored:
        held = ", ".join(f"'{k}' ({n} rows)" for k, n in list(ignored.items())[:3])
        return f"only {held}"
    notes = series.quality.notes
    return notes[0].rstrip(".") if notes else ""


def _refuse(message: str) -> Callable[[], SeriesSet]:
    def run() -> SeriesSet:
        raise SeriesError(message)

    return run


def _bind(reader: Reader, path: Any, opts: dict[str, Any]) -> Callable[[], SeriesSet]:
    return lambda: reader(path, **opts)


def _reader(fmt: str) -> Reader:
    if fmt == "sar":
        from vsizer.series.sysstat import read_sysstat

        return read_sysstat
    if fmt == "perfmon":
        from vsizer.series.perfmon import read_perfmon

        return read_perfmon
    if fmt in ("long", "wide"):
        from vsizer.series.tabular import read_long
        from vsizer.series.wide import read_wide

        return read_long if fmt == "long" else read_wide
    from vsizer.series import traces

    readers: dict[str, Reader] = {
        "planetlab": traces.read_planetlab,
        "bitbrains": traces.read_bitbrains,
        "alibaba": traces.read_alibaba_machine_usage,
        "gcd": traces.read_gcd,
        "azure": traces.read_azure_series,
    }
    return readers[fmt]


def _prometheus_reads(paths: list[Path], opts: dict[str, Any]) -> list[SourceRead]:
    from vsizer.series.prometheus import read_node_exporter, read_query_range

    json_files: list[Path] = []
    scrapes: list[Path] = []
    for p in paths:
        for f in _files_of(p):
            (json_files if _is_json(f) else scrapes).append(f)
    reads = []
    q_opts: dict[str, Any] = {
        k: opts[k] for k in ("metric", "unit", "server_label", "server") if k in opts
    }
    if json_files and "metric" not in q_opts:
        raise ConfigError(
            f"{json_files[0]}: a Prometheus query_range response holds one metric; "
            "say which with --metric (cpu_util, mem_used_gib, disk_iops, ...)."
        )
    for f in json_files:
        reads.append(SourceRead(str(f), _bind(read_query_range, f, q_opts)))
    if scrapes:
        n_opts: dict[str, Any] = {
            k: opts[k]
            for k in ("server", "metrics", "timestamps", "disk_exclude", "net_exclude")
            if k in opts
        }
        if "metric" in opts and "metrics" not in opts:
            n_opts["metrics"] = [opts["metric"]]
        label = (
            str(scrapes[0])
            if len(scrapes) == 1
            else f"{scrapes[0].parent}/ ({len(scrapes)} scrapes)"
        )
        reads.append(SourceRead(label, _bind(read_node_exporter, scrapes, n_opts)))
    return reads


def merge_series(sets: Sequence[SeriesSet]) -> SeriesSet:
    """Concatenate series sets; report (and keep) samples found in several sets.

    Returns
    -------
    SeriesSet
        Rows sorted by server, metric, timestamp; quality issues and notes of
        every set, plus a ``duplicate`` issue per server and metric sampled at
        one time in more than one set. ``source_format`` is the common format
        or ``'mixed'``.
    """
    from vsizer.series.columnar import SampleColumns, merge_columns
    from vsizer.series.store_read import concat_frames, report_duplicates

    if len(sets) == 1:
        return sets[0]
    labels = [s.source for s in sets]
    quality = SeriesQuality()
    for s in sets:
        quality.issues.extend(dict(i) for i in s.quality.issues)
        for note in s.quality.notes:
            quality.note(note)
    held = [s.columns for s in sets]
    columns = None
    if all(isinstance(c, SampleColumns) for c in held):  # servers disjoint: no duplicate
        columns = merge_columns([c for c in held if isinstance(c, SampleColumns)])
    data = None
    if columns is None:
        frames = [s.data for s in sets]
        data = concat_frames(frames)
        report_duplicates(data, frames, labels, quality)
    formats = {s.source_format for s in sets}
    return SeriesSet(
        data,
        quality,
        ", ".join(labels),
        formats.pop() if len(formats) == 1 else "mixed",
        columns=columns,
        metadata={
            "sources": [
                {"source": s.source, "format": s.source_format, "metadata": s.metadata}
                for s in sets
            ]
        },
    )


def load_series(
    sources: Sequence[str | os.PathLike[str]],
    fmt: str | None = None,
    **reader_options: Any,
) -> SeriesSet:
    """Read series for planning: from stores, or from files in a named format.

    Parameters
    ----------
    sources : sequence of path
        Series stores (``fmt=None`` or ``'store'``) or files/folders in ``fmt``.
    fmt : str, optional
        One of :data:`FORMATS`; None (or 'store') means every source is a store.
    **reader_options
        Options of the format's reader (``FORMATS[fmt].options``; None values
        ignored), or for stores ``servers``, ``metrics``, ``start``, ``end``.

    Returns
    -------
    SeriesSet
        All sources merged (:func:`merge_series`).

    Raises
    ------
    SeriesError
        A source without format that is not a store (the message says to give
        ``--series-format``); a reader's errors.
    ConfigError
        Unknown format or option.

    Examples
    --------
    >>> load_series(["fleet-store"])                        # doctest: +SKIP
    >>> load_series(["web01.sadf.txt"], "sar", tz="Asia/Tokyo")  # doctest: +SKIP
    """
    if isinstance(sources, (str, os.PathLike)):
        sources = [sources]
    if not sources:
        raise ConfigError("No series source given; name a series store or files.")
    if fmt is None or fmt == "store":
        from vsizer.series.store import SeriesStore

        opts = {k: v for k, v in reader_options.items() if v is not None}
        wrong = [k for k in opts if k not in _STORE_OPTIONS]
        if wrong:
            raise ConfigError(
                f"{', '.join(_flag(w) for w in wrong)} "
                f"{'applies' if len(wrong) == 1 else 'apply'} to series files, not "
                "to a series store; give --series-format, or leave "
                f"{'it' if len(wrong) == 1 else 'them'} out."
            )
        problems = []
        for s in sources:
            if not SeriesStore.is_store(s):
                what = "no such file or folder" if not Path(s).exists() else None
                problems.append(
                    f"{s}: no such series store or file"
                    if what
                    else f"{s} is not a vsizer series store (no vsizer-store.json); "
                    f"give --series-format {_format_names()}"
                )
        if problems:
            raise SeriesError(problems)
        sets = [SeriesStore.open(s).read(**opts) for s in sources]
        return merge_series(sets)
    sets = [r.run() for r in plan_reads(sources, fmt, **reader_options)]
    return merge_series(sets)
