"""Run one mutated input through the CLI and judge it.

Two ways to run: :func:`run_inprocess` (typer's ``CliRunner`` on
``vsizer.cli.app``, for the CI part on small inputs) and :func:`run_forked`
(a child process forked from a parent that has vsizer imported, killed after
a time limit, for ``make fuzz``). Both return ``(exit code, stderr,
exception text)`` that :func:`tests.fuzz.oracle.classify` judges.
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
import traceback
from pathlib import Path

from tests.fuzz.corpus import Seed
from tests.fuzz.oracle import Outcome, check_plan, classify, exc_name

HANG_SECONDS = 60.0
#: Time limit of an in-process run (CI): SIGALRM interrupts it as a hang.
INPROCESS_SECONDS = 20.0


class _Hang(BaseException):
    """Raised by SIGALRM in an in-process run (not an Exception: nothing swallows it)."""


def prepare(seed: Seed, data: bytes, workdir: Path) -> tuple[list[str], Path, Path]:
    """Write the mutated input under ``workdir``; the argv, input and plan paths."""
    if workdir.exists():
        shutil.rmtree(workdir)
    workdir.mkdir(parents=True)
    inp = workdir / seed.filename
    inp.parent.mkdir(parents=True, exist_ok=True)
    inp.write_bytes(data)
    out = workdir / "out" / "plan.json"
    store = workdir / "store"
    argv = [a.format(input=inp, out=out, store=store) for a in seed.argv]
    return argv, inp, out


def run_inprocess(argv: list[str], timeout: float = INPROCESS_SECONDS) -> Outcome:
    """Run ``vsizer`` in this process (CliRunner, exceptions caught).

    A run longer than ``timeout`` seconds is interrupted by SIGALRM and is a
    hang (main thread of a POSIX process only; elsewhere no limit).
    """
    import signal
    import threading

    from typer.testing import CliRunner

    from vsizer.cli import app
    from vsizer.cli import common as _cli_common

    _cli_common.DEBUG["on"] = False
    timed = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()

    def _alarm(_sig: int, _frame: object) -> None:
        raise _Hang

    old = signal.signal(signal.SIGALRM, _alarm) if timed else None
    try:
        if timed:
            signal.setitimer(signal.ITIMER_REAL, timeout)
        result = CliRunner().invoke(app, argv, catch_exceptions=True,
                                    env={"COLUMNS": "200", "VSIZER_DEBUG": ""})
    except _Hang:
        return Outcome("hang", None, f"over {timeout:g} s")
    finally:
        if timed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
    exc = result.exception
    return classify(result.exit_code, result.stderr, exc)


def _child(argv: list[str], log: str) -> None:  # pragma: no cover - in a fork
    import sys

    start_kib = _rss_kib()
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(fd, 2)
    sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115
    os.environ["COLUMNS"] = "200"
    os.environ.pop("VSIZER_DEBUG", None)
    from vsizer.cli import app
    from vsizer.cli import common as _cli_common

    _cli_common.DEBUG["on"] = False
    code = 0
    try:
        app(args=argv)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException as exc:  # the guard of vsizer.cli.main, plus a record
        with open(log + ".exc", "w", encoding="utf-8") as f:
            f.write(f"{exc_name(exc)}: {str(exc)[:200]}\n")
            f.write(f"{'guard' if isinstance(exc, OSError | UnicodeDecodeError) else ''}\n")
            f.write(traceback.format_exc())
        code = _cli_common.guard(exc) if isinstance(exc, Exception) else 130
    sys.stdout.flush()
    sys.stderr.flush()
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)  # a forked child's own, from 0
    with open(log + ".rss", "w", encoding="utf-8") as f:
        f.write(f"{start_kib} {usage.ru_maxrss} {usage.ru_utime + usage.ru_stime:.3f}\n")
    os._exit(code)


def _rss_kib() -> int:
    """Resident set of this process [KiB] (0 where /proc is missing)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024
    except (OSError, ValueError, IndexError):
        return 0


#: A run is a hang past ``--timeout`` CPU seconds, or past this many times
#: ``--timeout`` of wall time (a run that waits without computing).
WALL_FACTOR = 5.0


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a live (or not yet reaped) process, from
    ``/proc/PID/stat``; 0 where it cannot be read."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def rss_added_mib(log: Path) -> float | None:
    """Peak RSS a forked run added over what it inherited [MiB], or None."""
    try:
        start, peak = Path(str(log) + ".rss").read_text(encoding="utf-8").split()[:2]
    except (OSError, ValueError):
        return None
    return max(int(peak) - int(start), 0) / 1024.0


def cpu_reported(log: Path) -> float | None:
    """CPU seconds (user + system) a finished forked run reported, or None."""
    try:
        return float(Path(str(log) + ".rss").read_text(encoding="utf-8").split()[2])
    except (OSError, ValueError, IndexError):
        return None


def run_forked(argv: list[str], log: Path, timeout: float = HANG_SECONDS) -> Outcome:
    """Run ``vsizer`` in a forked child, killed after ``timeout`` seconds."""
    ctx = multiprocessing.get_context("fork")
    proc = ctx.Process(target=_child, args=(argv, str(log)))
    proc.start()
    proc.join(timeout)
    if proc.is_alive():
        proc.kill()
        proc.join()
        return Outcome("hang", None, f"over {timeout:g} s")
    return judge_log(proc.exitcode, log)


def judge_log(exit_code: int | None, log: Path) -> Outcome:
    """Outcome of a finished child from its exit code and stderr log."""
    stderr = log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""
    exc_file = Path(str(log) + ".exc")
    if exc_file.exists():
        head, guarded, *_tb = exc_file.read_text(encoding="utf-8").split("\n", 2)
        if guarded.strip() == "guard":
            return Outcome("clean_error", exit_code, "guard " + head,
                           raw_control=classify(exit_code, stderr, None).raw_control)
        return classify(exit_code, stderr, None, exc_text=head)
    return classify(exit_code, stderr, None)


def judge(seed: Seed, outcome: Outcome, inp: Path, out: Path) -> Outcome:
    """Apply the plan invariants to a successful run."""
    if outcome.status != "success" or not seed.plans:
        return outcome
    fmt = seed.fmt if seed.inventory else None
    violations = check_plan(out, fmt, inp)
    if violations:
        outcome.status = "silently_wrong"
        outcome.violations = violations
        outcome.detail = violations[0][:200]
    return outcome
