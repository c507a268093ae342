"""Tests of the HTML plan report (vsizer.reporting.html).

Plans: tests/data/plan_small.json (schema "1", with XSS and formula probes in
server, pool and group names, a note and a warning) and its schema "2"
version with synthetic curves (tests/report_plans.py: CPU ramps from half to
all of the host's planned utilization over 12 hourly steps).
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.report_plans import STEPS, ramp, small_plan, with_series
from vsizer.errors import ConfigError, InputError
from vsizer.reporting._html_page import chart_text, esc, script_json
from vsizer.reporting._plan_view import failover_scenarios, series_times
from vsizer.reporting.html import (
    OPTIONAL_SECTION_KEYS,
    SECTION_KEYS,
    plan_html,
    write_plan_html,
)
from vsizer.reporting.labels import LANGS, label

SCRIPT = "<script>alert(1)</script>"
FORMULA = '=HYPERLINK("http://x","y")'


def figures(text: str) -> dict[str, Any]:
    """The figure dicts embedded in a report."""
    m = re.search(
        r'<script type="application/json" id="vsizer-figures">(.*?)</script>',
        text,
        re.S,
    )
    assert m is not None
    return json.loads(m.group(1))


def body(text: str) -> str:
    """The report without the embedded plotly.js library."""
    start = text.index("<script>")
    end = text.index("</script>", start)
    return text[:start] + text[end:]


@pytest.fixture(scope="module")
def plan1() -> dict[str, Any]:
    return small_plan()


@pytest.fixture(scope="module")
def plan2() -> dict[str, Any]:
    return with_series(small_plan())


@pytest.fixture(scope="module")
def html1(plan1: dict[str, Any]) -> str:
    return plan_html(plan1)


@pytest.fixture(scope="module")
def html2(plan2: dict[str, Any]) -> str:
    return plan_html(plan2, lang="ja")


def test_every_section_is_present_in_order(html1: str, html2: str) -> None:
    for text in (html1, html2):
        found = re.findall(r'<section id="([a-z]+)">', text)
        # optional sections (storage) appear only when the plan has them
        assert tuple(found) == tuple(
            k for k in SECTION_KEYS if k not in OPTIONAL_SECTION_KEYS or k in found
        )
        assert set(SECTION_KEYS) - set(found) <= set(OPTIONAL_SECTION_KEYS)


def test_language_sets_titles_and_html_lang(html1: str, html2: str) -> None:
    assert '<html lang="en">' in html1
    assert '<html lang="ja">' in html2
    assert f"<h2>{label('section_failover', 'ja')}</h2>" in html2
    assert f"<h2>{label('section_failover', 'en')}</h2>" in html1


def test_report_is_self_contained(html1: str) -> None:
    # plotly.js is embedded (the smallest partial bundle that draws the charts:
    # basic for a plan without curves); no external script, stylesheet or font
    assert "* plotly.js (basic - minified) v4.1.1" in html1.split("</main>", 1)[1]
    assert "<script" not in html1.split("</main>", 1)[0]  # content first: paints at once
    assert len(html1) < 1_500_000
    rest = body(html1)
    assert "<script src" not in rest
    assert "<link" not in rest
    assert "@import" not in rest
    assert len(re.findall(r"<script", html1)) == 3


def test_xss_probe_is_text_everywhere(html1: str, html2: str) -> None:
    for text in (html1, html2):
        rest = body(text)
        assert SCRIPT not in rest
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in rest
        # inside the figure JSON the probe is escaped twice: entities for
        # plotly.js, \\u003c for the <script> element
        m = re.search(r'id="vsizer-figures">(.*?)</script>', text, re.S)
        assert m is not None and "<" not in m.group(1)
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in json.dumps(
            figures(text), ensure_ascii=False
        )


def test_formula_probe_is_plain_text(html1: str) -> None:
    assert esc(FORMULA) in body(html1)  # quotes escaped, shown as typed
    assert "=HYPERLINK" in body(html1)


def test_escape_helpers() -> None:
    assert esc(SCRIPT) == "&lt;script&gt;alert(1)&lt;/script&gt;"
    assert esc("\"a\" & 'b'") == "&quot;a&quot; &amp; &#x27;b&#x27;"
    assert esc(None) == ""
    # plotly.js decodes &lt; &gt; &amp; but not &quot;: quotes stay as typed
    assert chart_text(FORMULA) == FORMULA
    assert chart_text("a<b>&") == "a&lt;b&gt;&amp;"
    assert script_json({"x": "</script><!--", "y": float("nan")}) == (
        '{"x":"\\u003c/script\\u003e\\u003c!--","y":null}'
    )
    assert script_json("\u2028") == '"\\u2028"'


def test_same_plan_gives_same_bytes(plan1: dict[str, Any], tmp_path: Any) -> None:
    a, b = tmp_path / "a.html", tmp_path / "b.html"
    write_plan_html(plan1, a)
    write_plan_html(plan1, b)
    assert a.read_bytes() == b.read_bytes()


def test_summary_cards_hold_plan_figures(plan1: dict[str, Any], html1: str) -> None:
    s = plan1["summary"]
    assert f"{s['servers']} → {s['hosts']}" == "10 → 5"
    assert '<div class="v">10 → 5</div>' in html1
    racks = plan1["space"]
    assert (
        f'<div class="v">{racks["racks_before"]} → {racks["racks_after"]}</div>'
        in html1
    )
    p = plan1["power"]
    assert f"{p['before_w']:,.0f} → {p['after_w']:,.0f}" in html1


def test_schema_1_shows_the_no_series_note(html1: str) -> None:
    note = label("no_series", "en")
    assert html1.count(note) == 2  # heatmap and demand curves
    kinds = [f["data"][0]["type"] for f in figures(html1).values()]
    assert "heatmap" not in kinds


def test_heatmap_holds_the_host_curves(plan2: dict[str, Any], html2: str) -> None:
    figs = list(figures(html2).values())
    heat = [f for f in figs if f["data"][0]["type"] == "heatmap"]
    assert len(heat) == 2  # CPU and memory
    cpu = heat[0]["data"][0]
    first = plan2["pools"][0]["hosts"][0]
    assert cpu["y"][0] == "prod-h01"
    assert cpu["z"][0] == [ramp(first["util"]["cpu"], i) for i in range(STEPS)]
    assert cpu["x"][0] == "2024-04-01 00:00" and cpu["x"][-1] == "2024-04-01 23:00"
    # the @SUM(1) pool's host ids are labels, not formulas
    assert "@SUM(1)-h01" in cpu["y"]


def test_stacked_curves_have_one_dropdown_entry_per_host(html2: str) -> None:
    figs = list(figures(html2).values())
    stack = next(f for f in figs if f["data"][0].get("stackgroup"))
    buttons = stack["layout"]["updatemenus"][0]["buttons"]
    assert [b["label"] for b in buttons][:2] == ["prod-h01", "prod-h02"]
    assert len(buttons) == 5
    # ceiling 80 % (plan_small parameters.ceiling) and 100 % lines
    assert sorted(s["y0"] for s in stack["layout"]["shapes"]) == [0.8, 1.0]
    assert label("section_replay", "ja") in html2


def test_placement_chart_stacks_vm_shares(plan1: dict[str, Any], html1: str) -> None:
    fig = next(
        f for f in figures(html1).values() if f["layout"].get("barmode") == "stack"
    )
    cap = plan1["host_model"]["capacity"]["cpu"]
    db01 = next(s for s in plan1["servers"] if s["name"] == "db01")
    top = fig["data"][0]  # largest VM of each host, CPU panel
    i = top["x"].index("prod-h01")
    assert top["text"][i] == "db01"
    assert top["y"][i] == pytest.approx(db01["cpu_peak_demand"] / cap)


def test_failover_rows_are_the_same_in_both_schemas(
    plan1: dict[str, Any], plan2: dict[str, Any]
) -> None:
    rows1 = failover_scenarios(plan1["pools"][1])
    rows2 = failover_scenarios(plan2["pools"][1])
    assert [r["failed"] for r in rows1] == [r["failed"] for r in rows2]
    assert [r["unplaced"] for r in rows1] == [["test01"], ["ci01"]]
    assert [r["unplaced"] for r in rows2] == [["test01"], ["ci01"]]
    assert rows1[0]["moves"] == [{"vm": "dev01", "to": "@SUM(1)-h02"}]
    assert rows2[0]["worst_step"] == "2024-04-01T11:00:00Z"


def test_failover_section_lists_moves_and_marks_unplaced(html1: str) -> None:
    assert "dev01 → @SUM(1)-h02" in html1
    assert "<tr class=bad><td>@SUM(1)</td><td>@SUM(1)-h01</td>" in html1


def test_series_times_fall_back_to_step_numbers() -> None:
    assert series_times({"series": None}, 3) == ["0", "1", "2"]
    plan = {
        "series": {"start": "2024-01-01T00:00:00Z", "step_seconds": 300, "stride": 2}
    }
    assert series_times(plan, 3) == [
        "2024-01-01 00:00",
        "2024-01-01 00:10",
        "2024-01-01 00:20",
    ]


def test_predictions_are_rendered_when_present(plan1: dict[str, Any]) -> None:
    doc = {
        **plan1,
        "predictions": {
            "vms": [
                {"name": SCRIPT, "host": "prod-h03", "relative_cpu": 0.93, "risks": []},
                {
                    "name": "db01",
                    "host": "prod-h01",
                    "relative_cpu": 0.81,
                    "risks": ["cpu-saturated"],
                },
            ],
            "hosts": [{"id": "prod-h01", "relative_cpu": 0.81}],
            "warnings": [
                {
                    "scope": "vm",
                    "name": "db01",
                    "model": "cpu.x",
                    "reason": "near 100 %",
                }
            ],
        },
    }
    text = plan_html(doc)
    assert label("no_predictions", "en") not in text
    bars = next(
        f for f in figures(text).values() if f["data"][0].get("orientation") == "h"
    )
    assert bars["data"][0]["x"] == [0.93, 0.81]
    assert bars["data"][0]["y"][0] == "&lt;script&gt;alert(1)&lt;/script&gt;"
    assert "vm db01 [cpu.x]: near 100 %" in text
    assert SCRIPT not in body(text)


def test_no_predictions_note(html1: str) -> None:
    assert label("no_predictions", "en") in html1


@pytest.mark.parametrize("lang", LANGS)
def test_write_plan_html_writes_utf8(
    plan1: dict[str, Any], tmp_path: Any, lang: str
) -> None:
    path = tmp_path / "r.html"
    write_plan_html(plan1, path, lang=lang)
    assert path.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_bad_language_is_refused(plan1: dict[str, Any]) -> None:
    with pytest.raises(
        ConfigError,
        match="The 'lang' parameter of write_plan_html must be one of 'en', 'ja'. "
        "Got 'fr' instead.",
    ):
        plan_html(plan1, lang="fr")


def test_bad_plans_are_refused_with_every_problem(plan1: dict[str, Any]) -> None:
    with pytest.raises(InputError, match="expected a dict .* got list"):
        plan_html([])  # type: ignore[arg-type]
    broken = {k: v for k, v in plan1.items() if k not in ("pools", "power")}
    broken["schema_version"] = "9"
    with pytest.raises(InputError) as info:
        plan_html(broken)
    assert str(info.value).splitlines() == [
        "plan: missing key 'pools' (see docs/plan-schema.md).",
        "plan: missing key 'power' (see docs/plan-schema.md).",
        "plan: key 'schema_version': expected '1' or '2', got '9'.",
    ]


def test_series_plan_scales_cpu_segments_to_host_util(
    plan2: dict[str, Any], html2: str
) -> None:
    fig = next(
        f for f in figures(html2).values() if f["layout"].get("barmode") == "stack"
    )
    cpu = [t for t in fig["data"] if t["yaxis"] == "y"]
    host = plan2["pools"][0]["hosts"][0]
    i = cpu[0]["x"].index(host["id"])
    total = sum(t["y"][i] for t in cpu if t["y"][i] is not None)
    assert total == pytest.approx(host["util"]["cpu"], abs=1e-5)
    assert label("placement_note_series", "ja") in html2


def test_series_only_plan_without_power_before_renders(plan2: dict[str, Any]) -> None:
    # a plan from series alone knows no source-server power or price
    doc = {**plan2, "power": dict(plan2["power"])}
    for key in (
        "before_w",
        "annual_kwh_before",
        "annual_cost_before",
        "annual_cost_after",
        "annual_saving",
        "saving_over_years",
    ):
        doc["power"][key] = None
    text = plan_html(doc)
    assert f'<div class="v">— → {doc["power"]["after_w"]:,.0f}</div>' in text
    power = next(iter(figures(text).values()))
    assert power["data"][0]["y"][0] is None and len(power["data"]) == 1
