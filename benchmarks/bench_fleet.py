"""Benchmark: scalar plans at fleet scale (10,000 / 200,000 / 1,000,000 servers, 5 pools, N+1).

The inventories are synthetic and seeded: a realistic size mix (1-32 vCPUs, 2, 4 or
8 GiB per vCPU, four clock rates, average CPU from a Beta(1.5, 8) and peak between
it and 100 %), spread over five pools, planned on one two-socket host model (64
cores, 1 TiB) with the default rules (N+1, ceiling 80 %). Each size runs in a child
process, which prints the time and the peak resident memory (RSS, cumulative)
after each stage: build the inventory, the study apart from sizing (normalize,
power, rightsizing, count reasons, economics), placement (every greedy placement
the sizing tries), the failover checks, ``to_dict`` and the streamed JSON write,
and its CPU seconds (user + system). Up to 200,000 servers the child also writes
the same document with the standard library's indenting encoder (the baseline,
same process) and prints the ratio.

Kernels, measured in the same process (the largest size's child): its largest
pool placed once by each greedy kernel, all of which must give the same hosts:
the compiled kernel (numba, ``vsizer[fast]``: :mod:`vsizer.placement._kernel`),
numpy's blocked kernel and numpy's plain scan of every host
(``greedy_assign(blocked=False, compiled=False)``, the reference); the ratios;
the JIT compile time (a fresh numba cache, a new process) and the time to load
the compiled kernel from the cache. Then the scaling ratio of the sizes (time
ratio against server ratio).

``--cli`` (always with ``--smoke``) also plans every size through the command
line (``--cli-only``: that table alone): the fleet written as a server-list CSV and a host catalog (``--write-csv DIR``
writes them alone), ``vsizer plan`` in a child process (no ``--max-rows``: the
default admits a million servers), its wall time, CPU seconds and its own peak RSS:
the figures that include reading the CSV.

``--cli-only --xlsx`` saves the server list as XLSX instead (openpyxl; the peak as a
fraction in a percent format): the same plans read by the XLSX reader.
``--cli-only --ja``: the shipped Japanese list (28 columns, redundancy partners)
repeated to each size instead (:func:`write_ja`; anti-affinity pairs at scale).

Run: ``.venv/bin/python benchmarks/bench_fleet.py [--sizes 10000,200000] [--cli]``;
``--sizes 10000,200000,1000000 --cli`` for a million servers (minutes, about 5 GB);
``--smoke``: 2,000 servers (CI). Issue 25's acceptance through the command line:
200,000 servers in < 60 CPU s, 1,000,000 in < 5 CPU minutes and < 8 GB.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np
import pandas as pd

from vsizer._jsonable import write_json
from vsizer.catalogs.model import HostModel
from vsizer.inventory.model import Inventory, empty_frame
from vsizer.placement import _kernel, blocked, failover, heuristics, sizing
from vsizer.quality import QualityReport
from vsizer.study import ConsolidationStudy
from vsizer.study.config import Rules

HOST = HostModel(
    model="fleet-host",
    sockets=2,
    cores_per_socket=32,
    threads_per_core=2,
    cpu_mhz=2600.0,
    cpu_score_per_core=None,
    mem_gib=1024.0,
    power_idle_w=150.0,
    power_max_w=700.0,
    rack_u=2.0,
)
POOLS = ("pool-a", "pool-b", "pool-c", "pool-d", "pool-e")


def fleet(n: int, seed: int = 15) -> Inventory:
    """``n`` synthetic servers (seeded): the size mix of the module docstring."""
    rng = np.random.default_rng(seed)
    df = empty_frame(n)
    vcpu = rng.choice([1, 2, 4, 8, 16, 32], size=n, p=[0.08, 0.30, 0.32, 0.20, 0.08, 0.02])
    gib_per_vcpu = rng.choice([2, 4, 8], size=n, p=[0.25, 0.5, 0.25])
    avg = np.round(rng.beta(1.5, 8.0, size=n), 3)
    df["name"] = [f"vm{i:06d}" for i in range(n)]
    df["sockets"] = 1
    df["cores_per_socket"] = vcpu
    df["vcpus"] = vcpu
    df["cpu_mhz"] = rng.choice([2200.0, 2400.0, 2600.0, 3000.0], size=n)
    df["cpu_avg_util"] = avg
    df["cpu_peak_util"] = np.minimum(
        1.0, np.round(avg + rng.beta(2.0, 4.0, size=n) * (1 - avg), 3)
    )
    df["mem_gib"] = (vcpu * gib_per_vcpu).astype(float)
    df["power_w"] = 200.0
    df["pool"] = np.array(POOLS)[rng.integers(0, len(POOLS), size=n)]
    return Inventory(
        df, pd.DataFrame({"name": [], "reason": []}), QualityReport(), "fleet", "table"
    )


def _rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _cpu_s() -> float:
    """CPU seconds of this process (user + system): what a shared machine's load
    does not inflate, unlike wall time."""
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


class _Clock:
    """Seconds spent inside wrapped functions (outermost calls only)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.depth = 0

    def wrap(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            self.depth += 1
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.depth -= 1
                if self.depth == 0:
                    self.seconds += time.perf_counter() - start

        return timed


def _study(inv: Inventory) -> tuple[Any, float, float, float]:
    """The plan, and seconds: whole study, placement, failover checks."""
    place, check = _Clock(), _Clock()
    strategies = {k: place.wrap(f) for k, f in heuristics.STRATEGIES.items()}
    with mock.patch.dict(sizing.STRATEGIES, strategies), mock.patch.object(
        failover, "check", check.wrap(failover.check)
    ):
        start = time.perf_counter()
        plan = ConsolidationStudy(inv, HOST, Rules()).run()
        total = time.perf_counter() - start
    return plan, total, place.seconds, check.seconds


def _reference(plan: Any) -> dict[str, Any]:
    """The largest pool placed (balanced, on its sized host count) by each kernel:
    compiled (numba), numpy's blocked kernel and numpy's plain scan of every host."""
    pool = max(plan.pools, key=lambda p: p.sizing.n_hosts)
    problem, n = pool.problem, pool.sizing.n_hosts
    place = heuristics.STRATEGIES["balanced-decreasing"]
    out: dict[str, Any] = {"pool_vms": problem.n_vms, "pool_hosts": n}
    kernel = heuristics.greedy_assign
    kernels = {"blocked": {"compiled": False}, "plain": {"compiled": False, "blocked": False}}
    if _kernel.available():
        kernels["compiled"] = {}
        kernels["flat"] = {}  # compiled, blocks without super-blocks (before issue 25)
        place(problem, n)  # compiled (or loaded from the cache) outside the timing
    assignments = []
    for label, flags in kernels.items():

        def chosen(*args: Any, _flags: dict[str, bool] = flags, **kwargs: Any) -> Any:
            return kernel(*args, **{**kwargs, **_flags})

        with mock.patch.object(heuristics, "greedy_assign", chosen), mock.patch.object(
            blocked, "MIN_HOSTS", 0
        ), mock.patch.object(_kernel, "SUPER", 0 if label == "flat" else _kernel.SUPER):
            start = time.perf_counter()
            pl = place(problem, n)
            out[f"{label}_s"] = time.perf_counter() - start
        assignments.append(pl.assignment)
    out["identical"] = all(np.array_equal(assignments[0], a) for a in assignments[1:])
    return out


def _compile_s() -> dict[str, float]:
    """Seconds to JIT-compile the kernel (a fresh, empty numba cache) and to load
    it from that cache, each in a new process (import of numba included)."""
    code = (
        "import time; import numpy as np; from vsizer.placement import heuristics as h; "
        "t = time.perf_counter(); h.greedy_assign(np.arange(2), np.ones((2, 1)), np.zeros((2, 1)), np.full(1, 4.0), "
        "np.full(2, -1), np.zeros((2, 1), bool), np.ones(2, bool), None, 'balanced'); "
        "print(time.perf_counter() - t)"
    )
    out = {}
    with tempfile.TemporaryDirectory() as cache:
        env = dict(
            os.environ, NUMBA_CACHE_DIR=cache,
            PYTHONPATH=str(Path(__file__).resolve().parents[1]),
        )
        for label in ("compile_s", "cached_s"):
            res = subprocess.run([sys.executable, "-c", code], capture_output=True,
                                 text=True, check=True, env=env)
            out[label] = float(res.stdout.split()[-1])
    return out


#: Largest size whose child also runs the baselines (the standard library's JSON
#: encoder, the numpy kernels): above it they take minutes and say nothing new.
BASELINE_MAX = 200_000


def _stdlib_json_s(doc: Any) -> float:
    """Seconds for the standard library's ``json`` to write ``doc`` as
    :func:`write_json` does (``indent=2``, its pure-Python indenting encoder)."""
    encoder = json.JSONEncoder(ensure_ascii=False, indent=2)
    t = time.perf_counter()
    with open(os.devnull, "w", encoding="utf-8") as fh:
        for chunk in encoder.iterencode(doc):
            fh.write(chunk)
    return time.perf_counter() - t


def child(n: int, reference: bool) -> dict[str, Any]:
    """Plan ``n`` servers; time and peak RSS per stage."""
    r: dict[str, Any] = {"servers": n}
    cpu0 = _cpu_s()
    t = time.perf_counter()
    inv = fleet(n)
    r["inventory_s"], r["inventory_rss"] = time.perf_counter() - t, _rss_mib()
    plan, total, place_s, check_s = _study(inv)
    r["study_s"] = total - place_s - check_s
    r["placement_s"], r["failover_s"], r["study_rss"] = place_s, check_s, _rss_mib()
    t = time.perf_counter()
    doc = plan.to_dict()
    r["to_dict_s"], r["to_dict_rss"] = time.perf_counter() - t, _rss_mib()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "plan.json"
        t = time.perf_counter()
        with path.open("w", encoding="utf-8") as fh:
            write_json(doc, fh)
        r["json_s"], r["json_rss"] = time.perf_counter() - t, _rss_mib()
        r["json_mb"] = path.stat().st_size / 1e6
    r["cpu"] = _cpu_s() - cpu0
    if n <= BASELINE_MAX:
        r["json_baseline_s"] = _stdlib_json_s(doc)
    r["hosts"] = doc["summary"]["hosts"]
    r["lower_bound"] = doc["summary"]["lower_bound"]
    r["survives"] = doc["summary"]["survives_failover"]
    r["total_s"] = sum(r[k] for k in r if k.endswith("_s") and k != "json_baseline_s")
    if reference:
        r["reference"] = _reference(plan)
    return r


def run_child(n: int, reference: bool) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--child", str(n)] + (["--reference"] if reference else [])
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    res = subprocess.run(cmd, capture_output=True, text=True, check=False, env=env)
    if res.returncode != 0:
        raise SystemExit(f"child for {n} servers failed:\n{res.stderr[-3000:]}")
    return json.loads(res.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def _print(r: dict[str, Any]) -> None:
    print(
        f"{r['servers']:>7,} servers -> {r['hosts']:>6,} hosts (lower bound "
        f"{r['lower_bound']:,}, N+1 {'holds' if r['survives'] else 'FAILS'}): "
        f"total {r['total_s']:6.1f} s ({r['cpu']:.1f} s CPU), peak RSS {r['json_rss']:6.0f} MiB, JSON {r['json_mb']:.0f} MB"
    )
    if "json_baseline_s" in r:
        print(
            f"    JSON write {r['json_s']:.2f} s against {r['json_baseline_s']:.2f} s by the "
            f"standard library's indenting encoder, same document and process "
            f"({r['json_baseline_s'] / r['json_s']:.1f}x)"
        )
    print(
        f"    inventory {r['inventory_s']:5.1f} s ({r['inventory_rss']:.0f} MiB) | study "
        f"{r['study_s']:5.1f} s | placement {r['placement_s']:5.1f} s | failover "
        f"{r['failover_s']:5.1f} s ({r['study_rss']:.0f} MiB) | to_dict {r['to_dict_s']:5.1f} s "
        f"({r['to_dict_rss']:.0f} MiB) | JSON write {r['json_s']:5.1f} s ({r['json_rss']:.0f} MiB)"
    )


def write_csv(folder: Path, n: int) -> tuple[Path, Path]:
    """The fleet of ``n`` servers as a server list CSV and the host model as a
    host catalog CSV: the same plan through ``vsizer plan`` (name ``fleet-host``)."""
    folder.mkdir(parents=True, exist_ok=True)
    df = fleet(n).servers
    table = df[["name", "pool", "sockets", "cores_per_socket", "cpu_mhz", "mem_gib", "power_w"]]
    table = table.assign(
        cpu_avg_pct=(df["cpu_avg_util"] * 100).round(1),
        cpu_peak_pct=(df["cpu_peak_util"] * 100).round(1),
    )
    servers = folder / f"fleet{n}.csv"
    table.to_csv(servers, index=False)
    return servers, write_hosts(folder)


def write_hosts(folder: Path) -> Path:
    """The host model as a host catalog CSV, ``folder/fleethost.csv`` (name
    ``fleet-host``)."""
    h = HOST
    hosts = folder / "fleethost.csv"
    hosts.write_text(
        "model,sockets,cores_per_socket,threads_per_core,cpu_mhz,cpu_score_per_core,"
        "mem_gib,power_idle_w,power_max_w,rack_u,source\n"
        f"{h.model},{h.sockets},{h.cores_per_socket},{h.threads_per_core},{h.cpu_mhz},,"
        f"{h.mem_gib},{h.power_idle_w},{h.power_max_w},{h.rack_u},"
        "benchmark host of benchmarks/bench_fleet.py\n",
        encoding="utf-8",
    )
    return hosts


def write_xlsx(folder: Path, n: int) -> tuple[Path, Path]:
    """The fleet of ``n`` servers as an XLSX server list saved by openpyxl (one
    sheet; the peak CPU as a fraction in a ``0.0%`` format, as spreadsheets often
    keep it) and the host catalog CSV (:func:`write_hosts`)."""
    import openpyxl
    from openpyxl.cell import WriteOnlyCell

    folder.mkdir(parents=True, exist_ok=True)
    df = fleet(n).servers
    wb = openpyxl.Workbook(write_only=True)
    ws = wb.create_sheet("servers")
    ws.append(["name", "pool", "sockets", "cores_per_socket", "cpu_mhz", "mem_gib",
               "power_w", "cpu_avg_pct", "cpu_peak_pct"])
    cols = [df[c].tolist() for c in ("name", "pool", "sockets", "cores_per_socket",
                                      "cpu_mhz", "mem_gib", "power_w")]
    avg = (df["cpu_avg_util"] * 100).round(1).tolist()
    peak = df["cpu_peak_util"].round(3).tolist()
    for i in range(n):
        cell = WriteOnlyCell(ws, value=peak[i])
        cell.number_format = "0.0%"
        ws.append([c[i] for c in cols] + [avg[i], cell])
    servers = folder / f"fleet{n}.xlsx"
    wb.save(servers)
    return servers, write_hosts(folder)


#: The shipped Japanese server list: 40 servers, redundancy partners (冗長相手).
JA_SAMPLE = Path(__file__).resolve().parents[1] / "vsizer" / "data" / "samples" / "inventory_ja.csv"


def write_ja(folder: Path, n: int) -> tuple[Path, None]:
    """The shipped Japanese list's rows repeated to ``n`` rows (its header
    first, no title lines): block k's server names and partner names suffixed
    ``-k`` alike (zero-padded), so every block keeps its redundancy pairs
    (185,000 of 200,000 rows planned, 35,000 pairs: 7 a block); planned on the
    default host."""
    import csv

    folder.mkdir(parents=True, exist_ok=True)
    rows = list(csv.reader(JA_SAMPLE.read_text(encoding="utf-8-sig").splitlines()))
    at = next(i for i, r in enumerate(rows) if r and r[0] == "サーバ名")
    header, body = rows[at], [r for r in rows[at + 1:] if r and r[0]]
    partner = header.index("冗長相手")
    width = len(str(n)) - 1
    servers = folder / f"fleet{n}_ja.csv"
    with servers.open("w", encoding="utf-8", newline="") as f:
        out = csv.writer(f)  # CRLF line ends, as spreadsheets save CSV
        out.writerow(header)
        for i in range(n):
            row = list(body[i % len(body)])
            tag = f"-{i // len(body):0{width}d}"
            row[0] += tag
            if row[partner]:
                row[partner] += tag
            out.writerow(row)
    return servers, None


def cli_run(n: int, detail: str = "auto", fmt: str = "csv") -> dict[str, Any]:
    """``vsizer plan`` on the fleet of ``n`` servers written as CSV (:func:`write_csv`)
    or XLSX (:func:`write_xlsx`), in a child process (``--json-detail detail``):
    wall time, its CPU seconds (user + system, its children included) and peak RSS
    (``os.wait4``), hosts, sizes of the JSON and of the detail file."""
    with tempfile.TemporaryDirectory() as tmp:
        write = {"xlsx": write_xlsx, "ja": write_ja}.get(fmt, write_csv)
        servers, hosts = write(Path(tmp), n)
        out = Path(tmp) / "plan.json"
        on = ["--hosts", str(hosts), "--host-model", HOST.model] if hosts else []
        cmd = [sys.executable, "-m", "vsizer", "plan", str(servers), *on, "-q", "-o",
               str(out), "--json-detail", detail]
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        err = proc.stderr.read().decode() if proc.stderr else ""
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"vsizer plan of {n} servers failed:\n{err[-3000:]}")
        hosts_n = json.loads(out.read_text(encoding="utf-8"))["summary"]["hosts"]
        side = Path(tmp) / "plan.servers.csv"
        return {"servers": n, "seconds": seconds, "rss_mib": usage.ru_maxrss / 1024,
                "cpu": usage.ru_utime + usage.ru_stime, "detail": detail,
                "hosts": hosts_n, "csv_mb": servers.stat().st_size / 1e6,
                "json_mb": out.stat().st_size / 1e6,
                "side_mb": side.stat().st_size / 1e6 if side.exists() else 0.0}


#: Issue 25's acceptance through the command line: servers -> (CPU s, MiB).
GOALS = {200_000: (60.0, None), 1_000_000: (300.0, 8 * 1024)}


def _goal(c: dict[str, Any]) -> None:
    """Print whether a command-line run meets the goal of its size, if any."""
    if c["servers"] not in GOALS:
        return
    cpu, rss = GOALS[c["servers"]]
    met = c["cpu"] < cpu and (rss is None or c["rss_mib"] < rss)
    what = f"< {cpu:.0f} CPU s" + (f", < {rss / 1024:.0f} GB" if rss else "")
    print(f"{c['servers']:,}-server goal ({what}): {'met' if met else 'NOT met'}")


def _cli_table(sizes: list[int], fmt: str = "csv") -> None:
    """``vsizer plan`` per size (default ``--json-detail auto``), and where auto
    writes the summary (above 100,000 servers) up to :data:`BASELINE_MAX`,
    the same plan with ``--json-detail full`` (the baseline: the whole JSON)."""
    from vsizer.study.detail import DETAIL_MAX_SERVERS

    given = "fleetN_ja.csv" if fmt == "ja" else f"fleetN.{fmt} --hosts fleethost.csv"
    print(f"command line: vsizer plan {given} -o plan.json "
          "(CPU s: user + system, children included; peak RSS: ru_maxrss)")
    print(f"{'servers':>9} | {fmt.upper() + ' MB':>7} | {'hosts':>7} | {'wall s':>7} | {'CPU s':>7} | "
          f"{'peak RSS MiB':>12} | {'JSON MB':>7} | {'detail MB':>9} | --json-detail")
    for n in sizes:
        runs = [cli_run(n, fmt=fmt)]
        if DETAIL_MAX_SERVERS < n <= BASELINE_MAX and fmt == "csv":
            runs.append(cli_run(n, "full"))
        for c in runs:
            print(f"{c['servers']:>9,} | {c['csv_mb']:>7.1f} | {c['hosts']:>7,} | "
                  f"{c['seconds']:>7.1f} | {c['cpu']:>7.1f} | {c['rss_mib']:>12,.0f} | "
                  f"{c['json_mb']:>7.1f} | {c['side_mb']:>9.1f} | {c['detail']}")
        if len(runs) == 2:
            a, f = runs
            print(f"    {n:,} servers, full JSON against auto (summary + detail file): "
                  f"CPU x{f['cpu'] / a['cpu']:.2f}, peak RSS x{f['rss_mib'] / a['rss_mib']:.2f}, "
                  f"JSON + detail MB x{f['json_mb'] / (a['json_mb'] + a['side_mb']):.2f}; "
                  f"same hosts: {a['hosts'] == f['hosts']}")
        _goal(runs[0])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10000,200000",
                    help="servers per run (add 1000000 for a million)")
    ap.add_argument("--smoke", action="store_true", help="2,000 servers (CI)")
    ap.add_argument("--child", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--reference", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument(
        "--write-csv", metavar="DIR", type=Path,
        help="write the first size's fleet as DIR/fleet<N>.csv and its host model as "
        "DIR/fleethost.csv (for 'vsizer plan'), then stop",
    )
    ap.add_argument(
        "--cli", action="store_true",
        help="also plan every size through the command line (CSV in, JSON out); "
        "always with --smoke",
    )
    ap.add_argument(
        "--cli-only", action="store_true",
        help="only the command-line table (no in-process stages, kernels or baselines)",
    )
    ap.add_argument(
        "--xlsx", action="store_true",
        help="with --cli-only: the server list saved as XLSX (openpyxl), not CSV",
    )
    ap.add_argument(
        "--ja", action="store_true",
        help="with --cli-only: the shipped Japanese list (28 columns, redundancy "
        "partners) repeated to each size, planned on the default host",
    )
    args = ap.parse_args(argv)
    if args.cli_only:
        sizes = [2000] if args.smoke else [int(s) for s in args.sizes.split(",")]
        print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())} (2-core machine)")
        _cli_table(sizes, "xlsx" if args.xlsx else "ja" if args.ja else "csv")
        print("fleet benchmark done")
        return 0
    if args.write_csv:
        sizes = [2000] if args.smoke else [int(s) for s in args.sizes.split(",")]
        for path in write_csv(args.write_csv, sizes[0]):
            print(f"wrote {path}")
        return 0
    if args.child:
        print(json.dumps(child(args.child, args.reference)))
        return 0
    sizes = [2000] if args.smoke else [int(s) for s in args.sizes.split(",")]
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())} (2-core machine)")
    ref_n = max([n for n in sizes if n <= BASELINE_MAX] or [min(sizes)])
    runs = [run_child(n, reference=n == ref_n) for n in sizes]
    for r in runs:
        _print(r)
    ref = next(r["reference"] for r in runs if "reference" in r)
    print(
        f"kernels: largest pool of {ref_n:,} ({ref['pool_vms']:,} VMs on "
        f"{ref['pool_hosts']:,} hosts, balanced): numpy blocked {ref['blocked_s']:.2f} s, "
        f"numpy plain scan {ref['plain_s']:.2f} s ({ref['plain_s'] / ref['blocked_s']:.1f}x)"
    )
    if "compiled_s" in ref:
        comp = _compile_s()
        print(
            f"compiled kernel (numba) {ref['compiled_s']:.3f} s: "
            f"{ref['flat_s'] / ref['compiled_s']:.1f}x faster than its blocks without "
            f"super-blocks ({ref['flat_s']:.3f} s), "
            f"{ref['blocked_s'] / ref['compiled_s']:.1f}x faster than numpy blocked, "
            f"{ref['plain_s'] / ref['compiled_s']:.0f}x than the plain scan; first JIT "
            f"compile {comp['compile_s']:.1f} s, later processes load it from the cache "
            f"in {comp['cached_s']:.1f} s (numba import included)"
        )
    else:
        print("compiled kernel: numba not installed (pip install vsizer[fast]): numpy kernels used")
    print(f"placements {'identical' if ref['identical'] else 'DIFFER'} across kernels")
    for r in runs[1:]:
        print(
            f"scaling {runs[0]['servers']:,} -> {r['servers']:,}: "
            f"{r['total_s'] / runs[0]['total_s']:.1f}x time "
            f"({r['cpu'] / runs[0]['cpu']:.1f}x CPU time) for "
            f"{r['servers'] / runs[0]['servers']:.0f}x servers"
        )
    if args.cli or args.smoke:
        _cli_table(sizes)
    if not ref["identical"]:
        print("error: the kernels placed differently", file=sys.stderr)
        return 1
    print("fleet benchmark done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
