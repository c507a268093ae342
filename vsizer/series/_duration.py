"""Durations as the command line gives them: ``30s``, ``500ms``, ``5min``, ``1h``, ``2d``.

Used by ``vsizer collect`` (``--interval``, ``--duration``) and the wide CSV
reader (``--series-step``).
"""

from __future__ import annotations

import math
import re

from vsizer.errors import ConfigError

__all__ = ["parse_duration"]


def parse_duration(text: str | float, option: str = "interval") -> float:
    """Seconds in ``'30s'``, ``'500ms'``, ``'5min'``, ``'5m'``, ``'1h'``, ``'2d'`` or a number.

    Raises
    ------
    ConfigError
        Not a positive duration.
    """
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        value = float(text)
    else:
        m = re.fullmatch(
            r"\s*(\d+(?:\.\d*)?|\.\d+)\s*(ms|s|sec|m|min|h|d)?\s*", str(text), re.I
        )
        if not m:
            raise ConfigError(
                f"The '--{option}' option must be a duration such as 30s, 5min or 1h. "
                f"Got {text!r} instead."
            )
        scale = {
            None: 1.0,
            "ms": 1e-3,
            "s": 1.0,
            "sec": 1.0,
            "m": 60.0,
            "min": 60.0,
            "h": 3600.0,
            "d": 86400.0,
        }
        unit = m.group(2).lower() if m.group(2) else None
        value = float(m.group(1)) * scale[unit]
    if not (value > 0 and math.isfinite(value)):
        raise ConfigError(
            f"The '--{option}' option must be a duration greater than zero. "
            f"Got {text!r} instead."
        )
    return value
