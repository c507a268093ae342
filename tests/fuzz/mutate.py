"""Mutation families of the fuzz suite.

Every family is a function ``(data, kind, rnd) -> bytes`` that takes a seed's
bytes, its kind (``text`` or ``xlsx``) and a :class:`random.Random`, and
returns the mutated bytes. The same functions are driven by hypothesis in CI
(``st.randoms`` gives a shrinkable Random) and by a seeded Random in the long
runner, so a failure is reproduced from ``(seed name, family, random seed)``.

Families
--------
byte_flip          1-8 random bytes XOR-ed with random values
truncate           cut at a random offset
empty              zero bytes
header_only        the rows up to and including the header row
column_delete      one column removed from every row
column_duplicate   one column repeated at the end of every row
type_swap          one cell replaced with text, a date, a boolean, a blank...
extreme_number     one number replaced with 1e400, -1, NaN, inf, 1e20, ...
huge_cell          one cell of 131,073 characters
row_duplicate      a data row repeated (duplicate names)
control_chars      ESC sequences, NUL, bidi overrides inside a cell
encoding           re-encoded (cp932, UTF-16 with/without BOM, latin-1) or
                   invalid bytes inserted
xlsx_member        (xlsx) a zip member damaged: deflate stream garbled,
                   truncated, XML broken, or the member removed
"""

from __future__ import annotations

import io
import random
import re
import zipfile
from collections.abc import Callable

Mutator = Callable[[bytes, str, random.Random], bytes]

EXTREME_NUMBERS = (
    "1e400", "-1e400", "1e308", "1e300", "1e20", "-1", "-0", "0", "-1e20", "nan",
    "NaN", "inf", "-inf", "Infinity", "1e-320", "99999999999999999999999", "0x10",
    "1_000", "１２", "4.", ".5", "+3", "1e", "--1",
)
TYPE_SWAPS = (
    "", " ", "abc", "n/a", "-", "—", "TRUE", "False", "2024-01-01", "12:30",
    "1,234.5", "12%", "45 %", "=SUM(A1:A2)", '"', "'", "None", "null", "[1]", "{}",
)
CONTROL = ("\x1b[2J", "\x00", "\u202e", "\r", "\x7f", "a\nb", "\x1b]0;t\x07", "\ufeff")
_NUMBER = re.compile(rb"(?<![\w.])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w.])")


# ------------------------------------------------------------------ text helpers
def _decode(data: bytes) -> tuple[str, str]:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", errors="replace"), "utf-16"
    for enc in ("utf-8-sig", "cp932"):
        try:
            return data.decode(enc), enc
        except UnicodeDecodeError:
            continue
    return data.decode("latin-1"), "latin-1"


def _encode(text: str, enc: str) -> bytes:
    if enc == "utf-8-sig" and not text.startswith("\ufeff"):
        enc = "utf-8"
    return text.encode(enc, errors="replace")


def _delimiter(lines: list[str]) -> str | None:
    sample = "\n".join(lines[:20])
    counts = {d: sample.count(d) for d in (",", ";", "\t")}
    best = max(counts, key=lambda d: counts[d])
    if counts[best]:
        return best
    return " " if " " in sample else None


def _header_index(lines: list[str], delim: str | None) -> int:
    """The first line among the first 10 with the most delimiters."""
    if delim is None:
        return 0
    head = lines[:10]
    counts = [line.count(delim) for line in head]
    return counts.index(max(counts)) if counts else 0


def _table(data: bytes) -> tuple[list[list[str]], str, str, str, int] | None:
    text, enc = _decode(data)
    nl = "\r\n" if "\r\n" in text else "\n"
    lines = text.split(nl)
    delim = _delimiter(lines)
    if delim is None:
        return None
    rows = [line.split(delim) for line in lines]
    return rows, delim, nl, enc, _header_index(lines, delim)


