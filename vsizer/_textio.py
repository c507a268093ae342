"""Opening text inputs: decompression, decoding, delimiter sniffing and UTC times, shared by every reader.

Every text format vsizer reads (sar/sadf, perfmon CSV, Prometheus scrapes and
JSON, long and wide CSV, PlanetLab, Bitbrains, Alibaba, the inventory CSV) goes
through :func:`read_bytes` or :func:`open_binary`, so a ``.gz``, ``.bz2``,
``.xz`` or single-member ``.zip`` copy of a file reads exactly as the file.

* **Compression** is told by the file's first bytes (its magic number), not
  its name: gzip ``1f 8b`` (RFC 1952 §2.3.1), bzip2 ``BZh``, xz
  ``fd 37 7a 58 5a 00`` (The .xz File Format 1.2.1, §2.1.1.1), zip
  ``PK 03 04`` (PKWARE APPNOTE.TXT 6.3.10, §4.3.7). A name ending in one of
  :data:`COMPRESSED_SUFFIXES` whose bytes are plain is read as plain.
* **Unpacked size**: a compressed file is counted as it decompresses and
  refused past ``--max-unpacked-mib`` (:class:`vsizer.limits.Limits`), so a
  few kilobytes of gzip that unpack to terabytes (a "gzip bomb") stop at the
  limit with one line instead of filling memory or running for hours.
* **Text**: a UTF-16 or UTF-8 byte-order mark decides; else the encodings
  given are tried in order (UTF-8, then cp932 by default). The readers differ
  only by the parameters they pass: the encodings tried (the inventory adds
  shift_jis, sysstat ends with Latin-1 which always decodes, perfmon tries
  Western and Cyrillic code pages), whether a UTF-16 mark is honoured (sysstat
  refuses NUL bytes before decoding), whether bare UTF-16 is told by its
  first character (perfmon's ``"``), and whether bad bytes are replaced
  (a Prometheus scrape).
* **Delimiter**: the most frequent of ``,``, tab and ``;`` over the first lines.
* **Times**: :func:`utc_ns`, one time as nanoseconds since the epoch, UTC.

This module imports nothing from vsizer but :mod:`vsizer.errors` and
:mod:`vsizer.limits`.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pandas as pd

from vsizer.errors import InputError, SeriesError
from vsizer.limits import current

__all__ = [
    "COMPRESSED_SUFFIXES",
    "candidate_encodings",
    "compression_of",
    "decode",
    "decodings",
    "open_binary",
    "plain_name",
    "read_bytes",
    "sniff_delimiter",
    "utc_ns",
]

#: File-name endings of the compressed forms (stripped by :func:`plain_name`).
COMPRESSED_SUFFIXES: tuple[str, ...] = (".gz", ".bz2", ".xz", ".zip")

_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x1f\x8b", "gzip"),
    (b"BZh", "bzip2"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"PK\x03\x04", "zip"),
    (b"PK\x05\x06", "zip"),  # an empty archive (end of central directory only)
)

#: Encodings tried by :func:`decode` when the text has no byte-order mark.
DEFAULT_ENCODINGS: tuple[str, ...] = ("utf-8-sig", "cp932")


def compression_of(head: bytes) -> str | None:
    """'gzip', 'bzip2', 'xz', 'zip' or None (plain) from a file's first bytes."""
    for magic, name in _MAGIC:
        if head.startswith(magic):
            return name
    return None


def plain_name(path: str | os.PathLike[str]) -> str:
    """The file name without a compression suffix: ``web01.csv.gz`` -> ``web01.csv``."""
    name = Path(path).name
    for suffix in COMPRESSED_SUFFIXES:
        if name.lower().endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return name


