"""The missing-data policy (vsizer.missing): each blank-like token x each field.

Every expected value is computed by hand in the comments. The fleet of the
test file: servers a-d give CPU average/peak 10/20, 20/30, 30/60, 40/40 %,
ratios 2, 1.5, 2, 1 -> median factor (1.5 + 2) / 2 = 1.75. Server x gives
average 20 % and peak 35 % (= 20 x 1.75), so blanking either one gives the
other back: 20 x 1.75 = 35, 35 / 1.75 = 20.
"""

from __future__ import annotations

import json
import runpy
import statistics
from pathlib import Path

import numpy as np
import openpyxl
import pandas as pd
import pytest
from typer.testing import CliRunner

from vsizer.catalogs.model import HostModel
from vsizer.catalogs.normalize import normalize_cpu
from vsizer.catalogs.server_power import estimate_server_power
from vsizer.cli import app
from vsizer.errors import InventoryError
from vsizer.inventory import read_azure_migrate, read_rvtools, read_table
from vsizer.missing import (
    BLANK_TOKENS,
    DEFAULT_PEAK_TO_AVERAGE,
    MISSING_RULES,
    fill_cpu_util,
    fleet_peak_factor,
)
from vsizer.quality import QualityReport, assumption_warnings

REPO = Path(__file__).resolve().parents[1]

#: Blank-like cells as users write them (raw, before normalization).
TOKENS = ["", "-", "－", "—", "N/A", "n/a", "NA", "#N/A", "不明", "なし", "無し", "?",
          "？", "none", "NULL", "nan"]

HEADER = ("name,sockets,cores_per_socket,cpu_mhz,mem_gib,cpu_avg_pct,cpu_peak_pct,"
          "disk_iops,disk_mb_s,net_mbps,power_w,pool,group,migrate,redundant_with")
FLEET = [
    "a,1,2,2000,8,10,20,100,10,50,200,p,g,yes,",
    "b,1,2,2000,8,20,30,100,10,50,200,p,g,yes,",
    "c,1,2,2000,8,30,60,100,10,50,200,p,g,yes,",
    "d,1,2,2000,8,40,40,100,10,50,200,p,g,yes,",
]
X = {"name": "x", "sockets": "1", "cores_per_socket": "2", "cpu_mhz": "2000",
     "mem_gib": "8", "group": "g",
     "cpu_avg_pct": "20", "cpu_peak_pct": "35", "disk_iops": "100", "disk_mb_s": "10",
     "net_mbps": "50", "power_w": "200", "pool": "p", "migrate": "yes",
     "redundant_with": "a"}

MHZ_HOST = HostModel(
    model="example", sockets=2, cores_per_socket=4, threads_per_core=2, cpu_mhz=2000,
    cpu_score_per_core=None, mem_gib=256, power_idle_w=100, power_max_w=400,
    source="test",
)


def _csv(tmp_path: Path, **x_cells: str) -> Path:
    cells = {**X, **x_cells}
    row = ",".join(cells[h] for h in HEADER.split(","))
    p = tmp_path / "inv.csv"
    p.write_text("\n".join([HEADER, *FLEET, row]) + "\n", encoding="utf-8")
    return p


def _x(inv) -> dict:
    s = inv.servers.set_index("name").loc["x"]
    return {k: (None if pd.isna(v) else v) for k, v in s.items()}


def _codes(quality: QualityReport) -> dict[str, tuple[str, ...]]:
    return {w.code: w.servers for w in assumption_warnings(quality)}


def test_no_token_no_warning(tmp_path):
    inv = read_table(_csv(tmp_path))
    assert _codes(inv.quality) == {} and inv.quality.warnings == []
    assert _x(inv)["cpu_peak_util"] == pytest.approx(0.35)


# --- the matrix: token x field ---------------------------------------------------

@pytest.mark.parametrize("token", TOKENS)
def test_peak_missing_is_average_times_fleet_factor(tmp_path, token):
    inv = read_table(_csv(tmp_path, cpu_peak_pct=token))
    x = _x(inv)
    assert x["cpu_avg_util"] == pytest.approx(0.20)
    assert x["cpu_peak_util"] == pytest.approx(0.35)  # 20 % x 1.75
    assert inv.quality.status("x", "cpu_peak_util") == "estimated"
    assert inv.quality.entries["x"]["cpu_peak_util"][1] == (
        "average x 1.75 (median peak/average of the 4 servers of this file that give "
        "both)"
    )
    assert _codes(inv.quality) == {"estimated_cpu_peak_util": ("x",)}
    assert "peak-to-average CPU factor 1.75: median peak/average of the 4 servers" in (
        inv.quality.notes[-1]
    )


