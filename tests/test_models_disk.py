"""Disk model against DESIGN.md §6.2 (Hyper-V R2 queue depth, ESX contention,
Xen formats, NFS-backed pgbench). Published figures are two-digit ratios."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

from vsizer.errors import ConfigError, ModelRangeWarning
from vsizer.models import disk

QD = [1, 2, 4, 8, 16, 32]


@pytest.mark.parametrize(
    ("spec", "backing", "expected"),
    [
        # §6.2: sequential read native from qd ~4; below >= 77 % pass-through, >= 72 % file
        ("sequential_read", "pass-through", [0.77, 0.77, 1, 1, 1, 1]),
        ("sequential_read", "file", [0.72, 0.72, 1, 1, 1, 1]),
        # sequential write needs qd >= 8; below >= 86 % pass-through, 84 % file
        ("sequential_write", "pass-through", [0.86, 0.86, 0.86, 1, 1, 1]),
        ("sequential_write", "file", [0.84, 0.84, 0.84, 1, 1, 1]),
        # random patterns close to native
        ("database", "file", [1] * 6),
        ("file_server", "pass-through", [1] * 6),
    ],
)
def test_hyperv_r2_queue_depth_ratios(spec, backing, expected):
    assert_allclose(disk.throughput_ratio(QD, spec, backing), expected, rtol=0.005)


def test_pass_through_is_never_worse_than_file():
    for spec in disk.ACCESS_SPECS:
        assert np.all(disk.throughput_ratio(QD, spec, "pass-through")
                      >= disk.throughput_ratio(QD, spec, "file"))


def test_queue_depth_out_of_range_warns():
    with pytest.warns(ModelRangeWarning, match=r"disk\.throughput_ratio: queue depth = 64 .*\[1, 32\]"):
        disk.throughput_ratio(64, "database")


def test_bad_names_raise():
    with pytest.raises(ConfigError, match="The 'access_spec' parameter of disk.throughput_ratio must be one of"):
        disk.throughput_ratio(1, "random")
    with pytest.raises(ValueError, match="The 'backing' parameter of disk.throughput_ratio must be one of"):
        disk.throughput_ratio(1, "database", "dynamic")
    with pytest.raises(ValueError, match="The 'disk_format' parameter of disk.format_risk must be one of"):
        disk.format_risk("qcow", True, 0.5)


def test_volume_contention_share_and_guest_inflation():
    # N VMs on one volume each get 1/N; two volumes double the load handled
    assert_allclose(disk.volume_share([1, 2, 4, 8]), [1, 0.5, 0.25, 0.125])
    assert float(disk.volume_share(8, 2)) == pytest.approx(2 * float(disk.volume_share(8, 1)))
    # each guest reports the shared volume's busy time: N-fold sum
    assert_allclose(disk.guest_reported_util([0.25, 0.25], [1, 4]), [0.25, 1.0])
    assert list(disk.guest_util_trustworthy([1, 3, 4, 12])) == [True, True, False, False]
    with pytest.raises(ConfigError, match=r"The 'vms_on_volume' parameter of disk.volume_share must be a float in the range \[1, inf\)\. Got 0.0 instead\."):
        disk.volume_share(0)


def test_format_ordering_and_write_cache():
    assert disk.FORMATS == ("volume", "preallocated", "sparse")
    for fmt in disk.FORMATS:  # all close with a write cache
        assert disk.format_risk(fmt, True, 1.0)[0] == "low"
    assert disk.format_risk("sparse", False, 0.5) == (
        "high", "sparse file without write cache drops sharply on writes")
    assert disk.format_risk("preallocated", False, 0.5)[0] == "medium"
    assert disk.format_risk("sparse", False, 0.0)[0] == "low"  # read-only
    assert disk.format_risk("sparse", False, 0.1)[0] == "medium"


def test_nfs_ratios():
    assert disk.nfs_ratio("read-write") == pytest.approx(0.65)
    assert disk.nfs_ratio("read-write", rsize_wsize_kb=8) == pytest.approx(0.70)
    assert disk.nfs_ratio("read-write", cache_covers_working_set=False) == pytest.approx(0.17)
    assert disk.nfs_ratio("read-only") == pytest.approx(1.0)
    with pytest.raises(ValueError, match="The 'workload' parameter of disk.nfs_ratio must be one of"):
        disk.nfs_ratio("write-only")


def test_nfs_cache_pressure():
    assert disk.nfs_cache_pressure([16, 16, 32], 32) == pytest.approx(2.0)
    with pytest.raises(ConfigError, match=r"The 'server_cache_gib' parameter of disk.nfs_cache_pressure must be a float in the range \(0, inf\)\. Got 0 instead\."):
        disk.nfs_cache_pressure([1], 0)
