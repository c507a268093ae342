"""CPU model against DESIGN.md §6.1 (VMware ESX 2.5.2, 2 x dual-core Xeon 2.8 GHz).

The fixture ``esx252_table61`` is the §6.1 table typed into
tests/data/models/esx252_table61.csv (VMs, physical CPUs, rho total %, lambda,
relative per VM); the source rounds mu to 3-4 digits and relative to 3.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_allclose

from vsizer.errors import ConfigError, ModelRangeWarning
from vsizer.models import cpu

DATA = Path(__file__).parent / "data" / "models"
# mu column of the §6.1 table, row order as in the CSV
MU_TABLE = [708, 688, 712, 698, 678, 597, 651, 651, 641, 494, 537, 530, 483, 386,
            428, 454, 439, 366, 266]


@pytest.fixture
def esx252_table61() -> dict[str, np.ndarray]:
    """DESIGN.md §6.1 table (ESX 2.5.2), one entry per VM row."""
    with (DATA / "esx252_table61.csv").open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    return {
        "vms": np.array([float(r["vms"]) for r in rows]),
        "rho_pct": np.array([float(r["total_util_pct"]) for r in rows]),
        "lam": np.array([float(r["throughput"]) for r in rows]),
        "relative": np.array([float(r["relative"]) for r in rows]),
        "mu": np.array(MU_TABLE, dtype=float),
    }


def test_mu_is_lambda_over_rho_for_every_row(esx252_table61):
    t = esx252_table61
    assert_allclose(cpu.processing_rate(t["lam"], t["rho_pct"] / 100), t["mu"], rtol=0.005)


def test_physical_baselines_mu():
    # Pentium III: 174 / 0.496 = 350.8 (350); Xeon host: 1305 / 0.526 = 2481 (2483)
    assert_allclose(cpu.processing_rate([174, 1305], [0.496, 0.526]), [350, 2483], rtol=0.005)


def test_relative_column_is_mu_over_pentium3(esx252_table61):
    t = esx252_table61
    assert_allclose(t["mu"] / 350.0, t["relative"], rtol=0.005)


def test_linear_fit_within_the_cpus_gives_the_published_coefficients(esx252_table61):
    t = esx252_table61
    within = t["rho_pct"] <= 400
    assert within.sum() == 15
    slope, intercept = np.polyfit(t["vms"][within], t["relative"][within], 1)
    assert slope == pytest.approx(-0.071, abs=0.001)
    assert intercept == pytest.approx(2.09, abs=0.01)
    # about 3.5 % per added VM relative to one VM
    assert -slope / (intercept + slope) == pytest.approx(0.035, abs=0.001)


def test_linear_relative_uses_the_published_coefficients():
    # the published regression 2.0918 - 0.0710 N
    assert_allclose(cpu.linear_relative([1, 4, 12], 4), [2.0208, 1.8078, 1.2398], rtol=1e-9)


def test_host_share_per_logical_cpu_comparison():
    # "host ≈ 2 × 7.09 = 14.2 over 8 logical CPUs = 1.775"
    assert cpu.per_logical_cpu_share() == pytest.approx(14.18 / 8)
    assert round(2 * 7.09, 1) / 8 == pytest.approx(1.775)
    # with few VMs a VM outperformed that share (1-2 VM rows: 1.94-2.03)
    assert min(2.02, 1.97, 2.03, 1.99, 1.94) > cpu.per_logical_cpu_share()


def test_contention_model_reproduces_the_overcommitted_rows(esx252_table61):
    t = esx252_table61
    over = t["rho_pct"] > 400
    assert over.sum() == 4  # 8 VMs at 401/620 %, 12 VMs at 532/895 %
    pred = cpu.relative_performance(t["vms"][over], 4, t["rho_pct"][over], basis="guest")
    assert_allclose(pred, t["relative"][over], rtol=0.15)
    # default k = 1.72 (fitted to the table): hand-computed for 12 VMs at 895 %,
    # factor (895 / 400)^(1.72 / 2.72) = exp(0.80537 * 0.63235) = 1.6641,
    # (2.0918 - 0.0710 * 12) / 1.6641 = 1.2398 / 1.6641 = 0.7450 (published 0.761)
    assert pred[-1] == pytest.approx(0.7450, abs=1e-3)
    # 8 VMs at 620 %: (620 / 400)^(0.63235) = 1.3195; (2.0918 - 0.568) / 1.3195 = 1.1548
    assert pred[1] == pytest.approx(1.155, abs=1e-3)
    # the acceptance: both collapse rows within 10 % by default
    assert abs(pred[1] / 1.10 - 1) < 0.10 and abs(pred[-1] / 0.761 - 1) < 0.10
    # k = 1 (plain processor sharing): D = sqrt(895 * 400) = 598.3 %,
    # 1.2398 / (598.3 / 400) = 0.8289
    k1 = cpu.relative_performance(12, 4, 895, basis="guest", contention_exponent=1.0)
    assert float(k1) == pytest.approx(0.8289, abs=1e-3)


def test_guest_and_demand_bases_invert_each_other():
    demand = np.array([100.0, 400.0, 500.0, 598.3])
    guest = cpu.guest_reported_util_pct(demand, 4, contention_exponent=1.0)
    assert_allclose(guest, [100, 400, 625, 894.9], rtol=1e-3)
    assert_allclose(cpu.demand_from_guest_util_pct(guest, 4, contention_exponent=1.0),
                    demand, rtol=1e-12)
    # default k = 1.72: 500 * 1.25^1.72 = 733.9; 598.3 * 1.49575^1.72 = 1195.8
    guest = cpu.guest_reported_util_pct(demand, 4)
    assert_allclose(guest, [100, 400, 733.9, 1195.8], rtol=1e-3)
    assert_allclose(cpu.demand_from_guest_util_pct(guest, 4), demand, rtol=1e-12)


def test_relative_to_single_vm_hand_computed():
    # 12 VMs on 4 CPUs within the CPUs: 1.2398 / 2.0208
    assert float(cpu.relative_to_single_vm(12, 4, 300)) == pytest.approx(1.2398 / 2.0208)
    assert float(cpu.relative_to_single_vm(1, 4, 50)) == pytest.approx(1.0)
    # a 56-core host with 10 VMs: x = max(10 * 4 / 56, 1) = 1 -> same as alone
    assert float(cpu.relative_to_single_vm(10, 56, 1000)) == pytest.approx(1.0)


def test_what_if_12_vms_on_4_cores_at_900_percent_warns_out_of_range():
    with pytest.warns(ModelRangeWarning, match=r"cpu\.contention_factor: overcommit .* = 2\.25 .*at most 1\.5"):
        r = float(cpu.relative_to_single_vm(12, 4, 900))
    # 2.25^1.72 = exp(0.81093 * 1.72) = 4.0343
    assert r == pytest.approx(1.2398 / 4.0343 / 2.0208, rel=1e-4)


def test_too_many_vms_per_cpu_warns():
    with pytest.warns(ModelRangeWarning, match=r"cpu\.linear_relative: VMs per physical CPU = 4 "):
        cpu.linear_relative(16, 4)


def test_array_scalar_nan_and_zero_load():
    out = cpu.relative_performance(np.array([1, 2]), 4, np.array([0.0, np.nan]))
    assert out[0] == pytest.approx(2.0208)
    assert np.isnan(out[1])
    assert np.isinf(cpu.processing_rate(10, 0.0))


def test_invalid_inputs_raise():
    # declared constraints: a ConfigError (a ValueError), one line per problem
    with pytest.raises(ConfigError, match=re.escape(
            "The 'physical_cpus' parameter of cpu.linear_relative must be a float in "
            "the range (0, inf). Got 0.0 instead.")):
        cpu.linear_relative(1, 0)
    with pytest.raises(ValueError, match=re.escape(
            "The 'vms' parameter of cpu.linear_relative must be a float in the range "
            "[1, inf). Got 0.0 instead.\nThe 'physical_cpus' parameter")):
        cpu.linear_relative([1, 0], -1)
    with pytest.raises(ValueError, match=re.escape(
            "The 'basis' parameter of cpu.relative_performance must be one of "
            "'demand', 'guest'. Got 'host' instead.")):
        cpu.relative_performance(1, 4, 10, basis="host")
