"""Server power as a function of CPU utilization.

References
----------
.. [1] Standard Performance Evaluation Corporation, "SPECpower_ssj2008,"
   https://www.spec.org/power_ssj2008/ (11 target loads: active idle, 10 %, ..., 100 %).
.. [2] L. A. Barroso and U. Hölzle, "The Case for Energy-Proportional Computing,"
   IEEE Computer, vol. 40, no. 12, pp. 33-37, 2007, :doi:`10.1109/MC.2007.443`
   (power roughly linear in utilization between idle and peak).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from vsizer.errors import ConfigError

#: Load points of an 11-point SPECpower curve [fraction].
SPECPOWER_LOADS = np.linspace(0.0, 1.0, 11)


def linear(util: npt.ArrayLike, idle_w: float, max_w: float) -> npt.NDArray[np.float64]:
    r"""Power drawn at CPU utilization ``util``, linear between idle and full load.

    Parameters
    ----------
    util : array_like
        CPU utilization [fraction]; clipped to [0, 1].
    idle_w : float
        Active-idle power [W].
    max_w : float
        Power at 100 % load [W].

    Returns
    -------
    ndarray
        Power [W].

    Notes
    -----
    .. math:: P(u) = P_\mathrm{idle} + (P_\mathrm{max} - P_\mathrm{idle})\, u

    [2]_. Valid for 0 <= u <= 1;
    values outside are clipped since a server cannot run beyond full load.

    Validity: 0 <= util <= 1 (clipped); servers whose power is near-linear in load.

    References
    ----------
    .. [2] L. A. Barroso and U. Hölzle, IEEE Computer 40(12), 2007, :doi:`10.1109/MC.2007.443`.
    """
    u = np.clip(np.asarray(util, dtype=float), 0.0, 1.0)
    return idle_w + (max_w - idle_w) * u


def specpower_curve(
    util: npt.ArrayLike, curve_w: Sequence[float]
) -> npt.NDArray[np.float64]:
    r"""Power at ``util`` by linear interpolation of an 11-point SPECpower curve.

    Parameters
    ----------
    util : array_like
        CPU utilization [fraction]; clipped to [0, 1].
    curve_w : sequence of 11 floats
        Average power at active idle, 10 %, ..., 100 % target load [W].

    Returns
    -------
    ndarray
        Power [W].

    Notes
    -----
    .. math::

        P(u) = P_i + (P_{i+1} - P_i) \frac{u - u_i}{u_{i+1} - u_i},
        \quad u_i = i / 10 \le u \le u_{i+1}

    piecewise-linear interpolation between the published load points [1]_.

    Validity: 0 <= util <= 1 (clipped); the measured server configuration.

    References
    ----------
    .. [1] SPEC, "SPECpower_ssj2008," https://www.spec.org/power_ssj2008/.
    """
    if len(curve_w) != 11:
        raise ConfigError(
            "The 'curve_w' parameter of power.specpower_curve must be a sequence of "
            f"11 floats (a SPECpower curve). Got {len(curve_w)} values instead."
        )
    u = np.clip(np.asarray(util, dtype=float), 0.0, 1.0)
    return np.interp(u, SPECPOWER_LOADS, np.asarray(curve_w, dtype=float))


def host_power_w(
    util: npt.ArrayLike,
    idle_w: float,
    max_w: float,
    curve_w: Sequence[float] | None = None,
) -> npt.NDArray[np.float64]:
    """Host power at ``util``: the SPECpower curve when known, else linear idle-max.

    Parameters
    ----------
    util : array_like
        CPU utilization [fraction]; clipped to [0, 1].
    idle_w : float
        Active-idle power [W] (used when ``curve_w`` is None).
    max_w : float
        Power at 100 % load [W] (used when ``curve_w`` is None).
    curve_w : sequence of 11 floats, optional
        SPECpower_ssj2008 curve [W].

    Returns
    -------
    ndarray
        Power [W].

    Notes
    -----
    :func:`specpower_curve` when an 11-point curve is given [1]_, else
    :func:`linear` [2]_.

    Validity: 0 <= util <= 1 (clipped); the curve's server configuration.

    References
    ----------
    .. [1] SPEC, "SPECpower_ssj2008," https://www.spec.org/power_ssj2008/.
    .. [2] L. A. Barroso and U. Hölzle, IEEE Computer 40(12), 2007, :doi:`10.1109/MC.2007.443`.
    """
    if curve_w is not None:
        return specpower_curve(util, curve_w)
    return linear(util, idle_w, max_w)
