"""The ``sadf -j`` parser, feeding a :class:`~vsizer.series._sysstat_collect.Collector`.

Private to :mod:`vsizer.series.sysstat`, which documents the form: JSON
``sysstat.hosts[].statistics[]`` with a ``timestamp`` object per interval and
``restarts`` per host. ``mpstat -o JSON`` writes the same document with the date
once per host (``"date": "09/09/25"``, the locale's form as in a sar banner) and a
time of day per statistic (``"timestamp": "14:50:12"``); both are read. Problems go
to ``col.bad`` with their JSON path.
"""

from __future__ import annotations

import json
import re
from datetime import date, datetime, timedelta
from typing import Any

from vsizer.series._native import zone_offset
from vsizer.series._sysstat_collect import Collector
from vsizer.series._sysstat_parse import banner_date, roll

__all__ = ["parse_json"]


def parse_json(text: str, col: Collector) -> None:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        # split("\n"), not splitlines(): the error may sit on the empty line
        # after a final newline, which splitlines() drops.
        lines = text.split("\n")
        line = lines[exc.lineno - 1] if 0 < exc.lineno <= len(lines) else ""
        col.bad(
            f"{col.label} line {exc.lineno} column {exc.colno}",
            f"JSON ({exc.msg})",
            line.strip(),
        )
        return
    except (ValueError, RecursionError) as exc:  # a 4,300+ digit number, deep nesting
        col.bad(f"{col.label} line 1", "sadf -j JSON that can be read",
                f"{type(exc).__name__}: {str(exc)[:120]}")
        return
    top = doc.get("sysstat") if isinstance(doc, dict) else None
    hosts = top.get("hosts") if isinstance(top, dict) else None
    if not isinstance(hosts, list) or not all(isinstance(h, dict) for h in hosts):
        col.bad(f"{col.label} line 1", "sadf -j JSON with 'sysstat.hosts'", text[:40])
        return
    for h, host_doc in enumerate(hosts):
        base = f"{col.label} sysstat.hosts[{h}]"
        host = str(host_doc.get("nodename", ""))
        col.host(host)
        if "release" in host_doc:
            col.release[host] = str(host_doc["release"])
        if isinstance(host_doc.get("number-of-cpus"), int):
            col.cpu_count[host] = host_doc["number-of-cpus"]
        for r, item in enumerate(host_doc.get("restarts") or []):
            boot = item.get("boot", {}) if isinstance(item, dict) else {}
            parsed = _json_time(boot)
            if parsed is None:
                col.bad(f"{base}.restarts[{r}]", "a boot date and time", boot)
                continue
            count = boot.get("cpu_count")
            col.restart(host, col.utc(*parsed, host), f"({count} CPU)" if count else "")
        day = host_doc.get("date")  # mpstat -o JSON: one date for the host
        clock = _Clock(banner_date(day, col, host, f"{base}.date") if isinstance(day, str) else None)
        for s, stat in enumerate(host_doc.get("statistics") or []):
            _json_statistics(col, host, stat, f"{base}.statistics[{s}]", clock)


_TIME_OF_DAY = re.compile(r"^(\d{1,2}):(\d{2}):(\d{2})(?:\s*([AP]M))?$", re.IGNORECASE)


_MPSTAT_TIME = "a time of day (HH:MM:SS) with the host's 'date' (mpstat -o JSON)"


class _Clock:
    """Times of day of ``mpstat -o JSON`` on the host's date, rolled past midnight."""

    def __init__(self, day: date | None) -> None:
        self.day = day
        self.prev: datetime | None = None

    def local(self, text: str) -> datetime | None:
        m = _TIME_OF_DAY.match(text.strip())
        if self.day is None or m is None:
            return None
        hour, minute, second = int(m[1]), int(m[2]), int(m[3])
        if m[4]:
            hour = hour % 12 + (12 if m[4].upper() == "PM" else 0)
        if hour > 23 or minute > 59 or second > 59:
            return None
        at = timedelta(hours=hour, minutes=minute, seconds=second)
        self.prev = roll(self.prev or datetime.combine(self.day, datetime.min.time()), at)
        return self.prev


def _json_statistics(
    col: Collector, host: str, stat: Any, where: str, clock: _Clock
) -> None:
    stamp = stat.get("timestamp") if isinstance(stat, dict) else None
    parsed = _json_time(stamp) if isinstance(stamp, dict) else None
    if isinstance(stamp, str):
        local = clock.local(stamp)  # the host's local time: --tz gives its zone
        parsed = None if local is None else (local, None)
    if parsed is None or stamp is None:
        mpstat = isinstance(stamp, str)  # mpstat -o JSON: HH:MM:SS on the host's date
        col.bad(where, _MPSTAT_TIME if mpstat else "a 'timestamp' with 'date' and 'time'", stamp)
        return
    ts = col.utc(*parsed, host)
    if isinstance(stamp, dict) and isinstance(stamp.get("interval"), int):
        col.intervals.add(stamp["interval"])
    for name in ("cpu-load", "cpu-load-all"):
        for i, entry in enumerate(stat.get(name) or []):
            fields = _flat(entry)
            col.feed(
                "cpu",
                host,
                ts,
                str(fields.pop("cpu", "")),
                fields,
                f"{where}.{name}[{i}]",
            )
    if isinstance(stat.get("memory"), dict):
        col.feed("mem", host, ts, None, _flat(stat["memory"]), f"{where}.memory")
    if isinstance(stat.get("io"), dict):
        fields = _flat(stat["io"])
        if "tps" in fields and "bread" in fields:
            col.feed("io", host, ts, None, fields, f"{where}.io")
    for i, entry in enumerate(stat.get("disk") or []):
        fields = _flat(entry)
        key = str(fields.pop("disk-device", ""))
        col.feed("dev", host, ts, key, fields, f"{where}.disk[{i}]")
    network = stat.get("network")
    if isinstance(network, dict):
        for i, entry in enumerate(network.get("net-dev") or []):
            fields = _flat(entry)
            key = str(fields.pop("iface", ""))
            col.feed("net", host, ts, key, fields, f"{where}.network.net-dev[{i}]")
    for name in stat:
        if name not in _JSON_USED:
            col.ignored[name] += 1


_JSON_USED = frozenset(
    {"timestamp", "cpu-load", "cpu-load-all", "memory", "io", "disk", "network"}
)


def _flat(entry: Any) -> dict[str, Any]:
    """A JSON object with nested objects merged in (``io-reads``: {bread: ..})."""
    out: dict[str, Any] = {}
    if not isinstance(entry, dict):
        return out
    for k, v in entry.items():
        if isinstance(v, dict):
            out.update(_flat(v))
        else:
            out[k] = v
    return out


def _json_time(stamp: dict[str, Any]) -> tuple[datetime, timedelta | None] | None:
    try:
        local = datetime.fromisoformat(f"{stamp['date']} {stamp['time']}")
    except (KeyError, TypeError, ValueError):
        return None
    if stamp.get("utc") == 1:
        return local, timedelta(0)
    zone = stamp.get("tz")
    return local, (None if not isinstance(zone, str) else zone_offset(zone))
