"""``vsizer plan``: parse the flags, plan, write the outputs.

The rule flags (``--ceiling``, ``--failures``, ...) are not declared here:
they are generated from the declared table of
:class:`~vsizer.study.config.Rules` (:mod:`vsizer.cli.rule_flags`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from vsizer._atomic import (
    atomic_write,
    check_not_input,
    check_output_path,
    output_set,
)
from vsizer.cli.common import (
    EncodingOpt,
    EngineAddressOpt,
    EngineOpt,
    IndexColumnOpt,
    MaxCellCharsOpt,
    MaxColumnsOpt,
    MaxGridCellsOpt,
    MaxRowsOpt,
    MaxUnpackedMibOpt,
    MaxXlsxMibOpt,
    MetricOpt,
    SeriesStepOpt,
    ServerOpt,
    SheetOpt,
    StartOpt,
    TzOpt,
    UnitOpt,
    WorkersOpt,
    _fail,
    _progress,
    check_reader_flags,
    err,
    in_panel,
    input_limits,
    open_engine,
    out,
    reader_options,
)
from vsizer.cli.plan_detail import (
    DetailFileOpt,
    Documents,
    JsonDetailOpt,
    detail_outputs,
    documents,
)
from vsizer.cli.rule_flags import rules_of, with_rule_flags
from vsizer.cli.targets import TargetOpt, TargetsFileOpt
from vsizer.errors import ConfigError, OutputError, VsizerError
from vsizer.limits import using

_OUTPUT_SUFFIXES = (".json", ".xlsx", ".html", ".htm")


InventoryArg = Annotated[
    Path | None,
    typer.Argument(
        help="Server list: .xlsx/.csv (English or Japanese headers), RVTools .xlsx "
        "or per-tab CSV export (its folder or vInfo.csv), Azure Migrate .csv. Optional with --series when the series give every "
        "VM's size (Bitbrains) or --vm-cpu-mhz/--vm-mem-gib do."
    ),
]
SeriesOpt = Annotated[
    list[Path] | None,
    typer.Option(
        "--series",
        help="Utilization series: a store ('vsizer import'/'vsizer collect') or, "
        "with --series-format, files/folders. Repeatable. VMs are then placed on "
        "their demand curves.",
    ),
]
SeriesFormatOpt = Annotated[
    str | None,
    typer.Option(
        "--series-format",
        help="Format of --series files: sar, perfmon, prometheus, long, wide, "
        "planetlab, bitbrains, alibaba, gcd, azure. Omit for a store.",
    ),
]
ConfigOpt = Annotated[
    Path | None, typer.Option("--config", help="Scenario TOML; flags override it.")
]
PredictOpt = Annotated[
    bool,
    typer.Option(
        "--predict",
        help="Add per-VM performance predictions from the cited overhead "
        "models (docs/models.md).",
    ),
]
ProfileOpt = Annotated[
    Path | None,
    typer.Option(
        "--profile",
        help="Model profile from 'vsizer fit' for --predict (implies --predict).",
    ),
]
LangOpt = Annotated[
    str | None,
    typer.Option(
        help="Report language: en or ja (default: ja when most of the inventory's "
        "headers are Japanese, else en; a note says so).",
        show_default=False,
    ),
]
OutputOpt = Annotated[
    list[Path] | None,
    typer.Option(
        "-o",
        "--output",
        help="Write the plan; format from the suffix (.json, .xlsx). Repeatable.",
    ),
]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No terminal summary.")]
DetailOpt = Annotated[
    bool,
    typer.Option(
        "--detail",
        help="Terminal: every table (hosts, power, storage, targets, candidates, all "
        "warnings) instead of the one-screen summary.",
    ),
]


LogOpt = Annotated[
    Path | None,
    typer.Option(
        "--log",
        help="Append one timestamped line per stage (reading, each candidate host "
        "model, each pool, done) to this file, flushed at once: a killed run's log "
        "names the stage it reached.",
    ),
]


MemUnitOpt = Annotated[
    str | None,
    typer.Option(
        "--mem-unit",
        help="Unit of the inventory's memory column when its header states none: "
        "GiB (default), GB, MiB or MB (divided by 1,024). Example: --mem-unit MB",
        show_default=False,
    ),
]


in_panel("Inputs", SeriesOpt, SeriesFormatOpt, ConfigOpt, MemUnitOpt)
in_panel("Outputs", PredictOpt, ProfileOpt, LangOpt, OutputOpt, JsonDetailOpt,
         DetailFileOpt, QuietOpt, DetailOpt, LogOpt)


@with_rule_flags(after="config")
def plan(
    inventory: InventoryArg = None,
    sheet: SheetOpt = None, mem_unit: MemUnitOpt = None,
    series: SeriesOpt = None,
    series_format: SeriesFormatOpt = None,
    metric: MetricOpt = None,
    unit: UnitOpt = None,
    index_column: IndexColumnOpt = None,
    start: StartOpt = None,
    series_step: SeriesStepOpt = None,
    tz: TzOpt = None,
    encoding: EncodingOpt = None,
    server: ServerOpt = None,
    config: ConfigOpt = None,
    target: TargetOpt = None,
    targets_file: TargetsFileOpt = None,
    predict: PredictOpt = False,
    profile: ProfileOpt = None,
    lang: LangOpt = None,
    output: OutputOpt = None,
    json_detail: JsonDetailOpt = "auto",
    detail_file: DetailFileOpt = None,
    max_rows: MaxRowsOpt = None,
    max_columns: MaxColumnsOpt = None,
    max_cell_chars: MaxCellCharsOpt = None,
    max_xlsx_mib: MaxXlsxMibOpt = None,
    max_unpacked_mib: MaxUnpackedMibOpt = None,
    max_grid_cells: MaxGridCellsOpt = None,
    quiet: QuietOpt = None,  # type: ignore[assignment]
    detail: DetailOpt = False,
    log: LogOpt = None,
    engine: EngineOpt = "local",
    engine_address: EngineAddressOpt = None,
    workers: WorkersOpt = None,
    **rule_flags: Any,
) -> None:
    """Plan hosts, placement, failover, power and cost for a server list.

    Example:

        vsizer plan servers.xlsx --host-model "Dell PowerEdge R740 2x Platinum 8180" --ceiling 0.6 --failures 1 --price-kwh 31 --currency JPY -o plan.json -o plan.xlsx

        vsizer plan servers.xlsx --series store/ --percentile p99 -o plan.json

        vsizer plan servers.xlsx --host-model auto --candidates hosts.csv --licences lic.csv --years 5 --price-kwh 31 --currency JPY -o plan.json

        vsizer plan --series planetlab/20110303 --series-format planetlab --vm-cpu-mhz 1000 --vm-mem-gib 1 --hosts hosts.csv -o plan.json

        vsizer plan servers.xlsx --host-model auto --growth 0.2 --engine dask --workers 2 -o plan.json

        vsizer plan book.xlsx --sheet "DR site" -o plan.json

        vsizer plan rvtools.xlsx --target proxmox-ceph --years 5 -o plan.json

        vsizer plan fleet.csv --hosts hosts.csv --json-detail summary -o plan.json
    """
    try:
        _check_arguments(inventory, series, series_format, lang, output or [], sheet)

        opts = reader_options(
            server=server, tz=tz, encoding=encoding, metric=metric, unit=unit,
            index_column=index_column, start=start, step=series_step,
        )
        check_reader_flags(opts, series_format)
        limits = input_limits(
            max_rows=max_rows, max_columns=max_columns, max_cell_chars=max_cell_chars,
            max_xlsx_mib=max_xlsx_mib, max_unpacked_mib=max_unpacked_mib,
            max_grid_cells=max_grid_cells,
        )
        rules = rules_of(config, rule_flags)
        unwritable = _preflight(output or [], inventory, series, config, profile, rules,
                                (json_detail, detail_file))
        if target is None:
            _check_host_model(rules)
        with using(limits):  # bounds on every file read (vsizer.limits)
            source, series_set = _inputs(
                inventory, sheet, rules, series, series_format, opts, quiet, mem_unit
            )
            with open_engine(engine, engine_address, workers) as eng, \
                    _progress(quiet, log) as progress:
                doc, result = _run(source, rules, target, targets_file, progress=progress,
                                   series=series_set, predict=predict, profile=profile,
                                   engine=eng)
        lang = lang or (_auto_lang(result, quiet) if result is not None else "en")
        docs = (Documents(doc or {}) if result is None
                else documents(result, output or [], json_detail, detail_file))
        _report(docs, output or [], lang, quiet, unwritable, detail=detail)
    except VsizerError as exc:
        raise _fail(exc) from None


def _run(
    source: Any, rules: Any, target: str | None, files: list[Path] | None, **kw: Any
) -> tuple[dict[str, Any] | None, Any]:
    """``(document, None)`` for ``--target`` (the target's document,
    :mod:`vsizer.cli.targets`), else ``(None, the plan)``."""
    if target is not None:
        from vsizer.cli.targets import plan_for_target

        return plan_for_target(source, target, files, rules, **kw), None
    if files:
        raise ConfigError("--targets-file needs --target (or compare --targets).")
    from vsizer.study import plan as run_plan

    return None, run_plan(source, rules=rules, **kw)


def _preflight(
    output: list[Path],
    inventory: Path | None,
    series: list[Path] | None,
    config: Path | None,
    profile: Path | None,
    rules: Any,
    detail: tuple[str, Path | None] = ("auto", None),
) -> dict[Path, str]:
    """No output (``detail``: ``--json-detail`` and ``--detail-file``, their
    files included) replaces an input; the outputs whose extra is missing."""
    check_not_input(output, _inputs_of(inventory, series, config, profile, rules))
    _check_detail(output, *detail, inventory, series, config, profile, rules)
    return _unwritable_outputs(output)


def _check_host_model(rules: Any) -> None:
    """The host model is resolved as the plan will (a ``--hosts`` catalog of several
    models without ``--host-model``, or a model name in no catalog, is refused)
    before the inputs are read: a trace folder can take seconds to read."""
    from vsizer.study.choice import is_auto

    if (rules.host_catalog is None and rules.host_model is None) or is_auto(rules):
        return
    from vsizer.study.hosts import resolve_host

    resolve_host(rules.host_catalog, rules.host_model)


def _inputs_of(
    inventory: Path | None,
    series: list[Path] | None,
    config: Path | None,
    profile: Path | None,
    rules: Any,
) -> dict[str, list[Any]]:
    """Every file this run reads, by what it is: no output may replace one."""
    from vsizer.study.config import rule_fields

    inputs: dict[str, list[Any]] = {
        "the inventory": [inventory],
        "a --series input": list(series or []),
        "the --config file": [config],
        "the --profile file": [profile],
    }
    for name, meta in rule_fields().items():
        if meta.path:
            inputs[f"the {meta.flag} file"] = [getattr(rules, name)]
    return inputs


def _unwritable_outputs(output: list[Path]) -> dict[Path, str]:
    """Outputs whose writer needs a missing extra, found before any planning.

    They are reported (one line each, on stderr) before planning, skipped, and
    the run exits with an error after writing the others.
    """
    import importlib.util

    missing: dict[Path, str] = {}
    for path in output:
        if path.suffix.lower() in (".html", ".htm") and (
            importlib.util.find_spec("plotly") is None
        ):
            missing[path] = (
                f"-o {path}: not written: the HTML report needs the 'plotly' package "
                "for its charts: pip install 'vsizer[report]'."
            )
    for line in missing.values():
        err.print(
            f"warning: {line} The other outputs are still written.",
            markup=False, highlight=False, soft_wrap=True,
        )
    return missing


def _japanese(text: str) -> bool:
    """Whether ``text`` has a kana or CJK ideograph (U+3040-U+30FF, U+4E00-U+9FFF)."""
    return any("\u3040" <= ch <= "\u30ff" or "\u4e00" <= ch <= "\u9fff" for ch in text)


def _auto_lang(result: Any, quiet: bool | None) -> str:
    """``ja`` when most of the inventory's mapped headers are Japanese (a note
    on stderr says so, unless quiet), else ``en``."""
    inventory = getattr(result, "inventory", None)
    headers = list((getattr(inventory, "metadata", None) or {}).get("columns") or {})
    if not headers or 2 * sum(map(_japanese, headers)) <= len(headers):
        return "en"
    if not quiet:
        err.print(
            "note: the inventory's headers are Japanese: reports in Japanese "
            "(--lang en for English).", markup=False, highlight=False, soft_wrap=True,
        )
    return "ja"


def _check_arguments(
    inventory: Path | None,
    series: list[Path] | None,
    series_format: str | None,
    lang: str | None,
    output: list[Path],
    sheet: str | None = None,
) -> None:
    """The checks of ``plan``'s own arguments, before anything is read."""
    if sheet is not None and inventory is None:
        raise ConfigError("--sheet needs an inventory file.")
    if lang is not None and lang not in ("en", "ja"):
        raise ConfigError(
            f"The 'lang' option must be 'en' or 'ja'. Got {lang!r} instead."
        )
    for path in output:
        if path.suffix.lower() not in _OUTPUT_SUFFIXES:
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


