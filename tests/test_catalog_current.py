"""Current two-socket hosts of the shipped catalog (issue 16, item 7) and the
host price columns (price, price_date, price_currency, support_per_year)."""

from __future__ import annotations

import csv
import re
import statistics
from pathlib import Path

import pytest
from typer.testing import CliRunner

from vsizer.catalogs import DEFAULT_HOST_MODEL, read_host_catalog
from vsizer.catalogs.model import HostModel
from vsizer.cli import app
from vsizer.errors import CatalogError

#: 2023-2025 generations in the shipped catalog: model -> (result file,
#: published base result, total cores), as read off spec.org / the dump.
CURRENT = {
    "Dell PowerEdge R760 2x Xeon Gold 6430": ("cpu2017-20221223-33223", 509, 64),
    "Dell PowerEdge R760 2x Xeon Gold 6548Y+": ("cpu2017-20240112-40590", 644, 64),
    "Dell PowerEdge R760 2x Xeon Platinum 8592+": ("cpu2017-20231128-40086", 1070, 128),
    "Dell PowerEdge R770 2x Xeon 6760P": ("cpu2017-20250310-46878", 1270, 128),
    "Dell PowerEdge R770 2x Xeon 6787P": ("cpu2017-20250310-46882", 1540, 172),
    "Dell PowerEdge R7625 2x EPYC 9554": ("cpu2017-20230113-33343", 1300, 128),
    "Dell PowerEdge R7625 2x EPYC 9654": ("cpu2017-20221024-32623", 1660, 192),
    "Dell PowerEdge R7625 2x EPYC 9754": ("cpu2017-20230522-36768", 1790, 256),
    "Dell PowerEdge R7725 2x EPYC 9555": ("cpu2017-20250422-47822", 1610, 128),
    "Dell PowerEdge R6725 2x EPYC 9655": ("cpu2017-20241104-45170", 2090, 192),
}

HEADER = (
    "model,sockets,cores_per_socket,cpu_mhz,mem_gib,power_idle_w,power_max_w,"
    "price,price_date,price_currency,support_per_year\n"
)


@pytest.fixture(scope="module")
def shipped():
    return read_host_catalog()


def write(tmp_path: Path, text: str, name: str = "hosts.csv") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# -- the current hosts ---------------------------------------------------------


def test_ten_current_hosts_three_intel_three_amd_at_least(shipped):
    current = [shipped.get(m) for m in CURRENT]
    intel = [h for h in current if h.cpu_name.startswith("Intel Xeon")]
    amd = [h for h in current if h.cpu_name.startswith("AMD EPYC 9")]
    assert len(intel) == 5 and len(amd) == 5
    assert all(h.sockets == 2 for h in current)
    assert all(h.cpu_score_basis == "SPECrate2017_int_base" for h in current)
    # the default (and so every existing plan) is unchanged
    assert DEFAULT_HOST_MODEL == "Dell PowerEdge R740 2x Platinum 8180"
    assert shipped.default.model == DEFAULT_HOST_MODEL


@pytest.mark.parametrize("model", sorted(CURRENT))
def test_score_per_core_is_the_cited_result_over_its_cores(shipped, model):
    result, base, cores = CURRENT[model]
    host = shipped.get(model)
    assert host.cores == cores
    assert host.cpu_score_per_core == base / cores
    assert re.search(
        rf"https://www\.spec\.org/cpu2017/results/res20\d\dq[1-4]/{result}\.html",
        host.source,
    )
    assert f"base {base} / {cores} cores" in host.source


def test_hand_computed_scores(shipped):
    assert (
        shipped.get("Dell PowerEdge R760 2x Xeon Gold 6430").cpu_score_per_core
        == 7.953125
    )
    assert (
        shipped.get("Dell PowerEdge R7625 2x EPYC 9554").cpu_score_per_core == 10.15625
    )
    assert (
        shipped.get("Dell PowerEdge R7725 2x EPYC 9555").cpu_score_per_core == 12.578125
    )


def test_rows_match_the_derived_spec_file(shipped, shared_data):
    """Each cited result is a 2-chip system of that CPU in cint2017rate_by_system.csv
    with that base result and core count."""
    path = shared_data / "cpu_perf_spec_cpu2017" / "cint2017rate_by_system.csv"
    with path.open(encoding="utf-8") as fh:
        by_result = {
            r["result_url"].rsplit("/", 1)[-1].removesuffix(".html"): r
            for r in csv.DictReader(fh)
        }
    for model, (result, base, cores) in CURRENT.items():
        row, host = by_result[result], shipped.get(model)
        assert row["chips"] == "2", model
        assert row["cpu_model"] == host.cpu_name, model
        assert (float(row["specrate2017_int_base"]), int(row["cores_total"])) == (
            base,
            cores,
        )
        assert row["result_url"] in host.source
        assert float(row["cpu_mhz_nominal"]) == host.cpu_mhz
        assert int(row["threads_per_core"]) == host.threads_per_core == 2


