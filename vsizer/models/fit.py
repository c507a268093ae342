"""Fit the overhead models' coefficients to measured samples, with confidence intervals.

``fit_cpu``, ``fit_disk`` and ``fit_network`` take the frame of
:func:`vsizer.models.measurements.read_measurements` and return a
:class:`FitResult`: estimates with standard errors and t-based confidence
intervals, predicted vs measured per sample, and the profile section that
``vsizer plan/predict --profile`` applies.

References
----------
.. [1] N. R. Draper and H. Smith, *Applied Regression Analysis*, 3rd ed. New York:
   Wiley, 1998, ch. 1-3 (least squares, t intervals for coefficients).
.. [2] The published measurements behind the models being fitted: see the
   references of :mod:`vsizer.models.cpu`, :mod:`vsizer.models.disk` and
   :mod:`vsizer.models.network`.
.. [3] L. Kleinrock, *Queueing Systems, Volume 2: Computer Applications*. New York:
   Wiley, 1976, ISBN 0-471-49111-X, Sec. 4.4 (processor sharing).
"""

from __future__ import annotations

import copy
import math
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from vsizer._jsonable import sig6 as _r
from vsizer._validation import Interval, OneOf, OrNone, validate_params
from vsizer.errors import ConfigError, InputError, VsizerError
from vsizer.models import cpu as cpu_model
from vsizer.models import fit_check
from vsizer.models.measurements import read_measurements
from vsizer.models.parameters import OVERHEAD_MODEL_PARAMETERS
from vsizer.models.range import ModelRangeWarning

CONFIDENCE = 0.95


@dataclass(frozen=True)
class Estimate:
    """A fitted parameter: value, standard error, confidence interval, samples."""

    value: float
    stderr: float
    ci_low: float
    ci_high: float
    n: int

    def to_dict(self) -> dict[str, float | int]:
        return {
            "value": _r(self.value),
            "stderr": _r(self.stderr),
            "ci_low": _r(self.ci_low),
            "ci_high": _r(self.ci_high),
            "n": self.n,
        }


