"""The plan's story for management, shared by the terminal and the HTML report
(issue 27): the decision, before -> after, the savings and the risks with the
top warnings. Pure functions of the plan document; labels via ``t``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from vsizer.reporting._html_page import fmt_num, fmt_pct
from vsizer.reporting._plan_view import warnings as plan_warnings

__all__ = ["Story", "short_message", "story", "top_warnings"]

Label = Callable[..., str]

#: Warnings listed by name in the summaries; all are counted and in the files.
TOP_WARNINGS = 3

#: A warning's message is cut to this many characters in the summaries.
SHORT_MESSAGE = 110


@dataclass(frozen=True)
class Story:
    """What management reads first; every text already in the plan's language."""

    go: bool
    decision: str
    #: (item, before, after, change) rows, numbers formatted.
    before_after: list[tuple[str, str, str, str]]
    savings: str
    #: (state, text): state True good, False bad, None neutral.
    risks: list[tuple[bool | None, str]]
    warning_count: int
    warnings_head: str
    #: (code, short message) of the top warnings.
    top: list[tuple[str, str]]


def short_message(message: str, limit: int = SHORT_MESSAGE) -> str:
    """The first sentence of ``message``, cut to ``limit`` characters with '…'."""
    text = " ".join(message.split())
    for stop in (". ", "。"):
        if stop in text:
            text = text.split(stop, 1)[0] + stop.strip()
            break
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def top_warnings(plan: Mapping[str, Any], n: int = TOP_WARNINGS) -> list[dict[str, Any]]:
    """The ``n`` warnings that matter most: plan-wide ones (naming no server)
    first, then those naming the most servers; ties keep the plan's order."""
    ws = plan_warnings(plan)
    order = sorted(range(len(ws)), key=lambda i: (bool(ws[i]["servers"]),
                                                   -len(ws[i]["servers"]), i))
    return [ws[i] for i in order[:n]]


def _change(before: Any, after: Any) -> str:
    if not isinstance(before, (int, float)) or not isinstance(after, (int, float)):
        return "—"
    if before == 0:
        return "—"
    return f"{100 * (after - before) / before:+.0f} %"


def _before_after(plan: Mapping[str, Any], t: Label) -> list[tuple[str, str, str, str]]:
    s, power, space = plan["summary"], plan["power"], plan["space"]
    before = s.get("hosts_before")
    first = (t("mgmt_hosts"), before) if before is not None else (
        t("mgmt_machines"), s.get("servers"))
    cur = power.get("currency") or ""
    rows = [
        (first[0], first[1], s.get("hosts")),
        (f"{t('rack_u')} [U]", space.get("rack_u_before"), space.get("rack_u_after")),
        (f"{t('power_w')} [W]", power.get("before_w"), power.get("after_w")),
    ]
    if power.get("annual_cost_before") is not None:
        rows.append((f"{t('annual_cost')} [{cur}]", power.get("annual_cost_before"),
                     power.get("annual_cost_after")))
    return [(k, fmt_num(b), fmt_num(a), _change(b, a)) for k, b, a in rows]


def _decision(plan: Mapping[str, Any], t: Label) -> tuple[bool, str]:
    s = plan["summary"]
    model = (plan.get("inputs") or {}).get("host_model") or "—"
    missed = [tg for tg in plan.get("targets") or () if tg.get("met") is False]
    why = []
    if s.get("survives_failover") is False:
        why.append(t("mgmt_why_failover"))
    if missed:
        why.append(t("mgmt_why_targets", n=len(missed)))
    if s.get("low_confidence"):
        why.append(t("mgmt_why_confidence", c=fmt_pct(s.get("confidence"))))
    fields = {"hosts": s.get("hosts"), "model": model, "servers": s.get("servers"),
              "pools": s.get("pools")}
    if why:
        return False, t("mgmt_review", why="; ".join(why), **fields)
    return True, t("mgmt_go", **fields)


def _savings(power: Mapping[str, Any], t: Label) -> str:
    if power.get("saving_over_years") is None:
        return t("mgmt_no_saving")
    return t(
        "mgmt_saving_line", total=fmt_num(power.get("saving_over_years")),
        annual=fmt_num(power.get("annual_saving")), cur=power.get("currency") or "",
        years=power.get("years"), price=fmt_num(power.get("price_kwh"), 2).rstrip("0").rstrip("."),
        pue=power.get("pue"),
    )


def _risks(plan: Mapping[str, Any], t: Label) -> list[tuple[bool | None, str]]:
    s = plan["summary"]
    out: list[tuple[bool | None, str]] = []
    if s.get("survives_failover") is not None:
        ok = bool(s["survives_failover"])
        out.append((ok, t("mgmt_risk_failover_ok", u=fmt_pct(s.get("worst_survivor_util")))
                    if ok else t("mgmt_risk_failover_ng")))
    if s.get("confidence") is not None:
        out.append((not s.get("low_confidence"), t(
            "mgmt_risk_confidence", c=fmt_pct(s.get("confidence")),
            th=fmt_pct(s.get("confidence_threshold")))))
    evaluated = [tg for tg in plan.get("targets") or () if tg.get("met") is not None]
    if evaluated:
        met = sum(1 for tg in evaluated if tg["met"])
        out.append((met == len(evaluated), t("mgmt_risk_targets", met=met, n=len(evaluated))))
    if s.get("excluded"):
        out.append((None, t("mgmt_risk_excluded", n=s["excluded"])))
    return out


def story(plan: Mapping[str, Any], t: Label) -> Story:
    """The management story of ``plan`` (a plan document, schema "1" or "2")."""
    go, decision = _decision(plan, t)
    count = len(plan_warnings(plan))
    top = top_warnings(plan)
    head = (t("mgmt_warnings_top", n=count, k=len(top)) if count
            else t("mgmt_warnings_none"))
    return Story(
        go=go, decision=decision, before_after=_before_after(plan, t),
        savings=_savings(plan["power"], t), risks=_risks(plan, t),
        warning_count=count, warnings_head=head,
        top=[(w["code"], short_message(w["message"])) for w in top],
    )
