"""Where independent pieces of a plan run: in this process (``local``), or on a
distributed engine (``ray``, ``dask``) for what-if sweeps, shards of very large
pools and ingestion of large trace sets.

An :class:`Engine` maps a picklable function over a list of picklable items and
returns the results **in the order of the items**, whatever order the workers
finish in, so a plan made on any engine is the same plan byte for byte.

>>> from vsizer.engines import get_engine
>>> with get_engine("local") as engine:
...     engine.map(abs, [-1, 2, -3])
[1, 2, 3]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

from vsizer.errors import ConfigError

__all__ = ["ENGINES", "Engine", "LocalEngine", "get_engine"]

T = TypeVar("T")
R = TypeVar("R")

#: Accepted values of ``--engine``.
ENGINES = ("local", "ray", "dask")


class Engine(Protocol):
    """What the planner needs of an engine."""

    #: "local", "ray" or "dask".
    name: str
    #: Workers the engine runs tasks on (1 for local).
    workers: int

    def map(self, fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
        """``[fn(item) for item in items]``, possibly in parallel; results in item order."""
        ...

    def close(self) -> None:
        """Release the workers (a no-op for local and for a cluster we only joined)."""
        ...

    def __enter__(self) -> Engine: ...

    def __exit__(self, *exc: object) -> None: ...


class LocalEngine:
    """Everything in this process, one item after the other."""

    name = "local"
    workers = 1

    def map(self, fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
        return [fn(item) for item in items]

    def close(self) -> None:
        return None

    def __enter__(self) -> LocalEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def get_engine(
    name: str = "local", *, address: str | None = None, workers: int | None = None
) -> Engine:
    """The engine called ``name``.

    Parameters
    ----------
    name : {"local", "ray", "dask"}
    address : str, optional
        A running cluster to join (Ray: ``ray://host:10001`` or ``auto``; Dask:
        ``tcp://host:8786``). None starts a local cluster on this machine.
    workers : int, optional
        Workers of a local cluster (default: the machine's cores).
    """
    if name == "local":
        return LocalEngine()
    if name in ENGINES:
        return _distributed(name, address, workers)
    raise ConfigError(
        f"--engine must be one of {', '.join(ENGINES)}; got {name!r}."
    )


def _distributed(name: str, address: str | None, workers: int | None) -> Engine:
    # Filled in by the distributed engines (issue 15).
    raise ConfigError(f"--engine {name} is not available in this build.")
