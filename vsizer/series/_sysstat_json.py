"""The ``sadf -j`` parser, feeding a :class:`~vsizer.series._sysstat_collect.Collector`.

Private to :mod:`vsizer.series.sysstat`, which documents the form: JSON
``sysstat.hosts[].statistics[]`` with a ``timestamp`` object per interval and
``restarts`` per host. Problems go to ``col.bad`` with their JSON path.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

from vsizer.series._native import zone_offset
from vsizer.series._sysstat_collect import Collector

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
        for s, stat in enumerate(host_doc.get("statistics") or []):
            _json_statistics(col, host, stat, f"{base}.statistics[{s}]")


def _json_statistics(col: Collector, host: str, stat: Any, where: str) -> None:
    stamp = stat.get("timestamp") if isinstance(stat, dict) else None
    parsed = _json_time(stamp) if isinstance(stamp, dict) else None
    if parsed is None or not isinstance(stamp, dict):
        col.bad(where, "a 'timestamp' with 'date' and 'time'", stamp)
        return
    ts = col.utc(*parsed, host)
    if isinstance(stamp.get("interval"), int):
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
