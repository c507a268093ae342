"""Reading and converting the cells of the generic CSV series (long and wide).

Shared by :mod:`vsizer.series.tabular` (long) and :mod:`vsizer.series.wide`:
the text table (decoded and delimiter-sniffed through :mod:`vsizer._textio`),
number cells, unit conversion with the file-wide guess for utilizations,
and the final step (duplicates, gaps, tidy frame).
"""

from __future__ import annotations

import io
import os
import re
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from vsizer._textio import decode, read_bytes, sniff_delimiter
from vsizer.series._tidy import (
    KIND_OF_METRIC,
    UNITS_EXPECTED,
    FloatArray,
    Int64Array,
    Problems,
    check_gaps,
    ratio_unit_by_values,
    tidy_frame,
    unit_factor,
)
from vsizer.series.model import SeriesQuality
from vsizer.units import normalize_text

__all__ = [
    "EXPECTED_NUMBER",
    "NO_VALUE",
    "convert",
    "count_by",
    "finish",
    "no_value_note",
    "numbers",
    "read_text_table",
    "stripped",
    "units_read",
]

EXPECTED_NUMBER = "a non-negative number"

#: What a line of only these is: blank (white space, a stray byte-order mark).
_BLANK = " \t\r\n\f\v\ufeff\u200b"


def read_text_table(
    path: str | os.PathLike[str], file: str, problems: Problems
) -> tuple[list[str], list[pd.Series], Int64Array]:
    """Header, columns as text and each data row's line number.

    Blank lines are skipped (their numbers too); the separator is the most
    frequent of ``,``, ``;`` and tab in the header line. A file that cannot be
    read as a table raises (via ``problems``).
    """
    got = _read_text_frame(path, file, problems)
    if got is None:
        problems.raise_all()
    return got


def _read_text_frame(
    path: str | os.PathLike[str], file: str, problems: Problems
) -> tuple[list[str], list[pd.Series], Int64Array] | None:
    text, _ = decode(read_bytes(path), file)
    skipped, sep = _lead(text)
    if skipped:
        parts = text.split("\n", skipped)
        text = parts[-1] if len(parts) > skipped else ""
    first = next((ln for ln in text.splitlines() if ln.strip(_BLANK)), "")
    if not first:  # nothing but white space and byte-order marks
        problems.whole(file, "expected a header line, got an empty file.")
        return None
    sep = sep or sniff_delimiter(first, lines=1)
    try:
        frame = pd.read_csv(
            io.StringIO(text),
            sep=sep,
            header=None,
            dtype=str,
            keep_default_na=False,
            skip_blank_lines=False,
            engine="c",
        )
    except pd.errors.EmptyDataError:
        problems.whole(file, "expected a header line, got an empty file.")
        return None
    except pd.errors.ParserError as exc:
        _fields_problem(str(exc), text, skipped, file, problems)
        return None
    frame = frame.fillna("")
    # A blank line is one empty field (or only white space in the first).
    empty = (frame.iloc[:, 0].str.strip() == "").to_numpy(dtype=bool, copy=True)
    if frame.shape[1] > 1:
        empty = empty & (frame.iloc[:, 1:] == "").all(axis=1).to_numpy(dtype=bool)
    line_no = np.arange(1, len(frame) + 1, dtype=np.int64) + skipped
    header_pos = int(np.flatnonzero(~empty)[0])
    header = [normalize_text(h) for h in frame.iloc[header_pos]]
    keep = ~empty
    keep[: header_pos + 1] = False
    body = frame[keep]
    columns = [body[c].reset_index(drop=True) for c in body.columns]
    return header, columns, line_no[keep]


#: Excel's separator line ``sep=;`` heading a CSV: Grafana's "Download for Excel"
#: writes it before the header (Grafana Labs, ``public/app/core/utils/
#: file_export.ts``: ``(excel ? 'sep=;\\n' : '')``).
_SEP_LINE = re.compile(r"sep[=]([,;\t|])")  # [=]: no "name=(" wording


