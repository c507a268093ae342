"""Web workload: nginx serving a static file plus a share of CGI requests (DESIGN §8).

The server side (nginx, fcgiwrap for the CGI script) runs in the environment; the
closed-loop load generator (:mod:`vsizer.bench.loadgen`: N threads, exponential
think time, mean 100 ms as in DESIGN §6.1) runs on the host and times every
request there. Reported: throughput [req/s], response-time mean and 50/90/99th
percentiles [ms], errors. nginx listens on 127.0.0.1 (physical) or on the guest's
port 80, reached through QEMU's loopback port forward.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from vsizer.bench.env import Environment
from vsizer.bench.prereq import ensure_packages
from vsizer.bench.procs import Reaper
from vsizer.bench.samples import Sample
from vsizer.bench.workloads.network import free_port
from vsizer.errors import BenchmarkRunError

NAME = "web"
PACKAGES = ("nginx-light", "fcgiwrap")
DEFAULT_CONFIG: dict[str, Any] = {
    "threads": 100,
    "think_ms": 100.0,
    "cgi_share": 0.1,
    "static_kib": 4,
    "time_s": 60,
}
GUEST_PORT = 80

_FIELDS = {
    "throughput_rps": "req/s", "requests": "requests", "errors": "requests",
    "cgi_requests": "requests", "rt_mean_ms": "ms", "rt_p50_ms": "ms", "rt_p90_ms": "ms",
    "rt_p99_ms": "ms", "duration_s": "s",
}
_LINE = re.compile(r"^(\w+): (\S+)$", re.M)

NGINX_CONF = """daemon {daemon};
user root;
worker_processes 1;
pid {d}/nginx.pid;
error_log {d}/error.log;
events {{ worker_connections 1024; }}
http {{
  access_log off;
  client_body_temp_path {d}/tmp; proxy_temp_path {d}/tmp; fastcgi_temp_path {d}/tmp;
  uwsgi_temp_path {d}/tmp; scgi_temp_path {d}/tmp;
  server {{
    listen {listen};
    root {d}/www;
    location /cgi-bin/ {{
      include /etc/nginx/fastcgi_params;
      fastcgi_param SCRIPT_FILENAME {d}/www$fastcgi_script_name;
      fastcgi_pass unix:{d}/fcgi.sock;
    }}
  }}
}}
"""
CGI = """#!/bin/sh
printf 'Content-Type: text/plain\\r\\n\\r\\n'
i=0; s=0; while [ $i -lt 200 ]; do s=$((s + i * i)); i=$((i + 1)); done
echo "sum=$s"
"""


def check_prerequisites() -> None:
    """Install nginx and fcgiwrap when missing."""
    ensure_packages(PACKAGES)


def guest_needs(config: dict[str, Any]) -> dict[str, Any]:
    """A loopback port on the host forwarded to the guest's nginx."""
    return {"forwards": ((free_port(), GUEST_PORT),)}


def _parse_output(text: str) -> list[Sample]:
    """Samples from the load generator's report.

    Raises
    ------
    BenchmarkRunError
        No ``vsizer-loadgen 1`` first line, or a missing/unreadable field.
    """
    lines = text.strip().splitlines()
    if not lines or lines[0].strip() != "vsizer-loadgen 1":
        raise BenchmarkRunError("load generator output: first line is not 'vsizer-loadgen 1'.")
    values = dict(_LINE.findall(text))
    missing = [k for k in _FIELDS if k not in values]
    if missing:
        raise BenchmarkRunError(f"load generator output: missing {', '.join(missing)}.")
    out = []
    for key, unit in _FIELDS.items():
        try:
            out.append(Sample(key, float(values[key]), unit))
        except ValueError:
            raise BenchmarkRunError(
                f"load generator output: '{key}' is not a number: {values[key]!r}."
            ) from None
    return out


def cases(config: dict[str, Any], env: Environment) -> list[dict[str, Any]]:
    """One case: the configured thread count."""
    return [{"threads": int(config["threads"]), "cgi_share": float(config["cgi_share"]),
             "think_ms": float(config["think_ms"])}]


def _setup_script(d: str, listen: str, daemon: str, static_kib: int) -> str:
    conf = NGINX_CONF.format(d=d, listen=listen, daemon=daemon)
    return (
        f"set -e\nrm -rf {d}\nmkdir -p {d}/www/cgi-bin {d}/tmp\n"
        f"head -c {static_kib * 1024} /dev/zero > {d}/www/static.bin\n"
        f"cat > {d}/www/cgi-bin/work.cgi <<'VSZ'\n{CGI}VSZ\n"
        f"chmod 755 {d}/www/cgi-bin/work.cgi\n"
        f"cat > {d}/nginx.conf <<'VSZ'\n{conf}VSZ\n"
    )


def prepare(env: Environment, config: dict[str, Any], reaper: Reaper) -> dict[str, Any]:
    """Write the document root and nginx.conf, start fcgiwrap and nginx."""
    d = f"{env.scratch}/vsizer-web"
    kib = int(config["static_kib"])
    if env.name == "physical":
        reaper.add_cleanup(f"remove {d}", lambda: subprocess.run(["rm", "-rf", d], check=False))
        return {"url": _start_physical(d, kib, reaper), "reaper": reaper}
    port = env.forwarded(GUEST_PORT)  # type: ignore[attr-defined]
    script = _setup_script(d, str(GUEST_PORT), "on", kib) + (
        f"setsid fcgiwrap -c 2 -s unix:{d}/fcgi.sock </dev/null >/dev/null 2>&1 &\n"
        f"nginx -p {d} -c {d}/nginx.conf\n"
    )
    res = env.run(["sh", "-c", script], timeout=120)
    if res.returncode != 0:
        raise BenchmarkRunError(f"web setup in the guest failed: {res.stderr.strip()[-200:]}")
    url = f"http://127.0.0.1:{port}"
    _wait_http(url, reaper)
    return {"url": url, "reaper": reaper}


