"""CLI: ``vsizer emit vmq|powercfg|nfs PLAN.json`` (read-only configuration text)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from vsizer.cli.common import _fail, out
from vsizer.errors import InputError, VsizerError


def emit(
    kind: Annotated[str, typer.Argument(help="vmq, powercfg or nfs.")],
    plan: Annotated[Path, typer.Argument(help="Plan JSON written by 'vsizer plan -o plan.json'.")],
    nic_gbps: Annotated[float, typer.Option("--nic-gbps", help="vmq: NIC speed of the hosts [Gbit/s].")] = 10.0,
    choice: Annotated[str, typer.Option(help="powercfg: high-performance or balanced-min100.")] = "high-performance",
    server: Annotated[str, typer.Option(help="nfs: NFS server name.")] = "nfs-server",
    export: Annotated[str, typer.Option(help="nfs: exported directory.")] = "/export/vmstore",
    mount_point: Annotated[str, typer.Option("--mount-point", help="nfs: mount point on the hosts.")] = "/mnt/vmstore",
) -> None:
    """Print the settings the design method prescribes for a plan, each line with its source.

    Read-only: nothing is applied.

    Example:

        vsizer emit vmq plan.json

        vsizer emit powercfg plan.json --choice balanced-min100
    """
    from vsizer.cli.models import _read_plan
    from vsizer.study.emit import KINDS, emit_nfs, emit_powercfg, emit_vmq

    try:
        if kind not in KINDS:
            raise InputError(f"emit: expected one of {', '.join(KINDS)}, got '{kind}'.")
        doc = _read_plan(plan)
        if kind == "vmq":
            text = emit_vmq(doc, nic_gbps)
        elif kind == "powercfg":
            text = emit_powercfg(doc, choice)
        else:
            text = emit_nfs(doc, server, export, mount_point)
    except VsizerError as exc:
        raise _fail(exc) from None
    out.print(text, end="", markup=False, highlight=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    """Add ``vsizer emit``."""
    app.command("emit")(emit)
