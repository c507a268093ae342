"""Shared last step of every reader: checks across rows, defaults, the Inventory.

A reader turns each source row into a :class:`ServerRecord` (canonical values
already in canonical units, provenance already recorded in the
:class:`~vsizer.quality.QualityReport`) and collects cell problems in a
:class:`ProblemLog`. :func:`finish` then applies the rules that need the whole
list (unique names, known redundancy partners), fills the documented defaults
(vCPUs, pool, group) and the missing-data rules of :mod:`vsizer.missing`
(a missing CPU peak or average estimated from the other), raises one :class:`~vsizer.errors.InventoryError` with
every problem, or returns the :class:`~vsizer.inventory.model.Inventory`.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from itertools import repeat
from operator import is_not
from typing import Any, cast

import numpy as np
import pandas as pd

from vsizer import plausible
from vsizer.errors import InventoryError
from vsizer.inventory.model import COLUMNS, Inventory
from vsizer.missing import UNCHECKED_FIELDS, fill_cpu_util, record_unchecked
from vsizer.quality import QualityReport
from vsizer.units import normalize_text

#: Pool of servers whose file names none (assumed).
DEFAULT_POOL = "default"

_SPLIT_NAMES = re.compile(r"[;,、\s]+")
_NO_PARTNER = frozenset({"なし", "無し", "無", "none", "no", "n/a"})


class ProblemLog:
    """Problems found in one file, one line each, in the house format.

    ``{file} row {r}, column '{header}': expected {what}, got '{value}'.``
    (with ``sheet '{sheet}'`` after the file name for workbooks).
    """

    def __init__(
        self, file: str, sheet: str | None = None,
        sheet_files: dict[str, str] | None = None,
    ):
        self.file = file
        self.sheet = sheet
        #: sheet -> the file holding it, for exports of one file per sheet
        #: (RVTools' per-tab CSV): lines then name that file, not a sheet.
        self.sheet_files = {k.casefold(): v for k, v in (sheet_files or {}).items()}
        self._found: list[tuple[int, str]] = []  # (row, line); row 0 = whole file

    @property
    def lines(self) -> list[str]:
        """Problem lines: whole-file ones first, then by row, in order found."""
        return [line for _, line in sorted(self._found, key=lambda t: t[0])]

    @property
    def prefix(self) -> str:
        return self._prefix(self.sheet)

    def _prefix(self, sheet: str | None) -> str:
        if sheet is None:
            return self.file
        if sheet.casefold() in self.sheet_files:
            return self.sheet_files[sheet.casefold()]
        return f"{self.file} sheet '{sheet}'"

    def cell(
        self,
        row: int,
        header: str,
        expected: str,
        got: Any,
        *,
        sheet: str | None = None,
    ) -> None:
        """Record a bad cell (``sheet`` overrides the log's sheet)."""
        shown = "" if got is None else str(got)
        prefix = self.prefix if sheet is None else self._prefix(sheet)
        self._found.append(
            (row, f"{prefix} row {row}, column '{header}': expected {expected}, "
                  f"got '{shown}'.")
        )

    def line(self, row: int, text: str) -> None:
        """Record a problem of a row that is not one cell's
        (``{file} row {r}: {text}``), e.g. two columns that disagree."""
        self._found.append((row, f"{self.prefix} row {row}: {text}"))

    def whole_file(self, text: str) -> None:
        """Record a problem of the file (or sheet) as a whole (``{file}: {text}``,
        ``{file} sheet '{sheet}': {text}`` in a workbook)."""
        self._found.append((0, f"{self.prefix}: {text}"))

    def raise_if_any(self) -> None:
        if self._found:
            raise InventoryError(self.lines)


@dataclass
class ServerRecord:
    """One server as read: canonical values plus where each came from.

    ``cells[field] = (header, raw text)`` locates a value of the record's
    row for messages; ``where[field] = (row, header, sheet, raw text)`` one
    read from another row or sheet (RVTools' vCPU, vMemory); ``reason`` is set
    for a server that is read but not planned. ``kind`` ('server' or 'vm')
    overrides the reader's kind for this row's plausible ranges (a reader that
    knows row by row whether it holds a VM, e.g. from a "Server type" column).
    """

    name: str
    row: int
    values: dict[str, Any] = field(default_factory=dict)
    cells: dict[str, tuple[str, str]] = field(default_factory=dict)
    where: dict[str, tuple[int, str, str | None, str]] = field(default_factory=dict)
    reason: str | None = None
    kind: str | None = None


def clean_text(value: Any) -> str | None:
    """Cell -> NFKC-normalized stripped text, ``None`` when empty.

    Whole floats print without ``.0`` (a server named 101 stays ``'101'``).
    """
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = normalize_text(value)
    return text or None


def split_names(value: Any) -> list[str]:
    """Partner names from a cell: separated by ``;``, ``,``, ``、`` or spaces.

    ``なし``/``none``/``-`` mean no partner.
    """
    text = clean_text(value)
    if text is None or text.casefold() in _NO_PARTNER or text in ("-", "—"):
        return []
    return [n for n in _SPLIT_NAMES.split(text) if n]


def finish(
    records: list[ServerRecord],
    *,
    problems: ProblemLog,
    quality: QualityReport,
    source: str,
    source_format: str,
    metadata: dict[str, Any],
    name_header: str = "name",
    has_pool: bool = True,
    has_group: bool = True,
    kind: str = "server",
) -> Inventory:
    """Cross-row checks, defaults, and the final :class:`Inventory`.

    Parameters
    ----------
    records : list of ServerRecord
        Every row read, planned and excluded, in file order.
    problems : ProblemLog
        Cell problems found so far; more are added here, then all are raised.
    quality : QualityReport
        Provenance recorded so far (defaults are added here).
    source, source_format, metadata
        Passed through to the :class:`Inventory`.
    name_header : str
        The file's header of the name column, for duplicate-name messages.
    has_pool, has_group : bool
        Whether the file had a pool / group column at all.
    kind : {'server', 'vm'}
        What the rows are, for the plausible ranges (:func:`vsizer.plausible.ranges`):
        a reader whose rows are virtual machines passes 'vm' (a
        :attr:`ServerRecord.kind` overrides it per row).
    """
    _check_unique(records, problems, name_header)
    planned = [r for r in records if r.reason is None]
    excluded = [r for r in records if r.reason is not None]
    _check_partners(planned, excluded, problems, quality)
    check_ranges(planned, problems, quality, kind)
    problems.raise_if_any()

    _fill_missing(planned, quality)
    fill = _Defaults(quality, has_pool=has_pool, has_group=has_group)
    for rec in planned:
        fill(rec)
        _check_peak(rec, quality)
    if not has_pool and planned:
        quality.note(f"no pool column: every server is in pool '{DEFAULT_POOL}'")
    if not has_group and planned:
        quality.note("no group column: each server's group is its pool")

    servers = frame(planned)
    excl = pd.DataFrame(
        {
            "name": pd.Series([r.name for r in excluded], dtype="string"),
            "reason": pd.Series([r.reason for r in excluded], dtype="string"),
        }
    )
    metadata.setdefault("n_rows", len(records))
    return Inventory(
        servers=servers,
        excluded=excl,
        quality=quality,
        source=source,
        source_format=source_format,
        metadata=metadata,
    )


def check_ranges(
    planned: list[ServerRecord],
    problems: ProblemLog,
    quality: QualityReport,
    kind: str = "server",
) -> None:
    """Every number read must be finite and within its field's limits for its
    kind (:func:`vsizer.plausible.ranges`; a VM is not a physical server): an
    error line for each one that is not (the value is dropped); one warning per
    field and kind for values outside the usual band."""
    unusual: dict[tuple[str, str], list[str]] = {}
    seen: dict[tuple[str, Any, str], tuple[str | None, bool]] = {}  # a fleet repeats
    for rec in planned:
        rec_kind = rec.kind or kind
        for f, value in list(rec.values.items()):
            t = type(value)
            if t is not float and t is not int and (
                t is bool or not isinstance(value, (int, float))
            ):
                continue
            key = (f, value, rec_kind)
            verdict = seen.get(key)
            if verdict is None:
                verdict = seen[key] = plausible.check(f, value, rec_kind)
            error, odd = verdict
            if error is None:
                if odd:
                    unusual.setdefault((f, rec_kind), []).append(rec.name)
                continue
            del rec.values[f]
            if f in rec.where:
                row, header, sheet, raw = rec.where[f]
            else:
                header, raw = rec.cells.get(f, (f, f"{value:g}"))
                row, sheet = rec.row, None
            problems.cell(row, header, error, raw, sheet=sheet)
    for (f, rec_kind), names in unusual.items():
        quality.warn(f"unusual_{f}", plausible.warning_message(f, rec_kind), names)


def frame(records: list[ServerRecord]) -> pd.DataFrame:
    """Canonical DataFrame of ``records`` (every column of COLUMNS, in order)."""
    data: dict[str, Any] = {}
    rows = [rec.values for rec in records]
    for col, (dtype, _) in COLUMNS.items():
        values = list(map(dict.get, rows, repeat(col)))  # rec.values.get(col)
        data[col] = pd.Series(_array(values, dtype))
    data["name"] = pd.Series(pd.array([r.name for r in records], dtype="string"))
    return pd.DataFrame(data, columns=list(COLUMNS))


def _array(values: list[Any], dtype: str) -> Any:
    """``pd.array(values, dtype)``; a column with no value (most columns of a
    fleet's list) as its first cell repeated: the same array, data and mask,
    without reading every None."""
    if values and not any(map(is_not, values, repeat(None))):
        return pd.array(values[:1], dtype=cast(Any, dtype)).take(
            np.zeros(len(values), dtype=np.intp)
        )
    return pd.array(values, dtype=cast(Any, dtype))


def _check_unique(
    records: list[ServerRecord], problems: ProblemLog, header: str
) -> None:
    first: dict[str, int] = {}
    for rec in records:
        key = rec.name.casefold()
        if key in first:
            expected = f"a name not already used on row {first[key]}"
            problems.cell(rec.row, header, expected, rec.name)
        else:
            first[key] = rec.row


class _Names:
    """The servers a partner name can mean, looked up in two dicts made once (a
    scan of every name per partner was quadratic: 20,000 rows with partners took
    113 CPU s, a million would take days)."""

    def __init__(self, names: list[str]):
        keys = [n.casefold() for n in names]
        self.same = _Lookup(keys, names)
        self.short = _Lookup([k.split(".")[0] for k in keys], names)

    def match(self, wanted: str) -> list[str]:
        """Servers a partner name means: the same name in any case, else the names
        whose host part (before the first '.') equals it, with or without domain
        (``web02`` = ``WEB02.contoso.local``). More than one is ambiguous."""
        key = wanted.casefold()
        return self.same.get(key) or self.short.get(key.split(".")[0])


class _Lookup:
    """The names under each key, in file order: a dict made at C speed for the
    keys of one name (a million servers' names: no list per name), lists for the
    keys of several."""

    def __init__(self, keys: list[str], names: list[str]):
        self.one = dict(zip(keys, names, strict=True))
        self.many: dict[str, list[str]] = {}
        if len(self.one) < len(keys):  # a key of several names
            counts = Counter(keys)
            for key, n in zip(keys, names, strict=True):
                if counts[key] > 1:
                    self.many.setdefault(key, []).append(n)

    def get(self, key: str) -> list[str]:
        """The names under ``key`` (a new list; empty: none)."""
        many = self.many.get(key)
        if many is not None:
            return list(many)
        one = self.one.get(key)
        return [] if one is None else [one]


def _check_partners(
    planned: list[ServerRecord],
    excluded: list[ServerRecord],
    problems: ProblemLog,
    quality: QualityReport,
) -> None:
    """Partners must name servers of the file; drop excluded ones; make pairs mutual."""
    # unique names (a duplicate is reported by _check_unique already)
    everyone = _Names(list(dict.fromkeys([r.name for r in planned + excluded])))
    gone = {r.name for r in excluded}
    partners: dict[str, list[str]] = {}
    for rec in planned:
        names = rec.values.get("redundant_with")
        if names is None:
            continue
        header, raw = rec.cells.get("redundant_with", ("redundant_with", str(names)))
        found = {n: everyone.match(n) for n in str(names).split(";") if n}
        unknown = [n for n, m in found.items() if not m or m == [rec.name]]
        ambiguous = [(n, m) for n, m in found.items() if len(m) > 1]
        if unknown:
            listed = ", ".join(f"'{n}'" for n in unknown)
            problems.cell(
                rec.row,
                header,
                f"names of other servers in the list, separated by ';' ({listed} "
                f"{'is' if len(unknown) == 1 else 'are'} not)",
                raw,
            )
        for n, m in ambiguous:
            both = " and ".join(f"'{x}'" for x in m)
            problems.cell(rec.row, header, f"one server per name ('{n}' matches "
                          f"{both}; write the full name)", raw)
        if unknown or ambiguous:
            continue
        matched = [m[0] for m in found.values()]
        keep = [n for n in matched if n not in gone]
        dropped = [n for n in matched if n in gone]
        if dropped:
            quality.note(
                f"{rec.name}: redundancy partner(s) {', '.join(dropped)} not migrated; "
                "constraint dropped"
            )
        partners[rec.name] = keep
    if problems.lines:
        return
    # Make every pair mutual: anti-affinity is symmetric.
    by_name = {r.name: r for r in planned}
    for name, keep in list(partners.items()):
        for other in keep:
            mine = partners.setdefault(other, [])
            if name not in mine:
                mine.append(name)
                if by_name[other].values.get("redundant_with") is None:
                    quality.record(
                        other, "redundant_with", "derived", f"named by {name}"
                    )
                else:
                    quality.note(f"{other}: added {name} as partner (named by {name})")
    for name, keep in partners.items():
        by_name[name].values["redundant_with"] = ";".join(keep) if keep else None


class _Defaults:
    """The defaults of a record (vCPUs from sockets x cores, pool, group,
    migrate) with their quality records: the ``(status, note)`` pair of each
    default made once (per pool for the group), shared by the records."""

    def __init__(self, quality: QualityReport, *, has_pool: bool, has_group: bool):
        self.entries = quality.entries
        note = "no pool column" if not has_pool else "pool not given"
        self.pool = ("assumed", f"{note}: '{DEFAULT_POOL}'")
        self.group_note = "no group column" if not has_group else "group not given"
        self.groups: dict[tuple[type, Any], tuple[str, str]] = {}

    def __call__(self, rec: ServerRecord) -> None:
        v = rec.values
        entry = None
        if v.get("vcpus") is None and v.get("sockets") is not None and (
            v.get("cores_per_socket") is not None
        ):
            v["vcpus"] = int(v["sockets"]) * int(v["cores_per_socket"])
            entry = self.entries.setdefault(rec.name, {})
            entry["vcpus"] = _VCPUS
        if v.get("pool") is None:
            v["pool"] = DEFAULT_POOL
            entry = self.entries.setdefault(rec.name, {}) if entry is None else entry
            entry["pool"] = self.pool
        if v.get("group") is None:
            pool = v["group"] = v["pool"]
            key = (type(pool), pool)
            pair = self.groups.get(key)
            if pair is None:
                pair = self.groups[key] = (
                    "assumed", f"{self.group_note}: the pool '{pool}'")
            entry = self.entries.setdefault(rec.name, {}) if entry is None else entry
            entry["group"] = pair
        if v.get("migrate") is None:
            v["migrate"] = True
            entry = self.entries.setdefault(rec.name, {}) if entry is None else entry
            entry["migrate"] = _MIGRATE


_VCPUS = ("derived", "sockets x cores_per_socket")
_MIGRATE = ("assumed", "not stated: migrated")


def _fill_missing(planned: list[ServerRecord], quality: QualityReport) -> None:
    """Apply :mod:`vsizer.missing`: CPU average/peak gaps, unchecked dimensions."""
    names = [r.name for r in planned]
    record_unchecked(
        names, {f: [r.values.get(f) for r in planned] for f in UNCHECKED_FIELDS},
        quality,
    )
    avg = [_nan_if_none(r.values.get("cpu_avg_util")) for r in planned]
    peak = [_nan_if_none(r.values.get("cpu_peak_util")) for r in planned]
    fill = fill_cpu_util(avg, peak)
    if fill.avg_estimated.any() or fill.peak_estimated.any():
        quality.note(
            f"peak-to-average CPU factor {fill.factor.value:g}: {fill.factor.note}"
        )
    for i in np.flatnonzero(fill.peak_estimated | fill.avg_estimated).tolist():
        rec = planned[i]
        for f, est, values in (
            ("cpu_peak_util", fill.peak_estimated, fill.peak),
            ("cpu_avg_util", fill.avg_estimated, fill.avg),
        ):
            if est[i]:
                rec.values[f] = float(values[i])
                quality.record(rec.name, f, "estimated", fill.note(f, i))


def _nan_if_none(x: Any) -> float:
    return float("nan") if x is None else float(x)


def _check_peak(rec: ServerRecord, quality: QualityReport) -> None:
    avg, peak = rec.values.get("cpu_avg_util"), rec.values.get("cpu_peak_util")
    if avg is None or peak is None or peak >= avg:
        return
    rec.values["cpu_peak_util"] = avg
    text = (
        f"peak {peak * 100:g} % below average {avg * 100:g} % in the file "
        f"(row {rec.row}); peak set to the average"
    )
    quality.record(rec.name, "cpu_peak_util", "assumed", text)
    quality.note(f"{rec.name}: {text}")
