"""Network throughput of VMs: wire limits, VM-to-VM, VMQ, Xen single-VM penalty.

The coefficients are published measurements (2007-2010) collected in the vsizer
design brief, which does not name the original reports; each is described
below by platform and benchmark, and the public documents on the benchmark and
the mechanisms are cited.

References
----------
.. [1] Published measurement of Hyper-V (Windows Server 2008 R2) on 1 GbE: send,
   receive, VM-to-VM on one host at 2 KB blocks (1 to 1, 4 senders to 1
   receiver, 1 to many); and of VM queues (VMQ) on 10 GbE.
.. [2] Published measurement of Xen, one and two VMs vs the physical machine,
   with tbench. Benchmark: A. Tridgell, "dbench / tbench,"
   https://dbench.samba.org/.
.. [3] Microsoft, "Performance Tuning for Hyper-V Servers," Windows Server,
   https://learn.microsoft.com/en-us/previous-versions//dn567657(v=vs.85)
   (network I/O: VMQ offloads per-VM packet sorting to the NIC).
.. [4] A. Menon, J. R. Santos, Y. Turner, G. Janakiraman and W. Zwaenepoel,
   "Diagnosing performance overheads in the Xen virtual machine environment,"
   in *Proc. VEE*, 2005, :doi:`10.1145/1064979.1064984` (where the Xen network
   overhead comes from).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from vsizer._validation import Interval, OneOf, validate_params
from vsizer.models.parameters import OVERHEAD_MODEL_PARAMETERS
from vsizer.models.range import warn_outside

_N = OVERHEAD_MODEL_PARAMETERS["network"]
DIRECTIONS = ("send", "receive")


@validate_params(
    {"nic_gbps": Interval(float, 0, None, "neither"), "direction": OneOf(DIRECTIONS)},
    where="network.wire_limit_mbps",
)
def wire_limit_mbps(
    nic_gbps: float = 1.0,
    direction: str = "send",
    *,
    vmq: bool = False,
    parameters: dict[str, Any] | None = None,
) -> float:
    r"""Throughput a VM can plan on through one physical NIC.

    Parameters
    ----------
    nic_gbps : float
        NIC line rate [Gbit/s]; 1 and 10 were measured.
    direction : {'send', 'receive'}
        From the VM's point of view.
    vmq : bool
        VM queues (VMQ) enabled on the NIC (10 GbE).
    parameters : dict, optional
        Replacement for ``OVERHEAD_MODEL_PARAMETERS['network']['wire']``.

    Returns
    -------
    float
        Throughput [Mbit/s].

    Notes
    -----
    .. math::

        T = \begin{cases} T_{10}^\mathrm{VMQ} & 10\ \mathrm{GbE,\ VMQ} \\
            T_{10}^\mathrm{VMQ} / g & 10\ \mathrm{GbE,\ no\ VMQ} \\
            e_d \cdot 1000\ \mathrm{Mbit/s} \cdot B & \text{otherwise} \end{cases}

    with ``g`` the VMQ gain, ``e_d`` the 1 GbE efficiency in direction d and B
    the line rate [Gbit/s]. 1 GbE, Hyper-V R2: send 800-940 Mbit/s (the lower end, 800, is returned),
    receive > 900 Mbit/s (900), VM about native [1]_. 10 GbE: with VMQ about
    7.8 Gbit/s, more than 2x without, so without VMQ at most 7.8 / 2 = 3.9 Gbit/s
    in either direction. Other speeds scale the 1 GbE efficiency (0.80 send, 0.90
    receive) with a ModelRangeWarning.

    Validity: 1 GbE and 10 GbE NICs, Hyper-V on Windows Server 2008 R2, bulk TCP.

    References
    ----------
    .. [1] Published Hyper-V R2 1 GbE and 10 GbE VMQ measurements (module
       references [1]).
    .. [2] Microsoft, "Performance Tuning for Hyper-V Servers,"
       https://learn.microsoft.com/en-us/previous-versions//dn567657(v=vs.85).
    """
    p = parameters or _N["wire"]
    if nic_gbps == 10:
        full = float(p["10"]["vmq"])
        return full if vmq else full / float(p["10"]["vmq_gain"])
    if nic_gbps != 1:
        warn_outside(
            "network.wire_limit_mbps",
            "NIC speed [Gbit/s]",
            nic_gbps,
            1,
            10,
            "published Hyper-V R2 measurement: 1 GbE and 10 GbE measured",
        )
    return float(p["1"][direction]) * nic_gbps


@validate_params(
    {"senders": Interval(int, 1, None), "receivers": Interval(int, 1, None)},
    where="network.vm_to_vm_mbps",
)
def vm_to_vm_mbps(
    senders: int = 1, receivers: int = 1, *, parameters: dict[str, Any] | None = None
) -> float:
    r"""Total throughput between VMs on one host (not limited by the wire).

    Parameters
    ----------
    senders : int
        Sending VMs [count].
    receivers : int
        Receiving VMs [count].
    parameters : dict, optional
        Replacement for ``OVERHEAD_MODEL_PARAMETERS['network']['vm_to_vm']``.

    Returns
    -------
    float
        Total throughput [Mbit/s].

    Notes
    -----
    Piecewise-linear in the sender count s between the measured points:

    .. math:: T(s) = \mathrm{interp}(s;\ \{1, 4\},\ \{2037, 3937\})

    1 -> 1: 2037 Mbit/s at 2 KB blocks; 4 senders -> 1 receiver: 3937 Mbit/s total;
    1 -> many: no gain [1]_. Between 1 and 4 senders the total is interpolated
    linearly; more than 4 senders are held at the 4-sender figure with a
    ModelRangeWarning (no extrapolation). The receiver count does not add
    throughput.

    Validity: 1-4 senders, 2 KB blocks, Hyper-V R2 virtual switch.

    References
    ----------
    .. [1] Published Hyper-V R2 VM-to-VM measurement (module references [1]).
    """
    p = parameters or _N["vm_to_vm"]
    xs = np.asarray(p["senders"], dtype=float)
    warn_outside(
        "network.vm_to_vm_mbps", "senders", senders, 1, float(xs[-1]),
        "published Hyper-V R2 VM-to-VM measurement: 1 and 4 senders measured",
    )
    return float(np.interp(senders, xs, np.asarray(p["mbps"], dtype=float)))


@validate_params({"vms": Interval(int, 1, None)}, where="network.xen_relative_throughput")
def xen_relative_throughput(
    vms: int = 1, *, parameters: dict[str, Any] | None = None
) -> float:
    """Total network throughput of N Xen VMs relative to the physical machine.

    Parameters
    ----------
    vms : int
        VMs running the benchmark at once [count].
    parameters : dict, optional
        Replacement for ``OVERHEAD_MODEL_PARAMETERS['network']['xen']``.

    Returns
    -------
    float
        Total VM throughput / physical [fraction].

    Notes
    -----
    One VM: about 20 % lower (0.80); two VMs: the total exceeds the physical
    machine's, returned as its lower bound 1.0 [1]_.

    Validity: Xen (2007-2008), tbench, 1-2 VMs; more VMs warn and return the
    2-VM bound.

    References
    ----------
    .. [1] Published Xen tbench measurement (module references [2]).
    .. [2] A. Menon et al., Proc. VEE 2005, :doi:`10.1145/1064979.1064984`.
    """
    p = parameters or _N["xen"]
    warn_outside(
        "network.xen_relative_throughput", "VMs", vms, 1, 2,
        "published Xen measurement: tbench with 1 and 2 VMs",
    )
    return float(p["single_vm_ratio"]) if vms == 1 else float(p["two_vm_ratio_min"])
