"""Score bases: the SPEC CPU2006 -> CPU2017 bridge, plausible ranges, conversion.

Numbers checked by hand (see each test): per-core medians recomputed from the
result files with a separate script (sorted base / cores, middle value), the
ratios and their median with a calculator.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from vsizer.catalogs import CpuCatalog, CpuEntry, HostModel, normalize_cpu
from vsizer.catalogs.cpu_catalog import read_cpu_catalog
from vsizer.catalogs.import_spec2006 import import_cint2006rate, spaced_cpu_name
from vsizer.catalogs.score_bridge import (
    bridge,
    likely_bases,
    read_bridge_pairs,
    read_score_ranges,
    score_range_problems,
)
from vsizer.errors import InventoryError
from vsizer.quality import QualityReport

R17 = "SPECrate2017_int_base"
R06 = "SPECint_rate2006"

# SPECrate2017 host: 2 x 20 cores, Xeon Gold 6248 median 6.05 per core.
HOST17 = HostModel(
    model="h17",
    sockets=2,
    cores_per_socket=20,
    threads_per_core=2,
    cpu_mhz=2500,
    cpu_score_per_core=6.05,
    mem_gib=768,
    power_idle_w=60,
    power_max_w=400,
    cpu_score_basis=R17,
)

# 4 CPUs measured in both suites (per-core medians):
#   CINT2006rate (scripts/data/cint2006rate_2014.csv) / CINT2017rate (cpus.csv)
#   E5-2620     31.333333 (84 results) / 3.125    (1) -> 0.099734
#   E5-2620 v2  34.5      (33)         / 3.783333 (1) -> 0.109662
#   E5-2670     38.75     (74)         / 4.10625  (1) -> 0.105968
#   E5-2670 v2  39.1      (27)         / 4.195    (1) -> 0.107289
# median = (0.105968 + 0.107289) / 2 = 0.106628; error = 1 - 0.099734/0.106628
FACTOR = (4.10625 / 38.75 + 4.195 / 39.1) / 2


def frame(**cols) -> pd.DataFrame:
    n = len(next(iter(cols.values())))
    text = {"name", "cpu_name", "cpu_score_basis"}
    cols.setdefault("name", [f"s{i}" for i in range(n)])
    return pd.DataFrame(
        {
            k: pd.array(v, dtype="string" if k in text else "Float64")
            for k, v in cols.items()
        }
    )


def test_bridge_pairs_and_factor():
    pairs = read_bridge_pairs()
    assert [p.cpu_name for p in pairs] == [
        "Intel Xeon E5-2620",
        "Intel Xeon E5-2620 v2",
        "Intel Xeon E5-2670",
        "Intel Xeon E5-2670 v2",
    ]
    assert_allclose(
        [p.ratio for p in pairs],
        [3.125 / (94 / 3), 3.783333333 / 34.5, 4.10625 / 38.75, 4.195 / 39.1],
        rtol=1e-9,
    )
    b = bridge(R06, R17)
    assert b is not None
    assert_allclose(b.factor, FACTOR)
    assert round(b.factor, 4) == 0.1066
    assert round(b.error, 3) == 0.065  # 1 - 0.099734 / 0.106628
    assert "error +-6.5 %" in b.note() and "4 CPUs" in b.note()
    back = bridge(R17, R06)
    assert back is not None and back.inverted
    assert_allclose(back.factor, np.median([1 / p.ratio for p in pairs]))


def test_no_bridge_for_specint2000():
    assert bridge("SPECint2000", R17) is None
    assert bridge("SPECint2000", R06) is None


def test_cint2006_medians_pinned():
    rows = import_cint2006rate("scripts/data/cint2006rate_2014.csv")
    by = rows.set_index("cpu_name")["score_per_core"]
    # 74 results, the two middle values of base/cores are both 38.75
    assert by["Intel Xeon E5-2670"] == 38.75
    # 35 results, the 18th of the sorted base/cores is 41.125
    assert by["Intel Xeon E5-2650 v2"] == 41.125
    assert len(rows) == 163
    assert spaced_cpu_name("IntelXeonE7-4890v2") == "Intel Xeon E7-4890 v2"


@pytest.mark.parametrize(
    ("cpu", "n", "median"),
    [
        # sorted base/cores of cint2017rate_by_system.csv: middle values
        ("Intel Xeon Gold 6248", 77, 6.05),
        ("Intel Xeon E5-2620 v4", 12, (4.075 + 4.09375) / 2),
        ("Intel Xeon Silver 4110", 70, (4.56875 + 4.58125) / 2),
        ("Intel Xeon Gold 6130", 74, (4.984375 + 5.0) / 2),
    ],
)
def test_cpu2017_medians_pinned(cpu, n, median):
    entry = read_cpu_catalog().lookup(cpu, R17)
    assert entry is not None
    assert_allclose(entry.score_per_core, median)
    assert f"median of {n} results" in entry.source


def test_ranges_from_published_medians():
    ranges = read_score_ranges()
    assert (ranges["SPECint2000"].low, ranges["SPECint2000"].high) == (856, 1718)
    assert (ranges[R06].low, ranges[R06].high) == (9.6875, 52.625)
    assert (ranges[R17].low, ranges[R17].high) == (0.125, 18.625)
    assert likely_bases(1440) == ["SPECint2000"]
    assert likely_bases(30) == [R06, R17]  # 9.69/2..52.6x2 and 0.125/2..18.6x2
    assert likely_bases(40) == [R06]


def test_1440_per_core_on_a_cpu2017_host_is_an_error_naming_cpu2000():
    servers = frame(
        name=["web01"],
        cpu_score_per_core=[1440],
        sockets=[2],
        cores_per_socket=[1],
        cpu_avg_util=[0.2],
    )
    with pytest.raises(InventoryError) as info:
        normalize_cpu(servers, HOST17, read_cpu_catalog(), QualityReport())
    assert info.value.problems == [
        "server 'web01', column 'cpu_score_per_core': 1440 is outside the range of "
        "SPECrate2017_int_base per core (≈ 0.125–18.6 in 615 CPUs' published "
        "results; per-CPU medians of SPEC CINT2017rate base results per core "
        "(https://www.spec.org/cpu2017/results/)), the host's basis, taken because "
        "none is stated; it looks like a SPECint2000 score: name the basis in the "
        "header, e.g. 'SPEC CPU2000'."
    ]


def test_per_server_score_fits_no_basis():
    problems = score_range_problems(
        np.array(["db1"]), np.array([5000.0]), np.array([R17]), R17
    )
    assert problems[0].endswith(
        "it fits no known basis: is it a per-chip or per-server score? Give a "
        "per-core score."
    )


def test_cpu2006_scores_convert_estimated_with_the_bridge_note():
    servers = frame(
        cpu_score_per_core=[38.75, 6.0],
        cpu_score_basis=[R06, R17],
        sockets=[2, 2],
        cores_per_socket=[8, 8],
        cpu_avg_util=[0.5, 0.5],
    )
    quality = QualityReport()
    out, unit = normalize_cpu(servers, HOST17, read_cpu_catalog(), quality)
    assert unit == R17
    assert list(out["score_source"]) == ["bridge", "inventory"]
    assert_allclose(out["cpu_score_per_core"], [38.75 * FACTOR, 6.0])
    assert_allclose(out["cpu_capacity"][0], 16 * 38.75 * FACTOR)  # 66.11
    status, note = quality.entries["s0"]["cpu_capacity"]
    assert status == "estimated"
    assert "38.75 SPECint_rate2006/core from the inventory" in note
    assert "error +-6.5 %" in note


def test_catalog_cpu_only_in_cpu2006_is_converted():
    servers = frame(
        cpu_name=["Intel(R) Xeon(R) CPU E5-2650 v2 @ 2.60GHz"],
        sockets=[2],
        cores_per_socket=[8],
        cpu_avg_util=[0.3],
    )
    quality = QualityReport()
    out, _ = normalize_cpu(servers, HOST17, read_cpu_catalog(), quality)
    assert out["score_source"][0] == "catalog-bridge"
    assert_allclose(out["cpu_score_per_core"][0], 41.125 * FACTOR)  # 4.385
    assert quality.status("s0", "cpu_capacity") == "estimated"


def test_specint2000_scores_are_not_converted_and_warned():
    catalog = CpuCatalog([CpuEntry("Xeon 5160", 2, 3000, 1512.5, "SPECint2000", "x")])
    servers = frame(
        name=["old1"],
        cpu_name=["Xeon 5160"],
        cpu_score_per_core=[1512.5],
        cpu_score_basis=["SPECint2000"],
        cpu_mhz=[3000],
        sockets=[1],
        cores_per_socket=[2],
        cpu_avg_util=[0.2],
    )
    quality = QualityReport()
    out, _ = normalize_cpu(servers, HOST17, catalog, quality)
    assert out["score_source"][0] == "host-ratio"
    assert_allclose(out["cpu_score_per_core"][0], 3000 * 6.05 / 2500)
    [w] = [w for w in quality.warnings if w.code == "score_basis_unconverted"]
    assert w.servers == ("old1",)
    assert w.message.startswith(
        "1 server(s) have CPU scores in SPECint2000, which cannot be converted to "
        "the host's SPECrate2017_int_base: no CPU with published results in both "
        "suites is in the shipped data."
    )


# --- through the inventory reader and the CLI ---------------------------------

OLD = (
    "name,cpu_name,{score},cpu_mhz,sockets,cores_per_socket,cpu_avg_pct,"
    "cpu_peak_pct,mem_gib\n"
    "old1,Xeon 5160,{a},3000,2,2,20,40,8\n"
    "old2,Xeon 3.6 GHz,{b},3600,2,1,10,30,4\n"
)


def _inventory(tmp_path, score, a, b):
    from vsizer import read_inventory

    path = tmp_path / "old.csv"
    path.write_text(OLD.format(score=score, a=a, b=b), encoding="utf-8")
    return path, read_inventory(path)


def test_cpu2006_header_plans_in_the_host_basis(tmp_path):
    from vsizer.catalogs import read_host_catalog

    _, inv = _inventory(tmp_path, "SPEC CPU2006", 38.75, 41.125)
    host = read_host_catalog().default  # R740 2x Platinum 8180, SPECrate2017
    out, unit = normalize_cpu(inv.servers, host, read_cpu_catalog(), QualityReport())
    assert unit == R17
    assert list(out["score_source"]) == ["bridge", "bridge"]
    assert_allclose(out["cpu_score_per_core"], [38.75 * FACTOR, 41.125 * FACTOR])


def test_cpu2000_header_is_not_converted_and_warned(tmp_path):
    from vsizer.catalogs import read_host_catalog

    _, inv = _inventory(tmp_path, "SPEC CPU2000", 1512.5, 1718)
    quality = QualityReport()
    host = read_host_catalog().default
    out, _ = normalize_cpu(inv.servers, host, read_cpu_catalog(), quality)
    assert list(out["score_source"]) == ["host-ratio", "host-ratio"]
    [w] = [w for w in quality.warnings if w.code == "score_basis_unconverted"]
    assert w.servers == ("old1", "old2")


def test_cli_names_the_basis_of_an_unstated_cpu2000_score(tmp_path):
    from typer.testing import CliRunner

    from vsizer.cli import app

    path, _ = _inventory(tmp_path, "cpu_score_per_core", 1512.5, 1718)
    r = CliRunner().invoke(app, ["plan", str(path)], env={"COLUMNS": "250"})
    assert r.exit_code == 2
    errors = [ln for ln in r.output.splitlines() if ln.startswith("error: ")]
    assert len(errors) == 2
    assert errors[0].startswith(
        "error: server 'old1', column 'cpu_score_per_core': 1512.5 is outside the "
        "range of SPECrate2017_int_base per core (≈ 0.125–18.6"
    )
    assert errors[1].endswith(
        "it looks like a SPECint2000 score: name the basis in the header, e.g. "
        "'SPEC CPU2000'."
    )


def test_cpu2017_score_on_a_specint2000_host_names_cpu2017_first():
    problems = score_range_problems(
        np.array(["app1"]), np.array([4.98]), np.array(["unstated"]), "SPECint2000"
    )
    assert problems[0].startswith(
        "server 'app1', column 'cpu_score_per_core': 4.98 is outside the range of "
        "SPECint2000 per core (≈ 856–1718 in 5 CPUs' published results;"
    )
    assert problems[0].endswith(
        "it looks like a SPECrate2017_int_base or SPECint_rate2006 score: name the "
        "basis in the header, e.g. 'SPECrate2017'."
    )
