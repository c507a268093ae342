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

The function sent to the workers must be a module-level function (pickled by
reference: the workers import it, so ``vsizer`` must be installed on them, at
the same version) and the items plain data. Progress is reported in the driver:
``map(fn, items, done=callback)`` calls ``callback(i)`` in this process as item
``i`` completes.

``ray`` and ``dask`` either start a local cluster on this machine (``workers``
processes, bound to 127.0.0.1, dashboards off) and stop it on :meth:`close`, or
join a running cluster by its address and only disconnect on :meth:`close`.
Their packages are extras: ``pip install 'vsizer[ray]'`` or ``'vsizer[dask]'``.
See ``docs/scale.md``.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import logging
import os
import re
import socket
from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar

from vsizer.errors import ConfigError, EngineLostError, VsizerError

__all__ = [
    "ENGINES",
    "DaskEngine",
    "Engine",
    "EngineLostError",
    "LocalEngine",
    "RayEngine",
    "get_engine",
]

T = TypeVar("T")
R = TypeVar("R")

#: Accepted values of ``--engine``.
ENGINES = ("local", "ray", "dask")

#: Seconds to wait for a cluster given by ``--engine-address`` to answer.
CONNECT_TIMEOUT_S = 15.0

#: Object store of a local Ray cluster (bytes): plans and shards are small; the
#: default (30 % of the machine's memory) would claim memory other work needs.
RAY_OBJECT_STORE_BYTES = 1 << 30

#: What each engine's ``--engine-address`` looks like.
_ADDRESS = {
    "ray": (
        re.compile(r"^(auto|ray://[^\s/:]+:\d{1,5}|[^\s/:]+:\d{1,5})$"),
        "'auto', 'ray://HOST:10001' (Ray client) or 'HOST:6379' (the head node)",
    ),
    "dask": (
        re.compile(r"^(tcp|tls|ws|wss|ucx)://[^\s/]+:\d{1,5}$"),
        "'tcp://HOST:8786' (the Dask scheduler)",
    ),
}

_EXTRA = {"ray": ("ray", "Ray"), "dask": ("distributed", "Dask (distributed)")}


class Engine(Protocol):
    """What the planner needs of an engine."""

    #: "local", "ray" or "dask".
    name: str
    #: Workers the engine runs tasks on (1 for local).
    workers: int

    def map(
        self,
        fn: Callable[[T], R],
        items: Sequence[T],
        done: Callable[[int], None] | None = None,
    ) -> list[R]:
        """``[fn(item) for item in items]``, possibly in parallel; results in item
        order. ``done(i)``, if given, is called here as item ``i`` completes."""
        ...

    def close(self) -> None:
        """Release the workers (a no-op for local and for a cluster we only joined)."""
        ...

    def __enter__(self) -> Engine: ...

    def __exit__(self, *exc: object) -> None: ...


class _Closing:
    """``with engine:`` closes it on the way out."""

    def close(self) -> None:
        return None

    def __enter__(self: _E) -> _E:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_E = TypeVar("_E", bound=_Closing)


class LocalEngine(_Closing):
    """Everything in this process, one item after the other."""

    name = "local"
    workers = 1

    def map(
        self,
        fn: Callable[[T], R],
        items: Sequence[T],
        done: Callable[[int], None] | None = None,
    ) -> list[R]:
        out = []
        for i, item in enumerate(items):
            out.append(fn(item))
            if done is not None:
                done(i)
        return out


def get_engine(
    name: str = "local", *, address: str | None = None, workers: int | None = None
) -> Engine:
    """The engine called ``name``.

    Parameters
    ----------
    name : {"local", "ray", "dask"}
    address : str, optional
        A running cluster to join (Ray: ``ray://host:10001``, ``host:6379`` or
        ``auto``; Dask: ``tcp://host:8786``). None starts a local cluster on
        this machine.
    workers : int, optional
        Workers of a local cluster (default: the machine's cores).

    Raises
    ------
    vsizer.errors.ConfigError
        An unknown engine, ``address`` or ``workers`` with ``local``, both
        ``address`` and ``workers``, a malformed or unreachable address, or the
        engine's extra not installed: one line naming the flag.
    """
    if name not in ENGINES:
        raise ConfigError(
            f"--engine must be one of {', '.join(ENGINES)}; got {name!r}."
        )
    if name == "local":
        if address is not None or workers is not None:
            flag = "--engine-address" if address is not None else "--workers"
            raise ConfigError(
                f"{flag} applies to --engine ray or dask; the local engine runs in "
                "this process."
            )
        return LocalEngine()
    return _distributed(name, address, workers)


