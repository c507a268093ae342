"""Excel workbook extras of issue 27: cost cells that recalculate and sheets
that print.

* Summary: the annual electricity cost before/after, the annual saving and the
  saving over the years are formulas of the power cells, the price-per-kWh
  and PUE cells of the Parameters block (shaded as inputs) and the years
  cell: change the price and the costs follow. The formulas are built here
  from cell coordinates only, never from a plan or user string (user strings
  stay neutralized text: :mod:`vsizer.reporting.safe`).
  Energy [kWh] = power [W] / 1000 x 8760 h x PUE; cost = energy x price
  (the arithmetic of :mod:`vsizer.study.economics`).
* Every sheet prints landscape on A4, fitted to the page width; the Summary
  fits one page.
"""

from __future__ import annotations

from openpyxl.styles import PatternFill
from openpyxl.worksheet.worksheet import Worksheet

__all__ = ["COST_FORMULAS", "HOURS_PER_YEAR", "cost_formulas", "print_setup"]

#: Hours in the energy year (vsizer.study.economics.HOURS_PER_YEAR).
HOURS_PER_YEAR = 8760

#: Plan paths of the key-figure rows that become formulas, and of their inputs.
COST_FORMULAS = (
    "power.annual_cost_before",
    "power.annual_cost_after",
    "power.annual_saving",
    "power.saving_over_years",
)

#: Fill of the input cells a reader may change (price per kWh, PUE).
INPUT_FILL = PatternFill("solid", fgColor="FFF2CC")


def _rows_by_key(ws: Worksheet, key_col: int = 3) -> dict[str, int]:
    """Row of each plan path in the sheet's key column (first occurrence)."""
    rows: dict[str, int] = {}
    for (cell,) in ws.iter_rows(min_col=key_col, max_col=key_col):
        if isinstance(cell.value, str) and cell.value not in rows:
            rows[cell.value] = cell.row
    return rows


def cost_formulas(ws: Worksheet) -> bool:
    """Turn the Summary's cost cells (column B) into formulas; False (nothing
    changed) when the plan has no price or a needed row is missing."""
    at = _rows_by_key(ws)
    need = ("power.before_w", "power.after_w", "parameters.price_kwh", "parameters.pue",
            "parameters.years", *COST_FORMULAS)
    if any(k not in at for k in need):
        return False
    if not all(isinstance(ws.cell(row=at[k], column=2).value, (int, float))
               for k in ("parameters.price_kwh", "parameters.pue", "parameters.years")):
        return False

    def b(key: str) -> str:
        return f"B{at[key]}"

    price, pue = b("parameters.price_kwh"), b("parameters.pue")
    formulas = {
        "power.annual_cost_before": f"={b('power.before_w')}/1000*{HOURS_PER_YEAR}*{pue}*{price}",
        "power.annual_cost_after": f"={b('power.after_w')}/1000*{HOURS_PER_YEAR}*{pue}*{price}",
        "power.annual_saving": f"={b('power.annual_cost_before')}-{b('power.annual_cost_after')}",
        "power.saving_over_years": f"={b('power.annual_saving')}*{b('parameters.years')}",
    }
    for key, formula in formulas.items():
        ws.cell(row=at[key], column=2).value = formula  # data_type 'f'
    for key in ("parameters.price_kwh", "parameters.pue"):
        ws.cell(row=at[key], column=2).fill = INPUT_FILL
    return True


def print_setup(ws: Worksheet, *, one_page: bool) -> None:
    """Landscape A4, fitted to the page width (and height with ``one_page``),
    the used range as print area."""
    ws.page_setup.orientation = "landscape"
    ws.page_setup.paperSize = ws.PAPERSIZE_A4
    ws.page_setup.fitToWidth = 1
    ws.page_setup.fitToHeight = 1 if one_page else 0
    ws.sheet_properties.pageSetUpPr.fitToPage = True
    ws.page_margins.left = ws.page_margins.right = 0.4
    ws.page_margins.top = ws.page_margins.bottom = 0.5
    ws.print_area = ws.dimensions
