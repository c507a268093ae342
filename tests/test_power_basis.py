"""Where a host's watts come from (``power_basis``), and the counted plan warning
of a host whose power is an estimate (the shipped 2023-2025 rows: no
SPECpower_ssj2008 result of their generation is in the shipped data)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

import vsizer
from vsizer.catalogs import DEFAULT_HOST_MODEL, read_host_catalog
from vsizer.cli import app
from vsizer.errors import CatalogError
from vsizer.study.plan_warnings import host_power_note

SAMPLE = Path(vsizer.__file__).parent / "data" / "samples" / "inventory_ja.xlsx"
R6725 = "Dell PowerEdge R6725 2x EPYC 9655"


@pytest.fixture(scope="module")
def shipped():
    return read_host_catalog()


def test_shipped_rows_say_where_their_watts_come_from(shipped):
    bases = {h.model: h.power_basis for h in shipped.hosts}
    assert bases[DEFAULT_HOST_MODEL] == "measured"  # SPECpower result, R740 8180
    assert bases["Blade 2x Xeon L5520"] == "published"
    assert bases["Example host 2x Xeon E5520"] == "estimated"
    assert bases[R6725] == "estimated"
    # Every row whose source cites its own SPECpower result is measured; every
    # row whose source says the power is assumed is an estimate.
    for h in shipped.hosts:
        if "power assumed" in h.source:
            assert h.power_basis == "estimated", h.model
        if h.source.startswith("power: "):
            assert h.power_basis == "measured", h.model
    assert sorted(set(bases.values())) == ["estimated", "measured", "published"]


def test_note_names_the_host_its_watts_and_the_flag(shipped):
    note = host_power_note(shipped.get(R6725))
    assert note == (
        "Host power of 'Dell PowerEdge R6725 2x EPYC 9655' is estimated, not "
        "measured: idle 104 W, full load 459.5 W (power assumed: no "
        "SPECpower_ssj2008 result of this generation in the shipped data (ccf file "
        "ends Jul 2021)). The plan's watts, energy, cost and power target rest on "
        "it; put the model's measured figures (e.g. its SPECpower_ssj2008 result) in "
        "a host catalog with power_basis 'measured' and pass it with --hosts."
    )
    assert host_power_note(shipped.get(DEFAULT_HOST_MODEL)) is None
    assert host_power_note(shipped.get("Blade 2x Xeon L5520")) is None


def _kinds(plan):
    return [w.code for w in plan.warnings]


def test_plan_on_an_estimated_host_counts_the_warning():
    est = vsizer.plan(SAMPLE, host_model=R6725)
    assert _kinds(est).count("host_power_estimated") == 1
    doc = est.to_dict()
    assert doc["host_model"]["power_basis"] == "estimated"
    measured = vsizer.plan(SAMPLE, host_model=DEFAULT_HOST_MODEL)
    assert "host_power_estimated" not in _kinds(measured)
    assert measured.to_dict()["host_model"]["power_basis"] == "measured"
    # The warning is one more counted warning, nothing else moves.
    assert len(est.warnings) == len(measured.warnings) + 1


def test_own_catalog_without_the_column_is_given(tmp_path):
    path = tmp_path / "hosts.csv"
    path.write_text(
        "model,sockets,cores_per_socket,cpu_mhz,mem_gib,power_idle_w,power_max_w\n"
        "Mine,2,16,2600,512,90,500\n",
        encoding="utf-8",
    )
    host = read_host_catalog(path).get("Mine")
    assert host.power_basis == "given"
    assert host_power_note(host) is None


def test_own_catalog_power_basis_is_checked_with_row_and_column(tmp_path):
    path = tmp_path / "hosts.csv"
    path.write_text(
        "model,sockets,cores_per_socket,cpu_mhz,mem_gib,power_idle_w,power_max_w,"
        "power_basis\n"
        "A,2,16,2600,512,90,500,Measured\n"
        "B,2,16,2600,512,90,500,guess\n"
        "C,2,16,2600,512,90,500,\n"
        "D,2,16,2600,512,90,500,given\n",
        encoding="utf-8",
    )
    with pytest.raises(CatalogError) as err:
        read_host_catalog(path)
    assert str(err.value) == (
        "hosts.csv row 3, column 'power_basis': expected one of measured, published, "
        "estimated, given (or empty), got 'guess'."
    )
    path.write_text(
        path.read_text(encoding="utf-8").replace("guess", "estimated"), encoding="utf-8"
    )
    cat = read_host_catalog(path)
    assert [cat.get(m).power_basis for m in "ABCD"] == [
        "measured", "estimated", "given", "given"
    ]


def test_cli_shows_the_warning_in_the_terminal(tmp_path):
    out = tmp_path / "plan.json"
    res = CliRunner().invoke(
        app, ["plan", str(SAMPLE), "--host-model", R6725, "--detail", "-o", str(out)]
    )
    assert res.exit_code == 0, res.output
    assert "host_power_estimated" in res.output
