"""SPECpower importer: the 11-point curves CSV and the full-results (ccf) CSV."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from vsizer.catalogs import (
    HOST_COLUMNS,
    import_specpower,
    read_host_catalog,
    read_specpower_results,
    write_catalog_csv,
)
from vsizer.catalogs.import_specpower import clean_cpu_name, vendor_short
from vsizer.errors import CatalogError

DATA = Path(__file__).parent / "data" / "catalogs"
CURVES = DATA / "specpower_curves_mini.csv"
FULL = DATA / "specpower_full_mini.csv"
SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "power_specpower"
REAL_CURVES = SHARED / "specpower_curves_11pt.csv"
REAL_FULL = SHARED / "ccf_SPECpower-full-results.csv"
needs_shared = pytest.mark.skipif(
    not (REAL_CURVES.exists() and REAL_FULL.exists()),
    reason="../shared/data not present",
)
# SPECpower_ssj2008 result power_ssj2008-20170829-00781 (Dell PowerEdge R640), W at
# active idle, 10 %, ..., 100 % target load.
R640_CURVE = (
    55.0,
    125.0,
    151.0,
    176.0,
    202.0,
    232.0,
    261.0,
    301.0,
    357.0,
    421.0,
    469.0,
)


def by_model(frame: pd.DataFrame) -> dict[str, dict]:
    return {r["model"]: r for r in frame.to_dict("records")}


def test_both_files_join_curves_and_skip_multi_node():
    out = import_specpower([CURVES, FULL])
    assert list(out.columns) == list(HOST_COLUMNS)
    # skipped: the 4-node 'Blade Chassis X' result (its curve too) and the NC result
    assert out.attrs["skipped"] == 2
    rows = by_model(out)
    assert sorted(rows) == [
        "Apple Xserve3,1 2x Xeon X5570",
        "Dell PowerEdge R640 2x Platinum 8180",
        "HP ProLiant DL360 G6 2x Xeon X5570 (Apr 2009)",
        "HP ProLiant DL360 G6 2x Xeon X5570 (Nov 2009)",
        "IBM server x3550 2x Xeon X5670",
    ]
    r640 = rows["Dell PowerEdge R640 2x Platinum 8180"]
    assert r640["power_curve_w"] == R640_CURVE
    assert (r640["power_idle_w"], r640["power_max_w"]) == (55, 469)
    assert (r640["sockets"], r640["cores_per_socket"], r640["threads_per_core"]) == (
        2,
        28,
        2,
    )
    assert (r640["cpu_mhz"], r640["mem_gib"]) == (2500, 192)
    assert r640["cpu_name"] == "Intel Xeon Platinum 8180"
    assert "power_ssj2008-20170829-00781.html" in r640["source"]
    assert "submitted Sep 13, 2017" in r640["source"]
    # a curve with no full result keeps what its config string says
    ibm = rows["IBM server x3550 2x Xeon X5670"]
    assert (ibm["sockets"], ibm["cores_per_socket"], ibm["cpu_mhz"]) == (2, 6, 2933)
    assert (
        "no SPEC result URL cited by Cloudslab/cloudsim@476ceef2c0ff" in ibm["source"]
    )
    dl360 = rows["HP ProLiant DL360 G6 2x Xeon X5570 (Nov 2009)"]
    assert (dl360["power_idle_w"], dl360["power_max_w"]) == (62, 186)
    assert pd.isna(dl360["power_curve_w"])


def test_full_file_alone_and_order_does_not_matter():
    alone = import_specpower(FULL)
    assert alone.attrs["skipped"] == 2
    assert (
        by_model(alone)["Dell PowerEdge R640 2x Platinum 8180"]["power_curve_w"] is None
    )
    both = import_specpower([FULL, CURVES])
    assert sorted(both["model"]) == sorted(import_specpower([CURVES, FULL])["model"])


def test_curves_file_alone_keeps_unknown_configurations():
    out = import_specpower(CURVES)
    assert len(out) == 3  # node count unknown without the full results: kept
    r640 = by_model(out)["Dell PowerEdge R640"]
    assert r640["power_curve_w"] == R640_CURVE
    assert pd.isna(r640["sockets"])


def test_importer_output_is_a_valid_host_catalog(tmp_path):
    path = write_catalog_csv(import_specpower([CURVES, FULL]), tmp_path / "hosts.csv")
    catalog = read_host_catalog(path)
    host = catalog.get("Dell PowerEdge R640 2x Platinum 8180")
    assert host.power_curve_w == R640_CURVE
    # the importer names the CPU; its score comes from the CPU catalog
    # (Platinum 8180: median of 68 CINT2017rate results = 5.107142857142857)
    assert host.cpu_score_per_core == 5.107142857142857
    assert host.cpu_score_basis == "SPECrate2017_int_base"


def test_results_frame():
    res = read_specpower_results([CURVES, FULL])
    nodes = dict(zip(res["model"], res["nodes"], strict=True))
    assert pd.isna(nodes.pop("IBM server x3550"))  # curve only: node count unknown
    assert set(nodes.values()) == {1}
    assert res.attrs["skipped"] == 2


def test_helpers():
    assert vendor_short("Hewlett Packard Enterprise") == "HPE"
    assert vendor_short("Hewlett-Packard Company Intel Corp.") == "HP"
    assert vendor_short("Super Micro Computer, Inc. Intel Corp.") == "Supermicro"
    assert vendor_short("Plat'Home") == "Plat'Home"
    assert clean_cpu_name("2.6 GHz AMD Opteron 2435") == "AMD Opteron 2435"
    assert clean_cpu_name("Intel(R) Xeon(R) CPU X5570") == "Intel Xeon X5570"


def test_not_a_specpower_file(tmp_path):
    path = tmp_path / "x.csv"
    path.write_text("a,b\n1,2\n")
    with pytest.raises(
        CatalogError, match=r"^x\.csv: not a SPECpower file: expected the "
    ):
        import_specpower(path)


def test_curve_with_bad_values(tmp_path):
    text = CURVES.read_text().replace(",55,125,", ",55,n/a,", 1)
    path = tmp_path / "curves.csv"
    path.write_text(text)
    with pytest.raises(CatalogError) as info:
        import_specpower(path)
    assert str(info.value) == (
        "curves.csv row(s) 2: expected 11 non-negative watt values "
        "(watts_0pct ... watts_100pct)."
    )


def test_unreadable(tmp_path):
    with pytest.raises(CatalogError, match=(
        r"^none\.csv: cannot read the file: No such file or directory\.$"
    )):
        import_specpower(tmp_path / "none.csv")


@needs_shared
def test_real_files_r640_cross_check():
    # README: Dell R640 idle 55 W / 100 % 469 W in both files (Sep 13, 2017)
    curves = by_model(import_specpower(REAL_CURVES))["Dell PowerEdge R640"]
    full = by_model(import_specpower(REAL_FULL))["Dell PowerEdge R640 2x Platinum 8180"]
    assert curves["power_curve_w"] == R640_CURVE
    assert (full["power_idle_w"], full["power_max_w"]) == (55, 469)
    both = import_specpower([REAL_CURVES, REAL_FULL])
    joined = by_model(both)["Dell PowerEdge R640 2x Platinum 8180"]
    assert joined["power_curve_w"] == R640_CURVE
    # 761 results: 158 with Nodes > 1, 30 non-compliant (NC) (10 of them multi-node
    # too); the one with no node count (Dell R7515) is kept with a warning
    assert both.attrs["skipped"] == 188
    assert len(both) == 761 - 188
    assert both["model"].is_unique
