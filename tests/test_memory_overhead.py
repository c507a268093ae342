"""ESXi per-VM memory overhead against the published table."""

import pytest
from numpy.testing import assert_allclose

from vsizer.models.memory_overhead import esxi_vm_overhead_mib

# VMware, vSphere Resource Management (ESXi 6.5), Table 6-1, sample overhead [MB].
TABLE = [
    (256, 1, 20.29),
    (256, 8, 48.16),
    (1024, 2, 29.91),
    (4096, 4, 60.67),
    (16384, 1, 139.62),
    (16384, 8, 168.60),
]


@pytest.mark.parametrize("mem,vcpus,expected", TABLE)
def test_table_points(mem, vcpus, expected):
    assert_allclose(esxi_vm_overhead_mib(mem, vcpus), expected)


def test_interpolation_and_extrapolation_hand_computed():
    # 3 vCPUs at 1024 MB: halfway between 29.91 (2) and 37.86 (4) = 33.885.
    assert_allclose(esxi_vm_overhead_mib(1024, 3), 33.885)
    # 32768 MB at 4 vCPUs: 151.93 + (151.93 - 60.67) / 12288 * 16384 = 273.61.
    assert_allclose(esxi_vm_overhead_mib(32768, 4), 273.61)


def test_vectorized():
    out = esxi_vm_overhead_mib([256, 16384], [1, 8])
    assert_allclose(out, [20.29, 168.60])