def _untable(rows: list[list[str]], delim: str, nl: str, enc: str) -> bytes:
    return _encode(nl.join(delim.join(r) for r in rows), enc)


def _data_cells(rows: list[list[str]], header: int) -> list[tuple[int, int]]:
    return [(i, j) for i in range(header + 1, len(rows)) for j in range(len(rows[i]))
            if rows[i][j].strip()]


def _set_text_cell(data: bytes, rnd: random.Random, value: Callable[[str], str]) -> bytes:
    t = _table(data)
    if t is None:
        text, enc = _decode(data)
        pos = rnd.randrange(len(text) + 1)
        return _encode(text[:pos] + value("") + text[pos:], enc)
    rows, delim, nl, enc, header = t
    cells = _data_cells(rows, header) or _data_cells(rows, -1)
    if not cells:
        return data
    i, j = rnd.choice(cells)
    rows[i][j] = value(rows[i][j])
    return _untable(rows, delim, nl, enc)


# ------------------------------------------------------------------ xlsx helpers
def _xlsx_edit(data: bytes, rnd: random.Random, edit: Callable[..., None]) -> bytes:
    """Load the workbook, apply ``edit(ws, rnd)`` to one sheet, save."""
    import openpyxl

    wb = openpyxl.load_workbook(io.BytesIO(data))
    sheets = [ws for ws in wb.worksheets if ws.max_row > 1] or wb.worksheets
    edit(rnd.choice(sheets), rnd)
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def _xlsx_header_row(ws) -> int:
    best, best_n = 1, -1
    for r in range(1, min(ws.max_row, 10) + 1):
        n = sum(1 for c in ws[r] if c.value not in (None, ""))
        if n > best_n:
            best, best_n = r, n
    return best


def _xlsx_cell(ws, rnd: random.Random, numeric: bool = False):
    header = _xlsx_header_row(ws)
    cells = [c for row in ws.iter_rows(min_row=header + 1) for c in row
             if c.value is not None and (not numeric or isinstance(c.value, int | float))]
    if not cells:
        cells = [c for row in ws.iter_rows() for c in row if c.value is not None]
    return rnd.choice(cells) if cells else None


def _xlsx_set(value_of: Callable[[object, random.Random], object], numeric: bool = False):
    def edit(ws, rnd: random.Random) -> None:
        cell = _xlsx_cell(ws, rnd, numeric)
        if cell is not None:
            cell.value = value_of(cell.value, rnd)
    return edit


def _extreme_value(_old: object, rnd: random.Random) -> object:
    choice = rnd.choice(EXTREME_NUMBERS + ("num",) * 6)
    if choice == "num":
        return rnd.choice([1e400, -1e400, 1e308, 1e20, -1.0, 0, float("nan"), -1e20,
                           2**70, 1e-320])
    return choice


# ------------------------------------------------------------------ families
def byte_flip(data: bytes, kind: str, rnd: random.Random) -> bytes:
    if not data:
        return data
    buf = bytearray(data)
    for _ in range(rnd.randint(1, 8)):
        buf[rnd.randrange(len(buf))] ^= rnd.randint(1, 255)
    return bytes(buf)


def truncate(data: bytes, kind: str, rnd: random.Random) -> bytes:
    return data[: rnd.randrange(len(data) + 1)] if data else data


def empty(data: bytes, kind: str, rnd: random.Random) -> bytes:
    return b""


def header_only(data: bytes, kind: str, rnd: random.Random) -> bytes:
    if kind == "xlsx":
        def edit(ws, rnd: random.Random) -> None:
            header = _xlsx_header_row(ws)
            if ws.max_row > header:
                ws.delete_rows(header + 1, ws.max_row - header)
        return _xlsx_edit(data, rnd, edit)
    text, enc = _decode(data)
    nl = "\r\n" if "\r\n" in text else "\n"
    lines = text.split(nl)
    keep = _header_index(lines, _delimiter(lines)) + 1
    return _encode(nl.join(lines[:keep]) + rnd.choice(["", nl]), enc)