@dataclass(frozen=True)
class FitResult:
    """Outcome of one fit: estimates, per-sample comparison, profile section."""

    model: str
    parameters: dict[str, Estimate]
    samples: pd.DataFrame  # row, experiment, label, measured, predicted, residual, used_for
    profile_section: dict[str, Any]
    notes: list[str] = field(default_factory=list)
    confidence: float = CONFIDENCE
    curve: list[dict[str, Any]] = field(default_factory=list)  # cpu: per VM count
    validation: dict[str, Any] = field(default_factory=dict)  # in-sample, leave-one-group-out

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, deterministic."""
        return {
            "model": self.model,
            "confidence": self.confidence,
            "parameters": {k: v.to_dict() for k, v in self.parameters.items()},
            "samples": [
                {
                    "row": int(r["row"]),
                    "experiment": str(r["experiment"]),
                    "label": str(r["label"]),
                    "measured": _r(r["measured"]),
                    "predicted": _r(r["predicted"]),
                    "residual": _r(r["residual"]),
                    "used_for": str(r["used_for"]),
                }
                for r in self.samples.to_dict("records")
            ],
            "curve": [dict(c) for c in self.curve],
            "validation": copy.deepcopy(self.validation),
            "notes": list(self.notes),
        }


def _missing(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def _t(dof: int, confidence: float) -> float:
    try:
        from scipy import stats
    except ImportError:  # pragma: no cover - scipy ships with the 'fit' extra
        raise VsizerError(
            "vsizer fit needs scipy: pip install 'vsizer[fit]'."
        ) from None
    return float(stats.t.ppf(0.5 + confidence / 2.0, dof))


def _mean_ci(values: np.ndarray, confidence: float) -> Estimate:
    n = values.size
    mean = float(values.mean())
    if n < 2:
        return Estimate(mean, math.nan, math.nan, math.nan, n)
    se = float(values.std(ddof=1) / math.sqrt(n))
    h = _t(n - 1, confidence) * se
    return Estimate(mean, se, mean - h, mean + h, n)


def _ols(x: np.ndarray, y: np.ndarray, confidence: float) -> tuple[Estimate, Estimate]:
    """Intercept and slope of y = a + b x with t intervals (n - 2 dof)."""
    n = x.size
    design = np.column_stack([np.ones(n), x])
    coef, *_ = np.linalg.lstsq(design, y, rcond=None)
    resid = y - design @ coef
    dof = n - 2
    s2 = float(resid @ resid) / dof if dof > 0 else math.nan
    cov = s2 * np.linalg.inv(design.T @ design)
    t = _t(dof, confidence) if dof > 0 else math.nan
    out = []
    for i in range(2):
        se = math.sqrt(cov[i, i]) if math.isfinite(s2) else math.nan
        c = float(coef[i])
        out.append(Estimate(c, se, c - t * se, c + t * se, n))
    return out[0], out[1]


def cpu_observed(frame: pd.DataFrame) -> np.ndarray:
    """Per-VM performance of each cpu sample: ``relative``, else ``mu = lambda / rho``."""
    rel = pd.to_numeric(frame["relative"], errors="coerce").to_numpy(float)
    lam = pd.to_numeric(frame["throughput"], errors="coerce").to_numpy(float)
    rho = frame["total_util_pct"].to_numpy(float) / 100.0
    return np.where(np.isnan(rel), cpu_model.processing_rate(lam, rho), rel)


def fit_cpu(
    frame: pd.DataFrame, confidence: float = CONFIDENCE, regress: str = "samples",
    validate: bool = True,
) -> FitResult:
    """Fit the CPU model (linear in VMs, contention exponent beyond the CPUs).

    Parameters
    ----------
    frame : DataFrame
        cpu samples from :func:`~vsizer.models.measurements.read_measurements`.
    confidence : float
        Confidence level of the intervals [fraction].
    regress : {'samples', 'means'}
        Fit the linear part to every sample within the CPUs, or to the mean of
        each VM count (as the published regression did).
    validate : bool
        Add the in-sample and leave-one-VM-count-out errors (``validation``).

    Returns
    -------
    FitResult
        ``intercept``, ``slope`` and (with >= 2 overcommitted samples)
        ``contention_exponent``.

    Notes
    -----
    1. Samples with ``total_util_pct <= 100 * physical_cpus`` (within the CPUs):
       ordinary least squares of performance on ``x = max(vms * 4 / physical_cpus, 1)``
       (the regression of the ESX 2.5.2 measurement [2]_; on its table: slope
       -0.0715, intercept 2.096).
    2. Overcommitted samples whose ``util_basis`` is ``guest`` (the default; the
       ESX 2.5.2 table): with ``g = k / (1 + k)``, ``ln(r_lin / r) = g ln(U / (100 P))``
       (see :func:`vsizer.models.cpu.relative_performance` with ``basis='guest'``);
       g by least squares through the origin, then ``k = g / (1 - g)`` and its
       interval mapped through the same monotone function.
    3. Overcommitted samples whose ``util_basis`` is ``demand`` (saturated guests,
       as ``vsizer bench export --for-fit`` writes): ``ln(r_lin / r) = k ln(D / (100 P))``,
       k by least squares through the origin with a t interval. Processor sharing
       at the fair share gives k = 1 [3]_; k > 1 means per-VM performance falls
       faster than the fair share (the cost of switching VMs).

    References
    ----------
    .. [1] N. R. Draper and H. Smith, Applied Regression Analysis, 3rd ed., Wiley,
       1998 (least squares, t intervals).
    .. [2] Published VMware ESX 2.5.2 measurement (see :mod:`vsizer.models.cpu`).
    .. [3] L. Kleinrock, Queueing Systems, Vol. 2, Wiley, 1976, Sec. 4.4.
    """
    f = frame.reset_index(drop=True)
    ref = OVERHEAD_MODEL_PARAMETERS["cpu"]["esx252"]["reference_cpus"]
    y = cpu_observed(f)
    vms = f["vms"].to_numpy(float)
    p = f["physical_cpus"].to_numpy(float)
    u = f["total_util_pct"].to_numpy(float)
    x = np.maximum(vms * ref / p, 1.0)
    within = u <= 100.0 * p
    if within.sum() < 3 or np.unique(x[within]).size < 2:
        raise InputError(
            "cpu fit: need at least 3 samples within the physical CPUs "
            "(total_util_pct <= 100 x physical_cpus) at 2 or more VM counts; "
            f"got {int(within.sum())}."
        )
    a, b = _ols(*_linear_points(x[within], y[within], regress), confidence)
    params = {"intercept": a, "slope": b}
    section: dict[str, Any] = {"intercept": _r(a.value), "slope": _r(b.value),
                               "reference_cpus": ref}
    basis = _util_basis(f)
    k, notes = _contention_part(f, ~within, basis, a.value + b.value * x, y, u / (100.0 * p),
                                confidence, params, section)
    kw = {"intercept": a.value, "slope": b.value, "reference_cpus": ref,
          "contention_exponent": k}
    pred = _cpu_predicted(vms, p, u, basis, kw)
    notes += _emulation_note(f) + _flagged_note(f)
    labels = [f"{int(n)} VMs / {c:g} CPUs @ {t:g} %" for n, c, t in zip(vms, p, u, strict=True)]
    used = np.where(within, "linear", "contention")
    check = _cpu_validation(f, y, pred, confidence, regress) if validate else {}
    return FitResult("cpu", params, _samples(f, labels, y, pred, used), section, notes,
                     confidence, _cpu_curve(vms, p, u, basis, y, pred), check)


def _contention_part(
    f: pd.DataFrame, over: np.ndarray, basis: np.ndarray, lin: np.ndarray, y: np.ndarray,
    ratio: np.ndarray, confidence: float, params: dict[str, Estimate], section: dict[str, Any],
) -> tuple[float, list[str]]:
    """k fitted when >= 2 samples are overcommitted (added to ``params`` and
    ``section``), else the default k and a note."""
    k = cpu_model.CONTENTION_EXPONENT
    if over.sum() < 2:
        return k, [f"contention_exponent not fitted ({int(over.sum())} overcommitted "
                   f"samples, need 2); default {k:g} kept."]
    k, est = _fit_contention(f, over, basis, lin, y, ratio, confidence)
    params["contention_exponent"] = est
    section["contention_exponent"] = _r(k)
    return k, []


def _linear_points(x: np.ndarray, y: np.ndarray, regress: str) -> tuple[np.ndarray, np.ndarray]:
    """The points of the linear fit: the samples, or the mean per x (VM count)."""
    if regress == "samples":
        return x, y
    xs = np.unique(x)
    return xs, np.array([y[x == v].mean() for v in xs])


def _cpu_validation(
    f: pd.DataFrame, y: np.ndarray, pred: np.ndarray, confidence: float, regress: str
) -> dict[str, Any]:
    """In-sample and leave-one-VM-count-out errors of the CPU fit."""

    def refit(train: pd.DataFrame, test: pd.DataFrame) -> np.ndarray:
        res = fit_cpu(train, confidence, regress, validate=False)
        kw = {k: float(res.profile_section.get(k, cpu_model.CONTENTION_EXPONENT))
              for k in ("intercept", "slope", "reference_cpus", "contention_exponent")}
        return _cpu_predicted(test["vms"].to_numpy(float), test["physical_cpus"].to_numpy(float),
                              test["total_util_pct"].to_numpy(float), _util_basis(test), kw)

    return {"in_sample": fit_check.error_summary(y, pred),
            "leave_one_group_out": fit_check.leave_one_group_out(
                f, fit_check.GROUPS["cpu"], y, pred, refit)}


def _flagged_note(f: pd.DataFrame) -> list[str]:
    """A warning note when every sample is flagged ``foreign_load_exceeded``."""
    if "foreign_load_exceeded" not in f.columns:
        return []
    flags = f["foreign_load_exceeded"].astype(str).str.strip().str.lower()
    if not flags.isin(("true", "1", "yes")).all():
        return []
    return [
        f"warning: all {len(f)} samples are flagged foreign_load_exceeded (other load on "
        "the host during the run): the fit describes a busy host, not the VMs alone."
    ]


def _cpu_predicted(
    vms: np.ndarray, p: np.ndarray, u: np.ndarray, basis: np.ndarray,
    coefficients: dict[str, float],
) -> np.ndarray:
    """The fitted CPU model at each sample, on the sample's own utilization basis."""
    with warnings.catch_warnings():
        # the fit describes the measured range itself; no range warning about the source's
        warnings.simplefilter("ignore", ModelRangeWarning)
        return np.where(
            basis == "demand",
            cpu_model.relative_performance(vms, p, u, basis="demand", **coefficients),
            cpu_model.relative_performance(vms, p, u, basis="guest", **coefficients),
        )


