"""Atomic output files: a complete new version or the old one, never a torn file.

Every file vsizer writes as output (plans, reports, catalogs, profiles,
exports) goes through :func:`atomic_write`: the content is written to a
temporary file in the target's directory, flushed and fsynced, then renamed
over the target with :func:`os.replace` (atomic on POSIX and Windows within a
file system) and the directory fsynced. A full disk, a kill or a crash thus
leaves either the previous complete file or none, plus no temporary (it is
removed on any error; a ``kill -9`` can leave a ``.NAME.HOST-PID.*.tmp`` beside
it, which the next write of ``NAME`` removes once that process is gone).

:func:`check_output_path` is the pre-flight check the CLI runs before any
work: it turns the common path mistakes into one error line each.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import socket
import stat
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from vsizer.errors import OutputError

__all__ = [
    "atomic_write",
    "check_not_input",
    "check_output_dir",
    "check_output_path",
    "output_set",
]


@dataclass(frozen=True)
class _Pending:
    """A finished temporary waiting to be renamed over its target."""

    tmp: Path
    target: Path


#: The open output set of this context (:func:`output_set`), or None.
_PENDING: ContextVar[list[_Pending] | None] = ContextVar(
    "vsizer_pending_outputs", default=None
)


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
    (0666 minus the umask), or the read/write/execute bits of the file it
    replaces; setuid, setgid and sticky bits are never carried over. A
    symbolic link is followed: its target gets the new content and the link
    stays. A read-only target is refused, not replaced. Inside
    :func:`output_set` the rename waits for the end of the set.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_write: mode must be 'w' or 'wb', got {mode!r}")
    target = _resolved(Path(path))
    _refuse_read_only(target, "")
    tmp: Path | None = None
    pending = _PENDING.get()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(
            dir=target.parent, prefix=f".{target.name}.{_HOST}-{os.getpid()}.", suffix=".tmp"
        )
        tmp = Path(tmp_name)
        with os.fdopen(fd, mode, encoding=encoding, newline=newline) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        try:
            perm = target.stat().st_mode & 0o777  # never setuid/setgid/sticky
        except OSError:
            perm = 0o666 & ~_UMASK
        os.chmod(tmp, perm)
        if pending is None:
            os.replace(tmp, target)
            _sweep_stale(target)
    except OSError as exc:
        _remove(tmp)
        raise OutputError(f"{target}: cannot write ({_reason(exc)}).") from exc
    except BaseException:
        _remove(tmp)
        raise
    if pending is not None:
        pending.append(_Pending(tmp, target))
        return
    fsync_dir(target.parent)


@contextlib.contextmanager
def output_set() -> Iterator[None]:
    """Commit every :func:`atomic_write` of the block together, at its end.

    The files are written to temporaries as the block runs; when it ends
    without an exception they are renamed over their targets one after the
    other while an exclusive lock (``flock``) is held on each target's
    directory, so two runs writing the same set of files never leave a mix
    of both: the set is all from the one that committed last. An exception
    leaves every target as it was. A writer whose error is caught inside the
    block leaves no temporary, and the others are still committed.

    Notes
    -----
    The lock is advisory and local (``fcntl.flock`` on the directory, POSIX);
    where ``fcntl`` is missing (Windows) the renames run unlocked.
    """
    pending: list[_Pending] = []
    token = _PENDING.set(pending)
    try:
        yield
    except BaseException:
        for p in pending:
            _remove(p.tmp)
        raise
    finally:
        _PENDING.reset(token)
    _commit(pending)


def _commit(pending: list[_Pending]) -> None:
    """Rename every temporary over its target, holding the directories' locks."""
    dirs = sorted({os.path.realpath(p.target.parent) for p in pending})
    with contextlib.ExitStack() as stack:
        for d in dirs:  # one order for every run: no deadlock between two sets
            stack.enter_context(_dir_lock(d))
        for i, p in enumerate(pending):
            try:
                os.replace(p.tmp, p.target)
            except OSError as exc:
                for rest in pending[i:]:
                    _remove(rest.tmp)
                raise OutputError(
                    f"{p.target}: cannot write ({_reason(exc)})."
                ) from exc
            _sweep_stale(p.target)
    for d in dirs:
        fsync_dir(Path(d))


@contextlib.contextmanager
def _dir_lock(directory: str) -> Iterator[None]:
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # pragma: no cover - a directory that cannot be opened
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def _resolved(path: Path) -> Path:
    """``path``, or the file a symbolic link at ``path`` points to."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def _refuse_read_only(path: Path, option: str) -> None:
    """A file without any write bit is the user's 'do not replace'."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return
    if stat.S_ISREG(mode) and not mode & 0o222:
        lead = f"{option} {path}" if option else str(path)
        raise OutputError(
            f"{lead}: the file is read-only (mode {stat.S_IMODE(mode):04o}); vsizer "
            "does not replace read-only files: remove it or give another name."
        )


#: Host part of temporary names: a hash of the host name, so a directory
#: shared between machines never loses another machine's file.
_HOST = hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]


def _sweep_stale(target: Path) -> None:
    """Remove ``.NAME.HOST-PID.*.tmp`` beside ``target`` left by a killed
    process of this host (its PID no longer runs); others are left alone."""
    pattern = re.compile(rf"^\.{re.escape(target.name)}\.{_HOST}-(\d+)\.[^.]+\.tmp$")
    with contextlib.suppress(OSError):
        for entry in os.scandir(target.parent):
            m = pattern.match(entry.name)
            if m and int(m.group(1)) != os.getpid() and not _running(int(m.group(1))):
                _remove(Path(entry.path))


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):  # another user's process, or no such number
        return True
    return True


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
    _refuse_read_only(_resolved(p), option)
    _check_writable(p, _nearest_existing(_resolved(p).parent), option)


def check_not_input(
    outputs: Iterable[str | os.PathLike[str]],
    inputs: Mapping[str, Iterable[str | os.PathLike[str] | None]],
    option: str = "-o",
) -> None:
    """Refuse an output that is, or lies inside, one of the run's inputs.

    Parameters
    ----------
    outputs : paths
        The files the run would write.
    inputs : mapping
        What each input is (``"the inventory"``, ``"--hosts"``) -> its paths
        (``None`` entries are skipped). A directory input (a series store)
        refuses every output inside it.

    Raises
    ------
    OutputError
        One line per output that would overwrite an input, all at once.
    """
    known = [
        (label, Path(os.path.realpath(p)))
        for label, paths in inputs.items()
        for p in paths
        if p is not None and str(p) != ""
    ]
    problems = []
    for out in outputs:
        real = Path(os.path.realpath(out))
        for label, inp in known:
            if real == inp or _same_file(real, inp):
                problems.append(
                    f"{option} {out}: is {label} of this run ({inp}); vsizer never "
                    "writes over an input: give another file name."
                )
                break
            if inp.is_dir() and inp in real.parents:
                problems.append(
                    f"{option} {out}: lies inside {label} of this run ({inp}); "
                    "write outputs outside the inputs."
                )
                break
    if problems:
        raise OutputError("\n".join(problems))


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _check_writable(p: Path, base: Path, option: str) -> None:
    """``base``, the nearest existing folder of output ``p``, takes new files."""
    if not base.is_dir():
        raise OutputError(f"{option} {p}: {base} is a file, not a directory.")
    if not os.access(base, os.W_OK | os.X_OK):
        raise OutputError(
            f"{option} {p}: cannot write in {base} (permission denied or read-only "
            "file system)."
        )
