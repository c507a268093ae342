"""``vsizer catalog``: inspect and import CPU and host catalogs."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from vsizer._atomic import check_output_path
from vsizer.cli.common import MaxCellCharsOpt, _fail, err, input_limits, out
from vsizer.errors import VsizerError
from vsizer.limits import using

if TYPE_CHECKING:
    from vsizer.catalogs.model import HostModel

catalog_app = typer.Typer(
    help="Inspect and import CPU and host catalogs.", no_args_is_help=True
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
                hc = (
                    read_host_catalog(hosts, merge=True)
                    if hosts
                    else read_host_catalog()
                )
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
                "price",
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
                    _price_cell(h),
                    "*" if h.model == default else "",
                )
        from vsizer.reporting._term_fit import fit_table

        out.print(
            fit_table(t, out.width, ("source", "basis", "idle–max W", "price", "U"))
        )
        if not cpus and any(h.price is None for h in hc):
            out.print(PRICE_NOTE, markup=False, highlight=False)
    except VsizerError as exc:
        raise _fail(exc) from None


#: Printed under ``catalog list`` when a host has no price.
PRICE_NOTE = (
    "price: yours (see docs/inputs.md, 'Host prices'). The shipped catalog has no "
    "prices: list prices are not published consistently and vary by configuration "
    "and discount. Give yours with --hosts FILE (columns price, price_date, "
    "price_currency, support_per_year)."
)


def _price_cell(host: HostModel) -> str:
    """``12000 USD (2025-06) + 900/yr``, or ``yours`` when no price is given."""
    if host.price is None:
        text = "yours"
    else:
        text = f"{host.price:g}"
        text += f" {host.price_currency}" if host.price_currency else ""
        text += f" ({host.price_date})" if host.price_date else ""
    if host.support_per_year is not None:
        text += f" + {host.support_per_year:g}/yr"
    return text


@catalog_app.command("import-spec")
def catalog_import_spec(
    file: Annotated[
        Path,
        typer.Argument(
            help="SPEC CPU2017 results CSV ('Dump All Records As CSV', .csv or .csv.gz), "
            "or one Integer Rate result's own .csv/.txt report."
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
        for note in df.attrs["notes"]:
            err.print(f"warning: {note}", markup=False, highlight=False)
        write_catalog_csv(df, output)
        out.print(f"wrote {len(df)} CPU models to {output}")
    except VsizerError as exc:
        raise _fail(exc) from None


@catalog_app.command("import-specpower")
def catalog_import_specpower(
    file: Annotated[
        Path,
        typer.Argument(
            help="SPECpower_ssj2008 results: 11-point curves CSV, full-results CSV "
            "(idle/100 %) or SPEC's 'Dump All Records As CSV' (.csv or .csv.gz)."
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
        df = import_specpower(file, keep_incomplete=keep_incomplete)
        for note in df.attrs["notes"]:
            err.print(f"warning: {note}", markup=False, highlight=False)
        incomplete = df.attrs["incomplete"]
        if incomplete:
            action = "written with empty cells" if keep_incomplete else "left out"
            err.print(
                f"warning: {len(incomplete)} result(s) state no sockets/cores/MHz/"
                f"memory in {file.name} and were {action}: {', '.join(incomplete)}",
                markup=False,
                highlight=False,
            )
        write_catalog_csv(df, output)
        out.print(f"wrote {len(df)} host models to {output}")
    except VsizerError as exc:
        raise _fail(exc) from None


def register(app: typer.Typer) -> None:
    """Add the ``catalog`` group to *app*."""
    app.add_typer(catalog_app, name="catalog")
