"""Reports of a plan: the Excel workbook, bilingual labels, formula-safe text.

Public API
----------
write_plan_xlsx(plan, path, *, lang="en")
    Write the workbook of a plan dict (``docs/plan-schema.md``).
plan_workbook(plan, *, lang="en")
    The same workbook as an in-memory ``openpyxl.Workbook``.
SHEET_KEYS
    Label keys of the workbook's sheets, in order.
label(key, lang="en", **fields), LABELS, LANGS, with_unit(text, unit)
    English/Japanese text of every label, shared with the terminal summary.
write_plan_html(plan, path, *, lang="en"), plan_html(plan, *, lang="en")
    The self-contained HTML report of a plan (plotly.js embedded).
write_compare_html(doc, path, *, lang="en"), write_compare_xlsx(doc, path, *, lang="en")
    The HTML and Excel reports of a what-if comparison (vsizer.study.compare).
bench_html(title, sections, *, banner=None), write_bench_html(path, ...), BenchSection
    The benchmark report page (``vsizer bench report``) from plain data.
excel_safe(value), set_safe_value(cell, value)
    Neutralize user strings a spreadsheet would evaluate as formulas.

Names are imported on first use (PEP 562), so ``vsizer.reporting.labels`` can
be used by the terminal summary without loading openpyxl.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # static types for the lazily imported names
    from vsizer.reporting._html_compare import write_compare_html
    from vsizer.reporting._xlsx_compare import write_compare_xlsx
    from vsizer.reporting.bench_html import BenchSection, bench_html, write_bench_html
    from vsizer.reporting.excel import SHEET_KEYS, plan_workbook, write_plan_xlsx
    from vsizer.reporting.html import plan_html, write_plan_html
    from vsizer.reporting.labels import LABELS, LANGS, label, with_unit
    from vsizer.reporting.safe import excel_safe, set_safe_value

__all__ = [
    "BenchSection",
    "LABELS",
    "LANGS",
    "SHEET_KEYS",
    "bench_html",
    "excel_safe",
    "label",
    "plan_html",
    "plan_workbook",
    "set_safe_value",
    "with_unit",
    "write_bench_html",
    "write_compare_html",
    "write_compare_xlsx",
    "write_plan_html",
    "write_plan_xlsx",
]

_HOME = {
    "LABELS": "labels",
    "LANGS": "labels",
    "label": "labels",
    "with_unit": "labels",
    "SHEET_KEYS": "excel",
    "plan_workbook": "excel",
    "write_plan_xlsx": "excel",
    "plan_html": "html",
    "write_plan_html": "html",
    "write_compare_html": "_html_compare",
    "write_compare_xlsx": "_xlsx_compare",
    "BenchSection": "bench_html",
    "bench_html": "bench_html",
    "write_bench_html": "bench_html",
    "excel_safe": "safe",
    "set_safe_value": "safe",
}


def __getattr__(name: str) -> Any:
    try:
        module = _HOME[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
