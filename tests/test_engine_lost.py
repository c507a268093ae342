"""An engine that loses a node ends with one ``error:`` line, exit 2 (issue 24).

Reproducer of the issue: killing Ray's raylet during ``vsizer plan --engine
ray`` exited 1 with no ``error:`` line. The faults are injected without a
cluster: the real :class:`RayEngine` / :class:`DaskEngine` code runs over a
stand-in module that raises, at each call, the exception type the installed
``ray`` / ``distributed`` raise in the driver when a node, the local raylet,
a worker or the scheduler is lost.
"""

from __future__ import annotations

import tempfile
import types
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from vsizer.cli.app import app
from vsizer.engines import DaskEngine, RayEngine
from vsizer.errors import EngineLostError

pytestmark = pytest.mark.slow

INVENTORY = str(Path(__file__).parent / "data" / "inventory" / "table_en.csv")


def _ray_lost(exc: BaseException, at: str) -> RayEngine:
    """A RayEngine whose ray module raises ``exc`` at ``at`` (put, wait or get)."""
    import ray.exceptions

    def fail(*_a: Any, **_k: Any) -> Any:
        raise exc

    task = types.SimpleNamespace(remote=lambda *_a: object())
    fake = types.SimpleNamespace(
        exceptions=ray.exceptions, remote=lambda **_k: (lambda fn: task),
        put=fail if at == "put" else (lambda fn: fn),
        wait=fail if at == "wait" else (lambda p, **_k: (p[:1], p[1:])),
        get=fail, cancel=fail, shutdown=fail,
    )
    engine = RayEngine.__new__(RayEngine)
    engine._ray, engine.address, engine._owned, engine._task = fake, None, True, None
    engine.workers = 1
    return engine


def _ray_exceptions() -> list[Any]:
    import ray.exceptions as rx

    return [rx.LocalRayletDiedError(), rx.NodeDiedError("node 1a2b lost"),
            rx.WorkerCrashedError(), rx.RaySystemError("raylet gone"),
            rx.ObjectLostError("0" * 56, "owner", "plan"), ConnectionError("GCS unreachable")]


@pytest.mark.needs("ray")
@pytest.mark.parametrize("at", ["put", "wait", "get"])
def test_ray_node_loss_is_one_engine_lost_line(at: str) -> None:
    for exc in _ray_exceptions():
        engine = _ray_lost(exc, at)
        with pytest.raises(EngineLostError) as info:
            engine.map(abs, [-1, 2], done=(lambda i: None) if at == "wait" else None)
        text = str(info.value)
        assert "\n" not in text
        assert text.startswith(
            "--engine ray: a worker or node was lost while running builtins.abs (")
        assert text.endswith("); check the workers' memory and logs, and run again.")
        assert type(exc).__name__ in text
        engine.close()  # shutting down a lost cluster raises nothing


def _dask_lost(exc: BaseException) -> DaskEngine:
    import distributed

    def fail(*_a: Any, **_k: Any) -> Any:
        raise exc

    client = types.SimpleNamespace(map=lambda fn, boxes, pure: [], gather=fail,
                                   cancel=fail, close=fail, loop=None)
    engine = DaskEngine.__new__(DaskEngine)
    dist = types.SimpleNamespace(as_completed=lambda futures, loop: iter(futures),
                                 KilledWorker=distributed.KilledWorker,
                                 comm=distributed.comm)
    engine._dist, engine._client, engine._cluster = dist, client, None
    engine.address, engine.workers = None, 1
    return engine


@pytest.mark.needs("dask")
def test_dask_node_loss_is_one_engine_lost_line() -> None:
    import distributed
    from distributed.client import FutureCancelledError
    from distributed.comm import CommClosedError

    for exc in (distributed.KilledWorker("task-1", types.SimpleNamespace(address="tcp://127.0.0.1:1"), 3),
                CommClosedError("in <TCP (closed)>: Stream is closed"),
                FutureCancelledError("task-1", reason="scheduler-connection-lost"),
                TimeoutError("no reply"), OSError(104, "Connection reset by peer")):
        engine = _dask_lost(exc)
        with pytest.raises(EngineLostError) as info:
            engine.map(abs, [-1, 2])
        text = str(info.value)
        assert "\n" not in text
        assert text.startswith(
            "--engine dask: a worker or node was lost while running builtins.abs (")
        assert type(exc).__name__ in text
        engine.close()


