"""The plan's ``migration`` section (issue 30) in the terminal, Excel and HTML:
readiness counts and per VM, estate hygiene, and the thresholds chosen."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from rich.console import Console
from rich.text import Text

from vsizer.reporting._html_page import Page, esc, table
from vsizer.reporting._xlsx import SheetWriter

MIGRATION_SHEET_KEY = "sheet_migration"



def _counts_line(mig: Mapping[str, Any], L: Callable[..., str]) -> str:
    r = mig["readiness"]
    c = r["counts"]
    return L("mig_counts", target=r["target"], ready=c["ready"], work=c["needs work"],
             blocked=c["blocked"], unknown=c["unknown"])


def _hygiene_line(mig: Mapping[str, Any], L: Callable[..., str]) -> str:
    h = mig["hygiene"]
    orphans = h.get("orphaned_files")
    snaps = h["old_snapshots"]["count"]
    return L("mig_hygiene", off=h["powered_off"]["count"],
             off_gib=f"{h['powered_off']['provisioned_gib']:,.0f}",
             tmpl=h["templates"]["count"],
             tmpl_gib=f"{h['templates']['provisioned_gib']:,.0f}",
             snaps="?" if snaps is None else snaps,
             days=h["old_snapshots"]["older_than_days"],
             snap_gib="?" if snaps is None else f"{h['old_snapshots']['snapshot_gib']:,.0f}",
             orphans="?" if orphans is None else orphans["count"],
             disks=h["oversized_disks"]["count"],
             disk_gib=f"{h['oversized_disks']['returnable_gib']:,.0f}",
             over=h["oversized"]["count"])


def print_migration(plan: Mapping[str, Any], console: Console, L: Callable[..., str]) -> None:
    """Two lines: readiness counts and hygiene (nothing without the section)."""
    mig = plan.get("migration")
    if not mig:
        return
    console.print(Text(_counts_line(mig, L)))
    console.print(Text(_hygiene_line(mig, L)))


def _rows(mig: Mapping[str, Any]) -> list[list[Any]]:
    return [[v["name"], v["status"], "; ".join(v["reasons"]), ", ".join(v["unknown"]),
             v.get("source_host"), v.get("used_gib")] for v in mig["vms"]]


def _headers(t: Callable[..., str]) -> list[str]:
    return [t("mig_vm"), t("mig_status"), t("mig_reasons"), t("mig_unknown"),
            t("mig_source_host"), t("mig_used_gib")]


def migration_sheet(w: SheetWriter, plan: Mapping[str, Any]) -> None:
    """Counts, hygiene and the thresholds, then one row per VM."""
    mig = plan["migration"]
    w.items([
        (w.t("section_migration"), _counts_line(mig, w.t), None, "migration.readiness"),
        ("", _hygiene_line(mig, w.t), None, "migration.hygiene"),
        *[("", x["message"], None, f"migration.warnings.{x['code']}")
          for x in mig.get("warnings") or []],
    ])
    w.section(w.t("sheet_migration"), _headers(w.t), _rows(mig),
              [None, None, None, None, None, "#,##0.0"], autofilter=True)


def migration_html(page: Page, plan: Mapping[str, Any], t: Callable[..., str]) -> str:
    """The section's body (empty without a ``migration`` section)."""
    mig = plan.get("migration")
    if not mig:
        return ""
    notes = "".join(f"<li>{esc(x['message'])}</li>" for x in mig.get("warnings") or [])
    rows = [[*r[:5], "—" if r[5] is None else f"{r[5]:,.1f}"] for r in _rows(mig)]
    return (f"<p>{esc(_counts_line(mig, t))}</p><p>{esc(_hygiene_line(mig, t))}</p>"
            f"<ul>{notes}</ul>" + table(_headers(t), rows, numeric=(5,)))
