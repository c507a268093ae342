"""One reader of TOML files (scenario files, compare scenarios)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from vsizer._small_file import read_small_text
from vsizer.errors import ConfigError

#: Deepest nesting of tables and arrays a scenario file may have. The deepest
#: vsizer reads is 3 (``[pools.NAME]`` with an array); anything far deeper is
#: not a scenario, and Python's TOML parser recurses once per level.
MAX_TOML_DEPTH = 32


def parse_toml(text: str, where: str) -> dict[str, Any]:
    """Parse TOML ``text``; ``where`` names it in the one-line error.

    A UTF-8 byte order mark at the start (Notepad's default) is skipped.

    Raises
    ------
    vsizer.errors.ConfigError
        ``<where>: not valid TOML: <the parser's message, with line and column>.``,
        or the nesting is deeper than :data:`MAX_TOML_DEPTH`.
    """
    deep = (
        f"{where}: tables or arrays nested more than {MAX_TOML_DEPTH} levels deep; "
        "a scenario file needs at most 3."
    )
    try:
        doc = tomllib.loads(text.removeprefix("\ufeff"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{where}: not valid TOML: {exc}.") from None
    except RecursionError:
        raise ConfigError(deep) from None
    if _depth(doc) > MAX_TOML_DEPTH:
        raise ConfigError(deep)
    return doc


def _depth(doc: Any) -> int:
    """Nesting depth of dicts and lists, without recursion."""
    deepest, stack = 0, [(doc, 0)]
    while stack:
        node, level = stack.pop()
        if isinstance(node, dict | list):
            level += 1
            deepest = max(deepest, level)
            if level <= MAX_TOML_DEPTH:
                items = node.values() if isinstance(node, dict) else node
                stack.extend((child, level) for child in items)
    return deepest


def read_toml(path: str | Path) -> dict[str, Any]:
    """Read and decode a UTF-8 TOML file.

    Parameters
    ----------
    path : str or Path
        The file.

    Returns
    -------
    dict
        The parsed document.

    Raises
    ------
    vsizer.errors.ConfigError
        One line naming the file: not found, unreadable (a folder, no
        permission), not UTF-8 (reason and byte), or not valid TOML (the
        parser's message, with line and column).
    """
    path = Path(path)
    try:
        text = read_small_text(path, what="a scenario file", error=ConfigError)
    except FileNotFoundError:
        raise ConfigError(f"{path}: file not found.") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the file ({exc.strerror}).") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start}); save the "
            "file as UTF-8."
        ) from None
    return parse_toml(text, str(path))
