"""CPU normalization: every server's CPU capacity and demand in the host's unit.

Synopsis
--------
Clock rates are not comparable across CPU generations; benchmark scores are
[1]_. :func:`normalize_cpu` puts each server's CPU in one *capacity
unit*, the host's, so demands can be summed and compared with
:func:`host_cpu_capacity`::

    capacity = cores x per-core score
    demand   = capacity x utilization      (average and peak)

Rules
-----
**The unit.** If the host model has a per-core score, the unit is its basis
(``host.cpu_score_basis``, e.g. ``SPECrate2017_int_base``). Otherwise it is
``MHz`` and every "score" is a clock rate.

**Per-core score of a server, first rule that applies** (``score_source``):

1. ``inventory`` (given) — the server's own ``cpu_score_per_core``, when its
   ``cpu_score_basis`` equals the host's or either is ``unstated`` (a missing
   basis counts as unstated: any consistent benchmark will do). A score must
   lie in the plausible range of its basis (the host's when unstated), see
   :mod:`vsizer.catalogs.score_bridge`; otherwise it is an error naming the
   basis it looks like.
1b. ``bridge`` (estimated) — the server's own score in another basis with a
   sourced bridge to the host's (SPECint_rate2006 -> SPECrate2017_int_base;
   SPECint2000 -> SPECint_rate2006 -> SPECrate2017_int_base, chained),
   converted by the bridge factor; the note states the factor and its error.
   A score in a basis without a bridge is not used: a plan warning
   ``score_basis_unconverted`` names the servers.
2. ``catalog`` (derived) — the CPU catalog's score for ``cpu_name`` in the
   host's basis; ``catalog-bridge`` (estimated) when the catalog has the CPU
   only in a bridged basis.
3. ``host-ratio`` (assumed) — ``cpu_mhz x host score / host MHz``: the old
   CPU is taken to do as much work per clock as the host's. Older generations
   do less, so this *overstates* their capacity and demand: conservative for
   sizing, pessimistic for consolidation ratios.
4. In MHz mode: ``mhz`` — ``cpu_mhz``.
5. ``option`` (assumed) — no score and no clock: the clock given by
   ``plan --vm-cpu-mhz`` (``assume_mhz``), then rule 3 (or 4 in MHz mode).
6. ``host-core`` (assumed) — still nothing: each of the server's cores is
   taken as one core of the host (the host's per-core score, or its clock in
   MHz mode). A 1:1 core assumption: right for a server of the host's
   generation; for an older one it overstates capacity and demand
   (conservative for sizing, like rule 3). With ``unknown_cpu='error'`` such
   a server is an error instead (:class:`~vsizer.errors.InventoryError`,
   listing every such server and the columns and flags that would help).

A missing ``cpu_mhz`` or ``cores_per_socket`` is filled from the catalog entry
of ``cpu_name`` (any basis; derived).

**Cores.** ``sockets x cores_per_socket``; if either is missing, ``vcpus``
(VMs from RVTools; noted). With none of them the server is an error.

**Utilization.** The missing-data policy of :mod:`vsizer.missing`: the
readers already estimate a missing peak from the average (or the reverse) by
the file's peak-to-average factor; a frame that still has such a gap gets the
same rule here (estimated). Both missing: both = ``assume_util``
(``--assume-util``, assumed). Values must be fractions in [0, 1].

**Output.** A copy of the servers with ``cpu_score_per_core`` (the score
used), ``cpu_score_basis`` (the unit), ``score_source``, ``cpu_capacity``,
``cpu_avg_demand``, ``cpu_peak_demand``; ``cores_per_socket``, ``cpu_mhz``,
``cpu_avg_util`` and ``cpu_peak_util`` filled where derived or assumed. The
quality report gets ``cpu_capacity``, ``cpu_avg_util`` and ``cpu_peak_util``
(and ``cores_per_socket``/``cpu_mhz`` when taken from the catalog).

References
----------
.. [1] SPEC, "SPEC CPU2000 results," https://www.spec.org/cpu2000/results/
   (CINT2000: the MHz/SPECint2000 ratio differs across Xeon generations).
.. [2] SPEC, "SPEC CPU2017 results," https://www.spec.org/cpu2017/results/.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from vsizer._validation import Interval, OneOf, OrNone, validate_params
from vsizer.catalogs._cpu_provenance import (
    MHZ_UNIT,
    CpuResolution,
    record_cpu_provenance,
    utilization,
)
from vsizer.catalogs._cpu_provenance import fmt as _fmt
from vsizer.catalogs.cpu_catalog import CpuCatalog
from vsizer.catalogs.model import UNSTATED_BASIS, CpuEntry, HostModel
from vsizer.catalogs.score_bridge import (
    bridge,
    bridge_scores,
    score_range_problems,
)
from vsizer.errors import CatalogError, InventoryError
from vsizer.quality import QualityReport

__all__ = ["MHZ_UNIT", "host_cpu_capacity", "normalize_cpu"]


def host_cpu_capacity(host: HostModel, unit: str) -> float:
    """CPU capacity of one host in ``unit``.

    Parameters
    ----------
    host : HostModel
    unit : str
        ``'MHz'`` or the host's score basis, as returned by :func:`normalize_cpu`.

    Returns
    -------
    float
        ``cores x cpu_mhz`` [MHz] or ``cores x cpu_score_per_core`` [unit].
        Physical cores: Hyper-Threading adds no capacity here.

    Raises
    ------
    CatalogError
        If the host has no score in ``unit``.
    """
    if unit == MHZ_UNIT:
        return float(host.cores * host.cpu_mhz)
    if host.cpu_score_per_core is not None and unit == host.cpu_score_basis:
        return float(host.cores * host.cpu_score_per_core)
    have = (
        f"'{host.cpu_score_basis}'" if host.cpu_score_per_core is not None else "none"
    )
    raise CatalogError(
        f"Host model '{host.model}' has no CPU score in '{unit}' (its score basis: "
        f"{have}); expected 'MHz' or the host's basis."
    )


def _num(servers: pd.DataFrame, col: str) -> np.ndarray:
    if col not in servers:
        return np.full(len(servers), np.nan)
    return pd.to_numeric(servers[col], errors="coerce").astype(float).to_numpy()


def _text(servers: pd.DataFrame, col: str) -> np.ndarray:
    if col not in servers:
        return np.full(len(servers), "", dtype=object)
    s = servers[col].astype("object")
    return s.where(s.notna(), "").map(lambda v: str(v).strip()).to_numpy(dtype=object)


@dataclass(frozen=True)
class _InventoryCpu:
    """The inventory's CPU columns as arrays (NaN / '' where absent)."""

    names: np.ndarray
    score: np.ndarray
    basis: np.ndarray
    mhz: np.ndarray
    sockets: np.ndarray
    cps: np.ndarray
    vcpus: np.ndarray
    avg: np.ndarray
    peak: np.ndarray
    cpu_names: np.ndarray

    @classmethod
    def of(cls, servers: pd.DataFrame) -> _InventoryCpu:
        names = _text(servers, "name")
        names = np.where(names == "", [str(i) for i in servers.index], names)
        return cls(
            names=names,
            score=_num(servers, "cpu_score_per_core"),
            basis=_text(servers, "cpu_score_basis"),
            mhz=_num(servers, "cpu_mhz"),
            sockets=_num(servers, "sockets"),
            cps=_num(servers, "cores_per_socket"),
            vcpus=_num(servers, "vcpus"),
            avg=_num(servers, "cpu_avg_util"),
            peak=_num(servers, "cpu_peak_util"),
            cpu_names=_text(servers, "cpu_name"),
        )


