"""Closed-loop HTTP load generator (DESIGN §6.1, §8).

N client threads; each sends a request, waits for the whole response, then
"thinks" for an exponentially distributed time (mean ``think_ms``) before the
next one. A share ``cgi_share`` of requests goes to the CGI path, the rest to
the static file. Time is taken on the host running the generator. Run as
``python -m vsizer.bench.loadgen --url http://127.0.0.1:8080 --threads 8 --time 5``;
the report is plain text, first line ``vsizer-loadgen 1`` (parsed by
:func:`vsizer.bench.workloads.web._parse_output`).
"""

from __future__ import annotations

import argparse
import http.client
import random
import threading
import time
import urllib.parse

STATIC_PATH = "/static.bin"
CGI_PATH = "/cgi-bin/work.cgi"


def percentile(sorted_values: list[float], q: float) -> float:
    """Nearest-rank percentile ``q`` in [0, 100] of already sorted values."""
    if not sorted_values:
        return float("nan")
    rank = max(1, -(-len(sorted_values) * q // 100))
    return sorted_values[int(rank) - 1]


def generate(url: str, threads: int, time_s: float, think_ms: float, cgi_share: float,
             seed: int = 1) -> dict[str, float]:
    """Drive the server; return counts, throughput [req/s] and response times [ms]."""
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or "127.0.0.1"
    stop_at = time.monotonic() + time_s
    lock = threading.Lock()
    times: list[float] = []
    counts = {"requests": 0, "errors": 0, "cgi": 0}

    def client(index: int) -> None:
        rng = random.Random(seed * 100003 + index)
        conn = http.client.HTTPConnection(host, parts.port, timeout=30)
        mine: list[float] = []
        ok = err = cgi = 0
        time.sleep(rng.expovariate(1000.0 / think_ms) if think_ms > 0 else 0)
        while time.monotonic() < stop_at:
            is_cgi = rng.random() < cgi_share
            t0 = time.monotonic()
            try:
                conn.request("GET", CGI_PATH if is_cgi else STATIC_PATH)
                resp = conn.getresponse()
                resp.read()
                good = resp.status == 200
            except (OSError, http.client.HTTPException):
                good = False
                conn.close()
                conn = http.client.HTTPConnection(host, parts.port, timeout=30)
            if good:
                mine.append((time.monotonic() - t0) * 1000.0)
                ok += 1
                cgi += is_cgi
            else:
                err += 1
            if think_ms > 0:
                time.sleep(rng.expovariate(1000.0 / think_ms))
        conn.close()
        with lock:
            times.extend(mine)
            counts["requests"] += ok
            counts["errors"] += err
            counts["cgi"] += cgi

    start = time.monotonic()
    workers = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    duration = time.monotonic() - start
    times.sort()
    n = len(times)
    return {
        "threads": threads, "duration_s": duration, "requests": counts["requests"],
        "errors": counts["errors"], "cgi_requests": counts["cgi"],
        "throughput_rps": counts["requests"] / duration,
        "rt_mean_ms": sum(times) / n if n else float("nan"),
        "rt_p50_ms": percentile(times, 50), "rt_p90_ms": percentile(times, 90),
        "rt_p99_ms": percentile(times, 99),
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m vsizer.bench.loadgen", description=__doc__)
    ap.add_argument("--url", required=True)
    ap.add_argument("--threads", type=int, default=8)
    ap.add_argument("--time", type=float, default=5.0)
    ap.add_argument("--think-ms", type=float, default=100.0)
    ap.add_argument("--cgi-share", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args(argv)
    result = generate(a.url, a.threads, a.time, a.think_ms, a.cgi_share, a.seed)
    print("vsizer-loadgen 1")
    for key, value in result.items():
        print(f"{key}: {value:.6g}" if isinstance(value, float) else f"{key}: {value}")


if __name__ == "__main__":
    main()
