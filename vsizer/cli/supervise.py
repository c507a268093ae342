"""A console run on Ray ends with one ``error:`` line even when Ray ends it.

Ray's core worker ends its own process (``_exit(1)``, no Python exception, a
C++ log line on stderr) when the raylet of this machine dies under a driver
(issue 24: "killing Ray's raylet exits 1 with no ``error:`` line"). No Python
code runs after that exit, so the console run (:func:`vsizer.cli.main` only,
never a library call or ``CliRunner``) supervises itself before it starts Ray:
it forks; the child goes on with the command, with the file descriptor 2 that
Ray's C++ code writes to pointed at a log file (Python's own lines still reach
the terminal through ``sys.stderr``), and says at any Python exit that it ended
on its own; the parent waits, and when the child ended without saying so it
prints one line naming the log and exits 2.
"""

from __future__ import annotations

import atexit
import os
import signal
import sys
import tempfile

#: Set by :func:`vsizer.cli.main`: a console run, which may supervise itself.
CONSOLE: dict[str, bool] = {"on": False}

EXIT_LOST = 2


def supervise_ray() -> None:
    """Fork; return in the child, never in the parent (module docstring)."""
    if not CONSOLE["on"] or not hasattr(os, "fork"):
        return
    log = tempfile.NamedTemporaryFile(  # noqa: SIM115 - kept open by fd 2 below
        prefix="vsizer-ray-", suffix=".log", delete=False)
    read, write = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        atexit.register(os.write, write, b"1")
        terminal = os.dup(2)
        os.dup2(log.fileno(), 2)  # Ray's C++ log lines, off the terminal
        sys.stderr = open(terminal, "w", encoding=sys.stderr.encoding,  # noqa: SIM115
                          errors="backslashreplace", buffering=1)
        return
    os.close(write)
    log.close()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C: the child says 130
    _, status = os.waitpid(pid, 0)
    os.set_blocking(read, False)  # a process the child started may hold the pipe
    try:
        said = os.read(read, 1) == b"1"
    except BlockingIOError:
        said = False
    code = os.waitstatus_to_exitcode(status)
    if said:
        _remove_if_empty(log.name)
        os._exit(code)
    sys.stderr.write(
        f"error: --engine ray: Ray ended the run (exit {code}) without an error of its "
        "own: the raylet of this machine or the cluster was lost; check the workers' "
        f"memory and logs (Ray's lines: {log.name}), and run again.\n")
    sys.stderr.flush()
    os._exit(EXIT_LOST)


def _remove_if_empty(path: str) -> None:
    try:
        if os.path.getsize(path) == 0:
            os.unlink(path)
    except OSError:
        pass
