"""CLI commands: what-if comparison reports (``vsizer compare``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from vsizer._atomic import check_not_input, output_set
from vsizer.cli.common import (
    EngineAddressOpt,
    EngineOpt,
    MaxCellCharsOpt,
    MaxColumnsOpt,
    MaxGridCellsOpt,
    MaxRowsOpt,
    MaxUnpackedMibOpt,
    MaxXlsxMibOpt,
    SheetOpt,
    WorkersOpt,
    _fail,
    _progress,
    check_outputs,
    input_limits,
    open_engine,
    out,
)
from vsizer.cli.targets import (
    TargetsFileOpt,
    TargetsOpt,
    TConfigOpt,
    THostModelOpt,
    TLicencesOpt,
)
from vsizer.errors import ConfigError, VsizerError
from vsizer.limits import using


def compare(
    scenarios: Annotated[
        list[Path],
        typer.Argument(
            help="Two or more scenario TOML files (the 'plan --config' format, plus an "
            "optional \\[scenario] table: name, description, inventory); with "
            "--targets, the inventory."
        ),
    ],
    targets: TargetsOpt = None,
    targets_file: TargetsFileOpt = None,
    config: TConfigOpt = None,
    host_model: THostModelOpt = None,
    licences: TLicencesOpt = None,
    inventory: Annotated[
        Path | None,
        typer.Option(
            "--inventory",
            help="Server list to plan under every scenario (default: the one named "
            "in the scenarios' \\[scenario] inventory).",
        ),
    ] = None,
    sheet: SheetOpt = None,
    output: Annotated[
        list[Path] | None,
        typer.Option(
            "-o",
            "--output",
            help="Write the comparison; format from the suffix (.html, .json, .xlsx). "
            "Repeatable.",
        ),
    ] = None,
    lang: Annotated[str, typer.Option(help="Report language: en or ja.")] = "en",
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No terminal summary.")
    ] = False,
    max_rows: MaxRowsOpt = None,
    max_columns: MaxColumnsOpt = None,
    max_cell_chars: MaxCellCharsOpt = None,
    max_xlsx_mib: MaxXlsxMibOpt = None,
    max_unpacked_mib: MaxUnpackedMibOpt = None,
    max_grid_cells: MaxGridCellsOpt = None,
    engine: EngineOpt = "local",
    engine_address: EngineAddressOpt = None,
    workers: WorkersOpt = None,
) -> None:
    """Plan the same inventory under several scenarios, or target platforms (--targets), side by side.

    Each scenario may change the host model, ceiling, failures, pools and power
    price. The report lists hosts, racks, power, cost, worst failover and predicted
    performance per scenario, and recommends one, naming the criterion.

    Example:

        vsizer compare vsizer/data/scenarios/older-r740-8180.toml vsizer/data/scenarios/current-rx2530m6-8380.toml -o compare.html -o compare.json

        vsizer compare a.toml b.toml c.toml --engine ray --workers 2 -o compare.json

        vsizer compare rvtools.xlsx --targets all --host-model auto -o cmp.json -o cmp.html
    """
    from vsizer.study.compare import compare as run_compare

    if targets is not None:
        return _compare_targets(**locals())
    try:
        loaded = _check_arguments(lang, output or [], scenarios, inventory)
        limits = _limits(locals())
        with using(limits), open_engine(
            engine, engine_address, workers
        ) as eng, _progress(quiet) as progress:
            doc = run_compare(
                loaded, inventory, progress=progress, engine=eng, sheet=sheet
            )
        if not quiet:
            _print_summary(doc)
        _write_all(doc, output or [], lang, quiet)
    except VsizerError as exc:
        raise _fail(exc) from None


def _limits(kw: dict[str, Any]) -> Any:
    """The input limits of the ``--max-*`` flags among ``kw``."""
    return input_limits(**{k: v for k, v in kw.items() if k.startswith("max_")})


def _compare_targets(**kw: Any) -> None:
    """``compare INV --targets ...`` (:mod:`vsizer.cli.targets`)."""
    from vsizer.cli.rule_flags import rules_of
    from vsizer.cli.targets import compare_targets_cli, print_targets, write_targets

    output, quiet, files = kw["output"] or [], kw["quiet"], kw["targets_file"]
    try:
        _check_targets_outputs(kw["lang"], output, [
            *kw["scenarios"], kw["inventory"], kw["config"], kw["licences"], *(files or [])])
        rules = rules_of(kw["config"], {"host_model": kw["host_model"],
                                        "licences": kw["licences"]})
        with using(_limits(kw)), open_engine(
            kw["engine"], kw["engine_address"], kw["workers"]
        ) as eng, _progress(quiet) as progress:
            doc = compare_targets_cli(
                kw["scenarios"], kw["inventory"], kw["targets"], files, rules,
                kw["sheet"], progress=progress, engine=eng, predict=True)
        if not quiet:
            print_targets(doc)
        with output_set():
            for path in output:
                write_targets(doc, path, kw["lang"])
        for path in output if not quiet else ():
            out.print(f"wrote {path}", markup=False, highlight=False)
    except VsizerError as exc:
        raise _fail(exc) from None


def _check_targets_outputs(lang: str, output: list[Path], inputs: list[Any]) -> None:
    if lang not in ("en", "ja"):
        raise ConfigError(f"The 'lang' option must be 'en' or 'ja'. Got {lang!r} instead.")
    check_outputs(output)
    check_not_input(output, {"an input": [p for p in inputs if p is not None]})


def _write_all(doc: dict[str, Any], output: list[Path], lang: str, quiet: bool) -> None:
    """Every ``-o`` file, committed together (:func:`vsizer._atomic.output_set`)."""
    with output_set():
        for path in output:
            _write(doc, path, lang)
    for path in output:
        if not quiet:
            out.print(f"wrote {path}", markup=False, highlight=False)


def _check_arguments(
    lang: str, output: list[Path], scenarios: list[Path], inventory: Path | None
) -> list[Any]:
    """The checks of ``compare``'s own arguments, before any inventory is read;
    returns the scenarios, loaded once. No output may replace an input: a
    scenario file, the inventory (given or named in a scenario), a catalog."""
    from vsizer.study.compare import load_scenario
    from vsizer.study.config import rule_fields

    if lang not in ("en", "ja"):
        raise ConfigError(
            f"The 'lang' option must be 'en' or 'ja'. Got {lang!r} instead."
        )
    check_outputs(output)
    loaded = [load_scenario(p) for p in scenarios]
    inputs: dict[str, list[Any]] = {
        "a scenario file": list(scenarios),
        "the --inventory file": [inventory],
        "the inventory of a scenario": [s.inventory for s in loaded],
    }
    for name, meta in rule_fields().items():
        if meta.path:
            inputs[f"the {meta.flag} file"] = [getattr(s.rules, name) for s in loaded]
    check_not_input(output, inputs)
    return loaded


def _print_summary(doc: dict[str, Any]) -> None:
    from rich.table import Table

    entries = doc["scenarios"]
    table = Table("", *(e["name"] for e in entries), title="Scenarios")
    rows = (
        ("host model", lambda e: e["host_model"]),
        ("hosts", lambda e: str(e["hosts"])),
        ("racks after", lambda e: str(e["racks_after"])),
        ("power after [W]", lambda e: f"{e['power_after_w']:,.0f}"),
        (
            "annual cost after",
            lambda e: (
                "—"
                if e["annual_cost_after"] is None
                else f"{e['annual_cost_after']:,.0f} {e['currency']}"
            ),
        ),
        ("worst failover", lambda e: f"{e['worst_survivor_util']:.1%}"),
        ("survives failover", lambda e: "yes" if e["survives_failover"] else "no"),
        ("targets met", lambda e: f"{e['targets_met']} / {e['targets_evaluated']}"),
    )
    for name, get in rows:
        table.add_row(name, *(get(e) for e in entries))
    out.print(table)
    rec = doc["recommendation"]
    text = (
        f"Recommendation: {rec['scenario']} — {rec['reason']}"
        if rec["scenario"]
        else f"Recommendation: none — {rec['reason']}"
    )
    out.print(text, markup=False, highlight=False)


def _write(doc: dict[str, Any], path: Path, lang: str) -> None:
    suffix = path.suffix.lower()
    if suffix == ".json":
        from vsizer._atomic import atomic_write

        with atomic_write(path, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(doc, ensure_ascii=False, indent=2) + "\n")
    elif suffix == ".xlsx":
        from vsizer.reporting._xlsx_compare import write_compare_xlsx

        write_compare_xlsx(doc, path, lang=lang)
    else:
        from vsizer.reporting._html_compare import write_compare_html

        write_compare_html(doc, path, lang=lang)


def register(app: typer.Typer) -> None:
    """Add the what-if comparison command (``compare``) to *app*."""
    app.command("compare")(compare)
