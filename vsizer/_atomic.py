"""Atomic output files: a complete new version or the old one, never a torn file.

Every file vsizer writes as output (plans, reports, catalogs, profiles,
exports) goes through :func:`atomic_write`: the content is written to a
temporary file in the target's directory, flushed and fsynced, then renamed
over the target with :func:`os.replace` (atomic on POSIX and Windows within a
file system) and the directory fsynced. A full disk, a kill or a crash thus
leaves either the previous complete file or none, plus no temporary (it is
removed on any error; a ``kill -9`` can leave a ``.NAME.*.tmp`` beside it).

:func:`check_output_path` is the pre-flight check the CLI runs before any
work: it turns the common path mistakes into one error line each.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from vsizer.errors import OutputError

__all__ = ["atomic_write", "check_output_dir", "check_output_path"]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _umask()


def fsync_dir(path: Path) -> None:
    """Make a rename or unlink in directory *path* durable (no-op where unsupported)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # pragma: no cover - Windows cannot open directories
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover - some file systems refuse
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def atomic_write(
    path: str | os.PathLike[str],
    mode: str = "wb",
    *,
    encoding: str | None = None,
    newline: str | None = None,
) -> Iterator[IO[Any]]:
    """Open a temporary file that replaces ``path`` when the block ends without error.

    Parameters
    ----------
    path : str or os.PathLike
        The target file; missing parent directories are created.
    mode : {"wb", "w"}
        Binary or text.
    encoding, newline : str, optional
        As for :func:`open` (text mode).

    Yields
    ------
    file object
        Write the whole content to it. On an exception the temporary is
        removed, the target is left as it was and the exception propagates.

    Raises
    ------
    OutputError
        An ``OSError`` while creating, writing, syncing or renaming (full
        disk, permission, a directory in the way), as one line
        ``"P: cannot write (No space left on device)."``.

    Notes
    -----
    The new file gets the permissions a plain ``open`` would give it
    (0666 minus the umask), or keeps those of the file it replaces.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_write: mode must be 'w' or 'wb', got {mode!r}")
    target = Path(path)
    tmp: Path | None = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(
            dir=target.parent, prefix=f".{target.name}.", suffix=".tmp"
        )
        tmp = Path(tmp_name)
        with os.fdopen(fd, mode, encoding=encoding, newline=newline) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        try:
            perm = target.stat().st_mode & 0o7777
        except OSError:
            perm = 0o666 & ~_UMASK
        os.chmod(tmp, perm)
        os.replace(tmp, target)
    except OSError as exc:
        _remove(tmp)
        raise OutputError(f"{target}: cannot write ({_reason(exc)}).") from exc
    except BaseException:
        _remove(tmp)
        raise
    fsync_dir(target.parent)


def _remove(tmp: Path | None) -> None:
    if tmp is not None:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)


def _reason(exc: OSError) -> str:
    """``No space left on device`` (strerror), or the exception's text."""
    return exc.strerror or str(exc) or type(exc).__name__


def _nearest_existing(path: Path) -> Path:
    p = path
    while not p.exists() and p != p.parent:
        p = p.parent
    return p


def check_output_dir(path: str | os.PathLike[str], option: str) -> None:
    """Check that directory ``path`` exists or can be created, and is writable.

    Raises
    ------
    OutputError
        ``"{option} P: ..."``: P is a file, lies under a file, or is (or would
        be created) in a directory this process cannot write.
    """
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise OutputError(f"{option} {p}: is a file, expected a directory.")
    _check_writable(p, _nearest_existing(p), option)


def check_output_path(path: str | os.PathLike[str], option: str = "-o") -> None:
    """Check, before any work, that file ``path`` can be written.

    A missing parent directory is fine (:func:`atomic_write` creates it); a
    directory given as the file, a parent that is a file and a read-only or
    unwritable directory are not.

    Raises
    ------
    OutputError
        One line, ``"{option} P: ..."``.
    """
    p = Path(path)
    if p.is_dir():
        raise OutputError(
            f"{option} {p}: is a directory; give a file name."
        )
    _check_writable(p, _nearest_existing(p.parent), option)


def _check_writable(p: Path, base: Path, option: str) -> None:
    """``base``, the nearest existing folder of output ``p``, takes new files."""
    if not base.is_dir():
        raise OutputError(f"{option} {p}: {base} is a file, not a directory.")
    if not os.access(base, os.W_OK | os.X_OK):
        raise OutputError(
            f"{option} {p}: cannot write in {base} (permission denied or read-only "
            "file system)."
        )
