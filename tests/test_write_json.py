"""vsizer._jsonable.write_json: the text of ``json.dumps(doc, ensure_ascii=False,
indent=2)`` byte for byte, through its C-encoder fast paths (plain containers,
lists of records column by column) and its general path."""

from __future__ import annotations

import io
import json
from typing import Any

import numpy as np
import pytest

from vsizer import _jsonable
from vsizer._jsonable import write_json

_RECORD = {"name": "vm,}\x00{\"1", "cpu": 1.5, "n": 3, "ok": True, "no": None}

DOCS: list[Any] = [
    {}, [], 5, "s", None, 1.0, float("nan"),
    {"a": [], "b": {}, "c": [{}], "d": {"e": {}}},
    {2: 2, 1.5: 3, True: 4, None: 5, "é\n\"": [1, 2.5, -0.0, float("inf"), -float("inf")]},
    {"t": (1, [2, {"z": None}]), "f": np.float64(1.25), "nested": [[1, [2]], [[]]]},
    # lists of records: plain columns, list and dict columns with empty ones,
    # brackets and separators inside strings, a record of another shape
    [dict(_RECORD, i=i) for i in range(5)],
    [{"name": f"s{i}", "given": ["a]", "[b"][: i % 3], "notes": {"x}": "{y"} if i % 2 else {}}
     for i in range(7)],
    [{"a": 1, "b": 2}, {"b": 2, "a": 1}, {"a": 1}, {"a": [1, {"x": 2}]}, 3, "x"],
    [{"a": [1, [2]]}, {"a": [3]}],
]


@pytest.mark.parametrize("doc", DOCS, ids=range(len(DOCS)))
def test_same_text_as_json_dumps(doc: Any) -> None:
    out = io.StringIO()
    write_json(doc, out)
    assert out.getvalue() == json.dumps(doc, ensure_ascii=False, indent=2) + "\n"


def test_long_lists_of_records_in_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_jsonable, "_RECORDS_PER_CALL", 3)
    doc = {"servers": [dict(_RECORD, i=i) for i in range(10)] + [{"odd": 1}]}
    out = io.StringIO()
    write_json(doc, out)
    assert out.getvalue() == json.dumps(doc, ensure_ascii=False, indent=2) + "\n"


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ({"a": np.int64(1)}, "Object of type int64 is not JSON serializable"),
        ([{"a": object()}], "Object of type object is not JSON serializable"),
        ({(1, 2): 3}, "keys must be str, int, float, bool or None, not tuple"),
    ],
)
def test_errors_as_json(doc: Any, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        json.dumps(doc, indent=2)
    with pytest.raises(TypeError, match=message):
        write_json(doc, io.StringIO())
