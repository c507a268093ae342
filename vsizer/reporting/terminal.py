"""Terminal summary of a plan (rich tables), from the plan dict of docs/plan-schema.md.

Pools are read through :mod:`vsizer.reporting._plan_view` like the HTML and
Excel reports: the lower bound and the failure scenarios have one shape whether
the pool was sized on peaks (schema "1") or on curves (schema "2"); the curve
extras (worst step, steps over 100 %, the replay) are shown when present.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from vsizer.placement.problem import DIMENSIONS
from vsizer.reporting._carbon_report import print_carbon
from vsizer.reporting._explain import bottleneck
from vsizer.reporting._explain import terminal_lines as explain_lines
from vsizer.reporting._ja_text import target_text
from vsizer.reporting._migration_report import print_migration
from vsizer.reporting._plan_view import failover_scenarios, lower_bound_hosts
from vsizer.reporting._plan_view import warnings as plan_warnings
from vsizer.reporting._term_fit import FitTables
from vsizer.reporting._term_growth import print_growth
from vsizer.reporting._term_story import print_story
from vsizer.reporting._today import terminal_lines as today_lines
from vsizer.reporting.choice_report import print_choice
from vsizer.reporting.design_advice import print_design_advice
from vsizer.reporting.labels import label
from vsizer.reporting.storage import print_storage

#: A label function bound to the summary's language: ``L(key, **fields)``.
Label = Callable[..., str]


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{x:.1%}"


def _num(x: float | None, digits: int = 0) -> str:
    return "—" if x is None else f"{x:,.{digits}f}"


#: Labels of the time-series sections (en, ja).
_SERIES_LABELS: dict[str, tuple[str, str]] = {
    "title": ("Time series", "時系列"),
    "source": ("Source", "データ"),
    "window": ("Window (UTC)", "期間 (UTC)"),
    "steps": ("Steps", "ステップ数"),
    "percentile": ("Steps that must fit", "収める対象"),
    "curves": ("Hosts on curves", "時系列配置のホスト数"),
    "peak_sum": ("Hosts needed by peak sum", "ピーク合計で必要なホスト数"),
    "series_lb": ("Lower bound (busiest step)", "下限 (最繁ステップ)"),
    "config_lp": ("Lower bound (configuration LP)", "下限 (構成LP)"),
    "over_ceiling": ("Replay: steps over ceiling", "再生: 上限超過ステップ"),
    "over_100": ("Replay: steps over 100 %", "再生: 100 % 超過ステップ"),
    "fo_title": (
        "Failover on the curves (worst scenarios first)",
        "時系列での障害時再配置 (厳しい順)",
    ),
    "failed": ("Failed host(s)", "障害ホスト"),
    "moved": ("VMs moved", "移動VM数"),
    "worst_host": ("Worst survivor", "最も厳しいホスト"),
    "worst_util": ("Peak util", "最大使用率"),
    "worst_step": ("At (UTC)", "時刻 (UTC)"),
    "steps_over_100": ("Steps > 100 %", "100 % 超過ステップ"),
    "unplaced": ("Over the limit", "上限超過VM"),
    "more": (
        "{n} more scenario(s) in the JSON/Excel report",
        "ほか {n} シナリオは JSON/Excel を参照",
    ),
    "all_steps": ("all (max)", "全ステップ (最大)"),
    "coverage": ("Servers with series", "時系列のあるサーバー"),
}


def _coverage_text(cov: Any) -> Text:
    """'25 / 27' servers with a series; yellow when some have none."""
    if not isinstance(cov, dict):
        return Text("—")
    full = cov["with_series"] == cov["servers"]
    return Text(
        f"{cov['with_series']} / {cov['servers']}", style="green" if full else "yellow"
    )


def _sl(key: str, lang: str, **kw: Any) -> str:
    en, ja = _SERIES_LABELS[key]
    return (ja if lang == "ja" else en).format(**kw)


def _series_head(sr: dict[str, Any], lang: str) -> Table:
    """Source, window, steps and the share of steps that must fit."""
    head = Table(title=_sl("title", lang), show_header=False, title_justify="left")
    head.add_column(style="bold")
    head.add_column()
    head.add_row(_sl("source", lang), Text(f"{sr['source']} ({sr['format']})"))
    head.add_row(_sl("window", lang), f"{sr['start']} → {sr['end']}")
    head.add_row(_sl("steps", lang), f"{sr['steps']} × {sr['step_seconds']} s")
    pct = sr["percentile"]
    head.add_row(
        _sl("percentile", lang), _sl("all_steps", lang) if pct == "max" else pct
    )
    return head


def _count(value: int, bad_style: str) -> Text:
    """A step count: green when 0, else ``bad_style``."""
    return Text(str(value), style="green" if value == 0 else bad_style)


def _series_pools(plan: dict[str, Any], lang: str) -> Table:
    """Per pool on curves: hosts, peak-sum and series lower bounds, the replay."""
    pools = Table(title_justify="left")
    # the configuration-LP bound (vsizer.placement.config_lp), where a pool has one
    lp = any("configuration_lp" in (p["lower_bound"].get("detail") or {})
             for p in plan["pools"] if isinstance(p["lower_bound"], dict))
    keys = ("curves", "peak_sum", "series_lb", *(("config_lp",) if lp else ()),
            "over_ceiling", "over_100")
    for key in keys:
        pools.add_column(_sl(key, lang), justify="right")
    pools.add_column(_sl("coverage", lang), justify="right")
    pools.add_column("", justify="left")
    for p in plan["pools"]:
        lb, rp = p["lower_bound"], p.get("replay")
        if not isinstance(lb, dict) or rp is None:
            continue
        peak = max(lb["peak_sum"].values()) if lb.get("peak_sum") else None
        series = max(lb["series"].values()) if lb.get("series") else None
        config = (lb.get("detail") or {}).get("configuration_lp")
        pools.add_row(
            str(p["host_count"]),
            "—" if peak is None else str(peak),
            "—" if series is None else str(series),
            *(("—" if config is None else str(config),) if lp else ()),
            _count(rp["steps_over_ceiling"], "yellow"),
            _count(rp["steps_over_100"], "bold red"),
            _coverage_text(p.get("series_coverage")),
            Text(p["name"]),
        )
    return pools


#: Failover scenarios on curves shown in the terminal; the rest are counted.
_SCENARIOS_SHOWN = 10


def _series_failover(plan: dict[str, Any], console: Console, lang: str) -> None:
    """The failover scenarios checked on curves, worst first (at most 10)."""
    rows = [
        (p["name"], sc)
        for p in plan["pools"]
        for sc in failover_scenarios(p)
        if sc["worst_step"] is not None
    ]
    if not rows:
        return
    rows.sort(key=lambda r: -(r[1]["worst_util"] or 0.0))
    fo = Table(title=_sl("fo_title", lang), title_justify="left")
    for key in (
        "failed",
        "moved",
        "worst_host",
        "worst_util",
        "worst_step",
        "steps_over_100",
        "unplaced",
    ):
        fo.add_column(
            _sl(key, lang),
            justify="left" if key in ("failed", "worst_host") else "right",
        )
    for _pool, sc in rows[:_SCENARIOS_SHOWN]:
        over = (sc["worst_util"] or 0.0) > 1.0 + 1e-6
        fo.add_row(
            Text(", ".join(sc["failed"])),
            str(len(sc["moves"])),
            Text(str(sc["worst_host"])),
            Text(_pct(sc["worst_util"]), style="bold red" if over else "green"),
            str(sc["worst_step"]),
            str(sc["steps_over_100"]),
            Text(str(len(sc["unplaced"])), style="bold red" if sc["unplaced"] else ""),
        )
    console.print(fo)
    if len(rows) > _SCENARIOS_SHOWN:
        console.print(
            _sl("more", lang, n=len(rows) - _SCENARIOS_SHOWN),
            markup=False,
            highlight=False,
        )


def _print_series(plan: dict[str, Any], console: Console, lang: str) -> None:
    """Time-series facts, per-pool curve vs peak-sum, and failover scenarios on curves."""
    console.print(_series_head(plan["series"], lang))
    console.print(_series_pools(plan, lang))
    _series_failover(plan, console, lang)


def _key_figures(plan: dict[str, Any], L: Label) -> Table:
    """Host model, servers -> hosts, ratio, bound, failover, exclusions, confidence."""
    s, hm = plan["summary"], plan["host_model"]
    head = Table(title=L("workbook_title"), show_header=False, title_justify="left")
    head.add_column(style="bold")
    head.add_column(justify="right")
    head.add_row(L("host_model"), Text(str(hm["model"])))
    head.add_row(L("servers_to_hosts"), f"{s['servers']} → {s['hosts']}")
    if s.get("hosts_before") is not None:  # a virtualized source
        head.add_row(L("hosts_before_to_after"), f"{s['hosts_before']} → {s['hosts']}")
    head.add_row(L("consolidation_ratio"), _num(s["consolidation_ratio"], 2))
    head.add_row(
        L("lower_bound") + " / " + L("gap"), f"{s['lower_bound']} / {s['gap']}"
    )
    ok = s["survives_failover"]
    low = bool(s.get("low_confidence"))
    head.add_row(
        L("survives_failover"),
        Text(
            L("yes") if ok else L("no"),
            style=("yellow" if low else "green") if ok else "bold red",
        ),
    )
    head.add_row(L("worst_survivor_util"), _pct(s["worst_survivor_util"]))
    head.add_row(L("excluded"), str(s["excluded"]))
    head.add_row(
        L("confidence"),
        Text(_pct(s["confidence"]), style="bold yellow" if low else ""),
    )
    return head


def _low_confidence(s: dict[str, Any], L: Label) -> Text:
    return Text(
        L(
            "low_confidence",
            c=_pct(s["confidence"]),
            t=_pct(s.get("confidence_threshold")),
        ),
        style="bold yellow",
    )


def _pools_table(plan: dict[str, Any], L: Label) -> Table:
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
            str(lower_bound_hosts(p)),
            bottleneck(p, L, str),
            str(p["failures"]),
            _pct(fo["worst_survivor_util"]),
            Text(
                L("yes") if fo["survives"] else L("no"),
                style="green" if fo["survives"] else "bold red",
            ),
        )
    return pools


#: Hosts of each pool listed in the terminal (a fleet's thousands are in the
#: JSON, workbook and HTML reports; the caption says how many are left out).
MAX_HOSTS_PER_POOL = 40


def _hosts_table(plan: dict[str, Any], L: Label) -> Table:
    """Per host: VMs, utilization of every dimension some host has, power."""
    hosts = Table(title=L("sheet_hosts"), title_justify="left")
    dims = [
        d
        for d in DIMENSIONS
        if any(d in h["util"] for p in plan["pools"] for h in p["hosts"])
    ]
    hosts.add_column(L("host_id"))
    hosts.add_column(L("vm_count"), justify="right")
    for d in dims:
        hosts.add_column(L(f"util_{d}"), justify="right")
    hosts.add_column(L("power_w") + " [W]", justify="right")
    shown = [h for p in plan["pools"] for h in p["hosts"][:MAX_HOSTS_PER_POOL]]
    for h in shown:
        hosts.add_row(
            Text(h["id"]),
            str(len(h["vms"])),
            *[_pct(h["util"].get(d)) for d in dims],
            _num(h["power_w"]),
        )
    left = sum(len(p["hosts"]) for p in plan["pools"]) - len(shown)
    if left:
        hosts.caption = L("hosts_not_shown", n=f"{left:,}")
        hosts.caption_justify = "left"
    return hosts


def _power_table(plan: dict[str, Any], L: Label) -> Table:
    """Power, energy, cost and rack space, before and after."""
    pw, sp = plan["power"], plan["space"]
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
        L("annual_cost") + f" [{pw['currency']}]",
        _num(pw["annual_cost_before"]),
        _num(pw["annual_cost_after"]),
    )
    power.add_row(
        L("rack_u") + " [U]", _num(sp["rack_u_before"]), _num(sp["rack_u_after"])
    )
    return power


def _saving_line(pw: dict[str, Any], L: Label) -> str:
    cur = pw["currency"]
    return (
        f"{L('annual_saving')}: {_num(pw['annual_saving'])} {cur}   "
        f"{L('saving_over_years', years=pw['years'])}: {_num(pw['saving_over_years'])} {cur}"
    )


def _targets_table(targets: list[dict[str, Any]], L: Label) -> Table:
    t = Table(title=L("section_targets"), title_justify="left")
    for key in ("target_name", "target", "actual", "result"):
        t.add_column(L(key))
    for tg in targets:
        met = tg["met"]
        t.add_row(
            Text(str(target_text(tg, L))),
            f"{tg['target']:g}",
            "—" if tg["actual"] is None else f"{tg['actual']:.3g}",
            Text(
                L("met") if met else L("not_met"),
                style="green" if met else "bold red",
            ),
        )
    return t


def print_summary(
    plan: dict[str, Any], console: Console, *, lang: str = "en", detail: bool = True
) -> None:
    """Print the key figures, pools, failover and power of ``plan``; with
    ``detail`` false, the one-screen story instead (:mod:`._term_story`).

    User strings are printed as plain text (``Text``), never as rich markup.
    """

    def L(key: str, **kw: Any) -> str:
        return label(key, lang, **kw)

    if not detail:
        print_story(plan, console, L)
        return
    console.push_render_hook(FitTables(console))  # no column squeezed to '0…'
    try:
        _print_detail(plan, console, lang, L)
    finally:
        console.pop_render_hook()


def _print_detail(plan: dict[str, Any], console: Console, lang: str, L: Label) -> None:
    """Every table of the plan (``--detail``)."""
    s, pw = plan["summary"], plan["power"]
    console.print(_key_figures(plan, L))
    if s.get("low_confidence"):
        console.print(_low_confidence(s, L))
    for line in today_lines(plan, L):  # today's estate, when known
        console.print(Text(line))
    console.print(_pools_table(plan, L))
    for line in explain_lines(plan, L):
        console.print(Text(line))
    if plan.get("series"):
        _print_series(plan, console, lang)
    console.print(_hosts_table(plan, L))
    print_storage(plan, console, L)  # only when the plan has a storage section
    print_design_advice(plan, console, L)
    console.print(_power_table(plan, L))
    if pw["annual_saving"] is not None:
        console.print(_saving_line(pw, L), markup=False, highlight=False)
    if plan["targets"]:
        console.print(_targets_table(plan["targets"], L))
    print_growth(plan, console, L)
    print_choice(plan, console, lang)  # choice and TCO, when present
    print_migration(plan, console, L)  # readiness and hygiene, when present
    print_carbon(plan, console, L)  # carbon, when a grid is given
    _print_warnings(plan, console, L)


def _print_warnings(plan: dict[str, Any], console: Console, L: Any) -> None:
    """Every warning: code, how many servers, the message; 'No warnings.' only
    when the list is empty."""
    rows = plan_warnings(plan)
    if not rows:
        console.print(Text(L("no_warnings"), style="green"))
        return
    t = Table(title=L("warnings_count", n=len(rows)), title_justify="left")
    t.add_column(L("warning_code"), style="yellow", no_wrap=True)
    t.add_column(L("warning_servers"), justify="right")
    t.add_column(L("warning_message"))
    for w in rows:
        t.add_row(
            Text(w["code"]),
            str(len(w["servers"])) if w["servers"] else "—",
            Text(w["message"]),
        )
    console.print(t)
