"""CPU catalog: shipped data, name matching, user catalogs and their validation."""

from __future__ import annotations

from pathlib import Path

import pytest
from numpy.testing import assert_allclose

from vsizer.catalogs import read_cpu_catalog
from vsizer.catalogs._keys import cpu_key, cpu_keys, model_key
from vsizer.errors import CatalogError

HEADER = "cpu_name,aliases,cores,cpu_mhz,score_per_core,basis,source\n"


@pytest.fixture(scope="module")
def shipped():
    return read_cpu_catalog()


def write(tmp_path: Path, text: str, name: str = "cpus.csv") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# DESIGN.md §4 table: CPU, cores, MHz, effective MHz, SPECint2000, MHz/SPECint
# (the ratio is printed with 2 decimals, hence atol=0.005).
DESIGN4_TABLE = [
    ("Xeon 3.0 GHz", 1, 3000, 3000, 1429, 2.10),
    ("Xeon 3.4 GHz", 1, 3400, 3400, 1617, 2.10),
    ("Xeon 3.6 GHz", 1, 3600, 3600, 1718, 2.10),
    ("Xeon 5110", 2, 1600, 3200, 1712, 1.87),
    ("Xeon 5160", 2, 3000, 6000, 3025, 1.98),
]


@pytest.mark.parametrize(
    ("cpu", "cores", "mhz", "eff_mhz", "specint", "ratio"), DESIGN4_TABLE
)
def test_design4_table_ratios_recomputed_from_cpus_csv(
    shipped, cpu, cores, mhz, eff_mhz, specint, ratio
):
    entry = shipped.lookup(cpu, "SPECint2000")
    assert entry is not None
    assert (entry.cores, entry.cpu_mhz) == (cores, mhz)
    assert entry.cores * entry.cpu_mhz == eff_mhz
    assert_allclose(entry.cores * entry.score_per_core, specint)
    assert_allclose(eff_mhz / (entry.cores * entry.score_per_core), ratio, atol=0.005)
    assert entry.source.startswith("SPECint2000 (SPEC CPU2000 CINT2000 results")


def test_xeon_5160_per_core_score_is_half_the_chip_figure(shipped):
    assert shipped.lookup("Xeon 5160").score_per_core == 1512.5


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        # RVTools vHost 'CPU Model' (../shared/data/formats/rvtools)
        ("Intel(R) Xeon(R) Gold 5218 CPU @ 2.30GHz", "Intel Xeon Gold 5218"),
        ("Xeon Gold 5218", "Intel Xeon Gold 5218"),
        ("intel xeon gold 5218", "Intel Xeon Gold 5218"),
        ("Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz", "Intel Xeon E5-2680 v4"),
        ("Xeon E5-2680v4", "Intel Xeon E5-2680 v4"),
        ("Intel(R) Xeon(R) CPU E5-2620 0 @ 2.00GHz", "Intel Xeon E5-2620"),
        ("AMD EPYC 7302 16-Core Processor", "AMD EPYC 7302"),
        ("EPYC 9454", "AMD EPYC 9454"),
        ("Intel(R) Xeon(R) Platinum 8380 CPU @ 2.30GHz", "Intel Xeon Platinum 8380"),
        ("Xeon 3.0GHz", "Xeon 3.0 GHz"),  # DESIGN §3 example
        ("Intel Xeon E5540", "Intel Xeon E5540"),  # DESIGN §3 example
        ("Xeon 5160 (3.0 GHz)", "Xeon 5160"),  # DESIGN §4 table label
        ("Six-Core AMD Opteron(tm) Processor 2435", "AMD Opteron 2435"),
    ],
)
def test_lookup_real_world_names(shipped, written, expected):
    entry = shipped.lookup(written)
    assert entry is not None
    assert entry.cpu_name == expected


def test_lookup_with_basis(shipped):
    entry = shipped.lookup(
        "Intel(R) Xeon(R) Gold 5218 CPU @ 2.30GHz", "SPECrate2017_int_base"
    )
    assert entry.basis == "SPECrate2017_int_base"
    assert entry.cores == 16 and entry.cpu_mhz == 2300
    assert "median of 74 results" in entry.source
    assert shipped.lookup("Xeon Gold 5218", "SPECint2000") is None
    assert shipped.lookup("Xeon 5160", "SPECrate2017_int_base") is None


