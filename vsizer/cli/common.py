"""Shared pieces of the command-line modules: consoles, error exit, progress bar."""

from __future__ import annotations

import os
import typing
from typing import Annotated, Any

import typer

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
    """Progress of a plan on stderr (a rich bar, only on a terminal; ``-q``
    silences it) and, with ``log``, one timestamped line per stage appended to
    that file and flushed at once, so a killed run's log names the stage it
    reached.

    Study events (:data:`vsizer.study.core.Progress`): ``("stage", text)``,
    ``("candidate", (done, total, model))``, ``("pool", (name, vms,
    failures))`` and ``("scenario", None)`` per failover scenario.
    """

    def __init__(self, quiet: bool | None, log: Any = None) -> None:
        self.enabled = not quiet and err.is_terminal
        self.log_path = log
        self.log: Any = None
        self.bar: Any = None
        self.task: Any = None

    def __enter__(self) -> Any:
        if self.log_path is not None:
            self.log = open(self.log_path, "a", encoding="utf-8", buffering=1)  # noqa: SIM115
        if self.enabled:
            from rich.progress import (  # ~0.15 s: only when a bar is drawn
                BarColumn,
                MofNCompleteColumn,
                Progress,
                SpinnerColumn,
                TextColumn,
                TimeElapsedColumn,
            )

            self.bar = Progress(
                SpinnerColumn(),
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=err,
                transient=True,
            )
            self.bar.__enter__()
        self._write("start")
        return self._event if (self.bar is not None or self.log is not None) else None

    def _write(self, text: str) -> None:
        if self.log is not None:
            import datetime as dt

            now = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
            self.log.write(f"{now} {text}\n")

    def _task(self, text: str, total: int | None = None, done: int = 0) -> None:
        if self.bar is None:
            return
        if self.task is not None:
            self.bar.remove_task(self.task)
        self.task = self.bar.add_task(text, total=total, completed=done)

    def _event(self, event: str, detail: Any) -> None:
        if event == "stage":
            self._task(str(detail))
            self._write(str(detail))
        elif event == "candidate":
            done, total, model = detail
            text = f"host model {done}/{total} planned: {model}"
            self._task(f"host models: {model}", total=total, done=done)
            self._write(text)
        elif event == "pool":
            name, n_vms, k = detail
            text = f"pool {name}: {n_vms} VMs, failover scenarios (failures = {k})"
            self._task(text)
            self._write(text)
        elif event == "scenario" and self.bar is not None and self.task is not None:
            self.bar.advance(self.task)

    def __exit__(self, *exc: Any) -> None:
        if self.bar is not None:
            self.bar.__exit__(*exc)
        if self.log is not None:
            self._write("interrupted" if exc[0] is not None else "done")
            self.log.close()


#: The worksheet of a server-list workbook (plan, compare). Issue 23 D.
SheetOpt = Annotated[
    str | None,
    typer.Option(
        "--sheet",
        help="Worksheet of a server-list .xlsx to read (default: the first visible "
        "sheet with a server header; hidden sheets are skipped, and other sheets "
        "that look like server lists are named in a warning).",
    ),
]

# ------------------------------------------------- reader flags of series files
# One definition, used by 'vsizer import' and 'vsizer plan --series'. The
# input's sampling step is --series-step on both commands ('import' also takes
# --step, as it has no plan grid); on 'plan', --step is the plan's grid step.

