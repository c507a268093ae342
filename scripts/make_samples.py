"""Generate the shipped samples of every input format but RVTools and the
Japanese list (those have their own scripts) under ``vsizer/data/samples/``.

Synthetic, invented data (a fictional company, "Example Corp"); only the file
layouts are real, each as its producer writes it:

- ``servers.csv``: an English server list, 16 servers (header names of
  ``docs/inventory-headers.md``);
- ``sar/web01.sar.txt``, ``sar/web02.sar.txt``: ``sar -u -r`` text of sysstat 12
  (ISO dates, 24-hour clock), two days each, times local to Asia/Tokyo;
- ``sar/db01.sadf-d.txt``, ``sar/db02.sadf-d.txt``: ``sadf -d -- -u -r``
  (semicolon CSV, UTC), two days;
- ``perfmon/APP01.csv``, ``perfmon/APP02.csv``: Windows Performance Monitor
  PDH-CSV 4.0 (``relog -f csv``), Tokyo Standard Time;
- ``prometheus/cpu_query_range.json``: the Prometheus HTTP API answer to
  ``query_range`` of ``1 - avg by (instance) (rate(node_cpu_seconds_total{mode="idle"}[5m]))``
  for ``k8s01``..``k8s03``;
- ``series_long.csv``: vsizer's long series CSV (``server,timestamp,metric,value,unit``),
  CPU % of ``file01``, ``mail01``, ``mon01``;
- ``azure_migrate_import.csv``: Azure Migrate's *import using CSV* template
  (header row as Microsoft's template, UTF-8 with BOM), 12 Hyper-V VMs;
- ``planetlab/``: a PlanetLab-format folder (one file per VM, 288 CPU % values
  of 5 minutes), 24 VMs;
- ``hosts.csv``: a host catalog of two models of your own.

Every series covers 2024-05-06 00:00 to 2024-05-08 00:00 Asia/Tokyo (48 hours,
5-minute samples) and attaches to a row of ``servers.csv`` (perfmon's
upper-case ``APP01`` by case-insensitive match). Web servers peak in the evening,
databases in the night batch, Windows application servers in office hours, so
their peaks do not coincide.

Deterministic: run it again and every file is byte-identical.

Usage::

    python scripts/make_samples.py [output_dir]
"""

from __future__ import annotations

import csv
import io
import json
import math
import random
import sys
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

OUT_DIR = Path(__file__).resolve().parents[1] / "vsizer" / "data" / "samples"
JST = timezone(timedelta(hours=9))
START = datetime(2024, 5, 6, tzinfo=JST)
STEP = timedelta(minutes=5)
DAYS = 2

HEADERS = ["name", "model", "cpu_name", "sockets", "cores_per_socket", "cpu_mhz",
           "cpu_avg_pct", "cpu_peak_pct", "mem_gib", "mem_used_gib", "disk_gib",
           "disk_iops", "net_mbps", "power_w", "rank", "group", "pool",
           "redundant_with", "migrate"]
R630 = ("PowerEdge R630", "Intel Xeon E5-2650 v4", 2, 12, 2200)
DL380 = ("ProLiant DL380 Gen9", "Intel Xeon E5-2680 v4", 2, 14, 2400)
R640 = ("PowerEdge R640", "Intel Xeon Gold 6130", 2, 16, 2100)
R440 = ("PowerEdge R440", "Intel Xeon Silver 4214", 2, 12, 2200)
OLD = ("PowerEdge R710", "Intel Xeon X5650", 2, 6, 2666)
#: name, hardware, avg %, peak %, GiB, used GiB, disk GiB, IOPS, Mbit/s, W,
#: rank, group, pool, redundant_with, migrate, series profile
SERVERS = [
    ("web01", R630, 12, 48, 64, 30, 300, 150, 200, 210, "A", "shop", "prod", "web02", "yes", "web"),
    ("web02", R630, 11, 45, 64, 29, 300, 140, 190, "", "A", "shop", "prod", "web01", "yes", "web"),
    ("db01", DL380, 18, 70, 256, 200, 2000, 3000, 150, 380, "A", "shop", "prod", "db02", "yes", "db"),
    ("db02", DL380, 15, 66, 256, 190, 2000, 2500, 150, "", "A", "shop", "prod", "db01", "yes", "db"),
    ("app01", R640, 14, 52, 128, 70, 500, 400, 100, 290, "A", "erp", "prod", "app02", "yes", "office"),
    ("app02", R640, 13, 50, 128, 66, 500, 380, 100, "", "A", "erp", "prod", "app01", "yes", "office"),
    ("k8s01", R440, 25, 40, 192, 120, 800, 600, 300, 260, "B", "platform", "prod", "", "yes", "flat"),
    ("k8s02", R440, 24, 38, 192, 118, 800, 600, 300, "", "B", "platform", "prod", "", "yes", "flat"),
    ("k8s03", R440, 26, 41, 192, 121, 800, 600, 300, "", "B", "platform", "prod", "", "yes", "flat"),
    ("file01", R630, 6, 25, 32, 12, 8000, 500, 400, 240, "B", "infra", "prod", "", "yes", ""),
    ("mail01", R630, 10, 35, 48, 30, 1500, 600, 150, "", "B", "infra", "prod", "", "yes", ""),
    ("mon01", R440, 8, 20, 32, 20, 400, 200, 50, "", "C", "infra", "prod", "", "yes", ""),
    ("ci01", R640, 20, 95, 64, 40, 500, 800, 100, "", "C", "dev", "dev", "", "yes", ""),
    ("dev01", R630, 5, 30, 32, 16, 200, 50, 20, "", "C", "dev", "dev", "", "yes", ""),
    ("dev02", R630, 4, 28, 32, 14, 200, 50, 20, "", "C", "dev", "dev", "", "yes", ""),
    ("old01", OLD, 3, 10, 16, 6, 146, 40, 10, 280, "C", "legacy", "prod", "", "no", ""),
]