def _distributed(name: str, address: str | None, workers: int | None) -> Engine:
    """A Ray or Dask engine, after checking the flags and that the extra is there."""
    if address is not None and workers is not None:
        raise ConfigError(
            "--workers starts a local cluster and --engine-address joins a running "
            "one: give one of them."
        )
    if workers is not None and (
        isinstance(workers, bool) or not isinstance(workers, int) or workers < 1
    ):
        raise ConfigError(f"--workers: expected a whole number >= 1, got {workers!r}.")
    if address is not None:
        pattern, shape = _ADDRESS[name]
        if not pattern.match(address.strip()):
            raise ConfigError(
                f"--engine-address {address!r}: expected {shape} for --engine {name}."
            )
        address = address.strip()
        _check_reachable(address)
    module, label = _EXTRA[name]
    try:
        importlib.import_module(module)
    except ImportError:
        raise ConfigError(
            f"--engine {name}: {label} is not installed; install the extra: "
            f"pip install 'vsizer[{name}]'."
        ) from None
    n = workers if workers is not None else (os.cpu_count() or 1)
    if name == "ray":
        return RayEngine(address, n)
    return DaskEngine(address, n)


def _check_reachable(address: str) -> None:
    """One TCP connection to the address's host and port, so an unreachable
    cluster is one line at once (Ray's client would retry for 30 s and more)."""
    if address == "auto":
        return
    host, _, port = address.split("://")[-1].rpartition(":")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), CONNECT_TIMEOUT_S):
            pass
    except OSError as exc:
        raise ConfigError(
            f"--engine-address {address}: cannot reach {host}:{port} "
            f"({exc.strerror or type(exc).__name__}); is the cluster running, and "
            "is its port open to this machine?"
        ) from None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def _call(fn: Callable[[T], R], item: T) -> R:
    """``fn(item)``: the one Ray task (Ray takes no builtin as a remote function)."""
    return fn(item)


