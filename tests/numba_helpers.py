"""numba made unimportable, for the tests of what runs without it."""

from __future__ import annotations

import builtins
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any
from unittest import mock


@contextmanager
def without_numba(module: ModuleType) -> Iterator[None]:
    """``import numba`` fails, and ``module.get()`` (``_kernel`` or ``_breakout``)
    tries again as on first use; both restored after."""
    real_import = builtins.__import__

    def no_numba(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "numba" or name.startswith("numba."):
            raise ImportError("No module named 'numba'")
        return real_import(name, *args, **kwargs)

    with mock.patch.object(module, "_TRIED", False), mock.patch.object(
        module, "_COMPILED", None
    ), mock.patch.object(builtins, "__import__", no_numba):
        yield