def times() -> list[datetime]:
    """Sample times (end of each 5-minute interval), local to Asia/Tokyo."""
    n = DAYS * 24 * 12
    return [START + STEP * (i + 1) for i in range(n)]


def _bump(hour: float, centre: float, width: float) -> float:
    d = min(abs(hour - centre), 24 - abs(hour - centre))
    return math.exp(-0.5 * (d / width) ** 2)


def cpu_curve(profile: str, avg: float, peak: float, rng: random.Random) -> list[float]:
    """CPU % per sample: a daily shape scaled to about the server's avg and peak."""
    out = []
    for t in times():
        h = t.hour + t.minute / 60
        shape = {"web": _bump(h, 21, 1.5), "db": _bump(h, 2.5, 1.0),
                 "office": max(_bump(h, 11, 1.5), _bump(h, 15, 1.5)),
                 "flat": 0.3 * _bump(h, 14, 4), "": 0.5 * _bump(h, 10, 3)}[profile]
        value = avg * 0.7 + (peak - avg * 0.7) * shape + rng.gauss(0, 1.5)
        out.append(round(min(99.0, max(0.5, value)), 2))
    return out


def mem_curve(used_gib: float, rng: random.Random) -> list[float]:
    """Memory used [GiB] per sample: within 4 % of the inventory's figure."""
    return [round(used_gib * (0.96 + 0.04 * rng.random()), 3) for _ in times()]


def _server(name: str) -> tuple:
    return next(s for s in SERVERS if s[0] == name)


def _curves(name: str) -> tuple[list[float], list[float]]:
    s = _server(name)
    rng = random.Random(name)
    return cpu_curve(s[15], s[2], s[3], rng), mem_curve(s[5], rng)


def write_servers(path: Path) -> None:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(HEADERS)
    for (name, hw, avg, peak, mem, used, disk, iops, net, watts, rank, group, pool,
         pair, migrate, _profile) in SERVERS:
        model, cpu, sockets, cores, mhz = hw
        w.writerow([name, model, cpu, sockets, cores, mhz, avg, peak, mem, used, disk,
                    iops, net, watts, rank, group, pool, pair, migrate])
    path.write_text(buf.getvalue(), encoding="utf-8")


