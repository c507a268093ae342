"""``vsizer waves``: migration waves, readiness, hygiene and carbon of a plan."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Annotated, Any

import typer

from vsizer._atomic import atomic_write, check_not_input, output_set
from vsizer.cli.common import _fail, check_outputs, out
from vsizer.errors import ConfigError, VsizerError

_DEFAULT_EFFICIENCY = 0.55


def waves(
    plan: Annotated[Path, typer.Argument(help="Plan JSON written by 'vsizer plan -o plan.json' "
                                         "(of an RVTools export).")],
    bandwidth: Annotated[str, typer.Option(
        "--bandwidth", help="Link rate for the copy, e.g. 10Gbit/s, 500Mbit/s, 1.25GB/s.")],
    window: Annotated[str, typer.Option(
        "--window", help="Length of one migration window, e.g. 8h, 90min.")],
    efficiency: Annotated[float | None, typer.Option(
        "--efficiency", help="Share of the link the copy gets (0..1]. Default 0.55, "
        "stated as an assumption.")] = None,
    start: Annotated[str | None, typer.Option(
        "--start", help="Date of the first wave, YYYY-MM-DD; one wave a day after it.")] = None,
    max_vms: Annotated[int | None, typer.Option(
        "--max-vms", help="At most this many VMs per wave.")] = None,
    blackout: Annotated[list[str] | None, typer.Option(
        "--blackout", help="A day or range without waves: 2026-12-24 or "
        "2026-12-24..2027-01-02. Repeatable.")] = None,
    dependencies: Annotated[Path | None, typer.Option(
        "--dependencies", help="CSV of server pairs that move together (two columns, "
        "a header row).")] = None,
    redundant: Annotated[Path | None, typer.Option(
        "--redundant", help="CSV of redundant server pairs (anti-affinity) to put in "
        "different waves (two columns, a header row).")] = None,
    target: Annotated[str | None, typer.Option(
        "--target", help="Target platform for readiness: vsphere-8 (default, the current "
        "host) or openshift-virtualization-4.")] = None,
    order: Annotated[str, typer.Option(
        "--order", help="low-risk-first (default) or high-risk-first.")] = "low-risk-first",
    grid_gco2_kwh: Annotated[float | None, typer.Option(
        "--grid-gco2-kwh", help="Grid emission intensity [gCO2e/kWh], location-based.")
    ] = None,
    grid_region: Annotated[str | None, typer.Option(
        "--grid-region", help="Country of the shipped grid intensity table (e.g. Germany, "
        "'United States', World) instead of --grid-gco2-kwh.")] = None,
    years: Annotated[int | None, typer.Option(
        "--years", help="Years the new hosts' embodied carbon is spread over (default: "
        "the plan's years).")] = None,
    output: Annotated[list[Path] | None, typer.Option(
        "-o", "--output", help="Write the waves; format from the suffix (.json, .xlsx, "
        ".html). Repeatable.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No terminal summary.")] = False,
) -> None:
    """Schedule the move of a plan in waves: readiness per VM, waves under bandwidth
    and window, source hosts released while N+k holds, target hosts and licences
    per wave, estate hygiene and carbon before and after.

    Example:

        vsizer plan rvtools_export.xlsx -o plan.json

        vsizer waves plan.json --bandwidth 10Gbit/s --efficiency 0.55 --window 8h --start 2027-01-11 --grid-region Germany -o waves.html -o waves.json
    """
    try:
        doc = run_waves(plan, bandwidth=bandwidth, window=window, efficiency=efficiency,
                        start=start, max_vms=max_vms, blackout=blackout or [],
                        dependencies=dependencies, redundant=redundant, target=target,
                        order=order,
                        carbon_opts=(grid_gco2_kwh, grid_region, years),
                        output=output or [])
        if not quiet:
            from vsizer.reporting.waves_report import summary_lines

            for line in summary_lines(doc):
                out.print(line, markup=False, highlight=False)
        with output_set():
            for path in output or []:
                _write(doc, path)
        if not quiet:
            for path in output or []:
                out.print(f"wrote {path}", markup=False, highlight=False)
    except VsizerError as exc:
        raise _fail(exc) from None


def run_waves(
    plan: Path, *, bandwidth: str, window: str, efficiency: float | None,
    start: str | None, max_vms: int | None, blackout: list[str],
    dependencies: Path | None, redundant: Path | None, target: str | None, order: str,
    carbon_opts: tuple[float | None, str | None, int | None], output: list[Path],
) -> dict[str, Any]:
    """Check the arguments, read the plan, compute the document."""
    from vsizer.study.carbon import carbon, carbon_warnings
    from vsizer.study.migration_doc import deep_jsonable
    from vsizer.study.waves import WaveOptions, parse_bandwidth, parse_hours, plan_waves

    check_outputs(output)
    check_not_input(output, {"the plan JSON": [plan], "the --dependencies file": [dependencies],
                             "the --redundant file": [redundant]})
    notes = []
    if efficiency is None:
        efficiency = _DEFAULT_EFFICIENCY
        notes.append(f"link efficiency assumed {efficiency} (give --efficiency)")
    if not 0 < efficiency <= 1:
        raise ConfigError(f"--efficiency: expected a share in (0, 1]; found {efficiency}")
    if max_vms is not None and max_vms < 1:
        raise ConfigError(f"--max-vms: expected a whole number >= 1; found {max_vms}")
    from vsizer.catalogs.migration_data import os_targets

    if target is not None and target.strip().casefold() not in os_targets():
        raise ConfigError(f"--target: expected one of {', '.join(os_targets())} (guest OS "
                          f"support table); found '{target}'")
    if order not in ("low-risk-first", "high-risk-first"):
        raise ConfigError(f"--order: expected low-risk-first or high-risk-first; found '{order}'")
    opts = WaveOptions(
        bandwidth_bit_s=parse_bandwidth(bandwidth), efficiency=efficiency,
        window_h=parse_hours(window), start=_date(start, "--start") if start else None,
        max_vms=max_vms, blackout=tuple(_range(b) for b in blackout),
        dependencies=_pairs(dependencies) if dependencies else (),
        redundant=_pairs(redundant) if redundant else (),
        target=target.strip().casefold() if target else None,
        order=order, notes=notes)
    doc = _read_plan(plan)
    result = plan_waves(doc, opts)
    mig = doc.get("migration") or {}
    result["hygiene"] = mig.get("hygiene")
    gco2, region, years = carbon_opts
    if gco2 is not None or region is not None:
        result["carbon"] = carbon(doc, gco2_kwh=gco2, region=region, years=years)
        result["warnings"] += carbon_warnings(result["carbon"],
                                              gco2 is not None and region is not None)
    else:
        result["warnings"].append({"code": "carbon_not_computed", "count": 1, "message":
                                   "no --grid-gco2-kwh or --grid-region: carbon not computed"})
    result = {"inputs": {"plan": plan.name,
                         "dependencies": dependencies.name if dependencies else None,
                         "redundant": redundant.name if redundant else None}, **result}
    return deep_jsonable(result)


def _read_plan(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path.name}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path.name}: cannot read the plan JSON ({exc.__class__.__name__})"
                          ) from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path.name} line {exc.lineno}, column {exc.colno}: expected a "
                          f"plan JSON; {exc.msg}") from None
    if not isinstance(doc, dict):
        raise ConfigError(f"{path.name}: expected a plan JSON object; found "
                          f"{type(doc).__name__}")
    return doc


def _date(text: str, flag: str) -> dt.date:
    try:
        return dt.date.fromisoformat(text.strip())
    except ValueError:
        raise ConfigError(f"{flag}: expected a date YYYY-MM-DD; found '{text}'") from None


def _range(text: str) -> tuple[dt.date, dt.date]:
    a, _, b = text.partition("..")
    first = _date(a, "--blackout")
    last = _date(b, "--blackout") if b else first
    if last < first:
        raise ConfigError(f"--blackout: expected FIRST..LAST with FIRST <= LAST; found "
                          f"'{text}'")
    return first, last


def _pairs(path: Path) -> tuple[tuple[str, str], ...]:
    import csv
    import io

    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError):
        raise ConfigError(f"{path.name}: cannot read the dependency CSV") from None
    rows = list(csv.reader(io.StringIO(text)))
    pairs = []
    for i, row in enumerate(rows[1:], 2):
        cells = [c.strip() for c in row]
        if not any(cells):
            continue
        if len(cells) < 2 or not cells[0] or not cells[1]:
            raise ConfigError(f"{path.name} row {i}: expected two server names; found "
                              f"'{','.join(row)}'")
        pairs.append((cells[0], cells[1]))
    return tuple(pairs)


def _write(doc: dict[str, Any], path: Path) -> None:
    suffix = path.suffix.lower()
    if suffix == ".json":
        with atomic_write(path, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(doc, ensure_ascii=False, indent=2) + "\n")
    elif suffix == ".xlsx":
        from vsizer.reporting.waves_report import write_waves_xlsx

        write_waves_xlsx(doc, path)
    else:
        from vsizer.reporting.waves_report import write_waves_html

        write_waves_html(doc, path)


def register(app: typer.Typer) -> None:
    """Add ``waves`` to *app*."""
    app.command("waves")(waves)