def _ccf_median(shared_data: Path, pattern: str) -> tuple[int, float, float]:
    path = shared_data / "power_specpower" / "ccf_SPECpower-full-results.csv"
    with path.open(encoding="utf-8") as fh:
        rows = [
            r
            for r in csv.DictReader(fh)
            if r["Chips"] == "2"
            and r["Nodes"] == "1"
            and re.search(pattern, r["CPU Description"])
        ]
    return (
        len(rows),
        statistics.median(float(r["avg. watts @ active idle"]) for r in rows),
        statistics.median(float(r["avg. watts @ 100%"]) for r in rows),
    )


def test_power_is_the_nearest_generation_median(shipped, shared_data):
    """No SPECpower result of 2023-2025 CPUs is in the shared data: power is the
    median of the newest generation's 2-chip results, stated in the source."""
    # Ice Lake: idle 101 110 118 123 | 131 132 156 176; 100 %: 468 568 580 622 | 630 633 650 680
    assert _ccf_median(shared_data, r"Xeon (?:Platinum|Gold|Silver) [4-8]3\d\d") == (
        8,
        127.0,
        626.0,
    )
    # Milan: idle 75.6 79.3 102 104 | 104 108 109 120; 100 %: 454 455 459 459 | 460 461 468 546
    assert _ccf_median(shared_data, r"EPYC 7\d\d3\b") == (8, 104.0, 459.5)
    for model in CURRENT:
        host = shipped.get(model)
        expected = (127.0, 626.0) if "Xeon" in model else (104.0, 459.5)
        assert (host.power_idle_w, host.power_max_w) == expected, model
        assert host.power_curve_w is None
        assert (
            "power assumed: no SPECpower_ssj2008 result of this generation"
            in host.source
        )
        assert (
            "median idle and 100 % of the 8 single-node 2-chip results" in host.source
        )
        assert "configuration choice" in host.source


def test_measured_row_still_pins_its_specpower_result(shipped, shared_data):
    """Existing rows keep their published SPECpower figures (R740 8180: 52.3 / 457 W)."""
    path = shared_data / "power_specpower" / "specpower_curves_11pt.csv"
    with path.open(encoding="utf-8") as fh:
        row = next(
            r for r in csv.DictReader(fh) if r["server_model"] == "Dell PowerEdge R740"
        )
    host = shipped.get("Dell PowerEdge R740 2x Platinum 8180")
    assert (host.power_idle_w, host.power_max_w) == (52.3, 457.0)
    assert (float(row["watts_0pct"]), float(row["watts_100pct"])) == (52.3, 457.0)
    assert row["spec_result_url"] in host.source


def test_memory_and_rack_are_stated_configurations(shipped):
    assert shipped.get("Dell PowerEdge R760 2x Xeon Gold 6430").mem_gib == 1024
    assert shipped.get("Dell PowerEdge R7625 2x EPYC 9654").mem_gib == 1536
    assert shipped.get("Dell PowerEdge R7625 2x EPYC 9654").rack_u == 2
    assert shipped.get("Dell PowerEdge R6725 2x EPYC 9655").rack_u == 1
    assert (
        "1536 GiB configured (24 x 64 GiB, one DIMM per channel"
        in shipped.get("Dell PowerEdge R7625 2x EPYC 9654").source
    )


# -- prices ---------------------------------------------------------------------


def test_shipped_prices_are_empty(shipped):
    for host in shipped:
        assert host.price is None and host.support_per_year is None
        assert host.price_date is None and host.price_currency is None


def test_host_model_price_terms_default_to_none():
    host = HostModel("X", 1, 4, 1, 2000, None, 16, 50, 100)
    assert (
        host.price,
        host.price_date,
        host.price_currency,
        host.support_per_year,
    ) == (None, None, None, None)


