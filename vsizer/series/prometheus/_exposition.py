"""One node_exporter scrape file: its samples, its time and the server it is of.

The parse step of :func:`vsizer.series.prometheus.scrape.read_node_exporter`:
the text exposition format 0.0.4 read line by line, keeping the series of
:data:`~vsizer.series.prometheus._node_metrics.WANTED`; then the scrape time
(argument, ``# scrape_time`` comment, ``node_time_seconds`` or the file time)
and the server name (argument or ``node_uname_info``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from vsizer._textio import decode, read_bytes, utc_ns
from vsizer.errors import SeriesError
from vsizer.series._tidy import Problems, file_label
from vsizer.series.prometheus._common import parse_value
from vsizer.series.prometheus._node_metrics import VARIABLE_MAP, WANTED

__all__ = ["LabelKey", "Samples", "Scrape", "parse_scrape", "scrape_server", "scrape_time"]

_SAMPLE_RE = re.compile(
    r"^(?P<name>[a-zA-Z_:][a-zA-Z0-9_:]*)"
    r"(?:\{(?P<labels>.*)\})?"
    r"\s+(?P<value>\S+)(?:\s+(?P<ts>-?\d+))?\s*$"
)
_LABEL_RE = re.compile(
    r'\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*(?:,|$)'
)
_SCRAPE_TIME_RE = re.compile(r"^#\s*scrape_time\s*:?\s+(?P<t>\S+)\s*$")
_SAMPLE_EXPECTED = 'a sample such as node_cpu_seconds_total{cpu="0",mode="idle"} 123.4'

LabelKey = tuple[tuple[str, str], ...]
#: Series name -> labels -> value.
Samples = dict[str, dict[LabelKey, float]]


@dataclass
class Scrape:
    """One scrape file: its samples, then its time and server once told."""

    file: str
    path: Path
    samples: Samples = field(default_factory=dict)
    comment_time: str | None = None
    time_ns: int = 0
    time_from: str = ""
    server: str = ""


def parse_scrape(path: Path, problems: Problems) -> Scrape:
    """The samples vsizer reads from one exposition-format file."""
    sc = Scrape(file=file_label(path), path=path)
    try:
        # Bad bytes become U+FFFD: a label value never decides a number.
        text, _ = decode(
            read_bytes(path), sc.file, encodings=("utf-8",), utf16_bom=False,
            errors="replace",
        )
    except SeriesError as exc:
        problems.whole(sc.file, str(exc).split(": ", 1)[-1])
        return sc
    for n, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line:
            continue
        if line.startswith("#"):
            m = _SCRAPE_TIME_RE.match(line)
            if m:
                sc.comment_time = m.group("t")
            continue
        name = re.split(r"[{\s]", line, maxsplit=1)[0]
        if name not in WANTED:
            continue
        m = _SAMPLE_RE.match(line)
        labels = _parse_labels(m.group("labels")) if m else None
        value = parse_value(m.group("value")) if m else None
        if m is None or labels is None or value is None:
            problems.cell(sc.file, n, _SAMPLE_EXPECTED, line)
            continue
        sc.samples.setdefault(name, {})[labels] = value
    if not any(k in sc.samples for k in VARIABLE_MAP):
        problems.whole(
            sc.file,
            "expected node_exporter samples (node_cpu_seconds_total, "
            "node_memory_MemTotal_bytes, ...), found none.",
        )
    return sc


def _parse_labels(text: str | None) -> LabelKey | None:
    if not text:
        return ()
    pairs: list[tuple[str, str]] = []
    pos = 0
    while pos < len(text):
        m = _LABEL_RE.match(text, pos)
        if not m:
            return None
        value = m.group(2).replace(r"\\", "\0").replace(r"\"", '"').replace(r"\n", "\n")
        pairs.append((m.group(1), value.replace("\0", "\\")))
        pos = m.end()
    return tuple(sorted(pairs))


def scrape_time(
    sc: Scrape, given: str | pd.Timestamp | float | None, problems: Problems
) -> None:
    """Set the scrape's time and where it came from (the first of four sources)."""
    if given is not None:
        ns = _to_ns(given)
        if ns is None:
            problems.whole(
                sc.file,
                f"expected a scrape time (ISO 8601 or Unix seconds), got '{given}'.",
            )
        sc.time_ns, sc.time_from = ns or 0, "argument"
        return
    if sc.comment_time is not None:
        ns = _to_ns(sc.comment_time)
        if ns is None:
            problems.whole(
                sc.file,
                "expected '# scrape_time' to give an ISO 8601 time or Unix seconds, "
                f"got '{sc.comment_time}'.",
            )
        sc.time_ns, sc.time_from = ns or 0, "scrape_time comment"
        return
    node_time = sc.samples.get("node_time_seconds", {}).get(())
    if node_time is not None and math.isfinite(node_time):
        # to the microsecond: a float64 holds no finer at today's Unix times
        sc.time_ns = int(round(node_time * 1e6)) * 1000
        sc.time_from = "node_time_seconds"
        return
    sc.time_ns = int(sc.path.stat().st_mtime_ns)
    sc.time_from = "file time"


def _to_ns(value: str | pd.Timestamp | float) -> int | None:
    """ISO 8601 text, Timestamp or Unix seconds -> ns, UTC (seconds to the µs)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if not math.isfinite(value):
            return None
        return int(round(float(value) * 1e6)) * 1000
    text = str(value).strip()
    try:
        seconds = float(text)
    except ValueError:
        pass
    else:
        return int(round(seconds * 1e6)) * 1000 if math.isfinite(seconds) else None
    return utc_ns(text)


def scrape_server(sc: Scrape, server: str | None, problems: Problems) -> None:
    """Set the scrape's server: *server*, else ``nodename`` of ``node_uname_info``."""
    if server is not None:
        sc.server = server
        return
    for labels in sc.samples.get("node_uname_info", {}):
        name = dict(labels).get("nodename", "")
        if name:
            sc.server = name
            return
    problems.whole(
        sc.file,
        'expected node_uname_info{nodename="..."} to name the server, found none; '
        "give it with --server NAME.",
    )
