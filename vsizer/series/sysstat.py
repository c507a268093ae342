"""Linux sysstat output -> tidy utilization series.

Reads the four forms sysstat prints (``sar``/``sadf`` by S. Godard,
https://github.com/sysstat/sysstat):

``sadf -d``
    Semicolon CSV. Each activity starts with a header line
    ``# hostname;interval;timestamp;<fields...>``; rows carry the host name, the
    interval [s] and the time, ``YYYY-MM-DD HH:MM:SS UTC`` (``-U``: Unix
    seconds; ``-t``/``-T``: local time without a zone). Restarts and comments are
    rows with interval ``-1``: ``LINUX-RESTART (9 CPU)``, ``COM text``.
``sadf -dh``
    One line per interval with every activity; repeating groups are marked
    ``[...]`` in the header. Their length is not written, so a group can be
    delimited only when its keys tell (CPU numbers ascending) or when it is the
    last repeating group of the line; activities behind a group that cannot be
    delimited are not read and a note says so (use ``sadf -d`` for those).
``sadf -j``
    JSON: ``sysstat.hosts[].statistics[]`` with a ``timestamp`` object per
    interval, ``restarts`` per host.
``sadf -p`` (sadf's default)
    One value a line: ``hostname<TAB>interval<TAB>timestamp<TAB>device<TAB>field
    <TAB>value``; the device is ``-`` for activities without one (see
    :mod:`vsizer.series._sysstat_sadf_p`). Restarts: interval ``-1``.
``sar`` text
    Tables per activity under a banner ``Linux <release> (<host>) <date> ...``;
    times ``HH:MM:SS`` (or ``hh:MM:SS AM``, ``18時25分47秒``, ``22时27分50秒``,
    ``21시 47분 24초``) local to the host, the date in the
    banner in the locale's form (``04/18/19``, ``2019-04-18``, ``18.04.2019``,
    ``18-04-2019``, ``2019年04月18日``, ``2019년 04월 18일``: see
    :mod:`vsizer.series._sysstat_dates`), ``Average:``/``Summary:`` lines and
    their translations (``Moyenne :``, ``平均時間：``), ``LINUX RESTART`` lines.
    ``sar -h`` values with a unit (``1.4G``, ``46.1%``) are converted to the
    column's unit (:mod:`vsizer.series._sysstat_fields`) and counted
    (``human_units``); ``--pretty`` (device name last) is read as is. iostat
    output is refused in one line.

Metrics (sysstat "kB" are KiB, sectors are 512 bytes):

* ``cpu_util`` = (100 - %idle) / 100 of the all-CPU row (``CPU`` = ``-1`` or
  ``all``); per-CPU rows only tell which CPUs were offline.
* ``mem_used_gib`` = kbmemused x 1024 / 2^30; ``mem_util`` = %memused / 100.
* ``disk_iops`` = tps and ``disk_mb_s`` = (bread/s + bwrtn/s) x 512 / 10^6 of the
  I/O totals (``sar -b``, physical devices as counted by sysstat); without them,
  the sum over ``sar -d`` devices of tps and (rkB/s + wkB/s) x 1024 / 10^6 (or
  (rd_sec/s + wr_sec/s) x 512 / 10^6), leaving out partitions of a listed disk,
  device-mapper/md devices stacked on listed disks, and loop/ram/zram devices.
* ``net_mbps`` = sum over interfaces other than ``lo`` of
  (rxkB/s + txkB/s) x 8 x 1024 / 10^6, leaving out bridges, their ports, tunnels
  and VLANs while a physical interface is listed (their traffic crosses it too;
  ``virtual_interfaces`` issue).

Comment lines (``#``) and a footer after the last data line (a collection
script's ``## ...`` lines) are skipped and counted (``skipped_lines``). The CPU
count (banner, restarts, ``number-of-cpus``) and the memory total (kbmemused x 100
/ %memused, matched to a sum of ``sar -r`` fields) go to ``metadata['machines']``
and size a server that has no inventory row
(:mod:`vsizer.series.as_inventory`). %iowait counts as busy; where it reaches 5 %
an ``iowait_busy`` issue says how much.

Times are converted to UTC. A time without a zone (``sar`` text, ``sadf -t``)
is read in the ``tz`` given, else as UTC with a ``unit_guess`` issue.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from vsizer._small_file import not_a_file
from vsizer._textio import decode, read_bytes
from vsizer.errors import SeriesError
from vsizer.series._native import parse_tz_param, shown
from vsizer.series._sysstat_collect import VARIABLE_MAP, Collector
from vsizer.series._sysstat_json import parse_json
from vsizer.series._sysstat_parse import BANNER_RE, parse_sadf_csv, parse_sar_text
from vsizer.series._sysstat_sadf_p import SADF_P_RE, parse_sadf_p
from vsizer.series.model import SeriesSet

__all__ = ["VARIABLE_MAP", "read_sysstat"]

#: Encodings tried in order: UTF-8 (any locale's sar), cp932, else Latin-1,
#: which decodes any bytes. No UTF-16 byte-order mark is honoured: NUL bytes
#: mean a binary file, refused before decoding.
ENCODINGS: tuple[str, ...] = ("utf-8-sig", "cp932", "latin-1")


def read_sysstat(
    path: str | os.PathLike[str],
    *,
    server: str | None = None,
    tz: str | None = None,
) -> SeriesSet:
    """Read sysstat output (``sadf -d``, ``-dh``, ``-j``, ``-p`` or ``sar`` text).

    Parameters
    ----------
    path : str or path-like
        The text ``sadf``/``sar`` printed (not the binary ``saDD`` file).
    server : str, optional
        Name for the server; default the host name in the file. Only for a
        file holding one host.
    tz : str, optional
        Time zone of times written without one (``sar`` text, ``sadf -t``):
        an IANA name (``"Asia/Tokyo"``) or an offset (``"+09:00"``). Default:
        such times are read as UTC and a ``unit_guess`` issue says so.

    Returns
    -------
    SeriesSet
        ``source_format`` ``'sar'``; ``metadata`` holds ``variant`` (``sadf -d``,
        ``sadf -dh``, ``sadf -j``, ``sadf -p``, ``sar``), ``hosts``, ``release``,
        ``cpu_count``, ``intervals_s``, ``median_interval_s``, ``timezone``,
        ``disk_source``, ``ignored_records`` (rows of activities not used,
        counted per record type), ``skipped_lines`` (comments and footers) and
        ``machines`` (server -> ``cpu_count``, ``vcpus``, ``mem_gib`` and where
        each came from).

    Raises
    ------
    SeriesError
        The file is missing, not sysstat output, or holds bad values; one line
        per problem, ``{file} line {n}: expected ..., got '...'.``
    """
    p = Path(path)
    label = p.name
    zone = parse_tz_param(tz, "read_sysstat")
    if not p.is_file():
        raise SeriesError(f"{label}: {not_a_file(path)}")
    data = read_bytes(p)
    if b"\x00" in data[:4096]:
        raise SeriesError(
            f"{label}: expected text printed by sadf or sar, got a binary file; "
            "convert a binary sa file with 'sadf -d <file> -- -A'."
        )
    text, _ = decode(data, label, encodings=ENCODINGS, utf16_bom=False)
    _refuse_iostat(text, label)
    col = Collector(label, zone)
    stripped = text.lstrip()
    if stripped.startswith("{"):
        variant = "sadf -j"
        parse_json(text, col)
    elif re.search(r"^#\s*hostname;interval;timestamp", text, re.MULTILINE):
        variant = "sadf -dh" if re.search(r"^#.*\[\.\.\.\]", text, re.M) else "sadf -d"
        parse_sadf_csv(text.splitlines(), col)
    elif SADF_P_RE.match(stripped.split("\n", 1)[0].rstrip("\r")):
        variant = "sadf -p"
        parse_sadf_p(text.splitlines(), col)
    elif BANNER_RE.match(stripped) or re.search(
        r"^\d{1,2}(?::|\s*[時时시]\s*)\d{2}", text, re.MULTILINE
    ):
        variant = "sar"
        parse_sar_text(text.splitlines(), col)
    else:
        first = stripped.splitlines()[0] if stripped else ""
        markup = (
            " (XML or SVG, as sadf -x or -g writes, is not read: give sadf -j or -d)"
            if first.startswith("<") else ""
        )  # fmt: skip
        raise SeriesError(
            f"{label} line 1: expected sysstat output (sadf -d, sadf -dh, sadf -j, "
            f"sadf -p or sar text), got '{shown(first)}'{markup}."
        )
    col.problems.raise_if_any()
    return col.result(p, variant, server)


#: iostat's CPU table, in text (``avg-cpu:  %user ...``) and JSON (``"avg-cpu":``).
_IOSTAT_RE = re.compile(r'^[ \t]*(?:avg-cpu:|"avg-cpu":)', re.MULTILINE)


def _refuse_iostat(text: str, label: str) -> None:
    """iostat output, which vsizer does not read, refused in one line (its rows
    carry no time; every row would be an error of its own)."""
    m = _IOSTAT_RE.search(text)
    if m is None:
        return
    line = text.count("\n", 0, m.start()) + 1
    raise SeriesError(
        f"{label} line {line}: expected sar or sadf output, got iostat output "
        f"('{shown(text[m.start():].strip().splitlines()[0])}'), which vsizer does "
        "not read; give 'sar -u -d' text or 'sadf -d -- -u -d'."
    )