@dataclass(frozen=True)
class _CatalogCpu:
    """Per server, the CPU catalog's entry for its ``cpu_name`` (NaN / '' if none)."""

    score: np.ndarray  # per-core score in the unit (converted when bridged)
    bridged: np.ndarray  # the score was converted from another basis
    mhz: np.ndarray
    cores: np.ndarray
    label: np.ndarray  # "{cpu}: {source}[; converted ...]"

    @staticmethod
    def fills(given: np.ndarray, catalog: np.ndarray) -> np.ndarray:
        """Where the catalog fills a missing inventory value."""
        return np.isnan(given) & ~np.isnan(catalog)


def _catalog_cpu(
    catalog: CpuCatalog, cpu_names: np.ndarray, unit: str, score_mode: bool
) -> _CatalogCpu:
    """Look every distinct CPU name up once and spread the entry over its servers."""
    n = len(cpu_names)
    out = _CatalogCpu(np.full(n, np.nan), np.zeros(n, dtype=bool), np.full(n, np.nan),
                      np.full(n, np.nan), np.full(n, "", dtype=object))
    codes, uniques = pd.factorize(cpu_names)
    for k, cpu in enumerate(uniques):
        if not cpu:
            continue
        scored, factor, via = _catalog_score(catalog, cpu, unit, score_mode)
        entry = scored or catalog.lookup(cpu)
        if entry is None:
            continue
        rows = codes == k
        if scored is not None and scored.score_per_core is not None:
            out.score[rows] = scored.score_per_core * factor
            out.bridged[rows] = bool(via)
        out.mhz[rows], out.cores[rows] = entry.cpu_mhz, entry.cores
        out.label[rows] = f"{entry.cpu_name}: {entry.source}" + (
            f"; converted {via}" if via else ""
        )
    return out


