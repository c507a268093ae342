"""CLI commands: benchmark harness (``vsizer bench ...``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from vsizer._atomic import check_output_path
from vsizer.cli.common import _fail, err, out
from vsizer.errors import VsizerError

DEFAULT_STORE = Path("bench-results/samples.jsonl")

bench_app = typer.Typer(
    help="Measure this host and QEMU guests (repeated runs, warm-up discarded, trimmed mean); report and export for 'vsizer fit'.",
    no_args_is_help=True,
)

StoreOpt = Annotated[
    Path, typer.Option("--store", help="JSONL sample store (appended to).")
]


def _say(msg: str) -> None:
    err.print(f"[bench] {msg}", markup=False, highlight=False)


@bench_app.command("run")
def run_cmd(
    suite: Annotated[str, typer.Argument(help="Suite TOML file, or a bundled suite name (quick, standard).")],
    env: Annotated[str, typer.Option("--env", help="physical, vm or both.")] = "both",
    quick: Annotated[bool, typer.Option("--quick", help="Cap runs at 5 s; 1 warm-up, 3 measured runs.")] = False,
    workload: Annotated[list[str] | None, typer.Option("--workload", "-w", help="Run only this workload (repeatable).")] = None,
    store: StoreOpt = DEFAULT_STORE,
    report: Annotated[Path | None, typer.Option("--report", help="Report written after the run (.html or .xlsx). Default: report.html beside the store.")] = None,
) -> None:
    """Run a benchmark suite physically and/or in QEMU guests; append samples to the store.

    Installs what it needs with apt (tools, QEMU, the guest kernel), boots guests
    with the host root shared read-only over virtiofs, and leaves nothing running.
    Under TCG (no real VT-x/AMD-V) guest samples are labelled emulated.

    Example: vsizer bench run quick --env both
    """
    from vsizer.bench.harness import run_suite
    from vsizer.bench.report import write_report
    from vsizer.bench.suite import load_suite

    try:
        target = report or store.parent / "report.html"
        check_output_path(target, "--report")
        s = load_suite(suite)
        if quick:
            s = s.quick()
        if workload:
            s = s.only(workload)
        summary = run_suite(s, env=env, store=store, progress=_say)
        write_report(store, target)
    except VsizerError as exc:
        raise _fail(exc) from None
    out.print(f"run {summary.run_id}: {summary.samples} samples appended to {store} "
              f"in {summary.seconds:.0f} s; report {target}", markup=False, highlight=False)
    for agg in summary.aggregates:
        m = agg.metadata
        if agg.metric in _HEADLINE.get(str(m.get("workload")), ()):
            label = " (emulated)" if m.get("emulated") else ""
            cv = m.get("cv")
            out.print(f"  {m.get('environment')}{label} {m.get('workload')} {agg.metric} "
                      f"{_case(m)}: {agg.value:.4g} {agg.unit}, CV {cv if cv is None else f'{cv:.1%}'}",
                      markup=False, highlight=False)
    if summary.failures:
        for line in summary.failures:
            err.print(f"error: {line}", markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(1)


_HEADLINE = {
    "cpu": ("events_per_s_host",), "disk": ("iops",), "network": ("received_mbit_s",),
    "database": ("tps_host",), "web": ("throughput_rps",),
}
_CASE_KEYS = ("threads", "backing", "write_cache", "access_spec", "queue_depth",
              "link", "block_size", "direction", "mode", "vms")


def _case(meta: dict[str, object]) -> str:
    return " ".join(f"{k}={meta[k]}" for k in _CASE_KEYS if k in meta)


@bench_app.command("tiles")
def tiles_cmd(
    max_tiles: Annotated[int, typer.Option("--max", help="Run 1..N tiles at once.")] = 4,
    tile: Annotated[str, typer.Option("--tile", help="Guests in one tile, comma separated: cpu, database, web, idle.")] = "cpu",
    time_s: Annotated[int, typer.Option("--time", help="Seconds per measured run.")] = 5,
    repetitions: Annotated[int, typer.Option("--repetitions", help="Measured runs per tile count.")] = 3,
    warmup: Annotated[int, typer.Option("--warmup", help="Warm-up runs discarded.")] = 1,
    store: StoreOpt = DEFAULT_STORE,
    idle_w: Annotated[float | None, typer.Option("--idle-w", help="Host watts idle (with --max-w: tile score per watt).")] = None,
    max_w: Annotated[float | None, typer.Option("--max-w", help="Host watts at full load (with --idle-w).")] = None,
) -> None:
    """Run 1..N consolidation tiles at once; report per-tile score and per-VM relative performance.

    A tile is a set of single-vCPU guests; the default tile is one CPU
    guest, so --max 4 measures 1..4 guests contending for this host's cores.

    Example: vsizer bench tiles --max 4 --tile cpu --time 5 --idle-w 79 --max-w 135
    """
    from vsizer.bench.tiles import run_tiles

    if (idle_w is None) != (max_w is None):
        err.print("error: give --idle-w and --max-w together (the host's idle and full-load "
                  "watts), or neither", markup=False, highlight=False)
        raise typer.Exit(2)
    power = (idle_w, max_w) if idle_w is not None and max_w is not None else None
    try:
        rows = run_tiles(max_tiles, [t.strip() for t in tile.split(",") if t.strip()],
                         time_s=time_s, repetitions=repetitions, warmup=warmup, store=store,
                         progress=_say, power_w=power)
    except VsizerError as exc:
        raise _fail(exc) from None
    for row in rows:
        out.print(row, markup=False, highlight=False)


@bench_app.command("report")
def report_cmd(
    store: StoreOpt = DEFAULT_STORE,
    output: Annotated[list[Path] | None, typer.Option("-o", "--output", help="Report file(s): .html and/or .xlsx. Repeatable.")] = None,
) -> None:
    """Write the benchmark report: charts vs queue depth, block size, VM count; physical vs VM.

    Example: vsizer bench report --store bench-results/samples.jsonl -o bench.html -o bench.xlsx
    """
    from vsizer.bench.report import write_report

    targets = output or [store.parent / "report.html"]
    try:
        for target in targets:
            check_output_path(target)
        for target in targets:
            write_report(store, target)
    except VsizerError as exc:
        raise _fail(exc) from None
    for target in targets:
        out.print(f"wrote {target}", markup=False, highlight=False)


@bench_app.command("export")
def export_cmd(
    for_fit: Annotated[bool, typer.Option("--for-fit", help="Write the measurement CSV that 'vsizer fit' reads.")] = False,
    parquet: Annotated[bool, typer.Option("--parquet", help="Write every sample to one Parquet file (pandas, polars, DuckDB read it).")] = False,
    store: StoreOpt = DEFAULT_STORE,
    output: Annotated[Path | None, typer.Option("-o", "--output", help="File to write [default: bench-results/measurements.csv or samples.parquet].")] = None,
    nic_gbps: Annotated[float | None, typer.Option("--nic-gbps", min=0.001, help="Line rate of the measured link [Gbit/s], for network send/receive rows (--for-fit).")] = None,
) -> None:
    """Export samples: measured contention (tiles), disk and network (VM over physical)
    for 'vsizer fit', or all samples as Parquet.

    Example: vsizer bench export --for-fit --nic-gbps 10 -o measurements.csv
    """
    from vsizer.bench.export import export_for_fit, export_parquet

    if for_fit == parquet:
        err.print("error: choose one export format: --for-fit or --parquet", markup=False,
                  highlight=False)
        raise typer.Exit(2)
    target = output or Path("bench-results") / ("measurements.csv" if for_fit else "samples.parquet")
    try:
        check_output_path(target)
        notes: list[str] = []
        n = (export_for_fit(store, target, nic_gbps, notes) if for_fit
             else export_parquet(store, target))
    except VsizerError as exc:
        raise _fail(exc) from None
    out.print(f"wrote {n} rows to {target}", markup=False, highlight=False)
    for note in notes:
        out.print(f"note: {note}", markup=False, highlight=False)


@bench_app.command("calibrate")
def calibrate_cmd(
    target: Annotated[str, typer.Argument(help="Target platform whose host was measured, e.g. proxmox-ceph.")],
    output: Annotated[Path, typer.Option("-o", "--output", help="Profile TOML to write (pass it to --targets-file).")],
    store: StoreOpt = DEFAULT_STORE,
    targets_file: Annotated[list[Path] | None, typer.Option("--targets-file", help="More target profiles (TOML file or folder).")] = None,
) -> None:
    """Write a target profile whose CPU, disk and network overheads are the VM / physical ratios measured here.

    Run 'vsizer bench run quick --env both' on the target's host first; emulated
    (TCG) runs are not used. The comparison then reports those overheads as measured.

    Example: vsizer bench calibrate proxmox-ceph --store bench-results/samples.jsonl -o proxmox-ceph.toml
    """
    from vsizer.bench.calibrate import calibrated_profile
    from vsizer.catalogs.targets import get_target, read_target, read_targets

    try:
        check_output_path(output)
        text = calibrated_profile(get_target(target, read_targets(targets_file or [])), store)
        from vsizer._atomic import atomic_write

        with atomic_write(output, "w", encoding="utf-8") as fh:
            fh.write(text)
        read_target(output)  # the written profile reads back
    except VsizerError as exc:
        raise _fail(exc) from None
    out.print(f"wrote {output}", markup=False, highlight=False)


def register(app: typer.Typer) -> None:
    """Add the benchmark harness commands to *app*."""
    app.add_typer(bench_app, name="bench")