def test_lookup_unknown_and_empty(shipped):
    assert shipped.lookup("Mystery CPU 9000") is None
    assert shipped.lookup("") is None


def test_unscored_design_cpus_have_cores_and_mhz(shipped):
    expected = {
        "Xeon E5540": (4, 2533),
        "Xeon E5520": (4, 2260),
        "Xeon L5520": (4, 2266),
        "Xeon E5405": (4, 2000),
        "Xeon X5570": (4, 2933),
        "Opteron 2435": (6, 2600),
        "Xeon 2.8 GHz dual-core": (2, 2800),
    }
    for name, (cores, mhz) in expected.items():
        [entry] = [e for e in shipped.candidates(name) if e.score_per_core is None]
        assert (entry.cores, entry.cpu_mhz) == (cores, mhz)
        assert entry.basis == "" and entry.source
        assert shipped.lookup(name, "SPECrate2017_int_base") is None


@pytest.mark.parametrize(
    ("name", "n", "median"),
    [
        # CINT2006rate results published up to 2016 Q1 (cint2006rate_2016.csv):
        # rows of the CPU, sorted base / cores, middle value
        ("Xeon E5540", 52, 25.125),
        ("Xeon E5520", 75, 23.375),
        ("Xeon E5405", 96, 10.73125),
        ("Xeon X5570", 117, 29.625),
        ("Opteron 2435", 15, 40 / 3),
    ],
)
def test_design_cpus_now_have_a_cpu2006_score(shipped, name, n, median):
    entry = shipped.lookup(name)
    assert entry.basis == "SPECint_rate2006"
    assert entry.score_per_core == pytest.approx(median)
    assert f"median of {n} results" in entry.source


def test_required_spec_cpus_are_shipped(shipped):
    for name in [
        "E5-2620 v2",
        "E5-2620 v3",
        "E5-2620 v4",
        "E5-2650 v4",
        "E5-2680 v3",
        "E5-2680 v4",
        "Silver 4110",
        "Silver 4114",
        "Silver 4210R",
        "Silver 4314",
        "Gold 5118",
        "Gold 5218",
        "Gold 5220",
        "Gold 6130",
        "Gold 6138",
        "Gold 6230",
        "Gold 6248",
        "Gold 6338",
        "Gold 6348",
        "Gold 6430",
        "Platinum 8280",
        "Platinum 8380",
        "Platinum 8490H",
    ]:
        entry = shipped.lookup(f"Intel Xeon {name}", "SPECrate2017_int_base")
        assert entry is not None, name
        assert entry.source.startswith("SPEC CPU2017 CINT2017rate, median of ")
        assert "https://www.spec.org/cpu2017/results/" in entry.source
    for name in ["7302", "7543", "9354", "9454"]:
        assert shipped.lookup(f"AMD EPYC {name}", "SPECrate2017_int_base") is not None


def test_every_shipped_row_has_a_source(shipped):
    assert len(shipped) > 600
    assert all(e.source for e in shipped)
    assert shipped.bases == ["SPECint2000", "SPECrate2017_int_base", "SPECint_rate2006"]


def test_to_frame_round_trips(shipped, tmp_path):
    from vsizer.catalogs import write_catalog_csv

    path = write_catalog_csv(shipped.to_frame(), tmp_path / "copy.csv")
    again = read_cpu_catalog(path)
    assert again.entries == shipped.entries


def test_cpu_keys():
    assert cpu_key("Intel(R) Xeon(R) Gold 5218 CPU @ 2.30GHz") == "intel xeon gold 5218"
    assert cpu_key("Xeon 3.0 GHz") == cpu_key("Xeon 3GHz") == "xeon 3ghz"
    assert cpu_keys("AMD EPYC 7302") == ("amd epyc 7302", "epyc 7302")
    assert (
        model_key("Dell Inc. PowerEdge R740 (Intel Xeon Platinum 8280, 2.70 GHz)")
        == "r740"
    )
    assert (
        model_key("HP ProLiant DL360 G6")
        == model_key("ProLiant DL360 G6")
        == "dl360 g6"
    )


