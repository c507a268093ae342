"""Low-level worksheet writing shared by the sheets of the plan workbook.

:class:`SheetWriter` lays tables out top to bottom on one worksheet: the first
table's header is row 1 (frozen), later tables follow after a blank row and a
section title. Every cell goes through :func:`~vsizer.reporting.safe.set_safe_value`,
so no string from the plan can become a formula. The writer records the
display width of each cell to fit the column widths, and the range of the table
that gets the sheet's autofilter (a worksheet holds one).
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from openpyxl.styles import Alignment, Border, Font, PatternFill, Side
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.worksheet import Worksheet

from vsizer.placement.problem import DIMENSIONS
from vsizer.reporting.labels import LABELS, label, with_unit
from vsizer.reporting.safe import set_safe_value

# Number formats ---------------------------------------------------------------
#: Utilizations and other fractions.
PCT = "0.0%"
#: Power [W], energy [kWh], money and counts.
INT = "#,##0"
#: Ratios (consolidation ratio, PUE, vCPUs per core).
RATIO = "0.00"
#: Quantities with one meaningful decimal (GiB, capacity units, U).
DEC1 = "#,##0.0"
#: Quantities with two meaningful decimals (price per kWh, score per core).
DEC2 = "#,##0.00"

# complete fonts (the default theme font plus an attribute): a Font without a
# name falls back to the viewer's default face
_HEADER_FONT = Font(name="Calibri", family=2, scheme="minor", size=11, bold=True)
_HEADER_FILL = PatternFill(
    fill_type="solid", start_color="FFDDEBF7", end_color="FFDDEBF7"
)
_HEADER_BORDER = Border(bottom=Side(style="thin", color="FF808080"))
_HEADER_ALIGN = Alignment(vertical="center")
_TITLE_FONT = Font(name="Calibri", family=2, scheme="minor", size=12, bold=True)
_NOTE_FONT = Font(name="Calibri", family=2, scheme="minor", size=11, color="FF808080")

_MIN_WIDTH = 6.0
_MAX_WIDTH = 60.0
_PADDING = 2.0
_FILTER_BUTTON = 2.0

#: Order in which host dimensions are shown; others follow alphabetically.
DIMENSION_ORDER: tuple[str, ...] = DIMENSIONS


class Fmt(NamedTuple):
    """A cell value with its own number format, overriding the column's."""

    value: Any
    fmt: str | None


#: One row of an item/value/key table: (label key, plan path, number format,
#: unit). The unit may hold ``{currency}``; the path is dotted, e.g.
#: ``"power.before_w"``.
Figure = tuple[str, str, str | None, str | None]


def lookup(plan: Mapping[str, Any], path: str) -> Any:
    """Value at dotted ``path`` of ``plan``; ``None`` when a part is missing.

    Examples
    --------
    >>> lookup({"power": {"before_w": 10.0}}, "power.before_w")
    10.0
    """
    node: Any = plan
    for part in path.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


@dataclass(frozen=True)
class TableRange:
    """Where a table landed: 1-based rows and columns, header row included."""

    header_row: int
    last_row: int
    first_col: int
    last_col: int

    @property
    def first_row(self) -> int:
        """First data row (the row after the header)."""
        return self.header_row + 1

    @property
    def ref(self) -> str:
        """A1-style range of header and data, e.g. ``"A1:D7"``."""
        return (
            f"{get_column_letter(self.first_col)}{self.header_row}:"
            f"{get_column_letter(self.last_col)}{self.last_row}"
        )


def text_width(text: str) -> float:
    """Display width of ``text`` in character cells (East Asian wide = 2).

    Parameters
    ----------
    text : str
        Text as shown in a cell.

    Returns
    -------
    float
        Width in Excel character units; the widest line of multi-line text.
    """
    return max(
        (
            sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in line)
            for line in text.split("\n")
        ),
        default=0,
    )


def display_text(value: Any, number_format: str | None) -> str:
    """Approximate text Excel shows for ``value`` under ``number_format``.

    Used only to size columns, so it covers the formats of this module.
    """
    if value is None:
        return ""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, float) and not math.isfinite(value):
        return ""
    if number_format == PCT:
        return f"{value * 100:.1f}%"
    if number_format == INT:
        return f"{value:,.0f}"
    if number_format in (RATIO, DEC2):
        return f"{value:,.2f}"
    if number_format == DEC1:
        return f"{value:,.1f}"
    return f"{value:.10g}" if isinstance(value, float) else str(value)