@pytest.mark.parametrize("token", TOKENS)
def test_average_missing_is_peak_over_fleet_factor(tmp_path, token):
    inv = read_table(_csv(tmp_path, cpu_avg_pct=token))
    x = _x(inv)
    assert x["cpu_avg_util"] == pytest.approx(0.20)  # 35 % / 1.75
    assert x["cpu_peak_util"] == pytest.approx(0.35)
    assert inv.quality.status("x", "cpu_avg_util") == "estimated"
    assert _codes(inv.quality) == {"estimated_cpu_avg_util": ("x",)}


@pytest.mark.parametrize("token", TOKENS)
def test_both_missing_is_assume_util(tmp_path, token):
    inv = read_table(_csv(tmp_path, cpu_avg_pct=token, cpu_peak_pct=token))
    x = _x(inv)
    assert x["cpu_avg_util"] is None and x["cpu_peak_util"] is None
    quality = QualityReport()
    quality.merge(inv.quality)
    out, _ = normalize_cpu(inv.servers, MHZ_HOST, _no_catalog(), quality,
                           assume_util=0.5)
    row = out.set_index("name").loc["x"]
    assert (row["cpu_avg_util"], row["cpu_peak_util"]) == (0.5, 0.5)
    assert row["cpu_peak_demand"] == 2 * 2000 * 0.5  # 2 cores x 2000 MHz x 50 %
    assert quality.status("x", "cpu_peak_util") == "assumed"
    assert quality.entries["x"]["cpu_avg_util"][1] == (
        "unknown: 0.5 assumed (--assume-util)"
    )
    assert _codes(quality) == {"assumed_cpu_avg_util": ("x",),
                               "assumed_cpu_peak_util": ("x",)}


@pytest.mark.parametrize("field", ["disk_iops", "disk_mb_s", "net_mbps"])
@pytest.mark.parametrize("token", TOKENS)
def test_unchecked_dimension(tmp_path, token, field):
    inv = read_table(_csv(tmp_path, **{field: token}))
    assert _x(inv)[field] is None
    assert inv.quality.status("x", field) == "missing"
    assert [w.to_dict() for w in inv.quality.warnings] == [{
        "code": f"unchecked_{field}",
        "message": f"{field} missing for 1 of 5 servers: they count as 0 in that "
        "dimension, so it is not checked for them; fill the column or give a series.",
        "servers": ["x"],
    }]


@pytest.mark.parametrize("token", TOKENS)
def test_power_missing_is_estimated_from_a_typical_server(tmp_path, token):
    inv = read_table(_csv(tmp_path, power_w=token))
    assert _x(inv)["power_w"] is None
    quality = QualityReport()
    quality.merge(inv.quality)
    pw = estimate_server_power(inv.servers, quality=quality)
    assert pw["power_source"].tolist() == ["inventory"] * 4 + ["assumed"]
    assert quality.status("x", "power_w") == "assumed"  # no model column
    assert _codes(quality) == {"assumed_power_w": ("x",)}


@pytest.mark.parametrize(
    "field, value, status",
    [("pool", "default", "assumed"), ("migrate", True, "assumed")],
)
@pytest.mark.parametrize("token", TOKENS)
def test_defaulted_fields(tmp_path, token, field, value, status):
    inv = read_table(_csv(tmp_path, **{field: token}))
    assert _x(inv)[field] == value
    assert inv.quality.status("x", field) == status
    assert _codes(inv.quality) == {f"{status}_{field}": ("x",)}


@pytest.mark.parametrize("token", TOKENS)
def test_redundant_with_missing_means_no_partner(tmp_path, token):
    inv = read_table(_csv(tmp_path, redundant_with=token))
    assert _x(inv)["redundant_with"] is None
    assert inv.quality.status("x", "redundant_with") == ("given" if token else "missing")
    assert _codes(inv.quality) == {}


