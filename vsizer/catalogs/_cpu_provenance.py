"""Provenance of the CPU normalization: what the quality report says per server.

:func:`vsizer.catalogs.normalize.normalize_cpu` decides each server's per-core
score, clock and cores; :func:`record_cpu_provenance` writes, for every server,
where its CPU capacity and utilization came from (given, derived, estimated or
assumed) and the plan notes on the capacity unit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vsizer.catalogs.model import HostModel
from vsizer.missing import fill_cpu_util
from vsizer.quality import QualityReport, Status

#: Capacity unit when the host model has no per-core score.
MHZ_UNIT = "MHz"

#: Quality status of the capacity by the source of its per-core score.
STATUS: dict[str, Status] = {
    "inventory": "given",
    "bridge": "estimated",
    "catalog": "derived",
    "catalog-bridge": "estimated",
    "host-ratio": "assumed",
    "option": "assumed",
    "host-core": "assumed",
}


def fmt(x: float) -> str:
    """A number in a note: six significant digits."""
    return f"{x:.6g}"


@dataclass(frozen=True)
class CpuResolution:
    """Per server (arrays of one length): what the normalization used and why.

    ``score``, ``basis``, ``sockets`` and ``vcpus`` are the inventory's;
    ``per_core``, ``src``, ``mhz`` and ``cps`` the values used; ``physical``
    whether cores came from sockets x cores_per_socket; ``mhz_from_cat`` and
    ``cps_from_cat`` whether the clock / cores per socket came from the CPU
    catalog (``cat_label`` names the entry); ``conv_note`` the bridge's note.
    """

    names: np.ndarray
    score: np.ndarray
    basis: np.ndarray
    sockets: np.ndarray
    vcpus: np.ndarray
    per_core: np.ndarray
    src: np.ndarray
    mhz: np.ndarray
    cps: np.ndarray
    physical: np.ndarray
    mhz_from_cat: np.ndarray
    cps_from_cat: np.ndarray
    cat_label: np.ndarray
    conv_note: np.ndarray


def utilization(
    avg: np.ndarray, peak: np.ndarray, assume_util: float
) -> tuple[np.ndarray, np.ndarray, list[tuple[bool, bool, bool, bool]], dict[str, str]]:
    """Average and peak with :mod:`vsizer.missing` applied: one missing is
    estimated from the other, both missing are ``assume_util``. Also each
    server's state for :func:`_record_util` (plain values, fast in its loop)."""
    fill = fill_cpu_util(avg, peak)
    both = np.isnan(fill.avg)  # still NaN after the fill: both were missing
    state = list(zip(
        both.tolist(), fill.avg_estimated.tolist(), fill.peak_estimated.tolist(),
        fill.peak_capped.tolist(), strict=True,
    ))
    return (np.where(both, assume_util, fill.avg), np.where(both, assume_util, fill.peak),
            state, fill.notes())


def record_cpu_provenance(
    quality: QualityReport,
    host: HostModel,
    unit: str,
    r: CpuResolution,
    util: tuple[list[tuple[bool, bool, bool, bool]], dict[str, str], float],
) -> None:
    """Plan notes on the unit, then per server the capacity's and utilization's status.

    ``util`` = (per-server state and notes of :func:`utilization`, ``assume_util``).
    """
    score_mode = unit != MHZ_UNIT
    if not score_mode:
        quality.note(
            "CPU capacity is in MHz: the host model has no per-core score, and clock "
            "rates are not comparable across CPU generations (SPEC CPU2000 results, "
            "https://www.spec.org/cpu2000/results/)."
        )
    if score_mode and (r.src == "host-ratio").any():
        quality.note(
            f"Some CPU scores were scaled from clock rates by the host's "
            f"{unit}/MHz ratio: conservative for older CPU generations."
        )
    util_state, util_notes, assume_util = util
    # A fleet repeats a few CPU configurations: each note is made once per
    # configuration (every input of the note in the key, NaN as one marker; a
    # zero, whose sign the note shows, is never looked up: -0.0 == 0.0).
    keys = zip(*(_keyed(a) for a in (
        r.src, r.mhz_from_cat, r.cps_from_cat, r.physical, r.cat_label, r.basis,
        r.conv_note, r.score, r.sockets, r.cps, r.vcpus, r.per_core, r.mhz)), strict=True)
    made: dict[tuple[object, ...], tuple[Status, str]] = {}
    for i, (server, key) in enumerate(zip(r.names.tolist(), keys, strict=True)):
        server = str(server)
        record = made.get(key) if 0.0 not in key[7:] else None
        if record is None:
            record = _capacity_record(quality, host, unit, r, i)
            made[key] = record
        else:
            _catalog_cells(quality, server, r, i)
        quality.record(server, "cpu_capacity", *record)
        _record_util(quality, server, util_state[i], util_notes, assume_util)


#: NaN in a note's key (NaN != NaN: it would never be found again).
_NAN = object()