def _lead(text: str) -> tuple[int, str | None]:
    """Lines before the header to pass over (blank ones, an Excel ``sep=X``
    line) and the separator that line names (None: none)."""
    for skipped, line in enumerate(text.split("\n")):
        bare = line.strip(_BLANK)
        if bare:
            found = _SEP_LINE.fullmatch(bare)
            return (skipped + 1, found.group(1)) if found else (skipped, None)
    return 0, None


_FIELDS = re.compile(r"Expected (\d+) fields in line (\d+), saw (\d+)")


def _fields_problem(
    parser_error: str, text: str, skipped: int, file: str, problems: Problems
) -> None:
    """One line for pandas' ``Expected K fields in line N, saw M``: the file's
    line number, the fields expected and found, and the line's text."""
    found = _FIELDS.search(parser_error)
    if found is None:
        said = " ".join(parser_error.split()).rstrip(".")
        problems.whole(
            file, f"expected the same number of fields on every line; {said}."
        )
        return
    k, n, m = (int(g) for g in found.groups())
    lines = text.split("\n", n)
    got = lines[n - 1].strip(_BLANK) if n <= len(lines) else ""
    problems.cell(
        file, n + skipped, f"{k} fields as in the header (the line has {m})", got
    )


#: Cells that say "no value" rather than hold one, read like blank cells:
#: Grafana's CSV export writes ``null`` for a null point and ``undefined`` where
#: a series has no point at the row's time (``file_export.ts``); ``NaN`` is
#: how Prometheus and JavaScript write a missing number.
NO_VALUE = frozenset({"null", "undefined", "nan"})


def no_value_note(file: str, seen: dict[str, int]) -> str | None:
    """A note counting the cells spelled as in :data:`NO_VALUE` (*seen*: the
    spelling -> cells, as :func:`numbers` counts them)."""
    if not seen:
        return None
    said = ", ".join(f"{n:,} '{t}'" for t, n in sorted(seen.items()))
    return (
        f"{file}: {said} cells read as no sample (how Grafana's CSV export and "
        "Prometheus write a missing point); counted as dropped."
    )


def stripped(column: pd.Series) -> pd.Series:
    """The column with white space stripped, stripping each distinct text once."""
    codes, uniques = pd.factorize(column.astype(object), use_na_sentinel=False)
    clean = np.array([str(u).strip() for u in uniques], dtype=object)
    return pd.Series(clean[codes], index=column.index, dtype=object)


def numbers(
    text: pd.Series,
    file: str,
    lines: Int64Array,
    column: str,
    problems: Problems,
    seen: dict[str, int] | None = None,
) -> tuple[FloatArray, npt.NDArray[np.bool_]]:
    """Non-negative numbers of a text column (NaN where blank) and the blank mask.

    A cell spelled as in :data:`NO_VALUE` (``null``, ``undefined``, ``NaN``) is
    blank; *seen* (if given) counts those cells by spelling.
    """
    num = pd.to_numeric(text, errors="coerce").to_numpy(
        dtype=np.float64, na_value=np.nan
    )
    blank = np.zeros(len(num), dtype=bool)
    not_number = np.flatnonzero(~np.isfinite(num))
    if len(not_number):  # blank cells, or cells to report
        words = text.iloc[not_number].str.strip()
        said = words.str.casefold().isin(NO_VALUE)
        blank[not_number] = (words.eq("") | said).to_numpy(dtype=bool, copy=True)
        if seen is not None and said.any():
            for word, n in words[said].value_counts().items():
                seen[str(word)] = seen.get(str(word), 0) + int(n)
    bad = (~blank & ~np.isfinite(num)) | (num < 0)
    for pos in np.flatnonzero(bad):
        problems.cell(
            file,
            int(lines[pos]),
            EXPECTED_NUMBER,
            text.iloc[pos].strip(),
            column=column,
        )
    return num, blank


#: A utilization above this (10,000 %) is no utilization: not even a per-core sum.
_NO_UTILIZATION = 100.0


