"""CLI commands: performance models, fit and predict."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add the performance models, fit and predict commands to *app*."""