ServerOpt = Annotated[
    str | None,
    typer.Option(
        "--server",
        help="Server name of every sample (sar, perfmon, prometheus scrapes).",
    ),
]
TzOpt = Annotated[
    str | None,
    typer.Option(
        "--tz",
        help="Time zone of times without UTC offset, e.g. Asia/Tokyo or +09:00 "
        "(sar, perfmon, long, wide).",
    ),
]
EncodingOpt = Annotated[
    str | None,
    typer.Option(
        "--encoding",
        help="Text encoding of a perfmon CSV when guessing fails, e.g. cp1252, "
        "cp932, cp1251 (default: a byte-order mark, else UTF-8, then the "
        "Windows code pages).",
    ),
]
MetricOpt = Annotated[
    str | None,
    typer.Option(
        "--metric",
        help="Metric the file holds (wide, Prometheus query_range), e.g. cpu_util, "
        "mem_used_gib. Wide default: cpu_util when values lie in 0..100 (noted).",
    ),
]
UnitOpt = Annotated[
    str | None,
    typer.Option(
        "--unit",
        help="Unit of the values when the file does not say, e.g. %, MB "
        "(wide, query_range).",
    ),
]
IndexColumnOpt = Annotated[
    str | None,
    typer.Option(
        "--index-column",
        help="Wide: header of a step-number column without dates (read with "
        "--start and --series-step, never as Unix time).",
    ),
]
StartOpt = Annotated[
    str | None,
    typer.Option(
        "--start",
        help="Time of the first sample of a file without dates, e.g. "
        "2011-03-03T00:00Z (wide step index, planetlab, alibaba).",
    ),
]
_SERIES_STEP_HELP = (
    "Sampling step of a file without dates, e.g. 5min (wide step index). "
    "Default 5min, stated as an assumption."
)
SeriesStepOpt = Annotated[
    str | None, typer.Option("--series-step", help=_SERIES_STEP_HELP)
]
ImportStepOpt = Annotated[
    str | None,
    typer.Option("--series-step", "--step", help=_SERIES_STEP_HELP),
]


def reader_options(
    *,
    server: str | None,
    tz: str | None,
    metric: str | None,
    encoding: str | None = None,
    unit: str | None,
    index_column: str | None,
    start: str | None,
    step: str | None,
) -> dict[str, Any]:
    """The series reader keyword options of the shared flags (None = not given)."""
    return {
        "server": server,
        "tz": tz,
        "encoding": encoding,
        "metric": metric,
        "unit": unit,
        "index_column": index_column,
        "start": start,
        "step": step,
    }


def check_reader_flags(opts: dict[str, Any], series_format: str | None) -> None:
    """Reader flags need --series files in a named format (a store is already read).

    Raises
    ------
    ConfigError
        A reader flag given for a series store (no --series-format).
    """
    given = [k for k, v in opts.items() if v is not None]
    if given and series_format in (None, "store"):
        # only here: vsizer.series imports pandas (0.8 s), which a plan without
        # series never needs (issue 25: a fixed start under one second)
        from vsizer.errors import ConfigError
        from vsizer.series.sources import READER_FLAGS

        flags = ", ".join(READER_FLAGS[k] for k in given)
        raise ConfigError(
            f"{flags}: reader flags apply to --series files read with "
            "--series-format; give --series-format, or leave them out for a "
            "series store (it was read with them at 'vsizer import')."
        )


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


# ------------------------------------------------------------- input limits
# Bounds on the work an input file can cause (vsizer.limits; docs/reliability.md).

MaxRowsOpt = Annotated[
    int | None,
    typer.Option(
        "--max-rows",
        min=1,
        help="Rows per sheet or CSV file of a server list. Default 1100000.",
    ),
]
MaxColumnsOpt = Annotated[
    int | None,
    typer.Option(
        "--max-columns", min=1, help="Columns per row of a server list. Default 1000."
    ),
]
MaxCellCharsOpt = Annotated[
    int | None,
    typer.Option(
        "--max-cell-chars",
        min=1,
        help="Characters per cell of a server list, catalog or perfmon CSV. "
        "Default 10000.",
    ),
]
MaxXlsxMibOpt = Annotated[
    int | None,
    typer.Option(
        "--max-xlsx-mib",
        min=1,
        help="Uncompressed size of an .xlsx [MiB], from its zip directory. "
        "Default 1024.",
    ),
]
MaxUnpackedMibOpt = Annotated[
    int | None,
    typer.Option(
        "--max-unpacked-mib",
        min=1,
        help="Decompressed size of one .gz, .bz2, .xz or one-file .zip input "
        "[MiB], counted as it is read. Default 4096.",
    ),
]
MaxGridCellsOpt = Annotated[
    int | None,
    typer.Option(
        "--max-grid-cells",
        min=1,
        help="Steps x servers of the time grid utilization series are aligned "
        "to, checked before it is built (outlying timestamps are dropped first). "
        "Default 200000000 (and at most 1,051,200 steps).",
    ),
]