def _keyed(a: np.ndarray) -> list[object]:
    """``a``'s values as parts of a note's key: each NaN as :data:`_NAN` (found
    by numpy in a float array, by ``x != x`` in any other but a bool, integer
    or text array, which holds none)."""
    values = a.tolist()
    if a.dtype.kind == "f":
        for i in np.flatnonzero(np.isnan(a)).tolist():
            values[i] = _NAN
    elif a.dtype.kind not in "biuUS":
        values = [_NAN if x != x else x for x in values]
    return values


def _catalog_cells(quality: QualityReport, server: str, r: CpuResolution, i: int) -> None:
    """Server ``i``'s cells filled from the CPU catalog (cores per socket, clock)."""
    if r.cps_from_cat[i]:
        quality.record(server, "cores_per_socket", "derived", r.cat_label[i])
    if r.mhz_from_cat[i]:
        quality.record(server, "cpu_mhz", "derived", r.cat_label[i])


def _capacity_record(
    quality: QualityReport, host: HostModel, unit: str, r: CpuResolution, i: int
) -> tuple[Status, str]:
    """Status and note of server ``i``'s capacity (records its catalog-filled cells)."""
    server = str(r.names[i])
    src = r.src[i]
    cap_status: Status = STATUS.get(src, "derived" if r.mhz_from_cat[i] else "given")
    if r.cps_from_cat[i] and r.physical[i] and cap_status == "given":
        cap_status = "derived"
    _catalog_cells(quality, server, r, i)
    label = (
        r.cat_label[i]
        if src in ("catalog", "catalog-bridge") or r.mhz_from_cat[i]
        else ""
    )
    if src == "bridge":
        label = f"{fmt(r.score[i])} {r.basis[i]}/core from the inventory, {r.conv_note[i]}"
    cores = (
        f"{fmt(r.sockets[i])} x {fmt(r.cps[i])} cores"
        if r.physical[i]
        else f"{fmt(r.vcpus[i])} vCPUs (sockets/cores unknown)"
    )
    return cap_status, _capacity_note(
        src, cores, r.per_core[i], unit, r.mhz[i], host, label
    )


def _capacity_note(
    src: str,
    cores: str,
    per_core: float,
    unit: str,
    mhz: float,
    host: HostModel,
    cat_label: str,
) -> str:
    """The quality note on a server's CPU capacity; ``cores`` says how they were counted."""
    head = f"{cores} x {fmt(per_core)} {unit}/core"
    # The two assumptions below carry no per-server figure, so that every server
    # they concern shares one note and one plan warning.
    if src == "option":
        return (
            f"no clock rate or CPU score in the inventory: --vm-cpu-mhz {fmt(mhz)} "
            f"taken, scaled by host {host.model}'s {fmt(host.cpu_score_per_core or 0)}"
            f" {unit}/core at {fmt(host.cpu_mhz)} MHz"
            if unit != MHZ_UNIT
            else f"no clock rate in the inventory: --vm-cpu-mhz {fmt(mhz)} taken"
        )
    if src == "host-core":
        return (
            "no clock rate or CPU score: each core taken as one core of host "
            f"{host.model} ({fmt(per_core)} {unit}/core, a 1:1 core assumption); "
            "pass --vm-cpu-mhz or add a cpu_mhz (or cpu_score_per_core) column"
        )
    if src == "inventory":
        return f"{head} (score from the inventory)"
    if src in ("catalog", "catalog-bridge"):
        return f"{head} (CPU catalog: {cat_label})"
    if src == "bridge":
        return f"{head} ({cat_label})"
    if src == "host-ratio":
        return (
            f"{head} = {fmt(mhz)} MHz x {fmt(host.cpu_score_per_core or 0)} / "
            f"{fmt(host.cpu_mhz)} MHz of host {host.model}: assumes this CPU does as "
            "much per clock as the host's, which overstates older generations "
            "(conservative)"
            + (f"; clock from CPU catalog: {cat_label}" if cat_label else "")
        )
    origin = f" from CPU catalog: {cat_label}" if cat_label else ""
    return f"{head} (clock rate{origin})"


def _record_util(
    quality: QualityReport,
    server: str,
    state: tuple[bool, bool, bool, bool],
    notes: dict[str, str],
    assume_util: float,
) -> None:
    """``state`` = (both missing, average estimated, peak estimated, peak capped)."""
    both, avg_est, peak_est, capped = state
    if both:
        text = f"unknown: {assume_util:g} assumed (--assume-util)"
        quality.record(server, "cpu_avg_util", "assumed", text)
        quality.record(server, "cpu_peak_util", "assumed", text)
        return
    peak_note = notes["cpu_peak_util_capped" if capped else "cpu_peak_util"]
    for f, estimated, note in (
        ("cpu_avg_util", avg_est, notes["cpu_avg_util"]),
        ("cpu_peak_util", peak_est, peak_note),
    ):
        if estimated:
            quality.record(server, f, "estimated", note)
        elif quality.status(server, f) == "missing":
            quality.record(server, f, "given")
