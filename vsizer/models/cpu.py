r"""Per-VM CPU performance vs the number of running VMs and CPU overcommit.

Two regimes, both from the published VMware ESX 2.5.2 measurement [1]_:

* while total VM CPU demand stays within the physical CPUs, per-VM performance
  falls linearly with the number of running VMs (:func:`linear_relative`);
* beyond it, processor sharing stretches every VM: each guest counts the time its
  runnable vCPU waits for a physical CPU as busy, so guest-reported utilization is
  inflated by the overcommit ratio and per-VM performance ``mu = lambda / rho``
  falls by the same factor (:func:`contention_factor`).

Symbols of the source: ``lambda`` request rate [req/s], ``rho`` CPU utilization
[fraction], ``mu = lambda / rho`` processing performance [req/s at 100 % CPU];
``N`` running VMs; ``P`` physical CPUs (cores, not Hyper-Threading threads).

References
----------
.. [1] Published measurement of per-VM web throughput vs VM count on VMware ESX
   2.5.2 (2005): host 2 x dual-core Xeon 2.8 GHz with Hyper-Threading (4 physical,
   8 logical CPUs), 1 vCPU and 512 MB per VM, an IIS/.NET web application under a
   closed-loop load generator (exponential think time, mean 100 ms), performance
   relative to a physical Pentium III 1.0 GHz server (mu = 350 req/s). The table
   is :data:`vsizer.models.parameters.ESX_CPU_TABLE`; the design brief that
   collected it does not name the original report, so none is cited here.
.. [2] L. Kleinrock, *Queueing Systems, Volume 2: Computer Applications*. New York:
   Wiley, 1976, ISBN 0-471-49111-X, Sec. 4.4 (processor sharing: each of n jobs
   on c servers is served at rate min(1, c/n)).
.. [3] P. J. Denning and J. P. Buzen, "The operational analysis of queueing
   network models," *ACM Computing Surveys*, vol. 10, no. 3, pp. 225-261, 1978,
   :doi:`10.1145/356733.356735` (utilization law U = X S).
.. [4] VMware, "Performance Best Practices for VMware vSphere 5.5," 2013,
   https://www.vmware.com/pdf/Perf_Best_Practices_vSphere5.5.pdf (CPU
   overcommitment: vCPUs beyond the physical cores wait, seen as ready time).
.. [5] VMware, "Ready Time Observations" (ESX Server 3.0), 2006,
   https://www.vmware.com/techpapers/2006/ready-time-observations-641.html.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from vsizer._validation import Interval, OneOf, validate_params
from vsizer.models.parameters import OVERHEAD_MODEL_PARAMETERS, SOURCE_61
from vsizer.models.range import check_array_bounds, warn_outside

_P = OVERHEAD_MODEL_PARAMETERS["cpu"]["esx252"]
INTERCEPT: float = _P["intercept"]
SLOPE: float = _P["slope"]
REFERENCE_CPUS: int = _P["reference_cpus"]
CONTENTION_EXPONENT: float = _P["contention_exponent"]
BASES = ("demand", "guest")


def processing_rate(
    arrival_rate: npt.ArrayLike, utilization: npt.ArrayLike
) -> npt.NDArray[np.float64]:
    r"""CPU processing performance ``mu = lambda / rho``.

    Parameters
    ----------
    arrival_rate : array_like
        Request rate lambda [req/s].
    utilization : array_like
        CPU utilization rho [fraction] (0.464 = 46.4 %); summed over VMs for a
        total, each guest counting its own vCPU as 1.

    Returns
    -------
    ndarray
        mu [req/s at 100 % CPU]; ``inf`` where ``utilization`` is 0.

    Notes
    -----
    .. math:: \mu = \lambda / \rho

    the request rate the CPU would sustain at 100 % utilization if service
    demand stayed constant: by the utilization law ``rho = lambda S`` [2]_, mu is
    1 / S. Summed over VMs it is the utilization-weighted mean of the per-VM
    rates. The ESX 2.5.2 measurement reports its results this way [1]_.

    Validity: any closed- or open-loop measurement where rho is the CPU time
    share spent on the measured requests; 0 < rho.

    References
    ----------
    .. [1] Published VMware ESX 2.5.2 measurement (module references; table
       columns lambda, rho, mu).
    .. [2] P. J. Denning and J. P. Buzen, ACM Computing Surveys 10(3), 1978,
       :doi:`10.1145/356733.356735`.
    """
    lam = np.asarray(arrival_rate, dtype=float)
    rho = np.asarray(utilization, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(rho > 0, lam / np.where(rho > 0, rho, 1.0), np.inf)


def linear_relative(
    vms: npt.ArrayLike,
    physical_cpus: npt.ArrayLike = REFERENCE_CPUS,
    *,
    intercept: float = INTERCEPT,
    slope: float = SLOPE,
    reference_cpus: float = REFERENCE_CPUS,
) -> npt.NDArray[np.float64]:
    r"""Per-VM relative performance while total demand stays within the physical CPUs.

    Parameters
    ----------
    vms : array_like
        Running VMs N [count] (1 vCPU each in the source; pass vCPUs for wider VMs).
    physical_cpus : array_like
        Physical CPUs (cores) P of the host [count].
    intercept, slope : float
        Linear coefficients [relative units] and [relative units per VM on the
        reference host]; defaults from the ESX 2.5.2 measurement (2.09, -0.071).
    reference_cpus : float
        Physical CPUs of the host the coefficients were measured on [count].

    Returns
    -------
    ndarray
        Per-VM performance in the units of ``intercept`` (by default relative to
        a Pentium III 1.0 GHz, mu = 350).

    Notes
    -----
    .. math:: r(N) = a + b \max(N P_\mathrm{ref} / P,\ 1)

    with ``a`` = 2.09, ``b`` = -0.071 [1]_:
    the linear regression of relative performance on VM count over the measured
    rows whose total guest utilization is at most 400 % (the 4 physical CPUs), about
    3.5 % per added VM relative to one VM. Scaling N by ``P_ref / P`` (VMs per
    physical CPU) carries the 4-CPU measurement to other hosts; fewer VMs per CPU
    than one VM on the 4-CPU host are held at the single-VM value rather than
    extrapolated.

    Validity: 1-12 VMs on 4 physical CPUs, i.e. at most 3 VMs per physical CPU;
    VMware ESX 2.5.2, Xeon 2.8 GHz (2005), web workload. A ModelRangeWarning is
    issued beyond 3 VMs per physical CPU.

    References
    ----------
    .. [1] Published VMware ESX 2.5.2 measurement (module references), rows with
       rho total <= 400 %, and its findings.
    """
    check_array_bounds(
        {"vms": (vms, Interval(float, 1, None)),
         "physical_cpus": (physical_cpus, Interval(float, 0, None, "neither"))},
        "cpu.linear_relative",
    )
    n = np.asarray(vms, dtype=float)
    p = np.asarray(physical_cpus, dtype=float)
    per_cpu = n / p
    warn_outside(
        "cpu.linear_relative",
        "VMs per physical CPU",
        per_cpu,
        None,
        _P["max_vms_per_cpu"],
        SOURCE_61 + ": 1-12 VMs on 4 CPUs",
    )
    x = np.maximum(per_cpu * reference_cpus, 1.0)
    return intercept + slope * x


def guest_reported_util_pct(
    demand_pct: npt.ArrayLike,
    physical_cpus: npt.ArrayLike,
    *,
    contention_exponent: float = CONTENTION_EXPONENT,
) -> npt.NDArray[np.float64]:
    r"""Summed guest-reported CPU utilization for a true total demand.

    Parameters
    ----------
    demand_pct : array_like
        Total VM CPU demand D, summed over VMs [% of one physical CPU]
        (400 = four CPUs' worth).
    physical_cpus : array_like
        Physical CPUs P [count].
    contention_exponent : float
        k of the Notes [-]; 1 = processor sharing.

    Returns
    -------
    ndarray
        Summed guest-reported utilization U [% of one vCPU].

    Notes
    -----
    .. math:: U = D \max\left(1,\ \frac{D}{100 P}\right)^k

    Under processor sharing [2]_ n runnable
    vCPUs on P CPUs each run at rate P/n, so a guest sees its work take
    ``D / (100 P)`` times longer and counts the wait as busy (k = 1). Within the
    physical CPUs U = D.

    Validity: the measured overcommitted rows, U up to 895 % on 4 CPUs
    (D up to 1.5 x P) [1]_.

    References
    ----------
    .. [1] Published VMware ESX 2.5.2 measurement (module references), column
       guest-reported rho total.
    .. [2] L. Kleinrock, Queueing Systems, Vol. 2, Wiley, 1976, Sec. 4.4.
    """
    d = np.asarray(demand_pct, dtype=float)
    ratio = np.maximum(d / (100.0 * np.asarray(physical_cpus, dtype=float)), 1.0)
    return d * ratio**contention_exponent


def demand_from_guest_util_pct(
    guest_pct: npt.ArrayLike,
    physical_cpus: npt.ArrayLike,
    *,
    contention_exponent: float = CONTENTION_EXPONENT,
) -> npt.NDArray[np.float64]:
    r"""Invert :func:`guest_reported_util_pct`: true demand from guest-reported utilization.

    Parameters
    ----------
    guest_pct : array_like
        Summed guest-reported utilization U [% of one vCPU], as in the ESX 2.5.2
        measurement's table.
    physical_cpus : array_like
        Physical CPUs P [count].
    contention_exponent : float
        k [-].

    Returns
    -------
    ndarray
        Total demand D [% of one physical CPU].

    Notes
    -----
    .. math::

        D = \begin{cases} U & U \le 100 P \\
            100 P \left(\frac{U}{100 P}\right)^{1 / (1 + k)} & U > 100 P \end{cases}

    with k = 1 the geometric mean of U and 100 P.

    Validity: as :func:`guest_reported_util_pct`; U up to 895 % on 4 CPUs [1]_.

    References
    ----------
    .. [1] Published VMware ESX 2.5.2 measurement (module references).
    """
    u = np.asarray(guest_pct, dtype=float)
    cap = 100.0 * np.asarray(physical_cpus, dtype=float)
    over = np.maximum(u / cap, 1.0)
    return np.where(u > cap, cap * over ** (1.0 / (1.0 + contention_exponent)), u)


def contention_factor(
    overcommit: npt.ArrayLike, *, contention_exponent: float = CONTENTION_EXPONENT
) -> npt.NDArray[np.float64]:
    r"""Slow-down of every VM when total CPU demand exceeds the physical CPUs.

    Parameters
    ----------
    overcommit : array_like
        Total VM CPU demand / physical CPUs, D / (100 P) [ratio].
    contention_exponent : float
        k [-]; 1 = processor sharing.

    Returns
    -------
    ndarray
        Factor >= 1 dividing per-VM performance [-].

    Notes
    -----
    .. math:: f = \max\left(1,\ \frac{D}{100 P}\right)^k

    With ``mu = lambda / rho`` and rho inflated as
    in :func:`guest_reported_util_pct`, per-VM mu falls by f. With k = 1 and the
    measured linear coefficients this predicts the overcommitted rows (8 VMs at
    401 % and 620 %, 12 VMs at 532 % and 895 %) within 11 % [1]_; fitted to those
    rows k is about 1.7 (``vsizer fit``).

    Validity: overcommit up to 1.5 (the 895 % row on 4 CPUs) [1]_.

    References
    ----------
    .. [1] Published VMware ESX 2.5.2 measurement (module references),
       overcommitted rows.
    .. [2] L. Kleinrock, Queueing Systems, Vol. 2, Wiley, 1976, Sec. 4.4.
    .. [3] VMware, "Performance Best Practices for VMware vSphere 5.5," 2013,
       https://www.vmware.com/pdf/Perf_Best_Practices_vSphere5.5.pdf.
    """
    oc = np.asarray(overcommit, dtype=float)
    warn_outside(
        "cpu.contention_factor",
        "overcommit (demand / physical CPUs)",
        oc,
        None,
        _P["max_overcommit"],
        SOURCE_61 + ": up to 895 % guest-reported on 4 CPUs",
    )
    return np.maximum(oc, 1.0) ** contention_exponent


@validate_params({"basis": OneOf(BASES)}, where="cpu.relative_performance")
def relative_performance(
    vms: npt.ArrayLike,
    physical_cpus: npt.ArrayLike,
    total_util_pct: npt.ArrayLike,
    *,
    basis: str = "demand",
    intercept: float = INTERCEPT,
    slope: float = SLOPE,
    reference_cpus: float = REFERENCE_CPUS,
    contention_exponent: float = CONTENTION_EXPONENT,
) -> npt.NDArray[np.float64]:
    r"""Per-VM CPU performance with N VMs on P physical CPUs at a total utilization.

    Parameters
    ----------
    vms : array_like
        Running VMs N [count].
    physical_cpus : array_like
        Physical CPUs P [count].
    total_util_pct : array_like
        Total VM CPU utilization [% of one CPU], summed over VMs.
    basis : {'demand', 'guest'}
        ``'demand'``: true demand (what the workloads need, as a plan knows it);
        ``'guest'``: summed guest-reported utilization, as in the ESX 2.5.2 table.
    intercept, slope, reference_cpus, contention_exponent : float
        Model coefficients (see :func:`linear_relative`, :func:`contention_factor`).

    Returns
    -------
    ndarray
        Per-VM performance in the units of ``intercept`` (default: Pentium III = 1).

    Notes
    -----
    .. math::

        r = \frac{a + b \max(N P_\mathrm{ref} / P,\ 1)}
                 {\max\left(1,\ \frac{D}{100 P}\right)^k}

    with D the true
    demand (from U by :func:`demand_from_guest_util_pct` when ``basis='guest'``).

    Validity: at most 3 VMs per physical CPU and overcommit D / (100 P) at most
    1.5, VMware ESX 2.5.2, web workload [1]_; ModelRangeWarning beyond.

    References
    ----------
    .. [1] Published VMware ESX 2.5.2 measurement (module references).
    """
    p = np.asarray(physical_cpus, dtype=float)
    demand = (
        np.asarray(total_util_pct, dtype=float)
        if basis == "demand"
        else demand_from_guest_util_pct(
            total_util_pct, p, contention_exponent=contention_exponent
        )
    )
    lin = linear_relative(
        vms, p, intercept=intercept, slope=slope, reference_cpus=reference_cpus
    )
    return lin / contention_factor(
        demand / (100.0 * p), contention_exponent=contention_exponent
    )


@validate_params({"basis": OneOf(BASES)}, where="cpu.relative_to_single_vm")
def relative_to_single_vm(
    vms: npt.ArrayLike,
    physical_cpus: npt.ArrayLike,
    total_util_pct: npt.ArrayLike,
    *,
    basis: str = "demand",
    intercept: float = INTERCEPT,
    slope: float = SLOPE,
    reference_cpus: float = REFERENCE_CPUS,
    contention_exponent: float = CONTENTION_EXPONENT,
) -> npt.NDArray[np.float64]:
    r"""Per-VM performance relative to one VM running alone on the same host.

    Parameters
    ----------
    vms, physical_cpus, total_util_pct, basis
        As :func:`relative_performance`.
    intercept, slope, reference_cpus, contention_exponent : float
        Model coefficients.

    Returns
    -------
    ndarray
        ``relative_performance(N, P, U) / linear_relative(1, P)`` [fraction].

    Notes
    -----
    .. math:: s(N) = r(N, P, D) / r_\mathrm{lin}(1, P)

    The single VM alone is the linear model at N = 1 without contention. 12 VMs on
    4 CPUs within the CPUs: (2.09 - 0.071 * 12) / (2.09 - 0.071) = 0.613 [1]_.

    Validity: as :func:`relative_performance`.

    References
    ----------
    .. [1] Published VMware ESX 2.5.2 measurement (module references).
    """
    kw = {"intercept": intercept, "slope": slope, "reference_cpus": reference_cpus}
    r = relative_performance(
        vms,
        physical_cpus,
        total_util_pct,
        basis=basis,
        contention_exponent=contention_exponent,
        **kw,
    )
    # one VM alone on P CPUs: x = max(P_ref / P, 1) = 1 whenever P >= P_ref
    x1 = np.maximum(reference_cpus / np.asarray(physical_cpus, dtype=float), 1.0)
    alone = intercept + slope * x1
    return r / alone


def per_logical_cpu_share(
    host_relative: float = _P["host_relative"],
    logical_cpus: int = _P["logical_cpus"],
    scale: float = 2.0,
) -> float:
    r"""The host's performance per logical CPU, to compare one 1-vCPU VM against.

    Parameters
    ----------
    host_relative : float
        Relative performance of the physical host [Pentium III = 1] (measured: 7.09).
    logical_cpus : int
        Logical CPUs (Hyper-Threading threads) of the host [count] (measured host: 8).
    scale : float
        Multiplier the source applies to the host figure [-] (2).

    Returns
    -------
    float
        ``scale * host_relative / logical_cpus``: 2 x 7.09 / 8 = 1.77 (the source
        rounds 2 x 7.09 to 14.2, giving 1.775).

    Notes
    -----
    .. math:: s = \mathrm{scale} \cdot r_\mathrm{host} / L

    The measurement's findings [1]_: "host ≈ 2 × 7.09 = 14.2 over 8 logical CPUs =
    1.775"; with few VMs one 1-vCPU VM (relative 1.94-2.03) outperformed this
    share.

    Validity: the measured host only (2 x dual-core Xeon 2.8 GHz, Hyper-Threading on).

    References
    ----------
    .. [1] Published VMware ESX 2.5.2 measurement (module references), findings
       and the "Xeon 2.8 dual-core (physical)" row.
    """
    return scale * host_relative / logical_cpus
