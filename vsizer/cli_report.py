"""CLI commands: what-if comparison reports."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add the what-if comparison reports commands to *app*."""
