"""Load rank A/B/C of each server, derived from its CPU utilization when the
inventory gives none.

The design method ranks every server "by importance and by load (A/B/C)" but
states no thresholds. vsizer's rule (chosen, and stated in the warning
``derived_load_rank``): rank by peak CPU utilization, or by the average where
the peak is unknown, against the method's usable-capacity ceiling of 60 %:

- **A**: peak >= 60 % (the server alone reaches the ceiling a host is run at);
- **B**: 30 % <= peak < 60 % (at least half the ceiling);
- **C**: peak < 30 %.

A rank given in the inventory is kept as it is; a server whose utilization is
missing or only assumed (``--assume-util``) is left without a rank.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from vsizer.quality import QualityReport

__all__ = ["LOAD_RANK_A", "LOAD_RANK_B", "RULE_NOTE", "derive_load_rank", "load_rank_of"]

#: Peak CPU utilization [fraction] from which a server ranks A (the 60 % rule).
LOAD_RANK_A = 0.60
#: Peak CPU utilization [fraction] from which a server ranks B (half of A).
LOAD_RANK_B = 0.30

#: Provenances of a utilization a rank is not derived from.
_NOT_MEASURED = ("assumed", "missing")

RULE_NOTE = (
    "A/B/C from peak CPU utilization (the average where no peak): A >= 60 % "
    "(the 60 % usable-capacity ceiling), B >= 30 %, C below; a rule chosen by "
    "vsizer, the method states no thresholds; fill the load rank column to override"
)


def load_rank_of(util: float) -> str | None:
    """The load rank of one utilization [fraction]; ``None`` for NaN.

    Examples
    --------
    >>> [load_rank_of(u) for u in (0.6, 0.59, 0.3, 0.29, 0.0)]
    ['A', 'B', 'B', 'C', 'C']
    """
    if util != util:  # NaN
        return None
    if util >= LOAD_RANK_A:
        return "A"
    return "B" if util >= LOAD_RANK_B else "C"


def derive_load_rank(servers: pd.DataFrame, quality: QualityReport) -> pd.DataFrame:
    """``servers`` with ``load_rank`` filled where empty, by :func:`load_rank_of`.

    Each filled server is recorded ``load_rank`` = derived with
    :data:`RULE_NOTE`, and ``quality`` gets one counted warning
    ``derived_load_rank`` naming them. Returns ``servers`` itself when nothing is filled.
    """
    n = len(servers)
    given = (
        servers["load_rank"].astype("string").str.strip().fillna("")
        if "load_rank" in servers else pd.Series([""] * n, index=servers.index)
    )
    names = servers["name"].astype(str).tolist()
    peak = _util(servers, "cpu_peak_util", n, names, quality)
    avg = _util(servers, "cpu_avg_util", n, names, quality)
    util = np.where(np.isnan(peak), avg, peak)
    ranks = given.tolist()
    filled: list[str] = []
    for i, u in enumerate(util.tolist()):
        if ranks[i]:
            continue
        r = load_rank_of(u)
        if r is None:
            continue
        ranks[i] = r
        filled.append(names[i])
    quality.record_many(filled, "load_rank", "derived", RULE_NOTE)
    if not filled:
        return servers
    count = f"{len(filled)} server{'s' if len(filled) != 1 else ''}"
    quality.warn("derived_load_rank", f"load_rank derived for {count}: {RULE_NOTE}.", filled)
    out = servers.copy()
    out["load_rank"] = pd.array([r or pd.NA for r in ranks], dtype="string")
    return out


def _util(servers: pd.DataFrame, col: str, n: int, names: list[str],
          quality: QualityReport) -> np.ndarray:
    """The column [fraction]; NaN where missing or only assumed (a rank is not
    derived from an assumed utilization)."""
    if col not in servers:
        return np.full(n, np.nan)
    out = pd.to_numeric(servers[col], errors="coerce").to_numpy(
        dtype=float, na_value=np.nan, copy=True)
    for i, name in enumerate(names):
        if quality.entries.get(name, {}).get(col, ("given", ""))[0] in _NOT_MEASURED:
            out[i] = np.nan
    return out