def test_price_terms_are_read(tmp_path):
    path = write(
        tmp_path,
        HEADER
        + "Quoted,2,32,2100,1024,127,626,12000.5,2025-06-30,usd,900\n"
        + "Month only,2,32,2100,1024,127,626,8000,2025-06,,\n"
        + "No price,2,32,2100,1024,127,626,,,,\n",
    )
    cat = read_host_catalog(path)
    q = cat.get("Quoted")
    assert (q.price, q.price_date, q.price_currency, q.support_per_year) == (
        12000.5,
        "2025-06-30",
        "USD",
        900.0,
    )
    m = cat.get("Month only")
    assert (m.price, m.price_date, m.price_currency, m.support_per_year) == (
        8000.0,
        "2025-06",
        None,
        None,
    )
    assert cat.get("No price").price is None


def test_bad_price_cells_each_one_clear_line(tmp_path):
    path = write(
        tmp_path,
        HEADER
        + "A,2,32,2100,1024,127,626,-5,2025-06,USD,900\n"
        + "B,2,32,2100,1024,127,626,ten thousand,June 2025,USD,\n"
        + "C,2,32,2100,1024,127,626,10000,2025-13,dollars,-1\n"
        + "D,2,32,2100,1024,127,626,10000,2025-02-30,US$,yearly\n",
    )
    with pytest.raises(CatalogError) as info:
        read_host_catalog(path)
    assert info.value.problems == [
        "hosts.csv row 2, column 'price': expected a non-negative number, got '-5'.",
        "hosts.csv row 3, column 'price': expected a non-negative number, "
        "got 'ten thousand'.",
        "hosts.csv row 3, column 'price_date': expected a date YYYY-MM-DD or YYYY-MM "
        "(when the price was quoted), got 'June 2025'.",
        "hosts.csv row 4, column 'support_per_year': expected a non-negative number, "
        "got '-1'.",
        "hosts.csv row 4, column 'price_date': expected a date YYYY-MM-DD or YYYY-MM "
        "(when the price was quoted), got '2025-13'.",
        "hosts.csv row 4, column 'price_currency': expected a 3-letter ISO 4217 "
        "currency code (e.g. USD, EUR, JPY), got 'dollars'.",
        "hosts.csv row 5, column 'support_per_year': expected a non-negative number, "
        "got 'yearly'.",
        "hosts.csv row 5, column 'price_date': expected a date YYYY-MM-DD or YYYY-MM "
        "(when the price was quoted), got '2025-02-30'.",
        "hosts.csv row 5, column 'price_currency': expected a 3-letter ISO 4217 "
        "currency code (e.g. USD, EUR, JPY), got 'US$'.",
    ]


def test_price_columns_round_trip_through_to_frame(tmp_path):
    from vsizer.catalogs import write_catalog_csv

    path = write(
        tmp_path, HEADER + "Quoted,2,32,2100,1024,127,626,12000,2025-06,EUR,900\n"
    )
    again = write_catalog_csv(
        read_host_catalog(path).to_frame(), tmp_path / "again.csv"
    )
    host = read_host_catalog(again).get("Quoted")
    assert (
        host.price,
        host.price_date,
        host.price_currency,
        host.support_per_year,
    ) == (12000.0, "2025-06", "EUR", 900.0)


# -- the CLI ------------------------------------------------------------------


def _catalog_list(*args: str) -> str:
    result = CliRunner().invoke(app, ["catalog", "list", *args], env={"COLUMNS": "220"})
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())


def test_catalog_list_says_the_price_is_yours():
    text = _catalog_list()
    assert "Dell PowerEdge R7725 2x EPYC 9555" in text and "yours" in text
    assert (
        "price: yours (see docs/inputs.md, 'Host prices'). The shipped catalog has no "
        "prices: list prices are not published consistently and vary by configuration "
        "and discount."
    ) in text
    assert "## Host prices" in (
        Path(__file__).resolve().parents[1] / "docs" / "inputs.md"
    ).read_text(encoding="utf-8")


def test_catalog_list_shows_a_given_price(tmp_path):
    path = write(
        tmp_path, HEADER + "Quoted,2,32,2100,1024,127,626,12000,2025-06,USD,900\n"
    )
    text = _catalog_list("--hosts", str(path))
    assert "12000 USD (2025-06) + 900/yr" in text


def test_current_host_models_constant_matches_the_build_table(shipped):
    import importlib.util

    from vsizer.catalogs.host_catalog import CURRENT_HOST_MODELS

    script = Path(__file__).resolve().parents[1] / "scripts" / "current_hosts.py"
    spec = importlib.util.spec_from_file_location("current_hosts", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert tuple(row[0] for row in module.CURRENT_HOSTS) == CURRENT_HOST_MODELS
    assert set(CURRENT_HOST_MODELS) == set(CURRENT)
    assert shipped.models[-len(CURRENT_HOST_MODELS) :] == list(CURRENT_HOST_MODELS)
