"""Connecting to QEMU's control socket: bound before listening must not fail the run."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from vsizer.bench.qemu import _connect_unix
from vsizer.errors import BenchmarkRunError


def _sleeper(seconds: float) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", f"import time; time.sleep({seconds})"])


def test_connect_waits_until_the_socket_listens(tmp_path: Path) -> None:
    path = tmp_path / "ctl.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))  # the file exists, nobody listens yet: connect is refused

    def listen_later() -> None:
        time.sleep(0.3)
        server.listen(1)

    proc = _sleeper(10)
    try:
        t = threading.Thread(target=listen_later)
        t.start()
        sock = _connect_unix(path, 5, proc, "qemu-system-x86_64")
        t.join()
        conn, _ = server.accept()
        sock.sendall(b"x")
        assert conn.recv(1) == b"x"
        sock.close()
        conn.close()
    finally:
        proc.kill()
        server.close()


def test_connect_names_the_process_that_exited(tmp_path: Path) -> None:
    path = tmp_path / "ctl.sock"
    proc = _sleeper(0)
    proc.wait()
    with pytest.raises(BenchmarkRunError, match=r"^qemu-system-x86_64 exited with 0 before accepting on ctl.sock\.$"):
        _connect_unix(path, 5, proc, "qemu-system-x86_64")


def test_connect_gives_up_after_the_timeout(tmp_path: Path) -> None:
    path = tmp_path / "ctl.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    proc = _sleeper(10)
    try:
        with pytest.raises(BenchmarkRunError, match=r"did not accept on ctl.sock within 0.2 s"):
            _connect_unix(path, 0.2, proc, "qemu-system-x86_64")
    finally:
        proc.kill()
        server.close()