def column_delete(data: bytes, kind: str, rnd: random.Random) -> bytes:
    if kind == "xlsx":
        def edit(ws, rnd: random.Random) -> None:
            ws.delete_cols(rnd.randint(1, max(ws.max_column, 1)))
        return _xlsx_edit(data, rnd, edit)
    t = _table(data)
    if t is None:
        return data
    rows, delim, nl, enc, header = t
    j = rnd.randrange(max(len(rows[header]), 1))
    for r in rows:
        if j < len(r) and len(r) > 1:
            del r[j]
    return _untable(rows, delim, nl, enc)


def column_duplicate(data: bytes, kind: str, rnd: random.Random) -> bytes:
    if kind == "xlsx":
        def edit(ws, rnd: random.Random) -> None:
            j, end = rnd.randint(1, max(ws.max_column, 1)), ws.max_column + 1
            for r in range(1, ws.max_row + 1):
                ws.cell(r, end).value = ws.cell(r, j).value
        return _xlsx_edit(data, rnd, edit)
    t = _table(data)
    if t is None:
        return data
    rows, delim, nl, enc, header = t
    j = rnd.randrange(max(len(rows[header]), 1))
    for r in rows:
        if j < len(r) and r != [""]:
            r.append(r[j])
    return _untable(rows, delim, nl, enc)


def type_swap(data: bytes, kind: str, rnd: random.Random) -> bytes:
    if kind == "xlsx":
        return _xlsx_edit(data, rnd, _xlsx_set(lambda _v, r: r.choice(
            TYPE_SWAPS + (True, 3.5))))
    return _set_text_cell(data, rnd, lambda _old: rnd.choice(TYPE_SWAPS))


def extreme_number(data: bytes, kind: str, rnd: random.Random) -> bytes:
    if kind == "xlsx":
        return _xlsx_edit(data, rnd, _xlsx_set(_extreme_value, numeric=True))
    spots = list(_NUMBER.finditer(data))
    if not spots:
        return data
    m = rnd.choice(spots)
    new = rnd.choice(EXTREME_NUMBERS).encode()
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):  # UTF-16: go through text
        return _set_text_cell(data, rnd, lambda _old: new.decode())
    return data[: m.start()] + new + data[m.end():]


def huge_cell(data: bytes, kind: str, rnd: random.Random) -> bytes:
    big = rnd.choice("x9") * 131_073
    if kind == "xlsx":
        return _xlsx_edit(data, rnd, _xlsx_set(lambda _v, _r: big[:32_000]))
    return _set_text_cell(data, rnd, lambda _old: big)


def row_duplicate(data: bytes, kind: str, rnd: random.Random) -> bytes:
    if kind == "xlsx":
        def edit(ws, rnd: random.Random) -> None:
            header = _xlsx_header_row(ws)
            if ws.max_row <= header:
                return
            r = rnd.randint(header + 1, ws.max_row)
            vals = [c.value for c in ws[r]]
            ws.append(vals)
        return _xlsx_edit(data, rnd, edit)
    text, enc = _decode(data)
    nl = "\r\n" if "\r\n" in text else "\n"
    lines = text.split(nl)
    header = _header_index(lines, _delimiter(lines))
    body = [i for i in range(header + 1, len(lines)) if lines[i].strip()]
    if not body:
        return data
    i = rnd.choice(body)
    lines.insert(rnd.randint(header + 1, len(lines)), lines[i])
    return _encode(nl.join(lines), enc)