def open_binary(
    path: str | os.PathLike[str], *, error: type[InputError] = SeriesError
) -> IO[bytes]:
    """A binary stream of the file's content, decompressed when it is compressed.

    Raises
    ------
    InputError (the class given as *error*)
        The file cannot be read, or is a zip archive without exactly one file.
    """
    p = Path(path)
    try:
        with open(p, "rb") as fh:
            kind = compression_of(fh.read(6))
        if kind is None:
            return open(p, "rb")
        inner = _decompressing(p, kind, error)
        cap = current().max_unpacked_mib
        return io.BufferedReader(_Capped(inner, cap, p.name, error), 1 << 20)
    except OSError as exc:
        raise error(f"{p.name}: cannot read the file: {exc.strerror or exc}.") from None


def _decompressing(p: Path, kind: str, error: type[InputError]) -> IO[bytes]:
    if kind == "gzip":
        return gzip.open(p, "rb")  # type: ignore[return-value]
    if kind == "bzip2":
        return bz2.open(p, "rb")
    if kind == "xz":
        return lzma.open(p, "rb")
    return _zip_member(p, error)


_READALL_CHUNK = 16 << 20


class _Capped(io.RawIOBase):
    """A decompressing stream that refuses to give more than ``cap_mib`` MiB."""

    def __init__(
        self, inner: IO[bytes], cap_mib: int, name: str, error: type[InputError]
    ) -> None:
        super().__init__()
        self._inner, self._cap_mib, self._name, self._error = inner, cap_mib, name, error
        self._left = cap_mib * (1 << 20)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        # One byte more than what is left: a file of exactly the limit passes.
        view = memoryview(buffer).cast("B")[: self._left + 1]
        n = int(self._inner.readinto(view))  # type: ignore[attr-defined]
        self._take(n)
        return n

    def readall(self) -> bytes:
        parts = []
        while chunk := self._inner.read(min(self._left + 1, _READALL_CHUNK)):
            self._take(len(chunk))
            parts.append(chunk)
        return b"".join(parts)

    def _take(self, n: int) -> None:
        self._left -= n
        if self._left < 0:
            raise self._error(
                f"{self._name}: unpacks to more than {self._cap_mib:,} MiB, the limit "
                "for one compressed file; raise it with --max-unpacked-mib."
            )

    def close(self) -> None:
        if not self.closed:
            self._inner.close()
        super().close()


def _zip_member(p: Path, error: type[InputError]) -> IO[bytes]:
    try:
        archive = zipfile.ZipFile(p)
    except zipfile.BadZipFile as exc:
        raise error(f"{p.name}: cannot read the zip archive: {exc}.") from None
    members = [i for i in archive.infolist() if not i.is_dir()]
    if len(members) != 1:
        names = ", ".join(i.filename for i in members[:5])
        archive.close()
        raise error(
            f"{p.name}: expected a zip archive holding one file, got "
            f"{len(members)}{': ' + names if names else ''}; unzip it and name the "
            "files (or their folder) instead."
        )
    return archive.open(members[0])


def read_bytes(
    path: str | os.PathLike[str], *, error: type[InputError] = SeriesError
) -> bytes:
    """The whole content of the file, decompressed (see :func:`open_binary`).

    Raises
    ------
    InputError (the class given as *error*)
        Unreadable file, corrupt compressed data, a zip archive without
        exactly one file.
    """
    with open_binary(path, error=error) as fh:
        try:
            return fh.read()
        except (OSError, EOFError, zlib.error, lzma.LZMAError, zipfile.BadZipFile) as exc:
            raise error(
                f"{Path(path).name}: cannot decompress the file: {exc}."
            ) from None


_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def candidate_encodings(
    data: bytes,
    encodings: tuple[str, ...] = DEFAULT_ENCODINGS,
    *,
    utf16_bom: bool = True,
    bare_utf16_start: bytes | None = None,
) -> tuple[str, ...]:
    """The encodings to try on *data*, in order.

    ``("utf-16",)`` when *utf16_bom* and the data starts with a UTF-16
    byte-order mark (``FF FE`` / ``FE FF``); ``("utf-16-le",)`` or
    ``("utf-16-be",)`` when the data starts with the one-byte character
    *bare_utf16_start* followed (little-endian) or preceded (big-endian) by a
    NUL, UTF-16 saved without a mark; else *encodings*.
    """
    if utf16_bom and data.startswith(_UTF16_BOMS):
        return ("utf-16",)
    if bare_utf16_start is not None:
        if data[:2] == bare_utf16_start + b"\x00":
            return ("utf-16-le",)
        if data[:2] == b"\x00" + bare_utf16_start:
            return ("utf-16-be",)
    return encodings


