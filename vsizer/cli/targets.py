"""Target platforms on the command line: ``plan --target`` and
``compare INV --targets`` (:mod:`vsizer.study.target_compare`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from vsizer.cli.common import in_panel, out
from vsizer.errors import ConfigError

TargetOpt = Annotated[
    str | None,
    typer.Option(
        "--target",
        help="Plan for a target platform: vcf, vvf, proxmox-ceph, azure-local, "
        "hyperv-s2d, nutanix-ahv, openshift-virt (its reserves, per-VM overhead, "
        "storage and licences; docs/targets.md).",
    ),
]
TargetsOpt = Annotated[
    str | None,
    typer.Option(
        "--targets",
        help="Compare target platforms on one inventory: 'all' or names, e.g. "
        "vcf,proxmox-ceph,azure-local. The first argument is then the inventory.",
    ),
]
TargetsFileOpt = Annotated[
    list[Path] | None,
    typer.Option(
        "--targets-file",
        help="More target profiles: a TOML file or a folder of them (same name: "
        "replaces the shipped one). Repeatable. Format: docs/targets.md.",
    ),
]
TConfigOpt = Annotated[Path | None, typer.Option(
    "--config", help="With --targets: a scenario TOML (the rules of every target's "
    "plan: host model, prices, years, ...).")]
THostModelOpt = Annotated[str | None, typer.Option(
    "--host-model", help="With --targets: the host model of every target, or 'auto' "
    "(chosen per target).")]
TLicencesOpt = Annotated[Path | None, typer.Option(
    "--licences", help="With --targets: licence CSV whose prices fill the targets' "
    "licences of the same name (its other rows are added).")]
in_panel("Inputs", TargetOpt, TargetsFileOpt)
in_panel("Target platforms", TargetsOpt, TConfigOpt, THostModelOpt, TLicencesOpt)


def known_targets(files: list[Path] | None) -> dict[str, Any]:
    """The shipped profiles and the user's (``--targets-file``)."""
    from vsizer.catalogs.targets import read_targets

    return read_targets(files or [])


def user_licences(rules: Any) -> tuple[Any, ...]:
    """The rows of ``--licences`` (prices for the targets' licences)."""
    from vsizer.study.tco import load_licences

    return load_licences(rules)


def plan_for_target(
    source: Any, name: str, files: list[Path] | None, rules: Any, **kw: Any
) -> dict[str, Any]:
    """The plan document of ``plan --target NAME`` (with its ``target`` section)."""
    from vsizer.catalogs.targets import get_target
    from vsizer.study.target_plan import plan_target, with_target_section

    target = get_target(name, known_targets(files))
    doc, entry = plan_target(source, target, rules.replace(licences=None),
                             user_licences=user_licences(rules), **kw)
    return with_target_section(doc, entry, target)


def print_target_line(doc: dict[str, Any]) -> None:
    """The target of ``plan --target`` in a few lines (the JSON has the rest)."""
    e = doc["target"]
    rows = dict(_rows())
    out.print(
        f"Target {e['name']} ({e['title']}): hosts {rows['hosts (+ platform)'](e)}; "
        f"licensed {rows['licensed'](e)}; licence / year {rows['licence / year'](e)}; "
        f"reserve per host {rows['reserve per host'](e)}; storage raw/usable GiB "
        f"{rows['storage raw/usable GiB'](e)}; {len(e['assumed'])} assumed profile "
        "values (warnings).", markup=False, highlight=False,
    )


def _money(e: dict[str, Any], key: str) -> str:
    v = e.get(key)
    return "price not given" if v is None else f"{v:,.0f} {e['currency']}"


