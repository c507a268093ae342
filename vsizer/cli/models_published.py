"""CLI: ``vsizer model`` commands that compute the method's published figures.

``mhz-specint``, ``mhz-example``, ``ceiling``, ``blade-power``,
``db-scaling-check``, ``hyperv-disks`` and ``vmq`` each print one figure (or
check a design against it) with its source; ``--json`` prints the dict of
:mod:`vsizer.models.published`. The table in ``docs/models.md`` ("Published
figures") lists the command behind every figure.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from vsizer.cli.common import _fail, err, out
from vsizer.errors import VsizerError

JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]


def _show(compute: Callable[[], dict[str, Any]], as_json: bool, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    """Run ``compute``; print its dict as JSON or as ``key  value`` lines and the source."""
    try:
        res = compute()
    except VsizerError as exc:
        raise _fail(exc) from None
    if as_json:
        out.print_json(json.dumps(res, ensure_ascii=False))
        return res
    table = Table(show_header=False, box=None)
    for k, v in res.items():
        if k in ("model", "source", "rows", *skip):
            continue
        text = json.dumps(v, ensure_ascii=False) if isinstance(v, (dict, list)) else str(v)
        table.add_row(escape(k.replace("_", " ")), escape(text))
    out.print(table)
    out.print(f"source: {res['source']}", markup=False, highlight=False)
    return res


def mhz_specint(as_json: JsonOpt = False) -> None:
    """MHz / SPECint2000 of the published Xeon table and the ~12 % error of the MHz fallback.

    Example:

        vsizer model mhz-specint --json
    """
    from vsizer.models.published import mhz_specint as compute

    res = _show(compute, as_json)
    if not as_json:
        rows = Table("CPU", "cores", "MHz", "effective MHz", "SPECint2000", "MHz/SPECint", "published")
        for r in res["rows"]:
            rows.add_row(escape(r["cpu"]), str(r["cores"]), str(r["mhz"]), str(r["effective_mhz"]),
                         str(r["specint2000"]), f"{r['ratio']:.3f}", f"{r['published']:.2f}")
        out.print(rows)


def mhz_example(
    server_mhz: Annotated[float, typer.Option("--server-mhz", help="Source server clock [MHz].")] = 3000.0,
    server_cores: Annotated[int, typer.Option("--server-cores", help="Source server cores.")] = 2,
    util: Annotated[float, typer.Option(help="Source server CPU utilization [fraction].")] = 0.2,
    host_mhz: Annotated[float, typer.Option("--host-mhz", help="Host clock [MHz].")] = 2260.0,
    host_cores: Annotated[int, typer.Option("--host-cores", help="Host cores.")] = 8,
    host_mem_mb: Annotated[float, typer.Option("--host-mem-mb", help="Host memory [MB].")] = 49152.0,
    vm_mem_mb: Annotated[float, typer.Option("--vm-mem-mb", help="Memory per VM [MB].")] = 2048.0,
    as_json: JsonOpt = False,
) -> None:
    """VMs per host by CPU (MHz) and by memory: the published worked example by default.

    Example:

        vsizer model mhz-example --json
    """
    from vsizer.models.published import mhz_example as compute

    _show(lambda: compute(server_mhz, server_cores, util, host_mhz, host_cores, host_mem_mb,
                          vm_mem_mb), as_json)


def ceiling(
    hosts: Annotated[int, typer.Option(help="Hosts in the pool (N).")] = 3,
    ceiling_: Annotated[float, typer.Option("--ceiling", help="Normal-operation ceiling [fraction].")] = 0.6,
    failed: Annotated[int, typer.Option(help="Hosts down (k).")] = 1,
    as_json: JsonOpt = False,
) -> None:
    """Load of the surviving hosts after k of N fail at a ceiling: c N / (N - k).

    Example:

        vsizer model ceiling --hosts 3 --ceiling 0.6 --failed 1
    """
    from vsizer.models.published import failover_load

    _show(lambda: failover_load(hosts, ceiling_, failed), as_json)


def blade_power(as_json: JsonOpt = False) -> None:
    """Low-voltage Xeon L5520 blade vs E5405 blade: power at max and min load (60.3 % / 48.8 %).

    Example:

        vsizer model blade-power --json
    """
    from vsizer.models.published import blade_power as compute

    _show(compute, as_json)


def db_scaling_check(as_json: JsonOpt = False) -> None:
    """Cross-check of the database figures: 1.44 x 1.75 / 1.92 = 1.3125 vs the published 1.32.

    Example:

        vsizer model db-scaling-check --json
    """
    from vsizer.models.published import db_scaling_check as compute

    _show(compute, as_json)


def hyperv_disks(
    ide_disks: Annotated[int, typer.Option("--ide-disks", help="Virtual IDE disks of the VM.")] = 1,
    scsi_controllers: Annotated[
        int, typer.Option("--scsi-controllers", help="Virtual SCSI controllers of the VM.")] = 0,
    scsi_disks: Annotated[int, typer.Option("--scsi-disks", help="Virtual SCSI disks of the VM.")] = 0,
    as_json: JsonOpt = False,
) -> None:
    """Check a VM's disk design against the Hyper-V limits (IDE <= 4; 4 SCSI controllers x 64 = 256).

    Exit code 1 when the design does not fit.

    Example:

        vsizer model hyperv-disks --ide-disks 1 --scsi-controllers 2 --scsi-disks 100
    """
    from vsizer.models.published import hyperv_disks as compute

    res = _show(lambda: compute(ide_disks, scsi_controllers, scsi_disks), as_json, skip=("problems",))
    for p in res["problems"]:
        err.print(f"error: {p}", markup=False, highlight=False)
    if not res["fits"]:
        raise typer.Exit(1)


def vmq(
    copy_before_s: Annotated[
        float | None, typer.Option("--copy-before-s", help="Measured file-copy time without VMQ [s].")] = None,
    copy_after_s: Annotated[
        float | None, typer.Option("--copy-after-s", help="Measured file-copy time with VMQ [s].")] = None,
    as_json: JsonOpt = False,
) -> None:
    """The published VMQ figures; with measured copy times, the cut checked against > 60 %.

    Example:

        vsizer model vmq --copy-before-s 100 --copy-after-s 35
    """
    from vsizer.models.published import vmq as compute

    _show(lambda: compute(copy_before_s, copy_after_s), as_json)


def threads(
    total: Annotated[int, typer.Option("--threads", help="Client threads in all.")] = 200,
    vms: Annotated[int, typer.Option("--vms", help="VMs the threads are split over.")] = 12,
    as_json: JsonOpt = False,
) -> None:
    """Client threads per VM of a closed-loop load: even split, the remainder one each.

    Example:

        vsizer model threads --threads 200 --vms 12
    """
    from vsizer.bench.tiles import split_threads

    def compute() -> dict[str, Any]:
        per_vm = split_threads(total, vms)
        counts = {str(n): per_vm.count(n) for n in sorted(set(per_vm), reverse=True)}
        return {"model": "threads", "threads": total, "vms": vms, "per_vm": per_vm,
                "vms_with": counts,
                "source": "benchmark method: closed-loop load, threads split evenly over the "
                "VMs, the remainder one each (200 threads on 12 VMs: 8 get 17, 4 get 16)"}

    _show(compute, as_json)


def storage_choice(
    hosts: Annotated[int, typer.Option(help="Hosts of the pool.")] = 3,
    prefer: Annotated[str, typer.Option(help="performance or ease first.")] = "performance",
    as_json: JsonOpt = False,
) -> None:
    """DAS / NAS / iSCSI / FC SAN ranked on the method's criteria for a pool of N hosts.

    Example:

        vsizer model storage-choice --hosts 3 --prefer ease
    """
    from vsizer.models.published import storage_choice as compute

    res = _show(lambda: compute(hosts, prefer), as_json, skip=("ranking", "notes"))
    if not as_json:
        t = Table("type", "performance rank", "ease rank", "shared", "eligible", "reason")
        for r in res["ranking"]:
            t.add_row(r["type"], str(r["performance_rank"]), str(r["ease_rank"]),
                      str(r["shared"]), str(r["eligible"]), escape(r["reason"]))
        out.print(t)
        for n in res["notes"]:
            out.print(f"note: {n}", markup=False, highlight=False)


def add_published_commands(app: typer.Typer) -> None:
    """Register the published-figure commands on the ``vsizer model`` group."""
    for name, fn in (("mhz-specint", mhz_specint), ("mhz-example", mhz_example),
                     ("ceiling", ceiling), ("blade-power", blade_power),
                     ("db-scaling-check", db_scaling_check), ("hyperv-disks", hyperv_disks),
                     ("vmq", vmq), ("threads", threads), ("storage-choice", storage_choice)):
        app.command(name)(fn)
