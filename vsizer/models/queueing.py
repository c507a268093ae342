"""Queueing models: response time and throughput from service demand and load.

Open models (M/M/1, M/M/c with Erlang C) answer "how much longer does a request
take at this utilization"; the closed model (mean value analysis with think time)
matches closed-loop load generators such as the one behind the ESX 2.5.2
measurement of :mod:`vsizer.models.cpu` and ``vsizer bench`` (N client
threads, exponential think time).

References
----------
.. [1] L. Kleinrock, *Queueing Systems, Volume 1: Theory*. New York: Wiley, 1975,
   ISBN 0-471-49110-1, Sec. 3.2 (M/M/1, Eq. 3.26) and Sec. 3.5 (M/M/m,
   Eq. 3.40-3.42, Erlang C).
.. [2] M. Reiser and S. S. Lavenberg, "Mean-value analysis of closed multichain
   queuing networks," *J. ACM*, vol. 27, no. 2, pp. 313-322, 1980,
   :doi:`10.1145/322186.322195` (single-class recursion).
.. [3] E. D. Lazowska, J. Zahorjan, G. S. Graham and K. C. Sevcik, *Quantitative
   System Performance*. Englewood Cliffs, NJ: Prentice-Hall, 1984, ch. 6
   (Algorithm 6.1, exact MVA with think time Z),
   https://homes.cs.washington.edu/~lazowska/qsp/.
.. [4] A. Seidmann, P. J. Schweitzer and S. Shalev-Oren, "Computerized closed
   queueing network models of flexible manufacturing systems," *Large Scale
   Systems*, vol. 12, pp. 91-107, 1987 (multi-server station as a queueing
   station of demand D/c plus a delay of D(c-1)/c).
.. [5] D. A. Menascé, V. A. F. Almeida and L. W. Dowdy, *Performance by Design:
   Computer Capacity Planning by Example*. Upper Saddle River, NJ: Prentice
   Hall, 2004, ISBN 0-13-090673-5 (open and closed models for capacity planning).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from vsizer._validation import Interval, validate_params
from vsizer.errors import ConfigError


def mm1_response_time(
    arrival_rate: npt.ArrayLike, service_time: npt.ArrayLike
) -> npt.NDArray[np.float64]:
    r"""Mean response time of an M/M/1 queue.

    Parameters
    ----------
    arrival_rate : array_like
        lambda [1/s].
    service_time : array_like
        Mean service time S [s].

    Returns
    -------
    ndarray
        Mean response time R [s]; ``inf`` when ``rho = lambda S >= 1``.

    Notes
    -----
    .. math:: R = \frac{S}{1 - \rho}, \quad \rho = \lambda S

    [1]_ (Eq. 3.26).

    Validity: Poisson arrivals, exponential service, one server, rho < 1.

    References
    ----------
    .. [1] L. Kleinrock, Queueing Systems, Vol. 1, Wiley, 1975, Sec. 3.2.
    """
    s = np.asarray(service_time, dtype=float)
    rho = np.asarray(arrival_rate, dtype=float) * s
    with np.errstate(divide="ignore"):
        return np.where(rho < 1.0, s / np.where(rho < 1.0, 1.0 - rho, 1.0), np.inf)


@validate_params(
    {"servers": Interval(int, 1, None), "offered_load": Interval(float, 0, None)},
    where="queueing.erlang_c",
)
def erlang_c(servers: int, offered_load: float) -> float:
    r"""Probability that an arriving request waits in an M/M/c queue (Erlang C).

    Parameters
    ----------
    servers : int
        c [count].
    offered_load : float
        ``a = lambda S`` [Erlang].

    Returns
    -------
    float
        P(wait) [fraction]; 1.0 when ``a >= c``.

    Notes
    -----
    .. math::

        C(c, a) = \frac{c\, B(c, a)}{c - a\, (1 - B(c, a))}, \quad
        B(0, a) = 1, \quad B(k, a) = \frac{a\, B(k-1, a)}{k + a\, B(k-1, a)}

    Erlang B by the stable recursion [1]_ (Eq. 3.42), exact for large c.

    Validity: Poisson arrivals, exponential service, c identical servers.

    References
    ----------
    .. [1] L. Kleinrock, Queueing Systems, Vol. 1, Wiley, 1975, Sec. 3.5.
    """
    return _erlang_c(servers, offered_load)


def _erlang_c(servers: int, offered_load: float) -> float:
    """:func:`erlang_c` for arguments already known valid (the per-VM hot path)."""
    if offered_load >= servers:
        return 1.0
    b = 1.0
    for k in range(1, servers + 1):
        b = offered_load * b / (k + offered_load * b)
    return servers * b / (servers - offered_load * (1.0 - b))


def mmc_response_time(
    arrival_rate: float, service_time: float, servers: int
) -> float:
    r"""Mean response time of an M/M/c queue.

    Parameters
    ----------
    arrival_rate : float
        lambda [1/s].
    service_time : float
        Mean service time S [s].
    servers : int
        c [count] (e.g. the VM's vCPUs).

    Returns
    -------
    float
        Mean response time R [s]; ``inf`` when ``lambda S >= c``.

    Notes
    -----
    .. math:: R = S + \frac{C(c, a)\, S}{c - a}, \quad a = \lambda S

    [1]_ (Eq. 3.40-3.42).
    For c = 1 equals :func:`mm1_response_time`.

    Validity: Poisson arrivals, exponential service, utilization a / c < 1.

    References
    ----------
    .. [1] L. Kleinrock, Queueing Systems, Vol. 1, Wiley, 1975, Sec. 3.5.
    """
    a = arrival_rate * service_time
    if a >= servers:
        return float("inf")
    # valid arguments take the undeclared helper (called per VM by predict);
    # anything else goes through the declared checks of erlang_c
    wait = _erlang_c if servers >= 1 and not a < 0 else erlang_c
    return service_time + wait(servers, a) * service_time / (servers - a)


@dataclass(frozen=True)
class ClosedLoopResult:
    """Result of :func:`mva`: per population, the last entry is for ``clients``."""

    throughput: npt.NDArray[np.float64]  # X(n) [1/s], n = 1..N
    response_time: npt.NDArray[np.float64]  # R(n) [s], sum over stations
    queue_lengths: npt.NDArray[np.float64]  # Q_k(N) per station [requests]
    utilizations: npt.NDArray[np.float64]  # U_k(N) = X(N) D_k / c_k [fraction]


@validate_params(
    {"clients": Interval(int, 1, None), "think_time": Interval(float, 0, None)},
    where="queueing.mva",
)
def mva(
    clients: int,
    demands: Sequence[float],
    think_time: float,
    servers: Sequence[int] | None = None,
) -> ClosedLoopResult:
    r"""Exact mean value analysis of a closed loop: N clients with think time Z.

    Parameters
    ----------
    clients : int
        Client threads N [count].
    demands : sequence of float
        Service demand D_k of one request at each station [s] (CPU, disk, ...).
    think_time : float
        Mean think time Z between a response and the next request [s].
    servers : sequence of int, optional
        Servers c_k per station (default 1 each).

    Returns
    -------
    ClosedLoopResult
        Throughput and response time for 1..N clients, queue lengths and
        utilizations at N.

    Notes
    -----
    For n = 1..N [1]_ [2]_:

    .. math::

        R_k(n) = D_k \left(1 + Q_k(n-1)\right), \quad
        X(n) = \frac{n}{Z + \sum_k R_k(n)}, \quad
        Q_k(n) = X(n)\, R_k(n)

    A c-server station is replaced by a queueing station of demand D/c plus a
    delay of D(c-1)/c [3]_ (approximate).

    Validity: product-form closed network (exponential service or processor
    sharing), one class of clients; exact for single-server stations.

    References
    ----------
    .. [1] M. Reiser and S. S. Lavenberg, J. ACM 27(2), 1980,
       :doi:`10.1145/322186.322195`.
    .. [2] E. D. Lazowska et al., Quantitative System Performance, 1984,
       Algorithm 6.1.
    .. [3] A. Seidmann, P. J. Schweitzer and S. Shalev-Oren, Large Scale Systems
       12, 1987.
    """
    d = np.asarray(demands, dtype=float)
    c = np.ones_like(d) if servers is None else np.asarray(servers, dtype=float)
    if d.ndim != 1 or d.size == 0 or np.any(d < 0) or c.shape != d.shape or np.any(c < 1):
        raise ConfigError(
            "The 'demands' and 'servers' parameters of queueing.mva must be given "
            "one per station, demands >= 0 and servers >= 1."
        )
    queue_d = d / c  # Seidmann: queueing part
    delay = float(np.sum(d * (c - 1) / c))  # Seidmann: pure delay part
    q = np.zeros_like(d)
    xs = np.empty(clients)
    rs = np.empty(clients)
    for n in range(1, clients + 1):
        r = queue_d * (1.0 + q)
        total_r = float(r.sum()) + delay
        x = n / (think_time + total_r)
        q = x * r
        xs[n - 1], rs[n - 1] = x, total_r
    return ClosedLoopResult(xs, rs, q, xs[-1] * d / c)
