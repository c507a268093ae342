"""Reading a whole text file that is small by nature: a scenario, a catalog, a
profile, a measurement file, a plan.

``Path.read_text`` reads until the end of the file, so a device (``--config
/dev/zero``) or a named pipe fed without end filled 9.7 GB of memory in 60 s.
:func:`read_small_text` reads at most the limit and one byte more and refuses
what is past it in one line; below the limit it returns what ``read_text``
would (the same decoding, universal newlines), and raises the same
``OSError`` and ``UnicodeDecodeError``, so each caller keeps its messages.
"""

from __future__ import annotations

import os
from pathlib import Path

from vsizer.errors import InputError

#: A scenario, catalog, profile or measurement file is at most this big [MiB].
MAX_TEXT_FILE_MIB = 64


def read_small_text(
    path: str | os.PathLike[str],
    *,
    what: str,
    error: type[InputError],
    encoding: str = "utf-8",
    limit_mib: int = MAX_TEXT_FILE_MIB,
) -> str:
    """The text of ``path``, refused past ``limit_mib`` MiB.

    Raises
    ------
    OSError, UnicodeDecodeError
        As ``Path.read_text`` (not found, a folder, no permission, bad bytes).
    InputError (the class given as *error*)
        ``{path}: more than {limit} MiB, too large for {what} (is it a device
        or a pipe without end?).``
    """
    limit = limit_mib * 1024 * 1024
    with open(path, "rb") as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise error(
            f"{Path(path)}: more than {limit_mib:,} MiB, too large for {what} "
            "(is it a device or a pipe without end?); give the file itself."
        )
    return data.decode(encoding).replace("\r\n", "\n").replace("\r", "\n")


def not_a_file(path: str | os.PathLike[str]) -> str:
    """Why ``path`` cannot be read as a file, for a message after ``NAME: ``:
    ``file not found: PATH``, or what it is when it exists (a folder, a device
    or a named pipe)."""
    p = Path(path)
    if p.is_dir():
        return f"a folder, not a file: {os.fspath(path)}"
    if p.exists():
        return (f"not a regular file (a device or a named pipe): {os.fspath(path)}; "
                "give the file itself.")
    return f"file not found: {os.fspath(path)}"
