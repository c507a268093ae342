"""Benchmark report: HTML (plotly charts, embedded) or Excel, from the sample store.

The HTML page is laid out by :mod:`vsizer.reporting.bench_html` (the plan
report's page shell) from the sections built here. Charts, the classic ones of the consolidation studies (DESIGN §6, §8):
throughput vs queue depth per access specification (disk), vs block size
(network), per-VM relative performance and tile score vs VM count (tiles), the
tiles' CPU contention against the fitted CPU model (:mod:`vsizer.bench.contention`), and
VM / physical ratios with error bars (min-max of the measured runs). Every chart
and table row from a TCG guest says "emulated": those ratios measure software
emulation, never virtualization overhead. All user strings are HTML-escaped;
spreadsheet cells go through :func:`vsizer.reporting.safe.set_safe_value`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from vsizer._atomic import atomic_write
from vsizer.bench.contention import contention_figure, contention_frame, fit_contention
from vsizer.bench.samples import Sample, read_samples
from vsizer.errors import InputError
from vsizer.models.fit import FitResult
from vsizer.reporting.bench_html import BenchSection, fmt_cell, write_bench_html

__all__ = ["summary_frame", "ratio_frame", "write_report"]

EMULATED_NOTE = (
    "Guests ran under TCG (software emulation, no hardware virtualization): VM figures "
    "and VM / physical ratios are labelled 'emulated' and measure emulation, not "
    "virtualization overhead."
)
_CASE = ["threads", "backing", "write_cache", "access_spec", "queue_depth", "link", "block_size",
         "direction", "mode", "tiles", "tile", "slot", "tile_kind"]
#: The case key that exists only in VMs (network ``link``: host-guest, guest-guest):
#: each of its values is compared with the same physical case.
_VM_ONLY = "link"
_HEADLINE = {"cpu": "events_per_s_host", "disk": "iops", "network": "received_mbit_s",
             "database": "tps_host", "web": "throughput_rps", "tiles": "events_per_s_host"}


def summary_frame(samples: list[Sample]) -> pd.DataFrame:
    """One row per aggregate sample: run, workload, environment, case, metric, value, CV."""
    rows = []
    for s in samples:
        m = s.metadata
        if m.get("aggregate") not in ("trimmed_mean", "steady_window"):
            continue
        env = str(m.get("environment", ""))
        rows.append({
            "run_id": m.get("run_id", ""), "workload": m.get("workload", ""),
            "environment": env + (" (emulated)" if m.get("emulated") else ""),
            "env": env, "accelerator": m.get("accelerator", ""),
            "emulated": bool(m.get("emulated")),
            **{k: m.get(k) for k in _CASE},
            "metric": s.metric, "value": s.value, "unit": s.unit,
            "min": m.get("min"), "max": m.get("max"), "cv": m.get("cv"),
            "n_runs": m.get("n_runs"), "foreign_load_exceeded": m.get("foreign_load_exceeded"),
        })
    return pd.DataFrame(rows)


def ratio_frame(summary: pd.DataFrame) -> pd.DataFrame:
    """VM / physical ratio of each headline metric, per case, latest run of each side.

    ``low``/``high`` are the ratio's bounds from the runs' min and max (error bars).
    A VM-only key (network ``link``) gives one row per value, each against the same
    physical case (physical network runs have no ``link``).
    """
    if summary.empty:
        return summary
    head = summary[[m == _HEADLINE.get(w) for w, m in zip(summary["workload"], summary["metric"], strict=True)]]
    present = [k for k in _CASE if k in head and head[k].notna().any()]
    keys = ["workload", "metric"] + [k for k in present if k != _VM_ONLY]
    split = _VM_ONLY in present
    out = []
    for key, grp in head.groupby(keys, dropna=False, sort=True):
        phys = grp[grp["env"] == "physical"].tail(1)
        vms = grp[grp["env"] == "vm"]
        if phys.empty or vms.empty or not phys["value"].iloc[0]:
            continue
        p = phys.iloc[0]
        parts = vms.groupby(_VM_ONLY, dropna=False, sort=True) if split else [(None, vms)]
        for link, vm in parts:
            v = vm.iloc[-1]
            out.append({
                **dict(zip(keys, key if isinstance(key, tuple) else (key,), strict=True)),
                **({_VM_ONLY: link if isinstance(link, str) else None} if split else {}),
                "physical": p["value"], "vm": v["value"], "ratio": v["value"] / p["value"],
                "low": (v["min"] or v["value"]) / (p["max"] or p["value"]),
                "high": (v["max"] or v["value"]) / (p["min"] or p["value"]),
                "emulated": bool(v["emulated"]),
            })
    return pd.DataFrame(out)


def _label(row: pd.Series, keys: list[str]) -> str:
    return " ".join(f"{k}={fmt_cell(row[k])}" for k in keys if k in row and pd.notna(row[k]))


def _charts(summary: pd.DataFrame, ratios: pd.DataFrame) -> list[tuple[str, Any]]:
    import plotly.graph_objects as go

    charts: list[tuple[str, Any]] = []
    disk = summary[(summary["workload"] == "disk") & (summary["metric"] == "iops")]
    for spec, grp in disk.groupby("access_spec", sort=True):
        fig = go.Figure()
        for (env, backing, cache), g in grp.groupby(["environment", "backing", "write_cache"], sort=True):
            g = g.sort_values("queue_depth")
            fig.add_scatter(x=g["queue_depth"], y=g["value"], mode="lines+markers",
                            name=f"{env} {backing} cache {cache}")
        fig.update_layout(title=f"Disk {spec}: IOPS vs queue depth", xaxis_type="log",
                          xaxis_title="queue depth", yaxis_title="IO/s")
        charts.append((f"Disk {spec}: throughput vs queue depth", fig))
    net = _network_series(summary)
    if net:
        fig = go.Figure()
        for name, g in net:
            fig.add_scatter(x=g["block_size"], y=g["value"], mode="lines+markers", name=name,
                            line={"dash": "dot"} if name.endswith("(host-timed)") else None)
        fig.update_layout(title="Network: throughput vs block size", xaxis_title="block size",
                          yaxis_title="Mbit/s")
        charts.append(("Network: throughput vs block size", fig))
    tiles = summary[(summary["workload"] == "tiles") & (summary["metric"] == "events_per_s_host")]
    if not tiles.empty:
        fig = go.Figure()
        for env, g in tiles.groupby("environment", sort=True):
            per = g.groupby("tiles")["value"].mean().reset_index()
            base = per["value"].iloc[0] if len(per) else 1.0
            fig.add_scatter(x=per["tiles"], y=per["value"] / base, mode="lines+markers",
                            name=f"{env!s}: per-VM relative performance")
        fig.update_layout(title="Tiles: per-VM relative performance vs VM count",
                          xaxis_title="tiles (VMs)", yaxis_title="relative to one VM")
        charts.append(("Tiles: per-VM relative performance vs VM count", fig))
    if not ratios.empty:
        labels = [_label(r, [c for c in ratios.columns if c in _CASE or c == "workload"])
                  + (" (emulated)" if r["emulated"] else "") for _, r in ratios.iterrows()]
        fig = go.Figure(go.Bar(
            x=labels, y=ratios["ratio"],
            error_y={"type": "data", "symmetric": False,
                     "array": ratios["high"] - ratios["ratio"],
                     "arrayminus": ratios["ratio"] - ratios["low"]}))
        fig.update_layout(title="VM / physical (error bars: min-max of measured runs)",
                          yaxis_title="ratio")
        charts.append(("VM / physical ratios", fig))
    return charts


def _network_series(summary: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """Network chart series, ordered by block size: one per environment, link and direction.

    Each series is iperf3's ``received_mbit_s``; guest ↔ guest (iperf3 on guest
    clocks) also gets its host-timed ``received_mbit_s_host``, named "(host-timed)".
    """
    net = summary[(summary["workload"] == "network")
                  & summary["metric"].isin(["received_mbit_s", "received_mbit_s_host"])]
    if net.empty:
        return []
    net = net.assign(_link=net["link"].fillna(""), _b=net["block_size"].map(_bytes))
    net = net[(net["metric"] == "received_mbit_s") | (net["_link"] == "guest-guest")]
    series = []
    for (env, lk, direction, metric), g in net.groupby(
            ["environment", "_link", "direction", "metric"], sort=True):
        name = " ".join(str(x) for x in (env, lk, direction) if x)
        if metric == "received_mbit_s_host":
            name += " (host-timed)"
        series.append((name, g.sort_values("_b")))
    return series


def _bytes(size: Any) -> float:
    text = str(size).upper()
    mult = {"K": 2**10, "M": 2**20, "G": 2**30}.get(text[-1:], 1)
    try:
        return float(text.rstrip("KMG")) * mult
    except ValueError:
        return 0.0


def _contention_section(
    contention: tuple[pd.DataFrame, FitResult | str] | None,
) -> list[BenchSection]:
    """The tiles' contention chart with the fit, its parameters, or why no fit."""
    if contention is None:
        return []
    frame, fit = contention
    result = fit if isinstance(fit, FitResult) else None
    title = "CPU contention: measured vs fitted (vsizer fit --model cpu)"
    figure = contention_figure(frame, result)
    if result is None:
        return [BenchSection(title, figure, chart_id="cpu-contention", warning=f"No fit: {fit}")]
    params = pd.DataFrame([{"parameter": k, "value": e.value, "ci_low": e.ci_low,
                            "ci_high": e.ci_high, "n": e.n} for k, e in result.parameters.items()])
    return [BenchSection(title, figure, chart_id="cpu-contention",
                         tables=(params, pd.DataFrame(result.curve)), notes=tuple(result.notes))]


