"""The summary section of the HTML plan report: the management summary
(:mod:`vsizer.reporting._html_management`), then cards, pools, targets.

Cards (servers -> hosts, consolidation ratio, racks, power, annual cost,
saving over N years, failover, data confidence, targets met), a warning banner
when the plan rests on low-confidence data, and the tables of the pools and of
the targets. Every user string is escaped (:mod:`vsizer.reporting._html_page`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from vsizer.reporting._explain import bottleneck, bound_kinds
from vsizer.reporting._html_management import management_html
from vsizer.reporting._html_page import esc, fmt_num, fmt_pct, table
from vsizer.reporting._ja_text import target_text
from vsizer.reporting._plan_view import lower_bound_hosts
from vsizer.reporting._plan_view import warnings as plan_warnings
from vsizer.reporting._today import headline_html
from vsizer.reporting.labels import LABELS, with_unit

__all__ = ["card", "dimension_label", "summary_section", "verdict"]

Label = Callable[..., str]


def card(
    key: str, value: str, detail: str = "", state: bool | str | None = None
) -> str:
    """A summary card: caption, big value, detail; ``state`` colours its edge."""
    cls = {True: " good", False: " bad", None: "", "warn": " warn"}[state]
    return (
        f'<div class="card{cls}"><div class="k">{esc(key)}</div>'
        f'<div class="v">{esc(value)}</div><div class="d">{esc(detail)}</div></div>'
    )


def _yes_no(t: Label, flag: Any) -> str:
    if flag is None:
        return "—"
    return t("yes") if flag else t("no")


def verdict(t: Label, flag: Any, yes: str = "met", no: str = "not_met") -> str:
    """A coloured verdict (built HTML)."""
    if flag is None:
        return esc(t("not_evaluated"))
    return (
        f'<span class="{"ok" if flag else "ng"}">{esc(t(yes if flag else no))}</span>'
    )


def _banner(s: Mapping[str, Any], t: Label) -> str:
    """The low-confidence warning, or ``""``."""
    if not s.get("low_confidence"):
        return ""
    text = t(
        "low_confidence",
        c=fmt_pct(s.get("confidence")),
        t=fmt_pct(s.get("confidence_threshold")),
    )
    return f'<p class="banner-warn">{esc(text)}</p>'


def _hardware_cards(plan: Mapping[str, Any], t: Label) -> list[str]:
    """Servers -> hosts, hosts before, consolidation ratio, racks, power."""
    s, power, space = plan["summary"], plan["power"], plan["space"]
    before = s.get("hosts_before")
    return [
        card(
            t("servers_to_hosts"),
            f"{s['servers']} → {s['hosts']}",
            f"{t('pools')}: {s['pools']}",
        ),
        *(
            [card(t("hosts_before_to_after"), f"{before} → {s['hosts']}")]
            if before is not None
            else []
        ),
        card(t("consolidation_ratio"), fmt_num(s["consolidation_ratio"], 2)),
        card(
            t("racks"),
            f"{fmt_num(space['racks_before'])} → {fmt_num(space['racks_after'])}",
            f"{fmt_num(space['rack_u_before'])} U → {fmt_num(space['rack_u_after'])} U",
        ),
        card(
            with_unit(t("power_w"), "W"),
            f"{fmt_num(power['before_w'])} → {fmt_num(power['after_w'])}",
        ),
    ]


def _cost_cards(power: Mapping[str, Any], t: Label) -> list[str]:
    """Annual cost before -> after and the saving over the plan's years."""
    cur = power.get("currency") or ""
    cost_b, cost_a = power.get("annual_cost_before"), power.get("annual_cost_after")
    saving = power.get("saving_over_years")
    return [
        card(
            with_unit(t("annual_cost"), cur),
            f"{fmt_num(cost_b)} → {fmt_num(cost_a)}"
            if cost_b is not None or cost_a is not None
            else t("no_price"),
        ),
        card(
            with_unit(t("saving_over_years", years=power.get("years")), cur),
            fmt_num(saving),
            f"{t('annual_saving')}: {fmt_num(power.get('annual_saving'))}",
            None if saving is None else saving > 0,
        ),
    ]


def _verdict_cards(plan: Mapping[str, Any], t: Label) -> list[str]:
    """Failover, data confidence and targets met."""
    s = plan["summary"]
    low = bool(s.get("low_confidence"))
    evaluated = [tg for tg in plan["targets"] if tg.get("met") is not None]
    met = sum(1 for tg in evaluated if tg["met"])
    survives = s["survives_failover"]
    return [
        card(
            t("survives_failover"),
            _yes_no(t, survives),
            f"{t('worst_survivor_util')}: {fmt_pct(s['worst_survivor_util'])}",
            "warn" if low and survives else bool(survives),
        ),
        card(
            t("confidence"),
            fmt_pct(s.get("confidence")),
            t("warnings_count", n=len(plan_warnings(plan))),
            "warn" if low else None,
        ),
        card(
            t("targets_met"),
            f"{met} / {len(evaluated)}" if evaluated else "—",
            "",
            (met == len(evaluated)) if evaluated else None,
        ),
    ]


def dimension_label(t: Label, dim: str) -> str:
    """The label of a binding dimension, or the dimension itself when unlabelled."""
    return t(f"dim_{dim}") if f"dim_{dim}" in LABELS else dim


def _pools_table(plan: Mapping[str, Any], t: Label) -> str:
    keys = ("pool", "servers", "hosts", "lower_bound", "gap", "bound_from",
            "binding_dimension")
    return table(
        [*(t(k) for k in keys), t("ceiling"), t("failures"), t("survives")],
        [
            [
                p["name"],
                p["servers"],
                p["host_count"],
                lower_bound_hosts(p),
                p.get("gap"),
                bound_kinds(p, t, lambda d: dimension_label(t, d)),
                bottleneck(p, t, lambda d: dimension_label(t, d)),
                fmt_pct(p.get("ceiling", plan["parameters"]["ceiling"]), 0),
                p["failures"],
                verdict(t, (p.get("failover") or {}).get("survives"), "yes", "no"),
            ]
            for p in plan["pools"]
        ],
        numeric=(1, 2, 3, 4, 7, 8),
        raw=(9,),
    )


def _targets_table(targets: list[Mapping[str, Any]], t: Label) -> str:
    if not targets:
        return f'<p class="note">{esc(t("no_targets"))}</p>'
    return table(
        [t("target_name"), t("description"), t("target"), t("actual"), t("result")],
        [
            [
                tg["name"],
                target_text(tg, t),
                fmt_num(tg.get("target"), 3),
                fmt_num(tg.get("actual"), 3),
                verdict(t, tg.get("met")),
            ]
            for tg in targets
        ],
        numeric=(2, 3),
        raw=(4,),
    )


def summary_section(plan: Mapping[str, Any], t: Label) -> str:
    """The summary section's body (built HTML)."""
    s = plan["summary"]
    cards = [
        *_hardware_cards(plan, t),
        *_cost_cards(plan["power"], t),
        *_verdict_cards(plan, t),
    ]
    pools = _pools_table(plan, t)
    if s.get("low_confidence"):
        pools = f'<div class="lowconf">{pools}</div>'
    return (
        f'{management_html(plan, t)}{_banner(s, t)}{headline_html(plan, t)}'
        f'<div class="cards">{"".join(cards)}</div>'
        f"<h3>{esc(t('section_pools'))}</h3>{pools}"
        f"<h3>{esc(t('section_targets'))}</h3>{_targets_table(plan['targets'], t)}"
    )
