"""Which hosts hold a VM of each anti-affinity group, kept per group.

A placement must not put two VMs of one anti-affinity group (redundancy
partners, an explicit group) on one host. The kernels of
:mod:`vsizer.placement.heuristics` ask, for the VM they place, which hosts hold
its group already. A hosts x groups table answers in one lookup but grows as
their product: a pool of 149,050 hosts with 175,000 redundancy pairs (a million
servers) needed 24.3 GiB. Kept per group instead, each group's hosts take one
slot per member (a group of n VMs is on at most n hosts): 16 bytes a grouped
VM, however many hosts. A kernel marks the few hosts of the VM's group in a
hosts-long scratch before it scans the hosts, and clears them after, so a scan
reads one byte per host as with the table, and makes the same choices.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["GroupHosts", "for_problem", "placed"]


@dataclass
class GroupHosts:
    """The hosts holding each group: group ``g``'s are
    ``hosts[start[g] : start[g] + count[g]]``, in no particular order, with
    room for ``start[g + 1] - start[g]`` (its VMs' count)."""

    start: npt.NDArray[np.int64]
    count: npt.NDArray[np.int64]
    hosts: npt.NDArray[np.int64]

    @classmethod
    def empty(cls, room: npt.NDArray[np.int64]) -> GroupHosts:
        """No host holds any group; group ``g`` has room for ``room[g]`` hosts."""
        start = np.zeros(len(room) + 1, dtype=np.int64)
        np.cumsum(room, out=start[1:])
        return cls(start, np.zeros(len(room), dtype=np.int64),
                   np.full(int(start[-1]), -1, dtype=np.int64))

    @classmethod
    def for_groups(cls, groups: npt.ArrayLike, n_groups: int | None = None) -> GroupHosts:
        """Empty, with room for each group's VMs (``groups``: group per VM, -1 none)."""
        return cls.empty(_room(np.asarray(groups, dtype=np.int64), n_groups))

    @property
    def n_groups(self) -> int:
        return len(self.count)

    def of(self, g: int) -> npt.NDArray[np.int64]:
        """The hosts holding group ``g`` (a view)."""
        s = int(self.start[g])
        return self.hosts[s : s + int(self.count[g])]

    def holds(self, h: int, g: int) -> bool:
        """Whether host ``h`` holds a VM of group ``g``."""
        return bool((self.of(g) == h).any())

    def mark(self, h: int, g: int) -> None:
        """Host ``h`` now holds a VM of group ``g`` (a host holding it already
        takes no second slot)."""
        if self.holds(h, g):
            return
        k = int(self.count[g])
        if self.start[g] + k >= self.start[g + 1]:
            raise ValueError(f"group {g} has room for {k} hosts, all taken")
        self.hosts[self.start[g] + k] = h
        self.count[g] = k + 1

    def subset(
        self, groups: npt.NDArray[np.int64], left_out: npt.ArrayLike = ()
    ) -> GroupHosts:
        """The hosts of ``groups`` alone, renumbered 0..m-1 in their order, with
        their room, the hosts ``left_out`` left out."""
        room = self.start[groups + 1] - self.start[groups]
        out = GroupHosts.empty(room)
        drop = np.asarray(left_out, dtype=np.int64)
        for j, g in enumerate(groups.tolist()):
            hosts = self.of(g)
            hosts = hosts[~np.isin(hosts, drop)]
            s = int(out.start[j])
            out.hosts[s : s + len(hosts)] = hosts
            out.count[j] = len(hosts)
        return out

    def dense(self, n_hosts: int) -> npt.NDArray[np.bool_]:
        """The hosts x groups table (for tests and small pools)."""
        out = np.zeros((n_hosts, self.n_groups), dtype=bool)
        for g in range(self.n_groups):
            out[self.of(g), g] = True
        return out

    def arrays(self) -> tuple[Any, Any, Any]:
        """``(start, count, hosts)`` for the compiled kernels (which update
        ``count`` and ``hosts`` in place)."""
        return self.start, self.count, self.hosts


def placed(
    empty: GroupHosts, assignment: npt.ArrayLike, groups: npt.ArrayLike
) -> GroupHosts:
    """``empty`` marked with every placed VM's host (``assignment``: host per VM,
    -1 none; ``groups``: group per VM, -1 none), vectorized."""
    a = np.asarray(assignment, dtype=np.int64)
    g = np.asarray(groups, dtype=np.int64)
    keep = (a >= 0) & (g >= 0)
    pairs = np.unique(np.stack([g[keep], a[keep]]), axis=1)  # by group, then host
    pg, ph = pairs[0], pairs[1]
    within = np.arange(len(pg)) - np.searchsorted(pg, pg)
    empty.hosts[empty.start[pg] + within] = ph
    empty.count[:] = np.bincount(pg, minlength=empty.n_groups)[: empty.n_groups]
    return empty


#: Each problem's room per group (its VMs per group), made once per problem.
_ROOM: weakref.WeakKeyDictionary[Any, npt.NDArray[np.int64]] = weakref.WeakKeyDictionary()


def for_problem(problem: Any) -> GroupHosts:
    """An empty :class:`GroupHosts` for the anti-affinity groups of
    ``problem`` (a :class:`~vsizer.placement.problem.PlacementProblem`)."""
    room = _ROOM.get(problem)
    if room is None:
        room = _ROOM[problem] = _room(problem.anti_affinity, None)
    return GroupHosts.empty(room)


def _room(groups: npt.NDArray[np.int64], n_groups: int | None) -> npt.NDArray[np.int64]:
    """VMs per group (``n_groups`` of them; None: up to the highest group, at
    least one)."""
    g = groups[groups >= 0]
    n = n_groups if n_groups is not None else int(g.max()) + 1 if g.size else 1
    return np.bincount(g, minlength=n).astype(np.int64)