def _emulation_note(f: pd.DataFrame) -> list[str]:
    """A note when samples were measured in emulated guests (none otherwise)."""
    emulated = emulated_rows(f)
    if not emulated:
        return []
    return [
        f"{emulated} of {len(f)} samples were measured in emulated guests (QEMU TCG): "
        "the fit describes the emulator on this host, not hardware virtualization."
    ]


def emulated_rows(f: pd.DataFrame) -> int:
    """How many samples say ``emulated`` = true (TCG guests; see ``vsizer bench export``)."""
    if "emulated" not in f.columns:
        return 0
    return int(f["emulated"].astype(str).str.strip().str.lower().isin(("true", "1", "yes")).sum())


def _cpu_curve(
    vms: np.ndarray, p: np.ndarray, u: np.ndarray, basis: np.ndarray, y: np.ndarray,
    pred: np.ndarray,
) -> list[dict[str, Any]]:
    """Measured mean and range vs the fitted model, one row per (CPUs, VMs, basis)."""
    frame = pd.DataFrame({"physical_cpus": p, "vms": vms, "util_basis": basis,
                          "total_util_pct": u, "measured": y, "fitted": pred})
    rows = []
    for _, g in frame.groupby(["physical_cpus", "vms", "util_basis"], sort=True):
        first = g.iloc[0]
        rows.append({
            "physical_cpus": _r(first["physical_cpus"]), "vms": int(first["vms"]),
            "util_basis": str(first["util_basis"]),
            "samples": len(g), "total_util_pct": _r(g["total_util_pct"].mean()),
            "measured_mean": _r(g["measured"].mean()), "measured_min": _r(g["measured"].min()),
            "measured_max": _r(g["measured"].max()), "fitted": _r(g["fitted"].mean()),
        })
    return rows


