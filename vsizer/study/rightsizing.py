"""Right-sizing of a plan's VMs (issue 16 item 6): a recommended size for every
VM whose measured peak stays below its vCPUs or memory, by the rules of
:mod:`vsizer.models.rightsize`, applied before placement with ``--rightsize``.

Only measured peaks count: a VM's CPU peak must be given by the inventory or
derived from its series (quality status ``given`` or ``derived``), its memory
in use likewise (``mem_used_gib``). VMs whose peak was estimated (from the
average, or from the host's share) or assumed get no recommendation and are
counted in ``skipped``.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from vsizer.models.rightsize import (
    HEADROOM,
    MEM_STEP_GIB,
    recommended_mem_gib,
    recommended_vcpus,
)
from vsizer.quality import QualityReport

#: Quality statuses of a peak that right-sizing reads (measured, not guessed).
MEASURED = ("given", "derived")

#: The rule, as the plan document states it.
RULE = (
    f"vCPUs = next power of two >= ceil(peak CPU demand in cores x {HEADROOM:g}), "
    f"at least 1; memory = memory in use x {HEADROOM:g} rounded up to a whole "
    f"{MEM_STEP_GIB:g} GiB; only smaller than the VM's size, only from measured peaks "
    "(VMware, Performance Best Practices for VMware vSphere 8.0: configure only the "
    "vCPUs the workload can use)"
)

#: Predicted risks that mean a VM is short of vCPUs (:mod:`vsizer.study.predict`).
SHORT_RISKS = ("cpu-saturated", "response-time-unbounded")


@dataclass(frozen=True)
class VmRecommendation:
    """A VM's size now and recommended (equal where no change is recommended)."""

    name: str
    vcpus: int
    vcpus_recommended: int
    mem_gib: float
    mem_gib_recommended: float
    reason: str


@dataclass(frozen=True)
class RightSizing:
    """The right-sizing of a plan.

    ``vms``: one row per VM with a recommendation; ``skipped``: VMs without a
    measured peak (counted, not sized); ``applied``: the plan's demand uses the
    recommended sizes; ``hosts_before`` / ``hosts_after``: hosts without and with
    them (only when applied); ``short_of_vcpus``: VMs the predictions find
    saturated (only with predictions).
    """

    vms: tuple[VmRecommendation, ...] = ()
    skipped: int = 0
    applied: bool = False
    hosts_before: int | None = None
    hosts_after: int | None = None
    short_of_vcpus: tuple[dict[str, Any], ...] | None = None
    rule: str = field(default=RULE)

    @property
    def vcpus_freed(self) -> int:
        return sum(v.vcpus - v.vcpus_recommended for v in self.vms)

    @property
    def mem_gib_freed(self) -> float:
        return sum(v.mem_gib - v.mem_gib_recommended for v in self.vms)


def _num(value: Any) -> float | None:
    if value is None or value is pd.NA:
        return None
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return out if math.isfinite(out) else None


def _measured(quality: QualityReport, name: str, field_name: str) -> bool:
    return quality.status(name, field_name) in MEASURED


#: The models' recommendations remembered per demand (a fleet repeats its
#: sizes and percentages; a demand the model refuses raises each time).
_vcpus_for = functools.lru_cache(maxsize=1 << 16)(recommended_vcpus)
_mem_for = functools.lru_cache(maxsize=1 << 16)(recommended_mem_gib)


def _vm(row: Mapping[Any, Any], quality: QualityReport) -> VmRecommendation | None | bool:
    """The VM's recommendation, None when none is due, False when it has no
    measured peak (skipped)."""
    name = str(row["name"])
    vcpus, peak = _num(row.get("vcpus")), _num(row.get("cpu_peak_util"))
    mem, used = _num(row.get("mem_gib")), _num(row.get("mem_used_gib"))
    cpu_ok = vcpus is not None and vcpus >= 1 and peak is not None and _measured(
        quality, name, "cpu_peak_util")
    mem_ok = mem is not None and used is not None and _measured(
        quality, name, "mem_used_gib")
    if not cpu_ok and not mem_ok:
        return False
    reasons = []
    v_now = int(vcpus) if vcpus is not None else 0
    v_rec = v_now
    if cpu_ok:
        assert vcpus is not None and peak is not None
        cores = peak * vcpus
        cand = _vcpus_for(cores)
        if cand < v_now:
            v_rec = cand
            reasons.append(
                f"CPU peak {peak:.0%} of {v_now} vCPUs = {cores:.3g} cores; "
                f"x {HEADROOM:g} -> {cand} vCPUs"
            )
    m_now = mem if mem is not None else 0.0
    m_rec = m_now
    if mem_ok:
        assert used is not None
        cand_m = _mem_for(min(used, m_now))
        if cand_m < m_now:
            m_rec = cand_m
            reasons.append(
                f"memory in use {used:.3g} GiB of {m_now:.3g}; x {HEADROOM:g} -> "
                f"{cand_m:g} GiB"
            )
    if not reasons:
        return None
    return VmRecommendation(name, v_now, v_rec, m_now, m_rec, "; ".join(reasons))


