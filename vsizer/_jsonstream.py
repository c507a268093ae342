"""Write a JSON document to a file piece by piece, byte for byte as
``json.dumps(doc, ensure_ascii=False, indent=2) + "\\n"``.

``json.dumps`` with ``indent`` builds the whole text in memory with the
pure-Python encoder (the C one does not indent): for a fleet plan that is a
string of several hundred MB on top of the document. :func:`write_json` walks
the document instead: large lists and dicts are written one element at a
time, each element rendered by :func:`encode` (joins of small strings, C
string escaping), so memory stays at the document plus the largest element.

Same rules as :mod:`json` with its defaults: keys in insertion order; str,
int, float, bool and None keys as :mod:`json` converts them; ``NaN`` and
``Infinity`` written as :mod:`json` writes them; lists and tuples alike;
anything else raises ``TypeError`` as :mod:`json` does.
"""

from __future__ import annotations

from collections.abc import Iterator
from json.encoder import encode_basestring
from typing import IO, Any

__all__ = ["encode", "iter_json", "write_json"]

#: Containers with more elements than this are streamed element by element,
STREAM_ABOVE = 64
#: and every container this close to the top (the sections of a document).
STREAM_DEPTH = 3
#: Pieces gathered before one write to the file.
CHUNK = 2048

_INF = float("inf")


def _float(o: float) -> str:
    if o != o:
        return "NaN"
    if o == _INF:
        return "Infinity"
    if o == -_INF:
        return "-Infinity"
    return float.__repr__(o)


def _key(k: Any) -> str:
    if isinstance(k, str):
        return encode_basestring(k)
    if isinstance(k, float):
        return encode_basestring(_float(k))
    if k is True:
        return '"true"'
    if k is False:
        return '"false"'
    if k is None:
        return '"null"'
    if isinstance(k, int):
        return '"' + int.__repr__(k) + '"'
    raise TypeError(
        f"keys must be str, int, float, bool or None, not {k.__class__.__name__}"
    )


def _scalar(o: Any) -> str | None:
    """The JSON text of a scalar; None for a container."""
    if isinstance(o, str):
        return encode_basestring(o)
    if o is None:
        return "null"
    if o is True:
        return "true"
    if o is False:
        return "false"
    if isinstance(o, int):
        return int.__repr__(o)
    if isinstance(o, float):
        return _float(o)
    if isinstance(o, (list, tuple, dict)):
        return None
    raise TypeError(f"Object of type {o.__class__.__name__} is not JSON serializable")


def encode(o: Any, indent: str = "\n") -> str:
    """``o`` as indented JSON text; ``indent`` is the newline and indentation of
    the line ``o`` starts on (``"\\n"`` at the top level)."""
    text = _scalar(o)
    if text is not None:
        return text
    inner = indent + "  "
    if isinstance(o, dict):
        if not o:
            return "{}"
        sep = "," + inner
        return (
            "{" + inner
            + sep.join([_key(k) + ": " + encode(v, inner) for k, v in o.items()])
            + indent + "}"
        )
    if not o:
        return "[]"
    return "[" + inner + ("," + inner).join([encode(v, inner) for v in o]) + indent + "]"


def iter_json(o: Any, indent: str = "\n", depth: int = 0) -> Iterator[str]:
    """The pieces of ``encode(o, indent)``: large containers, and every
    container of the first :data:`STREAM_DEPTH` levels, element by element."""
    if not isinstance(o, (list, tuple, dict)) or not o or (
        depth >= STREAM_DEPTH and len(o) <= STREAM_ABOVE
    ):
        yield encode(o, indent)
        return
    inner = indent + "  "
    if isinstance(o, dict):
        head = "{" + inner
        for k, v in o.items():
            yield head + _key(k) + ": "
            yield from iter_json(v, inner, depth + 1)
            head = "," + inner
        yield indent + "}"
        return
    head = "[" + inner
    for v in o:
        yield head
        yield from iter_json(v, inner, depth + 1)
        head = "," + inner
    yield indent + "]"


def write_json(doc: Any, fh: IO[str]) -> None:
    """Write ``doc`` to the text file ``fh`` as indented JSON and a final newline."""
    pieces: list[str] = []
    for piece in iter_json(doc):
        pieces.append(piece)
        if len(pieces) >= CHUNK:
            fh.write("".join(pieces))
            pieces.clear()
    pieces.append("\n")
    fh.write("".join(pieces))
