"""The HTML report of a target-platform comparison: the recommendation and
its criterion, the side-by-side table (one column per target), a bar chart
of hosts and reserve, and every assumed profile value (counted warnings).
Every user string is escaped."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from vsizer.reporting._html_page import Page, chart_text, esc, fmt_num, fmt_pct, table
from vsizer.reporting._targets_rows import ROWS, check_targets_doc

__all__ = ["targets_html", "write_targets_html"]


def _text(kind: str, value: Any, currency: str) -> str:
    if value is None:
        return "—"
    if isinstance(value, str) or kind == "text":
        return str(value)
    if kind == "yes":
        return "yes" if value else "no"
    if kind == "pct":
        return fmt_pct(value)
    if kind == "money":
        return f"{fmt_num(value)} {currency}"
    return fmt_num(value, 2 if kind == "dec" else 0)


def _chart(entries: list[Mapping[str, Any]]) -> dict[str, Any]:
    names = [chart_text(e["name"]) for e in entries]
    return {
        "data": [
            {"type": "bar", "name": "hosts in total", "x": names,
             "y": [e["hosts_total"] for e in entries]},
            {"type": "bar", "name": "reserve per host [% of memory]", "x": names,
             "y": [round(100 * e["reserve"]["memory_share"], 3) for e in entries],
             "yaxis": "y2"},
        ],
        "layout": {
            "barmode": "group", "legend": {"orientation": "h", "y": 1.15},
            "yaxis": {"title": {"text": "hosts"}, "rangemode": "tozero"},
            "yaxis2": {"title": {"text": "% of host memory"}, "overlaying": "y",
                       "side": "right", "rangemode": "tozero"},
            "margin": {"l": 60, "r": 60, "t": 50, "b": 60},
        },
    }


def targets_html(doc: Mapping[str, Any]) -> str:
    """The HTML report of ``doc`` as text."""
    check_targets_doc(doc)
    entries = list(doc["targets"])
    cur = entries[0]["currency"] if entries else ""
    page = Page(title="Target platforms side by side", lang="en",
                subtitle=f"{doc.get('inventory') or '—'} · {len(entries)} targets · "
                f"vsizer {doc.get('vsizer_version', '')}")
    rec = doc.get("recommendation") or {}
    page.section("recommendation", "Recommendation", (
        f"<p><b>{esc(rec.get('target') or 'none')}</b> — criterion "
        f"<code>{esc(rec.get('criterion'))}</code>: {esc(rec.get('reason'))}</p>"))
    rows = [[label, *(_text(kind, get(e), cur) for e in entries)] for label, get, kind in ROWS]
    page.section("targets", "Side by side", table(
        ["Figure", *(str(e["name"]) for e in entries)], rows,
        numeric=range(1, len(entries) + 1), cls="full"))
    if entries:
        page.section("chart", "Hosts and platform reserve", page.chart(_chart(entries)))
    assumed = [[e["name"], a] for e in entries for a in e["assumed"]]
    page.section("assumed", f"Assumed profile values ({len(assumed)} warnings)",
                 table(["Target", "Value and reason"], assumed))
    return page.render()


def write_targets_html(doc: Mapping[str, Any], path: str | os.PathLike[str]) -> None:
    """Write the HTML report of ``doc`` to ``path`` (UTF-8)."""
    from vsizer._atomic import atomic_write

    text = targets_html(doc)
    with atomic_write(path, "w", encoding="utf-8") as fh:
        fh.write(text)
