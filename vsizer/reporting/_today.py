"""Today's estate in the reports (issue 23 part B): the clusters the VMs run
on today (``before.clusters``, ``before.totals``) and, when the plan needs
more hosts than today, the headline naming the rule that decided and the
count at today's vCPU:core ratio (``before.versus_today``). Terminal, Excel
and HTML read the plan document only; plans without these keys render as
before.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from vsizer.reporting._html_page import esc, fmt_num, fmt_pct, table
from vsizer.reporting._xlsx import DEC2, INT, PCT, Fmt, SheetWriter

Label = Callable[..., str]

#: Count-reason bindings with a ``today_rule_*`` label.
_RULES = ("failover", "min_hosts", "anti_affinity", "pinning", "placement")

#: Dimensions with a ``dim_*`` label.
_DIMS = ("cpu", "mem", "vcpu", "disk_iops", "disk_mb_s", "net_mbps")

#: Clusters listed in the terminal (the rest are counted; all are in the files).
TERMINAL_CLUSTERS = 3

def _before(plan: Mapping[str, Any]) -> Mapping[str, Any] | None:
    before = plan.get("before")
    if isinstance(before, Mapping) and isinstance(before.get("totals"), Mapping):
        return before
    return None


def versus(plan: Mapping[str, Any]) -> Mapping[str, Any] | None:
    before = _before(plan)
    vt = before.get("versus_today") if before is not None else None
    return vt if isinstance(vt, Mapping) else None


def _rule(row: Mapping[str, Any], limit: Any, t: Label) -> str:
    rule = str(row.get("rule") or "")
    if rule.startswith("demand:"):  # demand in that dimension set the count
        dim = rule.split(":", 1)[1]
        return t("today_demand", dim=t(f"dim_{dim}") if dim in _DIMS else dim)
    if rule == "vcpu_per_core":
        return t("today_rule_vcpu", limit=f"{limit:g}" if limit is not None else "—")
    return t(f"today_rule_{rule}" if rule in _RULES else f"count_rule_{rule}")


def decided_text(vt: Mapping[str, Any], t: Label) -> str:
    """'Rule: vCPU:core limit (2) (Prod: 7), Rule: N+k failover (Dev, Test: 6)'."""
    return ", ".join(
        f"{_rule(r, vt.get('vcpu_per_core_limit'), t)} "
        f"({', '.join(map(str, r.get('pools') or ()))}: {r.get('hosts')})"
        for r in vt.get("decided_by") or ()
    )


def headline(plan: Mapping[str, Any], t: Label) -> str | None:
    """The headline when the plan needs more hosts than today, else None."""
    vt, before = versus(plan), _before(plan)
    if vt is None or before is None:
        return None
    at = vt.get("hosts_at_today_ratio")
    return t(
        "today_headline", hosts=vt.get("hosts"), before=vt.get("hosts_before"),
        rules=decided_text(vt, t),
        ratio=fmt_num(before["totals"].get("vcpu_per_core"), 2),
        at="—" if at is None else at,
    )


def _rows(before: Mapping[str, Any], t: Label) -> list[tuple[str, Mapping[str, Any]]]:
    rows = [(str(c.get("name")), c) for c in before.get("clusters") or ()]
    return rows + [(t("all_hosts"), before["totals"])]


def terminal_lines(plan: Mapping[str, Any], t: Label) -> list[str]:
    """Headline (when more hosts than today), then one line per cluster (capped)."""
    before = _before(plan)
    if before is None:
        return []
    out = [h] if (h := headline(plan, t)) else []
    rows = _rows(before, t)
    clusters, total = rows[:-1], rows[-1]
    shown = clusters[:TERMINAL_CLUSTERS] if len(clusters) > 1 else []
    for name, c in [*shown, total]:
        out.append(t(
            "today_line", name=name, hosts=c.get("hosts"),
            cores=fmt_num(c.get("cores")), vcpus=fmt_num(c.get("vcpus")),
            ratio=fmt_num(c.get("vcpu_per_core"), 2),
            mem=fmt_pct(c.get("mem_alloc_ratio")), cpu=fmt_pct(c.get("cpu_usage")),
        ))
    if len(clusters) > len(shown) and len(clusters) > 1:
        out.insert(len(out) - 1, t("today_more", n=len(clusters) - len(shown)))
    return out


_KEYS = ("hosts", "cores", "vcpus", "vcpu_per_core", "mem_alloc_ratio", "cpu_usage")
_LABELS = ("hosts", "today_cores", "today_vcpus", "today_vcpu_per_core",
           "today_mem_alloc", "today_cpu_usage")


def html_section(plan: Mapping[str, Any], t: Label) -> str:
    """The clusters table of the before/after section (built HTML), or ``""``
    (the headline is in the summary: :func:`headline_html`)."""
    before = _before(plan)
    if before is None:
        return ""
    rows = [
        [name, c.get("hosts"), fmt_num(c.get("cores")), fmt_num(c.get("vcpus")),
         fmt_num(c.get("vcpu_per_core"), 2), fmt_pct(c.get("mem_alloc_ratio")),
         fmt_pct(c.get("cpu_usage"))]
        for name, c in _rows(before, t)
    ]
    return (
        f"<h3>{esc(t('section_today'))}</h3>"
        + table([t("cluster"), *(t(k) for k in _LABELS)], rows,
                numeric=(1, 2, 3, 4, 5, 6))
    )


def headline_html(plan: Mapping[str, Any], t: Label) -> str:
    """The headline as a paragraph for the summary section, or ``""``."""
    head = headline(plan, t)
    return f'<p class="banner-warn">{esc(head)}</p>' if head else ""


def excel_items(plan: Mapping[str, Any], t: Label) -> list[tuple[str, Any, str | None, str]]:
    """Key-figure rows of the summary sheet: today's ratio, and when the plan
    needs more hosts than today, the rule that decided and the count at it."""
    before = _before(plan)
    if before is None:
        return []
    rows: list[tuple[str, Any, str | None, str]] = [(
        t("today_ratio"), before["totals"].get("vcpu_per_core"), DEC2,
        "before.totals.vcpu_per_core",
    )]
    vt = versus(plan)
    if vt is not None:
        rows.append((t("today_decided_by"), decided_text(vt, t), None,
                     "before.versus_today.decided_by"))
        rows.append((t("today_hosts_at_ratio"), vt.get("hosts_at_today_ratio"), INT,
                     "before.versus_today.hosts_at_today_ratio"))
    return rows


def excel_section(w: SheetWriter, plan: Mapping[str, Any]) -> None:
    """The clusters table on the summary sheet (nothing without ``before``)."""
    before = _before(plan)
    if before is None:
        return
    rows = [
        [name, *(Fmt(c.get(k), f) for k, f in zip(
            _KEYS, (INT, INT, INT, DEC2, PCT, PCT), strict=True))]
        for name, c in _rows(before, w.t)
    ]
    w.section(w.t("section_today"), [w.t("cluster"), *(w.t(k) for k in _LABELS)],
              rows)
