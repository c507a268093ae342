"""Report parts of issue 16 items 5 and 6: why each pool has its host count
(``pools[].count_reason``) and the right-sizing of VMs (``rightsizing``), for
the terminal, the Excel workbook and the HTML page. Reads the plan document
only; plans written before these sections existed render without them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from vsizer.reporting._html_page import esc, fmt_num, table
from vsizer.reporting._ja_text import count_reason_ja, is_ja, rightsize_reason
from vsizer.reporting._xlsx import DEC2, INT, SheetWriter

Label = Callable[..., str]

#: Count reasons that are rules (not demand).
RULE_BINDINGS = (
    "min_hosts", "failover", "anti_affinity", "pinning", "placement", "vcpu_per_core",
)

#: Columns of the right-sizing table: (plan key, label key, Excel format).
VM_COLUMNS: tuple[tuple[str, str, str | None], ...] = (
    ("name", "vm", None),
    ("vcpus", "vcpus", INT),
    ("vcpus_recommended", "vcpus_recommended", INT),
    ("mem_gib", "mem_gib", DEC2),
    ("mem_gib_recommended", "mem_gib_recommended", DEC2),
    ("reason", "rightsize_reason", None),
)


def count_reason(pool: Mapping[str, Any]) -> Mapping[str, Any] | None:
    cr = pool.get("count_reason")
    return cr if isinstance(cr, Mapping) else None


def bottleneck(
    pool: Mapping[str, Any], t: Label, dim_label: Callable[[str], str]
) -> str:
    """What set the pool's count: the rule when a rule did (``count_reason``),
    else the binding dimension as the report names it (``dim_label``)."""
    cr = count_reason(pool)
    binding = cr.get("binding") if cr else None
    if binding in RULE_BINDINGS:
        return t(f"count_rule_{binding}")
    return dim_label(str(pool.get("binding_dimension") or ""))


#: The parts of ``lower_bound.detail`` that are rules or combinatorial bounds (the
#: others are dimensions), in the order the "bound set by" column names them.
_BOUND_PARTS = ("configuration_lp", "l2", "failover", "anti_affinity", "pinning", "min_hosts")


def bound_kinds(
    pool: Mapping[str, Any], t: Label, dim_label: Callable[[str], str]
) -> str:
    """Which parts of the pool's lower bound reach it (``lower_bound.detail``, schema
    "2"), as the report names them, the dimensions first; "" without the detail or
    when the bound is 0."""
    lb = pool.get("lower_bound")
    if not isinstance(lb, Mapping):
        return ""
    detail, hosts = lb.get("detail"), lb.get("hosts")
    if not isinstance(detail, Mapping) or not hosts:
        return ""
    dims = [dim_label(str(k)) for k, v in detail.items()
            if k not in _BOUND_PARTS and v == hosts]
    parts = [t(f"bound_{k}") for k in _BOUND_PARTS if detail.get(k) == hosts]
    return t("bound_join").join(dims + parts)


def reason_lines(
    plan: Mapping[str, Any], t: Label | None = None
) -> list[tuple[str, str]]:
    """(pool, text [+ suggestion]) of every pool with a count reason, in the
    language of ``t`` (the plan's English without it)."""
    out = []
    for p in plan.get("pools") or ():
        cr = count_reason(p)
        if cr is None:
            continue
        ja = count_reason_ja(p) if t is not None and is_ja(t) else None
        text = ja or str(cr.get("text") or "")
        if cr.get("suggestion"):
            text += f" — {cr['suggestion']}"
        out.append((str(p.get("name")), text))
    return out


def rightsizing(plan: Mapping[str, Any]) -> Mapping[str, Any] | None:
    rs = plan.get("rightsizing")
    return rs if isinstance(rs, Mapping) else None


def totals_line(rs: Mapping[str, Any], t: Label) -> str:
    """One line of the right-sizing savings."""
    tot = rs.get("totals") or {}
    text = t(
        "rightsizing_totals",
        vms=tot.get("vms", 0),
        vcpus=tot.get("vcpus_freed", 0),
        gib=fmt_num(tot.get("mem_gib_freed"), 1),
        skipped=rs.get("skipped_not_measured", 0),
    )
    if rs.get("applied") and tot.get("hosts_before") is not None:
        text += " " + t(
            "rightsizing_hosts", before=tot["hosts_before"], after=tot.get("hosts_after")
        )
    elif not rs.get("applied") and tot.get("vms"):
        text += " " + t("rightsizing_not_applied")
    return text


def short_rows(rs: Mapping[str, Any]) -> list[list[Any]]:
    return [
        [s.get("name"), s.get("vcpus"), s.get("vcpus_needed"), s.get("cpu_util"),
         ", ".join(s.get("risks") or ())]
        for s in rs.get("short_of_vcpus") or ()
        if isinstance(s, Mapping)
    ]


def _vm_row(v: Mapping[str, Any], t: Label) -> list[Any]:
    """A right-sizing table row; the reason in the report's language."""
    return [rightsize_reason(v.get(c), t) if c == "reason" else v.get(c)
            for c, _, _ in VM_COLUMNS]


_SHORT_KEYS = ("vm", "vcpus", "vcpus_needed", "cpu_util", "risks")


# -- Excel -------------------------------------------------------------------------
def has_sheet(plan: Mapping[str, Any]) -> bool:
    """A plan with count reasons or a right-sizing section gets the sheet."""
    return rightsizing(plan) is not None or bool(reason_lines(plan))


def explain_sheet(w: SheetWriter, plan: Mapping[str, Any]) -> None:
    """Count reason per pool, then the right-sizing table and savings."""
    lines = reason_lines(plan, w.t)
    if lines:
        w.section(w.t("section_count_reason"), [w.t("pool"), w.t("count_reason")],
                  [list(x) for x in lines], autofilter=True)
    rs = rightsizing(plan)
    if rs is not None:
        w.title(w.t("section_rightsizing"))
        w.table([w.t("note")], [[totals_line(rs, w.t)], [str(rs.get("rule") or "")]])
        vms = [v for v in rs.get("vms") or () if isinstance(v, Mapping)]
        if vms:
            w.table([w.t(k) for _, k, _ in VM_COLUMNS],
                    [_vm_row(v, w.t) for v in vms],
                    [f for _, _, f in VM_COLUMNS])
        short = short_rows(rs)
        if short:
            w.section(w.t("section_short_of_vcpus"), [w.t(k) for k in _SHORT_KEYS],
                      short, [None, INT, INT, DEC2, None])
    w.finish()


# -- HTML --------------------------------------------------------------------------
def explain_html(plan: Mapping[str, Any], t: Label) -> str:
    """The HTML section: count reasons, then right-sizing."""
    out = ""
    lines = reason_lines(plan, t)
    if lines:
        out += f"<h3>{esc(t('section_count_reason'))}</h3>"
        out += table([t("pool"), t("count_reason")], [list(x) for x in lines])
    rs = rightsizing(plan)
    if rs is not None:
        out += f"<h3>{esc(t('section_rightsizing'))}</h3>"
        out += f"<p>{esc(totals_line(rs, t))}</p>"
        out += f'<p class="note">{esc(rs.get("rule") or "")}</p>'
        vms = [v for v in rs.get("vms") or () if isinstance(v, Mapping)]
        if vms:
            out += table([t(k) for _, k, _ in VM_COLUMNS],
                         [_vm_row(v, t) for v in vms],
                         numeric=(1, 2, 3, 4))
        short = short_rows(rs)
        if short:
            out += f"<h3>{esc(t('section_short_of_vcpus'))}</h3>"
            out += table([t(k) for k in _SHORT_KEYS], short, numeric=(1, 2, 3))
    return out or f'<p class="note">{esc(t("no_count_reason"))}</p>'


# -- terminal ----------------------------------------------------------------------
def terminal_lines(plan: Mapping[str, Any], t: Label) -> list[str]:
    """Plain lines for the terminal summary (printed without markup)."""
    out = [f"{t('count_reason')} — {pool}: {text}" for pool, text in reason_lines(plan, t)]
    rs = rightsizing(plan)
    if rs is not None and (rs.get("vms") or rs.get("applied")):
        out.append(f"{t('section_rightsizing')}: {totals_line(rs, t)}")
    if rs is not None:
        for row in short_rows(rs):
            out.append(
                f"{t('section_short_of_vcpus')}: {row[0]} ({row[1]} -> {row[2]} vCPUs)"
            )
    return out
