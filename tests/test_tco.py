"""Total cost of ownership: hand-computed parts, licences with their minimums,
missing and not-counted parts, and the ``tco`` section of a plan."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

import vsizer
from vsizer.catalogs.licences import Licence
from vsizer.catalogs.model import HostModel
from vsizer.errors import ConfigError
from vsizer.study.config import Rules
from vsizer.study.tco import load_licences, plan_tco

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "vsizer" / "data" / "samples" / "inventory_ja.csv"
SCENARIO = REPO / "vsizer" / "data" / "samples" / "scenario.toml"
HOSTS = REPO / "vsizer" / "catalogs" / "data" / "hosts.csv"

WINDOWS = Licence("Windows Server 2022 Datacenter", "core", "once", 8, 16, price=100.0)
VMWARE = Licence("VMware vSphere Foundation", "core", "year", 16, None, price=50.0)


def _host(sockets: int = 2, cores: int = 12, **kw: float) -> HostModel:
    return HostModel("h", sockets, cores, 2, 2000.0, None, 512.0, 100.0, 400.0, **kw)


def test_hand_computed_tco_with_licence_minimums() -> None:
    host = _host(price=10_000.0, support_per_year=500.0)
    rules = Rules(years=5, rack_cost_per_u_year=100.0)
    t = plan_tco(host, 3, 20, 3.0, 1200.0, rules, (WINDOWS, VMWARE))
    assert t.capex == 30_000.0  # 3 x 10,000
    assert t.support == 7_500.0  # 3 x 500 x 5
    assert t.energy == 6_000.0  # 1,200 / year x 5
    assert t.rack == 1_500.0  # 3 U x 100 x 5
    win, vmw = t.licence_lines
    assert (win.per_host, win.count, win.cost) == (24, 72, 7_200.0)  # once
    assert (vmw.per_host, vmw.count, vmw.cost) == (32, 96, 24_000.0)  # x 5 years
    assert t.licences == 31_200.0
    assert t.total == 30_000 + 7_500 + 6_000 + 1_500 + 31_200
    assert t.missing == () and t.not_counted == ()


def test_one_socket_eight_cores_pays_the_16_core_minimums() -> None:
    t = plan_tco(_host(1, 8, price=0.0, support_per_year=0.0), 2, 5, 2.0, None,
                 Rules(years=1), (WINDOWS, VMWARE))
    assert [line.per_host for line in t.licence_lines] == [16, 16]
    assert t.licences == 2 * 16 * 100.0 + 2 * 16 * 50.0 * 1
    assert t.not_counted == ("energy", "rack")
    assert t.total == t.licences


def test_missing_prices_make_the_total_unknown_and_say_which() -> None:
    no_price = Licence("VMware Cloud Foundation", "core", "year", 16)
    t = plan_tco(_host(), 4, 10, 8.0, 500.0, Rules(years=3), (WINDOWS, no_price))
    assert t.missing == ("capex", "support", "licences")
    assert t.not_counted == ("rack",)
    assert t.total is None
    assert t.known_total == 1_500.0  # energy only
    assert t.licence_lines[1].cost is None


def test_declared_parameters_of_plan_tco() -> None:
    with pytest.raises(ConfigError) as exc:
        plan_tco(_host(), -1, 0, 0.0, None, Rules())
    assert str(exc.value) == (
        "The 'hosts' parameter of plan_tco must be an int in the range [0, inf). "
        "Got -1 instead."
    )


def test_licence_in_another_currency_is_one_clear_line(tmp_path: Path) -> None:
    lic = tmp_path / "lic.csv"
    lic.write_text(
        "name,unit,min_per_cpu,min_per_host,term,price,currency,source,date\n"
        "Windows,core,8,16,once,100,USD,,\n",
        encoding="utf-8",
    )
    with pytest.raises(ConfigError) as exc:
        load_licences(Rules(licences=str(lic), currency="JPY"))
    assert str(exc.value) == (
        f"{lic}: licence 'Windows', column 'currency': expected the plan's currency "
        "'JPY' (--currency) or empty, got 'USD'."
    )


def _priced_catalog(path: Path, prices: dict[str, tuple[float | None, float | None]]) -> Path:
    """The shipped rows of ``prices``' models with their price and support."""
    with HOSTS.open(encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh) if r["model"] in prices]
    with path.open("w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, [*rows[0], "support_per_year"])
        w.writeheader()
        for r in rows:
            price, support = prices[r["model"]]
            r["price"] = "" if price is None else str(price)
            r["support_per_year"] = "" if support is None else str(support)
            w.writerow(r)
    return path


def test_plan_with_a_priced_host_has_a_tco_section(tmp_path: Path) -> None:
    model = "Dell PowerEdge R740 2x Platinum 8180"
    hosts = _priced_catalog(tmp_path / "h.csv", {model: (1_000_000.0, 50_000.0)})
    lic = tmp_path / "lic.csv"
    lic.write_text(
        "name,unit,min_per_cpu,min_per_host,term,price,currency,source,date\n"
        "Windows Server 2025 Datacenter,core,8,16,once,20000,JPY,quote,2025-01\n",
        encoding="utf-8",
    )
    rules = vsizer.study.config.load_rules(SCENARIO).replace(
        host_catalog=str(hosts), licences=str(lic), rack_cost_per_u_year=10_000.0
    )
    doc = json.loads(vsizer.plan(SAMPLE, rules=rules).to_json())
    t, n = doc["tco"], doc["summary"]["hosts"]
    assert t["parts"]["capex"] == n * 1_000_000
    assert t["parts"]["support"] == n * 50_000 * 5
    assert t["parts"]["rack"] == n * 2 * 10_000 * 5  # 2U hosts
    assert t["parts"]["licences"] == n * 56 * 20_000  # 2 x 28 cores
    assert t["parts"]["energy"] == pytest.approx(doc["power"]["annual_cost_after"] * 5)
    assert t["total"] == pytest.approx(sum(t["parts"].values()))
    assert t["licences"][0]["per_host"] == 56 and t["missing"] == []


def test_plan_without_cost_inputs_has_no_tco_section() -> None:
    doc = vsizer.plan(SAMPLE, rules=vsizer.study.config.load_rules(SCENARIO)).to_dict()
    assert "tco" not in doc and "choice" not in doc
