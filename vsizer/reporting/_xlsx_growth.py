"""The Growth sheet of the workbook (when the plan has ``growth``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from vsizer.reporting import _growth_view as view
from vsizer.reporting._xlsx import SheetWriter

#: The sheet's label key (added after the fixed and optional sheets).
GROWTH_SHEET_KEY = "sheet_growth"


def growth_sheet(w: SheetWriter, plan: Mapping[str, Any]) -> None:
    """Rate and mode, hosts per year end and pool, when each pool runs out, purchases."""
    g = view.growth(plan)
    assert g is not None
    w.items(
        [
            (w.t("growth_rate"), view.rate_text(g), None, "growth.rate"),
            (w.t("growth_size_for"), w.t(f"value_{g.get('size_for')}"), None,
             "growth.size_for"),
            (w.t("years"), g.get("horizon"), "0", "growth.horizon"),
            (w.t("growth_bought"), g.get("hosts_bought"), "0", "growth.hosts_bought"),
        ]
    )
    unit = (plan.get("demand") or {}).get("capacity_unit")
    headers = view.year_headers(g, w.t, unit)
    w.section(
        w.t("section_growth"),
        headers,
        view.year_rows(g),
        ["0", "#,##0", "0", *["0"] * (len(headers) - 3)],
        autofilter=True,
    )
    w.section(
        w.t("growth_runs_out"),
        [w.t("pool"), w.t("growth_plan_hosts"), w.t("growth_runs_out")],
        view.pool_rows(g, w.t),
        [None, "0", "0"],
    )
    w.section(
        w.t("growth_purchases"),
        [w.t("growth_year"), w.t("pool"), w.t("growth_hosts_added")],
        view.purchase_rows(g),
        ["0", None, "0"],
    )
    notes = [[str(n)] for n in g.get("notes") or ()]
    w.section(w.t("notes"), [w.t("note")], [[w.t("growth_note")], *notes])
    w.finish()
