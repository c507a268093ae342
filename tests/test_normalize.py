"""CPU normalization (DESIGN §4): each rule hand-computed."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from vsizer.catalogs import (
    CpuCatalog,
    CpuEntry,
    HostModel,
    host_cpu_capacity,
    normalize_cpu,
)
from vsizer.errors import ConfigError, InventoryError
from vsizer.quality import QualityReport

# DESIGN.md §4 worked example host: 8 cores at 2260 MHz, 48 GB, no score.
MHZ_HOST = HostModel(
    model="example",
    sockets=2,
    cores_per_socket=4,
    threads_per_core=2,
    cpu_mhz=2260,
    cpu_score_per_core=None,
    mem_gib=48,
    power_idle_w=70,
    power_max_w=200,
)
# A score host: 1000 SPECint2000 per core at 2000 MHz (ratio 0.5 per MHz).
SCORE_HOST = HostModel(
    model="scorehost",
    sockets=2,
    cores_per_socket=8,
    threads_per_core=1,
    cpu_mhz=2000,
    cpu_score_per_core=1000.0,
    mem_gib=256,
    power_idle_w=60,
    power_max_w=300,
    cpu_score_basis="SPECint2000",
)
CATALOG = CpuCatalog(
    [
        CpuEntry("Xeon 5160", 2, 3000, 1512.5, "SPECint2000", "DESIGN.md §4"),
        CpuEntry("Intel Xeon E5540", 4, 2533, None, "", "SPECpower x3400 M2"),
        CpuEntry(
            "Intel Xeon Gold 5218", 16, 2300, 5.6875, "SPECrate2017_int_base", "s"
        ),
    ]
)


def frame(**cols) -> pd.DataFrame:
    """Servers with the canonical dtypes of vsizer.inventory.model.COLUMNS."""
    n = len(next(iter(cols.values())))
    dtypes = {
        "name": "string",
        "cpu_name": "string",
        "cpu_score_basis": "string",
        "sockets": "Int64",
        "cores_per_socket": "Int64",
        "vcpus": "Int64",
    }
    cols.setdefault("name", [f"s{i}" for i in range(n)])
    return pd.DataFrame(
        {k: pd.array(v, dtype=dtypes.get(k, "Float64")) for k, v in cols.items()}
    )


def test_design4_worked_example_in_mhz():
    # DESIGN §4: 3000 MHz x 2 cores x 20 % = 1200 MHz; host 8 x 2260 = 18080 MHz
    # -> 18080 / 1200 = 15.07, i.e. 15 such VMs by CPU.
    servers = frame(
        cpu_name=["Xeon 3.0GHz"],
        sockets=[1],
        cores_per_socket=[2],
        cpu_mhz=[3000],
        cpu_avg_util=[0.2],
        cpu_peak_util=[0.5],
    )
    quality = QualityReport()
    out, unit = normalize_cpu(servers, MHZ_HOST, CATALOG, quality)
    assert unit == "MHz"
    row = out.iloc[0]
    assert row["score_source"] == "mhz"
    assert row["cpu_capacity"] == 6000
    assert row["cpu_avg_demand"] == pytest.approx(1200)
    assert row["cpu_peak_demand"] == pytest.approx(3000)
    capacity = host_cpu_capacity(MHZ_HOST, unit)
    assert capacity == 18080
    assert math.floor(capacity / row["cpu_avg_demand"]) == 15
    assert quality.status("s0", "cpu_capacity") == "given"
    assert any("CPU capacity is in MHz" in n for n in quality.notes)


def test_rule_inventory_score_same_basis_or_unstated():
    servers = frame(
        cpu_name=["Xeon 5160", "Xeon 5160", "Xeon 5160"],
        cpu_score_per_core=[1429, 1617, 1718],
        cpu_score_basis=["SPECint2000", "unstated", None],
        sockets=[1, 2, 1],
        cores_per_socket=[1, 1, 2],
        cpu_avg_util=[0.5, 0.1, 1.0],
    )
    quality = QualityReport()
    out, unit = normalize_cpu(servers, SCORE_HOST, CATALOG, quality)
    assert unit == "SPECint2000"
    assert list(out["score_source"]) == ["inventory"] * 3
    assert_allclose(out["cpu_capacity"], [1429, 2 * 1617, 2 * 1718])
    assert_allclose(out["cpu_avg_demand"], [714.5, 323.4, 3436])
    assert list(out["cpu_score_basis"]) == ["SPECint2000"] * 3
    assert quality.status("s1", "cpu_capacity") == "given"
    assert "score from the inventory" in quality.entries["s1"]["cpu_capacity"][1]


def test_rule_catalog_fills_cores_and_mhz():
    # score given in another basis -> catalog score in the host's basis
    servers = frame(
        cpu_name=["Intel(R) Xeon(R) CPU 5160 @ 3.00GHz"],
        cpu_score_per_core=[25.0],
        cpu_score_basis=["SPECint2006"],
        sockets=[2],
        cores_per_socket=[None],
        cpu_avg_util=[0.25],
    )
    quality = QualityReport()
    out, _ = normalize_cpu(servers, SCORE_HOST, CATALOG, quality)
    row = out.iloc[0]
    assert row["score_source"] == "catalog"
    assert row["cpu_score_per_core"] == 1512.5
    assert row["cores_per_socket"] == 2 and row["cpu_mhz"] == 3000
    assert row["cpu_capacity"] == 2 * 2 * 1512.5
    assert row["cpu_avg_demand"] == 0.25 * 6050
    assert quality.status("s0", "cpu_capacity") == "derived"
    assert quality.status("s0", "cores_per_socket") == "derived"
    assert quality.status("s0", "cpu_mhz") == "derived"
    assert (
        "CPU catalog: Xeon 5160: DESIGN.md §4"
        in quality.entries["s0"]["cpu_capacity"][1]
    )


def test_rule_host_ratio():
    # E5540 has no score: 2533 MHz (catalog) x 1000 / 2000 = 1266.5 per core;
    # second server's clock from the inventory: 2800 x 0.5 = 1400.
    servers = frame(
        cpu_name=["Intel Xeon E5540", "Unknown CPU"],
        sockets=[2, 1],
        cores_per_socket=[4, 2],
        cpu_mhz=[None, 2800],
        cpu_avg_util=[0.1, 0.3],
        cpu_peak_util=[0.4, 0.9],
    )
    quality = QualityReport()
    out, _ = normalize_cpu(servers, SCORE_HOST, CATALOG, quality)
    assert list(out["score_source"]) == ["host-ratio", "host-ratio"]
    assert_allclose(out["cpu_score_per_core"], [1266.5, 1400])
    assert_allclose(out["cpu_capacity"], [8 * 1266.5, 2 * 1400])
    assert_allclose(out["cpu_peak_demand"], [0.4 * 10132, 0.9 * 2800])
    assert out["cpu_mhz"].iloc[0] == 2533
    assert quality.status("s0", "cpu_capacity") == "assumed"
    note = quality.entries["s1"]["cpu_capacity"][1]
    assert "2800 MHz x 1000 / 2000 MHz of host scorehost" in note
    assert "overstates older generations (conservative)" in note


def test_rule_mhz_from_catalog_and_vcpus():
    servers = frame(
        cpu_name=["Xeon 5160", None],
        sockets=[1, None],
        cores_per_socket=[None, None],
        vcpus=[None, 4],
        cpu_mhz=[None, 2000],
        cpu_avg_util=[0.5, 0.5],
    )
    quality = QualityReport()
    out, unit = normalize_cpu(servers, MHZ_HOST, CATALOG, quality)
    assert unit == "MHz"
    assert_allclose(out["cpu_capacity"], [1 * 2 * 3000, 4 * 2000])
    assert quality.status("s0", "cpu_capacity") == "derived"
    assert quality.status("s1", "cpu_capacity") == "given"
    assert "4 vCPUs (sockets/cores unknown)" in quality.entries["s1"]["cpu_capacity"][1]


def _unknown_cpus():
    return frame(
        name=["web01", "db01", "ok"],
        cpu_name=["Mystery", None, "Xeon 5160"],
        sockets=[1, 1, 1],
        cores_per_socket=[2, 2, 2],
    )


def test_missing_score_and_mhz_is_an_error_on_request():
    with pytest.raises(InventoryError) as info:
        normalize_cpu(_unknown_cpus(), SCORE_HOST, CATALOG, QualityReport(),
                      unknown_cpu="error")
    hint = (
        ": add a cpu_mhz column (or cpu_score_per_core with cpu_score_basis) to the "
        "inventory, pass --vm-cpu-mhz F for servers without a clock, or give the CPU "
        "in a catalog with --cpus."
    )
    assert info.value.problems == [
        "server 'web01': no CPU score in SPECint2000 and no clock rate (cpu_name "
        "'Mystery' is not in the CPU catalog)" + hint,
        "server 'db01': no CPU score in SPECint2000 and no clock rate (no cpu_name)"
        + hint,
    ]
    with pytest.raises(
        InventoryError,
        match=r"^server 'web01': no clock rate \(cpu_name 'Mystery' is not in the "
        r"CPU catalog\): add a cpu_mhz column .*\nserver 'db01'",
    ):
        normalize_cpu(_unknown_cpus(), MHZ_HOST, CATALOG, QualityReport(),
                      unknown_cpu="error")


def test_missing_score_and_mhz_takes_the_host_core():
    # Score host: 1000 SPECint2000/core. web01 and db01 (2 cores, nothing known)
    # -> 2 x 1000 = 2000; 'ok' keeps its catalog score 2 x 1512.5 = 3025.
    quality = QualityReport()
    out, _ = normalize_cpu(_unknown_cpus(), SCORE_HOST, CATALOG, quality)
    assert_allclose(out["cpu_capacity"], [2000.0, 2000.0, 3025.0])
    assert list(out["score_source"]) == ["host-core", "host-core", "catalog"]
    note = (
        "no clock rate or CPU score: each core taken as one core of host scorehost "
        "(1000 SPECint2000/core, a 1:1 core assumption); pass --vm-cpu-mhz or add a "
        "cpu_mhz (or cpu_score_per_core) column"
    )
    for s in ("web01", "db01"):
        assert quality.entries[s]["cpu_capacity"] == ("assumed", note)
    assert quality.status("ok", "cpu_capacity") == "derived"
    # MHz host (2260 MHz/core): 2 x 2260 = 4520; 'ok' at its catalog 3000 MHz.
    out, _ = normalize_cpu(_unknown_cpus(), MHZ_HOST, CATALOG, QualityReport())
    assert_allclose(out["cpu_capacity"], [4520.0, 4520.0, 6000.0])


def test_vm_cpu_mhz_fills_only_servers_without_clock_or_score():
    # --vm-cpu-mhz 3000 on the score host (1000 per 2000 MHz): 3000 x 0.5 = 1500
    # per core, x 2 cores = 3000; 'ok' keeps the catalog's 3025.
    quality = QualityReport()
    out, _ = normalize_cpu(_unknown_cpus(), SCORE_HOST, CATALOG, quality,
                           assume_mhz=3000.0)
    assert_allclose(out["cpu_capacity"], [3000.0, 3000.0, 3025.0])
    assert_allclose(out["cpu_mhz"], [3000.0, 3000.0, 3000.0])
    assert list(out["score_source"]) == ["option", "option", "catalog"]
    assert quality.entries["web01"]["cpu_capacity"] == (
        "assumed",
        "no clock rate or CPU score in the inventory: --vm-cpu-mhz 3000 taken, "
        "scaled by host scorehost's 1000 SPECint2000/core at 2000 MHz",
    )
    assert quality.warnings == []
    out, _ = normalize_cpu(_unknown_cpus(), MHZ_HOST, CATALOG, quality,
                           assume_mhz=1500.0)
    assert_allclose(out["cpu_capacity"], [3000.0, 3000.0, 6000.0])
    assert quality.entries["db01"]["cpu_capacity"] == (
        "assumed", "no clock rate in the inventory: --vm-cpu-mhz 1500 taken"
    )


def test_vm_cpu_mhz_not_needed_is_a_warning():
    quality = QualityReport()
    servers = frame(name=["a"], cpu_mhz=[2000], sockets=[1], cores_per_socket=[2])
    out, _ = normalize_cpu(servers, MHZ_HOST, CATALOG, quality, assume_mhz=1000.0)
    assert_allclose(out["cpu_capacity"], [4000.0])
    assert [w.to_dict() for w in quality.warnings] == [{
        "code": "vm_cpu_mhz_unused",
        "message": "--vm-cpu-mhz 1000 was not used: every server's CPU capacity "
        "comes from the inventory (cpu_score_per_core or cpu_mhz) or from the CPU "
        "catalog (cpu_name).",
        "servers": [],
    }]


def test_missing_core_count():
    servers = frame(name=["a"], cpu_mhz=[2000], sockets=[2])
    with pytest.raises(
        InventoryError,
        match=r"^server 'a': no core count: add sockets and cores_per_socket, or "
        r"vcpus, to the inventory \(e\.g\. an Azure Migrate 'Cores' column\)\.$",
    ):
        normalize_cpu(servers, MHZ_HOST, CATALOG, QualityReport())


def test_values_out_of_range():
    servers = frame(
        name=["a", "b"],
        cpu_mhz=[2000, -1],
        sockets=[0, 1],
        cores_per_socket=[2, 2],
        cpu_avg_util=[1.5, 0.2],
    )
    with pytest.raises(InventoryError) as info:
        normalize_cpu(servers, MHZ_HOST, CATALOG, QualityReport())
    assert info.value.problems == [
        "server 'a', column 'sockets': expected a positive integer, got '0'.",
        "server 'a', column 'cpu_avg_util': expected a fraction in [0, 1], got '1.5'.",
        "server 'b', column 'cpu_mhz': expected a positive number, got '-1'.",
    ]


def test_assume_util_is_checked():
    servers = frame(cpu_mhz=[2000], sockets=[1], cores_per_socket=[1])
    with pytest.raises(
        ConfigError,
        match=r"^The 'assume_util' parameter of normalize_cpu "
        r"must be a float in the range \[0, 1\]\. Got 1\.2 instead\.$",
    ):
        normalize_cpu(servers, MHZ_HOST, CATALOG, QualityReport(), assume_util=1.2)


def test_utilization_rules():
    # vsizer.missing: s0-s2 give both, peak/avg = 3, 2, 1 -> median factor 2.
    servers = frame(
        cpu_mhz=[1000] * 6,
        sockets=[1] * 6,
        cores_per_socket=[1] * 6,
        cpu_avg_util=[0.2, 0.1, 0.4, 0.3, None, None],
        cpu_peak_util=[0.6, 0.2, 0.4, None, 0.7, None],
    )
    quality = QualityReport()
    quality.record("s0", "cpu_avg_util", "derived", "from sar series")
    out, _ = normalize_cpu(servers, MHZ_HOST, CATALOG, quality, assume_util=0.8)
    assert_allclose(out["cpu_avg_util"], [0.2, 0.1, 0.4, 0.3, 0.35, 0.8])
    assert_allclose(out["cpu_peak_util"], [0.6, 0.2, 0.4, 0.6, 0.7, 0.8])
    assert_allclose(out["cpu_avg_demand"], [200, 100, 400, 300, 350, 800])
    assert_allclose(out["cpu_peak_demand"], [600, 200, 400, 600, 700, 800])
    status = {
        s: (quality.status(s, "cpu_avg_util"), quality.status(s, "cpu_peak_util"))
        for s in ["s0", "s1", "s3", "s4", "s5"]
    }
    assert status == {
        "s0": ("derived", "given"),  # a reader's record is kept
        "s1": ("given", "given"),
        "s3": ("given", "estimated"),
        "s4": ("estimated", "given"),
        "s5": ("assumed", "assumed"),
    }
    assert quality.entries["s5"]["cpu_avg_util"][1] == (
        "unknown: 0.8 assumed (--assume-util)"
    )
    assert quality.entries["s3"]["cpu_peak_util"][1] == (
        "average x 2 (median peak/average of the 3 servers of this file that give "
        "both)"
    )
    assert quality.entries["s4"]["cpu_avg_util"][1].startswith("peak / 2 (")


def test_utilization_default_factor_caps_the_peak():
    # One server gives both: the default 4.85; 0.3 x 4.85 = 1.455 -> 1.0.
    servers = frame(
        cpu_mhz=[1000] * 3, sockets=[1] * 3, cores_per_socket=[1] * 3,
        cpu_avg_util=[0.2, 0.3, None], cpu_peak_util=[0.6, None, 0.97],
    )
    quality = QualityReport()
    out, _ = normalize_cpu(servers, MHZ_HOST, CATALOG, quality)
    assert_allclose(out["cpu_peak_util"], [0.6, 1.0, 0.97])
    assert_allclose(out["cpu_avg_util"], [0.2, 0.3, 0.2])  # 0.97 / 4.85
    note = quality.entries["s1"]["cpu_peak_util"][1]
    assert note.startswith("average x 4.85, capped at 100 % (1 server(s) of this file")
    assert "PlanetLab" in note


def test_input_not_modified_and_absent_columns_ok():
    servers = pd.DataFrame({"name": ["x"], "cpu_mhz": [2000.0], "vcpus": [2]})
    before = servers.copy()
    out, _ = normalize_cpu(servers, MHZ_HOST, CATALOG, QualityReport())
    pd.testing.assert_frame_equal(servers, before)
    assert out["cpu_capacity"].iloc[0] == 4000
    assert out["cpu_avg_demand"].iloc[0] == 4000  # assume_util = 1.0


def test_five_thousand_mixed_servers_all_normalized():
    """Every one of 5,000 mixed servers gets a capacity (speed: benchmarks/, not here)."""
    n = 5000
    rng = np.random.default_rng(1)
    names = np.array(["Xeon 5160", "Intel Xeon E5540", "Unknown", "Xeon Gold 5218"])
    servers = frame(
        cpu_name=list(names[rng.integers(0, 4, n)]),
        sockets=list(rng.integers(1, 3, n)),
        cores_per_socket=list(rng.integers(1, 9, n)),
        cpu_mhz=list(rng.uniform(1500, 3500, n)),
        cpu_avg_util=list(rng.uniform(0, 1, n)),
    )
    out, _ = normalize_cpu(servers, SCORE_HOST, CATALOG, QualityReport())
    assert len(out) == n and out["cpu_capacity"].notna().all()


def test_assume_mhz_and_unknown_cpu_parameters():
    servers = frame(name=["a"], cpu_mhz=[2000], sockets=[1], cores_per_socket=[2])
    with pytest.raises(ConfigError, match=r"^The 'assume_mhz' parameter of "
                       r"normalize_cpu must be None or a float in the range \(0"):
        normalize_cpu(servers, MHZ_HOST, CATALOG, QualityReport(), assume_mhz=0.0)
    with pytest.raises(ConfigError, match=r"^The 'unknown_cpu' parameter of "
                       r"normalize_cpu must be"):
        normalize_cpu(servers, MHZ_HOST, CATALOG, QualityReport(), unknown_cpu="x")
