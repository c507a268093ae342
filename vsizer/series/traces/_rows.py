"""Comma-separated rows without a header, read in blocks with every line's field count checked.

pandas' C parser pads a short line with empty cells and, given ``usecols``,
silently drops the surplus of a long one; a line of the wrong width in a trace
without header is then read as empty or shifted values. Here each block of
lines is checked first (commas counted with numpy, no Python loop per line);
lines of another width are problems naming the line, and only blocks without
them go to pandas.
"""

from __future__ import annotations

import io
import lzma
import zlib
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from vsizer._textio import open_binary
from vsizer.errors import SeriesError
from vsizer.series._tidy import Problems

#: Bytes read per block (whole lines; the last partial line is carried over).
BLOCK_BYTES = 32 * 2**20

READ_ERRORS = (
    OSError, EOFError, zlib.error, lzma.LZMAError, UnicodeDecodeError, SeriesError
)


def read_failure(file: str, exc: BaseException) -> str:
    """What to say of a file that failed while read (the text after ``{file}: ``).

    A :class:`SeriesError` from :func:`~vsizer._textio.open_binary` (a zip
    without one member, the unpacked-size limit) already names the file and
    says what is wrong: its text is kept as it is.
    """
    if isinstance(exc, SeriesError):
        return str(exc).removeprefix(f"{file}: ")
    return f"cannot read the file: {exc}."


def _raw_blocks(path: Path, block_bytes: int) -> Iterator[tuple[bytes, int]]:
    """Blocks of whole lines and the 1-based number of each block's first line."""
    line0 = 1
    rest = b""
    with open_binary(path) as fh:  # any compression, told by content
        while True:
            buf = fh.read(block_bytes)
            if not buf:
                break
            buf = rest + buf
            cut = buf.rfind(b"\n")
            if cut < 0:
                rest = buf
                continue
            block, rest = buf[: cut + 1], buf[cut + 1 :]
            yield block, line0
            line0 += block.count(b"\n")
    if rest:
        yield rest + b"\n", line0


def _line_shape(
    block: bytes,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Start offset, comma count, blankness and oddness of every line of ``block``.

    A line is odd when it holds a quote or a carriage return before its end:
    the trace format has neither, and the CSV parser would join or split lines
    there, so the line is reported rather than parsed."""
    arr = np.frombuffer(block, dtype=np.uint8)
    ends = np.flatnonzero(arr == 10)
    starts = np.concatenate(([0], ends[:-1] + 1))
    commas = np.add.reduceat((arr == 44).astype(np.int64), starts)
    length = ends - starts  # without the newline
    cr = (arr[np.maximum(ends - 1, 0)] == 13) & (length > 0)
    blank = (length - cr) == 0
    crs = np.add.reduceat((arr == 13).astype(np.int64), starts) - cr
    quotes = np.add.reduceat((arr == 34).astype(np.int64), starts)
    odd = ((crs > 0) | (quotes > 0)) & (length > 0)
    return starts, commas, blank, odd


def csv_rows(
    path: Path,
    *,
    file: str,
    columns: Sequence[str],
    usecols: Sequence[int],
    problems: Problems,
    block_bytes: int = BLOCK_BYTES,
) -> Iterator[pd.DataFrame]:
    """Frames of text cells (``usecols`` of ``columns``) plus ``line`` (1-based).

    Blank lines are skipped. A line without ``len(columns)`` fields is recorded
    in ``problems`` as ``{file} line {n}: expected {k} comma-separated fields
    (...), got '{line}'.`` and its block is not parsed. An unreadable
    or undecodable file is one problem.
    """
    n_fields = len(columns)
    names = [columns[i] for i in usecols]
    expected = f"{n_fields} comma-separated fields ({', '.join(columns[:3])}, ...)"
    try:
        for block, line0 in _raw_blocks(path, block_bytes):
            starts, commas, blank, odd = _line_shape(block)
            wrong = np.flatnonzero(~blank & ((commas != n_fields - 1) | odd))
            for pos in wrong:
                end = block.find(b"\n", int(starts[pos]))
                text = block[int(starts[pos]) : end].decode("utf-8", "replace")
                shown = text.rstrip().replace("\r", "\\r")
                what = (
                    f"{expected} without quotes or carriage returns"
                    if odd[pos] else expected
                )
                problems.cell(file, line0 + int(pos), what, shown)
            if len(wrong) or bool(blank.all()):
                continue
            frame = pd.read_csv(
                io.BytesIO(block),
                header=None,
                names=list(columns),
                usecols=list(usecols),
                dtype=str,
                keep_default_na=False,
                engine="c",
            )[names]
            frame["line"] = line0 + np.flatnonzero(~blank)
            yield frame
    except READ_ERRORS as exc:
        problems.whole(file, read_failure(file, exc))