def write_sar_text(path: Path, name: str) -> None:
    """``sar -u -r -f saDD`` for each day, appended (times local, 24-hour clock)."""
    s = _server(name)
    cpus = s[1][2] * s[1][3] * 2
    total_kib = s[4] * 1024 * 1024 - 2 * 1024 * 1024
    cpu, mem = _curves(name)
    lines: list[str] = []
    per_day = 24 * 12
    for day in range(DAYS):
        date = (START + timedelta(days=day)).date().isoformat()
        rows = range(day * per_day, (day + 1) * per_day - 1)  # 00:05 .. 23:55
        lines += [f"Linux 5.14.0-362.24.1.el9_3.x86_64 ({name}) \t{date} \t_x86_64_\t({cpus} CPU)",
                  "", "00:00:01        CPU     %user     %nice   %system   %iowait    %steal     %idle"]
        for i in rows:
            busy = cpu[i]
            user, system, iowait = busy * 0.75, busy * 0.2, busy * 0.05
            lines.append(f"{times()[i]:%H:%M:01}        all {user:9.2f} {0:9.2f} {system:9.2f} "
                         f"{iowait:9.2f} {0:9.2f} {100 - busy:9.2f}")
        lines += ["", "00:00:01    kbmemfree   kbavail kbmemused  %memused kbbuffers  kbcached  "
                  "kbcommit   %commit  kbactive   kbinact   kbdirty"]
        for i in rows:
            used = round(mem[i] * 1024 * 1024)
            cached = round((total_kib - used) * 0.6)
            free = total_kib - used - cached - 4096
            lines.append(f"{times()[i]:%H:%M:01} {free:12d} {free + cached:9d} {used:9d} "
                         f"{100 * used / total_kib:9.2f} {4096:9d} {cached:9d} {used:9d} "
                         f"{100 * used / total_kib:9.2f} {used // 2:9d} {used // 4:9d} {120:9d}")
        lines.append("")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def write_sadf(path: Path, name: str) -> None:
    """``sadf -d saDD -- -u -r`` for each day, appended (UTC)."""
    s = _server(name)
    cpus = s[1][2] * s[1][3] * 2
    total_kib = s[4] * 1024 * 1024 - 2 * 1024 * 1024
    cpu, mem = _curves(name)
    per_day = 24 * 12
    lines: list[str] = []
    for day in range(DAYS):
        rows = range(day * per_day, (day + 1) * per_day)
        lines.append("# hostname;interval;timestamp;CPU;%user;%nice;%system;%iowait;%steal;%idle")
        if day == 0:  # rebooted for patching just before the period
            boot = (START - timedelta(minutes=40)).astimezone(UTC)
            lines.append(f"{name};-1;{boot:%Y-%m-%d %H:%M:%S} UTC;LINUX-RESTART\t({cpus} CPU)")
        for i in rows:
            busy = cpu[i]
            stamp = times()[i].astimezone(UTC)
            lines.append(f"{name};300;{stamp:%Y-%m-%d %H:%M:%S} UTC;-1;{busy * 0.75:.2f};0.00;"
                         f"{busy * 0.2:.2f};{busy * 0.05:.2f};0.00;{100 - busy:.2f}")
        lines.append("# hostname;interval;timestamp;kbmemfree;kbavail;kbmemused;%memused;"
                     "kbbuffers;kbcached;kbcommit;%commit;kbactive;kbinact;kbdirty")
        for i in rows:
            used = round(mem[i] * 1024 * 1024)
            cached = round((total_kib - used) * 0.6)
            free = total_kib - used - cached - 4096
            stamp = times()[i].astimezone(UTC)
            lines.append(f"{name};300;{stamp:%Y-%m-%d %H:%M:%S} UTC;{free};{free + cached};"
                         f"{used};{100 * used / total_kib:.2f};4096;{cached};{used};"
                         f"{100 * used / total_kib:.2f};{used // 2};{used // 4};120")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def write_perfmon(path: Path, name: str) -> None:
    """PDH-CSV 4.0 as ``relog -f csv`` writes it (host name upper case)."""
    s = _server(name)
    host = name.upper()
    cpu, mem = _curves(name)
    buf = io.StringIO()
    w = csv.writer(buf, quoting=csv.QUOTE_ALL, lineterminator="\r\n")
    w.writerow(["(PDH-CSV 4.0) (Tokyo Standard Time)(-540)",
                f"\\\\{host}\\Processor(_Total)\\% Processor Time",
                f"\\\\{host}\\Memory\\Available MBytes"])
    for t, c, m in zip(times(), cpu, mem, strict=True):
        w.writerow([f"{t:%m/%d/%Y %H:%M:%S}.000", f"{c:.6f}", f"{(s[4] - m) * 1024:.0f}"])
    path.write_bytes(buf.getvalue().encode("utf-8"))


def write_prometheus(path: Path, names: list[str]) -> None:
    """``GET /api/v1/query_range`` answer, one matrix series per instance."""
    result = []
    for name in names:
        cpu, _ = _curves(name)
        values = [[int(t.timestamp()), f"{c / 100:.4f}"]
                  for t, c in zip(times(), cpu, strict=True)]
        result.append({"metric": {"instance": f"{name}:9100", "job": "node"},
                       "values": values})
    doc = {"status": "success", "data": {"resultType": "matrix", "result": result}}
    path.write_text(json.dumps(doc, separators=(",", ":")) + "\n", encoding="utf-8")


