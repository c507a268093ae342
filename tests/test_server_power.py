"""Power of the source servers: inventory, SPECpower catalog, assumed by chip count."""

from __future__ import annotations

import csv
from pathlib import Path

import pandas as pd
import pytest
from numpy.testing import assert_allclose

import vsizer.catalogs
from vsizer.catalogs import (
    ServerPowerCatalog,
    ServerPowerEntry,
    estimate_server_power,
    read_server_power_catalog,
)
from vsizer.errors import CatalogError
from vsizer.quality import QualityReport

DATA = Path(vsizer.catalogs.__file__).parent / "data"
# SPECpower_ssj2008 result power_ssj2008-20170829-00781 (Dell PowerEdge R640):
# W at active idle, 10 %, ..., 100 % target load.
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
CATALOG = ServerPowerCatalog(
    [
        ServerPowerEntry("Acme 1U", 55, 469, R640_CURVE, sockets=2, source="curve src"),
        ServerPowerEntry("Acme 1U", 30, 200, None, sockets=1, source="1s src"),
        ServerPowerEntry(
            "Old Box",
            100,
            300,
            None,
            sockets=2,
            source="linear src",
            aliases=("Vendor OldBox",),
        ),
    ]
)


def chip_defaults() -> dict[int, tuple[float, float, str]]:
    with (DATA / "server_power_by_chips.csv").open(encoding="utf-8") as fh:
        return {
            int(r["chips"]): (
                float(r["power_idle_w"]),
                float(r["power_max_w"]),
                r["source"],
            )
            for r in csv.DictReader(fh)
        }


def servers(**cols) -> pd.DataFrame:
    n = len(next(iter(cols.values())))
    cols.setdefault("name", [f"s{i}" for i in range(n)])
    return pd.DataFrame(cols)


def test_curve_hand_computed():
    # u = 0.25 lies halfway between 20 % (151 W) and 30 % (176 W): 163.5 W
    df = servers(model=["Acme 1U"], sockets=[2], cpu_avg_util=[0.25])
    quality = QualityReport()
    out = estimate_server_power(df, CATALOG, quality)
    assert out["power_w"].iloc[0] == pytest.approx(151 + 0.5 * (176 - 151))
    assert out["power_source"].iloc[0] == "catalog"
    assert quality.entries["s0"]["power_w"] == (
        "derived",
        "Acme 1U (11-point curve), curve src",
    )


def test_linear_and_socket_choice_and_alias():
    df = servers(
        model=["Acme 1U", "Acme 1U", "vendor oldbox"],
        sockets=[1, 4, None],
        cpu_avg_util=[0.5, 1.0, 0.4],
    )
    out = estimate_server_power(df, CATALOG)
    # 1 socket: 30 + 0.5 x 170; 4 sockets: nearest published (2): curve at 100 %;
    # sockets unknown: 100 + 0.4 x 200
    assert_allclose(out["power_w"], [115, 469, 180])
    assert list(out["power_source"]) == ["catalog"] * 3
    assert out["power_note"].iloc[1].endswith("; published for 2 sockets, server has 4")


def test_inventory_value_wins():
    df = servers(
        model=["Acme 1U", "Acme 1U"], power_w=[250.0, None], cpu_avg_util=[0.0, 0.0]
    )
    quality = QualityReport()
    out = estimate_server_power(df, CATALOG, quality)
    assert_allclose(out["power_w"], [250, 55])
    assert list(out["power_source"]) == ["inventory", "catalog"]
    assert quality.status("s0", "power_w") == "given"


def test_assumed_by_chip_count():
    defaults = chip_defaults()
    df = servers(
        model=["Mystery 9000", None, "Mystery 9000"],
        sockets=[1, None, 3],
        cpu_avg_util=[0.5, 0.2, 1.0],
    )
    quality = QualityReport()
    out = estimate_server_power(df, CATALOG, quality)
    idle1, max1, src1 = defaults[1]
    idle2, max2, _ = defaults[2]
    assert_allclose(
        out["power_w"],
        [idle1 + 0.5 * (max1 - idle1), idle2 + 0.2 * (max2 - idle2), max2],
    )
    assert list(out["power_source"]) == ["assumed"] * 3
    assert (
        src1.startswith("median of ")
        and "SPECpower_ssj2008 results with 1 chips" in src1
    )
    assert "ccf-coefficients file" in src1
    assert (
        out["power_note"].iloc[0] == f"typical 1-chip server (linear idle-max), {src1}"
    )
    assert out["power_note"].iloc[1].endswith("; sockets unknown, 2 assumed")
    assert (
        out["power_note"]
        .iloc[2]
        .endswith("; no 3-chip results, nearest chip count used")
    )
    assert quality.status("s1", "power_w") == "assumed"


def test_missing_utilization_uses_assume_util():
    df = servers(model=["Old Box"], sockets=[2], cpu_avg_util=[None])
    out = estimate_server_power(df, CATALOG, assume_util=0.5)
    assert out["power_w"].iloc[0] == 200
    assert (
        out["power_note"]
        .iloc[0]
        .endswith("; average CPU utilization unknown, 0.5 assumed")
    )


def test_index_is_kept():
    df = servers(model=["Old Box", "Old Box"], sockets=[2, 2], cpu_avg_util=[0.0, 1.0])
    df.index = pd.Index([10, 20])
    out = estimate_server_power(df, CATALOG)
    assert list(out.index) == [10, 20]
    assert_allclose(out["power_w"], [100, 300])


def test_shipped_catalog_finds_models_as_written():
    shipped = read_server_power_catalog()
    assert len(shipped) > 100
    for written in ["PowerEdge R640", "Dell PowerEdge R640", "DELL POWEREDGE R640"]:
        entry = shipped.lookup(written, 2)
        assert entry.power_curve_w == R640_CURVE
        assert "power_ssj2008-20170829-00781" in entry.source
    assert shipped.lookup("HPE ProLiant DL380 Gen10") is not None  # RVTools vHost model
    assert shipped.lookup("Nonexistent 1") is None and shipped.lookup("") is None
    df = servers(model=["PowerEdge R640"], sockets=[2], cpu_avg_util=[0.5])
    assert estimate_server_power(df)["power_w"].iloc[0] == 232


def test_chip_defaults_file():
    defaults = chip_defaults()
    assert sorted(defaults) == [1, 2, 4, 8]
    assert all(idle < top for idle, top, _ in defaults.values())


def test_invalid_server_power_file(tmp_path):
    path = tmp_path / "power.csv"
    path.write_text(
        "model,power_idle_w,power_max_w,power_curve_w\n"
        "A,300,200,\n"
        "B,n/a,200,\n"
        ",10,20,1;2\n",
        encoding="utf-8",
    )
    with pytest.raises(CatalogError) as info:
        read_server_power_catalog(path)
    assert info.value.problems == [
        "power.csv row 2, column 'power_idle_w': expected at most power_max_w (200), "
        "got '300'.",
        "power.csv row 3, column 'power_idle_w': expected a non-negative number, "
        "got 'n/a'.",
        "power.csv row 4, column 'model': expected a non-empty text, got ''.",
        "power.csv row 4, column 'power_curve_w': expected 11 non-negative numbers [W] "
        "separated by ';' (0 %, 10 %, ..., 100 % load), got '1;2'.",
    ]
