"""What the two Prometheus formats share: reading a sample value."""

from __future__ import annotations

__all__ = ["parse_value"]


def parse_value(text: str) -> float | None:
    """A sample value as float (``NaN``, ``+Inf``, ``-Inf``, ``1e+06`` too), else None."""
    try:
        return float(text)
    except ValueError:
        return None
