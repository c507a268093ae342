"""The benchmark record and its JSONL store (PerfKitBenchmarker's ``Sample``).

One :class:`Sample` is one measured value: ``metric``, ``value``, ``unit``,
``metadata`` (environment, accelerator, host, tool versions, parameters, foreign
load ...) and ``timestamp`` (Unix seconds, taken on the host). Samples are
appended one JSON object per line, keys sorted, so a store is easy to diff and
the same samples always give the same bytes.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vsizer.errors import InputError

__all__ = ["Sample", "append_samples", "read_samples", "samples_frame"]

_FIELDS = ("metric", "value", "unit", "metadata", "timestamp")


@dataclass(frozen=True)
class Sample:
    """One measured value.

    Parameters
    ----------
    metric : str
        What was measured, e.g. ``"events_per_s"``, ``"iops"``.
    value : float
        The measured value [unit].
    unit : str
        Unit of ``value``, e.g. ``"events/s"``, ``"MB/s"``, ``"ms"``.
    metadata : dict
        Environment (``physical``/``vm``), accelerator, host, tool versions,
        parameters, run number, foreign load. JSON-serializable values only.
    timestamp : float
        When the value was measured, host clock [Unix s].
    """

    metric: str
    value: float
    unit: str
    metadata: dict[str, Any] = field(default_factory=dict)
    timestamp: float = 0.0

    def with_metadata(self, **extra: Any) -> Sample:
        """A copy with ``extra`` merged into the metadata (``extra`` wins)."""
        return Sample(
            self.metric, self.value, self.unit, {**self.metadata, **extra}, self.timestamp
        )

    def to_dict(self) -> dict[str, Any]:
        """The JSON object written to the store."""
        return {
            "metric": self.metric,
            "value": self.value,
            "unit": self.unit,
            "metadata": self.metadata,
            "timestamp": self.timestamp,
        }


def _dumps(sample: Sample) -> str:
    return json.dumps(sample.to_dict(), sort_keys=True, ensure_ascii=False, allow_nan=False)


def append_samples(path: str | Path, samples: Iterable[Sample]) -> int:
    """Append ``samples`` to the JSONL store at ``path``; return how many were written."""
    lines = [_dumps(s) for s in samples]
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as fh:
        for line in lines:
            fh.write(line + "\n")
    return len(lines)


def _from_obj(obj: Any, where: str) -> tuple[Sample | None, list[str]]:
    if not isinstance(obj, dict):
        return None, [f"{where}: expected a JSON object, got {type(obj).__name__}."]
    problems = []
    missing = [f for f in _FIELDS if f not in obj]
    if missing:
        problems.append(f"{where}: missing key(s) {', '.join(missing)}.")
    extra = sorted(set(obj) - set(_FIELDS))
    if extra:
        problems.append(f"{where}: unknown key(s) {', '.join(extra)}.")
    if problems:
        return None, problems
    value, ts = obj["value"], obj["timestamp"]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        problems.append(f"{where}, key 'value': expected a finite number, got {value!r}.")
    if isinstance(ts, bool) or not isinstance(ts, (int, float)):
        problems.append(f"{where}, key 'timestamp': expected a number, got {ts!r}.")
    for key in ("metric", "unit"):
        if not isinstance(obj[key], str) or (key == "metric" and not obj[key]):
            problems.append(f"{where}, key '{key}': expected a string, got {obj[key]!r}.")
    if not isinstance(obj["metadata"], dict):
        problems.append(f"{where}, key 'metadata': expected an object, got {obj['metadata']!r}.")
    if problems:
        return None, problems
    return Sample(obj["metric"], float(value), obj["unit"], obj["metadata"], float(ts)), []


def read_samples(path: str | Path) -> list[Sample]:
    """Read a JSONL sample store; every bad line is reported at once.

    Raises
    ------
    InputError
        One line per problem, naming the file and line number.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{path}: no such sample store.") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read the sample store ({exc}).") from None
    samples: list[Sample] = []
    problems: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path.name} line {number}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(f"{where}: not valid JSON ({exc.msg} at column {exc.colno}).")
            continue
        sample, found = _from_obj(obj, where)
        problems.extend(found)
        if sample is not None:
            samples.append(sample)
    if problems:
        raise InputError(problems)
    return samples


def samples_frame(samples: Iterable[Sample]) -> Any:
    """A pandas DataFrame: metric, value, unit, timestamp, then one column per metadata key."""
    import pandas as pd

    rows = [
        {
            "metric": s.metric,
            "value": s.value,
            "unit": s.unit,
            "timestamp": s.timestamp,
            **{k: v for k, v in s.metadata.items() if not isinstance(v, (dict, list))},
        }
        for s in samples
    ]
    return pd.DataFrame(rows)
