"""Virtual disk throughput: queue depth, volume contention, format, NFS backing.

The coefficients are published measurements (2007-2010) collected in the vsizer
design brief, which does not name the original reports; each is described
below by platform, workload and configuration so it can be recognized, and the
public specifications of the workloads are cited.

References
----------
.. [1] Published measurement of disk throughput VM / native vs queue depth on
   Hyper-V, Windows Server 2008 R2: access specifications sequential 64 KB
   (100 % write, then 100 % read), database 8 KB random 67 % read, file server
   64 KB random 67 % read; queue depths 1, 2, 4, 8, 16, 32; pass-through disk and
   fixed-size VHD file.
.. [2] Published measurement of VMware ESX VMs sharing one logical volume
   (contention; up to 12 VMs).
.. [3] Published measurement of Xen virtual disk formats (LVM volume,
   preallocated file, sparse file), with and without a controller write cache.
.. [4] Published measurement of PostgreSQL pgbench (TPC-B-like and select-only,
   scale 20, 20 clients) on NFS-backed VM disks. Workloads: PostgreSQL Global
   Development Group, "pgbench," https://www.postgresql.org/docs/current/pgbench.html;
   Transaction Processing Performance Council, "TPC-B,"
   https://www.tpc.org/tpcb/.
.. [5] Microsoft, "Performance Tuning for Hyper-V Servers," Windows Server,
   https://learn.microsoft.com/en-us/previous-versions//dn567657(v=vs.85)
   (vendor guidance on the same mechanisms: fixed vs dynamically expanding
   VHDs, pass-through disks, storage I/O queues).
.. [6] B. Callaghan, B. Pawlowski and P. Staubach, "NFS Version 3 Protocol
   Specification," RFC 1813, 1995, https://www.rfc-editor.org/rfc/rfc1813
   (read/write transfer sizes behind the rsize/wsize mount options).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from vsizer._validation import Interval, OneOf, validate_params
from vsizer.models.parameters import OVERHEAD_MODEL_PARAMETERS
from vsizer.models.range import check_array_bounds, warn_outside

_D = OVERHEAD_MODEL_PARAMETERS["disk"]
QUEUE_DEPTH: dict[str, Any] = _D["queue_depth"]
ACCESS_SPECS = ("sequential_read", "sequential_write", "database", "file_server")
BACKINGS = ("pass-through", "file")
FORMATS: tuple[str, ...] = _D["format"]["order"]
NFS_WORKLOADS = ("read-write", "read-only")
_SRC_QD = "published Hyper-V R2 disk measurement, queue depths 1-32"


@validate_params(
    {"access_spec": OneOf(ACCESS_SPECS), "backing": OneOf(BACKINGS)},
    where="disk.throughput_ratio",
)
def throughput_ratio(
    queue_depth: npt.ArrayLike,
    access_spec: str,
    backing: str = "file",
    *,
    parameters: dict[str, Any] | None = None,
) -> npt.NDArray[np.float64]:
    r"""Disk throughput of a VM relative to the same disk used natively.

    Parameters
    ----------
    queue_depth : array_like
        Outstanding I/Os [count].
    access_spec : {'sequential_read', 'sequential_write', 'database', 'file_server'}
        Access specification of the measurement: sequential 64 KB read / write, database
        8 KB random 67 % read, file server 64 KB random 67 % read.
    backing : {'pass-through', 'file'}
        Pass-through physical disk or fixed-size file (VHD) on a volume.
    parameters : dict, optional
        Replacement for ``OVERHEAD_MODEL_PARAMETERS['disk']['queue_depth']``
        (a fitted profile); same structure.

    Returns
    -------
    ndarray
        Throughput VM / native [fraction].

    Notes
    -----
    .. math::

        \text{ratio}(q) = \begin{cases} 1 & q \ge q_\mathrm{sat} \\
                           r_\mathrm{min} & q < q_\mathrm{sat} \end{cases}

    with the published minimum ``r_min`` [1]_: sequential read q_sat = 4, r_min = 0.77 pass-through / 0.72
    file; sequential write q_sat = 8, r_min = 0.86 / 0.84; the random database and
    file-server patterns are close to native at every depth (disk latency
    dominates the VM's overhead), r_min = 1. Below q_sat the source gives only a
    lower bound, so the prediction is conservative.

    Validity: queue depths 1-32, Hyper-V on Windows Server 2008 R2, fixed-size
    virtual disks; dynamically expanding disks fragment and are outside it.

    References
    ----------
    .. [1] Published Hyper-V (Windows Server 2008 R2) measurement of throughput
       vs queue depth (module references [1]).
    .. [2] Microsoft, "Performance Tuning for Hyper-V Servers,"
       https://learn.microsoft.com/en-us/previous-versions//dn567657(v=vs.85).
    """
    table = parameters or QUEUE_DEPTH
    qd = np.asarray(queue_depth, dtype=float)
    lo, hi = QUEUE_DEPTH["queue_depth_range"]
    warn_outside("disk.throughput_ratio", "queue depth", qd, lo, hi, _SRC_QD)
    spec = table[access_spec]
    floor = float(spec["floor"][backing])
    return np.where(qd >= spec["saturation_queue_depth"], 1.0, floor)


def volume_share(
    vms_on_volume: npt.ArrayLike, volumes: npt.ArrayLike = 1
) -> npt.NDArray[np.float64]:
    r"""Share of one volume's throughput each VM gets when VMs compete for it.

    Parameters
    ----------
    vms_on_volume : array_like
        VMs doing I/O, spread evenly over ``volumes`` [count].
    volumes : array_like
        Logical volumes (LUNs) they are spread over [count].

    Returns
    -------
    ndarray
        Per-VM share of one volume's throughput [fraction], ``min(1, V / N)``.

    Notes
    -----
    .. math:: s = \min(1,\ V / N)

    N VMs on one volume each get about 1/N; spreading over two volumes doubled
    the load handled [1]_, hence V / N.

    Validity: VMware ESX, VMs with similar I/O on a shared logical volume; the
    source measured up to 12 VMs.

    References
    ----------
    .. [1] Published VMware ESX volume-contention measurement (module
       references [2]).
    """
    check_array_bounds(
        {"vms_on_volume": (vms_on_volume, Interval(float, 1, None)),
         "volumes": (volumes, Interval(float, 1, None))},
        "disk.volume_share",
    )
    n = np.asarray(vms_on_volume, dtype=float)
    v = np.asarray(volumes, dtype=float)
    return np.minimum(1.0, v / n)


def guest_reported_util(
    volume_util: npt.ArrayLike, vms_on_volume: npt.ArrayLike
) -> npt.NDArray[np.float64]:
    r"""Summed guest-reported disk utilization for a given true volume utilization.

    Parameters
    ----------
    volume_util : array_like
        True utilization of the shared volume [fraction].
    vms_on_volume : array_like
        VMs sharing it [count].

    Returns
    -------
    ndarray
        Sum over guests of their reported disk utilization [fraction], ``N * u``.

    Notes
    -----
    .. math:: U_\mathrm{guests} = N u

    Each guest reports the volume's busy time as its own (its share shows as
    100 %), so summed guest disk utilization rises about N-fold for the same
    load [1]_. With 4 or more VMs on a volume guest-reported disk utilization is
    not trustworthy (:func:`guest_util_trustworthy`).

    Validity: VMware ESX, one logical volume, up to 12 VMs.

    References
    ----------
    .. [1] Published VMware ESX volume-contention measurement (module
       references [2]).
    """
    return np.asarray(vms_on_volume, dtype=float) * np.asarray(volume_util, dtype=float)


def guest_util_trustworthy(vms_on_volume: npt.ArrayLike) -> npt.NDArray[np.bool_]:
    """Whether guest-reported disk utilization can be believed with N VMs on a volume.

    Parameters
    ----------
    vms_on_volume : array_like
        VMs on the volume [count].

    Returns
    -------
    ndarray of bool
        True for fewer than 4 VMs.

    Notes
    -----
    Not trustworthy with 4 or more VMs on a volume [1]_.

    Validity: VMware ESX shared volumes.

    References
    ----------
    .. [1] Published VMware ESX volume-contention measurement (module
       references [2]).
    """
    limit = _D["contention"]["untrustworthy_vms"]
    return np.asarray(vms_on_volume, dtype=float) < limit


@validate_params({"disk_format": OneOf(FORMATS)}, where="disk.format_risk")
def format_risk(
    disk_format: str, write_cache: bool, write_fraction: float
) -> tuple[str, str]:
    """Risk of a virtual disk format losing throughput on writes.

    Parameters
    ----------
    disk_format : {'volume', 'preallocated', 'sparse'}
        Logical volume (LVM / pass-through), preallocated file, or sparse
        (dynamically expanding) file.
    write_cache : bool
        The storage controller has a (battery-backed) write cache.
    write_fraction : float
        Share of I/O that are writes [fraction].

    Returns
    -------
    (str, str)
        Risk ``'low'``, ``'medium'`` or ``'high'``, and the reason.

    Notes
    -----
    Ordering volume >= preallocated >= sparse, all close with a controller write
    cache; without write cache sparse files drop sharply on writes (more
    synchronous I/O, also on bare metal), and sync-heavy databases behave the
    same: write cache matters most [1]_. The source gives an ordering, not
    ratios, so this returns a risk class: ``low`` with write cache or without
    writes; ``high`` for a sparse file without write cache on a write-heavy load
    (>= 33 % writes); otherwise ``medium`` when there is no write cache.

    Validity: Xen, local disks; the ordering, not a throughput figure.

    References
    ----------
    .. [1] Published Xen virtual-disk-format measurement (module references [3]).
    """
    heavy = write_fraction >= _D["format"]["write_heavy_fraction"]
    if write_cache or write_fraction <= 0:
        return "low", "formats perform alike with a controller write cache"
    if disk_format == "sparse" and heavy:
        return "high", "sparse file without write cache drops sharply on writes"
    return "medium", f"no write cache: {disk_format} disk slows on synchronous writes"


@validate_params({"workload": OneOf(NFS_WORKLOADS)}, where="disk.nfs_ratio")
def nfs_ratio(
    workload: str = "read-write",
    *,
    rsize_wsize_kb: float | None = None,
    cache_covers_working_set: bool = True,
    parameters: dict[str, Any] | None = None,
) -> float:
    """Database throughput on an NFS-backed VM disk relative to a local disk.

    Parameters
    ----------
    workload : {'read-write', 'read-only'}
        pgbench TPC-B-like (read-write) or select-only (read-only).
    rsize_wsize_kb : float, optional
        NFS mount rsize/wsize [KiB]; 8 = the tuned case of the source.
    cache_covers_working_set : bool
        The NFS server's cache holds the VMs' working set.
    parameters : dict, optional
        Replacement for ``OVERHEAD_MODEL_PARAMETERS['disk']['nfs']``.

    Returns
    -------
    float
        Throughput NFS / local [fraction].

    Notes
    -----
    Read-write 0.65; 0.70 with rsize/wsize = 8192; 0.17 when the server cache
    cannot hold the working set; read-only about 1 [1]_.

    Validity: PostgreSQL pgbench (scale 20, about 300 MB, 20 clients), NFS v3
    era servers; other databases or NFS versions are outside it.

    References
    ----------
    .. [1] Published PostgreSQL pgbench on NFS measurement (module references [4]).
    .. [2] RFC 1813, https://www.rfc-editor.org/rfc/rfc1813.
    """
    p = parameters or _D["nfs"]
    if workload == "read-only":
        return float(p["read_only"])
    if not cache_covers_working_set:
        return float(p["cache_short"])
    if rsize_wsize_kb is not None and rsize_wsize_kb == 8:
        return float(p["read_write_8k"])
    return float(p["read_write"])


@validate_params(
    {"server_cache_gib": Interval(float, 0, None, "neither")},
    where="disk.nfs_cache_pressure",
)
def nfs_cache_pressure(
    working_set_gib: npt.ArrayLike, server_cache_gib: float
) -> float:
    r"""Working set of the VMs on one NFS server relative to its cache.

    Parameters
    ----------
    working_set_gib : array_like
        Working set of each VM on the NFS server [GiB].
    server_cache_gib : float
        NFS server cache (memory) [GiB].

    Returns
    -------
    float
        ``sum(working_set) / cache`` [ratio]; above 1 the cache is short and
        read-write throughput falls to :func:`nfs_ratio` with
        ``cache_covers_working_set=False``.

    Notes
    -----
    .. math:: p = \sum_i w_i / C

    More VMs put more pressure on the NFS server cache [1]_.

    Validity: as :func:`nfs_ratio`.

    References
    ----------
    .. [1] Published PostgreSQL pgbench on NFS measurement (module references [4]).
    """
    return float(np.sum(np.asarray(working_set_gib, dtype=float)) / server_cache_gib)