def decodings(
    data: bytes, encodings: tuple[str, ...], *, errors: str = "strict"
) -> Iterator[tuple[str, str]]:
    """``(text, encoding)`` for each of *encodings* that decodes *data*, in order.

    An encoding that fails (or that Python does not know) is passed over.
    """
    for enc in encodings:
        try:
            yield data.decode(enc, errors), enc
        except (UnicodeDecodeError, LookupError):
            continue


def decode(
    data: bytes,
    label: str,
    *,
    encodings: tuple[str, ...] = DEFAULT_ENCODINGS,
    error: type[InputError] = SeriesError,
    utf16_bom: bool = True,
    errors: str = "strict",
) -> tuple[str, str]:
    """Text of *data* and the encoding that decoded it.

    A UTF-16 byte-order mark (``FF FE`` / ``FE FF``) means UTF-16 (unless
    *utf16_bom* is false) and a UTF-8 one UTF-8; otherwise *encodings* are
    tried in order. *errors* is that of :meth:`bytes.decode` (``"replace"``
    never fails).

    Raises
    ------
    InputError (the class given as *error*)
        No encoding decodes the bytes; the message names those tried.
    """
    candidates = candidate_encodings(data, encodings, utf16_bom=utf16_bom)
    if candidates == ("utf-16",):
        # The mark settles the encoding: decoding the bytes as cp932 instead
        # would read every other byte as a NUL, never what the file meant.
        try:
            return data.decode("utf-16", errors), "utf-16"
        except UnicodeDecodeError as exc:
            odd = f", an odd number of bytes ({len(data):,})" if len(data) % 2 else ""
            raise error(
                f"{label}: cannot decode the file as UTF-16, which its byte-order "
                f"mark announces: {exc.reason} at byte {exc.start:,}{odd}; the file "
                "is damaged or cut short: save it again (as UTF-8 or UTF-16)."
            ) from None
    for found in decodings(data, candidates, errors=errors):
        return found
    tried = " or ".join(
        {"utf-8-sig": "UTF-8", "cp932": "cp932 (Shift_JIS)"}.get(e, e)
        for e in encodings
        if e != "shift_jis"  # a subset of cp932: it never decodes what cp932 cannot
    )
    raise error(
        f"{label}: cannot decode the file as {tried}; save it as UTF-8 "
        "(a .gz, .bz2, .xz or one-file .zip is decompressed first)."
    )


def sniff_delimiter(text: str, lines: int = 20) -> str:
    """The most frequent of ``,``, tab and ``;`` over the first *lines* non-blank lines.

    ``,`` when none occurs (a one-column file). ``|`` when every one of those
    lines has the same number of them and it outnumbers the others (pipe-separated
    exports of asset databases).
    """
    head = [ln for ln in text[: 1 << 16].splitlines() if ln.strip()]
    head = head[:lines]
    counts = {d: sum(line.count(d) for line in head) for d in (",", "\t", ";")}
    best = max(counts, key=lambda d: counts[d])
    pipes = {line.count("|") for line in head if not line.lstrip().startswith("#")}
    if len(pipes) == 1 and (n := pipes.pop()) > 0 and n * len(head) > counts[best]:
        return "|"
    return best if counts[best] > 0 else ","


def utc_ns(value: str | pd.Timestamp) -> int | None:
    """``value`` as nanoseconds since the Unix epoch (UTC); a naive time is UTC.

    None when it is no time.
    """
    try:
        ts = pd.Timestamp(value)
    except (ValueError, TypeError):
        return None
    if ts is pd.NaT:
        return None
    ts = ts.tz_localize("UTC") if ts.tzinfo is None else ts.tz_convert("UTC")
    return int(ts.as_unit("ns").value)
