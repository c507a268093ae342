"""CLI commands: benchmark harness."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add the benchmark harness commands to *app*."""
