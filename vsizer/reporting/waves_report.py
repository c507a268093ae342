"""Excel and HTML of the ``vsizer waves`` document (issue 30).

Sheets / sections: summary, waves (a Gantt chart: one bar per wave over its
days, or over cumulative hours without ``--start``), readiness per VM, estate
hygiene, carbon, warnings. User strings (VM, host, pool names, reasons) are
escaped in HTML and neutralized in Excel (:func:`vsizer.reporting.safe.excel_safe`).
"""

from __future__ import annotations

import datetime as dt
import html
from pathlib import Path
from typing import Any

from vsizer._atomic import atomic_write
from vsizer.reporting.safe import set_safe_value

__all__ = ["summary_lines", "write_waves_html", "write_waves_xlsx"]


def summary_lines(doc: dict[str, Any]) -> list[str]:
    """The terminal summary (plain lines)."""
    s, p = doc["summary"], doc["parameters"]
    c = doc["readiness"]["counts"]
    lines = [
        f"Readiness on {doc['readiness']['target']}: {c['ready']} ready, "
        f"{c['needs work']} needs work, {c['blocked']} blocked, {c['unknown']} unknown",
        f"Window: {p['bandwidth_gbit_s']:g} Gbit/s x {p['efficiency']:g} x "
        f"{p['window_h']:g} h = {p['window_gib']:,.0f} GiB per wave",
        f"Waves: {s['waves']} ({s['vms_scheduled']} VMs, {s['data_gib']:,.0f} GiB, "
        f"{s['hours']:,.1f} h); not scheduled (blocked or held with a blocked VM): {s['vms_not_scheduled']}",
    ]
    for w in doc["waves"]:
        src, tgt = w["source"], w["target"]
        when = f" {w['date']}" if w.get("date") else ""
        lines.append(
            f"  wave {w['wave']}{when}: {w['vm_count']} VMs, {w['data_gib']:,.0f} GiB, "
            f"{w['hours']:.1f} h; source released {len(src['released_hosts'])} host(s) "
            f"({src['released_cores']} cores); target +{tgt['new_hosts']} host(s) "
            f"({tgt['cores_started']} cores)")
    h = doc.get("hygiene")
    if h:
        lines.append(
            f"Hygiene: {h['powered_off']['count']} powered off "
            f"({h['powered_off']['provisioned_gib']:,.0f} GiB), {h['templates']['count']} "
            f"templates, {_snapshots(h['old_snapshots'])}, "
            f"{(h.get('orphaned_files') or {}).get('count', 'unknown')} orphaned files, "
            f"{h['oversized_disks']['count']} oversized disks "
            f"({h['oversized_disks']['returnable_gib']:,.0f} GiB), "
            f"{h['oversized']['count']} oversized VMs")
    cb = doc.get("carbon")
    if cb:
        lines.append(_carbon_line(cb))
    lines.append(f"Warnings: {len(doc['warnings'])}")
    lines += [f"  [{w['code']}] {w['message']}" for w in doc["warnings"]]
    return lines


def _carbon_line(cb: dict[str, Any]) -> str:
    def kg(x: Any) -> str:
        return "—" if x is None else f"{x:,.0f}"

    return (
        f"Carbon ({cb['grid_gco2_kwh']:g} gCO2e/kWh): {kg(cb['operational_kgco2e_before'])} "
        f"-> {kg(cb['operational_kgco2e_after'])} kgCO2e/yr; embodied new hosts "
        f"{kg(cb['embodied_kgco2e'])} kgCO2e ({kg(cb['embodied_kgco2e_per_year'])}/yr over "
        f"{cb['years']} y); net {kg(cb['net_saving_kgco2e_per_year'])} kgCO2e/yr; "
        f"payback year {cb['payback_year'] if cb['payback_year'] is not None else '—'}")


