"""Open a read-only workbook without parsing a whole sheet that lacks ``<dimension>``.

openpyxl 3.1's read-only worksheet looks for the sheet's ``<dimension>``
element when the workbook is opened, with ``iterparse`` *end* events; the end
of ``<sheetData>``, where it gives up, comes after the last row. So a sheet
without ``<dimension>`` (valid: the element is optional, ECMA-376 Part 1,
18.3.1.35) is parsed in full at open, before vsizer can refuse it by its rows:
about 18 s for a 300,000-row sheet, per opening.

:func:`install` replaces that lookup by one with *start* events that stops at
the start of ``<sheetData>``. The result is the same (the declared boundaries,
or none); only the time differs. vsizer calls ``reset_dimensions`` before
reading rows anyway (:func:`vsizer.inventory._io.iter_sheet`).
"""

from __future__ import annotations

from typing import Any

__all__ = ["install"]

_STATE = {"installed": False}


def _get_size(self: Any) -> None:
    from openpyxl.worksheet._reader import DATA_TAG, DIMENSION_TAG
    from openpyxl.worksheet.dimensions import SheetDimension
    from openpyxl.xml.functions import iterparse

    src = self._get_source()
    try:
        for _event, element in iterparse(src, events=("start",)):
            if element.tag == DIMENSION_TAG:
                dims = SheetDimension.from_tree(element).boundaries
                if dims is not None:
                    (self._min_column, self._min_row, self._max_column,
                     self._max_row) = dims
                return
            if element.tag == DATA_TAG:
                return  # no <dimension>: stop before the rows
    finally:
        src.close()


def install() -> None:
    """Use :func:`_get_size` in openpyxl's read-only worksheets (3.1.x only; once)."""
    if _STATE["installed"]:
        return
    _STATE["installed"] = True
    import openpyxl
    from openpyxl.worksheet import _read_only

    cls = getattr(_read_only, "ReadOnlyWorksheet", None)
    if openpyxl.__version__.startswith("3.1.") and hasattr(cls, "_get_size"):
        cls._get_size = _get_size  # type: ignore[union-attr]
