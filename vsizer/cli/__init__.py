"""The command line: thin command modules over the library."""

from __future__ import annotations

from vsizer.cli.app import app, main

__all__ = ["app", "main"]