def convert(
    file: str,
    server: npt.NDArray[Any],
    metric: npt.NDArray[Any],
    value: FloatArray,
    unit: npt.NDArray[Any],
    lines: Int64Array,
    unit_column: str,
    problems: Problems,
    quality: SeriesQuality,
) -> FloatArray:
    """Values in canonical units; guesses the unit of utilizations given without one."""
    out = value.copy()
    pairs = pd.DataFrame({"m": metric, "u": unit}).fillna({"u": ""})
    groups: dict[Any, Any] = pairs.groupby(["m", "u"], sort=True).indices
    for key, positions in groups.items():
        idx = np.asarray(positions, dtype=np.intp)
        m, u = str(key[0]), str(key[1])
        if u == "":
            if KIND_OF_METRIC[m] != "ratio":
                continue  # canonical unit
            no_unit = value[idx]  # every value of m given without a unit
            u = ratio_unit_by_values(no_unit)
            why = (
                "all such values of the file are <= 1"
                if u == "fraction"
                else f"such values of the file reach {float(np.max(no_unit)):g}"
            )
            for name, cnt in count_by(server[idx]).items():
                quality.add(
                    name, "unit_guess", cnt, f"{m} has no unit; read as {u}: {why}"
                )
        try:
            factor = unit_factor(m, u)
        except ValueError:
            for pos in idx:
                problems.cell(
                    file,
                    int(lines[pos]),
                    f"a unit of {m}: {UNITS_EXPECTED[KIND_OF_METRIC[m]]}",
                    u,
                    column=unit_column,
                )
            continue
        out[idx] = value[idx] * factor
    ratio = np.isin(metric, ["cpu_util", "mem_util"]) & (out > 1.0)
    wild = ratio & (out > _NO_UTILIZATION)
    if wild.any():  # cores, bytes or counts given as a utilization: never clip those
        names = sorted({str(n) for n in server[wild]})
        problems.whole(
            file,
            f"{', '.join(sorted({str(m) for m in metric[wild]}))} of "
            f"{', '.join(names[:3])}{' ...' if len(names) > 3 else ''} reaches "
            f"{float(np.max(out[wild])) * 100:g} %, which is no utilization (a "
            "per-core sum stays below 100 x 100 %); expected the --metric the "
            "column holds (e.g. mem_used_gib, net_mbps).",
        )
        ratio &= ~wild
    if ratio.any():
        for name, cnt in count_by(server[ratio]).items():
            quality.add(name, "clipped", cnt, "utilization above 100 % set to 100 %")
        out[ratio] = 1.0
    return out


def count_by(server: npt.NDArray[Any]) -> dict[str, int]:
    """Rows per server name, by name."""
    if len(server) == 0:
        return {}
    names, counts = np.unique(server.astype(str), return_counts=True)
    return {str(n): int(c) for n, c in zip(names, counts, strict=True)}


def units_read(
    metric: npt.NDArray[Any], unit: npt.NDArray[Any]
) -> dict[str, list[str]]:
    """Metric -> the source units read for it (``(none)`` for none), sorted."""
    pairs = pd.DataFrame({"m": metric.astype(str), "u": unit}).drop_duplicates()
    found: dict[str, set[str]] = {}
    for m, u in zip(pairs["m"], pairs["u"], strict=True):
        found.setdefault(str(m), set()).add("" if u is None or u != u else str(u))
    return {
        m: sorted(u or "(none)" for u in units) for m, units in sorted(found.items())
    }


def finish(
    server: npt.NDArray[Any],
    ts: Int64Array,
    metric: npt.NDArray[Any],
    value: FloatArray,
    quality: SeriesQuality,
) -> tuple[pd.DataFrame, list[float]]:
    """Drop repeated (server, metric, time) rows (first kept), check gaps, build."""
    frame = pd.DataFrame({"s": server, "m": metric, "t": ts, "v": value})
    dup = frame.duplicated(["s", "m", "t"], keep="first").to_numpy()
    if dup.any():
        for name, cnt in count_by(server[dup]).items():
            quality.add(
                name, "duplicate", cnt, "rows repeating (metric, time); first kept"
            )
        frame = frame[~dup]
    steps: list[float] = []
    for key, g in frame.groupby("s", sort=True):
        med = check_gaps(quality, str(key), np.unique(g["t"].to_numpy()))
        if med is not None:
            steps.append(med)
    data = tidy_frame(
        frame["s"].to_numpy(dtype=object),
        frame["t"].to_numpy(dtype=np.int64),
        frame["m"].to_numpy(dtype=object),
        frame["v"].to_numpy(dtype=np.float64),
    )
    return data, steps
