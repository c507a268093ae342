"""Guaranteed teardown: every process and resource the harness starts is ended.

:class:`Reaper` is a context manager. Processes started through it run in their
own process group (``start_new_session``) with ``PR_SET_PDEATHSIG`` = SIGKILL,
so they die with the harness even if it is killed outright; cleanup callables
(stop a database, delete a network namespace, detach a loop device) are run in
reverse order. On leaving the ``with`` block — normally, on an exception, on
SIGINT or SIGTERM (turned into :class:`Interrupted`) — and, as a last resort,
at interpreter exit, every group gets SIGTERM, then SIGKILL after a grace period.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import os
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from types import FrameType, TracebackType
from typing import Any

from vsizer.errors import BenchmarkRunError

__all__ = ["Interrupted", "Reaper", "run_checked"]

_PR_SET_PDEATHSIG = 1


class Interrupted(BenchmarkRunError):
    """The run was interrupted by SIGINT or SIGTERM; everything started was torn down."""


def _pdeathsig() -> None:  # runs in the child between fork and exec
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except OSError:
        pass


def _kill_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Reaper:
    """Track processes and cleanups; end them all on exit, error or signal.

    Parameters
    ----------
    grace_s : float
        Seconds between SIGTERM and SIGKILL.
    """

    _active: list[Reaper] = []

    def __init__(self, grace_s: float = 3.0) -> None:
        self.grace_s = grace_s
        self.procs: list[subprocess.Popen[Any]] = []
        self.cleanups: list[tuple[str, Callable[[], object]]] = []
        self.errors: list[str] = []
        self._old: dict[int, Any] = {}

    # -- starting things -------------------------------------------------
    def popen(self, argv: Sequence[str], **kwargs: Any) -> subprocess.Popen[Any]:
        """Start ``argv`` in its own process group, tracked for teardown."""
        try:
            proc = subprocess.Popen(
                list(argv), start_new_session=True, preexec_fn=_pdeathsig, **kwargs
            )
        except OSError as exc:
            raise BenchmarkRunError(f"cannot start {argv[0]}: {exc.strerror}.") from None
        self.procs.append(proc)
        return proc

    def run(
        self, argv: Sequence[str], timeout: float | None = None, input: str | None = None
    ) -> subprocess.CompletedProcess[str]:
        """Run ``argv`` to completion in its own group; kill the group on timeout."""
        proc = self.popen(
            argv,
            stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            stdout, stderr = proc.communicate(input, timeout=timeout)
        except subprocess.TimeoutExpired:
            self.stop(proc)
            raise BenchmarkRunError(
                f"{argv[0]} did not finish within {timeout:g} s; its process group was killed."
            ) from None
        finally:
            if proc.poll() is not None:
                # a tool may leave helpers in its group: end them too
                self._end_group(proc.pid)
                if proc in self.procs:
                    self.procs.remove(proc)
        return subprocess.CompletedProcess(list(argv), proc.returncode, stdout, stderr)

    def add_cleanup(self, label: str, fn: Callable[[], object]) -> None:
        """Run ``fn`` at teardown (last added, first run)."""
        self.cleanups.append((label, fn))

    def live_pids(self) -> list[int]:
        """Pids of tracked processes still running."""
        return [p.pid for p in self.procs if p.poll() is None]

    # -- ending things ---------------------------------------------------
    def _end_group(self, pgid: int) -> None:
        if not _group_alive(pgid):
            return
        _kill_group(pgid, signal.SIGTERM)
        deadline = time.monotonic() + self.grace_s
        while time.monotonic() < deadline and _group_alive(pgid):
            time.sleep(0.05)
        _kill_group(pgid, signal.SIGKILL)

    def stop(self, proc: subprocess.Popen[Any]) -> None:
        """End ``proc`` and its whole process group, and reap it."""
        if proc.poll() is None:
            _kill_group(proc.pid, signal.SIGTERM)
            try:
                proc.wait(self.grace_s)
            except subprocess.TimeoutExpired:
                _kill_group(proc.pid, signal.SIGKILL)
                proc.wait()
        self._end_group(proc.pid)
        if proc in self.procs:
            self.procs.remove(proc)

    def teardown(self) -> None:
        """Run cleanups (reverse order), then end every tracked process group."""
        while self.cleanups:
            label, fn = self.cleanups.pop()
            try:
                fn()
            except Exception as exc:  # keep tearing down; report at the end
                self.errors.append(f"cleanup '{label}' failed: {exc}")
        for proc in list(reversed(self.procs)):
            self.stop(proc)

    # -- context and signals ---------------------------------------------
    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        raise Interrupted(f"interrupted by {signal.Signals(signum).name}; stopped everything the run had started.")

    def __enter__(self) -> Reaper:
        Reaper._active.append(self)
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(ValueError):  # not in the main thread
                self._old[sig] = signal.signal(sig, self._on_signal)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        # a second signal during teardown must not abort it
        for sig in self._old:
            signal.signal(sig, signal.SIG_IGN)
        try:
            self.teardown()
        finally:
            for sig, old in self._old.items():
                signal.signal(sig, old)
            self._old.clear()
            if self in Reaper._active:
                Reaper._active.remove(self)


@atexit.register
def _teardown_all() -> None:  # pragma: no cover - last resort at interpreter exit
    for reaper in list(Reaper._active):
        reaper.teardown()


def run_checked(
    reaper: Reaper, argv: Sequence[str], what: str, timeout: float | None = None
) -> str:
    """Run ``argv`` through ``reaper``; return stdout, or raise naming ``what`` and stderr."""
    done = reaper.run(argv, timeout=timeout)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise BenchmarkRunError(
            f"{what} failed (exit {done.returncode}): {' | '.join(tail) or 'no output'}"
        )
    return done.stdout
