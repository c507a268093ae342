"""Building blocks of the self-contained HTML reports.

Every string that reaches the page passes through one of two doors:

* :func:`esc` for HTML text and attribute values (``html.escape`` with
  quotes), so a server named ``<script>alert(1)</script>`` is shown as text;
* :func:`script_json` for data inside a ``<script>`` element: JSON with
  ``<``, ``>``, ``&`` and the JavaScript line separators written as ``\\uXXXX``
  escapes, so no value can close the element or start a comment.

Chart labels also go through :func:`esc` before they enter the JSON
(:func:`chart_text`): plotly.js renders a small set of tags (``<b>``,
``<a href>``) inside chart text and decodes entities, so an escaped name is
drawn literally and a tag in a name is never interpreted.

The charting library is plotly.js, embedded in the page so a report opens
without network access: the smallest bundle that draws the page's charts
(:mod:`vsizer.reporting._plotly_bundle`: a shipped partial bundle, or the
full one of the ``plotly`` Python package). Charts are declared as plain figure dicts (``data``,
``layout``) and drawn by one script at the end of the page; the page has no
timestamps or random ids, so the same plan gives the same bytes.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from vsizer.reporting._plotly_bundle import bundle_for, plotly_js

__all__ = [
    "Page",
    "chart_text",
    "esc",
    "fmt_num",
    "fmt_pct",
    "plotly_js",
    "script_json",
    "table",
]


def esc(value: Any) -> str:
    """HTML-escaped text of ``value`` (``None`` gives ``""``)."""
    if value is None:
        return ""
    return html.escape(str(value), quote=True)


def chart_text(value: Any) -> str:
    """A user string for a plotly.js label: ``&``, ``<``, ``>`` escaped.

    plotly.js decodes only a few entities (``&amp;``, ``&lt;``, ``&gt;``, not
    ``&quot;``), so quotes are left as they are: the JSON around them
    escapes them, and without ``<`` no tag can start.
    """
    if value is None:
        return ""
    return html.escape(str(value), quote=False)


_SCRIPT_ESCAPES = {
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}


def script_json(obj: Any) -> str:
    """JSON text of ``obj`` that is safe inside a ``<script>`` element.

    Non-finite floats become ``null`` (JSON has no NaN).
    """
    text = json.dumps(_finite(obj), ensure_ascii=False, separators=(",", ":"))
    for char, repl in _SCRIPT_ESCAPES.items():
        text = text.replace(char, repl)
    return text


def _finite(obj: Any) -> Any:
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    return obj


def fmt_num(value: Any, digits: int = 0) -> str:
    """``1,234`` / ``1,234.5``; text unchanged; ``—`` for missing values."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "—"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, (int, float)):
        return f"{value:,.{digits}f}"
    return str(value)


