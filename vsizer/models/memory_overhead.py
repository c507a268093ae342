"""Hypervisor memory overhead of a virtual machine.

References
----------
.. [1] VMware, "vSphere Resource Management," Update 1, VMware ESXi 6.5 / vCenter
   Server 6.5, 2017, Table 6-1 "Sample Overhead Memory on Virtual Machines"
   (memory 256-16384 MB x 1, 2, 4, 8 vCPUs, VMX swap and hardware MMU enabled);
   the guide's online edition:
   https://docs.vmware.com/en/VMware-vSphere/7.0/com.vmware.vsphere.resmgmt.doc/GUID-9D2D0E45-D741-476F-8DB1-F737839C2108.html.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

#: Table 6-1 of [1]: configured memory [MB] rows x vCPUs columns -> overhead [MB].
ESXI65_MEM_MB = np.array([256.0, 1024.0, 4096.0, 16384.0])
ESXI65_VCPUS = np.array([1.0, 2.0, 4.0, 8.0])
ESXI65_OVERHEAD_MB = np.array(
    [
        [20.29, 24.28, 32.23, 48.16],
        [25.90, 29.91, 37.86, 53.82],
        [48.64, 52.72, 60.67, 76.78],
        [139.62, 143.98, 151.93, 168.60],
    ]
)


def esxi_vm_overhead_mib(
    mem_mib: npt.ArrayLike, vcpus: npt.ArrayLike
) -> npt.NDArray[np.float64]:
    r"""Memory the hypervisor needs to run a VM, beyond the VM's configured memory.

    Parameters
    ----------
    mem_mib : array_like
        Configured VM memory [MiB].
    vcpus : array_like
        Virtual CPUs [count].

    Returns
    -------
    ndarray
        Overhead memory [MiB].

    Notes
    -----
    .. math::

        o(m, c) = (1 - t)\, o_m(c_j) + t\, o_m(c_{j+1}),
        \quad t = \frac{c - c_j}{c_{j+1} - c_j}

    with :math:`o_m(c_j)` the table column of :math:`c_j` vCPUs interpolated
    at memory m. Bilinear interpolation of Table 6-1 of [1]_: linear in memory between the
    rows (the table grows almost exactly linearly in memory, 7.4 MB per GB from
    4 to 16 GB) and linear in vCPUs between the columns (about 4 MB per vCPU).
    Beyond 16384 MB or 8 vCPUs the last segment's slope is extended; the table
    treats MB as MiB. Valid for ESXi 6.5 with VMX swap; other hypervisors
    differ, so the plan lets users override it with a constant.

    References
    ----------
    .. [1] VMware, "vSphere Resource Management," ESXi 6.5, Table 6-1.
    """
    m, c = np.broadcast_arrays(
        np.asarray(mem_mib, dtype=float), np.asarray(vcpus, dtype=float)
    )
    cols = np.stack(
        [_interp_extrap(m, ESXI65_MEM_MB, ESXI65_OVERHEAD_MB[:, j]) for j in range(4)],
        axis=-1,
    )  # overhead at 1, 2, 4, 8 vCPUs for each VM's memory
    j = np.clip(np.searchsorted(ESXI65_VCPUS, c, side="right") - 1, 0, 2)
    lo, hi = ESXI65_VCPUS[j], ESXI65_VCPUS[j + 1]
    t = np.maximum((c - lo) / (hi - lo), 0.0)
    y_lo = np.take_along_axis(cols, j[..., None], axis=-1)[..., 0]
    y_hi = np.take_along_axis(cols, (j + 1)[..., None], axis=-1)[..., 0]
    return y_lo + t * (y_hi - y_lo)


def _interp_extrap(x: np.ndarray, xp: np.ndarray, fp: np.ndarray) -> np.ndarray:
    """np.interp with linear extrapolation beyond the last point (clamped below the first)."""
    y = np.interp(x, xp, fp)
    slope = (fp[-1] - fp[-2]) / (xp[-1] - xp[-2])
    return np.where(x > xp[-1], fp[-1] + slope * (x - xp[-1]), y)
