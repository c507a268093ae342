"""Priority of resource pools and of VMs on a host failure.

The design method separates pools by priority: production (highest priority,
ample resources) and development (best effort, limited). It names no order of
work; vsizer's rules (chosen):

- **Placement order**: pools named for production are sized and placed first,
  pools named for development/test last, every other pool in between, each class
  in order of first appearance (:func:`placement_order`).
- **Restart order on a failure**: the VMs of failed hosts are restarted by
  importance rank, A before B before C before unranked, largest first within a
  rank (:func:`restart_priority`), so when a failure leaves VMs without a place,
  those are the lowest-ranked ones. Pools have hosts of their own, so a
  production VM never competes with a development VM for a surviving host.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import numpy as np

__all__ = [
    "DEVELOPMENT", "OTHER", "PRODUCTION", "placement_order", "pool_class", "restart_priority",
]

PRODUCTION, OTHER, DEVELOPMENT = 0, 1, 2

_PRODUCTION = re.compile(r"(^|[^a-z])(prod|production|prd|live)([^a-z]|$)|本番|商用", re.I)
_DEVELOPMENT = re.compile(
    r"(^|[^a-z])(dev|devel|development|test|testing|qa|stg|staging|sandbox)([^a-z]|$)"
    r"|開発|検証|テスト|試験|ステージング",
    re.I,
)


def pool_class(name: str) -> int:
    """:data:`PRODUCTION` (0), :data:`OTHER` (1) or :data:`DEVELOPMENT` (2) by the
    pool's name (English or Japanese; production wins when both match).

    Examples
    --------
    >>> [pool_class(n) for n in ("本番", "prod-web", "開発", "Dev", "default", "product")]
    [0, 0, 2, 2, 1, 1]
    """
    if _PRODUCTION.search(name):
        return PRODUCTION
    return DEVELOPMENT if _DEVELOPMENT.search(name) else OTHER


def placement_order(pools: Iterable[object]) -> list[object]:
    """The pools in placement order: production, other, development; stable.

    >>> placement_order(["dev", "web", "本番", "test", "prod"])
    ['本番', 'prod', 'web', 'dev', 'test']
    """
    items = list(pools)
    return sorted(items, key=lambda p: pool_class(str(p)))


#: Restart priority of an importance rank (A first); anything else after C.
_RANK_PRIORITY = {"A": 0, "B": 1, "C": 2}


def restart_priority(ranks: Sequence[object]) -> np.ndarray:
    """Restart priority per VM from its importance rank: A 0, B 1, C 2, other 3.

    >>> restart_priority(["A", "c", None, " B ", "S"]).tolist()
    [0, 2, 3, 1, 3]
    """
    out = [
        _RANK_PRIORITY.get(str(r).strip().upper(), 3) if isinstance(r, str) else 3
        for r in ranks
    ]
    return np.asarray(out, dtype=np.int64)
