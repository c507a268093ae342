"""The bin-packing model of ``--solver cp-sat``, written straight into CP-SAT's proto.

Shared by the full model (:mod:`vsizer.placement.cpsat`) and the sub-problems of
the large-neighbourhood search (:mod:`vsizer.placement.lns`)::

    x[v, j] in {0, 1}   VM v on host j          y[j] in {0, 1}   host j used
    sum_j x[v, j] = 1                           (every VM placed once)
    sum_v q[v, t, d] x[v, j] <= S y[j]          (host j, step t of the model, dimension d)
    sum_v x[v, j] <= n y[j]                     (a host carrying a VM is used)
    sum_{v in g} x[v, j] <= 1                   (anti-affinity group g)
    x[v, pin(v)] = 1                            (pinned VMs)

Vectorized: each row is one proto constraint whose variables and coefficients
are extended from numpy arrays (no Python expression per term), and the
solution is read back as one array.

Flat dimensions: a dimension whose demand is the same at every step for every
VM (memory, vCPU) needs one row per host, not one per step: its rows are put on
one step only (:func:`flat_dims`).

Memory bound: the search's memory is estimated before anything is built
(:func:`search_bytes`: the integer demand of every VM at every step, plus the
largest model at :data:`BYTES_PER_TERM`) and refused above
:data:`MAX_MODEL_BYTES` with one line naming what to change
(:func:`too_large`); OR-Tools running out of memory anyway (``MemoryError``,
``std::bad_alloc``) becomes the same kind of line (:func:`out_of_memory`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from vsizer.errors import ConfigError

#: Largest estimated memory of the cp-sat search of one pool [bytes]: refused above it.
MAX_MODEL_BYTES = 1_500_000_000
#: Memory of one term of a model while it is built and solved [bytes] (measured with
#: ``benchmarks/bench_cpsat_model.py``: proto, presolve copy and solver; rounded up).
BYTES_PER_TERM = 64
#: Bytes of one integer demand value held by the search (int32).
BYTES_PER_VALUE = 4
#: What to change, said by every refusal.
ADVICE = (
    "use --solver heuristic, split the pool (fewer VMs per pool), or a coarser "
    "--step; --time-limit does not bound memory"
)


def flat_dims(q: npt.NDArray[np.number]) -> npt.NDArray[np.bool_]:
    """Per dimension: the same value at every step for every VM (one row per host);
    checked 4,096 VMs at a time (no full-size temporary)."""
    flat = np.ones(q.shape[2], dtype=bool)
    for i in range(0, q.shape[0], 4096):
        part = q[i:i + 4096]
        flat &= (part == part[:, :1, :]).all(axis=(0, 1))
    return flat


def row_steps(steps: list[int], flat: npt.NDArray[np.bool_], d: int) -> list[int]:
    """The steps dimension ``d`` gets rows on: one step when it is flat."""
    return steps[:1] if flat[d] else steps


def model_terms(
    q: npt.NDArray[np.integer], steps: list[int], flat: npt.NDArray[np.bool_], hosts: int
) -> int:
    """Terms of the model of ``q`` on ``hosts`` hosts and ``steps`` (capacity rows,
    assignment and use rows), without building it."""
    n = q.shape[0]
    terms = 3 * n * hosts + hosts
    for d in range(q.shape[2]):
        cols = q[:, row_steps(steps, flat, d), d]
        terms += int((cols > 0).sum()) * hosts
    return terms


def search_bytes(cells: int, terms: int) -> int:
    """Estimated memory of a search holding ``cells`` demand values and a model of
    ``terms`` terms."""
    return cells * BYTES_PER_VALUE + terms * BYTES_PER_TERM


def over_limit(cells: int, terms: int) -> int:
    """The estimate of :func:`search_bytes` when it is above :data:`MAX_MODEL_BYTES`, else 0."""
    need = search_bytes(cells, terms)
    return need if need > MAX_MODEL_BYTES else 0


def too_large(what: str, need: int) -> ConfigError:
    """The one-line refusal of a search whose estimate ``need`` is above the limit."""
    return ConfigError(
        f"--solver cp-sat: {what} would need about {need / 1e9:.1f} GB, above the "
        f"limit of {MAX_MODEL_BYTES / 1e9:.1f} GB "
        f"(vsizer.placement.cpsat_model.MAX_MODEL_BYTES); {ADVICE}."
    )


def out_of_memory(what: str) -> ConfigError:
    """The one-line message when OR-Tools runs out of memory."""
    return ConfigError(f"--solver cp-sat: {what} ran out of memory (std::bad_alloc); {ADVICE}.")


@contextmanager
def memory_guard(what: str) -> Iterator[None]:
    """Turn ``MemoryError`` and OR-Tools' ``std::bad_alloc`` into :func:`out_of_memory`."""
    try:
        yield
    except MemoryError:
        raise out_of_memory(what) from None
    except RuntimeError as err:
        if "bad_alloc" not in str(err):
            raise
        raise out_of_memory(what) from None


