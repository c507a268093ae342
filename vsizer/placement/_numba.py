"""Compile a module's numba-ready functions in place (numba is optional: the ``fast``
and ``solver`` extras).

:mod:`vsizer.placement._kernel` and :mod:`vsizer.placement._breakout` write plain
Python functions that numba can compile; their ``get()`` calls :func:`compile_in` on
first use, and without numba the Python functions stay (the tests run them as the
compiled functions' twins).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def compile_in(namespace: dict[str, Any], names: Sequence[str]) -> bool:
    """Replace each function named in ``names`` in ``namespace`` (a module's
    ``globals()``) by its numba-compiled version (``cache=True``: compiled once per
    machine); a compiled function calls the compiled versions of the globals it names.
    False, and nothing replaced, without numba."""
    try:
        import numba
    except ImportError:
        return False
    jit = numba.njit(cache=True, nogil=True)
    for name in names:
        namespace[name] = jit(namespace[name])
    return True