def ordered_dimensions(dims: Iterable[str]) -> list[str]:
    """Host dimensions in :data:`DIMENSION_ORDER`, unknown ones after, sorted."""
    seen = set(dims)
    known = [d for d in DIMENSION_ORDER if d in seen]
    return known + sorted(seen - set(DIMENSION_ORDER))


class SheetWriter:
    """Write tables top to bottom on one worksheet, in one language.

    Parameters
    ----------
    ws : openpyxl.worksheet.worksheet.Worksheet
        The (empty) worksheet.
    lang : {"en", "ja"}
        Language of labels and translated values.
    """

    def __init__(self, ws: Worksheet, lang: str) -> None:
        self.ws = ws
        self.lang = lang
        self.row = 1
        self.tables: list[TableRange] = []
        self._filter: TableRange | None = None
        self._widths: dict[int, float] = {}

    # -- text helpers --------------------------------------------------------------
    def t(self, key: str, **fields: Any) -> str:
        """Label ``key`` in the sheet's language."""
        return label(key, self.lang, **fields)

    def yes_no(self, flag: bool | None) -> str | None:
        """``Yes``/``No`` (``はい``/``いいえ``) for a boolean; ``None`` stays empty."""
        if flag is None:
            return None
        return self.t("yes" if flag else "no")

    def enum(self, value: Any) -> Any:
        """Translate an enumerated plan value (``catalog``, ``peak``, ...) if known."""
        if not isinstance(value, str):
            return value
        key = "value_" + value.replace("-", "_")
        return self.t(key) if key in LABELS else value

    def dim(self, dim: str) -> str:
        """Display name of a host dimension or lower-bound family."""
        for key in (f"dim_{dim}", f"value_{dim}"):
            if key in LABELS:
                return self.t(key)
        return dim

    def field(self, name: str) -> str:
        """Display name of a plan field (``cpu_capacity`` -> ``CPU capacity``)."""
        return self.t(name) if name in LABELS else name

    # -- layout --------------------------------------------------------------------
    def _put(
        self, row: int, col: int, value: Any, fmt: str | None, measure: bool = True
    ) -> None:
        cell = self.ws.cell(row=row, column=col)
        set_safe_value(cell, value, fmt)
        if not measure:
            return
        shown = display_text(cell.value, fmt)
        width = text_width(shown)
        if width > self._widths.get(col, 0.0):
            self._widths[col] = width

    def title(self, text: str) -> None:
        """Write a section title on the current row (not counted in widths)."""
        cell = self.ws.cell(row=self.row, column=1)
        set_safe_value(cell, text)
        cell.font = _TITLE_FONT
        self.row += 1

    def table(
        self,
        headers: Sequence[str],
        rows: Iterable[Sequence[Any]],
        formats: Sequence[str | None] | None = None,
        *,
        autofilter: bool = False,
        note_col: int | None = None,
    ) -> TableRange:
        """Write a header row and data rows at the current row.

        Parameters
        ----------
        headers : sequence of str
            Column headers.
        rows : iterable of sequences
            Data rows, each as long as ``headers``. A :class:`Fmt` value
            carries its own number format.
        formats : sequence of str or None, optional
            Number format per column (``None`` = General).
        autofilter : bool, default False
            Put the sheet's autofilter on this table. Without any such table
            the first table of the sheet gets it.
        note_col : int, optional
            1-based column of secondary text (grey, not counted when fitting
            widths: it may spill into the empty cell on its right).

        Returns
        -------
        TableRange
            Where the table landed.
        """
        fmts = list(formats) if formats is not None else [None] * len(headers)
        if len(fmts) != len(headers):
            raise ValueError(
                f"table(): {len(headers)} headers but {len(fmts)} number formats"
            )
        header_row = self.row
        for col, text in enumerate(headers, start=1):
            self._put(header_row, col, text, None)
            cell = self.ws.cell(row=header_row, column=col)
            cell.font = _HEADER_FONT
            cell.fill = _HEADER_FILL
            cell.border = _HEADER_BORDER
            cell.alignment = _HEADER_ALIGN
            # room for the autofilter drop-down button
            widened = text_width(str(cell.value)) + _FILTER_BUTTON
            self._widths[col] = max(self._widths.get(col, 0.0), widened)
        row = header_row
        for values in rows:
            row += 1
            if len(values) != len(headers):
                raise ValueError(
                    f"table(): row {row} has {len(values)} values for "
                    f"{len(headers)} headers"
                )
            for col, (value, fmt) in enumerate(zip(values, fmts, strict=True), start=1):
                if isinstance(value, Fmt):
                    value, fmt = value
                self._put(row, col, value, fmt, measure=col != note_col)
                if col == note_col:
                    self.ws.cell(row=row, column=col).font = _NOTE_FONT
        rng = TableRange(header_row, row, 1, len(headers))
        self.tables.append(rng)
        if autofilter:
            self._filter = rng
        self.row = row + 2
        return rng

    def section(
        self,
        title: str,
        headers: Sequence[str],
        rows: Iterable[Sequence[Any]],
        formats: Sequence[str | None] | None = None,
        *,
        autofilter: bool = False,
    ) -> TableRange:
        """A titled table: :meth:`title` then :meth:`table`."""
        self.title(title)
        return self.table(headers, rows, formats, autofilter=autofilter)

    def items(
        self,
        rows: Iterable[tuple[str, Any, str | None, str]],
        *,
        autofilter: bool = False,
    ) -> TableRange:
        """An item/value/key table; each row is ``(label, value, format, key)``.

        The key column holds where the value comes from, as a dotted path in
        the plan (``summary.hosts``), so that a reader can trace a figure to
        ``plan.json`` and a script can find it whatever the language.
        """
        return self.table(
            [self.t("item"), self.t("value"), self.t("key")],
            [[text, Fmt(value, fmt), key] for text, value, fmt, key in rows],
            autofilter=autofilter,
            note_col=3,
        )

    def figure_rows(
        self,
        plan: Mapping[str, Any],
        figures: Iterable[Figure],
        *,
        enums: Iterable[str] = (),
        **fields: Any,
    ) -> list[tuple[str, Any, str | None, str]]:
        """Rows for :meth:`items` from plan values; the key column gets the path.

        Parameters
        ----------
        plan : dict
            The plan.
        figures : iterable of Figure
            ``(label key, plan path, number format, unit)`` per row. A figure
            whose key is absent from the plan (an optional key) is skipped; a
            ``null`` value gives an empty cell.
        enums : iterable of str, optional
            Paths whose value is an enumerated word to translate
            (``parameters.cpu_basis``: ``peak`` -> ``ピーク``).
        **fields
            Values for template labels and units (``years``, ``currency``).

        Returns
        -------
        list of tuple
            ``(label text with unit, value, number format, path)``.
        """
        enum_paths = set(enums)
        rows = []
        for key, path, fmt, unit in figures:
            parent, _, leaf = path.rpartition(".")
            node = lookup(plan, parent) if parent else plan
            if not isinstance(node, Mapping) or leaf not in node:
                continue
            value = node[leaf]
            if isinstance(value, bool):
                value = self.yes_no(value)
            elif path in enum_paths:
                value = self.enum(value)
            unit_text = unit.format(**fields) if unit else None
            rows.append((with_unit(self.t(key, **fields), unit_text), value, fmt, path))
        return rows

    def finish(self, freeze_col: int = 1) -> None:
        """Freeze the first header row, set the autofilter, fit column widths.

        Parameters
        ----------
        freeze_col : int, default 1
            First unfrozen column (2 also keeps column A in view).
        """
        if self.tables:
            first = self.tables[0]
            self.ws.freeze_panes = self.ws.cell(
                row=first.header_row + 1, column=freeze_col
            )
            self.ws.auto_filter.ref = (self._filter or first).ref
        for col, width in sorted(self._widths.items()):
            fitted = min(max(width + _PADDING, _MIN_WIDTH), _MAX_WIDTH)
            self.ws.column_dimensions[get_column_letter(col)].width = fitted