def _inputs(
    inventory: Path | None,
    sheet: str | None,
    rules: Any,
    series: list[Path] | None,
    series_format: str | None,
    opts: dict[str, Any],
    quiet: bool,
    mem_unit: str | None = None,
) -> tuple[Any, Any]:
    """The inventory argument of the plan (the path, or with ``--sheet`` or
    ``--mem-unit`` the inventory read here) and the series set (None without
    ``--series``)."""
    series_set = _read_series(series, series_format, opts, quiet) if series else None
    if (sheet is None and mem_unit is None) or inventory is None:
        return inventory, series_set
    from vsizer.inventory import read_inventory

    inv = read_inventory(
        inventory, sheet=sheet, include_powered_off=rules.include_powered_off,
        mem_unit=mem_unit,
    )
    return inv, series_set


def _check_detail(
    output: list[Path], choice: str, given: Path | None, *inputs: Any
) -> None:
    """``--json-detail`` is a known choice; no detail file replaces an input."""
    from vsizer.study.detail import summary_applies

    summary_applies(choice, 0)
    for path in (side := detail_outputs(output, choice, given)):
        check_output_path(path, "--detail-file")
    check_not_input(side, _inputs_of(*inputs))


def _report(
    docs: Documents,
    output: list[Path],
    lang: str,
    quiet: bool,
    unwritable: dict[Path, str] | None = None,
    *,
    detail: bool = False,
) -> None:
    """The terminal summary (unless quiet; every table with ``detail``) and
    every ``-o`` file, as one set.

    The files are committed together (:func:`vsizer._atomic.output_set`); one
    that fails does not stop the others, and its error ends the run after them.
    """
    if not quiet:
        from vsizer.reporting.terminal import print_summary

        print_summary(docs.terminal, out, lang=lang, detail=detail)
        if "target" in docs.terminal:
            from vsizer.cli.targets import print_target_line

            print_target_line(docs.terminal)
    failed = list((unwritable or {}).values())
    written = []
    with output_set():
        for path in output:
            if unwritable and path in unwritable:
                continue
            try:
                _write(docs.by_path.get(path, docs.terminal), path, lang)
            except VsizerError as exc:
                failed.append(str(exc))
            else:
                written.append(path)
        for path, frame in docs.side.items():
            _write_side(frame, path, failed, written)
    if not quiet:
        for path in written:
            out.print(f"wrote {path}")
    if failed:
        raise OutputError("\n".join(failed))


