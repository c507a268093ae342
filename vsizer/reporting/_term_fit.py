"""Rich tables that fit the terminal (issue 27): no column is squeezed into an
ellipsis (``0…``, ``dimensi…``). Short columns (numbers, codes) keep the
width of their longest cell, their header wraps at words; text columns wrap at words and fold a long word; when
even that cannot fit, the columns named droppable are left out, last first,
and the caption says which.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

from rich import box
from rich.cells import cell_len
from rich.console import Console, ConsoleRenderable, RenderHook
from rich.segment import Segment
from rich.table import Table
from rich.text import Text

__all__ = ["FitTables", "fit_table"]

#: A column whose every cell is at most this wide is kept whole (never wrapped).
SHORT = 14

#: Narrowest a wrapping text column is let to become, and the width asked for
#: a longer text (wider ones wrap).
TEXT_MIN = 10
TEXT_WANT = 18


def _plain(cell: object) -> str:
    return cell.plain if isinstance(cell, Text) else str(cell)


def _widths(table: Table) -> tuple[list[int], list[int]]:
    """Per column: the width it must keep (its longest cell when short, else
    TEXT_MIN) and the width it reads well at (header words whole, text up
    to TEXT_WANT)."""
    floor, want = [], []
    for col in table.columns:
        cells = [_plain(c) for c in col._cells]
        longest = max((cell_len(line) for c in cells for line in c.splitlines()), default=0)
        word = max((cell_len(w) for w in _plain(col.header).split()), default=0)
        short = longest <= SHORT
        floor.append(longest if short else TEXT_MIN)
        want.append(max(longest, word) if short else max(TEXT_MIN, word, min(longest, TEXT_WANT)))
    return floor, want


def _rendered(table: Table, width: int) -> int:
    """The widest line of ``table`` drawn at ``width`` cells."""
    console = Console(width=width, file=io.StringIO(), color_system=None)
    lines = Segment.split_lines(console.render(table, console.options))
    return max((sum(cell_len(seg.text) for seg in line) for line in lines), default=0)


def fit_table(table: Table, width: int, droppable: Sequence[str] = ()) -> Table:
    """Make ``table`` readable at ``width`` cells (in place; returned).

    Steps, each only while the table is still too wide: leave out the
    ``droppable`` columns (named by header), the last named first; let text
    columns narrow to TEXT_MIN; draw it without a frame; leave out the last
    columns. The caption names what was left out.
    """
    floor, want = _widths(table)
    for col, good in zip(table.columns, want, strict=True):
        col.overflow = "fold"  # a word longer than its column breaks, never '…'
        col.no_wrap = False
        col.min_width = good
    dropped: list[str] = []
    for name in reversed(list(droppable)):
        idx = [i for i, c in enumerate(table.columns) if _plain(c.header) == name]
        if not idx or _rendered(table, width) <= width:
            continue
        table.columns.pop(idx[0])
        floor.pop(idx[0])
        dropped.insert(0, name)
    if _rendered(table, width) > width:
        for col, low in zip(table.columns, floor, strict=True):
            col.min_width = low
    if _rendered(table, width) > width:  # no frame: one blank between columns
        table.box, table.show_edge, table.padding = box.SIMPLE_HEAD, False, (0, 1, 0, 0)
    while len(table.columns) > 1 and _rendered(table, width) > width:
        dropped.append(_plain(table.columns.pop().header))
    if dropped:
        note = "left out at this width: " + ", ".join(dropped)
        table.caption = f"{table.caption}; {note}" if table.caption else note
        table.caption_justify = "left"
    return table


class FitTables(RenderHook):
    """A console render hook fitting every printed :class:`~rich.table.Table`
    to the console's width (``console.push_render_hook(FitTables(console))``)."""

    def __init__(self, console: Console) -> None:
        self.console = console

    def process_renderables(
        self, renderables: list[ConsoleRenderable]
    ) -> list[ConsoleRenderable]:
        for r in renderables:
            if isinstance(r, Table):
                fit_table(r, self.console.width)
        return renderables
