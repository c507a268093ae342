"""CLI commands: import and collect utilization series, show a series store."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from vsizer._atomic import check_output_dir
from vsizer.cli.common import (
    EXIT_INPUT,
    EncodingOpt,
    ImportStepOpt,
    IndexColumnOpt,
    MaxCellCharsOpt,
    MaxGridCellsOpt,
    MaxUnpackedMibOpt,
    MetricOpt,
    ServerOpt,
    StartOpt,
    TzOpt,
    UnitOpt,
    _fail,
    err,
    input_limits,
    out,
    reader_options,
)
from vsizer.errors import OutputError, SeriesError, VsizerError
from vsizer.limits import using

if TYPE_CHECKING:
    import pandas as pd

    from vsizer.series.collect import Sample
    from vsizer.series.sources import SourceRead
    from vsizer.series.store import PartInfo, SeriesStore

series_app = typer.Typer(help="Inspect series stores.", no_args_is_help=True)

_FORMATS_HELP = (
    "sar, perfmon, prometheus, long, wide, planetlab, bitbrains, alibaba, gcd, azure"
)


def _when(ts: pd.Timestamp | None) -> str:
    return "" if ts is None else ts.strftime("%Y-%m-%d %H:%M:%SZ")


def _say(text: str) -> None:
    err.print(text, markup=False, highlight=False, soft_wrap=True)


def import_series(
    sources: Annotated[
        list[Path],
        typer.Argument(help="Files or folders to import (several allowed)."),
    ],
    fmt: Annotated[
        str,
        typer.Option("--format", "-f", help=f"Format of the sources: {_FORMATS_HELP}."),
    ],
    store: Annotated[
        Path,
        typer.Option("--store", help="Series store directory (created if absent)."),
    ],
    server: ServerOpt = None,
    tz: TzOpt = None,
    encoding: EncodingOpt = None,
    metric: MetricOpt = None,
    unit: UnitOpt = None,
    index_column: IndexColumnOpt = None,
    start: StartOpt = None,
    step: ImportStepOpt = None,
    max_cell_chars: MaxCellCharsOpt = None,
    max_unpacked_mib: MaxUnpackedMibOpt = None,
    max_grid_cells: MaxGridCellsOpt = None,
) -> None:
    """Import utilization series files into a series store (Parquet parts).

    Importing the same content again stores nothing new. Each source's rows,
    servers, metrics, time range and quality issues are listed.

    Example:

        vsizer import web01.sadf-d.txt db01.sadf-d.txt --format sar --tz Asia/Tokyo --store fleet-store
        vsizer import ../shared/data/planetlab_cloudsim/20110303 --format planetlab --store traces
        vsizer import azure-vms.csv.gz --format wide --index-column step --start 2019-11-01T00:00Z --step 5min --store traces
    """
    try:
        options = reader_options(
            server=server,
            tz=tz,
            encoding=encoding,
            metric=metric,
            unit=unit,
            index_column=index_column,
            start=start,
            step=step,
        )
        limits = input_limits(
            max_cell_chars=max_cell_chars,
            max_unpacked_mib=max_unpacked_mib,
            max_grid_cells=max_grid_cells,
        )
        reads, st = _open_import(sources, fmt, store, options)
    except VsizerError as exc:
        raise _fail(exc) from None
    with using(limits):
        done, failed = _import_all(reads, st, store)
    if done:
        _print_imported(done)
        out.print(f"store: {st.path}", markup=False, highlight=False)
    if not done and not failed:  # every source skipped: nothing stored is a failure
        _say(f"error: nothing stored: no source held a series vsizer reads ({store}).")
    if failed or not done:
        raise typer.Exit(EXIT_INPUT)


def _open_import(
    sources: list[Path], fmt: str, store: Path, options: dict[str, Any]
) -> tuple[list[SourceRead], SeriesStore]:
    """The reads of ``vsizer import`` and the store they go to (created if absent)."""
    from vsizer.series.sources import plan_reads
    from vsizer.series.store import SeriesStore

    try:
        check_output_dir(store, "--store")
        reads = plan_reads(sources, fmt, **options)
        return reads, SeriesStore.create(store)
    except OSError as exc:  # e.g. a full disk while writing the store's marker
        reason = exc.strerror or str(exc)
        raise OutputError(
            f"--store {store}: cannot create the store ({reason})."
        ) from None


def _import_all(
    reads: list[SourceRead], st: SeriesStore, store: Path
) -> tuple[list[tuple[str, PartInfo]], int]:
    """Append every source to the store; (imported parts, number of failed sources).

    A source that fails is reported on stderr and the others go on.
    """
    done: list[tuple[str, PartInfo]] = []
    failed = 0
    with _bar(len(reads), "importing") as advance:
        for r in reads:
            try:
                series = r.run()
                # a sadf -d file of swap activity only; a column-wise set (traces)
                # is left to the store, never turned into a tidy frame here
                if series.columns is None and series.data.empty:
                    _say(f"skipped: {_nothing_read(r.label, series)}")
                else:
                    _bounded(series, r.label)
                    done.extend((r.label, info) for info in st.append_split(series))
            except VsizerError as exc:
                failed += 1
                for line in str(exc).splitlines():
                    err.print(
                        f"error: {line}", markup=False, highlight=False, soft_wrap=True
                    )
            except OSError as exc:  # full disk while writing the part (atomic)
                failed += 1
                reason = exc.strerror or str(exc)
                _say(f"error: {r.label}: cannot store it in {store} ({reason}).")
            advance(r.label)
    return done, failed


def _bounded(series: Any, label: str) -> None:
    """Outlying timestamps of a tidy series dropped (and counted), then its grid
    at the plan's default 5-minute step checked against --max-grid-cells
    (:mod:`vsizer.series.outliers`); a column-wise set (traces) is left as is."""
    from vsizer.series.outliers import check_span, drop_outlying

    if series.columns is not None:
        return
    data = drop_outlying(series.data, label, series.quality)
    try:
        check_span(data, "5min")
    except ValueError as exc:
        raise SeriesError(f"{label}: {exc}") from None
    if data is not series.data:
        series.data = data


def _nothing_read(label: str, series: Any) -> str:
    """Why a source gave no samples: the records its reader left unread."""
    from vsizer.series.sources import why_empty

    why = why_empty(series)
    return f"{label}: no series vsizer reads" + (f" ({why})" if why else "") + "; nothing stored."


def _print_imported(done: list[tuple[str, PartInfo]]) -> None:
    """One table row per imported source, then their quality issues (first 30)."""
    from rich.table import Table

    t = Table("source", "rows", "servers", "metrics", "start", "end", "issues", "part")
    for label, info in done:
        t.add_row(
            label,
            str(info.rows),
            str(len(info.servers)),
            ", ".join(info.metrics),
            _when(info.start),
            _when(info.end),
            str(len(info.quality.issues)),
            info.name + ("" if info.created else " (already stored)"),
        )
    out.print(t)
    issues = [(label, i) for label, info in done for i in info.quality.issues]
    if issues:
        q = Table("source", "server", "kind", "count", "detail", title="quality issues")
        for label, i in issues[:30]:
            q.add_row(label, str(i["server"]), i["kind"], str(i["count"]), i["detail"])
        out.print(q)
        if len(issues) > 30:
            out.print(f"... and {len(issues) - 30} more quality issues", markup=False)


class _bar:
    """Rich progress bar over sources on stderr, only on a terminal."""

    def __init__(self, total: int, what: str) -> None:
        self.total, self.what = total, what
        self.progress: Any = None

    def __enter__(self) -> Any:
        if err.is_terminal and self.total > 1:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
            )

            self.progress = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                console=err,
                transient=True,
            )
            self.progress.__enter__()
            task = self.progress.add_task(self.what, total=self.total)
            return lambda label: self.progress.update(
                task, advance=1, description=f"{self.what} {Path(label).name}"
            )
        return lambda label: None

    def __exit__(self, *exc: Any) -> None:
        if self.progress is not None:
            self.progress.__exit__(*exc)


def _sample_line(s: Sample) -> str:
    v = s.values

    def f(name: str, fmt: str) -> str:
        return format(v[name], fmt) if name in v else "-"

    cpu = f"{v['cpu_util'] * 100:.1f} %" if "cpu_util" in v else "-"
    return (
        f"{s.index:>6}  {s.time.strftime('%Y-%m-%dT%H:%M:%S.%fZ')}  cpu {cpu}  "
        f"mem {f('mem_used_gib', '.2f')}/{f('mem_capacity_gib', '.2f')} GiB  "
        f"disk {f('disk_iops', '.1f')} IOPS {f('disk_mb_s', '.2f')} MB/s  "
        f"net {f('net_mbps', '.3f')} Mbit/s"
    )


@dataclass(frozen=True)
class _CollectLog:
    """What ``vsizer collect`` says: its plan, resumed and sealed journals, samples."""

    start_line: str
    quiet: bool

    def on_event(self, name: str, detail: Any) -> None:
        if name == "resumed":  # parameters checked, store open: say what we do
            _say(self.start_line)
        if name == "resumed" and detail:
            rows = sum(p.rows for p in detail)
            _say(
                f"resumed: sealed {len(detail)} journal(s) left by an earlier run "
                f"({rows} rows) into {', '.join(p.name for p in detail)}"
            )
        elif name == "sealed" and detail is not None:
            _say(f"sealed {detail.rows} rows into parts/{detail.name}")

    def on_sample(self, s: Sample) -> None:
        if not self.quiet:
            out.print(_sample_line(s), markup=False, highlight=False, soft_wrap=True)
            sys.stdout.flush()


def collect_series(
    out_store: Annotated[
        Path, typer.Option("--out", help="Series store directory (created if absent).")
    ],
    interval: Annotated[
        str, typer.Option(help="Time between samples: 30s, 5min, 1h, 500ms.")
    ] = "30s",
    duration: Annotated[
        str | None, typer.Option(help="Stop after this long, e.g. 1h, 7d.")
    ] = None,
    count: Annotated[
        int | None, typer.Option(help="Stop after this many samples.")
    ] = None,
    server: Annotated[
        str | None, typer.Option(help="Server name of the samples. Default: host name.")
    ] = None,
    segment: Annotated[
        int,
        typer.Option(
            help="Samples per journal before it is sealed into a Parquet part."
        ),
    ] = 720,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No line per sample.")
    ] = False,
) -> None:
    """Sample this machine (CPU, memory, disk IOPS and MB/s, network) into a series store.

    For servers with no monitoring. Each sample is on disk (fsync) before its line
    is printed; a kill -9 loses at most the sample being taken, and the next run
    resumes the same store. Stop with Ctrl-C or SIGTERM (the journal is sealed into
    a Parquet part). Listens on no port.

    Example:

        vsizer collect --interval 30s --duration 7d --out /var/lib/vsizer/store
        vsizer plan servers.xlsx --series /var/lib/vsizer/store
    """
    from vsizer.series.collect import collect, parse_duration

    try:
        check_output_dir(out_store, "--out")
        interval_s = parse_duration(interval, "interval")
        duration_s = None if duration is None else parse_duration(duration, "duration")

        log = _CollectLog(
            f"collecting {server or 'this host'} every {interval_s:g} s "
            f"({f'{count} samples' if count else (duration or 'until stopped')}) "
            f"into {out_store}; Ctrl-C or SIGTERM stops and seals",
            quiet,
        )
        report = collect(
            out_store,
            interval_s,
            duration_s=duration_s,
            count=count,
            server=server,
            on_sample=log.on_sample,
            on_event=log.on_event,
            segment_samples=segment,
        )
        _say(
            f"stopped ({report.stopped_by or 'done'}): {report.samples} samples of "
            f"{report.server} written to {report.store}"
        )
    except VsizerError as exc:
        raise _fail(exc) from None


@series_app.command("show")
def series_show(
    store: Annotated[Path, typer.Argument(help="Series store directory.")],
    by_metric: Annotated[
        bool, typer.Option("--by-metric", help="One row per server and metric.")
    ] = False,
) -> None:
    """Summarize a series store: servers, metrics, time range, steps, rows.

    Example:

        vsizer series show fleet-store
    """
    from rich.table import Table

    from vsizer.series.store import SeriesStore

    try:
        summary = SeriesStore.open(store).summary()
    except VsizerError as exc:
        raise _fail(exc) from None
    if by_metric:
        t = Table("server", "metric", "unit", "start", "end", "step s", "steps", "rows")
        for r in summary.to_dict("records"):
            t.add_row(
                str(r["server"]),
                str(r["metric"]),
                str(r["unit"]),
                _when(r["start"]),
                _when(r["end"]),
                f"{r['step_s']:g}",
                str(r["steps"]),
                str(r["rows"]),
            )
    else:
        t = Table("server", "metrics", "start", "end", "step s", "steps", "rows")
        for server, g in summary.groupby("server", sort=True):
            t.add_row(
                str(server),
                ", ".join(g["metric"]),
                _when(g["start"].min()),
                _when(g["end"].max()),
                f"{g['step_s'].median():g}",
                str(int(g["steps"].max())),
                str(int(g["rows"].sum())),
            )
    out.print(t)
    a = summary.attrs
    out.print(
        f"{a['parts']} part(s), {a['journals']} open journal(s), {a['rows']} rows, "
        f"{a['issues']} quality issue(s)",
        markup=False,
        highlight=False,
    )


@series_app.command("compact")
def series_compact(
    store: Annotated[Path, typer.Argument(help="Series store directory.")],
    target_rows: Annotated[
        int,
        typer.Option(
            "--target-rows",
            min=2,
            help="Rows per merged part; parts under half of it are merged.",
        ),
    ] = 2_097_152,
) -> None:
    """Merge a store's small parts (many imports, sealed collector journals) into
    larger ones. Plans read the same rows and quality report afterwards.

    Example:

        vsizer series compact fleet-store
    """
    from vsizer.series.store import SeriesStore

    try:
        rep = SeriesStore.open(store).compact(target_rows=target_rows)
    except VsizerError as exc:
        raise _fail(exc) from None
    for name, merged in rep.merged:
        out.print(f"parts/{name}: {len(merged)} parts merged", markup=False)
    out.print(
        f"{rep.parts_before} part(s) before, {rep.parts_after} after",
        markup=False,
        highlight=False,
    )


def register(app: typer.Typer) -> None:
    """Add ``import``, ``collect``, ``series show`` and ``series compact`` to *app*."""
    app.command("import")(import_series)
    app.command("collect")(collect_series)
    app.add_typer(series_app, name="series")
