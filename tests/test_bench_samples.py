"""JSONL sample store: round trip, determinism, one line per bad record."""

from __future__ import annotations

import pytest

from vsizer.bench.samples import Sample, append_samples, read_samples, samples_frame
from vsizer.errors import InputError


def test_round_trip_and_bytes(tmp_path):
    s = [Sample("iops", 1.5, "IO/s", {"b": 1, "a": "x"}, 10.0), Sample("x", 2, "u", {}, 11)]
    path = tmp_path / "s.jsonl"
    assert append_samples(path, s) == 2
    append_samples(path, s[:1])
    assert read_samples(path) == [*s, s[0]]
    assert path.read_text().splitlines()[0] == (
        '{"metadata": {"a": "x", "b": 1}, "metric": "iops", "timestamp": 10.0, "unit": "IO/s", "value": 1.5}')
    frame = samples_frame(read_samples(path))
    assert list(frame["a"][:1]) == ["x"]


def test_bad_lines_all_reported(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text(
        '{"metric": "a", "value": 1, "unit": "u", "metadata": {}, "timestamp": 0}\n'
        "not json\n"
        '{"metric": "a", "value": "NaN", "unit": "u", "metadata": {}, "timestamp": 0}\n'
        '{"metric": "a", "unit": "u", "metadata": {}, "timestamp": 0, "extra": 1}\n'
        "[1, 2]\n"
    )
    with pytest.raises(InputError) as info:
        read_samples(path)
    assert info.value.problems == [
        "s.jsonl line 2: not valid JSON (Expecting value at column 1).",
        "s.jsonl line 3, key 'value': expected a finite number, got 'NaN'.",
        "s.jsonl line 4: missing key(s) value.",
        "s.jsonl line 4: unknown key(s) extra.",
        "s.jsonl line 5: expected a JSON object, got list.",
    ]


def test_missing_store(tmp_path):
    with pytest.raises(InputError, match=r"nope.jsonl: no such sample store\."):
        read_samples(tmp_path / "nope.jsonl")


def test_nan_not_written(tmp_path):
    with pytest.raises(ValueError):
        append_samples(tmp_path / "s.jsonl", [Sample("x", float("nan"), "u")])
