"""Growth over the years (issue 16, item 3): hand-computed host counts per year.

The fixture: a host of 2 x 16 cores at 2400 MHz (CPU capacity 76 800 MHz, 64
vCPU at 2 vCPU per core, 512 GiB) and servers of 1 x 4 cores at 2400 MHz at 48 %
peak: 4 x 2400 x 0.48 = 4608 MHz each, 0.06 of a host. At the 0.6 ceiling a
host holds floor(0.6 / (0.06 f)) servers in a year whose demand is f times
day one's, so n servers need ceil(n / floor(10 / f)) hosts (failures = 0,
min_hosts = 1; CPU binds: memory is 4 GiB per server, vCPU 4 of 64).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import vsizer
from vsizer.cli import app
from vsizer.errors import ConfigError
from vsizer.models.growth import (
    growth_factors,
    parse_rate,
    parse_rates,
    purchase_schedule,
    runs_out_year,
    year_rates,
)
from vsizer.study.config import PoolRules, Rules, rules_from_dict

HOSTS = (
    "model,sockets,cores_per_socket,cpu_mhz,mem_gib,power_idle_w,power_max_w\n"
    "Lab,2,16,2400,512,70,350\n"
)


def _files(tmp_path: Path, pools: dict[str, int], peak: float = 0.48) -> tuple[Path, Path]:
    rows = ["name,sockets,cores_per_socket,cpu_mhz,cpu_peak_util,cpu_avg_util,mem_gib,pool"]
    for pool, n in pools.items():
        rows += [f"{pool}{i:02d},1,4,2400,{peak},0.2,4,{pool}" for i in range(n)]
    inv, hosts = tmp_path / "inv.csv", tmp_path / "hosts.csv"
    inv.write_text("\n".join(rows) + "\n", encoding="utf-8")
    hosts.write_text(HOSTS, encoding="utf-8")
    return inv, hosts


def _plan(tmp_path: Path, servers: dict[str, int], **rules: object) -> dict:
    inv, hosts = _files(tmp_path, servers, float(rules.pop("peak", 0.48)))  # type: ignore[arg-type]
    base = Rules(failures=0, **rules)  # type: ignore[arg-type]
    return vsizer.plan(inv, hosts=hosts, rules=base).to_dict()


def _pool_hosts(doc: dict, pool: str) -> list[int | None]:
    return [y["pools"][pool] for y in doc["growth"]["years"]]


# --- the pure arithmetic ------------------------------------------------------


@pytest.mark.parametrize("text", ["10%", "10 %", " 10% ", "0.10", "0.1", 0.1, "10％"])
def test_both_spellings_of_a_rate(text: object) -> None:
    assert parse_rate(text) == pytest.approx(0.10)


@pytest.mark.parametrize("bad", ["ten", "", "10%%", "-150%", -1.5, "1001%", True, None])
def test_not_a_rate(bad: object) -> None:
    assert parse_rate(bad) is None


def test_minus_100_percent_is_the_lowest_rate() -> None:
    assert parse_rate("-100%") == -1.0
    assert parse_rates("10%,15%,5%") == pytest.approx((0.10, 0.15, 0.05))
    assert parse_rates("10%,x") is None


def test_factors_compound() -> None:
    # 1, 1.1, 1.1 x 1.15 = 1.265, 1.265 x 1.05 = 1.32825
    assert growth_factors((0.10, 0.15, 0.05)) == pytest.approx((1, 1.1, 1.265, 1.32825))
    assert growth_factors(("10%",) * 2) == pytest.approx((1, 1.1, 1.21))
    assert year_rates(("10%",), 3) == pytest.approx((0.1, 0.1, 0.1))
    assert year_rates((0.1, 0.2), 5) == pytest.approx((0.1, 0.2))  # a table sets the horizon


def test_runs_out_and_purchases() -> None:
    assert runs_out_year(3, [3, 3, 4, 6]) == 2
    assert runs_out_year(6, [3, 3, 4, 6]) is None
    assert runs_out_year(3, [3, None]) == 1
    assert purchase_schedule(3, [3, 4, 4, 6]) == [(1, 1), (3, 2)]
    assert purchase_schedule(3, [3, 2, 4]) == [(2, 1)]  # never retired
    assert purchase_schedule(3, [3, 5, None, 9]) == [(1, 2)]


def test_declared_messages_of_the_pure_functions() -> None:
    with pytest.raises(ConfigError) as exc:
        growth_factors(("-150%",))
    assert str(exc.value) == (
        "The 'rates' parameter of growth_factors must be a yearly growth rate such "
        "as '10%' or 0.10, from -100% to 1000%. Got '-150%' instead."
    )


# --- the plan -------------------------------------------------------------------


@pytest.mark.parametrize("rate", ["10%", "0.10", 0.10])
def test_ten_percent_from_60_percent_runs_out_in_year_one(tmp_path, rate) -> None:
    # 10 servers x 0.06 = 0.6 of one host: at the 0.6 ceiling, day one needs 1.
    # Year 1: 0.066 each, 9 per host -> 2 hosts; years 2, 3: 8 and 7 per host -> 2.
    doc = _plan(tmp_path, {"A": 10}, growth=rate, years=3)
    g = doc["growth"]
    assert doc["summary"]["hosts"] == 1
    assert g["rate"] == pytest.approx(0.10)
    assert g["size_for"] == "now"
    assert g["runs_out"] == {"A": 1}
    assert _pool_hosts(doc, "A") == [1, 2, 2, 2]
    assert [y["hosts"] for y in g["years"]] == [1, 2, 2, 2]
    # 10 x 4608 MHz x 1.1^y
    assert [y["demand_cpu"] for y in g["years"]] == pytest.approx(
        [46080, 50688, 55756.8, 61332.48]
    )
    assert g["purchases"] == [
        {"year": 0, "pool": "A", "hosts_added": 1},
        {"year": 1, "pool": "A", "hosts_added": 1},
    ]
    assert g["hosts_bought"] == 2
    assert g["plan_hosts"] == {"A": 1}


def test_three_year_table(tmp_path) -> None:
    # 30 servers; factors 1, 1.1, 1.265, 1.32825 -> per host 10, 9, 7, 7
    # -> ceil(30/10)=3, ceil(30/9)=4, ceil(30/7)=5, 5.
    doc = _plan(tmp_path, {"A": 30}, growth_table=(0.10, "15%", 0.05))
    g = doc["growth"]
    assert g["horizon"] == 3 and g["rate"] == pytest.approx([0.10, 0.15, 0.05])
    assert _pool_hosts(doc, "A") == [3, 4, 5, 5]
    assert g["runs_out"] == {"A": 1}
    assert [(p["year"], p["hosts_added"]) for p in g["purchases"]] == [(0, 3), (1, 1), (2, 1)]
    assert [y["factor"]["A"] for y in g["years"]] == pytest.approx([1, 1.1, 1.265, 1.32825])


def test_a_comma_list_on_the_flag_is_a_table(tmp_path) -> None:
    doc = _plan(tmp_path, {"A": 30}, growth="10%,15%,5%", years=7)
    assert doc["growth"]["horizon"] == 3
    assert _pool_hosts(doc, "A") == [3, 4, 5, 5]


def test_per_pool_rates(tmp_path) -> None:
    # A grows 10 %/yr (as in the test above, 30 servers: 3, 4, 4 per year 0..2:
    # 1.21 -> 0.0726 each, 8 per host, ceil(30/8) = 4); B is flat (pool rate 0 %).
    doc = _plan(
        tmp_path, {"A": 30, "B": 10}, growth="10%", years=2,
        pools={"B": PoolRules(growth="0%")},
    )
    g = doc["growth"]
    assert g["pool_rates"] == {"A": [0.1, 0.1], "B": [0.0, 0.0]}
    assert _pool_hosts(doc, "A") == [3, 4, 4]
    assert _pool_hosts(doc, "B") == [1, 1, 1]
    assert [y["hosts"] for y in g["years"]] == [4, 5, 5]
    assert g["runs_out"] == {"A": 1, "B": None}


def test_a_pool_rate_alone_asks_for_growth(tmp_path) -> None:
    doc = _plan(tmp_path, {"A": 10}, years=1, pools={"A": PoolRules(growth=0.1)})
    assert doc["growth"]["rate"] == []
    assert doc["growth"]["runs_out"] == {"A": 1}


def test_size_for_horizon_buys_the_last_years_hosts_on_day_one(tmp_path) -> None:
    doc = _plan(tmp_path, {"A": 30}, growth_table=(0.10, 0.15, 0.05), size_for="horizon")
    g = doc["growth"]
    assert doc["summary"]["hosts"] == 5
    assert doc["pools"][0]["host_count"] == 5
    assert g["plan_hosts"] == {"A": 5}
    assert _pool_hosts(doc, "A") == [3, 4, 5, 5]
    assert g["runs_out"] == {"A": None}
    assert g["purchases"] == [{"year": 0, "pool": "A", "hosts_added": 5}]
    # the placement carries the grown demand: 30 x 4608 x 1.32825 on 5 hosts
    placed = sum(h["demand"]["cpu"] for h in doc["pools"][0]["hosts"])
    assert placed == pytest.approx(30 * 4608 * 1.32825)
    assert {s["host"] for s in doc["servers"]} == {f"A-0{i}" for i in range(1, 6)}


def test_a_vm_outgrowing_a_host_is_a_note_and_runs_out(tmp_path) -> None:
    # One server of 4 cores at 100 % peak: 0.125 of a host. At a 0.13 ceiling it
    # fits on day one; at year 1 it needs 0.1375 and no host holds it.
    doc = _plan(tmp_path, {"A": 1}, growth="10%", years=2, ceiling=0.13, peak=1.0)
    g = doc["growth"]
    assert _pool_hosts(doc, "A") == [1, None, None]
    assert [y["hosts"] for y in g["years"]] == [1, None, None]
    assert g["runs_out"] == {"A": 1}
    assert g["purchases"] == [{"year": 0, "pool": "A", "hosts_added": 1}]
    assert len(g["notes"]) == 1 and g["notes"][0].startswith("year 1 (x1.1): pool 'A': VM 'A00'")
    with pytest.raises(ConfigError) as exc:
        _plan(tmp_path, {"A": 1}, growth="10%", years=2, ceiling=0.13, peak=1.0,
              size_for="horizon")
    assert str(exc.value).startswith(
        "--size-for horizon: pool 'A' cannot be sized for the demand of year 2 (x1.21): "
        "year 1 (x1.1): pool 'A': VM 'A00' needs"
    )


def test_no_growth_no_section(tmp_path) -> None:
    assert "growth" not in _plan(tmp_path, {"A": 10})


def test_the_plan_json_is_deterministic(tmp_path) -> None:
    a = _plan(tmp_path, {"A": 30}, growth="10%", years=2)
    b = _plan(tmp_path, {"A": 30}, growth="10%", years=2)
    assert json.dumps(a) == json.dumps(b)


# --- rules, TOML, flags, messages --------------------------------------------------


def test_toml_growth_section() -> None:
    r = rules_from_dict(
        {"growth": {"rate": 0.10, "size_for": "horizon"}, "pools": {"A": {"growth": "5%"}}}
    )
    assert (r.growth, r.size_for, r.pools["A"].growth) == (0.10, "horizon", "5%")
    r = rules_from_dict({"growth": {"years": [0.10, "15%", 0.05]}})
    assert r.growth_table == (0.10, "15%", 0.05)


@pytest.mark.parametrize(
    ("rules", "line"),
    [
        (
            {"growth": "-150%"},
            "The 'growth' parameter of plan (--growth, [growth] rate) must be a yearly growth rate such as "
            "'10%' or 0.10 (from -100% to 1000%), or a comma-separated list of one "
            "rate per year such as '10%,15%,5%'. Got '-150%' instead.",
        ),
        (
            {"growth": "ten percent"},
            "The 'growth' parameter of plan (--growth, [growth] rate) must be a yearly growth rate such as "
            "'10%' or 0.10 (from -100% to 1000%), or a comma-separated list of one "
            "rate per year such as '10%,15%,5%'. Got 'ten percent' instead.",
        ),
        (
            {"growth_table": (0.1, "x")},
            "The 'growth_table' parameter of plan ([growth] years) must be a yearly growth rate such "
            "as '10%' or 0.10, from -100% to 1000%. Got 'x' instead.",
        ),
        (
            {"pools": {"A": PoolRules(growth=-2.0)}},
            "The 'growth' parameter of [pools.A] must be a yearly growth rate such "
            "as '10%' or 0.10, from -100% to 1000%. Got -2.0 instead.",
        ),
        (
            {"size_for": "later"},
            "The 'size_for' parameter of plan (--size-for, [growth] size_for) must be one of 'now', 'horizon'. "
            "Got 'later' instead.",
        ),
    ],
)
def test_bad_values_give_the_declared_line(rules: dict, line: str) -> None:
    with pytest.raises(ConfigError) as exc:
        Rules(**rules)
    assert str(exc.value) == line


def test_cli_growth_flags(tmp_path) -> None:
    inv, hosts = _files(tmp_path, {"A": 30})
    out = tmp_path / "plan.json"
    args = ["plan", str(inv), "--hosts", str(hosts), "--failures", "0", "-o", str(out)]
    r = CliRunner().invoke(app, [*args, "--growth", "10%,15%,5%", "--size-for", "horizon"])
    assert r.exit_code == 0, r.output
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert doc["summary"]["hosts"] == 5 and doc["growth"]["size_for"] == "horizon"
    r = CliRunner().invoke(app, [*args, "--growth", "-150%"])
    assert r.exit_code != 0
    assert "The 'growth' parameter of plan (--growth, [growth] rate) must be a yearly growth rate" in r.output
    assert "Traceback" not in r.output


# --- on curves ---------------------------------------------------------------------


def test_growth_scales_the_curves() -> None:
    from tests.test_plan_series import HOST, cpu_series

    # a peaks at step 0, b at step 1: the sum is 0.6 at both steps -> 1 host at
    # the 0.6 ceiling. Year 1: 0.66 at both steps -> 2 hosts (0.55 and 0.55).
    kw = dict(vm_cpu_mhz=10_000.0, vm_mem_gib=1.0, host_memory_reserve_gib=0.0,
              ceiling=0.6, failures=0, growth="10%", years=1)
    series = cpu_series({"a": [0.5, 0.1], "b": [0.1, 0.5]})
    doc = vsizer.plan(series=series, hosts=HOST, **kw).to_dict()
    assert doc["pools"][0]["host_count"] == 1
    assert _pool_hosts(doc, "default") == [1, 2]
    assert doc["growth"]["runs_out"] == {"default": 1}
    doc = vsizer.plan(series=series, hosts=HOST, size_for="horizon", **kw).to_dict()
    (pool,) = doc["pools"]
    assert pool["host_count"] == 2
    assert [h["curves"]["cpu"] for h in pool["hosts"]] == [[0.55, 0.11], [0.11, 0.55]]


# --- reports -----------------------------------------------------------------------

NASTY = "=cmd|<i>x</i>"


@pytest.fixture(scope="module")
def grown_doc(tmp_path_factory) -> dict:
    inv, hosts = _files(tmp_path_factory.mktemp("g"), {NASTY: 30})
    rules = Rules(failures=0, growth_table=(0.10, 0.15, 0.05))
    return vsizer.plan(inv, hosts=hosts, rules=rules).to_dict()


def test_the_pool_name_survives(grown_doc) -> None:
    assert list(grown_doc["growth"]["plan_hosts"]) == [NASTY]
    assert [y["hosts"] for y in grown_doc["growth"]["years"]] == [3, 4, 5, 5]


def test_html_growth_section(grown_doc) -> None:
    from vsizer.reporting.html import plan_html

    page = plan_html(grown_doc)
    assert page.index('id="power"') < page.index('id="growth"') < page.index('id="placement"')
    assert "<i>x</i>" not in page and "&lt;i&gt;x&lt;/i&gt;" in page
    assert "Growth over the years" in page and "hosts of the plan: 3" in page
    ja = plan_html(grown_doc, lang="ja")
    assert "年次の需要増加" in ja


def test_excel_growth_sheet(grown_doc, tmp_path) -> None:
    import openpyxl

    from vsizer.reporting import write_plan_xlsx

    path = tmp_path / "p.xlsx"
    write_plan_xlsx(grown_doc, path)
    wb = openpyxl.load_workbook(path)
    assert wb.sheetnames[-1] == "Growth"
    rows = [r for r in wb["Growth"].iter_rows(values_only=True)]
    header = next(r for r in rows if r[0] == "Year" and r[1] and "CPU" in r[1])
    assert header[3] == "Hosts: " + NASTY
    at = rows.index(header)
    assert [r[2] for r in rows[at + 1 : at + 5]] == [3, 4, 5, 5]
    runs = rows.index(("Pool", "Hosts of the plan", "Runs out in year", None))
    assert rows[runs + 1][:3] == ("'" + NASTY, 3, 1)  # formula neutralized


def test_terminal_growth_block(grown_doc) -> None:
    from rich.console import Console

    from vsizer.reporting.terminal import print_summary

    console = Console(record=True, width=200)
    print_summary(grown_doc, console)
    text = console.export_text()
    assert "Growth over the years" in text
    assert "Growth 10 %, 15 %, 5 %/year: 5 hosts needed in year 3 (plan: 3); " in text
    assert "5 hosts bought in all." in text
