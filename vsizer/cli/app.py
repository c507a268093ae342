"""Command-line interface: a thin layer over the library.

Parses arguments, loads the scenario, calls one library function, formats the
output. Every :class:`~vsizer.errors.VsizerError` becomes its message on
stderr (one line per problem) and exit code 2; never a traceback.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from vsizer import __version__
from vsizer._atomic import atomic_write, check_output_path
from vsizer.cli.common import (
    DEBUG,
    IndexColumnOpt,
    MaxCellCharsOpt,
    MaxColumnsOpt,
    MaxRowsOpt,
    MaxXlsxMibOpt,
    MetricOpt,
    SeriesStepOpt,
    ServerOpt,
    StartOpt,
    TzOpt,
    UnitOpt,
    _fail,
    _progress,
    check_reader_flags,
    err,
    guard,
    input_limits,
    out,
    reader_options,
)
from vsizer.errors import ConfigError, VsizerError
from vsizer.limits import using

app = typer.Typer(
    name="vsizer",
    help="Design a virtualized server environment from an existing fleet.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
catalog_app = typer.Typer(
    help="Inspect and import CPU and host catalogs.", no_args_is_help=True
)
app.add_typer(catalog_app, name="catalog")

def _version(value: bool) -> None:
    if value:
        out.print(f"vsizer {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version."
        ),
    ] = False,
    debug: Annotated[
        bool,
        typer.Option(
            "--debug",
            help="Show the traceback of an internal error (also VSIZER_DEBUG=1).",
        ),
    ] = False,
) -> None:
    """vsizer: server list in, checked consolidation plan out (terminal, JSON, Excel)."""
    if debug:
        DEBUG["on"] = True


@app.command()
def plan(
    inventory: Annotated[
        Path | None,
        typer.Argument(
            help="Server list: .xlsx/.csv (English or Japanese headers), RVTools .xlsx, "
            "Azure Migrate .csv. Optional with --series when the series give every "
            "VM's size (Bitbrains) or --vm-cpu-mhz/--vm-mem-gib do."
        ),
    ] = None,
    series: Annotated[
        list[Path] | None,
        typer.Option(
            "--series",
            help="Utilization series: a store ('vsizer import'/'vsizer collect') or, "
            "with --series-format, files/folders. Repeatable. VMs are then placed on "
            "their demand curves.",
        ),
    ] = None,
    series_format: Annotated[
        str | None,
        typer.Option(
            "--series-format",
            help="Format of --series files: sar, perfmon, prometheus, long, wide, "
            "planetlab, bitbrains, alibaba, gcd. Omit for a store.",
        ),
    ] = None,
    metric: MetricOpt = None,
    unit: UnitOpt = None,
    index_column: IndexColumnOpt = None,
    start: StartOpt = None,
    series_step: SeriesStepOpt = None,
    tz: TzOpt = None,
    server: ServerOpt = None,
    step: Annotated[
        str | None,
        typer.Option(
            help="Plan grid step the series are resampled to, e.g. 5min, 30s, 1h. "
            "Default 5min. (The input files' own step is --series-step.)"
        ),
    ] = None,
    percentile: Annotated[
        str | None,
        typer.Option(
            help="Share of steps that must fit under the ceiling: max (every step), "
            "p99, p95. Default max."
        ),
    ] = None,
    resample: Annotated[
        str | None,
        typer.Option(help="Samples within a step: mean or max. Default mean."),
    ] = None,
    gap_fill: Annotated[
        str | None,
        typer.Option(
            "--gap-fill",
            help="Steps without data: the VM's own peak (peak) or zero. Default peak.",
        ),
    ] = None,
    mem_basis: Annotated[
        str | None,
        typer.Option(
            "--mem-basis",
            help="Memory: auto (the memory curve if any, else configured), used, "
            "configured. Default auto.",
        ),
    ] = None,
    solver: Annotated[
        str | None,
        typer.Option(
            help="Placement on curves: heuristic or cp-sat (OR-Tools; exact for up "
            "to a few hundred VMs, reports the gap). Default heuristic."
        ),
    ] = None,
    time_limit: Annotated[
        float | None,
        typer.Option("--time-limit", help="Seconds for cp-sat per pool. Default 30."),
    ] = None,
    vm_cpu_mhz: Annotated[
        float | None,
        typer.Option(
            "--vm-cpu-mhz",
            help="Clock [MHz per core] of servers whose inventory row has neither "
            "clock nor CPU score (e.g. Azure Migrate); without inventory, the CPU "
            "size of every VM (PlanetLab gives only %). Default without it: each "
            "core counts as one host core (a warning).",
        ),
    ] = None,
    vm_mem_gib: Annotated[
        float | None,
        typer.Option(
            "--vm-mem-gib",
            help="Memory [GiB] of servers whose inventory row has none; without "
            "inventory, the memory of every VM.",
        ),
    ] = None,
    hosts: Annotated[
        Path | None,
        typer.Option(
            "--hosts",
            help="Host catalog CSV (merged over the shipped one). With one model "
            "it is the host model; with several, choose one with --host-model.",
        ),
    ] = None,
    host_model: Annotated[
        str | None,
        typer.Option(
            "--host-model",
            help="Host model name from the catalog (see 'vsizer catalog list').",
        ),
    ] = None,
    cpus: Annotated[
        Path | None,
        typer.Option(
            "--cpus",
            help="CPU catalog CSV (e.g. from 'vsizer catalog import-spec'), merged over the shipped one.",
        ),
    ] = None,
    config: Annotated[
        Path | None, typer.Option("--config", help="Scenario TOML; flags override it.")
    ] = None,
    ceiling: Annotated[
        float | None,
        typer.Option(
            help="Utilization ceiling per host in normal operation [fraction]. Default 0.6."
        ),
    ] = None,
    failures: Annotated[
        int | None, typer.Option(help="Host failures to tolerate (N+k). Default 1.")
    ] = None,
    min_hosts: Annotated[
        int | None,
        typer.Option(
            "--min-hosts",
            help="Minimum hosts per pool. Default 3, or 1 when failures = 0.",
        ),
    ] = None,
    vcpu_per_core: Annotated[
        float | None,
        typer.Option("--vcpu-per-core", help="vCPU : physical core limit. Default 2."),
    ] = None,
    cpu_basis: Annotated[
        str | None,
        typer.Option(
            "--cpu-basis",
            help="Size CPU on 'peak' or 'average' utilization. Default peak.",
        ),
    ] = None,
    min_confidence: Annotated[
        float | None,
        typer.Option(
            "--min-confidence",
            help="Data confidence [fraction] below which the plan's headline says it "
            "rests on assumptions. Default 0.7.",
        ),
    ] = None,
    assume_util: Annotated[
        float | None,
        typer.Option(
            "--assume-util",
            help="CPU utilization [fraction] of servers whose average and peak are "
            "both missing. Default 1.0 (fully busy).",
        ),
    ] = None,
    price_kwh: Annotated[
        float | None, typer.Option("--price-kwh", help="Electricity price per kWh.")
    ] = None,
    currency: Annotated[
        str | None, typer.Option(help="Currency code for costs, e.g. JPY.")
    ] = None,
    pue: Annotated[
        float | None, typer.Option(help="Power usage effectiveness (>= 1). Default 1.")
    ] = None,
    years: Annotated[
        int | None,
        typer.Option(help="Years for the saving over the system's life. Default 5."),
    ] = None,
    target_host_ratio: Annotated[
        float | None,
        typer.Option(
            "--target-host-ratio", help="Target: hosts / servers at most this."
        ),
    ] = None,
    target_rack_ratio: Annotated[
        float | None,
        typer.Option(
            "--target-rack-ratio",
            help="Target: rack units after / before at most this.",
        ),
    ] = None,
    target_power_ratio: Annotated[
        float | None,
        typer.Option(
            "--target-power-ratio", help="Target: power after / before at most this."
        ),
    ] = None,
    include_powered_off: Annotated[
        bool,
        typer.Option("--include-powered-off", help="Plan powered-off RVTools VMs too."),
    ] = False,
    platform: Annotated[
        list[str] | None,
        typer.Option(
            "--platform",
            help="Named platform comparison applied to the host (published platform comparisons, listed by 'vsizer model platform'), e.g. "
            "hyperv-r2-java; repeatable. List: 'vsizer model platform'.",
        ),
    ] = None,
    hyperthreading: Annotated[
        str | None,
        typer.Option(
            "--hyperthreading",
            help="catalog (as measured), on, or off (CPU / 1.038, power / 1.094).",
        ),
    ] = None,
    predict: Annotated[
        bool,
        typer.Option(
            "--predict",
            help="Add per-VM performance predictions from the cited overhead "
            "models (docs/models.md).",
        ),
    ] = False,
    profile: Annotated[
        Path | None,
        typer.Option(
            "--profile",
            help="Model profile from 'vsizer fit' for --predict (implies --predict).",
        ),
    ] = None,
    lang: Annotated[str, typer.Option(help="Report language: en or ja.")] = "en",
    output: Annotated[
        list[Path] | None,
        typer.Option(
            "-o",
            "--output",
            help="Write the plan; format from the suffix (.json, .xlsx). Repeatable.",
        ),
    ] = None,
    max_rows: MaxRowsOpt = None,
    max_columns: MaxColumnsOpt = None,
    max_cell_chars: MaxCellCharsOpt = None,
    max_xlsx_mib: MaxXlsxMibOpt = None,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No terminal summary.")
    ] = None,  # type: ignore[assignment]
) -> None:
    """Plan hosts, placement, failover, power and cost for a server list.

    Example:

        vsizer plan servers.xlsx --host-model "Dell PowerEdge R740 2x Platinum 8180" --ceiling 0.6 --failures 1 --price-kwh 31 --currency JPY -o plan.json -o plan.xlsx

        vsizer plan servers.xlsx --series store/ --percentile p99 -o plan.json

        vsizer plan --series planetlab/20110303 --series-format planetlab --vm-cpu-mhz 1000 --vm-mem-gib 1 --hosts hosts.csv -o plan.json
    """
    from vsizer.study import plan as run_plan
    from vsizer.study.config import Rules, load_rules

    try:
        if lang not in ("en", "ja"):
            raise ConfigError(
                f"The 'lang' option must be 'en' or 'ja'. Got {lang!r} instead."
            )
        for path in output or []:
            if path.suffix.lower() not in (".json", ".xlsx", ".html", ".htm"):
                raise ConfigError(
                    f"-o {path}: unsupported output format '{path.suffix}'; use .json, "
                    ".xlsx or .html."
                )
            check_output_path(path)
        if inventory is None and not series:
            raise ConfigError(
                "give an inventory file, or --series (with --vm-cpu-mhz and "
                "--vm-mem-gib when the series carry no sizes); see 'vsizer plan --help'."
            )
        if series_format is not None and not series:
            raise ConfigError("--series-format needs --series.")
        opts = reader_options(
            server=server,
            tz=tz,
            metric=metric,
            unit=unit,
            index_column=index_column,
            start=start,
            step=series_step,
        )
        check_reader_flags(opts, series_format)
        limits = input_limits(
            max_rows=max_rows,
            max_columns=max_columns,
            max_cell_chars=max_cell_chars,
            max_xlsx_mib=max_xlsx_mib,
        )
        rules = load_rules(config) if config else Rules()
        targets = dict(rules.targets)
        for key, value in (
            ("host_ratio", target_host_ratio),
            ("rack_ratio", target_rack_ratio),
            ("power_ratio", target_power_ratio),
        ):
            if value is not None:
                targets[key] = value
        rules = rules.replace(
            ceiling=ceiling,
            failures=failures,
            min_hosts=min_hosts,
            vcpu_per_core=vcpu_per_core,
            cpu_basis=cpu_basis,
            min_confidence=min_confidence,
            assume_util=assume_util,
            price_kwh=price_kwh,
            currency=currency,
            pue=pue,
            years=years,
            host_model=host_model,
            include_powered_off=include_powered_off or None,
            host_catalog=str(hosts) if hosts else None,
            cpu_catalog=str(cpus) if cpus else None,
            targets=targets,
            step=step,
            percentile=percentile,
            resample=resample,
            gap_fill=gap_fill,
            mem_basis=mem_basis,
            solver=solver,
            time_limit=time_limit,
            vm_cpu_mhz=vm_cpu_mhz,
            vm_mem_gib=vm_mem_gib,
            platform=tuple(platform) if platform else None,
            hyperthreading=hyperthreading,
        )
        with using(limits):  # bounds on every file read (vsizer.limits)
            series_set = (
                _read_series(series, series_format, opts, quiet) if series else None
            )
            with _progress(quiet) as progress:
                result = run_plan(
                    inventory, rules=rules, progress=progress, series=series_set
                )
        doc = result.to_dict()
        if predict or profile is not None:
            from vsizer.models.profile import load_profile
            from vsizer.study.predict import predict_plan

            doc["predictions"] = predict_plan(
                doc, load_profile(profile) if profile is not None else None
            )
        if not quiet:
            from vsizer.reporting.terminal import print_summary

            print_summary(doc, out, lang=lang)
        for path in output or []:
            _write(doc, path, lang)
            if not quiet:
                out.print(f"wrote {path}")
    except VsizerError as exc:
        raise _fail(exc) from None


def _read_series(
    series: list[Path], series_format: str | None, opts: dict[str, Any], quiet: bool
) -> Any:
    """The SeriesSet of ``plan --series`` (a spinner on a terminal)."""
    from vsizer.series.sources import load_series

    if not quiet and err.is_terminal:
        with err.status(f"reading series from {len(series)} source(s)"):
            return load_series(series, series_format, **opts)
    return load_series(series, series_format, **opts)


def _write(doc: dict[str, Any], path: Path, lang: str) -> None:
    if path.suffix.lower() == ".json":
        import json

        with atomic_write(path, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(doc, ensure_ascii=False, indent=2) + "\n")
    elif path.suffix.lower() == ".xlsx":
        from vsizer.reporting.excel import write_plan_xlsx

        write_plan_xlsx(doc, path, lang=lang)
    elif path.suffix.lower() in (".html", ".htm"):
        from vsizer.reporting.html import write_plan_html

        write_plan_html(doc, path, lang=lang)
    else:
        raise ConfigError(
            f"output {path}: expected a .json, .xlsx or .html file name, "
            f"got {path.suffix or 'no suffix'!r}"
        )


@catalog_app.command("list")
def catalog_list(
    hosts: Annotated[
        Path | None,
        typer.Option("--hosts", help="Host catalog CSV (merged over the shipped one)."),
    ] = None,
    cpus: Annotated[
        bool,
        typer.Option("--cpus", help="List the CPU catalog instead of host models."),
    ] = False,
    max_cell_chars: MaxCellCharsOpt = None,
) -> None:
    """List host models (or CPUs) known to vsizer, with capacity, power and source.

    Example:

        vsizer catalog list
        vsizer catalog list --cpus
    """
    from rich.table import Table

    from vsizer.catalogs.cpu_catalog import read_cpu_catalog
    from vsizer.catalogs.host_catalog import read_host_catalog

    try:
        if cpus:
            cat = read_cpu_catalog()
            t = Table("cpu_name", "cores", "MHz", "score/core", "basis", "source")
            for e in cat.entries:
                t.add_row(
                    e.cpu_name,
                    str(e.cores),
                    f"{e.cpu_mhz:g}",
                    "" if e.score_per_core is None else f"{e.score_per_core:g}",
                    e.basis,
                    e.source,
                )
        else:
            with using(input_limits(max_cell_chars=max_cell_chars)):
                hc = read_host_catalog(hosts, merge=True) if hosts else read_host_catalog()
                own = read_host_catalog(hosts).models if hosts else []
            default = hc.default.model
            if hosts:  # plan uses the file's only model; with several, none
                default = own[0] if len(own) == 1 else ""
            t = Table(
                "model",
                "cores",
                "MHz",
                "score/core",
                "mem GiB",
                "idle–max W",
                "U",
                "default",
            )
            for name in hc.models:
                h = hc.get(name)
                t.add_row(
                    h.model,
                    f"{h.sockets}×{h.cores_per_socket}",
                    f"{h.cpu_mhz:g}",
                    "" if h.cpu_score_per_core is None else f"{h.cpu_score_per_core:g}",
                    f"{h.mem_gib:g}",
                    f"{h.power_idle_w:g}–{h.power_max_w:g}",
                    f"{h.rack_u:g}",
                    "*" if h.model == default else "",
                )
        out.print(t)
    except VsizerError as exc:
        raise _fail(exc) from None


@catalog_app.command("import-spec")
def catalog_import_spec(
    file: Annotated[
        Path,
        typer.Argument(
            help="SPEC CPU2017 results CSV ('Dump All Records As CSV', .csv or .csv.gz)."
        ),
    ],
    output: Annotated[
        Path, typer.Option("-o", "--output", help="CPU catalog CSV to write.")
    ] = Path("cpus.csv"),
) -> None:
    """Import per-core CPU scores from SPEC CPU2017 integer-rate results.

    Per-core score = median over a CPU's published CINT2017rate results of base / cores.
    Use the written file with plan via the CPU catalog.

    Example:

        vsizer catalog import-spec cpu2017-results.csv.gz -o my-cpus.csv
    """
    from vsizer.catalogs import import_spec_cpu2017, write_catalog_csv

    try:
        check_output_path(output)
        df = import_spec_cpu2017(file)
        write_catalog_csv(df, output)
        out.print(f"wrote {len(df)} CPU models to {output}")
    except VsizerError as exc:
        raise _fail(exc) from None


@catalog_app.command("import-specpower")
def catalog_import_specpower(
    file: Annotated[
        Path,
        typer.Argument(
            help="SPECpower_ssj2008 results: 11-point curves CSV or full-results CSV (idle/100 %)."
        ),
    ],
    output: Annotated[
        Path, typer.Option("-o", "--output", help="Host catalog CSV to write.")
    ] = Path("hosts.csv"),
    keep_incomplete: Annotated[
        bool,
        typer.Option(
            "--keep-incomplete",
            help="Also write results whose source lacks sockets, cores, MHz or memory "
            "(fill those cells in by hand before planning with the file).",
        ),
    ] = False,
) -> None:
    """Import server power curves from SPECpower_ssj2008 results into a host catalog CSV.

    Results whose source row does not state the CPU configuration (sockets, cores,
    MHz, memory) are listed and left out, unless --keep-incomplete.

    Example:

        vsizer catalog import-specpower specpower_curves_11pt.csv -o my-hosts.csv
        vsizer plan servers.xlsx --hosts my-hosts.csv --host-model "IBM server x3550 2x Xeon X5670"
    """
    from vsizer.catalogs import write_catalog_csv
    from vsizer.catalogs.import_specpower import import_specpower

    try:
        check_output_path(output)
        df = import_specpower(file)
        required = ["sockets", "cores_per_socket", "cpu_mhz", "mem_gib"]
        incomplete = df[required].isna().any(axis=1)
        if incomplete.any():
            names = ", ".join(df.loc[incomplete, "model"].astype(str))
            action = "written with empty cells" if keep_incomplete else "left out"
            err.print(
                f"warning: {int(incomplete.sum())} result(s) state no sockets/cores/MHz/"
                f"memory in {file.name} and were {action}: {names}",
                markup=False,
                highlight=False,
            )
            if not keep_incomplete:
                df = df[~incomplete]
        write_catalog_csv(df, output)
        out.print(f"wrote {len(df)} host models to {output}")
    except VsizerError as exc:
        raise _fail(exc) from None


def _register_command_groups() -> None:
    """Commands kept in their own modules (series, models, reports, bench)."""
    from vsizer.cli import bench, models, report, series

    for module in (series, models, report, bench):
        module.register(app)


_register_command_groups()


def main(argv: list[str] | None = None) -> None:
    """Console entry point: the guard that keeps tracebacks away from users.

    Exit codes: 0 success, 1 internal error, 2 bad input or usage (including
    an output that cannot be written or an input that is not UTF-8), 130
    interrupted. An unexpected exception becomes one line naming its type and
    a pointer to ``--debug`` / ``VSIZER_DEBUG=1``, which print the traceback.
    """
    try:
        app(args=argv)
    except KeyboardInterrupt:
        err.print("interrupted")
        sys.exit(130)
    except Exception as exc:  # the top-level guard; see docs/reliability.md
        sys.exit(guard(exc))


if __name__ == "__main__":
    main()
