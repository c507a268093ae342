"""One rounding rule for every JSON document vsizer writes."""

from __future__ import annotations

import json
import math
import sys
from itertools import chain
from json.encoder import c_make_encoder  # type: ignore[attr-defined]
from json.encoder import encode_basestring as _encode_str
from operator import itemgetter
from typing import IO, TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

#: Stands for ``pd.NA`` while pandas is not loaded (then no value can be it): a plan
#: read back from JSON (``vsizer predict``, ``emit``) does not load pandas for it.
_NO_NA = object()

#: Decimals kept for floats in JSON output.
DECIMALS = 6


def jsonable(x: Any) -> Any:
    """JSON-safe scalar: numpy -> python, floats rounded to 6 decimals, NaN/inf -> None.

    ``-0.0`` becomes ``0.0``; strings, lists and dicts pass through; any
    other object becomes its ``str``.
    """
    if x is None or x is getattr(sys.modules.get("pandas"), "NA", _NO_NA):
        return None
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        if math.isnan(x) or math.isinf(x):
            return None
        v = round(float(x), DECIMALS)
        return 0.0 if v == 0 else v
    return str(x) if not isinstance(x, (str, list, dict)) else x


def sig6(x: Any) -> float:
    """A float kept to 6 significant digits (fitted coefficients); inf/nan unchanged."""
    x = float(x)
    return x if not math.isfinite(x) else float(f"{x:.6g}")


def rounded(x: float | None) -> float | None:
    """A float rounded to 6 decimals (ints become floats); None and inf/nan -> None."""
    if x is None or not math.isfinite(x):
        return None
    return round(float(x), DECIMALS) + 0.0


def jsonable_column(col: pd.Series) -> list[Any]:
    """``[jsonable(v) for v in col]``, column-wise: one pass per column instead
    of one type dispatch per cell (a fleet plan has millions of cells)."""
    kind = col.dtype.kind
    if kind == "f":
        arr = col.to_numpy(dtype=np.float64, na_value=np.nan)
        ok = np.isfinite(arr).tolist()
        return [
            round(v, DECIMALS) + 0.0 if good else None  # + 0.0: -0.0 -> 0.0
            for v, good in zip(arr.tolist(), ok, strict=True)
        ]
    if kind in "iub":
        missing = col.isna().to_numpy().tolist()
        py = bool if kind == "b" else int
        cells = col.astype(object).tolist()
        return [None if m else py(v) for v, m in zip(cells, missing, strict=True)]
    import pandas as pd  # loaded: ``col`` is a pandas Series

    if isinstance(col.dtype, pd.StringDtype):  # texts pass through as they are
        return [v if type(v) is str else jsonable(v) for v in col.tolist()]
    return [jsonable(v) for v in col.tolist()]


def write_json(doc: Any, fh: IO[str]) -> None:
    """Write ``doc`` to the text file ``fh`` as ``json.dumps(doc, ensure_ascii=False,
    indent=2)`` and a newline, byte for byte, piece by piece: the text of a fleet
    plan (hundreds of MB) is never whole in memory.

    The standard library indents in pure Python, one generator step per value.
    Here a container of plain values (a server's record, a list of names), and a
    list of such records, is encoded by the C encoder in one call with separators
    no JSON text holds (control characters, escaped inside strings), which
    :func:`_indented` turns into the indented layout (:class:`_IndentWriter`)."""
    writer = _IndentWriter(fh)
    writer.value(doc, 0)
    writer.flush()
    fh.write("\n")


_ITEM, _KEY, _NEXT = "\x00", "\x01", "\x02"  # never in encoded JSON text


def _no_default(o: Any) -> Any:
    raise TypeError(f"Object of type {o.__class__.__name__} is not JSON serializable")


_C_ENCODE = c_make_encoder(  # markers, default, encoder, indent, separators, ...
    None, _no_default, _encode_str, None, _KEY, _ITEM, False, False, True
) if c_make_encoder is not None else None
_PLAIN = frozenset({str, int, float, bool, type(None)})
#: Records encoded per C call in a list of records (bounds the text in memory).
_RECORDS_PER_CALL = 2048
#: Pieces gathered before they are written.
_FLUSH_PIECES = 1 << 14


def _plain(d: dict[Any, Any]) -> bool:
    """A non-empty dict of plain values (no container)."""
    return bool(d) and set(map(type, d.values())) <= _PLAIN


def _indented(text: str, level: int) -> str:
    """Marked C-encoder text of one plain container laid out as ``indent=2``
    at ``level``."""
    pad = "\n" + "  " * (level + 1)
    body = text[1:-1].replace(_ITEM, "," + pad).replace(_KEY, ": ")
    return f"{text[0]}{pad}{body}\n{'  ' * level}{text[-1]}"