@pytest.mark.parametrize("field, expected", [("sockets", "a positive whole number")])
@pytest.mark.parametrize("token", TOKENS)
def test_required_field_missing_is_an_error_line(tmp_path, token, field, expected):
    with pytest.raises(InventoryError) as exc:
        read_table(_csv(tmp_path, **{field: token}))
    assert exc.value.problems == [
        f"inv.csv row 6, column '{field}': expected {expected}, got '{token}'."
    ]


@pytest.mark.parametrize("token", TOKENS)
def test_missing_memory_is_read_as_missing_and_the_plan_says_where(tmp_path, token):
    # Memory is needed for placement: the reader keeps the cell's location, the plan
    # stops on it unless --vm-mem-gib fills it (vsizer.inventory.assume).
    path = _csv(tmp_path, mem_gib=token)
    inv = read_table(path)
    assert _x(inv)["mem_gib"] is None
    assert inv.quality.status("x", "mem_gib") == "missing"
    import vsizer

    with pytest.raises(InventoryError) as exc:
        vsizer.plan(inv)
    cell = f"holds '{token}'" if token else "is empty"
    assert exc.value.problems == [
        f"inv.csv row 6, column 'mem_gib' {cell}: no memory size for server 'x': "
        "fill the cell, or pass --vm-mem-gib F for servers without one."
    ]
    filled = vsizer.plan(inv, vm_mem_gib=8.0)
    assert filled.quality.status("x", "mem_gib") == "assumed"


def test_bad_text_is_still_an_error(tmp_path):
    with pytest.raises(InventoryError) as exc:
        read_table(_csv(tmp_path, cpu_peak_pct="#VALUE!", disk_iops="many"))
    assert exc.value.problems == [
        "inv.csv row 6, column 'cpu_peak_pct': expected a percentage in [0, 100], "
        "got '#VALUE!'.",
        "inv.csv row 6, column 'disk_iops': expected a non-negative number, got "
        "'many'.",
    ]