def _rows() -> tuple[tuple[str, Any], ...]:
    def lic(e: dict[str, Any]) -> str:
        if e["cores_licensed"] is not None:
            return f"{e['cores_licensed']} cores"
        if e["socket_licences"] is not None:
            return f"{e['socket_licences']} socket licences"
        return "—"

    def storage(e: dict[str, Any]) -> str:
        st = e["storage"]
        return "—" if st is None else f"{st['raw_gib']:,.0f} / {st['usable_gib']:,.0f}"

    def perf(e: dict[str, Any]) -> str:
        p = e["performance"]["predicted"]
        return "—" if p is None else f"{p['mean']:.3f} ({p['cpu_basis']})"

    return (
        ("hosts (+ platform)", lambda e: f"{e['hosts']}" + (
            f" + {e['dedicated_hosts']}" if e["dedicated_hosts"] else "")),
        ("licensed", lic),
        ("licence / year", lambda e: _money(e, "licence_cost_per_year")),
        ("storage raw/usable GiB", storage),
        ("reserve per host", lambda e: f"{e['reserve']['per_host_memory_gib']:.1f} GiB, "
         f"{e['reserve']['per_host_cpu_cores']:.1f} cores"),
        ("predicted perf.", perf),
        ("TCO", lambda e: _money(e, "tco_total")),
        ("failover ok", lambda e: "yes" if e["survives_failover"] else "no"),
        ("assumed", lambda e: str(len(e["assumed"]))),
    )


def print_targets(doc: dict[str, Any]) -> None:
    """The side-by-side table and the recommendation on the terminal."""
    from rich.markup import escape
    from rich.table import Table
    from rich.text import Text

    entries = doc["targets"]
    table = Table("", *(escape(e["name"]) for e in entries), title="Target platforms")
    for name, get in _rows():
        table.add_row(name, *(Text(get(e)) for e in entries))
    models = sorted({e["host_model"] for e in entries})
    out.print(f"Host model: {'; '.join(models) if len(models) < 3 else 'per target (JSON)'}",
              markup=False, highlight=False)
    out.print(table)
    rec = doc["recommendation"]
    out.print(f"Recommendation: {rec['target'] or 'none'} — {rec['reason']}",
              markup=False, highlight=False)
    warned = sum(e["warnings"] for e in entries)
    out.print(f"{warned} warnings ({sum(len(e['assumed']) for e in entries)} assumed "
              "profile values); see the JSON/HTML.", markup=False, highlight=False)


def write_targets(doc: dict[str, Any], path: Path, lang: str) -> None:
    """One ``-o`` file of a target comparison."""
    suffix = path.suffix.lower()
    if suffix == ".json":
        from vsizer._atomic import atomic_write

        with atomic_write(path, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(doc, ensure_ascii=False, indent=2) + "\n")
    elif suffix == ".xlsx":
        from vsizer.reporting.xlsx_targets import write_targets_xlsx

        write_targets_xlsx(doc, path, lang)
    elif suffix in (".html", ".htm"):
        from vsizer.reporting.html_targets import write_targets_html

        write_targets_html(doc, path, lang)
    else:
        raise ConfigError(f"-o {path}: unsupported output format '{path.suffix}'; use "
                          ".html, .json or .xlsx.")


def compare_targets_cli(
    args: list[Path], inventory: Path | None, spec: str, files: list[Path] | None,
    rules: Any, sheet: str | None, **kw: Any,
) -> dict[str, Any]:
    """The comparison document of ``compare INV --targets SPEC``."""
    from vsizer.inventory import read_inventory
    from vsizer.study.target_compare import compare_targets, pick_targets

    given = [*args, *([inventory] if inventory else [])]
    if len(given) != 1:
        raise ConfigError(
            f"compare --targets: expected one inventory file, got {len(given)} "
            "(e.g. vsizer compare servers.xlsx --targets all)."
        )
    picked = pick_targets(spec, known_targets(files))
    inv = read_inventory(given[0], sheet=sheet, include_powered_off=rules.include_powered_off)
    return compare_targets(inv, picked, rules.replace(licences=None),
                           user_licences=user_licences(rules), **kw)