def write_planetlab(folder: Path) -> None:
    """24 VMs, one file each: 288 CPU % values (PlanetLab/CloudSim trace layout)."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(2011)
    profiles = ["web", "db", "office", "flat"]
    for i in range(24):
        base, peak = rng.randint(3, 20), rng.randint(30, 90)
        curve = cpu_curve(profiles[i % 4], base, peak, rng)[: 24 * 12]
        (folder / f"vm{i + 1:02d}").write_text(
            "\n".join(str(round(v)) for v in curve) + "\n", encoding="utf-8")


def write_long(path: Path, names: list[str]) -> None:
    """The long CSV: one row per server, time and metric, times with their offset."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["server", "timestamp", "metric", "value", "unit"])
    for name in names:
        cpu, _ = _curves(name)
        for t, c in zip(times(), cpu, strict=True):
            w.writerow([name, t.isoformat(), "cpu", c, "%"])
    path.write_text(buf.getvalue(), encoding="utf-8")


AZURE_HEADER = (
    "*Server name,IP addresses,*Cores,*Memory (In MB),*OS name,OS version,OS architecture,"
    "Server type,Hypervisor,CPU utilization percentage,Memory utilization percentage,"
    "Network adapters,Network In throughput,Network Out throughput,Boot type,"
    "Number of disks,Storage in use (In GB),Disk 1 size (In GB),"
    "Disk 1 read throughput (MB per second),Disk 1 write throughput (MB per second),"
    "Disk 1 read ops (operations per second),Disk 1 write ops (operations per second),"
    "Disk 2 size (In GB),Disk 2 read throughput (MB per second),"
    "Disk 2 write throughput (MB per second),Disk 2 read ops (operations per second),"
    "Disk 2 write ops (operations per second)")


def write_azure_migrate(path: Path) -> None:
    """Azure Migrate import CSV: 12 Hyper-V VMs of a branch office."""
    rng = random.Random("azure")
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\r\n")
    w.writerow(AZURE_HEADER.split(","))
    roles = ["dc", "dc", "file", "print", "sql", "sql", "web", "web", "app", "app", "rds", "wsus"]
    for i, role in enumerate(roles):
        cores = {"sql": 8, "rds": 8, "app": 4, "web": 2}.get(role, 2)
        mem = cores * 4096
        disk1 = 127
        disk2 = {"file": 2000, "sql": 500, "wsus": 300}.get(role)
        n = 1 + (i % 2 if role in ("dc", "sql", "web", "app") else 0)
        name = f"{role}{n:02d}.branch.example.com"
        used = round(disk1 * rng.uniform(0.3, 0.6) + (disk2 or 0) * rng.uniform(0.3, 0.7))
        w.writerow([name, f"10.20.0.{10 + i}", cores, mem,
                    "Microsoft Windows Server 2019 Datacenter", "", "x64", "Virtual", "Hyper-V",
                    rng.randint(5, 45), rng.randint(30, 80), 1, round(rng.uniform(0.5, 20), 1),
                    round(rng.uniform(0.5, 20), 1), "UEFI", 2 if disk2 else 1, used, disk1,
                    round(rng.uniform(1, 10), 1), round(rng.uniform(1, 10), 1),
                    rng.randint(10, 200), rng.randint(10, 200),
                    *([disk2, round(rng.uniform(5, 40), 1), round(rng.uniform(5, 40), 1),
                       rng.randint(50, 900), rng.randint(50, 900)] if disk2 else [""] * 5)])
    path.write_bytes(b"\xef\xbb\xbf" + buf.getvalue().encode("utf-8"))


HOSTS_CSV = """\
model,sockets,cores_per_socket,threads_per_core,cpu_mhz,cpu_score_per_core,mem_gib,power_idle_w,power_max_w,rack_u,price
small-1u,1,16,2,2400,5.0,256,60,250,1,9000
big-2u,2,32,2,2000,6.4,1024,110,600,2,26000
"""


def main(argv: list[str]) -> int:
    out = Path(argv[1]) if len(argv) > 1 else OUT_DIR
    for sub in ("sar", "perfmon", "prometheus"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    write_servers(out / "servers.csv")
    for name in ("web01", "web02"):
        write_sar_text(out / "sar" / f"{name}.sar.txt", name)
    for name in ("db01", "db02"):
        write_sadf(out / "sar" / f"{name}.sadf-d.txt", name)
    for name in ("app01", "app02"):
        write_perfmon(out / "perfmon" / f"{name.upper()}.csv", name)
    write_prometheus(out / "prometheus" / "cpu_query_range.json", ["k8s01", "k8s02", "k8s03"])
    write_long(out / "series_long.csv", ["file01", "mail01", "mon01"])
    write_azure_migrate(out / "azure_migrate_import.csv")
    write_planetlab(out / "planetlab")
    (out / "hosts.csv").write_text(HOSTS_CSV, encoding="utf-8")
    print(f"wrote the samples to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
