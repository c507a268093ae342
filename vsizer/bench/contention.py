"""Measured CPU contention (tiles) against the fitted CPU model, for the bench report.

The tiles' per-guest CPU throughput, relative to a lone guest, as
``vsizer bench export --for-fit`` writes it (latest tiles run in the store), is
fitted with :func:`vsizer.models.fit.fit_cpu` (``util_basis = demand``: every
tile guest runs flat out) and drawn as the classic per-VM performance vs VM
count chart: measured mean with min-max bars, the fitted curve, and the cores'
fair share min(1, P / (N v)) for N guests of v vCPUs on P cores.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd

from vsizer.bench.export import fit_rows
from vsizer.bench.samples import Sample
from vsizer.errors import InputError, VsizerError
from vsizer.models import cpu as cpu_model
from vsizer.models.fit import FitResult, emulated_rows, fit_cpu
from vsizer.models.range import ModelRangeWarning

__all__ = ["contention_figure", "contention_frame", "fit_contention"]

_NUMERIC = ("vms", "physical_cpus", "vcpus_per_vm", "total_util_pct", "throughput", "relative")


def contention_frame(samples: list[Sample]) -> pd.DataFrame:
    """The latest tiles run's CPU rows, typed as :func:`fit_cpu` reads them (pure).

    Empty when the store holds no CPU tile samples.
    """
    rows = fit_rows(samples)
    if not rows:
        return pd.DataFrame()
    latest = max(str(r["experiment"]) for r in rows)
    frame = pd.DataFrame([r for r in rows if str(r["experiment"]) == latest])
    for col in _NUMERIC:
        frame[col] = pd.to_numeric(frame[col], errors="coerce")
    frame.insert(0, "row", np.arange(2, len(frame) + 2))
    return frame


def fit_contention(frame: pd.DataFrame) -> FitResult | str:
    """The CPU fit of ``frame``, or why it could not be made (one line)."""
    try:
        return fit_cpu(frame)
    except InputError as exc:
        return "; ".join(exc.problems)
    except VsizerError as exc:  # scipy missing
        return str(exc)


def contention_figure(frame: pd.DataFrame, fit: FitResult | None) -> Any:
    """Per-VM relative performance vs guests: measured, fitted, fair share."""
    import plotly.graph_objects as go

    tag = " (emulated)" if emulated_rows(frame) else ""
    cpus = float(frame["physical_cpus"].iloc[0])
    vcpus = float(frame["vcpus_per_vm"].iloc[0]) if "vcpus_per_vm" in frame else 1.0
    per = frame.groupby("vms")["relative"].agg(["mean", "min", "max"]).reset_index()
    fig = go.Figure()
    fig.add_scatter(
        x=per["vms"], y=per["mean"], mode="markers", name=f"measured mean, min-max{tag}",
        error_y={"type": "data", "symmetric": False, "array": per["max"] - per["mean"],
                 "arrayminus": per["mean"] - per["min"]},
    )
    n = np.linspace(1.0, float(per["vms"].max()), 200)
    fig.add_scatter(x=n, y=np.minimum(1.0, cpus / (n * vcpus)), mode="lines",
                    name=f"fair share min(1, {cpus:g}/N)", line={"dash": "dash"})
    if fit is not None:
        p = fit.profile_section
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ModelRangeWarning)
            fitted = cpu_model.relative_performance(
                n, cpus, 100.0 * n * vcpus, basis="demand", intercept=p["intercept"],
                slope=p["slope"], reference_cpus=p["reference_cpus"],
                contention_exponent=p.get("contention_exponent", cpu_model.CONTENTION_EXPONENT),
            )
        k = fit.parameters.get("contention_exponent")
        label = f"fitted, k = {k.value:.3g} [{k.ci_low:.3g}, {k.ci_high:.3g}]" if k else "fitted"
        fig.add_scatter(x=n, y=fitted, mode="lines", name=label + tag)
    fig.update_layout(
        title=f"CPU contention: per-VM performance vs guests on {cpus:g} cores{tag}",
        xaxis_title="guests running at once (1 vCPU each)" if vcpus == 1 else "guests",
        yaxis_title="per-VM throughput relative to one guest", yaxis_rangemode="tozero",
        xaxis={"dtick": 1},
    )
    return fig
