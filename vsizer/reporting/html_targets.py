"""The HTML report of a target-platform comparison: the recommendation and
its criterion, the side-by-side table (one column per target), a bar chart
of hosts and reserve, and every assumed profile value (counted warnings).
Every user string is escaped."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from vsizer.reporting._html_page import Page, chart_text, esc, fmt_num, fmt_pct, table
from vsizer.reporting._targets_rows import (
    NO_PRICE,
    ROWS,
    check_targets_doc,
    row_label,
    text,
)

__all__ = ["targets_html", "write_targets_html"]


def _text(kind: str, value: Any, currency: str, lang: str = "en") -> str:
    if value is None:
        return "—"
    if value == NO_PRICE:
        return text(NO_PRICE, lang)
    if isinstance(value, str) or kind == "text":
        return str(value)
    if kind == "yes":
        return text("yes" if value else "no", lang)
    if kind == "pct":
        return fmt_pct(value)
    if kind == "money":
        return f"{fmt_num(value)} {currency}"
    return fmt_num(value, 2 if kind == "dec" else 0)


def _chart(entries: list[Mapping[str, Any]], lang: str = "en") -> dict[str, Any]:
    names = [chart_text(e["name"]) for e in entries]
    return {
        "data": [
            {"type": "bar", "name": text("hosts_total", lang), "x": names,
             "y": [e["hosts_total"] for e in entries]},
            {"type": "bar", "name": text("reserve_share", lang), "x": names,
             "y": [round(100 * e["reserve"]["memory_share"], 3) for e in entries],
             "yaxis": "y2"},
        ],
        "layout": {
            "barmode": "group", "legend": {"orientation": "h", "y": 1.15},
            "yaxis": {"title": {"text": text("hosts", lang)}, "rangemode": "tozero"},
            "yaxis2": {"title": {"text": text("pct_memory", lang)}, "overlaying": "y",
                       "side": "right", "rangemode": "tozero"},
            "margin": {"l": 60, "r": 60, "t": 50, "b": 60},
        },
    }


def targets_html(doc: Mapping[str, Any], lang: str = "en") -> str:
    """The HTML report of ``doc`` as text, in ``lang`` (en, ja; the
    recommendation's reason and the profile texts stay as the document has them)."""
    check_targets_doc(doc)
    entries = list(doc["targets"])
    cur = entries[0]["currency"] if entries else ""
    page = Page(title=text("title", lang), lang=lang,
                subtitle=f"{doc.get('inventory') or '—'} · {len(entries)} "
                f"{text('targets', lang)} · vsizer {doc.get('vsizer_version', '')}")
    rec = doc.get("recommendation") or {}
    page.section("recommendation", text("recommendation", lang), (
        f"<p><b>{esc(rec.get('target') or text('none', lang))}</b> — "
        f"{esc(text('criterion', lang))} "
        f"<code>{esc(rec.get('criterion'))}</code>: {esc(rec.get('reason'))}</p>"))
    rows = [[row_label(label, lang), *(_text(kind, get(e), cur, lang) for e in entries)]
            for label, get, kind in ROWS]
    page.section("targets", text("side_by_side", lang), table(
        [text("figure", lang), *(str(e["name"]) for e in entries)], rows,
        numeric=range(1, len(entries) + 1), cls="full"))
    if entries:
        page.section("chart", text("chart", lang), page.chart(_chart(entries, lang)))
    assumed = [[e["name"], a] for e in entries for a in e["assumed"]]
    page.section("assumed", text("assumed", lang, n=len(assumed)),
                 table([text("target", lang), text("value_reason", lang)], assumed))
    return page.render()


def write_targets_html(
    doc: Mapping[str, Any], path: str | os.PathLike[str], lang: str = "en"
) -> None:
    """Write the HTML report of ``doc`` to ``path`` (UTF-8), in ``lang``."""
    from vsizer._atomic import atomic_write

    page = targets_html(doc, lang)
    with atomic_write(path, "w", encoding="utf-8") as fh:
        fh.write(page)