def _sections(summary: pd.DataFrame, ratios: pd.DataFrame,
              contention: tuple[pd.DataFrame, FitResult | str] | None = None) -> list[BenchSection]:
    """The page's sections: the charts, the contention fit, the ratio and result tables."""
    cols = [c for c in summary.columns if c not in ("env", "emulated")
            and summary[c].notna().any()]
    return [
        *(BenchSection(title, fig) for title, fig in _charts(summary, ratios)),
        *_contention_section(contention),
        BenchSection("VM / physical ratios", tables=(ratios,)),
        BenchSection("All results (trimmed means)", tables=(summary[cols],)),
    ]


def _xlsx(summary: pd.DataFrame, ratios: pd.DataFrame, path: Path,
          contention: tuple[pd.DataFrame, FitResult | str] | None = None) -> None:
    from openpyxl import Workbook

    from vsizer.reporting.safe import set_safe_value

    wb = Workbook()
    sheets = [("results", summary), ("vm_vs_physical", ratios)]
    if contention is not None and isinstance(contention[1], FitResult):
        sheets.append(("contention_fit", pd.DataFrame(contention[1].curve)))
    for i, (name, frame) in enumerate(sheets):
        ws = wb.active if i == 0 else wb.create_sheet()
        assert ws is not None
        ws.title = name
        if summary["emulated"].any():
            set_safe_value(ws.cell(1, 1), EMULATED_NOTE)
        for j, col in enumerate(frame.columns, start=1):
            set_safe_value(ws.cell(2, j), str(col))
        for r, row in enumerate(frame.itertuples(index=False), start=3):
            for j, value in enumerate(row, start=1):
                if value is None or (isinstance(value, float) and pd.isna(value)):
                    continue
                set_safe_value(ws.cell(r, j), value.item() if hasattr(value, "item") else value)
    with atomic_write(path) as fh:
        wb.save(fh)


def write_report(store: str | Path, output: str | Path) -> Path:
    """Write the report for every aggregate in ``store``; format from the suffix (.html/.xlsx).

    Raises
    ------
    InputError
        Unknown suffix, or no aggregate samples in the store.
    """
    out = Path(output)
    if out.suffix not in (".html", ".xlsx"):
        raise InputError(f"{out}: expected a .html or .xlsx report file, got '{out.suffix}'.")
    samples = read_samples(store)
    summary = summary_frame(samples)
    if summary.empty:
        raise InputError(f"{Path(store).name}: no aggregate samples to report; run 'vsizer bench run' first.")
    ratios = ratio_frame(summary)
    frame = contention_frame(samples)
    contention = None if frame.empty else (frame, fit_contention(frame))
    if out.suffix == ".html":
        write_bench_html(out, "vsizer benchmark report", _sections(summary, ratios, contention),
                         banner=EMULATED_NOTE if summary["emulated"].any() else None)
    else:
        _xlsx(summary, ratios, out, contention)
    return out