def test_excel_error_cell_na_is_missing(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(HEADER.split(","))
    for line in FLEET:
        ws.append([_num(c) for c in line.split(",")])
    ws.append([_num(X[h]) for h in HEADER.split(",")])
    ws.cell(row=6, column=7).value = "#N/A"  # cpu_peak_pct of x, an error cell
    assert ws.cell(row=6, column=7).data_type == "e"
    p = tmp_path / "inv.xlsx"
    wb.save(p)
    inv = read_table(p)
    assert _x(inv)["cpu_peak_util"] == pytest.approx(0.35)
    assert _codes(inv.quality) == {"estimated_cpu_peak_util": ("x",)}


def _num(text: str):
    try:
        return float(text)
    except ValueError:
        return text or None


def _no_catalog():
    from vsizer.catalogs.cpu_catalog import CpuCatalog

    return CpuCatalog([])


# --- RVTools and Azure Migrate use the same token set ----------------------------

@pytest.mark.parametrize("token", TOKENS)
def test_rvtools_memory_token_is_missing_and_an_error(tmp_path, token):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "vInfo"
    ws.append(["VM", "Powerstate", "Template", "CPUs", "Memory"])
    ws.append(["a", "poweredOn", "False", 2, token or None])
    p = tmp_path / "rv.xlsx"
    wb.save(p)
    with pytest.raises(InventoryError) as exc:
        read_rvtools(p)
    shown = token.strip() if token != "－" else token
    assert exc.value.problems == [
        f"rv.xlsx sheet 'vInfo' row 2, column 'Memory': expected a positive memory "
        f"size [MiB], got '{_nfkc(shown)}'."
    ]


def _nfkc(text: str) -> str:
    import unicodedata

    return unicodedata.normalize("NFKC", text)


AZ_HEADER = "Server name,Cores,Memory,OS name,CPU utilization percentage"


@pytest.mark.parametrize("token", TOKENS)
def test_azure_migrate_cpu_token_is_missing(tmp_path, token):
    p = tmp_path / "az.csv"
    p.write_text(f"{AZ_HEADER}\nweb01,2,4096,Linux,{token}\ndb01,4,8192,Linux,20\n",
                 encoding="utf-8")
    inv = read_azure_migrate(p)
    s = inv.servers.set_index("name")
    assert pd.isna(s.loc["web01", "cpu_avg_util"])
    assert pd.isna(s.loc["web01", "cpu_peak_util"])  # both missing: --assume-util
    # db01: one CPU figure, 20 % x the default factor 4.85 = 97 %.
    assert s.loc["db01", "cpu_peak_util"] == pytest.approx(0.97)
    codes = {c: w for c, w in _codes(inv.quality).items() if "cpu" in c}
    assert codes == {"estimated_cpu_peak_util": ("db01",)}


@pytest.mark.parametrize("token", TOKENS)
def test_azure_migrate_memory_token_is_missing(tmp_path, token):
    p = tmp_path / "az.csv"
    p.write_text(f"{AZ_HEADER}\nweb01,2,{token},Linux,10\n", encoding="utf-8")
    inv = read_azure_migrate(p)
    assert inv.quality.status("web01", "mem_gib") == "missing"
    assert inv.quality.entries["web01"]["mem_gib"][1].startswith(
        "az.csv row 2, column 'Memory'"
    )


# --- the factor -------------------------------------------------------------------

def test_fleet_factor_hand_computed():
    f = fleet_peak_factor([0.1, 0.2, 0.3, 0.4], [0.2, 0.3, 0.6, 0.4])
    assert (f.value, f.servers) == (1.75, 4)  # median of 2, 1.5, 2, 1


def test_fleet_factor_ignores_unusable_pairs_and_falls_back():
    # avg 0 (no ratio), peak < avg (inconsistent) and NaN pairs do not count:
    # two usable pairs (ratio 2, 3) are fewer than 3 -> the published default.
    f = fleet_peak_factor([0.1, 0.1, 0.0, 0.5, np.nan], [0.2, 0.3, 0.4, 0.2, 0.5])
    assert (f.value, f.servers) == (4.85, 0)
    assert f.note.startswith("2 server(s) of this file give both, fewer than 3: ")
    assert "PlanetLab" in f.note and "10.1002/cpe.1867" in f.note


def test_fill_caps_the_peak_at_100_percent():
    fill = fill_cpu_util([0.1, 0.2, 0.3, 0.6], [0.3, 0.6, 0.9, np.nan])
    assert fill.factor.value == 3.0  # 3, 3, 3
    assert fill.peak[3] == 1.0 and bool(fill.peak_capped[3])  # 0.6 x 3 = 1.8
    assert fill.note("cpu_peak_util", 3).startswith("average x 3, capped at 100 % (")


@pytest.mark.slow
def test_factor_recomputes_from_planetlab(shared_data):
    script = runpy.run_path(str(REPO / "scripts" / "measure_peak_factor.py"))
    ratios = script["planetlab_ratios"](shared_data / "planetlab_cloudsim")
    assert len(ratios) == 8122
    assert round(statistics.median(ratios), 2) == DEFAULT_PEAK_TO_AVERAGE["value"]


# --- the declared policy and its documentation ---------------------------------------

def test_policy_documented():
    doc = (REPO / "docs" / "inputs.md").read_text(encoding="utf-8")
    for token in BLANK_TOKENS - {""}:
        assert f"`{token}`" in doc.casefold(), token
    for token in TOKENS[1:]:
        assert f"`{_nfkc(token).casefold()}`" in doc.casefold(), token
    for field in ("cpu_peak_util", "cpu_avg_util", "mem_gib", "vcpus", "power_w",
                  "disk_iops", "disk_mb_s", "net_mbps", "redundant_with"):
        assert f"`{field}`" in doc, field
        assert field in MISSING_RULES
    assert f"**{DEFAULT_PEAK_TO_AVERAGE['value']}**" in doc
    assert "--assume-util" in doc


runner = CliRunner()


def test_cli_assume_util(tmp_path):
    p = tmp_path / "inv.csv"
    p.write_text("name,sockets,cores_per_socket,cpu_mhz,mem_gib,cpu_avg_pct\n"
                 "a,1,2,2000,4,N/A\nb,1,2,2000,4,不明\n", encoding="utf-8")
    out = tmp_path / "plan.json"
    r = runner.invoke(app, ["plan", str(p), "--assume-util", "0.25", "-o", str(out),
                            "-q"])
    assert r.exit_code == 0, r.output
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert [(s["cpu_avg_util"], s["cpu_peak_util"]) for s in doc["servers"]] == [
        (0.25, 0.25), (0.25, 0.25)
    ]
    r = runner.invoke(app, ["plan", str(p), "--assume-util", "2"])
    assert r.exit_code == 2
    assert ("The 'assume_util' parameter of plan (--assume-util, [sizing] assume_util) must be a float in the range "
            "[0, 1]. Got 2.0 instead.") in r.output
