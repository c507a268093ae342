"""CLI commands: import and collect utilization series."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add the import and collect utilization series commands to *app*."""