def _gantt_svg(waves: list[dict[str, Any]]) -> str:
    """One bar per wave: x = day index (dated) or cumulative hours."""
    if not waves:
        return "<p>No wave.</p>"
    dated = all(w.get("date") for w in waves)
    spans, t = [], 0.0
    first = dt.date.fromisoformat(waves[0]["date"]) if dated else None
    for w in waves:
        if first is not None:
            a, b = (dt.date.fromisoformat(w[k]) for k in ("date", "end_date"))
            start, length = float((a - first).days), float((b - a).days + 1)
        else:
            start, length = t, float(w["hours"] or 0.0)
        spans.append((start, max(length, 1e-6)))
        t += float(w["hours"] or 0.0)
    total = max(s + length for s, length in spans) or 1.0
    width, row, left = 720.0, 22, 120
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 10:.0f}" '
             f'height="{row * len(waves) + 30}" role="img" aria-label="Gantt chart">']
    for i, (w, (s, length)) in enumerate(zip(waves, spans, strict=True)):
        y = 10 + i * row
        label = html.escape(f"wave {w['wave']}" + (f" {w['date']}" if w.get("date") else ""))
        x, bw = left + s / total * width, max(length / total * width, 2.0)
        color = "#c0392b" if w.get("over_window") else "#2e86c1"
        parts.append(f'<text x="2" y="{y + 14}" font-size="12">{label}</text>')
        parts.append(f'<rect x="{x:.1f}" y="{y}" width="{bw:.1f}" height="{row - 6}" '
                     f'fill="{color}"><title>{label}: {w["vm_count"]} VMs, '
                     f'{w["data_gib"]:,.0f} GiB, {w["hours"]:.1f} h</title></rect>')
    axis = "days from the start" if dated else "hours of copying"
    parts.append(f'<text x="{left}" y="{row * len(waves) + 26}" font-size="11">'
                 f'{axis} (0 .. {total:,.1f})</text></svg>')
    return "".join(parts)


