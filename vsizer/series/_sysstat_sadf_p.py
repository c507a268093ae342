"""The ``sadf -p`` parser (sadf's default form), feeding a
:class:`~vsizer.series._sysstat_collect.Collector`.

Private to :mod:`vsizer.series.sysstat`, which documents the forms. sadf(1)
(https://sysstat.github.io/man/man1/sadf.html), option ``-p``: one value a line,
tab-separated ``hostname, interval, timestamp, device, field, value``; the
device is ``-`` for activities without one (memory, I/O totals), ``all`` or the
CPU number for CPUs, the name of a disk or interface otherwise. Restarts and
comments have interval ``-1``: ``LINUX-RESTART<TAB>(9 CPU)``, ``COM text``.

The lines of one activity row are consecutive and share host, time and device,
so a run of such lines is one row; a run of device ``-`` may hold several
activities (I/O totals, memory, swap ...), each fed from it.
"""

from __future__ import annotations

import re

from vsizer.series._sysstat_collect import VARIABLE_MAP, Collector
from vsizer.series._sysstat_parse import StampCache, sadf_stamp, sadf_time

__all__ = ["SADF_P_RE", "parse_sadf_p"]

#: The first line of ``sadf -p``: a value, a restart or a comment line.
SADF_P_RE = re.compile(r"^[^\t;]+\t-?\d+\t[^\t]+\t[^\t]*(?:\t|$)")
_CPU_KEY_RE = re.compile(r"^(?:all|-?\d+)$")


def parse_sadf_p(lines: list[str], col: Collector) -> None:
    run: tuple[str, str, str] | None = None  # host, timestamp, device
    fields: dict[str, str] = {}
    first = 0
    cache: StampCache = {}
    for n, raw in enumerate([*lines, ""], 1):
        line = raw.rstrip("\r\n")
        parts = line.split("\t")
        if len(parts) == 6 and parts[1].strip() != "-1":
            key = (parts[0], parts[2], parts[3])
            if key == run and parts[4] not in fields:
                fields[parts[4]] = parts[5]
                continue
            _row(run, fields, first, col, cache)
            run, fields, first = key, {parts[4]: parts[5]}, n
            if not parts[1].strip().isdigit():
                col.bad(f"{col.label} line {n}", "the interval in seconds", parts[1])
            else:
                col.intervals.add(int(parts[1]))
            continue
        _row(run, fields, first, col, cache)
        run, fields = None, {}
        if not line.strip() or n > len(lines):
            continue
        if len(parts) >= 4 and parts[1].strip() == "-1":
            stamp = sadf_time(parts[2])
            if stamp is not None and "RESTART" in parts[3]:
                col.host(parts[0])
                col.restart(parts[0], col.utc(*stamp, parts[0]), " ".join(parts[3:]))
            elif stamp is None:
                col.bad(f"{col.label} line {n}", "a time such as '2019-04-18 "
                        "13:20:19 UTC'", parts[2])  # fmt: skip
            continue  # LINUX-RESTART or a COM comment
        col.bad(
            f"{col.label} line {n}",
            "'hostname<TAB>interval<TAB>timestamp<TAB>device<TAB>field<TAB>value' "
            "(sadf -p)",
            line,
        )


def _row(
    run: tuple[str, str, str] | None,
    fields: dict[str, str],
    line: int,
    col: Collector,
    cache: StampCache,
) -> None:
    """Feed one run of lines to every activity it holds."""
    if run is None:
        return
    host, stamp, device = run
    where = f"{col.label} line {line}"
    ts = sadf_stamp(col, where, host, stamp, cache)
    if ts is None:
        return
    roles = {VARIABLE_MAP[f] for f in fields if f in VARIABLE_MAP}
    fed = False
    for activity, key, wanted in (
        ("cpu", device, "cpu_idle_pct" in roles and _CPU_KEY_RE.match(device)),
        ("mem", None, device == "-" and roles & {"mem_used_kib", "mem_used_pct"}),
        ("io", None, device == "-" and {"tps", "read_sectors_s"} <= roles),
        ("dev", device, device != "-" and "tps" in roles),
        ("net", device, device != "-" and roles & {"rx_kib_s", "rx_bytes_s"}),
    ):
        if wanted:
            col.feed(activity, host, ts, key, fields, where)
            fed = True
    if not fed:
        col.ignored[";".join(list(fields)[:3])] += 1