def _util_basis(f: pd.DataFrame) -> np.ndarray:
    """Per-row ``util_basis`` ('guest' when the column or the cell is empty)."""
    if "util_basis" not in f.columns:
        return np.full(len(f), "guest", dtype=object)
    return f["util_basis"].map(lambda v: "guest" if _missing(v) else str(v)).to_numpy(object)


def _fit_contention(
    f: pd.DataFrame, over: np.ndarray, basis: np.ndarray, lin: np.ndarray, y: np.ndarray,
    ratio: np.ndarray, confidence: float,
) -> tuple[float, Estimate]:
    """Contention exponent k from the overcommitted samples (see :func:`fit_cpu` Notes)."""
    kinds = sorted(set(basis[over]))
    if len(kinds) > 1:
        rows = {b: ", ".join(str(int(r)) for r in f["row"][over & (basis == b)]) for b in kinds}
        raise InputError(
            "cpu fit: the overcommitted samples mix util_basis guest (rows "
            f"{rows['guest']}) and demand (rows {rows['demand']}); fit them separately."
        )
    m = int(over.sum())
    xc = np.log(ratio[over])
    yc = np.log(lin[over] / y[over])
    sxx = float(xc @ xc)
    e = float(xc @ yc) / sxx
    se = math.sqrt(float(((yc - e * xc) ** 2).sum()) / (m - 1) / sxx)
    h = _t(m - 1, confidence) * se
    if kinds == ["demand"]:
        if not e > 0:
            raise InputError(
                f"cpu fit: the overcommitted samples (util_basis demand) give k = {e:.3g}; "
                "expected k > 0 (per-VM performance falling as demand exceeds the CPUs)."
            )
        return e, Estimate(e, se, max(e - h, 0.0), e + h, m)
    if not 0 < e < 1:
        hint = (" Samples of saturated guests (each asking for a whole vCPU) measure "
                "demand, not guest-reported utilization: set util_basis = demand."
                if e >= 1 else "")
        raise InputError(
            f"cpu fit: the overcommitted samples give g = {e:.3g}; expected "
            f"0 < g < 1 (performance falling with overcommit).{hint}"
        )

    def to_k(v: float) -> float:
        return v / (1.0 - v) if v < 1 else math.inf

    k = to_k(e)
    return k, Estimate(k, se / (1.0 - e) ** 2, to_k(max(e - h, 0.0)), to_k(e + h), m)