_VM_COLUMNS = ("name", "vcpus", "cpu_peak_util", "mem_gib", "mem_used_gib")


def recommend(servers: pd.DataFrame, quality: QualityReport) -> RightSizing:
    """The recommendations for ``servers`` (plan rows after normalization)."""
    vms: list[VmRecommendation] = []
    skipped = 0
    used = [c for c in _VM_COLUMNS if c in servers]  # the columns _vm reads
    columns = [servers[c].tolist() for c in used]  # plain values, not a dict per row
    for values in zip(*columns, strict=True):
        got = _vm(dict(zip(used, values, strict=True)), quality)
        if got is False:
            skipped += 1
        elif isinstance(got, VmRecommendation):
            vms.append(got)
    return RightSizing(tuple(vms), skipped)


def apply(servers: pd.DataFrame, rs: RightSizing) -> pd.DataFrame:
    """``servers`` with the recommended vCPUs and memory (a copy)."""
    out = servers.copy()
    by_name = {v.name: v for v in rs.vms}
    names = out["name"].astype(str)
    rows = names.isin(list(by_name)).to_numpy()
    if not rows.any():
        return out
    vcpus = out["vcpus"].astype("Float64").to_numpy(dtype=float, na_value=np.nan)
    mem = out["mem_gib"].astype(float).to_numpy(copy=True)
    for i in rows.nonzero()[0].tolist():
        v = by_name[names.iloc[i]]
        vcpus[i] = float(v.vcpus_recommended)
        mem[i] = v.mem_gib_recommended
    out["vcpus"] = pd.array(vcpus, dtype="Float64").astype("Int64")
    out["mem_gib"] = mem
    out["vcpus"] = out["vcpus"].astype("Int64")
    return out


def with_short_of_vcpus(
    rs: RightSizing, predictions: dict[str, Any]
) -> RightSizing:
    """``rs`` with the VMs the predictions find saturated (short of vCPUs): the
    vCPUs they would need at the same headroom."""
    short = []
    for vm in predictions.get("vms", []):
        risks = [r for r in vm.get("risks", []) if r in SHORT_RISKS]
        if not risks:
            continue
        vcpus = int(vm.get("vcpus") or 1)
        util = _num(vm.get("cpu_util")) or 0.0
        short.append({
            "name": str(vm["name"]),
            "vcpus": vcpus,
            "cpu_util": util,
            "vcpus_needed": recommended_vcpus(util * vcpus),
            "risks": risks,
        })
    return dataclasses.replace(rs, short_of_vcpus=tuple(short))


def rightsizing_doc(rs: RightSizing | None, *, rows: bool = True) -> dict[str, Any] | None:
    """The ``rightsizing`` section of the plan document (formatting only);
    ``rows=False``: ``vms`` empty (they are in the plan's detail file)."""
    from vsizer._jsonable import jsonable as _r

    if rs is None:
        return None
    return {
        "rule": rs.rule,
        "applied": rs.applied,
        "vms": [
            {
                "name": v.name,
                "vcpus": v.vcpus,
                "vcpus_recommended": v.vcpus_recommended,
                "mem_gib": _r(v.mem_gib),
                "mem_gib_recommended": _r(v.mem_gib_recommended),
                "reason": v.reason,
            }
            for v in (rs.vms if rows else ())
        ],
        "skipped_not_measured": rs.skipped,
        "totals": {
            "vms": len(rs.vms),
            "vcpus_freed": rs.vcpus_freed,
            "mem_gib_freed": _r(rs.mem_gib_freed),
            "hosts_before": rs.hosts_before,
            "hosts_after": rs.hosts_after,
        },
        "short_of_vcpus": (
            None if rs.short_of_vcpus is None
            else [{**s, "cpu_util": _r(s["cpu_util"])} for s in rs.short_of_vcpus]
        ),
    }