def _start_physical(d: str, kib: int, reaper: Reaper, attempts: int = 3) -> str:
    """Start fcgiwrap and nginx on a free loopback port; retry on a new port if they fail.

    Between picking a free port and nginx binding it another process may take it;
    a server that exits or does not answer within 30 s is stopped and the start is
    tried again on another port. The error names every attempt's outcome.
    """
    failures = []
    for _ in range(attempts):
        port = free_port()
        done = reaper.run(["sh", "-c", _setup_script(d, f"127.0.0.1:{port}", "off", kib)], timeout=60)
        if done.returncode != 0:
            raise BenchmarkRunError(f"web setup failed: {done.stderr.strip()[-200:]}")
        with open(f"{d}/fcgiwrap.stderr", "wb") as ferr, open(f"{d}/nginx.stderr", "wb") as nerr:
            procs = {
                "fcgiwrap": reaper.popen(["fcgiwrap", "-c", "2", "-s", f"unix:{d}/fcgi.sock"],
                                         stdout=subprocess.DEVNULL, stderr=ferr),
                "nginx": reaper.popen(["nginx", "-p", d, "-c", f"{d}/nginx.conf"],
                                      stdout=subprocess.DEVNULL, stderr=nerr),
            }
        url = f"http://127.0.0.1:{port}"
        try:
            _wait_http(url, reaper, timeout=30, log=Path(d), procs=procs)
            return url
        except BenchmarkRunError as exc:
            failures.append(str(exc))
            for proc in procs.values():
                proc.kill()
                proc.wait(timeout=10)
    raise BenchmarkRunError(f"web server did not start in {attempts} attempts: " + " | ".join(failures))


def _wait_http(
    url: str, reaper: Reaper, timeout: float = 60, log: Path | None = None,
    procs: dict[str, subprocess.Popen[Any]] | None = None,
) -> None:
    """Wait until the CGI path answers 200; the error says what was seen last."""
    import http.client
    import urllib.parse

    parts = urllib.parse.urlsplit(url)
    deadline = time.monotonic() + timeout
    last = "no attempt"
    gone: dict[str, int | None] = {}
    while time.monotonic() < deadline:
        gone = {n: p.poll() for n, p in (procs or {}).items() if p.poll() is not None}
        if gone:
            last = ", ".join(f"{n} exited with code {rc}" for n, rc in gone.items())
            break
        try:
            conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=5)
            conn.request("GET", "/cgi-bin/work.cgi")
            status = conn.getresponse().status
            conn.close()
            if status == 200:
                return
            last = f"HTTP {status}"
        except (OSError, http.client.HTTPException) as exc:
            last = f"{type(exc).__name__}: {exc}"
        time.sleep(0.3)
    raise BenchmarkRunError(wait_failure(url, timeout, last, log, gave_up=bool(gone)))


def wait_failure(
    url: str, timeout: float, last: str, web_dir: Path | None, gave_up: bool = False
) -> str:
    """The one-line error of :func:`_wait_http`: last answer, then the servers' last words.

    ``web_dir`` (physical runs): nginx's ``error.log`` and the stderr of nginx and
    fcgiwrap, the last line of each that has one.
    """
    said = []
    if web_dir is not None:
        for name in ("error.log", "nginx.stderr", "fcgiwrap.stderr"):
            try:
                lines = (web_dir / name).read_text(encoding="utf-8", errors="replace").strip().splitlines()
            except OSError:
                continue
            if lines:
                said.append(f"{name}: {lines[-1][-200:]}")
        if not said:
            said.append("nginx and fcgiwrap wrote nothing")
    tail = "".join(f"; {x}" for x in said)
    when = "before a server exited" if gave_up else f"within {timeout:g} s"
    return f"nginx at {url} did not answer the CGI path {when} (last: {last}){tail}."


def run(
    env: Environment, case: dict[str, Any], config: dict[str, Any], state: dict[str, Any]
) -> list[Sample]:
    """One load-generator run on the host."""
    t = int(config["time_s"])
    argv = [sys.executable, "-m", "vsizer.bench.loadgen", "--url", state["url"],
            "--threads", str(case["threads"]), "--time", str(t),
            "--think-ms", str(case["think_ms"]), "--cgi-share", str(case["cgi_share"])]
    done = state["reaper"].run(argv, timeout=t + 120)
    if done.returncode != 0:
        raise BenchmarkRunError(f"load generator exited with {done.returncode}: {done.stderr.strip()[-200:]}")
    now = time.time()
    meta = {"time_s": t, "static_kib": int(config["static_kib"])}
    return [Sample(s.metric, s.value, s.unit, {**s.metadata, **meta}, now)
            for s in _parse_output(done.stdout)]


def cleanup(env: Environment, state: dict[str, Any]) -> None:
    """Servers go with the reaper (host) or the guest."""
