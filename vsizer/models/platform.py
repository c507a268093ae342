"""Platform factors: hypervisor version, hardware generation, vCPUs, HT, power plan.

Each factor is a named, sourced scenario: the throughput ratio new / old measured
on otherwise equal systems, and where published the extra power it cost.

References
----------
.. [1] Published platform comparisons (2008-2010 performance reports) collected
   in the vsizer design brief, which does not name the original reports:
   Hyper-V 2008 -> 2008 R2 on the same hardware (Java, database, web, mixed
   consolidation tiles); Xeon 5400 -> 5500 on the same hypervisor; a database
   VM from 1 to 2 vCPUs; Hyper-Threading on Xeon X5570 with 1-vCPU WordPress
   VMs; Opteron 2435 vs Xeon; Windows host power plans with a database VM.
   Each scenario's ``source`` names its comparison.
"""

from __future__ import annotations

from dataclasses import dataclass

from vsizer.errors import CatalogLookupError

_SRC = "published platform comparisons: Hyper-V 2008 -> 2008 R2, Xeon 5400 -> 5500, Hyper-Threading on Xeon X5570, Opteron 2435 vs Xeon (2008-2010 performance reports)"


@dataclass(frozen=True)
class PlatformScenario:
    """One published platform comparison."""

    name: str
    factor: float  # throughput new / old [ratio]
    workload: str
    description: str
    source: str
    power_delta_w: float | None = None  # extra power [W]
    power_ratio: float | None = None  # power new / old [ratio]
    lower_bound: bool = False  # the source says "more than"


def _s(name: str, factor: float, workload: str, description: str, **kw: object) -> PlatformScenario:
    return PlatformScenario(name, factor, workload, description, _SRC + ": " + description, **kw)  # type: ignore[arg-type]


SCENARIOS: dict[str, PlatformScenario] = {
    s.name: s
    for s in (
        _s("hyperv-r2-java", 1.161, "java", "Hyper-V 2008 -> 2008 R2, same hardware: Java +16.1 %"),
        _s("hyperv-r2-db-1core", 1.44, "database", "Hyper-V 2008 -> 2008 R2: database +44 % (1 core)"),
        _s("hyperv-r2-db-2core", 1.32, "database", "Hyper-V 2008 -> 2008 R2: database +32 % (2 cores)"),
        _s("hyperv-r2-web", 2.0, "web", "Hyper-V 2008 -> 2008 R2: web throughput more than doubled", lower_bound=True),
        _s("hyperv-r2-tiles", 1.32, "mixed", "Hyper-V 2008 -> 2008 R2: mixed tiles +32 %/+33 % (lower figure)"),
        _s("xeon5500-java", 1.405, "java", "Xeon 5400 -> 5500, same hypervisor: Java +40.5 %"),
        _s("xeon5500-db-2core", 1.76, "database", "Xeon 5400 -> 5500: 2-core DB +76 %"),
        _s("xeon5500-tiles-light", 1.61, "mixed", "Xeon 5400 -> 5500: mixed tiles +61 % at light load"),
        _s("xeon5500-tiles-full", 2.70, "mixed", "Xeon 5400 -> 5500: mixed tiles +170 % at full load (Hyper-Threading doubles logical CPUs)"),
        _s("db-2vcpu-xeon5500-old", 1.92, "database", "DB VM 1 -> 2 vCPUs, Xeon 5500, old hypervisor: +92 %"),
        _s("db-2vcpu-xeon5500-new", 1.75, "database", "DB VM 1 -> 2 vCPUs, Xeon 5500, new hypervisor: +75 %"),
        _s("db-2vcpu-xeon5400", 1.44, "database", "DB VM 1 -> 2 vCPUs, Xeon 5400: +44 %"),
        _s("hyperthreading-x5570", 1.038, "web", "Hyper-Threading on Xeon X5570, 1-vCPU WordPress VMs: +3.8 % throughput for +9.4 % power", power_ratio=1.094),
        _s("opteron2435-vs-xeon-ht", 1.0, "web", "Opteron 2435 (12 cores) vs Xeon (8 cores/16 threads): matched within about 4 % at 16-18 % less power (power ratio: midpoint 0.83)", power_ratio=0.83),
        _s("power-plan-high-performance", 1.36, "database", "host power plan Balanced -> High performance (DB VM): +36 % throughput, +16 W", power_delta_w=16.0),
        _s("power-plan-balanced-min-100", 1.26, "database", "Balanced with minimum processor state 100 % (DB VM): +26 %, +10 W", power_delta_w=10.0),
    )
}


def platform_factor(name: str) -> float:
    """Throughput ratio new / old of a named platform scenario.

    Parameters
    ----------
    name : str
        A key of :data:`SCENARIOS`, e.g. ``'hyperv-r2-java'``.

    Returns
    -------
    float
        Throughput new / old [ratio] (``lower_bound`` scenarios: at least this).

    Notes
    -----
    Table lookup, no interpolation: each factor is one published comparison [1]_,
    e.g. Hyper-V 2008 -> 2008 R2 Java 1.161, Xeon 5400 -> 5500 Java 1.405,
    power plan Balanced -> High performance 1.36 (+16 W).

    Validity: the workload and hardware of the named comparison only (Hyper-V
    2008/2008 R2, Xeon 5400/5500/X5570, 2008-2010); applying a factor elsewhere
    is an analogy, not a measurement.

    References
    ----------
    .. [1] Published platform comparisons (module references).
    """
    try:
        return SCENARIOS[name].factor
    except KeyError:
        raise CatalogLookupError(
            f"unknown platform scenario {name!r}; valid names are listed by "
            f"'vsizer model platform' and in vsizer.models.platform.SCENARIOS: "
            + ", ".join(sorted(SCENARIOS))
        ) from None
