"""Network throughput of VMs: wire limits, VM-to-VM, VMQ, Xen single-VM penalty.

References
----------
.. [1] vsizer design brief, ``DESIGN.md`` §6.3 "Network": Xen 1 VM vs physical
   (tbench); Hyper-V R2 on 1 GbE (send, receive, VM-to-VM on one host at 2 KB
   blocks, 4 senders to 1 receiver, 1 to many); VM queues (VMQ) on 10 GbE.
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
    """Throughput a VM can plan on through one physical NIC.

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
    1 GbE, Hyper-V R2: send 800-940 Mbit/s (the lower end, 800, is returned),
    receive > 900 Mbit/s (900), VM about native [1]_. 10 GbE: with VMQ about
    7.8 Gbit/s, more than 2x without, so without VMQ at most 7.8 / 2 = 3.9 Gbit/s
    in either direction. Other speeds scale the 1 GbE efficiency (0.80 send, 0.90
    receive) with a ModelRangeWarning.

    Validity: 1 GbE and 10 GbE NICs, Hyper-V on Windows Server 2008 R2, bulk TCP.

    References
    ----------
    .. [1] DESIGN.md §6.3 (Hyper-V R2 on 1 GbE; VMQ on 10 GbE).
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
    """Total throughput between VMs on one host (not limited by the wire).

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
    1 -> 1: 2037 Mbit/s at 2 KB blocks; 4 senders -> 1 receiver: 3937 Mbit/s total;
    1 -> many: no gain [1]_. Between 1 and 4 senders the total is interpolated
    linearly; more than 4 senders are held at the 4-sender figure with a
    ModelRangeWarning (no extrapolation). The receiver count does not add
    throughput.

    Validity: 1-4 senders, 2 KB blocks, Hyper-V R2 virtual switch.

    References
    ----------
    .. [1] DESIGN.md §6.3 "VM-to-VM on one host".
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
    .. [1] DESIGN.md §6.3 "Xen, 1 VM vs physical (tbench)".
    """
    p = parameters or _N["xen"]
    warn_outside(
        "network.xen_relative_throughput", "VMs", vms, 1, 2,
        "published Xen measurement: tbench with 1 and 2 VMs",
    )
    return float(p["single_vm_ratio"]) if vms == 1 else float(p["two_vm_ratio_min"])
