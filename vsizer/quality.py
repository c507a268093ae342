"""Data-quality report: for every server, which fields were given, derived or assumed.

Readers record what the file gave; normalization records what it derived (a
catalog score) or assumed (a clock-rate fallback). The overall confidence is a
weighted share of the fields the plan depends on.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any, Literal

Status = Literal["given", "derived", "estimated", "assumed", "missing"]

#: Weight of each status in the confidence score [fraction]. ``derived`` is
#: computed from given values by a rule that holds (a catalog score for a named
#: CPU); ``estimated`` comes from related data by a model that may be off (a
#: VM's share of its host's measured CPU); ``assumed`` is a default or a guess.
STATUS_WEIGHT: dict[str, float] = {
    "given": 1.0,
    "derived": 0.75,
    "estimated": 0.5,
    "assumed": 0.25,
    "missing": 0.0,
}

#: Statuses that become plan warnings (a value the plan did not read).
WARN_STATUSES: tuple[str, ...] = ("estimated", "assumed")

#: Default confidence below which a plan's headline says it rests on assumptions.
DEFAULT_MIN_CONFIDENCE = 0.7


#: Digits a confidence is rounded to, in the plan document and in every test
#: against a threshold (so the warning and the summary flag never disagree).
CONFIDENCE_DIGITS = 4


def below_threshold(confidence: float, threshold: float) -> bool:
    """Whether ``confidence`` is below ``threshold`` as the plan shows it: both
    the ``low_confidence`` warning and the summary flag decide with this, on
    the figure rounded to :data:`CONFIDENCE_DIGITS` (a confidence of 0.69999
    is shown and treated as 0.7, never "70 %, below 70 %")."""
    return round(confidence, CONFIDENCE_DIGITS) < threshold


@dataclass(frozen=True)
class PlanWarning:
    """One counted warning of a plan: a stable ``code`` (snake_case, for
    machines), a ``message`` in words a user can act on, and the servers it
    concerns (empty for a plan-wide warning)."""

    code: str
    message: str
    servers: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "servers": list(self.servers)}

#: Fields the plan depends on; confidence is computed over these.
KEY_FIELDS: tuple[str, ...] = (
    "cpu_capacity",
    "cpu_avg_util",
    "cpu_peak_util",
    "mem_gib",
    "power_w",
)


@dataclass
class QualityReport:
    """Per-server field provenance plus file-level notes.

    ``entries[name][field] = (status, note)``; a later record for the same
    field replaces an earlier one (normalization refines what a reader said).
    """

    entries: dict[str, dict[str, tuple[str, str]]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    warnings: list[PlanWarning] = field(default_factory=list)

    def warn(self, code: str, message: str, servers: Any = ()) -> None:
        """Add a warning; one with the same code and message gains the servers."""
        names = tuple(str(s) for s in servers)
        for i, w in enumerate(self.warnings):
            if w.code == code and w.message == message:
                merged = w.servers + tuple(n for n in names if n not in w.servers)
                self.warnings[i] = PlanWarning(code, message, merged)
                return
        self.warnings.append(PlanWarning(code, message, names))

    def record(
        self, server: str, field_name: str, status: Status, note: str = ""
    ) -> None:
        pair = _BARE.get(status) if not note else None
        if pair is None:
            if status not in STATUS_WEIGHT:
                raise ValueError(f"unknown quality status {status!r}")
            pair = (status, note)
        self.entries.setdefault(server, {})[field_name] = pair

    def record_many(
        self, servers: Iterable[str], field_name: str, status: Status, note: str = ""
    ) -> None:
        """:meth:`record` of one field, status and note for each of ``servers``,
        in order (one shared ``(status, note)`` pair: a fleet records millions)."""
        pair = _BARE.get(status) if not note else None
        if pair is None:
            if status not in STATUS_WEIGHT:
                raise ValueError(f"unknown quality status {status!r}")
            pair = (status, note)
        entries = self.entries
        for server in servers:
            entries.setdefault(server, {})[field_name] = pair

    def copy(self) -> QualityReport:
        """An independent copy: what ``copy.deepcopy`` gives, without walking
        the immutable ``(status, note)`` pairs and warnings (a fleet has
        millions of them)."""
        return QualityReport(
            entries={n: dict(fields) for n, fields in self.entries.items()},
            notes=list(self.notes),
            warnings=list(self.warnings),
        )

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    def status(self, server: str, field_name: str) -> str:
        return self.entries.get(server, {}).get(field_name, ("missing", ""))[0]

    def server_confidence(self, server: str) -> float:
        return _confidence(self.entries.get(server, {}))

    def confidence(self, servers: list[str] | None = None) -> float:
        names = list(self.entries) if servers is None else servers
        if not names:
            return 0.0
        return sum(self.server_confidence(n) for n in names) / len(names)

    def merge(self, other: QualityReport) -> None:
        for server, fields in other.entries.items():
            for f, (status, note) in fields.items():
                self.entries.setdefault(server, {})[f] = (status, note)
        for n in other.notes:
            self.note(n)
        for w in other.warnings:
            self.warn(w.code, w.message, w.servers)

    def to_dict(
        self, servers: list[str] | None = None, *, rows: bool = True
    ) -> dict[str, Any]:
        """JSON-ready form: overall confidence, notes, and one row per server
        (none with ``rows=False``: the rows are then in the plan's detail file,
        :meth:`columns`)."""
        names = list(self.entries) if servers is None else servers
        shapes: dict[Any, tuple[Any, ...]] = {}
        out, total = [], 0.0
        for n in names:
            if rows:
                row, conf = self._server_row(n, shapes)
                out.append(row)
            else:
                conf = self._shape(self.entries.get(n, {}), shapes)[0]
            total += conf
        return {
            "confidence": round(total / len(names) if names else 0.0, CONFIDENCE_DIGITS),
            "key_fields": list(KEY_FIELDS),
            "notes": list(self.notes),
            "servers": out,
        }

    def columns(self, servers: list[str]) -> dict[str, list[Any]]:
        """The rows of :meth:`to_dict` as columns, one value per server of
        ``servers``: the confidence, each status's fields joined by ``;`` and
        the notes as a JSON object (the plan's per-server detail file)."""
        shapes: dict[Any, tuple[Any, ...]] = {}
        joined: dict[int, tuple[str, ...]] = {}
        dumped: dict[tuple[Any, ...], str] = {}  # a fleet repeats its notes
        cols: dict[str, list[Any]] = {k: [] for k in _COLUMN_NAMES}
        conf_col, notes_col = cols["quality_confidence"], cols["quality_notes"]
        lists = [cols[f"quality_{s}"] for s in _ROW_STATUSES]
        for n in servers:
            fields = self.entries.get(n, {})
            shape = self._shape(fields, shapes)
            texts = joined.get(id(shape))
            if texts is None:
                texts = joined[id(shape)] = tuple(";".join(x) for x in shape[3:])
            conf_col.append(shape[1])
            for col, text in zip(lists, texts, strict=True):
                col.append(text)
            key = (id(shape), *[fields[f][1] for f in shape[2]])
            notes_json = dumped.get(key)
            if notes_json is None:
                notes = {f: note for f in shape[2] if (note := fields[f][1])}
                notes_json = json.dumps(notes, ensure_ascii=False) if notes else ""
                dumped[key] = notes_json
            notes_col.append(notes_json)
        return cols

    @staticmethod
    def _shape(
        fields: dict[str, tuple[str, str]], shapes: dict[Any, tuple[Any, ...]]
    ) -> tuple[Any, ...]:
        """(confidence, shown confidence, sorted fields, the status lists) of a
        server's fields, worked out once per shape (fields and statuses)."""
        key = (tuple(fields), tuple(map(_status_of, fields.values())))
        shape = shapes.get(key)
        if shape is None:
            conf = _confidence(fields)
            shape = shapes[key] = (conf, round(conf, CONFIDENCE_DIGITS), sorted(fields),
                                   *_status_lists(fields))
        return shape

    def _server_row(
        self, n: str, shapes: dict[Any, tuple[Any, ...]]
    ) -> tuple[dict[str, Any], float]:
        """One server's row of :meth:`to_dict` and its confidence. The field
        lists and the confidence depend only on the server's fields and their
        statuses (its *shape*), worked out once per shape in ``shapes``."""
        fields = self.entries.get(n, {})
        shape = self._shape(fields, shapes)
        conf, shown, order, given, derived, estimated, assumed, missing = shape
        notes = {f: text for f in order if (text := fields[f][1])}
        row = {"name": n, "confidence": shown, "given": given[:], "derived": derived[:],
               "estimated": estimated[:], "assumed": assumed[:], "missing": missing[:],
               "notes": notes}
        return row, conf


_ROW_STATUSES = ("given", "derived", "estimated", "assumed", "missing")
#: Columns of :meth:`QualityReport.columns`.
_COLUMN_NAMES = ("quality_confidence", *(f"quality_{s}" for s in _ROW_STATUSES),
                 "quality_notes")
_status_of = itemgetter(0)


def _status_lists(fields: dict[str, tuple[str, str]]) -> tuple[list[str], ...]:
    """The sorted fields of each status of :data:`_ROW_STATUSES` (``missing``:
    the key fields not recorded, or recorded missing)."""
    by_status: dict[str, list[str]] = {}
    for f, (s, _) in fields.items():
        by_status.setdefault(s, []).append(f)
    missing = sorted(f for f in KEY_FIELDS if fields.get(f, _MISSING)[0] == "missing")
    return (*(sorted(by_status.get(s, ())) for s in _ROW_STATUSES[:-1]), missing)


_MISSING = ("missing", "")


def _confidence(fields: dict[str, tuple[str, str]]) -> float:
    """A server's confidence: the mean weight of its key fields' statuses."""
    weights = [STATUS_WEIGHT[fields[f][0]] if f in fields else 0.0 for f in KEY_FIELDS]
    return sum(weights) / len(weights)
#: One shared ``(status, "")`` pair per status: a fleet records millions.
_BARE: dict[str, tuple[str, str]] = {s: (s, "") for s in STATUS_WEIGHT}


def assumption_warnings(
    quality: QualityReport, servers: list[str] | None = None
) -> list[PlanWarning]:
    """One warning per (status, field) among the values the plan did not read
    (:data:`WARN_STATUSES`), in order of first appearance, with the servers
    concerned. When the servers' notes differ (they carry each server's
    figures), the message quotes the first one."""
    names = list(quality.entries) if servers is None else servers
    groups: dict[tuple[str, str], dict[str, list[str]]] = {}
    for n in names:
        for f, (status, note) in quality.entries.get(n, {}).items():
            if status in WARN_STATUSES:
                groups.setdefault((status, f), {}).setdefault(note, []).append(n)
    out: list[PlanWarning] = []
    for (status, f), by_note in groups.items():
        who = [n for group in by_note.values() for n in group]
        count = f"{len(who)} server{'s' if len(who) != 1 else ''}"
        first_note, first_who = next(iter(by_note.items()))
        if len(by_note) == 1:
            text = f"{f} {status} for {count}" + (f": {first_note}." if first_note else ".")
        else:
            text = (
                f"{f} {status} for {count}, e.g. '{first_who[0]}': {first_note} "
                "(each server's note is in the data-quality table)."
            )
        out.append(PlanWarning(f"{status}_{f}", text, tuple(who)))
    return out
