"""Catalog value objects: a host model and a CPU score entry."""

from __future__ import annotations

from dataclasses import dataclass

#: Basis label of a score whose benchmark was not stated; taken as consistent
#: with whatever the other side uses (any consistent benchmark will do).
UNSTATED_BASIS = "unstated"
#: ``power_basis`` of a host: its own measurement (a SPECpower_ssj2008 result of
#: the model), another published measurement of the model, or an estimate from
#: other systems' results (the shipped rows of generations the SPECpower data
#: does not reach).
POWER_BASES = ("measured", "published", "estimated")
#: ``power_basis`` of a catalog row that does not state one: the user's figures.
GIVEN_POWER = "given"


@dataclass(frozen=True)
class CpuEntry:
    """Per-core benchmark score of one CPU model, with its source.

    ``cores`` is per chip. ``score_per_core`` is None for a CPU whose cores and
    clock are known but no published score is (its ``basis`` is then ``''``).
    """

    cpu_name: str
    cores: int
    cpu_mhz: float
    score_per_core: float | None
    basis: str  # e.g. 'SPECint2000', 'SPECrate2017_int_base'
    source: str
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class HostModel:
    """A virtualization host model from the host catalog.

    Capacities are physical: ``cores`` = sockets x cores_per_socket. Power is
    the 11-point curve at 0, 10, ..., 100 % load when known, else linear
    between ``power_idle_w`` and ``power_max_w``. ``price`` (per host),
    ``price_date``, ``price_currency`` and ``support_per_year`` are the
    user's: the shipped catalog leaves them empty (list prices are not
    published consistently and vary by configuration and discount).
    """

    model: str
    sockets: int
    cores_per_socket: int
    threads_per_core: int
    cpu_mhz: float
    cpu_score_per_core: float | None
    mem_gib: float
    power_idle_w: float
    power_max_w: float
    power_curve_w: tuple[float, ...] | None = None
    rack_u: float = 1.0
    price: float | None = None
    cpu_score_basis: str = UNSTATED_BASIS
    cpu_name: str = ""
    disk_iops: float | None = None
    disk_mb_s: float | None = None
    net_mbps: float | None = None
    source: str = ""
    #: When ``price`` was quoted: ``YYYY-MM-DD`` or ``YYYY-MM``; None if not stated.
    price_date: str | None = None
    #: ISO 4217 code of ``price`` and ``support_per_year`` (``USD``); None: the
    #: plan's currency.
    price_currency: str | None = None
    #: Yearly support/maintenance contract per host, same currency as ``price``.
    support_per_year: float | None = None
    #: Where ``power_idle_w``/``power_max_w`` come from (:data:`POWER_BASES`, or
    #: :data:`GIVEN_POWER`); an estimate is a counted plan warning.
    power_basis: str = GIVEN_POWER
    #: Physical cores per host the virtualization platform keeps for itself
    #: (hypervisor, storage and controller services of a target profile,
    #: :mod:`vsizer.catalogs.targets`); CPU capacity is that much lower.
    cpu_reserve_cores: float = 0.0

    @property
    def cores(self) -> int:
        return self.sockets * self.cores_per_socket

    @property
    def threads(self) -> int:
        return self.cores * self.threads_per_core