def input_limits(
    *,
    max_rows: int | None = None,
    max_columns: int | None = None,
    max_cell_chars: int | None = None,
    max_xlsx_mib: int | None = None,
    max_unpacked_mib: int | None = None,
    max_grid_cells: int | None = None,
) -> Any:
    """The :class:`vsizer.limits.Limits` of the flags (defaults where not given)."""
    from vsizer.limits import DEFAULT_LIMITS

    return DEFAULT_LIMITS.replace(
        max_rows=max_rows,
        max_columns=max_columns,
        max_cell_chars=max_cell_chars,
        max_xlsx_mib=max_xlsx_mib,
        max_unpacked_mib=max_unpacked_mib,
        max_grid_cells=max_grid_cells,
    )


# ------------------------------------------------- where the work runs
# Plain options of 'plan' and 'compare', not rules: they change where the work
# runs, never the plan (the same JSON byte for byte on every engine).
EngineOpt = Annotated[
    str,
    typer.Option(
        "--engine",
        help="Where independent work runs: local (this process), ray or dask (a "
        "local cluster of --workers processes, or the cluster at --engine-address). "
        "Runs the scenarios of 'compare', the candidates of --host-model auto and "
        "the growth years in parallel; the plan is the same on every engine. "
        "Needs the extra: pip install 'vsizer[ray]' or 'vsizer[dask]'. "
        "Example: --engine dask --workers 2",
    ),
]
EngineAddressOpt = Annotated[
    str | None,
    typer.Option(
        "--engine-address",
        help="Join a running cluster instead of starting one: Ray 'auto', "
        "'ray://HOST:10001' or 'HOST:6379'; Dask 'tcp://HOST:8786'. The workers "
        "need vsizer installed, same version. Example: --engine ray "
        "--engine-address ray://head:10001",
    ),
]
WorkersOpt = Annotated[
    int | None,
    typer.Option(
        "--workers",
        help="Worker processes of the local Ray or Dask cluster that --engine "
        "starts (default: the machine's cores). Example: --engine ray --workers 4",
    ),
]


def open_engine(name: str, address: str | None, workers: int | None) -> Any:
    """The engine of ``--engine``/``--engine-address``/``--workers`` (a context manager)."""
    from vsizer.engines import get_engine

    name = name.strip().casefold()
    if name == "ray":
        from vsizer.cli.supervise import supervise_ray

        supervise_ray()  # a console run ends with one error line if Ray ends it
    return get_engine(name, address=address, workers=workers)


# ------------------------------------------------------------- help panels
def in_panel(panel: str, *options: Any) -> None:
    """Show the options (``Annotated[..., typer.Option(...)]`` aliases) under
    ``panel`` in ``--help`` (issue 27: 69 options in one panel were unreadable)."""
    for opt in options:
        for info in typing.get_args(opt)[1:]:
            if isinstance(info, typer.models.OptionInfo):
                info.rich_help_panel = panel


in_panel("Inputs", SheetOpt)
in_panel("Series files", ServerOpt, TzOpt, EncodingOpt, MetricOpt, UnitOpt,
         IndexColumnOpt, StartOpt, SeriesStepOpt, ImportStepOpt)
in_panel("Input limits", MaxRowsOpt, MaxColumnsOpt, MaxCellCharsOpt, MaxXlsxMibOpt,
         MaxUnpackedMibOpt, MaxGridCellsOpt)
in_panel("Engine", EngineOpt, EngineAddressOpt, WorkersOpt)


#: The ``-o`` formats of the report commands (compare, waves): JSON, Excel, HTML.
REPORT_SUFFIXES = (".json", ".html", ".htm", ".xlsx")


def check_outputs(output: list[Any]) -> None:
    """Every ``-o`` file of a report command in a known format (all the bad ones
    in one error) and at a path that can be written, before any work."""
    from vsizer._atomic import check_output_path
    from vsizer.errors import ConfigError

    bad = [p for p in output if p.suffix.lower() not in REPORT_SUFFIXES]
    if bad:
        raise ConfigError([f"-o {p}: unsupported output format '{p.suffix}'; use .html, "
                           ".json or .xlsx." for p in bad])
    for path in output:
        check_output_path(path)
