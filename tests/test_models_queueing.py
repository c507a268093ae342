"""Queueing models against hand-computed cases (Kleinrock 1975; Lazowska et al. 1984)."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

from vsizer.errors import ConfigError
from vsizer.models import queueing


def test_mm1():
    # lambda = 5/s, S = 0.1 s: rho = 0.5, R = 0.1 / 0.5 = 0.2 s
    assert float(queueing.mm1_response_time(5, 0.1)) == pytest.approx(0.2)
    assert np.isinf(queueing.mm1_response_time(10, 0.1))
    assert_allclose(queueing.mm1_response_time([0, 8], 0.1), [0.1, 0.5])


def test_erlang_c_hand_computed():
    # c = 2, a = 1: C = (a^2/2! * 2/(2-1)) / (1 + a + a^2/2! * 2) = 1 / 3
    assert queueing.erlang_c(2, 1.0) == pytest.approx(1 / 3)
    # c = 1 reduces to rho
    assert queueing.erlang_c(1, 0.7) == pytest.approx(0.7)
    assert queueing.erlang_c(3, 3.0) == 1.0
    # large c stays finite (stable recursion)
    assert 0 < queueing.erlang_c(500, 480.0) < 1


def test_mmc_response_time():
    # c = 2, lambda = 10, S = 0.1 (a = 1): R = 0.1 + (1/3) * 0.1 / 1
    assert queueing.mmc_response_time(10, 0.1, 2) == pytest.approx(0.1 + 0.1 / 3)
    assert queueing.mmc_response_time(5, 0.1, 1) == pytest.approx(0.2)
    assert queueing.mmc_response_time(30, 0.1, 2) == float("inf")


def test_mva_hand_computed_two_clients():
    # one station D = 1 s, Z = 1 s. n=1: R=1, X=0.5, Q=0.5. n=2: R=1.5, X=2/2.5=0.8
    res = queueing.mva(2, [1.0], 1.0)
    assert_allclose(res.throughput, [0.5, 0.8])
    assert_allclose(res.response_time, [1.0, 1.5])
    assert_allclose(res.queue_lengths, [1.2])
    assert_allclose(res.utilizations, [0.8])


def test_mva_respects_asymptotic_bounds():
    # X(N) <= min(N / (D + Z), 1 / Dmax)
    d, z = [0.01, 0.004], 0.1
    res = queueing.mva(200, d, z)
    n = np.arange(1, 201)
    assert np.all(res.throughput <= np.minimum(n / (sum(d) + z), 1 / max(d)) + 1e-9)
    assert res.throughput[-1] == pytest.approx(100, rel=1e-3)  # saturated at 1 / 0.01


def test_mva_multi_server_station_seidmann():
    # a 4-server station with D = 0.04 behaves like D/4 queueing + 0.03 delay
    res = queueing.mva(1, [0.04], 0.0, [4])
    assert res.response_time[0] == pytest.approx(0.04)


def test_bad_inputs_raise():
    with pytest.raises(ConfigError, match=r"The 'servers' parameter of queueing.erlang_c must be an int in the range \[1, inf\)"):
        queueing.erlang_c(0, 1)
    with pytest.raises(ValueError, match=r"The 'clients' parameter of queueing.mva must be an int in the range \[1, inf\)"):
        queueing.mva(0, [1], 1)
    with pytest.raises(ValueError, match="one per station"):
        queueing.mva(1, [1, 2], 1, [1])