@pytest.mark.needs("ray")
def test_cli_plan_on_a_lost_node_ends_with_one_error_line_exit_2(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import ray.exceptions

    import vsizer.engines

    engine = _ray_lost(ray.exceptions.LocalRayletDiedError(), "get")
    monkeypatch.setattr(vsizer.engines, "get_engine", lambda *a, **k: engine)
    res = CliRunner().invoke(app, ["plan", INVENTORY, "--host-model", "auto",
                                   "--engine", "ray", "-q"], env={"COLUMNS": "400"})
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("error: --engine ray: a worker or node was lost while "
                               "running vsizer.study.choice._plan_one (")
    assert "\x1b" not in res.output


def _descendants(pid: int) -> list[int]:
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        for child in task.read_text().split():
            out += [int(child), *_descendants(int(child))]
    return out


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


@pytest.mark.needs("ray")
@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="no /proc")
def test_a_real_raylet_killed_under_a_console_plan_is_one_error_line(
    tmp_path: Path,
) -> None:
    """The issue's reproducer on a real local cluster: the raylet of this machine
    killed while the candidates of ``--host-model auto`` run (at most ~3 min)."""
    import signal
    import subprocess
    import sys
    import time

    proc = subprocess.Popen(
        [sys.executable, "-m", "vsizer", "plan", INVENTORY, "--host-model", "auto",
         "--growth", "0.1", "--engine", "ray", "--workers", "1", "-q", "-o",
         str(tmp_path / "p.json")], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        cwd=Path(__file__).resolve().parents[1])
    killed, deadline = False, time.monotonic() + 120
    while proc.poll() is None and time.monotonic() < deadline and not killed:
        kids = _descendants(proc.pid)
        raylet = [p for p in kids if _comm(p) == "raylet"]
        working = [p for p in kids if _comm(p).startswith("ray::")]
        if raylet and working:
            time.sleep(1.0)
            with __import__("contextlib").suppress(ProcessLookupError):
                import os

                os.kill(raylet[0], signal.SIGKILL)
                killed = True
        time.sleep(0.2)
    try:
        stdout, stderr = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        stdout, stderr = proc.communicate()
        pytest.fail(f"no exit 120 s after the raylet was killed: {stderr[-500:]!r}")
    if not killed or proc.returncode == 0:
        pytest.skip("the plan ended before its raylet could be killed")
    text = stderr.decode("utf-8", "replace")
    lines = [ln for ln in text.splitlines() if ln.strip()]
    assert proc.returncode == 2, text
    assert len(lines) == 1 and lines[0].startswith("error: --engine ray: "), text
    assert "\x1b" not in text and stdout == b""
    log = lines[0].split("(Ray's lines: ")[-1].split(")")[0]
    if log.startswith(tempfile.gettempdir()) and "vsizer-ray-" in log:
        Path(log).unlink(missing_ok=True)  # the log the line points to


@pytest.mark.needs("ray")
def test_rays_printed_cluster_errors_go_to_a_logger_without_escape_codes(
    capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture,
) -> None:
    import logging

    import ray._private.worker as ray_worker

    from vsizer.engines import _quiet_ray_prints

    _quiet_ray_prints()
    with caplog.at_level(logging.INFO, logger="vsizer.engines.ray"):
        ray_worker.print_to_stdstream(
            {"lines": ["\x1b[33m(raylet)\x1b[0m Raylet is terminated."],
             "pid": "raylet", "is_err": False}, ignore_prefix=False)
    assert capsys.readouterr().out == ""
    assert caplog.messages == ["ray raylet: (raylet) Raylet is terminated."]


def test_a_library_or_test_run_never_forks_a_supervisor() -> None:
    import os

    from vsizer.cli.supervise import CONSOLE, supervise_ray

    assert CONSOLE["on"] is False  # set by vsizer.cli.main only
    pid = os.getpid()
    supervise_ray()
    assert os.getpid() == pid
