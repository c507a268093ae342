"""Exception and warning hierarchy.

Every error a user can cause by giving bad input derives from :class:`VsizerError`;
the CLI turns it into one message per problem and exit code 2, never a traceback.
"""

from __future__ import annotations

from collections.abc import Iterable


class VsizerError(Exception):
    """Base class of every error vsizer raises on purpose."""


class InputError(VsizerError, ValueError):
    """Bad input data. ``problems`` holds one line per problem, all of a file at once.

    Each line names the file, the row and column where they apply, what was
    expected and what was found, e.g.
    ``inventory.csv row 17, column 'cpu_mhz': expected a positive number, got 'n/a'.``
    """

    def __init__(self, problems: str | Iterable[str]):
        if isinstance(problems, str):
            problems = [problems]
        self.problems: list[str] = list(problems)
        if not self.problems:
            raise ValueError("InputError needs at least one problem line")
        super().__init__("\n".join(self.problems))


class InventoryError(InputError):
    """A server list (inventory) could not be read or holds invalid values."""


class CatalogError(InputError):
    """A CPU or host catalog file could not be read or holds invalid values."""


class ConfigError(InputError):
    """A scenario TOML file or a parameter holds an invalid value or unknown key."""


class SeriesError(InputError):
    """A utilization time-series file could not be read or holds invalid values."""


class CatalogLookupError(VsizerError, KeyError):
    """A name was not found in a catalog. The message says where valid names are listed."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


class InfeasiblePlacementError(VsizerError):
    """No placement exists under the rules: names the constraint family and the VM."""


class BenchmarkRunError(VsizerError):
    """A benchmark tool failed or its output lacked the line that makes it valid."""


class OutputError(VsizerError):
    """An output file or directory cannot be written (bad path, no space, no permission)."""


class ModelRangeWarning(UserWarning):
    """A model was evaluated outside the range its source measured."""