def _column(values: list[Any], level: int) -> list[str] | None:
    """Indented texts of ``values`` (one column of a list of records, each at
    ``level``) from one C-encoder call: all plain values, or all plain lists,
    or all plain dicts (empty ones allowed); ``None`` for any other column."""
    kinds = set(map(type, values))
    if kinds <= _PLAIN:
        return "".join(_C_ENCODE(values, 0))[1:-1].split(_ITEM)  # type: ignore[misc]
    if kinds == {list} and set(map(type, chain.from_iterable(values))) <= _PLAIN:
        ends = "[]"
    elif kinds == {dict} and set(
        map(type, chain.from_iterable(map(dict.values, values)))
    ) <= _PLAIN:
        ends = "{}"
    else:
        return None
    pad = "\n" + "  " * (level + 1)
    text = "".join(_C_ENCODE(values, 0))[2:-2]  # type: ignore[misc]
    text = text.replace(ends[1] + _ITEM + ends[0], _NEXT)
    text = text.replace(_ITEM, "," + pad).replace(_KEY, ": ")
    close = "\n" + "  " * level + ends[1]
    return [f"{ends[0]}{pad}{t}{close}" if t else ends for t in text.split(_NEXT)]


def _records(items: list[Any] | tuple[Any, ...], level: int) -> list[str] | None:
    """Indented texts of a list of records (dicts with the same keys in the same
    order, each column a :func:`_column`), each at ``level``; else ``None``."""
    first = items[0]
    if type(first) is not dict or not first or set(map(type, items)) != {dict}:
        return None
    keys = list(first)
    if not all(map(keys.__eq__, map(list, items))):
        return None
    pad = "\n" + "  " * (level + 1)
    columns = []
    for n, k in enumerate(keys):
        col = _column(list(map(itemgetter(k), items)), level + 1)
        if col is None:
            return None
        key = _encode_str(k) if type(k) is str else _encode_str(_key_text(k))
        head = ("{" if n == 0 else ",") + f"{pad}{key}: "
        columns.append([head + c for c in col])
    close = "\n" + "  " * level + "}"
    columns[-1] = [c + close for c in columns[-1]]
    return list(map("".join, zip(*columns, strict=True)))


class _IndentWriter:
    """``JSONEncoder(ensure_ascii=False, indent=2).iterencode`` as pieces joined
    and written every :data:`_FLUSH_PIECES` pieces."""

    def __init__(self, fh: IO[str]) -> None:
        self.fh = fh
        self.out: list[str] = []

    def flush(self) -> None:
        self.fh.write("".join(self.out))
        self.out.clear()

    def value(self, v: Any, level: int) -> None:
        t = type(v)
        if t is str:
            self.out.append(_encode_str(v))
        elif t is float or t is int:
            self.out.append(_C_ENCODE([v], 0)[0][1:-1] if _C_ENCODE else repr(v))
        elif t in _PLAIN or not isinstance(v, (list, tuple, dict)):
            self.out.append("".join(_ENCODER.iterencode(v)))
        elif not v:
            self.out.append("{}" if isinstance(v, dict) else "[]")
        elif _C_ENCODE is None:
            self.out.append("".join(_ENCODER.iterencode(v)).replace("\n", "\n" + "  " * level))
        elif isinstance(v, dict):
            self.mapping(v, level)
        else:
            self.sequence(v, level)
        if len(self.out) > _FLUSH_PIECES:
            self.flush()

    def sequence(self, items: list[Any] | tuple[Any, ...], level: int) -> None:
        if set(map(type, items)) <= _PLAIN:
            self.out.append(_indented("".join(_C_ENCODE(items, 0)), level))  # type: ignore[misc]
            return
        pad = "\n" + "  " * (level + 1)
        sep = "[" + pad
        for k in range(0, len(items), _RECORDS_PER_CALL):
            chunk = items[k : k + _RECORDS_PER_CALL]
            texts = _records(chunk, level + 1)
            if texts is not None:
                self.out.append(sep + ("," + pad).join(texts))
                sep = "," + pad
                self.flush()  # a few MB of text
                continue
            for v in chunk:
                self.out.append(sep)
                self.value(v, level + 1)
                sep = "," + pad
            if len(self.out) > _FLUSH_PIECES:
                self.flush()
        self.out.append("\n" + "  " * level + "]")

    def mapping(self, d: dict[Any, Any], level: int) -> None:
        if _plain(d):
            self.out.append(_indented("".join(_C_ENCODE(d, 0)), level))  # type: ignore[misc]
            return
        pad = "\n" + "  " * (level + 1)
        sep = "{" + pad
        for k, v in d.items():
            key = _encode_str(k if type(k) is str else _key_text(k))
            self.out.append(f"{sep}{key}: ")
            self.value(v, level + 1)
            sep = "," + pad
        self.out.append("\n" + "  " * level + "}")


def _key_text(k: Any) -> str:
    """A dict key as :mod:`json` writes it (``skipkeys`` off), before quoting."""
    if isinstance(k, str):
        return k
    if type(k) in _PLAIN or isinstance(k, (int, float)):
        return "".join(_ENCODER.iterencode(k))
    raise TypeError(f"keys must be str, int, float, bool or None, not {k.__class__.__name__}")


_ENCODER = json.JSONEncoder(ensure_ascii=False, indent=2)
