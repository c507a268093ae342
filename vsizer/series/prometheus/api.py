"""Prometheus HTTP API ``query_range`` responses saved as JSON -> tidy series.

:func:`read_query_range` reads in three steps: parse (the JSON envelope and
its ``matrix`` result), select (one series per server, its points), and rows
(the unit told or given, repeated times and utilization above 1 handled, gaps
reported).
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from vsizer._textio import decode, read_bytes
from vsizer.errors import ConfigError, SeriesError
from vsizer.series._tidy import (
    KIND_OF_METRIC,
    UNITS_EXPECTED,
    Problems,
    check_gaps,
    file_label,
    median_step_s,
    ratio_unit_by_values,
    tidy_frame,
    unit_factor,
)
from vsizer.series.model import METRICS, SeriesQuality, SeriesSet
from vsizer.series.prometheus._common import parse_value
from vsizer.units import canonical_unit

__all__ = ["read_query_range"]

#: Unix times up to 2262-04-11, the end of numpy's datetime64[ns].
_MAX_UNIX_S = 9_223_372_036


def read_query_range(
    path: str | os.PathLike[str],
    *,
    metric: str,
    unit: str | None = None,
    server_label: str = "instance",
    server: str | None = None,
) -> SeriesSet:
    """Read a Prometheus HTTP API ``query_range`` response saved as JSON.

    The response format: Prometheus authors, "HTTP API: Range queries,"
    prometheus.io/docs/prometheus/latest/querying/api/.

    Parameters
    ----------
    path : str or path-like
        The response body, e.g. ``curl -G .../api/v1/query_range --data-urlencode
        'query=...' -d start=... -d end=... -d step=300 > cpu.json``.
    metric : str
        What the query returns, one of :data:`METRICS`.
    unit : str, optional
        Unit of the values (``"%"``, ``"B/s"``, ``"bytes"``...). Default: for a
        utilization, fraction if every value is <= 1 else % (issue
        ``unit_guess``); otherwise the canonical unit.
    server_label : str, default "instance"
        Label that names the server. Each result series must have it, and no
        two series the same value (aggregate the query ``by (instance)``).
    server : str, optional
        Name of the one series of a response, whatever its labels (noted).

    Returns
    -------
    SeriesSet
        ``source_format='prometheus'``; ``metadata``: ``metric``, ``unit``,
        ``series`` (server -> its labels), ``warnings`` of the response.

    Raises
    ------
    SeriesError
        Not JSON; ``status: error`` (its message); not a ``matrix``; a series
        without ``server_label`` or repeating one; a malformed point; a
        negative value.
    ConfigError
        Unknown ``metric``, or a ``unit`` that does not fit it.

    ``"NaN"`` and ``"+Inf"``/``"-Inf"`` points are left out and counted
    (``dropped``); utilization above 1 is clipped (``clipped``).
    """
    given_unit = _given_unit(metric, unit)
    file = file_label(path)
    problems = Problems()
    body = _load_json(path, file, problems)
    result = _matrix(body, file, problems)
    problems.raise_if_any()
    quality = SeriesQuality()
    for w in body.get("warnings") or []:
        quality.note(f"{file}: Prometheus warning: {w}")
    result = _named(result, server, server_label, file, problems, quality)
    series = _select_series(result, file, server_label, problems, quality)
    problems.raise_if_any()
    read_unit = given_unit or _told_unit(metric, series.points, quality)
    data, steps = _rows(metric, read_unit, series.points, quality)
    if not series.points:
        quality.note(f"{file}: the query returned no series.")
    return SeriesSet(
        data=data,
        quality=quality,
        source=str(path),
        source_format="prometheus",
        metadata={
            "metric": metric,
            "unit": read_unit,
            "series": series.labels,
            "step_s": median_step_s(steps),
            "warnings": list(body.get("warnings") or []),
        },
    )


def _given_unit(metric: str, unit: str | None) -> str | None:
    """The canonical spelling of *unit* (None: not given); ConfigError if unfit."""
    if metric not in METRICS:
        raise ConfigError(
            "--metric must be one of "
            + ", ".join(repr(m) for m in METRICS)
            + f". Got {metric!r} instead."
        )
    if unit is None:
        return None
    try:
        given = canonical_unit(unit)
        unit_factor(metric, given)
    except ValueError:
        raise ConfigError(
            f"--unit must be "
            f"{UNITS_EXPECTED[KIND_OF_METRIC[metric]]} for --metric {metric}. "
            f"Got {unit!r} instead."
        ) from None
    return given


def _named(
    result: list[Any],
    server: str | None,
    server_label: str,
    file: str,
    problems: Problems,
    quality: SeriesQuality,
) -> list[Any]:
    """The one result series with its ``server_label`` set to *server* (None:
    *result* as it is)."""
    if server is None:
        return result
    if len(result) != 1 or not isinstance(result[0], dict):
        problems.whole(
            file,
            f"--server names the one series of a response; expected 1 series, got "
            f"{len(result)}; leave --server out: each series is then named by its "
            f"'{server_label}' label.",
        )
        return result
    item = dict(result[0])
    found = item.get("metric")
    labels: dict[str, Any] = found if isinstance(found, dict) else {}
    old = labels.get(server_label)
    item["metric"] = {**labels, server_label: server}
    quality.note(
        f"{file}: the one series named '{server}' (--server)"
        + (f", not '{old}' ({server_label})" if old else f"; its labels: "
           f"{json.dumps(labels, sort_keys=True)}")
        + "."
    )  # fmt: skip
    return [item]


Points = dict[str, tuple[np.ndarray, np.ndarray]]


@dataclass
class _Series:
    """The series selected: server -> its labels, and server -> (times ns, values)."""

    labels: dict[str, dict[str, str]] = field(default_factory=dict)
    points: Points = field(default_factory=dict)


def _select_series(
    result: list[Any],
    file: str,
    server_label: str,
    problems: Problems,
    quality: SeriesQuality,
) -> _Series:
    """One series per server named by *server_label*; NaN and Inf points counted."""
    series = _Series()
    first_of: dict[str, int] = {}
    for i, item in enumerate(result, start=1):
        where = f"result {i}"
        if not isinstance(item, dict) or not isinstance(item.get("values"), list):
            problems.whole(
                file,
                f'{where}: expected {{"metric": {{...}}, "values": [...]}}, '
                f"got '{_short(item)}'.",
            )
            continue
        labels = item.get("metric") or {}
        name = labels.get(server_label) if isinstance(labels, dict) else None
        if not name:
            problems.whole(
                file,
                f"{where}: expected a label '{server_label}' naming the server, got "
                f"labels {json.dumps(labels, sort_keys=True)}; "
                + (
                    "name the one series with --server NAME."
                    if len(result) == 1
                    else "aggregate the query by a label naming the server."
                ),
            )
            continue
        name = str(name)
        if name in first_of:
            problems.whole(
                file,
                f"{where}: {server_label}='{name}' also names result {first_of[name]}; "
                f"aggregate the query by ({server_label}), e.g. "
                f"avg by ({server_label}) (...).",
            )
            continue
        first_of[name] = i
        series.labels[name] = {str(k): str(v) for k, v in labels.items()}
        ts, vals, n_nan, n_inf = _points(item["values"], file, where, problems)
        if n_nan:
            quality.add(name, "dropped", n_nan, "NaN points (no data)")
        if n_inf:
            quality.add(name, "dropped", n_inf, "infinite points (+Inf/-Inf)")
        series.points[name] = (ts, vals)
    return series


def _told_unit(metric: str, points: Points, quality: SeriesQuality) -> str:
    """The unit when none is given: for a utilization told by the values (noted)."""
    if KIND_OF_METRIC[metric] != "ratio":  # the canonical unit, as vsizer.units spells it
        return "count" if metric == "disk_iops" else METRICS[metric]
    all_vals = (
        np.concatenate([v for _, v in points.values()])
        if points
        else np.array([], dtype=np.float64)
    )
    unit = ratio_unit_by_values(all_vals)
    why = (
        "every value is <= 1"
        if unit == "fraction"
        else f"values reach {float(all_vals.max()):g}"
    )
    for name, (_, v) in points.items():
        quality.add(name, "unit_guess", len(v), f"no unit given; read as {unit}: {why}")
    return unit


def _rows(
    metric: str, unit: str, points: Points, quality: SeriesQuality
) -> tuple[pd.DataFrame, list[float]]:
    """Tidy rows of every server (in name order) and their median steps."""
    factor = unit_factor(metric, unit)
    rows_s, rows_t, rows_v = [], [], []
    steps: list[float] = []
    for name in sorted(points):
        ts, vals = points[name]
        order = np.argsort(ts, kind="stable")
        ts, vals = ts[order], vals[order] * factor
        first = np.ones(len(ts), dtype=bool)
        first[1:] = ts[1:] != ts[:-1]
        if (~first).any():
            quality.add(
                name, "duplicate", int((~first).sum()), "repeated times; first kept"
            )
            ts, vals = ts[first], vals[first]
        if KIND_OF_METRIC[metric] == "ratio" and (vals > 1.0).any():
            quality.add(
                name, "clipped", int((vals > 1.0).sum()), "utilization above 1 set to 1"
            )
            vals = np.minimum(vals, 1.0)
        med = check_gaps(quality, name, ts)
        if med is not None:
            steps.append(med)
        rows_s.append(np.full(len(ts), name, dtype=object))
        rows_t.append(ts)
        rows_v.append(vals)
    data = tidy_frame(
        np.concatenate(rows_s) if rows_s else np.array([], dtype=object),
        np.concatenate(rows_t) if rows_t else np.array([], dtype=np.int64),
        np.full(sum(len(t) for t in rows_t), metric, dtype=object),
        np.concatenate(rows_v) if rows_v else np.array([], dtype=np.float64),
        presorted=True,
    )
    return data, steps


def _short(obj: Any) -> str:
    return json.dumps(obj)[:60] if not isinstance(obj, str) else obj[:60]


def _load_json(
    path: str | os.PathLike[str], file: str, problems: Problems
) -> dict[str, Any]:
    try:
        data = read_bytes(path)
    except SeriesError as exc:
        problems.whole(file, str(exc).split(": ", 1)[-1])
        return {}
    try:
        text, _ = decode(data, file, encodings=("utf-8-sig",), utf16_bom=False)
    except SeriesError:
        problems.whole(file, "expected UTF-8 JSON text, got undecodable bytes.")
        return {}
    try:
        body = json.loads(text)
    except json.JSONDecodeError as exc:
        problems.whole(
            file,
            "expected a Prometheus query_range JSON response, got invalid JSON "
            f"(line {exc.lineno} column {exc.colno}: {exc.msg}).",
        )
        return {}
    except (ValueError, RecursionError) as exc:  # a 4,300+ digit number, deep nesting
        problems.whole(
            file,
            "expected a Prometheus query_range JSON response, got JSON that "
            f"cannot be read ({type(exc).__name__}: {str(exc)[:120]}).",
        )
        return {}
    if not isinstance(body, dict) or "status" not in body:
        problems.whole(
            file,
            'expected a Prometheus API response {"status": ..., "data": ...}, got '
            f"'{_short(body)}'.",
        )
        return {}
    return body


def _matrix(body: dict[str, Any], file: str, problems: Problems) -> list[Any]:
    if not body:
        return []
    if body.get("status") != "success":
        kind = body.get("errorType", "error")
        problems.whole(
            file,
            f"Prometheus returned an error ({kind}): {body.get('error', '(no message)')}",
        )
        return []
    data = body.get("data")
    if not isinstance(data, dict):
        problems.whole(file, "expected a 'data' object in the response, found none.")
        return []
    kind = data.get("resultType")
    if kind != "matrix":
        problems.whole(
            file,
            "expected resultType 'matrix' (a query_range response), got "
            f"'{kind}'; save /api/v1/query_range, not /api/v1/query.",
        )
        return []
    result = data.get("result")
    if not isinstance(result, list):
        problems.whole(file, "expected 'data.result' to be a list.")
        return []
    return result


def _points(
    values: list[Any], file: str, where: str, problems: Problems
) -> tuple[np.ndarray, np.ndarray, int, int]:
    """Times [ns] and finite values of ``[[t, "v"], ...]``; counts of NaN and Inf."""
    ts: list[int] = []
    vals: list[float] = []
    n_nan = n_inf = 0
    for j, point in enumerate(values, start=1):
        ok = (
            isinstance(point, list)
            and len(point) == 2
            and isinstance(point[0], (int, float))
            and not isinstance(point[0], bool)
            and 0 <= point[0] < _MAX_UNIX_S  # a time numpy can hold
            and isinstance(point[1], str)
        )
        value = parse_value(point[1]) if ok else None
        if not ok or value is None:
            problems.whole(
                file,
                f'{where} point {j}: expected [unix_time, "value"], got '
                f"'{_short(point)}'.",
            )
            continue
        if math.isnan(value):
            n_nan += 1
            continue
        if math.isinf(value):
            n_inf += 1
            continue
        if value < 0:
            problems.whole(
                file,
                f"{where} point {j}: expected a non-negative value, got '{point[1]}'.",
            )
            continue
        ts.append(int(round(float(point[0]) * 1000)) * 1_000_000)  # ms resolution
        vals.append(value)
    return np.array(ts, dtype=np.int64), np.array(vals, dtype=np.float64), n_nan, n_inf