def fmt_pct(value: Any, digits: int = 1) -> str:
    """A fraction as a percentage: ``0.5432`` -> ``54.3 %``."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return "—"
    if not math.isfinite(value):
        return "—"
    return f"{100 * value:.{digits}f} %"


def table(
    headers: Sequence[str],
    rows: Iterable[Sequence[Any]],
    *,
    numeric: Iterable[int] = (),
    raw: Iterable[int] = (),
    cls: str = "",
    row_classes: Sequence[str] | None = None,
) -> str:
    """An HTML table; every cell escaped unless its column is in ``raw``.

    Parameters
    ----------
    headers : sequence of str
        Column headers (plain text).
    rows : iterable of sequences
        Cell values; ``None`` shows as an empty cell.
    numeric : iterable of int
        0-based columns aligned right.
    raw : iterable of int
        0-based columns holding HTML built by this package (already escaped).
    cls : str
        Extra CSS class of the table.
    row_classes : sequence of str, optional
        CSS class per row (e.g. ``"bad"``).
    """
    num, keep = set(numeric), set(raw)
    head = "".join(
        f"<th{' class=num' if i in num else ''}>{esc(h)}</th>"
        for i, h in enumerate(headers)
    )
    body = []
    for r, values in enumerate(rows):
        cells = "".join(
            f"<td{' class=num' if i in num else ''}>"
            f"{v if i in keep and v is not None else esc(v)}</td>"
            for i, v in enumerate(values)
        )
        rc = row_classes[r] if row_classes and row_classes[r] else ""
        body.append(f"<tr{f' class={rc}' if rc else ''}>{cells}</tr>")
    classes = f"data {cls}".strip()
    return (
        f'<div class="scroll {esc(cls)}"><table class="{classes}"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )


@dataclass
class Page:
    """An HTML report under construction: sections, then charts drawn at the end."""

    title: str
    lang: str
    subtitle: str = ""
    #: Built HTML shown above the first section (e.g. a warning banner).
    notice: str = ""
    #: Extra style rules appended to the page's style sheet.
    css: str = ""
    sections: list[tuple[str, str, str]] = field(default_factory=list)
    figures: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def chart(
        self, figure: dict[str, Any], *, height: int = 380, fig_id: str | None = None
    ) -> str:
        """Register ``figure`` and return the ``<div>`` it is drawn into.

        ``fig_id`` names the ``<div>`` (default ``chart-N``, N counting from 1).
        """
        fig_id = fig_id or f"chart-{len(self.figures) + 1}"
        self.figures.append((fig_id, figure))
        return f'<div class="chart" id="{esc(fig_id)}" style="height:{int(height)}px"></div>'

    def section(self, key: str, title: str, body: str) -> None:
        """Append a section with anchor ``key``; ``body`` is built HTML."""
        self.sections.append((key, title, body))

    def render(self) -> str:
        """The whole document as text."""
        nav = "".join(
            f'<a href="#{esc(key)}">{esc(title)}</a>' for key, title, _ in self.sections
        )
        sections = "".join(
            f'<section id="{esc(key)}"><h2>{esc(title)}</h2>{body}</section>'
            for key, title, body in self.sections
        )
        figures = {fig_id: fig for fig_id, fig in self.figures}
        # plotly.js (1.2 to 4.8 MB) only when something is drawn with it
        bundle = plotly_js(bundle_for(figures.values())) if figures else ""
        plotly = f"<script>{bundle}</script>" if figures else ""
        return (
            f'<!DOCTYPE html>\n<html lang="{esc(self.lang)}"><head>'
            '<meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{esc(self.title)}</title><style>{_CSS}{self.css}</style>"
            "</head><body>"
            f"<header><h1>{esc(self.title)}</h1>"
            f'<p class="sub">{esc(self.subtitle)}</p><nav>{nav}</nav></header>'
            f"<main>{self.notice}{sections}</main>"
            # the library after the content: the first screen paints before it loads
            f"{plotly}"
            '<script type="application/json" id="vsizer-figures">'
            f"{script_json(figures)}</script>"
            f"<script>{_DRAW}</script></body></html>\n"
        )


#: Draws every registered figure; a chart that fails is reported on the console.
_DRAW = """
(function () {
  var figs = JSON.parse(document.getElementById("vsizer-figures").textContent);
  var config = {displaylogo: false, responsive: true};
  Object.keys(figs).forEach(function (id) {
    var f = figs[id];
    Plotly.newPlot(id, f.data, f.layout, config);
  });
})();
"""

_CSS = """
:root{--fg:#1f2933;--muted:#616e7c;--line:#d9e2ec;--bg:#f5f7fa;--good:#1b7f3b;
--bad:#b42318;--accent:#1f4e79}
*{box-sizing:border-box}
body{margin:0;font-family:system-ui,-apple-system,"Segoe UI","Hiragino Sans",
"Noto Sans CJK JP","Yu Gothic",Meiryo,sans-serif;color:var(--fg);background:var(--bg);
font-size:14px;line-height:1.45}
header{background:var(--accent);color:#fff;padding:18px 28px 10px}
header h1{margin:0;font-size:22px}
header .sub{margin:4px 0 10px;opacity:.85}
nav a{color:#fff;margin-right:14px;font-size:13px;text-decoration:none;opacity:.9}
nav a:hover{text-decoration:underline}
main{padding:8px 28px 40px;max-width:1400px}
section{background:#fff;border:1px solid var(--line);border-radius:6px;
padding:14px 18px;margin:16px 0}
h2{font-size:18px;margin:0 0 10px;color:var(--accent)}
h3{font-size:15px;margin:14px 0 6px}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(190px,1fr));gap:10px}
.card{border:1px solid var(--line);border-radius:6px;padding:10px 12px;background:#fbfcfd}
.card .k{color:var(--muted);font-size:12px}
.card .v{font-size:20px;font-weight:600;margin-top:2px}
.card .d{color:var(--muted);font-size:12px}
.card.good{border-left:4px solid var(--good)}
.card.bad{border-left:4px solid var(--bad)}
.card.warn{border-left:4px solid #b7791f}
.banner-warn{border:1px solid #b7791f;background:#fff8e6;padding:8px 12px;margin:8px 0;font-weight:600}
.scroll{overflow-x:auto;max-height:520px;overflow-y:auto;margin:6px 0}
.scroll.full{max-height:none}
table.data{border-collapse:collapse;font-size:13px;min-width:40%}
table.data th{position:sticky;top:0;background:#e4edf6;text-align:left;
padding:4px 8px;border-bottom:1px solid #9fb3c8;white-space:nowrap}
table.data td{padding:3px 8px;border-bottom:1px solid var(--line);vertical-align:top}
table.data .num{text-align:right;white-space:nowrap}
tr.bad td{background:#fdecea}
.ok{color:var(--good);font-weight:600}.lowconf .ok{color:#b7791f}.ng{color:var(--bad);font-weight:600}
.note{color:var(--muted);font-style:italic;margin:6px 0}
.chart{width:100%;min-height:200px}
.rec{font-size:15px;padding:10px 12px;border-left:4px solid var(--good);background:#f0f9f3}
@media print{nav{display:none}section{break-inside:avoid}}
"""
