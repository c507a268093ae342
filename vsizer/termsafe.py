"""Terminal safety: user strings never reach a terminal as control sequences.

Server names, pools, file names and cell values come from files the user does
not fully control. Printed raw, a name such as ``a\\x1b[2Jb`` clears the
screen, and a right-to-left override (U+202E) makes text read backwards, so a
warning can be disguised. :func:`terminal_safe` replaces every such character
by a visible escape (``\\x1b``, ``\\u202e``); :class:`SafeConsole` applies it at
the output boundary, to every text segment a rich console writes, so tables,
``error:`` lines, warnings and progress descriptions are all covered whatever
code builds them. The styling rich adds itself (colour, cursor movement of a
progress bar) is not touched: it is emitted around the segments, not in them.

Replaced: C0 controls (U+0000-U+001F, newline kept where the text is our own
multi-line output), DEL (U+007F), C1 controls (U+0080-U+009F) and the bidi
embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069). Backslashes
are left alone, so applying the function twice changes nothing more.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Console
from rich.segment import Segment

__all__ = ["SafeConsole", "UNSAFE_CODEPOINTS", "terminal_safe"]

#: Code points :func:`terminal_safe` replaces.
UNSAFE_CODEPOINTS: frozenset[int] = frozenset(
    [*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0), *range(0x202A, 0x202F)]
    + [*range(0x2066, 0x206A)]
)


def _escape(cp: int) -> str:
    return f"\\x{cp:02x}" if cp < 0x100 else f"\\u{cp:04x}"


_TABLE: dict[int, str] = {cp: _escape(cp) for cp in UNSAFE_CODEPOINTS}
_TABLE_KEEP_NL: dict[int, str] = {
    cp: s for cp, s in _TABLE.items() if cp != ord("\n")
}


def terminal_safe(text: str, *, keep_newlines: bool = False) -> str:
    """Return ``text`` with control and bidi characters as visible escapes.

    Parameters
    ----------
    text : str
        Text to show in a terminal.
    keep_newlines : bool, default False
        Leave ``\\n`` as a line break (for our own multi-line messages);
        otherwise it becomes ``\\x0a`` like any other control character.

    Returns
    -------
    str
        ``text`` with each character of :data:`UNSAFE_CODEPOINTS` replaced by
        ``\\xNN`` (below U+0100) or ``\\uNNNN``.

    Examples
    --------
    >>> terminal_safe("a\\x1b[2Jb")
    'a\\\\x1b[2Jb'
    >>> terminal_safe("two\\nlines", keep_newlines=True)
    'two\\nlines'
    """
    return text.translate(_TABLE_KEEP_NL if keep_newlines else _TABLE)


class SafeConsole(Console):
    """A rich console that writes every text segment through :func:`terminal_safe`.

    Control segments (cursor movement, screen control that rich emits for
    progress bars and status spinners) pass unchanged; styles are rendered by
    rich around the escaped text. Newlines are kept: rich splits lines into
    newline segments and our multi-line messages rely on them.
    """

    def _render_buffer(self, buffer: Iterable[Segment]) -> str:
        safe = (
            seg
            if seg.control
            else Segment(terminal_safe(seg.text, keep_newlines=True), seg.style)
            for seg in buffer
        )
        return super()._render_buffer(safe)
