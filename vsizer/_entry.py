"""The ``vsizer`` command's entry point.

``vsizer --version`` answers here, before the command line (typer, rich and the
command modules) is imported: it starts in the time of Python itself. Every
other invocation goes to :func:`vsizer.cli.app.main`.
"""

from __future__ import annotations

import sys

__all__ = ["main"]


def main() -> None:
    """Run the ``vsizer`` command with ``sys.argv``."""
    if sys.argv[1:] == ["--version"]:
        from vsizer._version import __version__

        sys.stdout.write(f"vsizer {__version__}\n")
        return
    from vsizer.cli.app import main as cli_main

    cli_main()
