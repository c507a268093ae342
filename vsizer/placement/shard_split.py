"""Split a pool's VMs into shards that each look like the whole pool.

Placement on curves saves hosts by putting VMs whose peaks do not coincide on
one host (a day-time and a night-time VM). A shard can only use that when it
holds both kinds, so a shard must be a miniature of the pool: the same mix of
curve shapes and of sizes. The split is therefore *stratified*, not
partitioned by similarity:

1. **Shape.** Each VM's curve is averaged into :data:`SHAPE_POINTS` equal
   stretches of the step axis per dimension and divided by its own maximum
   (per dimension): the shape of its day, whatever its size.
2. **Clusters.** k-means (Lloyd's algorithm, :data:`CLUSTERS` centres, a
   seeded choice of starting VMs, :data:`KMEANS_ROUNDS` rounds) groups VMs of
   the same shape — those that peak together.
3. **Deal.** The VMs are sorted by (cluster, size decreasing, index) and dealt
   round-robin over the shards: every shard receives about 1/S of every cluster
   and of every size class, so complementary peaks stay together in every shard
   and the shards' lower bounds add up to about the pool's.

Keeping a cluster *inside* one shard would do the opposite: a shard of VMs that
all peak at 10:00 packs like peak sizing. Pinned VMs all go to shard 0 (its
hosts come first in the merged plan, so the pins' host indices hold).

Deterministic: the shards depend on the curves and the seed only — never on
the number of workers or the engine.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from vsizer._validation import Interval, validate_params

#: Points per dimension of the downsampled curve shape.
SHAPE_POINTS = 24
#: k-means centres (fewer when the pool has fewer VMs).
CLUSTERS = 16
#: Lloyd rounds (fixed: no convergence test on floats, so always the same work).
KMEANS_ROUNDS = 8
#: VMs processed at once (bounds the temporary memory).
CHUNK = 65_536


def shard_count(n_vms: int, shard_vms: int) -> int:
    """Shards of at most ``shard_vms`` VMs (0: never shard; 1 when the pool fits one)."""
    if shard_vms <= 0 or n_vms <= shard_vms:
        return 1
    return -(-n_vms // shard_vms)


def curve_shapes(
    curves: npt.NDArray[np.floating], points: int = SHAPE_POINTS
) -> npt.NDArray[np.float64]:
    """Downsampled curves divided by their own maximum, shape (n_vms, points x n_dims)."""
    n, t, d = curves.shape
    points = max(1, min(points, t))
    edges = (np.arange(points) * t) // points
    width = np.diff(np.append(edges, t)).astype(np.float64)
    out = np.zeros((n, points, d), dtype=np.float64)
    for i in range(0, n, CHUNK):
        block = np.add.reduceat(np.asarray(curves[i : i + CHUNK], dtype=np.float64),
                                edges, axis=1) / width[None, :, None]
        top = block.max(axis=1, keepdims=True)
        out[i : i + CHUNK] = np.divide(block, top, out=np.zeros_like(block), where=top > 0)
    return out.reshape(n, points * d)


def kmeans(
    x: npt.NDArray[np.float64], k: int, seed: int = 0, rounds: int = KMEANS_ROUNDS
) -> npt.NDArray[np.int64]:
    """Cluster label per row (Lloyd's algorithm from ``k`` seeded rows; an emptied
    centre keeps its place)."""
    n = x.shape[0]
    k = max(1, min(k, n))
    rng = np.random.default_rng(seed)
    centres = x[np.sort(rng.choice(n, size=k, replace=False))].copy()
    labels = np.zeros(n, dtype=np.int64)
    for _ in range(rounds):
        for i in range(0, n, CHUNK):
            block = x[i : i + CHUNK]
            # |x - c|^2 less |x|^2 (the same for every centre); einsum without BLAS,
            # so the sums do not depend on the machine's thread count
            dist = (centres**2).sum(axis=1)[None, :] - 2.0 * np.einsum(
                "ij,kj->ik", block, centres, optimize=False
            )
            labels[i : i + CHUNK] = dist.argmin(axis=1)
        counts = np.bincount(labels, minlength=k).astype(np.float64)
        for j in range(x.shape[1]):
            sums = np.bincount(labels, weights=x[:, j], minlength=k)
            centres[:, j] = np.where(counts > 0, sums / np.maximum(counts, 1), centres[:, j])
    return labels


@validate_params(
    {"n_shards": Interval(int, 1, None), "seed": Interval(int, 0, None)},
    where="assign_shards",
)
def assign_shards(
    curves: npt.NDArray[np.floating],
    max_load: npt.NDArray[np.float64],
    n_shards: int,
    *,
    pins: npt.NDArray[np.int64] | None = None,
    seed: int = 0,
) -> npt.NDArray[np.int64]:
    """Shard index per VM (see the module text): clusters of shapes dealt round-robin,
    largest first within a cluster; pinned VMs in shard 0."""
    n = curves.shape[0]
    if n_shards == 1 or n == 0:
        return np.zeros(n, dtype=np.int64)
    labels = kmeans(curve_shapes(curves), CLUSTERS, seed)
    size = np.zeros(n, dtype=np.float64)
    inv = 1.0 / np.asarray(max_load, dtype=np.float64)
    for i in range(0, n, CHUNK):
        size[i : i + CHUNK] = (np.asarray(curves[i : i + CHUNK]).max(axis=1) * inv).max(axis=1)
    free = np.ones(n, dtype=bool) if pins is None else np.asarray(pins) < 0
    order = np.lexsort((np.arange(n), -size, labels))
    order = order[free[order]]
    shard = np.zeros(n, dtype=np.int64)
    shard[order] = np.arange(order.size) % n_shards
    return shard
