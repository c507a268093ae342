"""The HTML page of a benchmark report, built like the plan report.

:mod:`vsizer.bench.report` gathers the content (plotly figures, result tables
as frames, notes) and hands it here as plain data; this module lays it out with
the page shell of :mod:`vsizer.reporting._html_page`: one ``<section>`` per
chart or table, every string escaped by :func:`~vsizer.reporting._html_page.esc`
(tables by :func:`~vsizer.reporting._html_page.table`), the figures drawn by
the page's one script with plotly.js embedded, so the page opens offline.

Cells are shown as :func:`fmt_cell` writes them: whole floats without a
decimal point, other floats to 4 significant digits, missing values empty.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from vsizer._atomic import atomic_write
from vsizer.reporting._html_page import Page, esc, table

__all__ = ["BenchSection", "Frame", "bench_html", "fmt_cell", "write_bench_html"]


class Frame(Protocol):
    """What a result table needs of a pandas ``DataFrame``."""

    @property
    def columns(self) -> Iterable[Any]: ...

    @property
    def empty(self) -> bool: ...

    def itertuples(self, index: bool = ...) -> Iterable[Sequence[Any]]: ...


@dataclass(frozen=True)
class BenchSection:
    """One section of the benchmark page, drawn in this order.

    Attributes
    ----------
    title : str
        Heading (plain text).
    figure : plotly figure or figure dict, optional
        The chart of the section (``to_json`` is called on a plotly figure).
    chart_id : str, optional
        ``id`` of the chart's ``<div>`` (default ``chart-N``).
    warning : str, optional
        Shown highlighted below the chart (e.g. why a model was not fitted).
    tables : tuple of frames
        Result tables, every column shown; an empty one shows ``(none)``.
    notes : tuple of str
        Paragraphs after the tables.
    """

    title: str
    figure: Any = None
    chart_id: str | None = None
    warning: str | None = None
    tables: tuple[Frame, ...] = ()
    notes: tuple[str, ...] = ()


def fmt_cell(value: Any) -> str:
    """Text of a result cell: ``""`` for missing, ``12`` for 12.0, else 4 digits."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float):
        return (
            str(int(value))
            if value.is_integer() and abs(value) < 1e15
            else f"{value:.4g}"
        )
    return str(value)


def _figure_dict(figure: Any) -> dict[str, Any]:
    """A plotly figure as the plain ``{"data": ..., "layout": ...}`` dict."""
    if isinstance(figure, dict):
        return figure
    return dict(json.loads(figure.to_json()))


def _frame_table(frame: Frame) -> str:
    if frame.empty:
        return "<p>(none)</p>"
    rows = [[fmt_cell(v) for v in row] for row in frame.itertuples(index=False)]
    return table([str(c) for c in frame.columns], rows, cls="full")


def _section_body(page: Page, section: BenchSection) -> str:
    parts = []
    if section.figure is not None:
        parts.append(
            page.chart(
                _figure_dict(section.figure), height=450, fig_id=section.chart_id
            )
        )
    if section.warning is not None:
        parts.append(f'<p class="banner-warn">{esc(section.warning)}</p>')
    parts.extend(_frame_table(frame) for frame in section.tables)
    parts.extend(f'<p class="note">{esc(note)}</p>' for note in section.notes)
    return "".join(parts)


def _anchor(title: str, taken: set[str]) -> str:
    """A unique section anchor from its title (``s-`` keeps it apart from chart ids)."""
    base = "s-" + (re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") or "section")
    key, n = base, 2
    while key in taken:
        key, n = f"{base}-{n}", n + 1
    taken.add(key)
    return key


def bench_html(
    title: str, sections: Sequence[BenchSection], *, banner: str | None = None
) -> str:
    """The benchmark page as text.

    Parameters
    ----------
    title : str
        Page title and heading.
    sections : sequence of BenchSection
        Content, in page order.
    banner : str, optional
        A warning shown above the first section (e.g. emulated guests).
    """
    notice = f'<p class="banner-warn">{esc(banner)}</p>' if banner else ""
    page = Page(title=title, lang="en", notice=notice)
    taken: set[str] = set()
    for section in sections:
        page.section(
            _anchor(section.title, taken), section.title, _section_body(page, section)
        )
    return page.render()


def write_bench_html(
    path: str | Path,
    title: str,
    sections: Sequence[BenchSection],
    *,
    banner: str | None = None,
) -> Path:
    """Write :func:`bench_html` to ``path`` (atomically, UTF-8); return the path."""
    out = Path(path)
    text = bench_html(title, sections, banner=banner)
    with atomic_write(out, "w", encoding="utf-8") as fh:
        fh.write(text)
    return out
