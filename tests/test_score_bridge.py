"""Score bases: the SPEC CPU2000 -> CPU2006 -> CPU2017 bridges, ranges, conversion.

Numbers checked by hand (see each test): per-core medians recomputed from the
result files with a separate script (rows of the CPU, sorted base / cores,
middle value), the ratios, their median and the compounded error with a
calculator.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from vsizer.catalogs import CpuCatalog, CpuEntry, HostModel, normalize_cpu
from vsizer.catalogs.cpu_catalog import read_cpu_catalog
from vsizer.catalogs.import_spec2006 import (
    import_cint2006rate,
    import_cint2006rate_2016,
    spaced_cpu_name,
)
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

R00 = "SPECint2000"

# 8 CPUs measured in both suites (per-core medians):
#   CINT2006rate (scripts/data/cint2006rate_2014.csv, else _2016.csv) /
#   CINT2017rate (cint2017rate_by_system.csv)
#   E5-2620     31.333333 (84 results) / 3.125    (1) -> 0.099734
#   E5-2620 v2  34.5      (33)         / 3.783333 (1) -> 0.109662
#   E5-2670     38.75     (74)         / 4.10625  (1) -> 0.105968
#   E5-2670 v2  39.1      (27)         / 4.195    (1) -> 0.107289
#   E3-1240L v5 49.5      (9, 2016)    / 5.325    (2) -> 0.107576
#   E3-1260L v5 59.75     (7, 2016)    / 6.5625   (2) -> 0.109833
#   E5-2620 v3  42.333333 (80, 2016)   / 5.575    (1) -> 0.131693
#   E5-2680 v3  42.916667 (73, 2016)   / 5.291667 (1) -> 0.123301
# sorted, the middle two are 0.107576 and 0.109662: median 0.108619;
# error = 0.131693 / 0.108619 - 1 = 0.2124
FACTOR = (5.325 / 49.5 + 3.783333333 / 34.5) / 2
# 2 CPUs of the design method's SPECint2000 table with CINT2006rate results:
#   Xeon 5110  856 (1712 / 2 cores)    / 8.85   (32 results, 2016) -> 0.010339
#   Xeon 5160  1512.5 (3025 / 2 cores) / 14.125 (41 results, 2016) -> 0.009339
# median 0.009839, error = 0.010339 / 0.009839 - 1 = 0.0508
FACTOR_00 = (8.85 / 856 + 14.125 / 1512.5) / 2
# chained: 0.009839 x 0.108619 = 0.0010687; error 1.0508 x 1.2124 - 1 = 0.274
FACTOR_00_17 = FACTOR_00 * FACTOR


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
    pairs = [p for p in read_bridge_pairs() if p.from_basis == R06]
    assert [p.cpu_name for p in pairs] == [
        "Intel Xeon E5-2620",
        "Intel Xeon E5-2620 v2",
        "Intel Xeon E5-2670",
        "Intel Xeon E5-2670 v2",
        "Intel Xeon E3-1240L v5",
        "Intel Xeon E3-1260L v5",
        "Intel Xeon E5-2620 v3",
        "Intel Xeon E5-2680 v3",
    ]
    assert_allclose(
        [p.ratio for p in pairs],
        [
            3.125 / (94 / 3),
            3.783333333 / 34.5,
            4.10625 / 38.75,
            4.195 / 39.1,
            5.325 / 49.5,
            6.5625 / 59.75,
            5.575 / (127 / 3),
            (127 / 24) / (515 / 12),
        ],
        rtol=1e-9,
    )
    b = bridge(R06, R17)
    assert b is not None and not b.legs
    assert_allclose(b.factor, FACTOR)
    assert round(b.factor, 4) == 0.1086
    assert round(b.error, 3) == 0.212  # 0.131693 / 0.108619 - 1
    assert "error +-21.2 %" in b.note() and "8 CPUs" in b.note()
    back = bridge(R17, R06)
    assert back is not None and back.inverted
    assert_allclose(back.factor, np.median([1 / p.ratio for p in pairs]))


def test_specint2000_pairs_are_the_design_table_xeons():
    pairs = [p for p in read_bridge_pairs() if p.from_basis == R00]
    assert [(p.cpu_name, p.to_basis) for p in pairs] == [
        ("Intel Xeon 5110", R06),
        ("Intel Xeon 5160", R06),
    ]
    assert [(p.from_score, p.to_score) for p in pairs] == [(856, 8.85), (1512.5, 14.125)]
    assert all("design method" in p.from_source for p in pairs)
    assert all("https://www.spec.org/cpu2006/results/" in p.to_source for p in pairs)
    b = bridge(R00, R06)
    assert b is not None and not b.legs
    assert_allclose(b.factor, FACTOR_00)
    assert round(b.factor, 6) == 0.009839
    assert round(b.error, 4) == 0.0508


def test_specint2000_to_cpu2017_is_chained_through_cpu2006():
    b = bridge(R00, R17)
    assert b is not None
    assert [(leg.from_basis, leg.to_basis) for leg in b.legs] == [(R00, R06), (R06, R17)]
    assert_allclose(b.factor, FACTOR_00_17)
    assert round(b.factor, 7) == 0.0010687
    assert_allclose(b.error, (1 + b.legs[0].error) * (1 + b.legs[1].error) - 1)
    assert round(b.error, 3) == 0.274  # 1.0508 x 1.2124 - 1
    note = b.note()
    assert note.startswith(
        "SPECint2000 x 0.001069 = SPECrate2017_int_base, chained through "
        "SPECint_rate2006 (error +-27.4 % compounded): SPECint2000 x 0.009839"
    )
    assert "Intel Xeon 5110, Intel Xeon 5160" in note and "error +-21.2 %" in note
    assert "https://www.spec.org/cpu2000/results/" in note
    # DESIGN.md §4: Xeon 5160, 3,025 per 2-core chip -> 1.62 SPECrate2017 per core
    assert round(1512.5 * b.factor, 2) == 1.62
    back = bridge(R17, R00)
    assert back is not None and back.legs
    inverse = [np.median([1 / leg_pair.ratio for leg_pair in leg.pairs]) for leg in b.legs]
    assert_allclose(back.factor, inverse[0] * inverse[1], rtol=1e-9)


def test_no_bridge_to_a_basis_without_pairs():
    assert bridge(R00, "MHz") is None
    assert bridge("SPECint95", R17) is None
    assert bridge(R17, R17) is None


def test_cint2006_medians_pinned():
    rows = import_cint2006rate("scripts/data/cint2006rate_2014.csv")
    by = rows.set_index("cpu_name")["score_per_core"]
    # 74 results, the two middle values of base/cores are both 38.75
    assert by["Intel Xeon E5-2670"] == 38.75
    # 35 results, the 18th of the sorted base/cores is 41.125
    assert by["Intel Xeon E5-2650 v2"] == 41.125
    assert len(rows) == 163
    assert spaced_cpu_name("IntelXeonE7-4890v2") == "Intel Xeon E7-4890 v2"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("cpu", "n", "median", "cores"),
    [
        # rows of cint2006rate_2016.csv for the CPU, sorted base/cores, middle
        ("Intel Xeon 5110", 32, 8.85, 2),
        ("Intel Xeon 5160", 41, 14.125, 2),
        ("Intel Xeon E5-2620 v3", 80, 127 / 3, 6),
        ("Intel Xeon E5-2680 v3", 73, 515 / 12, 12),
        # the CPUs the CPU2017 dump lacks
        ("Intel Xeon E5-2630 v3", 70, 41.5, 8),
        ("Intel Xeon E3-1220 v5", 9, 49.0, 4),
        ("Intel Xeon E3-1230 v5", 11, 60.5, 4),
        ("Intel Xeon E3-1240 v5", 7, 61.5, 4),
        ("Intel Xeon E3-1270 v5", 9, 63.0, 4),
    ],
)
def test_cint2006_2016_medians_pinned(cpu, n, median, cores):
    rows = import_cint2006rate_2016("scripts/data/cint2006rate_2016.csv")
    row = rows.set_index("cpu_name").loc[cpu]
    assert_allclose(row["score_per_core"], median)
    assert row["cores"] == cores
    assert f"median of {n} results" in row["source"]
    assert "https://www.spec.org/cpu2006/results/res20" in row["source"]
    entry = read_cpu_catalog().lookup(cpu, R06)
    assert entry is not None and entry.score_per_core == row["score_per_core"]


@pytest.mark.slow
def test_cint2006_2016_leaves_out_runs_with_idle_cores():
    rows = import_cint2006rate_2016("scripts/data/cint2006rate_2016.csv")
    # the only X5620 result is a 1-copy run on 4 cores (res2010q4 ...-13870)
    assert "Intel Xeon X5620" not in set(rows["cpu_name"])
    # 554 CPUs in the extract, 553 with a numeric compliant result, 552 after
    # the X5620; 55 of them have no clock in any system name
    assert len(rows) == 497
    assert "Intel Xeon 7110N" not in set(rows["cpu_name"])  # no clock stated


@pytest.mark.slow
def test_2014_and_2016_cint2006_listings_agree():
    old = import_cint2006rate("scripts/data/cint2006rate_2014.csv")
    new = import_cint2006rate_2016("scripts/data/cint2006rate_2016.csv")
    both = old.merge(new, on="cpu_name", suffixes=("_14", "_16"))
    ratio = both["score_per_core_16"] / both["score_per_core_14"]
    assert len(both) == 149
    assert ratio.median() == 1.0
    assert (ratio - 1).abs().max() < 0.06  # E7-8870: 23.0 vs 24.3


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
    # 2016 listing: Xeon 7110M (11 results, sorted base/cores, 6th = 52.0 / 8)
    # and E3-1270 v5 (9 results, 5th = 252 / 4)
    assert (ranges[R06].low, ranges[R06].high) == (6.5, 63)
    assert (ranges[R17].low, ranges[R17].high) == (0.125, 18.625)
    assert likely_bases(1440) == ["SPECint2000"]
    assert likely_bases(30) == [R06, R17]  # 6.5/2..63x2 and 0.125/2..18.6x2
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
    assert "error +-21.2 %" in note


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


def test_specint2000_scores_convert_estimated_through_cpu2006():
    catalog = CpuCatalog([CpuEntry("Xeon 5160", 2, 3000, 1512.5, "SPECint2000", "x")])
    servers = frame(
        name=["old1"],
        cpu_name=["Xeon 5160"],
        cpu_score_per_core=[1512.5],
        cpu_score_basis=[R00],
        cpu_mhz=[3000],
        sockets=[1],
        cores_per_socket=[2],
        cpu_avg_util=[0.2],
    )
    quality = QualityReport()
    out, _ = normalize_cpu(servers, HOST17, catalog, quality)
    assert out["score_source"][0] == "bridge"
    assert_allclose(out["cpu_score_per_core"][0], 1512.5 * FACTOR_00_17)  # 1.616
    assert_allclose(out["cpu_capacity"][0], 2 * 1512.5 * FACTOR_00_17)
    status, note = quality.entries["old1"]["cpu_capacity"]
    assert status == "estimated"
    assert "1512.5 SPECint2000/core from the inventory" in note
    assert "chained through SPECint_rate2006 (error +-27.4 % compounded)" in note
    assert not [w for w in quality.warnings if w.code == "score_basis_unconverted"]


def test_scores_in_a_basis_without_a_bridge_are_not_converted_and_warned():
    servers = frame(
        name=["old1"],
        cpu_score_per_core=[50.0],
        cpu_score_basis=["SPECint95"],
        cpu_mhz=[3000],
        sockets=[1],
        cores_per_socket=[2],
        cpu_avg_util=[0.2],
    )
    quality = QualityReport()
    out, _ = normalize_cpu(servers, HOST17, CpuCatalog([]), quality)
    assert out["score_source"][0] == "host-ratio"
    assert_allclose(out["cpu_score_per_core"][0], 3000 * 6.05 / 2500)
    [w] = [w for w in quality.warnings if w.code == "score_basis_unconverted"]
    assert w.servers == ("old1",)
    assert w.message.startswith(
        "1 server(s) have CPU scores in SPECint95, which cannot be converted to "
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


def test_cpu2000_header_plans_in_the_host_basis(tmp_path):
    # DESIGN.md §4: Xeon 5160 3,025 per 2-core chip, Xeon 3.6 GHz 1,718 (1 core)
    from vsizer.catalogs import read_host_catalog

    _, inv = _inventory(tmp_path, "SPEC CPU2000", 1512.5, 1718)
    quality = QualityReport()
    host = read_host_catalog().default
    out, unit = normalize_cpu(inv.servers, host, read_cpu_catalog(), quality)
    assert unit == R17
    assert list(out["score_source"]) == ["bridge", "bridge"]
    assert_allclose(
        out["cpu_score_per_core"], [1512.5 * FACTOR_00_17, 1718 * FACTOR_00_17]
    )
    assert_allclose(out["cpu_capacity"], [4 * 1512.5 * FACTOR_00_17, 2 * 1718 * FACTOR_00_17])
    for server in ("old1", "old2"):
        status, note = quality.entries[server]["cpu_capacity"]
        assert status == "estimated"
        assert "SPECint2000 x 0.001069 = SPECrate2017_int_base" in note
        assert "error +-27.4 % compounded" in note
    assert not [w for w in quality.warnings if w.code == "score_basis_unconverted"]


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
