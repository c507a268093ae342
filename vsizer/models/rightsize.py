"""Right-sizing rules: the vCPUs and memory a VM needs from its measured peak.

Source of the principle: VMware, *Performance Best Practices for VMware
vSphere 8.0* (VMware by Broadcom, 2023), section "ESXi CPU Considerations":
configuring a VM with more vCPUs than its workload can use can increase
resource use and hurt performance on busy hosts, so give a VM only as many
vCPUs as its application needs
(https://www.vmware.com/docs/vsphere-esxi-vcenter-server-80-performance-best-practices).
The guide gives no formula; the figures below are vsizer's planning rule,
stated here so that a reader can change them:

.. math::

    v_{rec} = \\max\\left(1, 2^{\\lceil \\log_2 \\lceil h \\cdot u_{peak} \\cdot v \\rceil \\rceil}\\right),
    \\qquad
    m_{rec} = s \\cdot \\left\\lceil \\frac{h \\cdot m_{peak}}{s} \\right\\rceil

with :math:`v` the configured vCPUs, :math:`u_{peak}` the measured peak CPU
utilization of those vCPUs (so :math:`u_{peak} v` is the peak demand in
cores), :math:`h` = :data:`HEADROOM` (1.2: 20 % above the peak), :math:`m_{peak}`
the measured memory in use [GiB] and :math:`s` = :data:`MEM_STEP_GIB` (1 GiB).
Powers of two are the common VM sizes of every cloud catalog (1, 2, 4, 8, 16
vCPUs) and keep vNUMA layouts even. A recommendation is made only when it is
smaller than what the VM has: right-sizing never grows a VM here (see
``rightsizing.short_of_vcpus`` for VMs that need more).
"""

from __future__ import annotations

import math

from vsizer._validation import Interval, validate_params

#: Headroom over the measured peak [factor]: 20 % (planning rule, see module doc).
HEADROOM = 1.2

#: Memory recommendations are rounded up to a whole number of this step [GiB].
MEM_STEP_GIB = 1.0

_PEAK = Interval(float, 0, None)
_HEADROOM = Interval(float, 1, None)
_STEP = Interval(float, 0, None, "neither")


@validate_params(
    {"peak_cores": _PEAK, "headroom": _HEADROOM}, where="rightsize.recommended_vcpus"
)
def recommended_vcpus(peak_cores: float, headroom: float = HEADROOM) -> int:
    """vCPUs for a peak CPU demand of ``peak_cores`` cores: the next power of two
    at or above ceil(peak_cores x headroom), at least 1.

    >>> recommended_vcpus(0.28)   # 4 vCPUs at 7 % peak
    1
    >>> recommended_vcpus(2.5)    # ceil(3.0) = 3 -> 4
    4
    """
    need = max(1, math.ceil(peak_cores * headroom - 1e-9))
    return 1 << (need - 1).bit_length()


@validate_params(
    {"peak_gib": _PEAK, "headroom": _HEADROOM, "step_gib": _STEP},
    where="rightsize.recommended_mem_gib",
)
def recommended_mem_gib(
    peak_gib: float, headroom: float = HEADROOM, step_gib: float = MEM_STEP_GIB
) -> float:
    """Memory [GiB] for ``peak_gib`` in use: peak x headroom rounded up to a whole
    number of ``step_gib`` steps, at least one step.

    >>> recommended_mem_gib(3.0)   # 3.6 -> 4
    4.0
    """
    steps = max(1, math.ceil(peak_gib * headroom / step_gib - 1e-9))
    return steps * step_gib