def _read_series(
    series: list[Path], series_format: str | None, opts: dict[str, Any], quiet: bool
) -> Any:
    """The SeriesSet of ``plan --series`` (a spinner on a terminal)."""
    from vsizer.series.sources import load_series

    if not quiet and err.is_terminal:
        with err.status(f"reading series from {len(series)} source(s)"):
            return load_series(series, series_format, **opts)
    return load_series(series, series_format, **opts)


def _write_side(frame: Any, path: Path, failed: list[str], written: list[Path]) -> None:
    """A summary JSON's detail file (:mod:`vsizer.study.detail`)."""
    from vsizer.study.detail import write_detail

    try:
        with atomic_write(path, "wb") as fh:
            write_detail(frame, fh, parquet=path.suffix.lower() == ".parquet")
    except VsizerError as exc:
        failed.append(str(exc))
    else:
        written.append(path)


def _write(doc: dict[str, Any], path: Path, lang: str) -> None:
    if path.suffix.lower() == ".json":
        from vsizer._jsonable import write_json

        with atomic_write(path, "w", encoding="utf-8") as fh:
            write_json(doc, fh)  # streamed: the text is never whole in memory
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


def register(app: typer.Typer) -> None:
    """Add ``plan`` to *app*."""
    app.command("plan")(plan)