def _table(headers: list[str], rows: list[list[Any]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(_fmt(c))}</td>" for c in r) + "</tr>"
        for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _fmt(x: Any) -> str:
    if x is None:
        return "—"
    if isinstance(x, float):
        return f"{x:,.2f}"
    if isinstance(x, (list, tuple)):
        return "; ".join(_fmt(v) for v in x)
    if isinstance(x, dict):
        return "; ".join(f"{k}: {_fmt(v)}" for k, v in x.items())
    return str(x)


def _wave_rows(doc: dict[str, Any]) -> tuple[list[str], list[list[Any]]]:
    headers = ["wave", "date", "VMs", "data GiB", "hours", "over window",
               "source hosts released", "source cores released", "licence cores stopped",
               "source hosts left", "source N+k hosts needed", "target hosts in place",
               "target hosts added", "target cores started", "licence cores started",
               "VM names"]
    rows = [[w["wave"], w.get("date"), w["vm_count"], w["data_gib"], w["hours"],
             w["over_window"], w["source"]["released_hosts"], w["source"]["released_cores"],
             w["source"]["licence_cores_stopped"], w["source"]["hosts_left"],
             w["source"]["hosts_needed"], w["target"]["hosts_in_place"],
             w["target"]["new_hosts"], w["target"]["cores_started"],
             w["target"]["licence_cores_started"], w["vms"]] for w in doc["waves"]]
    return headers, rows


def _sections(doc: dict[str, Any]) -> list[tuple[str, list[str], list[list[Any]]]]:
    """(title, headers, rows) of every table, shared by Excel and HTML."""
    out = [("Summary", ["item", "value"],
            [[line, ""] for line in summary_lines(doc)[:3]]
            + [[k, v] for k, v in doc["summary"].items()])]
    out.append(("Waves", *_wave_rows(doc)))
    out.append(("Readiness", ["VM", "status", "reasons", "unknown", "wave"],
                [[v["name"], v["status"], v["reasons"], v["unknown"], v["wave"]]
                 for v in doc["vms"]]))
    h = doc.get("hygiene")
    if h:
        out.append(("Hygiene", ["finding", "count", "capacity returned", "VMs or files"], [
            ["powered-off VMs", h["powered_off"]["count"],
             f"{h['powered_off']['provisioned_gib']:,.1f} GiB", h["powered_off"]["vms"]],
            ["templates", h["templates"]["count"],
             f"{h['templates']['provisioned_gib']:,.1f} GiB", h["templates"]["vms"]],
            [f"snapshots older than {h['old_snapshots']['older_than_days']} days",
             h["old_snapshots"]["count"],
             "not checked: the source lists no snapshots"
             if h["old_snapshots"]["count"] is None
             else f"{h['old_snapshots']['snapshot_gib']:,.1f} GiB",
             [v["name"] for v in h["old_snapshots"]["vms"]]],
            ["orphaned (zombie) files", (h.get("orphaned_files") or {}).get("count"),
             "size not in the export", (h.get("orphaned_files") or {}).get("files")],
            ["oversized disks (" + h["oversized_disks"]["rule"] + ")",
             h["oversized_disks"]["count"],
             f"{h['oversized_disks']['returnable_gib']:,.1f} GiB", h["oversized_disks"]["vms"]],
            ["oversized VMs (right-sizing frees half)", h["oversized"]["count"],
             f"{h['oversized']['vcpus_freed']} vCPUs, "
             f"{h['oversized']['mem_gib_freed']:,.1f} GiB", h["oversized"]["vms"]],
        ]))
    cb = doc.get("carbon")
    if cb:
        out.append(("Carbon", ["item", "value"], [[k, v] for k, v in cb.items()]))
    out.append(("Warnings", ["code", "count", "message"],
                [[w["code"], w["count"], w["message"]] for w in doc["warnings"]]))
    return out


def write_waves_html(doc: dict[str, Any], path: Path) -> None:
    parts = ["<!DOCTYPE html><html><head><meta charset='utf-8'><title>vsizer waves</title>"
             "<style>body{font-family:sans-serif;margin:1em}table{border-collapse:collapse;"
             "margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 6px;font-size:13px;"
             "vertical-align:top}</style></head><body><h1>Migration waves</h1>"]
    for title, headers, rows in _sections(doc):
        parts.append(f"<h2>{html.escape(title)}</h2>")
        if title == "Waves":
            parts.append(f"<h3>Gantt chart</h3>{_gantt_svg(doc['waves'])}")
        parts.append(_table(headers, rows))
    parts.append("</body></html>\n")
    with atomic_write(path, "w", encoding="utf-8") as fh:
        fh.write("".join(parts))


def write_waves_xlsx(doc: dict[str, Any], path: Path) -> None:
    from openpyxl import Workbook
    from openpyxl.styles import PatternFill

    wb = Workbook()
    wb.remove(wb.active)
    for title, headers, rows in _sections(doc):
        ws = wb.create_sheet(title)
        for j, h in enumerate(headers, 1):
            set_safe_value(ws.cell(1, j), h)
        for i, r in enumerate(rows, 2):
            for j, c in enumerate(r, 1):
                v = c if isinstance(c, (int, float, bool)) or c is None else _fmt(c)
                set_safe_value(ws.cell(i, j), v)
    ws = wb.create_sheet("Gantt", 2)
    fill = PatternFill("solid", fgColor="2E86C1")
    set_safe_value(ws.cell(1, 1), "wave")
    for i, w in enumerate(doc["waves"]):
        set_safe_value(ws.cell(1, i + 2), w.get("date") or f"slot {i + 1}")
        set_safe_value(ws.cell(i + 2, 1), f"wave {w['wave']}")
        set_safe_value(ws.cell(i + 2, i + 2), f"{w['hours']:.1f} h")
        ws.cell(i + 2, i + 2).fill = fill
    from vsizer.reporting.excel import reproducible_bytes

    data = reproducible_bytes(wb)  # byte-identical for the same document
    with atomic_write(path, "wb") as fh:
        fh.write(data)


def _snapshots(old: dict[str, Any]) -> str:
    """The hygiene line's old-snapshot part (unknown when the source lists none)."""
    if old["count"] is None:
        return "old snapshots not checked (the source lists no snapshots)"
    return f"{old['count']} VMs with old snapshots ({old['snapshot_gib']:,.0f} GiB)"
