"""One rounding rule for every JSON document vsizer writes."""

from __future__ import annotations

import json
import math
from typing import IO, Any

import numpy as np
import pandas as pd

#: Decimals kept for floats in JSON output.
DECIMALS = 6


def jsonable(x: Any) -> Any:
    """JSON-safe scalar: numpy -> python, floats rounded to 6 decimals, NaN/inf -> None.

    ``-0.0`` becomes ``0.0``; strings, lists and dicts pass through; any
    other object becomes its ``str``.
    """
    if x is None or x is pd.NA:
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
    return [jsonable(v) for v in col.tolist()]


def write_json(doc: Any, fh: IO[str]) -> None:
    """Write ``doc`` to the text file ``fh`` as ``json.dumps(doc, ensure_ascii=False,
    indent=2)`` and a newline, piece by piece (:meth:`json.JSONEncoder.iterencode`):
    the text of a fleet plan (hundreds of MB) is never whole in memory."""
    for chunk in _ENCODER.iterencode(doc):
        fh.write(chunk)
    fh.write("\n")


_ENCODER = json.JSONEncoder(ensure_ascii=False, indent=2)
