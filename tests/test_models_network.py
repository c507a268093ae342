"""Network model against DESIGN.md §6.3 (Xen tbench, Hyper-V R2 1 GbE, VMQ 10 GbE)."""

from __future__ import annotations

import pytest

from vsizer.errors import ConfigError, ModelRangeWarning
from vsizer.models import network


def test_1gbe_wire_limits():
    # send 800-940 Mbit/s (conservative end), receive > 900 Mbit/s
    assert network.wire_limit_mbps(1, "send") == pytest.approx(800)
    assert network.wire_limit_mbps(1, "receive") == pytest.approx(900)


def test_vmq_on_10gbe_more_than_doubles():
    with_vmq = network.wire_limit_mbps(10, "send", vmq=True)
    assert with_vmq == pytest.approx(7800)
    assert network.wire_limit_mbps(10, "send", vmq=False) == pytest.approx(3900)


def test_other_speeds_warn_and_scale():
    with pytest.warns(ModelRangeWarning, match=r"network\.wire_limit_mbps: NIC speed"):
        assert network.wire_limit_mbps(25, "receive") == pytest.approx(900 * 25)


def test_vm_to_vm_on_one_host():
    assert network.vm_to_vm_mbps(1, 1) == pytest.approx(2037)  # > 1 GbE wire
    assert network.vm_to_vm_mbps(4, 1) == pytest.approx(3937)
    assert network.vm_to_vm_mbps(1, 4) == pytest.approx(2037)  # 1 -> many: no gain
    # linear between the published points: 2 senders = 2037 + (3937 - 2037) / 3
    assert network.vm_to_vm_mbps(2, 1) == pytest.approx(2670.333, rel=1e-6)
    with pytest.warns(ModelRangeWarning, match="senders = 8"):
        assert network.vm_to_vm_mbps(8, 1) == pytest.approx(3937)


def test_xen_single_vm_penalty():
    assert network.xen_relative_throughput(1) == pytest.approx(0.80)
    assert network.xen_relative_throughput(2) >= 1.0
    with pytest.warns(ModelRangeWarning, match="VMs = 3"):
        network.xen_relative_throughput(3)


def test_bad_inputs_raise():
    with pytest.raises(ConfigError, match="The 'direction' parameter of network.wire_limit_mbps must be one of 'send', 'receive'. Got 'both' instead."):
        network.wire_limit_mbps(1, "both")
    with pytest.raises(ValueError, match=r"The 'nic_gbps' parameter of network.wire_limit_mbps must be a float in the range \(0, inf\)"):
        network.wire_limit_mbps(0)
    with pytest.raises(ValueError, match=r"The 'senders' parameter of network.vm_to_vm_mbps must be an int in the range \[1, inf\)"):
        network.vm_to_vm_mbps(0)
    with pytest.raises(ValueError, match=r"The 'vms' parameter of network.xen_relative_throughput must be an int in the range \[1, inf\)"):
        network.xen_relative_throughput(0)
