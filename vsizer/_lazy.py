"""Public names of a package loaded on first use (PEP 562).

A package ``__init__`` that re-exports names from heavy modules (pandas, the
study, the catalogs) makes every import of any of its submodules pay for all of
them: ``vsizer --help`` would load pandas to print its usage. With
:func:`lazy_getattr` the package's ``__getattr__`` imports a name's module the
first time the name is asked for.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy_getattr(package: str, names: dict[str, str]) -> Callable[[str], Any]:
    """The ``__getattr__`` of ``package`` serving ``names`` (name -> module).

    The value is cached in the package's namespace, so later lookups are
    ordinary attribute reads; any other name raises :class:`AttributeError`.
    """

    def __getattr__(name: str) -> Any:
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(importlib.import_module(package), name, value)
        return value

    return __getattr__
