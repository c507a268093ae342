"""Design advice of a plan (issue 28): the storage choice per pool and hardware
advice checked against the chosen host model, in JSON and the three reports."""

from __future__ import annotations

from pathlib import Path

from openpyxl import load_workbook
from typer.testing import CliRunner

import vsizer
from vsizer.catalogs.host_catalog import read_host_catalog
from vsizer.cli import app
from vsizer.reporting.html import plan_html
from vsizer.study.design_advice import hardware_advice, storage_choice_doc

runner = CliRunner()


def _blades():
    cat = read_host_catalog()
    return cat.get("Blade 2x Xeon L5520"), cat.get("Blade 2x Xeon E5405")


def test_low_power_first_reproduces_the_published_blade_pair() -> None:
    # E5405 blade 224 W max / 162 W idle; the L5520 blade, same sockets and cores,
    # 4 x 2266 MHz >= 4 x 2000 MHz, at 135 W / 79 W: consider the L5520.
    l5520, e5405 = _blades()
    adv = {a["code"]: a for a in hardware_advice(e5405, 4, [l5520, e5405])}
    lp = adv["low_power_first"]
    assert lp["status"] == "consider"
    assert lp["message"] == (
        "Blade 2x Xeon E5405: 224 W max / 162 W idle; consider Blade 2x Xeon L5520: "
        "135 W max / 79 W idle at no less CPU capacity (cores x MHz)")
    assert "135 W max / 79 W min" in lp["source"]
    # 4 hosts of a blade model: the blade rule holds; equal cores: cores rule holds
    assert adv["blades"]["status"] == "holds"
    assert adv["cores_over_clock"]["status"] == "holds"
    # the L5520 itself: nothing lower in power
    assert {a["code"]: a["status"] for a in hardware_advice(l5520, 2, [l5520, e5405])} == {
        "blades": "holds", "cores_over_clock": "holds", "low_power_first": "holds"}


def test_blade_rule_counts_four_hosts() -> None:
    import dataclasses

    _, e5405 = _blades()
    rack = dataclasses.replace(e5405, model="Rack 2x Xeon E5405")
    assert hardware_advice(rack, 3, [])[0]["status"] == "holds"
    four = hardware_advice(rack, 4, [])[0]
    assert four["status"] == "consider"
    assert four["message"].startswith("4 hosts, 4 or more: consider blades")


def test_cores_over_clock_names_the_model_with_more_cores_at_a_lower_clock() -> None:
    import dataclasses

    l5520, _ = _blades()
    six = dataclasses.replace(l5520, model="Six", cores_per_socket=6, cpu_mhz=2000.0)
    (c,) = [a for a in hardware_advice(l5520, 1, [l5520, six]) if a["code"] ==
            "cores_over_clock"]
    assert c["status"] == "consider"
    assert c["message"].endswith("consider Six: 6 cores per socket at 2000 MHz, 135 W max")


def test_storage_choice_per_pool() -> None:
    d = storage_choice_doc([("prod", 3), ("one", 1)])
    assert [(p["pool"], p["order"]) for p in d["pools"]] == [
        ("prod", ["FC SAN", "NAS", "iSCSI"]), ("one", ["FC SAN", "NAS", "iSCSI", "DAS"])]
    assert d["pools"][0]["excluded"][0]["type"] == "DAS"
    assert d["not_ranked"] == ["cost", "scale"]
    assert d["source"].startswith("published storage comparison")


def test_plan_json_terminal_excel_html(tmp_path: Path) -> None:
    inv = tmp_path / "inv.csv"
    inv.write_text(
        "name,sockets,cores_per_socket,cpu_mhz,cpu_avg_pct,cpu_peak_pct,mem_gib,power_w,pool\n"
        "a,2,4,2400,10,20,16,300,=1+1<b>\n", encoding="utf-8")
    doc = vsizer.plan(inv).to_dict()
    assert [a["code"] for a in doc["hardware_advice"]] == [
        "blades", "cores_over_clock", "low_power_first"]
    assert doc["storage_choice"]["pools"][0]["pool"] == "=1+1<b>"
    html = plan_html(doc)
    assert "=1+1&lt;b&gt; (" in html and "=1+1<b>" not in html
    res = runner.invoke(app, ["plan", str(inv), "--detail", "-o", str(tmp_path / "p.xlsx")],
                        env={"COLUMNS": "250"})
    assert res.exit_code == 0, res.output
    assert "Design advice (4)" in res.output
    assert "Storage choice [FC SAN]: =1+1<b> (" in res.output
    ws = load_workbook(tmp_path / "p.xlsx").worksheets[0]
    rows = [r for r in ws.iter_rows(values_only=True) if r[0] == "Storage choice"]
    assert rows and rows[0][1] == "FC SAN" and rows[0][2].startswith("'=1+1<b> (")
