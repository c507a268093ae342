"""Terminal summary of a plan (rich tables), from the plan dict of docs/plan-schema.md."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from vsizer.reporting.labels import label


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{x:.1%}"


def _num(x: float | None, digits: int = 0) -> str:
    return "—" if x is None else f"{x:,.{digits}f}"


def print_summary(plan: dict[str, Any], console: Console, *, lang: str = "en") -> None:
    """Print the key figures, pools, failover and power of ``plan``.

    User strings are printed as plain text (``Text``), never as rich markup.
    """
    L = lambda key, **kw: label(key, lang, **kw)  # noqa: E731
    s, pw, sp = plan["summary"], plan["power"], plan["space"]
    hm = plan["host_model"]

    head = Table(title=L("workbook_title"), show_header=False, title_justify="left")
    head.add_column(style="bold")
    head.add_column(justify="right")
    head.add_row(L("host_model"), Text(str(hm["model"])))
    head.add_row(L("servers_to_hosts"), f"{s['servers']} → {s['hosts']}")
    head.add_row(L("consolidation_ratio"), _num(s["consolidation_ratio"], 2))
    head.add_row(
        L("lower_bound") + " / " + L("gap"), f"{s['lower_bound']} / {s['gap']}"
    )
    ok = s["survives_failover"]
    head.add_row(
        L("survives_failover"),
        Text(L("yes") if ok else L("no"), style="green" if ok else "bold red"),
    )
    head.add_row(L("worst_survivor_util"), _pct(s["worst_survivor_util"]))
    head.add_row(L("excluded"), str(s["excluded"]))
    head.add_row(L("confidence"), _pct(s["confidence"]))
    console.print(head)

    pools = Table(title=L("section_pools"), title_justify="left")
    for key in (
        "pool",
        "servers",
        "hosts",
        "lower_bound",
        "binding_dimension",
        "failures",
        "worst_survivor_util",
        "survives",
    ):
        pools.add_column(L(key), justify="left" if key == "pool" else "right")
    for p in plan["pools"]:
        fo = p["failover"]
        pools.add_row(
            Text(p["name"]),
            str(p["servers"]),
            str(p["host_count"]),
            str(p["lower_bound"]),
            p["binding_dimension"],
            str(p["failures"]),
            _pct(fo["worst_survivor_util"]),
            Text(
                L("yes") if fo["survives"] else L("no"),
                style="green" if fo["survives"] else "bold red",
            ),
        )
    console.print(pools)

    hosts = Table(title=L("sheet_hosts"), title_justify="left")
    dims = [
        d
        for d in ("cpu", "mem", "vcpu", "disk_iops", "disk_mb_s", "net_mbps")
        if any(d in h["util"] for p in plan["pools"] for h in p["hosts"])
    ]
    hosts.add_column(L("host_id"))
    hosts.add_column(L("vm_count"), justify="right")
    for d in dims:
        hosts.add_column(L(f"util_{d}"), justify="right")
    hosts.add_column(L("power_w") + " [W]", justify="right")
    for p in plan["pools"]:
        for h in p["hosts"]:
            hosts.add_row(
                Text(h["id"]),
                str(len(h["vms"])),
                *[_pct(h["util"].get(d)) for d in dims],
                _num(h["power_w"]),
            )
    console.print(hosts)

    cur = pw["currency"]
    power = Table(title=L("sheet_power"), title_justify="left")
    power.add_column("")
    power.add_column(L("before"), justify="right")
    power.add_column(L("after"), justify="right")
    power.add_row(L("power_w") + " [W]", _num(pw["before_w"]), _num(pw["after_w"]))
    power.add_row(
        L("annual_kwh") + " [kWh]",
        _num(pw["annual_kwh_before"]),
        _num(pw["annual_kwh_after"]),
    )
    power.add_row(
        L("annual_cost") + f" [{cur}]",
        _num(pw["annual_cost_before"]),
        _num(pw["annual_cost_after"]),
    )
    power.add_row(
        L("rack_u") + " [U]", _num(sp["rack_u_before"]), _num(sp["rack_u_after"])
    )
    console.print(power)
    if pw["annual_saving"] is not None:
        console.print(
            f"{L('annual_saving')}: {_num(pw['annual_saving'])} {cur}   "
            f"{L('saving_over_years', years=pw['years'])}: {_num(pw['saving_over_years'])} {cur}",
            markup=False,
            highlight=False,
        )

    if plan["targets"]:
        t = Table(title=L("section_targets"), title_justify="left")
        for key in ("target_name", "target", "actual", "result"):
            t.add_column(L(key))
        for tg in plan["targets"]:
            met = tg["met"]
            t.add_row(
                tg["description"],
                f"{tg['target']:g}",
                "—" if tg["actual"] is None else f"{tg['actual']:.3g}",
                Text(
                    L("met") if met else L("not_met"),
                    style="green" if met else "bold red",
                ),
            )
        console.print(t)
    for w in plan["warnings"]:
        console.print(Text(f"{L('warning')}: {w}", style="yellow"))
