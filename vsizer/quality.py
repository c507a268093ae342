"""Data-quality report: for every server, which fields were given, derived or assumed.

Readers record what the file gave; normalization records what it derived (a
catalog score) or assumed (a clock-rate fallback). The overall confidence is a
weighted share of the fields the plan depends on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Status = Literal["given", "derived", "assumed", "missing"]

#: Weight of each status in the confidence score [fraction].
STATUS_WEIGHT: dict[str, float] = {
    "given": 1.0,
    "derived": 0.75,
    "assumed": 0.25,
    "missing": 0.0,
}

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

    def record(
        self, server: str, field_name: str, status: Status, note: str = ""
    ) -> None:
        if status not in STATUS_WEIGHT:
            raise ValueError(f"unknown quality status {status!r}")
        self.entries.setdefault(server, {})[field_name] = (status, note)

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    def status(self, server: str, field_name: str) -> str:
        return self.entries.get(server, {}).get(field_name, ("missing", ""))[0]

    def server_confidence(self, server: str) -> float:
        weights = [STATUS_WEIGHT[self.status(server, f)] for f in KEY_FIELDS]
        return sum(weights) / len(weights)

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

    def to_dict(self, servers: list[str] | None = None) -> dict[str, Any]:
        """JSON-ready form: overall confidence, notes, and one row per server."""
        names = list(self.entries) if servers is None else servers
        rows = []
        for n in names:
            fields = self.entries.get(n, {})
            row: dict[str, Any] = {
                "name": n,
                "confidence": round(self.server_confidence(n), 4),
            }
            for status in ("given", "derived", "assumed"):
                row[status] = sorted(f for f, (s, _) in fields.items() if s == status)
            row["missing"] = sorted(
                f for f in KEY_FIELDS if self.status(n, f) == "missing"
            )
            row["notes"] = {f: note for f, (_, note) in sorted(fields.items()) if note}
            rows.append(row)
        return {
            "confidence": round(self.confidence(names), 4),
            "key_fields": list(KEY_FIELDS),
            "notes": list(self.notes),
            "servers": rows,
        }
