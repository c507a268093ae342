"""One reader of TOML files (scenario files, compare scenarios)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from vsizer.errors import ConfigError


def parse_toml(text: str, where: str) -> dict[str, Any]:
    """Parse TOML ``text``; ``where`` names it in the one-line error.

    Raises
    ------
    vsizer.errors.ConfigError
        ``<where>: not valid TOML: <the parser's message, with line and column>.``
    """
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{where}: not valid TOML: {exc}.") from None


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
        text = path.read_text(encoding="utf-8")
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
