"""SPEC CPU2017 importer: the results dump as downloaded and the derived CSV."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pandas as pd
import pytest
from numpy.testing import assert_allclose

from vsizer.catalogs import (
    CPU_COLUMNS,
    import_spec_cpu2017,
    read_cpu_catalog,
    write_catalog_csv,
)
from vsizer.catalogs.import_spec import brand_string_aliases
from vsizer.errors import CatalogError

DATA = Path(__file__).parent / "data" / "catalogs"
SHARED = (
    Path(__file__).resolve().parents[2] / "shared" / "data" / "cpu_perf_spec_cpu2017"
)
DUMP = SHARED / "cpu2017-results.csv.gz"
DERIVED = SHARED / "cint2017rate_by_system.csv"
needs_shared = pytest.mark.skipif(
    not (DUMP.exists() and DERIVED.exists()), reason="../shared/data not present"
)


def test_mini_dump_keeps_cint_rate_and_takes_medians():
    # tests/data/catalogs/spec_cpu2017_dump_mini.csv: 35 header names, 34 fields,
    # names with stray tab/space; 7 CINT2017rate rows of which 2 without base,
    # plus one CINT2017 (speed) and one CFP2017rate row that must be ignored.
    out = import_spec_cpu2017(DATA / "spec_cpu2017_dump_mini.csv")
    assert list(out.columns) == list(CPU_COLUMNS)
    assert out.attrs == {
        "rows_used": 5,
        "rows_skipped": 2,
        "notes": [
            "spec_cpu2017_dump_mini.csv: 2 CINT2017rate result(s) left out: no "
            "Base Result (0 or empty) (e.g. Intel Xeon Gold 5218)"
        ],
    }
    assert list(out["cpu_name"]) == ["AMD EPYC 7302", "Intel Xeon Gold 5218"]
    gold = out.iloc[1]
    # per core: 180/32 = 5.625, 184/32 = 5.75, 91/16 = 5.6875 -> median 5.6875
    assert gold["score_per_core"] == 5.6875
    assert (gold["cores"], gold["cpu_mhz"]) == (16, 2300)
    assert gold["basis"] == "SPECrate2017_int_base"
    assert gold["aliases"] == "Intel(R) Xeon(R) Gold 5218 CPU @ 2.30GHz"
    assert gold["source"] == (
        "SPEC CPU2017 CINT2017rate, median of 3 results, e.g. "
        "https://www.spec.org/cpu2017/results/res2019q2/cpu2017-2019-00002.html"
    )
    epyc = out.iloc[0]
    assert epyc["score_per_core"] == (242 / 32 + 120 / 16) / 2
    assert epyc["aliases"] == "AMD EPYC 7302 16-Core Processor"


def test_mini_gzipped_and_derived_give_the_same_frame(tmp_path):
    plain = import_spec_cpu2017(DATA / "spec_cpu2017_dump_mini.csv")
    gz = tmp_path / "cpu2017-results.csv.gz"
    with (
        (DATA / "spec_cpu2017_dump_mini.csv").open("rb") as src,
        gzip.open(gz, "wb") as dst,
    ):
        shutil.copyfileobj(src, dst)
    pd.testing.assert_frame_equal(import_spec_cpu2017(gz), plain)
    pd.testing.assert_frame_equal(
        import_spec_cpu2017(DATA / "spec_cint2017rate_by_system_mini.csv"), plain
    )


def test_output_is_a_valid_cpu_catalog(tmp_path):
    out = import_spec_cpu2017(DATA / "spec_cpu2017_dump_mini.csv")
    path = write_catalog_csv(out, tmp_path / "cpus.csv")
    cat = read_cpu_catalog(path)
    assert (
        cat.lookup("Intel(R) Xeon(R) Gold 5218 CPU @ 2.30GHz").score_per_core == 5.6875
    )


def test_min_results():
    out = import_spec_cpu2017(DATA / "spec_cpu2017_dump_mini.csv", min_results=3)
    assert list(out["cpu_name"]) == ["Intel Xeon Gold 5218"]


@pytest.mark.parametrize(
    ("name", "cores", "mhz", "alias"),
    [
        ("Intel Xeon Gold 5218", 16, 2300, "Intel(R) Xeon(R) Gold 5218 CPU @ 2.30GHz"),
        ("Intel Xeon E5-2620 v4", 8, 2100, "Intel(R) Xeon(R) CPU E5-2620 v4 @ 2.10GHz"),
        ("Intel Xeon E5-2620", 6, 2000, "Intel(R) Xeon(R) CPU E5-2620 0 @ 2.00GHz"),
        ("AMD EPYC 9454", 48, 2750, "AMD EPYC 9454 48-Core Processor"),
    ],
)
def test_brand_string_aliases(name, cores, mhz, alias):
    assert brand_string_aliases(name, cores, mhz) == [alias]
    assert brand_string_aliases("POWER10", 15, 2950) == []


def test_not_a_spec_file(tmp_path):
    path = tmp_path / "other.csv"
    path.write_text("a,b\n1,2\n")
    with pytest.raises(CatalogError) as info:
        import_spec_cpu2017(path)
    assert str(info.value) == (
        "other.csv: not a SPEC CPU2017 results listing: its first line is 'a,b'; "
        "expected SPEC's 'Dump All Records As CSV' export (columns 'Benchmark', "
        "'Processor', 'Processor MHz', '# Cores', '# Chips', 'Base Result') or "
        "cint2017rate_by_system.csv, or one Integer Rate result's .csv/.txt report."
    )


def test_unreadable_and_corrupt_gzip(tmp_path):
    with pytest.raises(CatalogError, match=(
        r"^missing\.csv\.gz: cannot read the file: No such file or directory\.$"
    )):
        import_spec_cpu2017(tmp_path / "missing.csv.gz")
    bad = tmp_path / "bad.csv.gz"
    bad.write_bytes(b"\x1f\x8b\x08\x00garbage")
    with pytest.raises(CatalogError, match=r"^bad\.csv\.gz: cannot decompress the file: "):
        import_spec_cpu2017(bad)


def test_a_listing_past_the_unpacked_limit_is_one_line(tmp_path):
    """The importers read through the shared reader: a gzip that unpacks past
    --max-unpacked-mib (here 1 MiB) is refused before it is all in memory."""
    import gzip

    from vsizer.catalogs.import_specpower import import_specpower
    from vsizer.limits import Limits, using

    big = tmp_path / "big.csv.gz"
    big.write_bytes(gzip.compress(b"a," * (1 << 20)))  # 2 MiB unpacked
    with using(Limits(max_unpacked_mib=1)):
        for read in (import_spec_cpu2017, import_specpower):
            with pytest.raises(CatalogError, match=(
                r"^big\.csv\.gz: unpacks to more than 1 MiB, the limit for one "
                r"compressed file; raise it with --max-unpacked-mib\.$"
            )):
                read(big)


@pytest.fixture(scope="module")
def full_dump():
    return import_spec_cpu2017(DUMP)


@pytest.mark.slow
@needs_shared
def test_real_dump_counts(full_dump):
    # README: 13,151 CINT2017rate rows, 21 without a usable base/core value
    assert full_dump.attrs["rows_used"] + full_dump.attrs["rows_skipped"] == 13151
    assert full_dump.attrs["rows_skipped"] == 21
    assert (
        full_dump["source"].str.contains("https://www.spec.org/cpu2017/results/").all()
    )


@pytest.mark.slow
@needs_shared
def test_real_dump_hand_checked_median(full_dump):
    # Intel Xeon E5-2620 v4: 12 CINT2017rate results, all 16 cores (2 chips); bases
    # sorted: 53.5 58.7 58.8 64.1 64.9 65.2 | 65.5 65.9 66.5 66.6 66.7 80.4
    # median per core = (65.2 + 65.5) / 2 / 16 = 4.084375
    row = full_dump[full_dump["cpu_name"] == "Intel Xeon E5-2620 v4"].iloc[0]
    assert_allclose(row["score_per_core"], (65.2 + 65.5) / 2 / 16, rtol=1e-12)
    assert (row["cores"], row["cpu_mhz"]) == (8, 2100)
    assert row["source"].startswith(
        "SPEC CPU2017 CINT2017rate, median of 12 results, e.g. "
    )


@pytest.mark.slow
@needs_shared
def test_real_derived_csv_gives_the_same_medians(full_dump):
    derived = import_spec_cpu2017(DERIVED)
    pd.testing.assert_frame_equal(derived, full_dump)
