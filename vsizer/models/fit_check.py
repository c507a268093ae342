"""Row selection, normalization and out-of-sample error for ``vsizer fit``.

``select_max_util`` keeps the samples within a total utilization (the published
VMware ESX 2.5.2 regression used the rows within 400 %, the four physical CPUs);
``normalize_mu`` recomputes per-VM performance as ``mu / baseline`` with
``mu = lambda / (rho / 100)`` (the same measurement's relative performance, a
Pentium III 1.0 GHz server = 350 req/s); ``error_summary`` and
``leave_one_group_out`` measure a fit in and out of sample.

References
----------
.. [1] M. Stone, "Cross-validatory choice and assessment of statistical
   predictions," *J. R. Stat. Soc. B*, vol. 36, no. 2, pp. 111-147, 1974,
   :doi:`10.1111/j.2517-6161.1974.tb00994.x` (leave-out validation).
.. [2] Published VMware ESX 2.5.2 measurement (see :mod:`vsizer.models.cpu`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from vsizer._jsonable import sig6 as _r
from vsizer.errors import InputError, VsizerError

NORMALIZATIONS = ("mu350",)
#: group columns of leave-one-group-out, per model
GROUPS: dict[str, tuple[str, ...]] = {"cpu": ("physical_cpus", "vms")}


def select_max_util(frame: pd.DataFrame, max_util_pct: float, name: str) -> pd.DataFrame:
    """The samples with ``total_util_pct <= max_util_pct``.

    Raises
    ------
    InputError
        No sample is left.
    """
    u = pd.to_numeric(frame["total_util_pct"], errors="coerce")
    kept = frame[u <= max_util_pct].reset_index(drop=True)
    if kept.empty:
        raise InputError(
            f"{name}: no sample has total_util_pct <= {max_util_pct:g} "
            f"(--max-util-pct); the smallest is {u.min():g}."
        )
    return kept


def normalize_mu(frame: pd.DataFrame, baseline: float, name: str) -> pd.DataFrame:
    """Per-VM performance ``relative = mu / baseline``.

    ``mu`` is the sample's ``mu`` column when given (the published value), else
    ``throughput / (total_util_pct / 100)``.

    Raises
    ------
    InputError
        A sample has neither ``mu`` nor ``throughput`` (one line per row).
    """
    f = frame.copy()
    mu = pd.to_numeric(f["mu"], errors="coerce").to_numpy(float)
    lam = pd.to_numeric(f["throughput"], errors="coerce").to_numpy(float)
    rho = pd.to_numeric(f["total_util_pct"], errors="coerce").to_numpy(float) / 100.0
    mu = np.where(np.isnan(mu), lam / rho, mu)
    bad = [int(r) for r, v in zip(f["row"], mu, strict=True) if not math.isfinite(v)]
    if bad:
        raise InputError([
            f"{name} row {r}, column 'throughput': expected a number for --normalize mu350 "
            "(or give 'mu'), got ''." for r in bad
        ])
    f["relative"] = mu / baseline
    return f


def error_summary(measured: np.ndarray, predicted: np.ndarray) -> dict[str, Any]:
    """RMSE [unit of the values]; mean absolute, root-mean-square and mean
    (bias) relative error of the predictions [%]."""
    ok = np.isfinite(measured) & np.isfinite(predicted)
    m, p = measured[ok], predicted[ok]
    if m.size == 0:
        return {"n": 0, "rmse": None, "mape_pct": None, "rms_pct": None, "bias_pct": None}
    rel = (p - m) / m
    return {"n": int(m.size), "rmse": _r(float(np.sqrt(np.mean((p - m) ** 2)))),
            "mape_pct": _r(100.0 * float(np.mean(np.abs(rel)))),
            "rms_pct": _r(100.0 * float(np.sqrt(np.mean(rel**2)))),
            "bias_pct": _r(100.0 * float(np.mean(rel)))}


def leave_one_group_out(
    frame: pd.DataFrame, group_cols: tuple[str, ...], measured: np.ndarray,
    fitted: np.ndarray, refit_predict: Callable[[pd.DataFrame, pd.DataFrame], np.ndarray],
) -> dict[str, Any]:
    """Refit without each group, predict the group's samples, summarize the errors.

    Parameters
    ----------
    frame : DataFrame
        The samples that were fitted (index 0..n-1).
    group_cols : tuple of str
        Columns whose values form a group (e.g. ``("physical_cpus", "vms")``: one VM
        count of a table, one tile count of a bench run).
    measured, fitted : ndarray
        Measured value and in-sample prediction per sample.
    refit_predict : callable
        ``(train, test) -> predictions for test``; raises VsizerError when the
        training samples are too few (the group is then reported as not predicted).
    """
    out = np.full(len(frame), np.nan)
    groups = []
    keys = frame[list(group_cols)].astype(float).apply(tuple, axis=1)
    for key in sorted(set(keys)):
        test = (keys == key).to_numpy()
        entry: dict[str, Any] = dict(zip(group_cols, (_r(k) for k in key), strict=True))
        entry.update({"samples": int(test.sum()),
                      "measured_mean": _r(float(measured[test].mean())),
                      "in_sample_mean": _r(float(fitted[test].mean()))})
        try:
            pred = refit_predict(frame[~test], frame[test])
        except VsizerError as exc:
            entry.update({"left_out_mean": None, "error_pct": None, "note": str(exc)})
        else:
            out[test] = pred
            mean = float(np.mean(pred))
            entry.update({"left_out_mean": _r(mean),
                          "error_pct": _r(100.0 * (mean / entry["measured_mean"] - 1.0))})
        groups.append(entry)
    return {"group_by": list(group_cols), **error_summary(measured, out), "groups": groups}
