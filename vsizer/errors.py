"""Exception and warning hierarchy.

Every error a user can cause by giving bad input derives from :class:`VsizerError`;
the CLI turns it into one message per problem and exit code 2, never a traceback.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

#: Problem lines shown per kind before the rest are counted in one line.
MAX_LINES_PER_KIND = 20

# "{file} line|row {n}[, column '{c}']: expected {what}, got '{value}'."
_CELL_RE = re.compile(
    r"^(?P<file>.+?) (?:line|row) \d+(?:, column '(?P<column>[^']*)')?: "
    r"expected (?P<what>.+?), got '"
)
# "{file}: {text}" (a problem of a file as a whole)
_WHOLE_RE = re.compile(r"^(?P<file>[^:\s][^:]*?): (?P<text>.+)$")
_EXPECTED_GOT_RE = re.compile(r"^(?P<what>expected .+?), got '")

Kind = tuple[str | None, str]


def problem_kind(line: str) -> tuple[Kind, str]:
    """The kind of a problem line and the file it names.

    A kind is the column and the expected-what of a cell problem
    (``("cpu_mhz", "expected a positive number")``), or the text after the file
    name of a whole-file problem. The file is left out of the kind so that the
    same mistake in a folder of 1,600 files is one kind.
    """
    m = _CELL_RE.match(line)
    if m:
        return (m["column"], f"expected {m['what']}"), m["file"]
    m = _WHOLE_RE.match(line)
    if m:
        cell = _EXPECTED_GOT_RE.match(m["text"])
        if cell:  # "{file} {place in the file}: expected ..., got '...'."
            return (None, cell["what"]), m["file"].split(" ")[0]
        return (None, m["text"]), m["file"]
    return (None, line), ""


def more_like_it(first_line: str, kind: Kind, more: int, files: int) -> str:
    """The line that stands for ``more`` problems of ``kind`` not shown.

    ``files`` is the number of files the whole kind was found in.
    """
    file = problem_kind(first_line)[1]
    column, what = kind
    where = file + ("" if column is None else f", column '{column}'")
    head = f"{where}: " if where else ""
    short = what if len(what) <= 80 else what[:77] + "..."
    spread = f" in {files:,} files" if files > 1 else ""
    return f"{head}… and {more:,} more like it ({short.rstrip('.')}){spread}."


def cap_problems(lines: Sequence[str], limit: int = MAX_LINES_PER_KIND) -> list[str]:
    """The first ``limit`` lines of each kind, then one "… and N more like it" line.

    Order is kept; the summary follows the last line shown of its kind.
    """
    kinds = [problem_kind(line) for line in lines]
    total: dict[Kind, int] = {}
    files: dict[Kind, set[str]] = {}
    for kind, file in kinds:
        total[kind] = total.get(kind, 0) + 1
        files.setdefault(kind, set()).add(file)
    shown: dict[Kind, int] = {}
    first: dict[Kind, str] = {}
    out: list[str] = []
    for line, (kind, _file) in zip(lines, kinds, strict=True):
        n = shown.get(kind, 0) + 1
        shown[kind] = n
        first.setdefault(kind, line)
        if n <= limit:
            out.append(line)
        if n == limit and total[kind] > limit:
            out.append(
                more_like_it(first[kind], kind, total[kind] - limit, len(files[kind]))
            )
    return out


class VsizerError(Exception):
    """Base class of every error vsizer raises on purpose."""


class InputError(VsizerError, ValueError):
    """Bad input data. ``problems`` holds one line per problem, all of a file at once.

    Each line names the file, the row and column where they apply, what was
    expected and what was found, e.g.
    ``inventory.csv row 17, column 'cpu_mhz': expected a positive number, got 'n/a'.``
    Floods are capped (:func:`cap_problems`): the first
    :data:`MAX_LINES_PER_KIND` lines of a kind, then "… and N more like it".
    """

    def __init__(self, problems: str | Iterable[str]):
        if isinstance(problems, str):
            problems = [problems]
        self.problems: list[str] = cap_problems(list(problems))
        if not self.problems:
            raise ValueError("InputError needs at least one problem line")
        super().__init__("\n".join(self.problems))


class InventoryError(InputError):
    """A server list (inventory) could not be read or holds invalid values."""


class CatalogError(InputError):
    """A CPU or host catalog file could not be read or holds invalid values."""


class ConfigError(InputError):
    """A scenario TOML file or a parameter holds an invalid value or unknown key."""


class SeriesError(InputError):
    """A utilization time-series file could not be read or holds invalid values."""


class CatalogLookupError(VsizerError, KeyError):
    """A name was not found in a catalog. The message says where valid names are listed."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


class InfeasiblePlacementError(VsizerError):
    """No placement exists under the rules: names the constraint family and the VM."""


class BenchmarkRunError(VsizerError):
    """A benchmark tool failed or its output lacked the line that makes it valid."""


class EngineLostError(VsizerError):
    """A distributed engine lost a worker, a node or its scheduler during a run
    (``--engine ray``/``dask``): one line naming the engine and the work, exit 2."""


class OutputError(VsizerError):
    """An output file or directory cannot be written (bad path, no space, no permission)."""


class ModelRangeWarning(UserWarning):
    """A model was evaluated outside the range its source measured."""
