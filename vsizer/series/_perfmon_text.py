"""Performance Monitor text logs: which separator, the rows, typeperf's trailer.

Private to :mod:`vsizer.series.perfmon`. PDH writes two text layouts with the
same header, rows and quoting (Microsoft Learn, "relog" ``-f`` and "logman
create counter" ``-f``: ``csv`` comma-separated, ``tsv`` tab-separated; the
header cell says which: ``"(PDH-CSV 4.0) ..."`` or ``"(PDH-TSV 4.0) ..."``).
A log re-saved by a spreadsheet in a locale whose decimal mark is a comma
(Spanish, German, French, Russian Windows) is separated by ``;`` and writes
``0,25`` and ``22:43:06,663``; the header cell then holds no comma or tab.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from vsizer.errors import SeriesError
from vsizer.limits import csv_records

__all__ = ["Layout", "cut_trailer", "layout_of", "split_rows"]


@dataclass(frozen=True)
class Layout:
    """How a log's text is cut into cells and numbers."""

    delimiter: str = ","
    decimal_comma: bool = False

    @property
    def name(self) -> str:
        """``PDH-CSV``, ``PDH-TSV``, or ``';'-separated, decimal comma``."""
        if self.decimal_comma:
            return "';'-separated with decimal commas"
        return "PDH-TSV" if self.delimiter == "\t" else "PDH-CSV"


_TSV_HEAD = re.compile(r'^\s*"?\s*\(PDH-TSV\b', re.IGNORECASE)
_PDH_HEAD = re.compile(r'^\s*"?\s*\(PDH-[CT]SV\s*[\d.]+\)[^,\t";]*')


def layout_of(text: str) -> Layout:
    """The layout of a log from its first non-empty line: tab-separated when the
    header cell says PDH-TSV; ``;``-separated with decimal commas when the line
    after the PDH header cell goes on with a ``;`` (and no tab or comma);
    comma-separated otherwise."""
    first, start = "", 0
    while not first.strip() and start < len(text):  # no split of the whole text
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        first, start = text[start:end].lstrip("\ufeff"), end + 1
    if _TSV_HEAD.match(first):
        return Layout("\t")
    head = _PDH_HEAD.match(first)
    rest = first[head.end() :].lstrip(' "') if head else ""
    if rest.startswith(";") and "\t" not in first:
        return Layout(";", decimal_comma=True)
    return Layout()


def split_rows(
    text: str, label: str, layout: Layout
) -> tuple[list[list[str]], list[int]]:
    """CSV rows without empty lines (typeperf starts with one), and their lines.

    Cells are bounded by ``--max-cell-chars`` (:func:`vsizer.limits.csv_records`).
    """
    records = csv_records(
        text.lstrip("\ufeff"), label, error=SeriesError, delimiter=layout.delimiter
    )
    rows: list[list[str]] = []
    numbers: list[int] = []
    for number, row in records:
        if any(cell.strip() for cell in row):
            rows.append([cell.strip() for cell in row] if layout.decimal_comma else row)
            numbers.append(number)
    return rows, numbers


_TIME_START = re.compile(r"^\s*\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4}\s")


def cut_trailer(rows: list[list[str]], numbers: list[int]) -> list[tuple[int, str]]:
    """Remove and return (line, text) of the rows after the last one that starts with
    a date: typeperf's console messages (``Exiting, please wait...``, ``The command
    completed successfully.``, in the display language) when its output is
    redirected to a file. A cut row starting with a date stays, as an error."""
    end = len(rows)
    while end > 1 and not (rows[end - 1] and _TIME_START.match(rows[end - 1][0])):
        end -= 1
    if end <= 1:  # no dated row at all: leave the file to the usual errors
        return []
    trailer = [(n, ",".join(r)) for r, n in zip(rows[end:], numbers[end:], strict=True)]
    del rows[end:], numbers[end:]
    return trailer
