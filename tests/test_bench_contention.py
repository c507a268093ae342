"""The bench report's CPU contention section: measured tiles against the fitted model."""

from __future__ import annotations

import pytest
from openpyxl import load_workbook

from tests.bench_tiles import tile_samples
from vsizer.bench.contention import contention_figure, contention_frame, fit_contention
from vsizer.bench.report import write_report
from vsizer.bench.samples import append_samples
from vsizer.models.fit import FitResult


def test_report_fit_matches_the_exported_csv_fit():
    # same k as `vsizer fit tests/data/bench/tiles_cpu_tcg_2cores.csv` (tests/test_fit.py)
    frame = contention_frame(tile_samples())
    assert len(frame) == 30 and set(frame["util_basis"]) == {"demand"}
    fit = fit_contention(frame)
    assert isinstance(fit, FitResult)
    k = fit.parameters["contention_exponent"]
    assert (round(k.value, 3), round(k.ci_low, 3), round(k.ci_high, 3)) == (1.09, 1.04, 1.141)
    assert [round(c["measured_mean"], 3) for c in fit.curve] == [0.995, 0.989, 0.643, 0.465]


def test_contention_figure_draws_measured_fair_share_and_fit():
    frame = contention_frame(tile_samples())
    fig = contention_figure(frame, fit_contention(frame))  # type: ignore[arg-type]
    names = [t.name for t in fig.data]
    assert names == ["measured mean, min-max (emulated)", "fair share min(1, 2/N)",
                     "fitted, k = 1.09 [1.04, 1.14] (emulated)"]
    measured, fair, fitted = fig.data
    assert list(measured.x) == [1, 2, 3, 4]
    assert [round(v, 3) for v in measured.y] == [0.995, 0.989, 0.643, 0.465]
    assert fair.y[-1] == pytest.approx(0.5) and fitted.y[-1] == pytest.approx(0.460, abs=1e-3)  # at D = 400 %
    assert "(emulated)" in fig.layout.title.text


def test_report_html_and_xlsx_carry_the_contention_fit(tmp_path):
    store = tmp_path / "s.jsonl"
    append_samples(store, tile_samples())
    page = write_report(store, tmp_path / "r.html").read_text(encoding="utf-8")
    assert "CPU contention: measured vs fitted (vsizer fit --model cpu)" in page
    assert "fitted, k = 1.09 [1.04, 1.14] (emulated)" in page
    assert "30 of 30 samples were measured in emulated guests (QEMU TCG)" in page
    wb = load_workbook(write_report(store, tmp_path / "r.xlsx"))
    rows = list(wb["contention_fit"].iter_rows(min_row=3, values_only=True))
    assert [r[1] for r in rows] == [1, 2, 3, 4]


def test_report_says_why_there_is_no_fit(tmp_path):
    store = tmp_path / "s.jsonl"
    append_samples(store, [s for s in tile_samples() if s.metadata["vms"] <= 1])
    page = write_report(store, tmp_path / "r.html").read_text(encoding="utf-8")
    assert ("No fit: cpu fit: need at least 3 samples within the physical CPUs "
            "(total_util_pct &lt;= 100 x physical_cpus) at 2 or more VM counts; got 3.") in page