def _no_cpu_problems(
    inv: _InventoryCpu, unknown: np.ndarray, unit: str, score_mode: bool
) -> list[str]:
    """One line per server with no CPU score or clock (``unknown_cpu='error'``)."""
    return [f"server '{inv.names[j]}': {_no_cpu_text(unit, score_mode, inv.cpu_names[j])}"
            for j in np.flatnonzero(unknown)]


def _input_problems(inv: _InventoryCpu, score_unit: str) -> list[str]:
    """Values out of range, then scores implausible for their basis (``score_unit``
    stands for an unstated basis; '' in MHz mode)."""
    problems = _range_problems(inv.names, inv.score, inv.mhz, inv.sockets, inv.cps,
                               inv.vcpus, inv.avg, inv.peak)
    return problems + score_range_problems(
        inv.names, np.where(inv.score > 0, inv.score, np.nan), inv.basis, score_unit
    )


def _cores(
    inv: _InventoryCpu, cps_eff: np.ndarray
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Cores (sockets x cores per socket, else vCPUs), whether physical, problems."""
    physical = ~np.isnan(inv.sockets) & ~np.isnan(cps_eff)
    by_vcpus = ~physical & ~np.isnan(inv.vcpus)
    problems = [
        f"server '{inv.names[j]}': no core count: add sockets and cores_per_socket, "
        "or vcpus, to the inventory (e.g. an Azure Migrate 'Cores' column)."
        for j in np.flatnonzero(~physical & ~by_vcpus)
    ]
    return np.where(physical, inv.sockets * cps_eff, inv.vcpus), physical, problems


def _warn_mhz_unused(
    quality: QualityReport, assume_mhz: float | None, src: np.ndarray
) -> None:
    """Warn when ``--vm-cpu-mhz`` was given but no server needed it."""
    if assume_mhz is not None and not (src == "option").any():
        quality.warn(
            "vm_cpu_mhz_unused",
            f"--vm-cpu-mhz {assume_mhz:g} was not used: every server's CPU capacity "
            "comes from the inventory (cpu_score_per_core or cpu_mhz) or from the "
            "CPU catalog (cpu_name).",
        )


def _write_columns(
    out: pd.DataFrame,
    r: CpuResolution,
    unit: str,
    capacity: np.ndarray,
    util: tuple[np.ndarray, np.ndarray],
) -> None:
    """Store the normalized columns; ``util`` = (average, peak) as used."""
    avg_eff, peak_eff = util
    out["cpu_score_per_core"] = pd.array(r.per_core, dtype="Float64")
    out["cpu_score_basis"] = pd.array(np.full(len(out), unit, dtype=object), dtype="string")
    out["score_source"] = pd.array(r.src.astype(object), dtype="string")
    out["cpu_mhz"] = pd.array(r.mhz, dtype="Float64")
    out["cores_per_socket"] = pd.array(
        np.where(np.isnan(r.cps), np.nan, np.round(r.cps)), dtype="Float64"
    ).astype("Int64")
    out["cpu_avg_util"] = pd.array(avg_eff, dtype="Float64")
    out["cpu_peak_util"] = pd.array(peak_eff, dtype="Float64")
    out["cpu_capacity"] = capacity
    out["cpu_avg_demand"] = capacity * avg_eff
    out["cpu_peak_demand"] = capacity * peak_eff


def _per_core(
    host: HostModel,
    unit: str,
    score: np.ndarray,
    basis: np.ndarray,
    catalog: tuple[np.ndarray, np.ndarray],
    mhz_eff: np.ndarray,
    assume_mhz: float | None,
    report: tuple[QualityReport, np.ndarray],
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per-core score, its source, the clock used, the servers with neither and
    the bridge's note per server (empty where no score was converted).

    Rules in order (module docstring): the inventory's score (in the host's
    basis, else converted by the published-ratio bridge, source ``bridge``),
    the catalog's (``catalog-bridge`` when converted), the clock (given, from
    the catalog, else ``assume_mhz`` = source ``option``) scaled by the host's
    score per MHz; servers left are ``unknown`` and get the host's own
    per-core score (``host-core``). ``catalog`` = (catalog score per server,
    whether it was converted); ``report`` = (quality, server names) for the
    warning on scores that could not be converted.
    """
    cat_score, cat_bridged = catalog
    n = len(score)
    score_mode = host.cpu_score_per_core is not None
    option = np.isnan(mhz_eff) & (assume_mhz is not None)
    bridged = np.zeros(n, dtype=bool)
    conv = np.full(n, np.nan)
    conv_note = np.full(n, "", dtype=object)
    if score_mode:
        basis_ok = (
            (basis == unit)
            | np.isin(basis, ["", UNSTATED_BASIS])
            | (unit == UNSTATED_BASIS)
        )
        own = ~np.isnan(score) & basis_ok
        conv, conv_note = bridge_scores(score, np.where(basis_ok, "", basis), unit)
        bridged = ~own & ~np.isnan(conv)
        quality, names = report
        _warn_unconverted(quality, names, score, basis, ~basis_ok & ~bridged, unit)
        from_cat = ~own & ~bridged & ~np.isnan(cat_score)
        option &= ~own & ~bridged & ~from_cat
    else:
        own = from_cat = np.zeros(n, dtype=bool)
    if assume_mhz is not None:
        mhz_eff = np.where(option, float(assume_mhz), mhz_eff)
    unknown = ~own & ~bridged & ~from_cat & np.isnan(mhz_eff)
    if score_mode:
        host_core = float(host.cpu_score_per_core)  # type: ignore[arg-type]
        by_clock = mhz_eff * host_core / host.cpu_mhz
        per_core = np.where(
            own,
            score,
            np.where(bridged, conv, np.where(from_cat, cat_score, by_clock)),
        )
        src = np.where(own, "inventory", np.where(from_cat, "catalog", "host-ratio"))
        src = np.where(bridged, "bridge", src)
        src = np.where(from_cat & cat_bridged, "catalog-bridge", src)
    else:
        host_core = float(host.cpu_mhz)
        per_core, src = mhz_eff.copy(), np.full(n, "mhz", dtype=object)
    src = np.where(option, "option", src).astype(object)
    per_core = np.where(unknown, host_core, per_core)
    return per_core, src, mhz_eff, unknown, conv_note


def _no_cpu_text(unit: str, score_mode: bool, cpu_name: str) -> str:
    """Why a server has no CPU capacity, and the columns and flags that give one."""
    cpu = (
        f"cpu_name '{cpu_name}' is not in the CPU catalog"
        if cpu_name
        else "no cpu_name"
    )
    what = (
        f"no CPU score in {unit} and no clock rate" if score_mode else "no clock rate"
    )
    return (
        f"{what} ({cpu}): add a cpu_mhz column (or cpu_score_per_core with "
        "cpu_score_basis) to the inventory, pass --vm-cpu-mhz F for servers "
        "without a clock, or give the CPU in a catalog with --cpus."
    )


@validate_params(
    {
        "assume_util": Interval(float, 0.0, 1.0),
        "assume_mhz": OrNone(Interval(float, 0.0, None, closed="neither")),
        "unknown_cpu": OneOf(("host-core", "error")),
    },
    where="normalize_cpu",
)
def normalize_cpu(
    servers: pd.DataFrame,
    host: HostModel,
    cpu_catalog: CpuCatalog,
    quality: QualityReport,
    *,
    assume_util: float = 1.0,
    assume_mhz: float | None = None,
    unknown_cpu: str = "host-core",
) -> tuple[pd.DataFrame, str]:
    """CPU capacity and demand of every server in the host's capacity unit.

    Parameters
    ----------
    servers : DataFrame
        Canonical inventory columns (:data:`vsizer.inventory.model.COLUMNS`);
        absent columns count as missing.
    host : HostModel
        Target host model; its score basis (or MHz) is the unit.
    cpu_catalog : CpuCatalog
        Scores, cores and clocks by CPU name.
    quality : QualityReport
        Updated in place (see module docstring).
    assume_util : float, default 1.0
        Utilization [fraction] for servers with neither average nor peak.
    assume_mhz : float, optional
        Clock rate [MHz] of servers with no usable score and no clock rate
        (``plan --vm-cpu-mhz``); their per-core score follows the
        ``host-ratio`` rule (source ``option``, assumed).
    unknown_cpu : {'host-core', 'error'}, default 'host-core'
        A server still without score or clock: ``'host-core'`` takes each of
        its cores as one core of the host (assumed); ``'error'`` raises.

    Returns
    -------
    servers : DataFrame
        A copy with the columns listed in the module docstring.
    unit : str
        The capacity unit: the host's score basis or ``'MHz'``.

    Raises
    ------
    InventoryError
        Listing every server with no usable score or clock rate, no core count,
        or a utilization / count outside its range.
    ConfigError
        If ``assume_util`` is not in [0, 1].

    Examples
    --------
    In MHz: 3000 MHz x 2 cores x 20 % = 1200 MHz on a host of 8 x 2260 =
    18080 MHz, so CPU allows 18080 / 1200 = 15 such VMs.
    """
    out = servers.copy()
    score_mode = host.cpu_score_per_core is not None
    unit = host.cpu_score_basis if score_mode else MHZ_UNIT
    inv = _InventoryCpu.of(out)
    problems = _input_problems(inv, unit if score_mode else "")
    cat = _catalog_cpu(cpu_catalog, inv.cpu_names, unit, score_mode)
    mhz_from_cat, cps_from_cat = cat.fills(inv.mhz, cat.mhz), cat.fills(inv.cps, cat.cores)
    cps_eff = np.where(cps_from_cat, cat.cores, inv.cps)
    per_core, src, mhz_eff, unknown, conv_note = _per_core(
        host, unit, inv.score, inv.basis, (cat.score, cat.bridged),
        np.where(mhz_from_cat, cat.mhz, inv.mhz), assume_mhz, (quality, inv.names),
    )
    _warn_mhz_unused(quality, assume_mhz, src)
    if unknown_cpu == "error":
        problems += _no_cpu_problems(inv, unknown, unit, score_mode)
    else:
        src = np.where(unknown, "host-core", src)
    cores, physical, core_problems = _cores(inv, cps_eff)
    if problems + core_problems:
        raise InventoryError(problems + core_problems)
    avg_eff, peak_eff, util_state, util_notes = utilization(inv.avg, inv.peak, assume_util)
    resolved = CpuResolution(
        inv.names, inv.score, inv.basis, inv.sockets, inv.vcpus, per_core, src, mhz_eff,
        cps_eff, physical, mhz_from_cat, cps_from_cat, cat.label, conv_note)
    _write_columns(out, resolved, unit, cores * per_core, (avg_eff, peak_eff))
    record_cpu_provenance(quality, host, unit, resolved, (util_state, util_notes, assume_util))
    return out, unit


def _catalog_score(
    catalog: CpuCatalog, cpu: str, unit: str, score_mode: bool
) -> tuple[CpuEntry | None, float, str]:
    """Catalog entry scored in ``unit``, else in a basis bridged to it.

    Returns (entry or None, factor to ``unit``, bridge note or '').
    """
    if not score_mode:
        return None, 1.0, ""
    direct = catalog.lookup(cpu, unit)
    if direct is not None:
        return direct, 1.0, ""
    for entry in catalog.candidates(cpu):
        found = bridge(entry.basis, unit) if entry.score_per_core else None
        if found is not None:
            return entry, found.factor, found.note()
    return None, 1.0, ""


def _warn_unconverted(
    quality: QualityReport,
    names: np.ndarray,
    score: np.ndarray,
    basis: np.ndarray,
    candidates: np.ndarray,
    unit: str,
) -> None:
    """Warn about scores in a basis with no bridge to ``unit`` (left unused)."""
    rows = candidates & ~np.isnan(score)
    for b in sorted(set(str(x) for x in basis[rows])):
        servers = [str(x) for x in names[rows & (basis == b)]]
        quality.warn(
            "score_basis_unconverted",
            f"{len(servers)} server(s) have CPU scores in {b}, which cannot be "
            f"converted to the host's {unit}: no CPU with published results in "
            "both suites is in the shipped data. The scores were not used; CPU "
            "capacity comes from the CPU catalog (cpu_name) or the clock rate "
            "(cpu_mhz). Give scores in the host's basis, or choose a host model "
            f"scored in {b} (--host-model, --hosts).",
            servers,
        )


def _range_problems(
    names: np.ndarray,
    score: np.ndarray,
    mhz: np.ndarray,
    sockets: np.ndarray,
    cps: np.ndarray,
    vcpus: np.ndarray,
    avg: np.ndarray,
    peak: np.ndarray,
) -> list[str]:
    """One line per value outside its range, server by server."""
    checks = (
        ("cpu_score_per_core", score, "a positive number", lambda v: v > 0),
        ("cpu_mhz", mhz, "a positive number", lambda v: v > 0),
        ("sockets", sockets, "a positive integer", lambda v: v >= 1),
        ("cores_per_socket", cps, "a positive integer", lambda v: v >= 1),
        ("vcpus", vcpus, "a positive integer", lambda v: v >= 1),
        ("cpu_avg_util", avg, "a fraction in [0, 1]", lambda v: (v >= 0) & (v <= 1)),
        ("cpu_peak_util", peak, "a fraction in [0, 1]", lambda v: (v >= 0) & (v <= 1)),
    )
    bad_rows: list[tuple[int, str]] = []
    for col, values, what, ok in checks:
        with np.errstate(invalid="ignore"):
            bad = ~np.isnan(values) & ~ok(values)
        bad_rows += [
            (
                int(i),
                f"server '{names[i]}', column '{col}': expected {what}, "
                f"got '{_fmt(values[i])}'.",
            )
            for i in np.flatnonzero(bad)
        ]
    return [text for _, text in sorted(bad_rows, key=lambda t: t[0])]