def test_user_catalog_alone(tmp_path):
    path = write(tmp_path, HEADER + "Acme X1,,8,3000,12.5,MyBench,our lab run 42\n")
    cat = read_cpu_catalog(path)
    assert cat.names == ["Acme X1"]
    assert cat.lookup("acme x1").score_per_core == 12.5
    assert cat.lookup("Xeon Gold 5218") is None


def test_user_catalog_merged_replaces_same_name_and_basis(tmp_path):
    path = write(
        tmp_path,
        HEADER
        + "Intel Xeon Gold 5218,,16,2300,6.0,SPECrate2017_int_base,\n"
        + "Acme X1,,8,3000,12.5,MyBench,\n",
    )
    cat = read_cpu_catalog(path, merge=True)
    entry = cat.lookup(
        "Intel(R) Xeon(R) Gold 5218 CPU @ 2.30GHz", "SPECrate2017_int_base"
    )
    assert entry.score_per_core == 6.0
    assert entry.source == "cpus.csv row 2"  # no source given: the file and row
    assert cat.lookup("Acme X1").basis == "MyBench"
    assert cat.lookup("Xeon 5160").score_per_core == 1512.5  # shipped rows kept
    assert sum(e.cpu_name == "Intel Xeon Gold 5218" for e in cat) == 1


def test_missing_required_column(tmp_path):
    path = write(tmp_path, "cpu_name,cores,cpu_mhz,basis\nX,1,1000,\n")
    with pytest.raises(CatalogError) as info:
        read_cpu_catalog(path)
    assert str(info.value) == (
        "cpus.csv: missing required column 'score_per_core'; accepted columns: "
        "cpu_name, aliases, cores, cpu_mhz, score_per_core, basis, source."
    )


def test_unknown_column(tmp_path):
    path = write(tmp_path, HEADER.strip() + ",score\nX,,1,1000,,,,\n")
    with pytest.raises(
        CatalogError, match=r"cpus.csv: unknown column 'score'; accepted"
    ):
        read_cpu_catalog(path)


def test_all_value_problems_listed_at_once(tmp_path):
    path = write(
        tmp_path,
        HEADER
        + "Good,,4,2000,10,B,s\n"
        + "Bad cores,,0,2000,10,B,s\n"
        + ",,4,two GHz,-1,B,s\n"
        + "No basis,,4,2000,10,,s\n"
        + "Good,,4,2000,11,B,s\n",
    )
    with pytest.raises(CatalogError) as info:
        read_cpu_catalog(path)
    assert info.value.problems == [
        "cpus.csv row 3, column 'cores': expected a positive integer, got '0'.",
        "cpus.csv row 4, column 'cpu_name': expected a non-empty text, got ''.",
        "cpus.csv row 4, column 'cpu_mhz': expected a positive number, got 'two GHz'.",
        "cpus.csv row 4, column 'score_per_core': expected a positive number, "
        "got '-1'.",
        "cpus.csv row 5, column 'basis': expected the benchmark of the score (e.g. "
        "'SPECrate2017_int_base', or 'unstated'), got ''.",
        "cpus.csv row 6, column 'cpu_name': expected a CPU not listed before in basis "
        "'B', got 'Good' (also row 2).",
    ]


def test_unreadable_file(tmp_path):
    with pytest.raises(CatalogError, match=r"nope\.csv: cannot read the catalog file"):
        read_cpu_catalog(tmp_path / "nope.csv")
    bad = tmp_path / "latin1.csv"
    bad.write_bytes(HEADER.encode() + "Xéon,,1,1,1,B,s\n".encode("latin-1"))
    with pytest.raises(CatalogError, match=r"latin1\.csv: expected a UTF-8 CSV file"):
        read_cpu_catalog(bad)


def test_cpu_key_reads_the_first_200_characters():
    # The key's patterns are quadratic on long digit runs (a 32,000-digit name took
    # 68 s, found by tests/fuzz); no real CPU name is longer than 200 characters.
    from vsizer.catalogs._keys import cpu_key
    from vsizer.units import clock_mhz_in_name

    name = "Intel Xeon Gold 6248 @ 2.50GHz " + "9" * 5000
    assert cpu_key(name) == cpu_key(name[:200]) == cpu_key(name[:200] + "1")
    assert clock_mhz_in_name(name) == 2500.0