@dataclass
class BinModel:
    """A bin-packing model of ``n`` VMs on ``k`` hosts (see the module docstring)."""

    model: Any
    x: npt.NDArray[np.int64]  # (n, k) proto index of x[v, j]
    y: npt.NDArray[np.int64]  # (k,) proto index of y[j]
    scale: int
    room: npt.NDArray[np.int64] | None = None  # (k, T, D) capacity left by fixed VMs
    terms: int = 0  # of the capacity and use rows
    rows: int = 0

    @classmethod
    def build(
        cls, cp_model: Any, q: npt.NDArray[np.integer], steps: list[int],
        flat: npt.NDArray[np.bool_], k: int, *, scale: int,
        groups: npt.NDArray[np.int64], pins: npt.NDArray[np.int64],
        room: npt.NDArray[np.int64] | None = None,
    ) -> BinModel:
        """The model on ``steps`` (sorted); ``pins`` a host position 0..k-1 per VM or -1;
        ``room`` (k, T, D) the capacity each host has left for these VMs (default
        ``scale``: the whole host)."""
        n = q.shape[0]
        model = cp_model.CpModel()
        proto = model.proto
        for _ in range(n * k + k):
            proto.variables.add().domain.extend([0, 1])
        x = np.arange(n * k, dtype=np.int64).reshape(n, k)
        y = np.arange(n * k, n * k + k, dtype=np.int64)
        self = cls(model, x, y, scale, room)
        for v in range(n):
            proto.constraints.add().exactly_one.literals.extend(x[v].tolist())
        for v in np.flatnonzero(pins >= 0).tolist():
            var = proto.variables[int(x[v, int(pins[v])])].domain
            var[0] = 1
        for j in range(k):  # a host carrying a VM is used
            self._row(x[:, j], np.ones(n, dtype=np.int64), j, n)
        for d in range(q.shape[2]):
            for s in row_steps(steps, flat, d):
                self.add_rows(q[:, s, d], s, d)
        for g in np.unique(groups[groups >= 0]).tolist():
            members = np.flatnonzero(groups == g)
            for j in range(k):
                proto.constraints.add().at_most_one.literals.extend(x[members, j].tolist())
        return self

    def _row(self, xs: npt.NDArray[np.int64], coef: npt.NDArray[np.integer], j: int,
             cap: int) -> None:
        """sum coef * xs <= cap * y[j]."""
        ct = self.model.proto.constraints.add().linear
        ct.vars.extend(xs.tolist() + [int(self.y[j])])
        ct.coeffs.extend(coef.tolist() + [-cap])
        ct.domain.extend([-cap, 0])
        self.terms += xs.size + 1
        self.rows += 1

    def add_rows(self, col: npt.NDArray[np.integer], s: int, d: int) -> None:
        """Capacity rows of step ``s`` and dimension ``d`` (demand ``col`` per VM) on
        every host whose room the VMs' total exceeds."""
        nz = np.flatnonzero(col)
        total = int(col.sum())
        coef = col[nz].astype(np.int64)
        for j in range(len(self.y)):
            cap = self.scale if self.room is None else int(self.room[j, s, d])
            if nz.size and total > cap:
                self._row(self.x[nz, j], coef, j, cap)

    def linear(self, idx: list[int], coef: list[int], lo: int, hi: int) -> None:
        """lo <= sum coef * var[idx] <= hi."""
        ct = self.model.proto.constraints.add().linear
        ct.vars.extend(idx)
        ct.coeffs.extend(coef)
        ct.domain.extend([lo, hi])

    def symmetry(self) -> None:
        """y[j] >= y[j + 1]: interchangeable hosts are used in order."""
        for j in range(len(self.y) - 1):
            self.linear([int(self.y[j]), int(self.y[j + 1])], [1, -1], 0, 1)

    def minimize(self, idx: list[int], coef: list[int]) -> None:
        obj = self.model.proto.objective
        obj.vars.extend(idx)
        obj.coeffs.extend(coef)

    def minimize_hosts(self, lo: int, hi: int) -> None:
        """lo <= sum y <= hi, minimize sum y."""
        ys = self.y.tolist()
        self.linear(ys, [1] * len(ys), lo, hi)
        self.minimize(ys, [1] * len(ys))

    def hint(self, local: npt.NDArray[np.int64]) -> None:
        """Hint: VM v on host position ``local[v]`` (hosts carrying a VM used)."""
        n, k = self.x.shape
        vals = np.zeros((n, k), dtype=np.int64)
        vals[np.arange(n), local] = 1
        used = np.zeros(k, dtype=np.int64)
        used[np.unique(local)] = 1
        hint = self.model.proto.solution_hint
        hint.vars.extend(self.x.ravel().tolist() + self.y.tolist())
        hint.values.extend(vals.ravel().tolist() + used.tolist())

    def assignment(self, cp: Any) -> npt.NDArray[np.int64]:
        """Host position of every VM in the solver's solution."""
        sol = np.asarray(cp.response_proto.solution, dtype=np.int64)
        return np.asarray(sol[self.x].argmax(axis=1), dtype=np.int64)