def control_chars(data: bytes, kind: str, rnd: random.Random) -> bytes:
    ctl = rnd.choice(CONTROL)
    if kind == "xlsx":
        # XML 1.0 cannot hold most C0 controls: openpyxl refuses them.
        safe = ctl if ctl in ("\u202e", "\ufeff") else "\u202e"
        return _xlsx_edit(data, rnd, _xlsx_set(lambda v, _r: f"{v}{safe}"))
    return _set_text_cell(data, rnd, lambda old: old[: len(old) // 2] + ctl
                          + old[len(old) // 2:])


def encoding(data: bytes, kind: str, rnd: random.Random) -> bytes:
    if kind == "xlsx":
        return byte_flip(data, kind, rnd)
    text, _enc = _decode(data)
    how = rnd.choice(["cp932", "utf-16", "utf-16-le", "utf-16-be", "latin-1",
                      "utf-8-sig", "invalid", "invalid", "nul"])
    if how == "invalid":
        bad = rnd.choice([b"\xff", b"\x80", b"\xc3", b"\xe3\x81", b"\xed\xa0\x80",
                          b"\xfe\xff"])
        pos = rnd.randrange(len(data) + 1)
        return data[:pos] + bad + data[pos:]
    if how == "nul":
        pos = rnd.randrange(len(data) + 1)
        return data[:pos] + b"\x00" + data[pos:]
    if how == "utf-16":
        return text.encode("utf-16")
    return text.encode(how, errors="replace")


def xlsx_member(data: bytes, kind: str, rnd: random.Random) -> bytes:
    if kind != "xlsx":
        return truncate(data, kind, rnd)
    src = zipfile.ZipFile(io.BytesIO(data))
    infos = src.infolist()
    victim = rnd.choice([i for i in infos if i.filename.endswith(".xml")] or infos)
    how = rnd.choice(["garble_deflate", "truncate_xml", "break_xml", "drop",
                      "garble_deflate"])
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in infos:
            body = src.read(info.filename)
            if info.filename == victim.filename:
                if how == "drop":
                    continue
                if how == "truncate_xml":
                    body = body[: rnd.randrange(len(body) + 1)]
                elif how == "break_xml":
                    pos = rnd.randrange(len(body) + 1)
                    body = body[:pos] + rnd.choice([b"<", b"&", b"</x>", b"\x00"]) + body[pos:]
            dst.writestr(info, body)
    out = buf.getvalue()
    if how != "garble_deflate":
        return out
    # Damage the compressed bytes of the victim, leaving the zip directory valid
    # (zipfile then raises zlib.error or BadZipFile "Bad CRC" while reading).
    z = zipfile.ZipFile(io.BytesIO(out))
    info = z.getinfo(victim.filename)
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    if info.compress_size == 0:
        return out
    buf2 = bytearray(out)
    for _ in range(rnd.randint(1, 4)):
        pos = start + rnd.randrange(info.compress_size)
        buf2[pos] ^= rnd.randint(1, 255)
    return bytes(buf2)


FAMILIES: dict[str, Mutator] = {
    "byte_flip": byte_flip,
    "truncate": truncate,
    "empty": empty,
    "header_only": header_only,
    "column_delete": column_delete,
    "column_duplicate": column_duplicate,
    "type_swap": type_swap,
    "extreme_number": extreme_number,
    "huge_cell": huge_cell,
    "row_duplicate": row_duplicate,
    "control_chars": control_chars,
    "encoding": encoding,
    "xlsx_member": xlsx_member,
}


def families_for(kind: str) -> list[str]:
    """Families that make sense for a kind (``xlsx_member`` only for xlsx)."""
    return [f for f in FAMILIES if kind == "xlsx" or f != "xlsx_member"]


def mutate(data: bytes, kind: str, family: str, rnd: random.Random,
           stack: int = 1) -> bytes:
    """Apply ``family`` then ``stack - 1`` further random families (stacked mutation)."""
    out = FAMILIES[family](data, kind, rnd)
    for _ in range(stack - 1):
        try:
            out = FAMILIES[rnd.choice(families_for(kind))](out, kind, rnd)
        except Exception:  # an xlsx already broken cannot be edited with openpyxl
            break
    return out