def _samples(
    f: pd.DataFrame, labels: list[str], y: np.ndarray, pred: np.ndarray, used: Any
) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "row": f["row"].to_numpy(int),
            "experiment": f["experiment"].astype(str).to_numpy(),
            "label": labels,
            "measured": y,
            "predicted": pred,
            "residual": y - pred,
            "used_for": used,
        }
    )


def _ratio(frame: pd.DataFrame) -> np.ndarray:
    rel = pd.to_numeric(frame["relative"], errors="coerce").to_numpy(float)
    thr = pd.to_numeric(frame["throughput"], errors="coerce").to_numpy(float)
    nat = pd.to_numeric(frame["native_throughput"], errors="coerce").to_numpy(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(np.isnan(rel), thr / nat, rel)


def fit_disk(frame: pd.DataFrame, confidence: float = CONFIDENCE) -> FitResult:
    """Fit the disk queue-depth model: the ratio below and at saturation per spec/backing.

    Parameters
    ----------
    frame : DataFrame
        disk samples from :func:`~vsizer.models.measurements.read_measurements`.
    confidence : float
        Confidence level [fraction].

    Returns
    -------
    FitResult
        ``{spec}.{backing}.floor`` (mean ratio below the saturation queue depth of
        the published Hyper-V R2 measurement) and ``{spec}.{backing}.saturated`` (mean ratio at or above
        it; the model assumes 1).
    """
    f = frame.reset_index(drop=True)
    table = copy.deepcopy(OVERHEAD_MODEL_PARAMETERS["disk"]["queue_depth"])
    y = _ratio(f)
    qd = f["queue_depth"].to_numpy(float)
    spec = f["access_spec"].astype(str).to_numpy()
    backing = f["backing"].astype(str).to_numpy()
    sat = np.array([table[s]["saturation_queue_depth"] for s in spec], dtype=float)
    params: dict[str, Estimate] = {}
    section: dict[str, Any] = {"queue_depth": {}}
    for s, bk in sorted(set(zip(spec, backing, strict=True))):
        grp = (spec == s) & (backing == bk)
        below = grp & (qd < sat)
        above = grp & (qd >= sat)
        if below.any():
            est = _mean_ci(y[below], confidence)
            params[f"{s}.{bk}.floor"] = est
            table[s]["floor"][bk] = est.value
            section["queue_depth"].setdefault(s, {"floor": {}})["floor"][bk] = _r(est.value)
        if above.any():
            params[f"{s}.{bk}.saturated"] = _mean_ci(y[above], confidence)
    pred = np.array(
        [1.0 if q >= sq else table[s]["floor"][bk]
         for q, sq, s, bk in zip(qd, sat, spec, backing, strict=True)]
    )
    labels = [f"{s} {bk} qd {q:g}" for s, bk, q in zip(spec, backing, qd, strict=True)]
    used = np.where(qd < sat, "floor", "saturated")
    return FitResult("disk", params, _samples(f, labels, y, pred, used), section, [], confidence)


def fit_network(frame: pd.DataFrame, confidence: float = CONFIDENCE) -> FitResult:
    """Fit the network figures: wire throughput, VM-to-VM totals, Xen single-VM ratio.

    Parameters
    ----------
    frame : DataFrame
        network samples from :func:`~vsizer.models.measurements.read_measurements`.
    confidence : float
        Confidence level [fraction].

    Returns
    -------
    FitResult
        ``wire.{nic}g.{direction}[.vmq]`` mean Mbit/s, ``vm_to_vm.{senders}``
        mean Mbit/s, ``xen.vms{n}`` mean ratio, each with its interval.
    """
    f = frame.reset_index(drop=True)
    y = pd.to_numeric(f["throughput"], errors="coerce").to_numpy(float)
    xen = f["direction"].isna().to_numpy() & (
        f["hypervisor"].fillna("").astype(str).str.lower() == "xen"
    ).to_numpy()
    y = np.where(xen, _ratio(f), y)
    keys: list[str] = []
    records: list[dict[str, Any]] = f.to_dict("records")  # type: ignore[assignment]
    for r, is_xen in zip(records, xen, strict=True):
        if is_xen:
            keys.append(f"xen.vms{int(r['vms'])}")
        elif r["direction"] == "vm_to_vm":
            senders = r["senders"]
            keys.append(f"vm_to_vm.{1 if _missing(senders) else int(senders)}")
        else:
            vmq = ".vmq" if r["vmq"] is True else ""
            keys.append(f"wire.{float(r['nic_gbps']):g}g.{r['direction']}{vmq}")
    key_arr = np.array(keys)
    params = {k: _mean_ci(y[key_arr == k], confidence) for k in sorted(set(keys))}
    pred = np.array([params[k].value for k in keys])
    section = _network_section(params)
    return FitResult("network", params, _samples(f, keys, y, pred, key_arr), section, [], confidence)


def _network_section(params: dict[str, Estimate]) -> dict[str, Any]:
    """Profile overrides for the network model from the fitted group means."""
    section: dict[str, Any] = {}
    wire: dict[str, Any] = {}
    if "wire.1g.send" in params:
        wire.setdefault("1", {})["send"] = _r(params["wire.1g.send"].value)
    if "wire.1g.receive" in params:
        wire.setdefault("1", {})["receive"] = _r(params["wire.1g.receive"].value)
    vmq = [params[k].value for k in ("wire.10g.send.vmq", "wire.10g.receive.vmq") if k in params]
    if vmq:
        wire.setdefault("10", {})["vmq"] = _r(min(vmq))
        plain = [params[k].value for k in ("wire.10g.send", "wire.10g.receive") if k in params]
        if plain:
            wire["10"]["vmq_gain"] = _r(min(vmq) / min(plain))
    if wire:
        section["wire"] = wire
    senders = sorted(int(k.split(".")[1]) for k in params if k.startswith("vm_to_vm."))
    if senders:
        section["vm_to_vm"] = {
            "senders": senders,
            "mbps": [_r(params[f"vm_to_vm.{s}"].value) for s in senders],
        }
    if "xen.vms1" in params:
        section["xen"] = {"single_vm_ratio": _r(params["xen.vms1"].value)}
    return section


FITTERS = {"cpu": fit_cpu, "disk": fit_disk, "network": fit_network}


@validate_params(
    {"model": OneOf(tuple(FITTERS)), "confidence": Interval(float, 0, 1, "neither"),
     "max_util_pct": OrNone(Interval(float, 0, None, "neither")),
     "normalize": OrNone(OneOf(fit_check.NORMALIZATIONS)), "regress": OneOf(("samples", "means"))},
    where="fit",
)
def fit_measurements(
    path: str | Path, model: str, confidence: float = CONFIDENCE,
    max_util_pct: float | None = None, normalize: str | None = None,
    regress: str = "samples",
) -> FitResult:
    """Read the ``model`` rows of a measurement CSV and fit that model (``vsizer fit``).

    Parameters
    ----------
    path : str or Path
        Measurement CSV (:func:`vsizer.models.measurements.read_measurements`).
    model : {'cpu', 'disk', 'network'}
        The model to fit.
    confidence : float
        Confidence level of the intervals, in (0, 1).
    max_util_pct : float, optional
        cpu: keep the samples with ``total_util_pct`` at most this [%].
    normalize : {'mu350'}, optional
        cpu: per-VM performance = ``mu / 350`` with ``mu = lambda / (rho / 100)``
        (or the ``mu`` column), the published VMware ESX 2.5.2 normalization.
    regress : {'samples', 'means'}
        cpu: fit the line to the samples or to the mean per VM count.

    Returns
    -------
    FitResult
        As :func:`fit_cpu`, :func:`fit_disk` or :func:`fit_network`.

    Raises
    ------
    ConfigError
        ``max_util_pct``, ``normalize`` or ``regress = 'means'`` with a model other
        than cpu.
    """
    cpu_only = [n for n, v in (("--max-util-pct", max_util_pct), ("--normalize", normalize),
                               ("--regress means", None if regress == "samples" else regress))
                if v is not None]
    if cpu_only and model != "cpu":
        raise ConfigError(f"fit: {', '.join(cpu_only)} apply to --model cpu only, got --model {model}.")
    frame = read_measurements(path, model)
    name = Path(path).name
    if max_util_pct is not None:
        frame = fit_check.select_max_util(frame, max_util_pct, name)
    if normalize == "mu350":
        frame = fit_check.normalize_mu(
            frame, OVERHEAD_MODEL_PARAMETERS["cpu"]["esx252"]["baseline_mu"], name)
    if model == "cpu":
        return fit_cpu(frame, confidence, regress)
    return FITTERS[model](frame, confidence)