class _Box:
    """An item sent to a Dask worker as it is."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __getstate__(self) -> Any:
        return self.value

    def __setstate__(self, value: Any) -> None:
        self.value = value


def _unbox_call(fn: Callable[[Any], R], box: _Box) -> R:
    """``fn(item)`` for a boxed item (the one Dask task)."""
    return fn(box.value)


def _fn_name(fn: Callable[..., Any]) -> str:
    return f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', fn)!s}"


class RayEngine(_Closing):
    """Tasks on a Ray cluster: a local one started here, or one joined by address."""

    name = "ray"

    def __init__(self, address: str | None, workers: int) -> None:
        self._ray: Any = importlib.import_module("ray")
        _quiet_ray_prints()
        self.address = address
        self._owned = False
        self._task: Any = None
        if self._ray.is_initialized():  # the caller's own ray.init(): use it, keep it
            self.workers = self._cpus(workers)
            return
        try:
            if address is None:
                self._ray.init(
                    num_cpus=workers,
                    include_dashboard=False,
                    object_store_memory=RAY_OBJECT_STORE_BYTES,
                    _node_ip_address="127.0.0.1",
                    log_to_driver=False,
                    logging_level=logging.ERROR,
                )
            else:
                self._ray.init(
                    address=address, log_to_driver=False, logging_level=logging.ERROR
                )
        except Exception as exc:  # Ray raises ConnectionError, RuntimeError, ...
            where = f"--engine-address {address}" if address else "--engine ray"
            raise ConfigError(
                f"{where}: cannot {'join' if address else 'start'} the Ray cluster "
                f"({_first_line(exc)})."
            ) from None
        self._owned = True
        self.workers = self._cpus(workers)

    def _cpus(self, default: int) -> int:
        try:
            return max(1, int(self._ray.cluster_resources().get("CPU", default)))
        except Exception:
            return default

    def map(
        self,
        fn: Callable[[T], R],
        items: Sequence[T],
        done: Callable[[int], None] | None = None,
    ) -> list[R]:
        if not items:
            return []
        ray = self._ray
        refs: list[Any] = []
        try:
            if self._task is None:
                self._task = ray.remote(max_retries=1)(_call)
            fn_ref = ray.put(fn)
            refs = [self._task.remote(fn_ref, item) for item in items]
            index = {ref: i for i, ref in enumerate(refs)}
            pending = list(refs) if done is not None else []
            while pending:  # only to call done() as items complete
                ready, pending = ray.wait(pending, num_returns=1, fetch_local=False)
                for ref in ready:
                    done(index[ref])  # type: ignore[misc]
            return list(ray.get(refs))
        except ray.exceptions.RayTaskError as exc:
            cause = getattr(exc, "cause", None)
            if isinstance(cause, BaseException):
                raise cause from None
            raise VsizerError(
                f"--engine ray: {_fn_name(fn)} failed on a worker ({_first_line(exc)})."
            ) from None
        except (ray.exceptions.RayError, ConnectionError, OSError) as exc:
            # a worker or node died, the local raylet died, an object was lost,
            # the cluster stopped answering (one error line, exit 2)
            _cancel(ray, refs)
            raise EngineLostError(
                f"--engine ray: a worker or node was lost while running "
                f"{_fn_name(fn)} ({_first_line(exc)}); check the workers' memory "
                "and logs, and run again."
            ) from None

    def close(self) -> None:
        if self._owned:
            self._owned = False
            with contextlib.suppress(Exception):  # a cluster already lost: nothing to stop
                self._ray.shutdown()


#: Where the lines Ray's driver would print go (its cluster's errors).
_RAY_LOG = logging.getLogger("vsizer.engines.ray")
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def _quiet_ray_prints() -> None:
    """Send the lines Ray's driver prints to stdout (a raylet that died, with its
    last log lines and colour codes) to the ``vsizer.engines.ray``
    logger, without the escape codes, instead of the terminal."""
    try:
        worker: Any = importlib.import_module("ray._private.worker")
    except ImportError:
        return

    def to_log(data: dict[str, Any], ignore_prefix: bool = False) -> None:
        for line in data.get("lines", ()):
            _RAY_LOG.info("ray %s: %s", data.get("pid", "?"), _ANSI.sub("", str(line)))

    if hasattr(worker, "print_to_stdstream"):
        worker.print_to_stdstream = to_log


def _cancel(ray: Any, refs: Sequence[Any]) -> None:
    """Cancel the tasks of ``refs``, best effort (the cluster may be gone)."""
    for ref in refs:
        with contextlib.suppress(Exception):  # the node that ran it is lost
            ray.cancel(ref, force=True)



class DaskEngine(_Closing):
    """Tasks on a Dask cluster: a local one started here, or one joined by address."""

    name = "dask"

    def __init__(self, address: str | None, workers: int) -> None:
        dist: Any = importlib.import_module("distributed")
        self._dist = dist
        self.address = address
        self._cluster: Any = None
        try:
            if address is None:
                self._cluster = dist.LocalCluster(
                    n_workers=workers,
                    threads_per_worker=1,
                    processes=True,
                    host="127.0.0.1",
                    dashboard_address=None,
                    # No dashboard; its health/metrics server on a free loopback port.
                    scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"},
                    silence_logs=logging.CRITICAL,
                )
                self._client = dist.Client(self._cluster, set_as_default=False)
            else:
                self._client = dist.Client(
                    address, timeout=CONNECT_TIMEOUT_S, set_as_default=False
                )
        except Exception as exc:  # OSError, TimeoutError, RuntimeError, ...
            if self._cluster is not None:
                self._cluster.close()
            where = f"--engine-address {address}" if address else "--engine dask"
            raise ConfigError(
                f"{where}: cannot {'join' if address else 'start'} the Dask cluster "
                f"({_first_line(exc)})."
            ) from None
        info = self._client.scheduler_info()
        threads = sum(w.get("nthreads", 1) for w in info.get("workers", {}).values())
        self.workers = max(1, threads or workers)

    def map(
        self,
        fn: Callable[[T], R],
        items: Sequence[T],
        done: Callable[[int], None] | None = None,
    ) -> list[R]:
        if not items:
            return []
        dist, client = self._dist, self._client
        # Boxed: Dask would run an item that is a tuple starting with a callable
        # as a task of its own (its graph format); a box is opaque to it.
        boxes = [_Box(item) for item in items]
        futures = client.map(functools.partial(_unbox_call, fn), boxes, pure=False)
        index = {f.key: i for i, f in enumerate(futures)}
        try:
            for fut in dist.as_completed(futures if done else [], loop=client.loop):
                if fut.status == "error":
                    fut.result()  # raises the task's own exception
                done(index[fut.key])  # type: ignore[misc]
            return list(client.gather(futures))
        except VsizerError:
            client.cancel(futures)
            raise
        except _dask_lost(dist) as exc:
            with contextlib.suppress(Exception):  # the scheduler may be gone
                client.cancel(futures)
            raise EngineLostError(
                f"--engine dask: a worker or node was lost while running "
                f"{_fn_name(fn)} ({_first_line(exc)}); check the workers' memory "
                "and logs, and run again."
            ) from None

    def close(self) -> None:
        client, self._client = self._client, None
        cluster, self._cluster = self._cluster, None
        for part in (client, cluster):
            try:
                if part is not None:
                    part.close()
            except Exception:  # noqa: BLE001 - a cluster already lost: nothing to stop
                pass


def _dask_lost(dist: Any) -> tuple[type[BaseException], ...]:
    """What Dask raises in the driver when a worker, node or the scheduler is lost."""
    import asyncio
    import concurrent.futures

    from distributed.client import FutureCancelledError

    return (dist.KilledWorker, dist.comm.CommClosedError, FutureCancelledError,
            asyncio.CancelledError, concurrent.futures.CancelledError,
            TimeoutError, OSError)

