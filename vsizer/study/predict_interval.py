"""The interval around each CPU prediction, and whose measurement it rests on.

A prediction ``r`` is given with ``[r (1 - e), r (1 + e)]``, ``e`` the relative
root-mean-square error of the CPU model out of sample: each VM count (or tile
count) left out of the fit in turn, the model refitted without it and asked to
predict it (``vsizer fit``, "leave-one-group-out"). With the published
coefficients ``e`` is that error on the published VMware ESX 2.5.2 table
(:data:`vsizer.models.parameters.OVERHEAD_MODEL_PARAMETERS`); with a profile
written by ``vsizer fit`` it is the error of that fit, and the profile's own
source replaces the published measurement as the citation.

References
----------
.. [1] M. Stone, "Cross-validatory choice and assessment of statistical
   predictions," *J. R. Stat. Soc. B*, vol. 36, no. 2, pp. 111-147, 1974,
   :doi:`10.1111/j.2517-6161.1974.tb00994.x`.
"""

from __future__ import annotations

from typing import Any

from vsizer._jsonable import rounded as _r
from vsizer.models.parameters import OVERHEAD_MODEL_PARAMETERS
from vsizer.models.profile import Profile

_P = OVERHEAD_MODEL_PARAMETERS["cpu"]["esx252"]


def cpu_interval_basis(profile: Profile) -> dict[str, Any]:
    """``{"relative_error", "basis", "source"}`` of the CPU prediction interval."""
    fit = profile.fits.get("cpu") or {}
    logo = fit.get("leave_one_group_out") or {}
    if fit and logo.get("rms_pct") is not None:
        return {
            "relative_error": _r(float(logo["rms_pct"]) / 100.0),
            "basis": f"leave-one-group-out RMS error of the fit to {fit.get('file', '?')} "
            f"({logo.get('n', '?')} samples, grouped by {', '.join(logo.get('group_by', []))})",
            "source": f"fitted profile: {profile.source} (vsizer fit {fit.get('file', '?')}, "
            f"{fit.get('samples', '?')} samples); model form of the published VMware ESX 2.5.2 "
            "measurement",
        }
    source = _P["source"]
    if fit:
        source = (f"fitted profile: {profile.source} (vsizer fit {fit.get('file', '?')}, "
                  f"{fit.get('samples', '?')} samples); interval from the published table")
    return {
        "relative_error": _r(_P["prediction_rms_error"]),
        "basis": "leave-one-VM-count-out RMS error of the model fitted to the published VMware "
        "ESX 2.5.2 table (19 rows)",
        "source": source,
    }


def add_cpu_intervals(entries: list[dict[str, Any]], relative_error: float) -> None:
    """Add ``relative_cpu_interval`` = [r (1 - e), r (1 + e)] to each entry in place."""
    for e in entries:
        r = e.get("relative_cpu")
        if r is not None:
            e["relative_cpu_interval"] = [_r(r * (1.0 - relative_error)),
                                          _r(r * (1.0 + relative_error))]
