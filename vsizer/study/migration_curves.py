"""What ``vsizer waves`` needs of the plan's demand curves (issue 30).

A plan made with ``--series`` sized its pools on demand curves; ``vsizer waves``
releases source hosts while the VMs still there survive N+k, and on curves VMs
whose peaks do not coincide need fewer hosts than their summed peaks. The plan
carries, per VM of its ``migration`` section, the *shape* of its CPU demand::

    cpu_shape[p] = max over the steps of block p of c(t) / max over t of c(t)

with ``c`` the VM's CPU demand curve of the plan (``PoolResult.vm_curves``) and
at most :data:`POINTS` blocks of consecutive steps (the block maximum: a sum of
block maxima is never below the maximum of the sum, so a check on the shapes
never passes where the full curves would not). Values are rounded *up* to
1/1000. ``waves`` multiplies the shape by the VM's scalar CPU demand (its peak),
so a VM's curve peaks at the figure the scalar check uses; a VM without a curve
stays flat at its peak. Memory stays the allocated size (held on the source
host whatever the guest uses).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from vsizer.series.demand import downsample_max

__all__ = ["POINTS", "cpu_shapes"]

#: Most points of a VM's shape (the indented plan JSON grows by about 16 bytes each).
POINTS = 288


def cpu_shapes(pools: Sequence[Any]) -> tuple[dict[str, list[float]], dict[str, Any]] | None:
    """Per VM name its CPU shape, and what the shapes are (``points``,
    ``steps_per_point``, ``steps``); None when no pool was sized on curves or
    the pools' curves differ in length."""
    shapes: dict[str, list[float]] = {}
    lengths, strides = set(), set()
    for pool in pools:
        curves, prob = getattr(pool, "vm_curves", None), getattr(pool, "problem", None)
        if curves is None or prob is None or "cpu" not in prob.dims:
            continue
        cpu = np.asarray(curves[:, :, prob.dims.index("cpu")], dtype=np.float64)  # (V, T)
        lengths.add(cpu.shape[1])
        blocks, stride = downsample_max(cpu.T, POINTS)  # (P, V)
        strides.add(stride)
        peak = blocks.max(axis=0)
        for v, name in enumerate(prob.vm_names):
            if not peak[v] > 0:
                continue  # no CPU demand: flat (its scalar demand is what counts)
            shapes[str(name)] = [math.ceil(x * 1000 - 1e-9) / 1000
                                 for x in (blocks[:, v] / peak[v]).tolist()]
    if not shapes or len(lengths) != 1 or len(strides) != 1:
        return None
    steps = lengths.pop()
    return shapes, {"points": len(next(iter(shapes.values()))),
                    "steps_per_point": strides.pop(), "steps": steps}
