"""Spreadsheet-formula safety for user-originated strings.

A spreadsheet evaluates a cell whose text starts with ``=``, ``+``, ``-`` or
``@`` (and, through some import paths, a leading tab or carriage return) as a
formula. Server names, pools, groups, notes and warnings come from files the
user does not fully control (an inventory exported by another team, an RVTools
dump), so a name such as ``=HYPERLINK("http://x","y")`` or
``+cmd|' /C calc'!A0`` must reach the workbook as inert text.

Two layers protect the workbook:

1. :func:`excel_safe` prefixes such strings with a single quote ``'`` (the
   OWASP recommendation [1]_). The quote is part of the stored text, so the
   value stays inert when the sheet is later saved as CSV or copied into
   another tool.
2. :func:`set_safe_value` writes the result and forces the cell type to text
   (``data_type = 's'``). openpyxl turns every ``str`` that starts with ``=``
   into a formula cell (``data_type = 'f'``); forcing the type guards against
   that even if a trigger character were ever missed by layer 1.

References
----------
.. [1] OWASP Foundation, "CSV Injection,"
   https://owasp.org/www-community/attacks/CSV_Injection (list of trigger
   characters and the single-quote mitigation).
"""

from __future__ import annotations

import math
from typing import Any

from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE, Cell

__all__ = ["FORMULA_TRIGGERS", "MAX_CELL_CHARS", "excel_safe", "set_safe_value"]

#: First characters that make a spreadsheet treat text as a formula: the ASCII
#: set of OWASP plus the full-width forms a Japanese input method produces.
FORMULA_TRIGGERS: frozenset[str] = frozenset("=+-@\t\r＝＋－＠")

#: Longest text a cell may hold in Excel [characters].
MAX_CELL_CHARS = 32767

_QUOTE = "'"
_REPLACEMENT = "\ufffd"
_TRUNCATION_MARK = "…"


def _is_formula_like(text: str) -> bool:
    """Whether ``text`` starts with a trigger, directly or after whitespace."""
    if text[:1] in FORMULA_TRIGGERS:
        return True
    return text.lstrip()[:1] in FORMULA_TRIGGERS


def excel_safe(value: Any) -> Any:
    """Return ``value`` in a form no spreadsheet evaluates as a formula.

    Parameters
    ----------
    value : Any
        A cell value. Only ``str`` is changed; numbers (including negative
        ones), booleans, ``None`` and dates are returned unchanged.

    Returns
    -------
    Any
        For a string that starts with ``=``, ``+``, ``-``, ``@``, tab, carriage
        return or a full-width ``＝＋－＠`` (also after leading whitespace):
        the string prefixed with a single quote ``'``. Every string also has
        the control characters a worksheet cannot hold (XML 1.0 forbids
        them) replaced by U+FFFD and is cut to 32,767 characters, the
        Excel limit, ending in ``…`` when cut.

    Notes
    -----
    The rule is deliberately blunt: a name like ``-db01`` or a note ``-2+3``
    also gains the quote. Telling a harmless leading minus from a formula
    would need a formula parser; a visible quote is the cheaper mistake.

    Examples
    --------
    >>> excel_safe('=HYPERLINK("http://x","y")')
    '\\'=HYPERLINK("http://x","y")'
    >>> excel_safe("web01")
    'web01'
    >>> excel_safe(-3.5)
    -3.5
    """
    if not isinstance(value, str):
        return value
    text = ILLEGAL_CHARACTERS_RE.sub(_REPLACEMENT, value)
    if _is_formula_like(text):
        text = _QUOTE + text
    if len(text) > MAX_CELL_CHARS:
        text = text[: MAX_CELL_CHARS - len(_TRUNCATION_MARK)] + _TRUNCATION_MARK
    return text


def set_safe_value(cell: Cell, value: Any, number_format: str | None = None) -> None:
    """Write ``value`` into ``cell`` through :func:`excel_safe`, never as a formula.

    Parameters
    ----------
    cell : openpyxl.cell.cell.Cell
        The target cell.
    value : Any
        The value. Strings are neutralized and stored as text
        (``data_type = 's'``); a non-finite float (NaN, ±inf), which a
        workbook cannot represent, is written as an empty cell.
    number_format : str, optional
        Excel number format applied to the cell, e.g. ``"0.0%"``.
    """
    safe = excel_safe(value)
    if isinstance(safe, float) and not math.isfinite(safe):
        safe = None
    cell.value = safe
    if isinstance(safe, str):
        # openpyxl infers 'f' for text starting with '=', 'e' for '#N/A' etc.
        cell.data_type = "s"
    if number_format is not None:
        cell.number_format = number_format
