"""TCO under growth: each year counted on its hosts in service and its grown demand.

Hand-computed cases (linear power model: idle + (max - idle) x utilization),
and plans whose TCO must agree with their own economics when nothing grows.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import vsizer
import vsizer.study.config
from vsizer.catalogs.licences import Licence
from vsizer.catalogs.model import HostModel
from vsizer.models.growth import Growth, PoolGrowth
from vsizer.study.config import Rules
from vsizer.study.economics import Economics, PoolPower
from vsizer.study.tco import plan_tco
from vsizer.study.tco_growth import TcoYear, tco_years

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "vsizer" / "data" / "samples" / "inventory_ja.csv"
SCENARIO = REPO / "vsizer" / "data" / "samples" / "scenario.toml"
HOST = HostModel("h", 2, 8, 2, 2000.0, None, 512.0, 100.0, 300.0,
                 price=10_000.0, support_per_year=500.0)


def _economics(util: list[float]) -> Economics:
    e = Economics.__new__(Economics)
    object.__setattr__(e, "pools", (PoolPower("p", np.array(util), np.zeros(len(util))),))
    return e


def _growth(factors: tuple[float, ...], purchases: tuple[tuple[int, int], ...]) -> Growth:
    pg = PoolGrowth("p", (), factors, (), (), (), purchases[0][1], None, purchases)
    return Growth(0.1, "now", len(factors) - 1, (pg,))


def test_hand_computed_years_hosts_and_watts() -> None:
    years = tco_years(
        _economics([0.5, 0.3]), _growth((1.0, 1.1, 1.21), ((0, 2), (2, 1))), HOST,
        Rules(years=3, price_kwh=30.0, pue=1.5),
    )
    assert [y.hosts for y in years] == [2, 3, 3]  # bought in year 2, kept after the horizon
    # Year 1: utilization x 1.1 on 2 hosts: 2 x 100 + 200 x (0.55 + 0.33).
    assert years[0].watts == pytest.approx(376.0)
    # Year 2: x 1.21 over 3 hosts, summing 1.21 x 0.8 = 0.968: 3 x 100 + 200 x 0.968.
    assert years[1].watts == pytest.approx(493.6)
    assert years[2].watts == pytest.approx(493.6)
    assert years[0].energy == pytest.approx(376.0 / 1000 * 8760 * 1.5 * 30.0)


def test_no_growth_gives_the_day_one_year() -> None:
    years = tco_years(_economics([0.5, 0.3]), _growth((1.0,), ((0, 2),)), HOST, Rules(years=2))
    assert [(y.hosts, y.energy) for y in years] == [(2, None), (2, None)]
    assert years[0].watts == pytest.approx(2 * 100 + 200 * 0.8)


def test_plan_tco_sums_each_years_hosts() -> None:
    per_year = (TcoYear(1, 3, 0.0, 100.0), TcoYear(2, 4, 0.0, 120.0), TcoYear(3, 5, 0.0, 150.0))
    lics = (
        Licence("perpetual", "core", "once", 8, 16, price=10.0),
        Licence("subscription", "core", "year", 8, 16, price=1.0),
        Licence("standard", "core", "once", 8, 16, 2, price=1.0),
        Licence("per vm", "vm", "year", price=2.0),
    )
    t = plan_tco(
        HOST, 3, 12, 6.0, 100.0, Rules(years=3, rack_cost_per_u_year=7.0), lics,
        [4, 4, 4], per_year,
    )
    assert t.capex == 5 * 10_000  # the hosts bought by the last year
    assert t.support == (3 + 4 + 5) * 500
    assert t.energy == 100.0 + 120.0 + 150.0
    assert t.rack == 2.0 * (3 + 4 + 5) * 7.0  # 2 U per host
    perpetual, subscription, standard, per_vm = t.licence_lines
    assert (perpetual.count, perpetual.cost) == (5 * 16, 5 * 16 * 10.0)
    assert subscription.cost == (3 + 4 + 5) * 16 * 1.0
    # Day one: 3 hosts of 4 VMs, two licensings of 16 cores each; 2 hosts added, one each.
    assert standard.count == 3 * 2 * 16 + 2 * 16
    assert per_vm.cost == 12 * 2.0 * 3
    assert [y.year for y in t.per_year] == [1, 2, 3]


def _plan(tmp_path: Path, growth: str | None, years: int = 5) -> dict:
    lic = tmp_path / "lic.csv"
    lic.write_text(
        "name,unit,min_per_cpu,min_per_host,term,price,currency,source,date\n"
        "VCF,core,16,,year,100,JPY,quote,2025-01\n",
        encoding="utf-8",
    )
    rules = vsizer.study.config.load_rules(SCENARIO).replace(
        licences=str(lic), rack_cost_per_u_year=10_000.0, years=years
    )
    return json.loads(
        vsizer.plan(SAMPLE, rules=rules, growth=growth).to_json()
    )  # type: ignore[no-any-return]


def test_zero_growth_tco_equals_the_plan_without_growth(tmp_path: Path) -> None:
    flat, none = _plan(tmp_path, "0%")["tco"], _plan(tmp_path, None)["tco"]  # type: ignore[arg-type]
    assert "per_year" not in none
    assert [y["hosts"] for y in flat["per_year"]] == [none["hosts"]] * none["years"]
    for part in ("support", "rack", "licences"):
        assert flat["parts"][part] == pytest.approx(none["parts"][part])
    assert flat["parts"]["energy"] == pytest.approx(none["parts"]["energy"], rel=1e-12)


def test_growth_adds_hosts_energy_and_says_how(tmp_path: Path) -> None:
    doc = _plan(tmp_path, "10%", years=2)  # the sample needs 9, 10, 10 hosts
    t, g = doc["tco"], doc["growth"]
    assert [y["hosts"] for y in g["years"]] == [9, 10, 10]
    assert [y["hosts"] for y in t["per_year"]] == [10, 10]
    assert t["parts"]["rack"] == pytest.approx(2 * (10 + 10) * 10_000.0)  # 2 U hosts
    assert t["parts"]["licences"] == pytest.approx((10 + 10) * 56 * 100)  # 2 x 28 cores
    energy = [y["energy"] for y in t["per_year"]]
    assert energy[1] > energy[0] > doc["power"]["annual_cost_after"]
    assert t["parts"]["energy"] == pytest.approx(sum(energy))
    assert t["criterion"].endswith("on that year's grown demand (per_year)")


def test_a_year_without_a_count_makes_the_total_unknown(tmp_path: Path) -> None:
    doc = _plan(tmp_path, "40%")  # a VM outgrows one host in year 1
    t = doc["tco"]
    assert doc["growth"]["years"][1]["hosts"] is None
    assert t["per_year"][0] == {"year": 1, "hosts": None, "watts": None, "energy": None}
    assert t["total"] is None
    assert _plan(tmp_path, None)["tco"]["missing"] == ["capex", "support"]  # no host price
    assert t["missing"] == ["capex", "support", "energy", "rack", "licences"]
    assert t["parts"]["rack"] is None and t["parts"]["licences"] is None


def test_a_tco_under_growth_is_a_counted_warning_in_every_report(tmp_path: Path) -> None:
    import io

    from rich.console import Console

    from vsizer.reporting.excel import plan_workbook
    from vsizer.reporting.html import plan_html
    from vsizer.reporting.terminal import print_summary

    doc = _plan(tmp_path, "10%", years=2)
    codes = [w["code"] for w in doc["warnings"]]
    assert codes.count("tco_growth_estimated") == 1
    assert doc["summary"]["warnings"] == len(doc["warnings"])
    (w,) = [w for w in doc["warnings"] if w["code"] == "tco_growth_estimated"]
    assert w["message"].startswith(
        "The total cost over 2 years follows the growth study: hosts are counted from "
        "the year it buys them"
    )
    assert "vms_per_licence" not in w["message"]  # the file's licence is not stacked
    out = io.StringIO()
    print_summary(doc, Console(file=out, width=200))
    assert "tco_growth_estimated" in out.getvalue()
    assert "tco_growth_estimated" in plan_html(doc)
    cells = [c.value for ws in plan_workbook(doc).worksheets for row in ws.iter_rows()
             for c in row]
    assert "tco_growth_estimated" in cells
    assert "tco_growth_estimated" not in [
        x["code"] for x in _plan(tmp_path, None)["warnings"]
    ]


def test_the_warning_names_the_stacked_licence_assumption() -> None:
    from vsizer.study.tco_growth import growth_warning

    plain, stacked = growth_warning(5, False), growth_warning(5, True)
    assert stacked.message == plain.message.replace(
        "(tco.per_year).", "(tco.per_year). A licence that covers a few VMs per licensing "
        "(vms_per_licence, e.g. Windows Server Standard) counts each host added later at "
        "one licensing.",
    )
    assert plain.message.endswith("(--size-for horizon plans the last year's).")
