"""The Excel workbook of a target-platform comparison: one sheet with one
column per target, the recommendation and its criterion, a bar chart of the
hosts, and a sheet of every assumed profile value (counted warnings).
Cells go through the formula-safe writer; the bytes are reproducible."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from openpyxl import Workbook
from openpyxl.chart import BarChart, Reference
from openpyxl.utils import get_column_letter

from vsizer.reporting._targets_rows import (
    NO_PRICE,
    ROWS,
    check_targets_doc,
    row_label,
    text,
)
from vsizer.reporting._xlsx import DEC2, INT, PCT, Fmt, SheetWriter

__all__ = ["targets_workbook", "write_targets_xlsx"]

_FORMATS = {"int": INT, "dec": DEC2, "pct": PCT, "money": INT}


def _cell(kind: str, value: Any, lang: str = "en") -> Any:
    if kind == "yes":
        return text("yes" if value else "no", lang)
    if value == NO_PRICE:
        return text(NO_PRICE, lang)
    return Fmt(value, _FORMATS.get(kind))


def targets_workbook(doc: Mapping[str, Any], lang: str = "en") -> Workbook:
    """Build the workbook in ``lang`` (en, ja; raises InputError on a document
    of another kind)."""
    check_targets_doc(doc)
    entries = doc["targets"]
    wb = Workbook()
    ws = wb.active
    ws.title = text("sheet", lang)
    w = SheetWriter(ws, lang)
    rows = [[row_label(label, lang), *(_cell(kind, get(e), lang) for e in entries)]
            for label, get, kind in ROWS]
    rng = w.table([text("figure", lang), *(str(e["name"]) for e in entries)], rows,
                  autofilter=True)
    rec = doc.get("recommendation") or {}
    w.title(text("recommendation", lang))
    w.table([text("target", lang), text("Criterion", lang), text("Reason", lang)],
            [[rec.get("target"), rec.get("criterion"), rec.get("reason")]])
    w.finish(freeze_col=2)
    if entries:
        row = rng.first_row + [r[0] for r in ROWS].index("Hosts in total")
        chart = BarChart()
        chart.type, chart.title, chart.legend = "col", row_label("Hosts in total", lang), None
        chart.add_data(Reference(ws, min_col=1, max_col=rng.last_col, min_row=row,
                                 max_row=row), from_rows=True, titles_from_data=True)
        chart.set_categories(Reference(ws, min_col=2, max_col=rng.last_col,
                                       min_row=rng.header_row))
        chart.y_axis.scaling.min = 0.0
        ws.add_chart(chart, f"{get_column_letter(rng.last_col + 2)}2")
    ws2 = wb.create_sheet(text("sheet_assumed", lang))
    w2 = SheetWriter(ws2, lang)
    w2.table([text("target", lang), text("assumed_reason", lang)],
             [[e["name"], a] for e in entries for a in e["assumed"]], autofilter=True)
    w2.finish()
    wb.properties.title = "vsizer target platform comparison"
    return wb


def write_targets_xlsx(
    doc: Mapping[str, Any], path: str | os.PathLike[str], lang: str = "en"
) -> None:
    """Write the workbook of ``doc`` to ``path`` in ``lang`` (reproducible bytes)."""
    from vsizer._atomic import atomic_write
    from vsizer.reporting.excel import reproducible_bytes

    data = reproducible_bytes(targets_workbook(doc, lang))
    with atomic_write(path) as fh:
        fh.write(data)
