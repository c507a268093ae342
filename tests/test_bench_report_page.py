"""The benchmark HTML page (vsizer.reporting.bench_html): the plan report's page
shell, every string escaped, figures as JSON drawn by the page's one script."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest

from vsizer.reporting.bench_html import BenchSection, bench_html, fmt_cell

XSS = "<script>alert(1)</script>"


def _figures(page: str) -> dict:
    match = re.search(
        r'<script type="application/json" id="vsizer-figures">(.*?)</script>', page
    )
    assert match is not None
    return json.loads(match.group(1))


@pytest.fixture(scope="module")
def page() -> str:
    go = pytest.importorskip("plotly.graph_objects")
    fig = go.Figure()
    fig.add_scatter(x=[1, 2], y=[3.0, 4.5], name=f"backing {XSS}")
    frame = pd.DataFrame([{"name": XSS, "value": 2.0, "ratio": 0.123456, "n": None}])
    return bench_html(
        "vsizer benchmark report",
        [
            BenchSection("Disk: IOPS & queue depth", fig),
            BenchSection(
                "CPU contention",
                {"data": [], "layout": {}},
                chart_id="cpu-contention",
                warning=f"No fit: x <= {XSS}",
                notes=(f"note {XSS}",),
            ),
            BenchSection("VM / physical ratios", tables=(frame,)),
            BenchSection("Empty", tables=(pd.DataFrame(),)),
        ],
        banner="Guests ran under TCG & were emulated",
    )


def test_page_shell_sections_and_banner(page: str) -> None:
    assert page.startswith('<!DOCTYPE html>\n<html lang="en">')
    assert "<title>vsizer benchmark report</title>" in page
    titles = re.findall(r'<section id="[^"]+"><h2>(.*?)</h2>', page)
    assert titles == [
        "Disk: IOPS &amp; queue depth",
        "CPU contention",
        "VM / physical ratios",
        "Empty",
    ]
    assert '<p class="banner-warn">Guests ran under TCG &amp; were emulated</p>' in page
    assert page.index("banner-warn") < page.index("<section")
    assert "<p>(none)</p>" in page
    # the plotly bundle, the figures, the drawing code: no other script
    assert page.count("<script") == 3


def test_every_string_is_escaped(page: str) -> None:
    assert XSS not in page
    assert "No fit: x &lt;= &lt;script&gt;" in page
    assert '<p class="note">note &lt;script&gt;alert(1)&lt;/script&gt;</p>' in page
    assert "<td>&lt;script&gt;alert(1)&lt;/script&gt;</td>" in page


def test_figures_are_drawn_by_id(page: str) -> None:
    assert '<div class="chart" id="chart-1" style="height:450px"></div>' in page
    assert '<div class="chart" id="cpu-contention" style="height:450px"></div>' in page
    figures = _figures(page)
    assert list(figures) == ["chart-1", "cpu-contention"]
    trace = figures["chart-1"]["data"][0]
    assert trace["name"] == f"backing {XSS}"  # JSON-escaped in the page, intact here
    assert trace["y"] == [3.0, 4.5]


def test_cells_keep_the_report_number_format(page: str) -> None:
    # whole floats without a decimal point, others to 4 significant digits, NaN empty
    assert "<td>2</td><td>0.1235</td><td></td>" in page
    assert fmt_cell(None) == "" and fmt_cell(float("nan")) == ""
    assert fmt_cell(3.0) == "3" and fmt_cell(1e16) == "1e+16"
    assert fmt_cell(True) == "True" and fmt_cell("a") == "a"


def test_plotly_is_embedded_only_when_a_chart_is_drawn(page: str) -> None:
    from vsizer.reporting._plotly_bundle import bundle_for, plotly_js

    bundle = plotly_js(bundle_for(_figures(page).values()))
    assert page.count(bundle) == 1
    tables_only = bench_html(
        "vsizer benchmark report",
        [BenchSection("VM / physical ratios", tables=(pd.DataFrame([{"ratio": 0.9}]),))],
    )
    assert bundle not in tables_only
    assert len(tables_only) < 20_000
    assert _figures(tables_only) == {}
