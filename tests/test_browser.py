"""The HTML report in a real browser: Debian's chromium, headless, driven by
Playwright (``executable_path=/usr/bin/chromium``; Playwright's own browser
download is never used).

Pages: the demo plan (bundled sample inventory and scenario) with two servers
renamed to an XSS probe ``<script>alert(1)</script>`` and a formula probe
``=cmd|' /C calc'!A0``, and the schema "2" test plan with curves
(tests/report_plans.py) so that the heatmaps and stacked curves are drawn too.
For each page: no console error or page error, no dialog (the probe did not
run), every chart drew a non-empty SVG, the probes are shown as text. A
screenshot goes to tests/output/ (and to docs/img/report.png for the README
when VSIZER_README_SCREENSHOT=1).

Chromium: taken from /usr/bin/chromium; when absent and the run is CI as
root, ``apt-get install -y chromium`` is tried once; otherwise the tests skip
with the reason.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.report_plans import small_plan, with_series
from vsizer.reporting.html import OPTIONAL_SECTION_KEYS, SECTION_KEYS, write_plan_html
from vsizer.study import plan as run_plan
from vsizer.study.config import load_rules

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "vsizer" / "data" / "samples"
OUTPUT = Path(__file__).parent / "output"
XSS = "<script>alert(1)</script>"
FORMULA = "=cmd|' /C calc'!A0"
CHROMIUM = Path("/usr/bin/chromium")


def _install_chromium() -> str | None:
    """Try ``apt-get install chromium`` in CI as root; the reason it failed."""
    if os.environ.get("CI") != "true":
        return "chromium is not installed (apt-get install -y chromium)"
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        return "chromium is not installed and apt-get cannot run here"
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for cmd in (
        ["apt-get", "update", "-qq"],
        ["apt-get", "install", "-y", "-qq", "chromium"],
    ):
        done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
        if done.returncode != 0:
            return f"{' '.join(cmd)} failed: {done.stderr.strip()[-300:]}"
    return None if CHROMIUM.exists() else "apt-get installed no /usr/bin/chromium"


@pytest.fixture(scope="session")
def browser() -> Any:
    sync_api = pytest.importorskip(
        "playwright.sync_api",
        reason="Playwright is not installed (pip install playwright)",
    )
    if not CHROMIUM.exists():
        reason = _install_chromium()
        if reason:
            pytest.skip(reason)
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(
            executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"]
        )
        yield b
        b.close()


def _probed_inventory(tmp: Path) -> Path:
    """The bundled sample with two servers renamed to the probes."""
    text = (SAMPLES / "inventory_ja.csv").read_text(encoding="utf-8-sig")
    assert text.count("kanshi01") == 1 and text.count("print01") == 1
    text = text.replace("kanshi01", XSS).replace("print01", FORMULA)
    path = tmp / "inventory_probe.csv"
    path.write_text(text, encoding="utf-8-sig")
    return path


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("browser")
    rules = load_rules(SAMPLES / "scenario.toml")
    doc = run_plan(_probed_inventory(tmp), rules=rules).to_dict()
    assert XSS in [s["name"] for s in doc["servers"]]
    demo, series = tmp / "report.html", tmp / "report_series.html"
    write_plan_html(doc, demo, lang="en")
    write_plan_html(with_series(small_plan()), series, lang="ja")
    return {"demo": demo, "series": series}


def _open(browser: Any, path: Path) -> tuple[Any, list[str], list[str]]:
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    errors: list[str] = []
    dialogs: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))

    def on_dialog(d: Any) -> None:
        dialogs.append(d.message)
        d.dismiss()

    page.on("dialog", on_dialog)
    page.goto(path.as_uri())
    page.wait_for_function(
        "Array.from(document.querySelectorAll('.chart'))"
        ".every(d => d.querySelector('svg.main-svg'))",
        timeout=30_000,
    )
    return page, errors, dialogs


_CHART_STATE = """
Array.from(document.querySelectorAll('.chart')).map(d => ({
  id: d.id,
  svgs: d.querySelectorAll('svg.main-svg').length,
  marks: d.querySelectorAll('g.trace, g.point, image, path.js-line').length,
  width: d.getBoundingClientRect().width,
  height: d.getBoundingClientRect().height,
}))
"""


@pytest.mark.parametrize("name", ["demo", "series"])
def test_report_renders_without_errors(
    browser: Any, pages: dict[str, Path], name: str
) -> None:
    page, errors, dialogs = _open(browser, pages[name])
    try:
        assert errors == []
        assert dialogs == []
        sections = page.evaluate(
            "Array.from(document.querySelectorAll('section')).map(s => s.id)"
        )
        # the fixed sections in order, storage only when the plan has one (the
        # demo: disk capacity); the sections a plan has (design advice, growth,
        # choice, ...) between them
        assert tuple(s for s in sections if s in SECTION_KEYS) == tuple(
            k for k in SECTION_KEYS if k not in OPTIONAL_SECTION_KEYS or name == "demo"
        )
        # every section of the page's HTML is rendered, in its order
        html = pages[name].read_text(encoding="utf-8")
        assert tuple(sections) == tuple(re.findall(r'<section id="([^"]+)"', html))
        assert name != "demo" or "design_advice" in sections  # storage, hardware advice
        charts = page.evaluate(_CHART_STATE)
        # power, placement, failover; with curves also 2 heatmaps and the stack
        expected = 3 if name == "demo" else 6
        assert len(charts) >= expected
        for chart in charts:
            assert chart["svgs"] > 0, chart
            assert chart["marks"] > 0, chart
            assert chart["width"] > 100 and chart["height"] > 100, chart
        OUTPUT.mkdir(exist_ok=True)
        page.screenshot(path=str(OUTPUT / f"report_{name}.png"), full_page=True)
        assert (OUTPUT / f"report_{name}.png").stat().st_size > 10_000
    finally:
        page.close()


def test_probes_stay_text(browser: Any, pages: dict[str, Path]) -> None:
    page, errors, dialogs = _open(browser, pages["demo"])
    try:
        assert dialogs == [] and errors == []
        text = page.inner_text("#placement")
        assert XSS in text
        assert FORMULA in text
        # only the report's own three <script> elements exist
        assert page.evaluate("document.scripts.length") == 3
        # the probe is drawn as a chart label too, as text
        labels = page.evaluate(
            "Array.from(document.querySelectorAll('#placement .chart text'))"
            ".map(t => t.textContent)"
        )
        assert XSS in labels
        if os.environ.get("VSIZER_README_SCREENSHOT") == "1":
            target = REPO / "docs" / "img" / "report.png"
            target.parent.mkdir(parents=True, exist_ok=True)
            page.set_viewport_size({"width": 1280, "height": 1500})
            page.screenshot(path=str(target))
    finally:
        page.close()


def test_bench_report_contention_chart(browser: Any, tmp_path: Path) -> None:
    # the measured TCG tiles (tests/data/bench) through `vsizer bench report`
    from tests.bench_tiles import tile_samples
    from vsizer.bench.report import write_report
    from vsizer.bench.samples import append_samples

    store = tmp_path / "s.jsonl"
    append_samples(store, tile_samples())
    report = write_report(store, tmp_path / "bench.html")
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(report.as_uri())
        page.wait_for_function(
            "Array.from(document.querySelectorAll('.chart'))"
            ".every(d => d.querySelector('svg.main-svg'))", timeout=30_000)
        assert page.locator(".chart").count() >= 1
        assert errors == []
        chart = page.locator("#cpu-contention")
        legend = page.evaluate("Array.from(document.querySelectorAll("
                               "'#cpu-contention g.legend text.legendtext')).map(t => t.textContent)")
        assert legend == ["measured mean, min-max (emulated)", "fair share min(1, 2/N)",
                          "fitted, k = 1.09 [1.04, 1.14] (emulated)"]
        assert chart.locator("g.trace").count() == 3
        OUTPUT.mkdir(exist_ok=True)
        chart.screenshot(path=str(OUTPUT / "bench_contention.png"))
        assert (OUTPUT / "bench_contention.png").stat().st_size > 10_000
        if os.environ.get("VSIZER_README_SCREENSHOT") == "1":
            chart.screenshot(path=str(REPO / "docs" / "img" / "bench-contention.png"))
    finally:
        page.close()


#: The management summary's parts that must be on the first screen (issue 27).
_FIRST_SCREEN = """
(() => {
  const m = document.getElementById('management');
  const parts = {decision: m.querySelector('.decision'), before_after: m.querySelector('table.ba'),
                 savings: m.querySelector('.saving'), risks: m.querySelector('ul')};
  return Object.fromEntries(Object.entries(parts).map(([k, e]) => [k, e ? {
    bottom: e.getBoundingClientRect().bottom, text: e.innerText} : null]));
})()
"""


def test_demo_report_is_small_and_opens_on_the_management_summary(
    browser: Any, pages: dict[str, Path]
) -> None:
    import time

    size = pages["demo"].stat().st_size
    assert size < 1_500_000, size  # the full plotly.js made it 4.9 MB
    page = browser.new_page(viewport={"width": 1366, "height": 768})
    try:
        start = time.perf_counter()
        page.goto(pages["demo"].as_uri())
        page.wait_for_function(
            "Array.from(document.querySelectorAll('.chart'))"
            ".every(d => d.querySelector('svg.main-svg'))", timeout=30_000)
        seconds = time.perf_counter() - start
        print(f"demo report: {size:,} bytes, charts drawn in {seconds:.2f} s")
        assert seconds < 15  # ~1 s on an idle machine; 2 shared cores in CI
        parts = page.evaluate(_FIRST_SCREEN)
        for name, part in parts.items():
            assert part is not None, name
            assert part["bottom"] <= 768, (name, part["bottom"])
        assert parts["decision"]["text"].startswith("Decision: Proceed: ")
        assert "replace 37 servers (2 pools)" in parts["decision"]["text"]
        # 37 servers -> 9 hosts: (9 - 37) / 37 = -75.7 %
        assert "Machines (servers → hosts)\t37\t9\t-76 %" in parts["before_after"]["text"]
        assert "over 5 years" in parts["savings"]["text"]
        assert "warnings, top 3:" in parts["risks"]["text"]
        OUTPUT.mkdir(exist_ok=True)
        page.screenshot(path=str(OUTPUT / "report_first_screen.png"))
        if os.environ.get("VSIZER_README_SCREENSHOT") == "1":
            page.screenshot(path=str(REPO / "docs" / "img" / "report-summary.png"))
    finally:
        page.close()
