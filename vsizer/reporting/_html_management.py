"""The management summary at the top of the HTML report (issue 27): decision,
before -> after, savings and risks on the first screen, engineering detail
below. Every string escaped (:func:`vsizer.reporting._html_page.esc`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from vsizer.reporting._html_page import esc
from vsizer.reporting._story import story

__all__ = ["MGMT_CSS", "management_html"]

Label = Callable[..., str]

#: Styles of the summary (appended to the page's style sheet).
MGMT_CSS = """
.mgmt{display:grid;grid-template-columns:minmax(320px,1.1fr) minmax(300px,1fr);gap:10px 24px}
.mgmt .decision{grid-column:1/-1;font-size:17px;padding:10px 14px;margin:0;
border-left:5px solid var(--good);background:#f0f9f3}
.mgmt .decision.review{border-left-color:var(--bad);background:#fdecea}
.mgmt h3{margin:4px 0 6px}
.mgmt table.ba{border-collapse:collapse;font-size:14px;width:100%}
.mgmt table.ba th,.mgmt table.ba td{padding:4px 8px;border-bottom:1px solid var(--line)}
.mgmt table.ba th{background:#e4edf6;text-align:left}
.mgmt table.ba td.num,.mgmt table.ba th.num{text-align:right;white-space:nowrap}
.mgmt .saving{font-size:15px;margin:8px 0 0}
.mgmt ul{margin:0;padding-left:18px}.mgmt li{margin:2px 0}
.mgmt li.good::marker{color:var(--good)}.mgmt li.bad{color:var(--bad);font-weight:600}
.mgmt .wcode{font-family:ui-monospace,monospace;font-size:12px;color:var(--muted)}
"""


def _before_after(rows: list[tuple[str, str, str, str]], t: Label) -> str:
    head = (f"<tr><th>{esc(t('mgmt_item'))}</th><th class=num>{esc(t('mgmt_before'))}</th>"
            f"<th class=num>{esc(t('mgmt_after'))}</th>"
            f"<th class=num>{esc(t('mgmt_change'))}</th></tr>")
    body = "".join(
        f"<tr><td>{esc(k)}</td><td class=num>{esc(b)}</td><td class=num><b>{esc(a)}</b></td>"
        f"<td class=num>{esc(c)}</td></tr>"
        for k, b, a, c in rows
    )
    return f'<table class="ba"><thead>{head}</thead><tbody>{body}</tbody></table>'


def management_html(plan: Mapping[str, Any], t: Label) -> str:
    """The management summary (built HTML) of ``plan``."""
    st = story(plan, t)
    cls = {True: "good", False: "bad", None: ""}
    risks = "".join(
        f'<li class="{cls[state]}">{esc(text)}</li>' for state, text in st.risks
    )
    tops = "".join(
        f'<li>{esc(msg)} <span class="wcode">{esc(code)}</span></li>' for code, msg in st.top
    )
    warn = f"<li>{esc(st.warnings_head)}<ul>{tops}</ul></li>" if st.top else (
        f"<li>{esc(st.warnings_head)}</li>")
    return (
        f'<div class="mgmt" id="management">'
        f'<p class="decision{"" if st.go else " review"}"><b>{esc(t("mgmt_decision"))}:</b> '
        f"{esc(st.decision)}</p>"
        f"<div><h3>{esc(t('mgmt_before_after'))}</h3>{_before_after(st.before_after, t)}"
        f'<p class="saving"><b>{esc(t("mgmt_savings"))}:</b> {esc(st.savings)}</p></div>'
        f"<div><h3>{esc(t('mgmt_risks'))}</h3><ul>{risks}{warn}</ul></div>"
        f'<p class="note">{esc(t("mgmt_detail_below"))}</p></div>'
    )
