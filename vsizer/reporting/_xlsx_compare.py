"""The Excel workbook of a what-if comparison (:func:`vsizer.study.compare.compare`).

Sheet 1 puts the scenarios side by side (one column each, one row per
figure, number formats per row) under the recommendation line, with a native
bar chart of hosts and one of power after consolidation. Then one summary
sheet per scenario is *not* repeated here: each scenario's full plan can be
written with :func:`vsizer.reporting.excel.write_plan_xlsx` from
``doc["plans"][name]``. Cells go through the formula-safe writer like the plan
workbook, and the bytes are reproducible.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from openpyxl import Workbook
from openpyxl.chart import BarChart, Reference
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.worksheet import Worksheet

from vsizer.errors import InputError
from vsizer.reporting._xlsx import DEC1, INT, PCT, RATIO, Fmt, SheetWriter, TableRange
from vsizer.reporting.labels import check_lang, label, with_unit

__all__ = ["compare_workbook", "write_compare_xlsx"]

#: (label key, entry key, number format, unit) per row.
_ROWS: tuple[tuple[str, str, str | None, str | None], ...] = (
    ("description", "description", None, None),
    ("host_model", "host_model", None, None),
    ("host_cores", "host_cores", INT, None),
    ("mem_gib", "host_mem_gib", INT, "GiB"),
    ("ceiling", "ceiling", PCT, None),
    ("failures", "failures", INT, None),
    ("servers", "servers", INT, None),
    ("hosts", "hosts", INT, None),
    ("lower_bound", "lower_bound", INT, None),
    ("consolidation_ratio", "consolidation_ratio", RATIO, None),
    ("racks_after", "racks_after", INT, None),
    ("rack_u_after", "rack_u_after", DEC1, "U"),
    ("power_after_w", "power_after_w", INT, "W"),
    ("annual_kwh_after", "annual_kwh_after", INT, "kWh"),
    ("annual_cost_after", "annual_cost_after", INT, "{currency}"),
    ("annual_saving", "annual_saving", INT, "{currency}"),
    ("saving_over_years", "saving_over_years", INT, "{currency}"),
    ("hosts_cost", "hosts_cost", INT, "{currency}"),
    ("total_cost_over_years", "total_cost_over_years", INT, "{currency}"),
    ("survives_failover", "survives_failover", None, None),
    ("worst_survivor_util", "worst_survivor_util", PCT, None),
    ("targets_met", "targets_met", INT, None),
)


def _pred(t: Any, value: Any) -> Any:
    if not isinstance(value, Mapping):
        return None
    return t(
        "pred_summary",
        metric=value.get("metric"),
        mean=value.get("mean"),
        min=value.get("min"),
    )


def _check(doc: Any) -> None:
    if not isinstance(doc, Mapping) or not isinstance(doc.get("scenarios"), list):
        raise InputError(
            "comparison: expected the dict of vsizer.study.compare.compare with a "
            "'scenarios' list (see docs/report.md)."
        )


def _figure_rows(w: SheetWriter, entries: list[Mapping[str, Any]]) -> list[list[Any]]:
    """One row per compared figure (:data:`_ROWS`), then predicted performance."""
    cur = entries[0].get("currency") if entries else None
    years = entries[0].get("years") if entries else None
    rows = []
    for key, field, fmt, unit in _ROWS:
        text = with_unit(
            w.t(key, years=years), unit.format(currency=cur) if unit else None
        )
        values = []
        for e in entries:
            value = e.get(field)
            if isinstance(value, bool):
                value = w.yes_no(value)
            values.append(Fmt(value, fmt))
        rows.append([text, *values])
    rows.append(
        [
            w.t("predicted_performance"),
            *(_pred(w.t, e.get("predicted_performance")) for e in entries),
        ]
    )
    return rows


def _recommendation(w: SheetWriter, rec: Mapping[str, Any]) -> None:
    w.title(w.t("recommendation"))
    w.items(
        [
            (w.t("scenario"), rec.get("scenario"), None, "recommendation.scenario"),
            (w.t("criterion"), rec.get("criterion"), None, "recommendation.criterion"),
            (w.t("description"), rec.get("reason"), None, "recommendation.reason"),
        ]
    )


def _bar_charts(ws: Worksheet, rng: TableRange) -> None:
    """Column charts of the hosts and of the power after, right of the table."""
    keys = [field for _, field, _, _ in _ROWS]
    anchor = get_column_letter(rng.last_col + 2)
    for i, field in enumerate(("hosts", "power_after_w")):
        row = rng.first_row + keys.index(field)
        chart = BarChart()
        chart.type = "col"
        chart.title = ws.cell(row=row, column=1).value
        chart.add_data(
            Reference(ws, min_col=1, max_col=rng.last_col, min_row=row, max_row=row),
            from_rows=True,
            titles_from_data=True,
        )
        chart.set_categories(
            Reference(ws, min_col=2, max_col=rng.last_col, min_row=rng.header_row)
        )
        chart.legend = None
        chart.x_axis.delete = False
        chart.y_axis.delete = False
        chart.y_axis.scaling.min = 0.0
        chart.width, chart.height = 14.0, 8.0
        ws.add_chart(chart, f"{anchor}{2 + 18 * i}")


def compare_workbook(doc: Mapping[str, Any], *, lang: str = "en") -> Workbook:
    """Build the comparison workbook in memory.

    Parameters
    ----------
    doc : dict
        The result of :func:`vsizer.study.compare.compare`.
    lang : {"en", "ja"}, default "en"
        Language of sheet name and labels.

    Raises
    ------
    vsizer.errors.ConfigError
        ``lang`` is not ``"en"`` or ``"ja"``.
    vsizer.errors.InputError
        ``doc`` is not a comparison document.
    """
    check_lang(lang, "write_compare_xlsx")
    _check(doc)
    entries = doc["scenarios"]
    wb = Workbook()
    ws = wb.active
    ws.title = label("sheet_scenarios", lang)
    w = SheetWriter(ws, lang)
    rng = w.table(
        [w.t("item"), *(str(e["name"]) for e in entries)],
        _figure_rows(w, entries),
        autofilter=True,
    )
    _recommendation(w, doc.get("recommendation") or {})
    w.finish(freeze_col=2)
    if entries:
        _bar_charts(ws, rng)
    wb.properties.title = label("compare_title", lang)
    return wb


def write_compare_xlsx(
    doc: Mapping[str, Any], path: str | os.PathLike[str], *, lang: str = "en"
) -> None:
    """Write the comparison workbook of ``doc`` to ``path`` (reproducible bytes).

    See :func:`compare_workbook` for parameters and errors.
    """
    from vsizer._atomic import atomic_write
    from vsizer.reporting.excel import reproducible_bytes

    data = reproducible_bytes(compare_workbook(doc, lang=lang))
    with atomic_write(path) as fh:
        fh.write(data)
