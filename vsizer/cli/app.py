"""Command-line interface: a thin layer over the library.

Parses arguments, loads the scenario, calls one library function, formats the
output. Every :class:`~vsizer.errors.VsizerError` becomes its message on
stderr (one line per problem) and exit code 2; never a traceback.

This module holds the root command (``--version``, ``--debug``), the guard of
:func:`main` and the registration of the command modules, each of which adds
its commands with ``register(app)``.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from vsizer._version import __version__
from vsizer.cli.common import DEBUG, err, guard, out

app = typer.Typer(
    name="vsizer",
    help="Design a virtualized server environment from an existing fleet.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        out.print(f"vsizer {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version."
        ),
    ] = False,
    debug: Annotated[
        bool,
        typer.Option(
            "--debug",
            help="Show the traceback of an internal error (also VSIZER_DEBUG=1).",
        ),
    ] = False,
) -> None:
    """vsizer: server list in, checked consolidation plan out (terminal, JSON, Excel)."""
    if debug:
        DEBUG["on"] = True


def _register_command_groups() -> None:
    """Commands kept in their own modules: catalog, plan, series, models, reports, bench."""
    from vsizer.cli import bench, catalog, emit, models, plan, report, series, waves

    for module in (catalog, plan, series, models, report, bench, waves, emit):
        module.register(app)


_register_command_groups()


def main(argv: list[str] | None = None) -> None:
    """Console entry point: the guard that keeps tracebacks away from users.

    Exit codes: 0 success, 1 internal error, 2 bad input or usage (including
    an output that cannot be written or an input that is not UTF-8), 130
    interrupted. An unexpected exception becomes one line naming its type and
    a pointer to ``--debug`` / ``VSIZER_DEBUG=1``, which print the traceback.
    """
    from vsizer.cli.supervise import CONSOLE

    # Only the real console run (no argv given: the `vsizer` command) may fork a
    # supervisor; a caller's main([...]) (tests, embedding) never does.
    CONSOLE["on"] = argv is None
    try:
        app(args=argv)
    except KeyboardInterrupt:
        err.print("interrupted")
        sys.exit(130)
    except Exception as exc:  # the top-level guard; see docs/reliability.md
        sys.exit(guard(exc))
    finally:
        CONSOLE["on"] = False


if __name__ == "__main__":
    main()
