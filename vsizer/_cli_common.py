"""Shared pieces of the command-line modules: consoles, error exit, progress bar."""

from __future__ import annotations

import os
from typing import Any

import typer
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
)

from vsizer.errors import VsizerError
from vsizer.termsafe import SafeConsole

#: Every terminal line goes through these consoles: control characters in
#: user strings become visible escapes (:mod:`vsizer.termsafe`).
err = SafeConsole(stderr=True)
out = SafeConsole()

EXIT_INPUT = 2

#: Set by the global ``--debug`` flag: show tracebacks of internal errors.
DEBUG: dict[str, bool] = {"on": False}


def _fail(exc: VsizerError) -> typer.Exit:
    for line in str(exc).splitlines() or [type(exc).__name__]:
        err.print(f"error: {line}", markup=False, highlight=False, soft_wrap=True)
    return typer.Exit(EXIT_INPUT)


class _progress:
    """Rich progress bar fed by the study's progress events (stderr, only on a terminal)."""

    def __init__(self, quiet: bool | None) -> None:
        self.enabled = not quiet and err.is_terminal
        self.bar: Progress | None = None
        self.task: Any = None

    def __enter__(self) -> Any:
        if not self.enabled:
            return None
        self.bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=err,
            transient=True,
        )
        self.bar.__enter__()
        return self._event

    def _event(self, event: str, detail: Any) -> None:
        assert self.bar is not None
        if event == "pool":
            name, n_vms, _k = detail
            if self.task is not None:
                self.bar.remove_task(self.task)
            self.task = self.bar.add_task(
                f"pool {name}: {n_vms} VMs, failover scenarios", total=None
            )
        elif event == "scenario" and self.task is not None:
            self.bar.advance(self.task)

    def __exit__(self, *exc: Any) -> None:
        if self.bar is not None:
            self.bar.__exit__(*exc)


def guard(exc: Exception) -> int:
    """Print one error line for ``exc`` (or its traceback under --debug); exit code."""
    if DEBUG["on"] or os.environ.get("VSIZER_DEBUG", "") not in ("", "0"):
        import traceback

        traceback.print_exception(exc)
        return 1
    if isinstance(exc, UnicodeDecodeError):
        line = f"an input is not valid {exc.encoding} text ({exc.reason} at byte {exc.start})."
        code = EXIT_INPUT
    elif isinstance(exc, OSError):
        where = f"{exc.filename}: " if exc.filename is not None else ""
        line = f"{where}{exc.strerror or exc}."
        code = EXIT_INPUT
    else:
        text = (str(exc).splitlines() or [""])[0][:300]
        line = (
            f"internal error ({type(exc).__name__}: {text}); rerun with --debug "
            "for the traceback"
        )
        code = 1
    err.print(f"error: {line}", markup=False, highlight=False, soft_wrap=True)
    return code
