"""One missing-data policy for every inventory reader.

Synopsis
--------
A cell is *missing* when it is empty or blank-like (:data:`BLANK_TOKENS`:
``-``, ``－``, ``N/A``, ``#N/A``, ``不明``, ``なし``, ``?`` ... in any case or
width). A missing cell is never an error in itself and never silently a
number: what each field becomes is the rule of :data:`MISSING_RULES`, and
every value the plan did not read is recorded in the
:class:`~vsizer.quality.QualityReport` as ``estimated`` or ``assumed``, so it
is counted among the plan's warnings. Fields the plan cannot do without
(memory, the CPU count) make an error line naming the file, row and column.

CPU utilization
---------------
The rule that matters most. Servers rarely run at their average; sizing on
the peak needs the peak. When a file gives the average but not the peak (or
the reverse), the ratio between them is taken from the file's own servers
that give both (:func:`fleet_peak_factor`): the median of peak / average over
at least :data:`MIN_FLEET_SERVERS` such servers. With fewer, a published
ratio is used (:data:`DEFAULT_PEAK_TO_AVERAGE`)::

    peak    = min(average x factor, 100 %)     status 'estimated'
    average = peak / factor                    status 'estimated'

With both missing, both are ``--assume-util`` (default 100 %), ``assumed``.

References
----------
.. [1] K. Park and V. S. Pai, "CoMon: a mostly-scalable monitoring system for
   PlanetLab," ACM SIGOPS Operating Systems Review 40(1), pp. 65-74, 2006,
   :doi:`10.1145/1113361.1113374`.
.. [2] A. Beloglazov and R. Buyya, "Optimal online deterministic algorithms
   and adaptive heuristics for energy and performance efficient dynamic
   consolidation of virtual machines in cloud data centers," Concurrency and
   Computation: Practice and Experience 24(13), pp. 1397-1420, 2012,
   :doi:`10.1002/cpe.1867`.
.. [3] S. Shen, V. van Beek and A. Iosup, "Statistical characterization of
   business-critical workloads hosted in cloud datacenters," CCGrid 2015, pp. 465-474,
   :doi:`10.1109/CCGrid.2015.60`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from vsizer.quality import QualityReport
from vsizer.units import EMPTY_MARKERS

__all__ = [
    "BLANK_TOKENS",
    "DEFAULT_PEAK_TO_AVERAGE",
    "MIN_FLEET_SERVERS",
    "MISSING_RULES",
    "UNCHECKED_FIELDS",
    "MissingRule",
    "PeakFactor",
    "UtilFill",
    "fill_cpu_util",
    "fleet_peak_factor",
    "record_unchecked",
]

#: The blank-like cell texts (compared after NFKC, stripping and case folding).
BLANK_TOKENS: frozenset[str] = EMPTY_MARKERS

#: Servers of a file that must give both average and peak CPU for the file's
#: own peak-to-average factor to be used.
MIN_FLEET_SERVERS = 3

#: Peak-to-average CPU factor used when a file has too few servers giving both:
#: the median over the 8,122 VM-day traces of the PlanetLab/CoMon data set
#: [1]_ as published with CloudSim [2]_ (288 five-minute samples per VM and
#: day; peak = the largest sample, average = the mean), measured by
#: ``scripts/measure_peak_factor.py``. Cross-check: the month-long Bitbrains
#: ``Rnd`` traces [3]_ give a median of 11.4 (a longer window sees a higher
#: peak), so the day figure is not on the pessimistic side.
DEFAULT_PEAK_TO_AVERAGE: dict[str, Any] = {
    "value": 4.85,
    "source": (
        "median peak/average of 8,122 PlanetLab VM-day CPU traces (CoMon, Park & "
        "Pai 2006; published by Beloglazov & Buyya 2012, doi:10.1002/cpe.1867)"
    ),
}

#: Fields whose missing value leaves a placement dimension unchecked.
UNCHECKED_FIELDS: tuple[str, ...] = ("disk_iops", "disk_mb_s", "net_mbps")


@dataclass(frozen=True)
class MissingRule:
    """What a missing value of ``field`` becomes.

    ``status`` is the quality status recorded ('estimated', 'assumed',
    'derived', 'missing', or two of them by case), or 'error' when the server cannot be planned
    without the value, or 'none' when the plan does not use the field.
    ``change`` says how a user supplies the value instead.
    """

    field: str
    result: str
    status: str
    change: str


#: The policy, field by field (docs/inputs.md renders it).
MISSING_RULES: dict[str, MissingRule] = {
    r.field: r
    for r in (
        MissingRule(
            "cpu_peak_util",
            "average x the file's median peak/average (at least "
            f"{MIN_FLEET_SERVERS} servers giving both), else x "
            f"{DEFAULT_PEAK_TO_AVERAGE['value']} (PlanetLab median); at most 100 %",
            "estimated",
            "give the peak column, or --series",
        ),
        MissingRule(
            "cpu_avg_util",
            "peak / the same factor",
            "estimated",
            "give the average column, or --series",
        ),
        MissingRule(
            "cpu_util",
            "average and peak both missing: both = --assume-util (default 1.0)",
            "assumed",
            "--assume-util, or --series",
        ),
        MissingRule(
            "mem_gib",
            "error naming the row and column: memory is placed",
            "error",
            "fill the column",
        ),
        MissingRule(
            "vcpus",
            "sockets x cores per socket; with those missing too, an error",
            "derived",
            "fill vcpus, or sockets and cores per socket",
        ),
        MissingRule(
            "cpu_capacity",
            "score from the CPU catalog for the CPU name (derived), else clock x "
            "the host's score per MHz (assumed), else an error",
            "derived or assumed",
            "give cpu_score_per_core or cpu_mhz, or --cpus",
        ),
        MissingRule(
            "power_w",
            "SPECpower curve of the model at its average utilization (derived), "
            "else a typical server of its socket count (assumed)",
            "derived or assumed",
            "give the power column",
        ),
        *(
            MissingRule(
                f,
                "0 in that dimension: not checked for the server (warning "
                f"'unchecked_{f}')",
                "missing",
                "fill the column, or --series",
            )
            for f in UNCHECKED_FIELDS
        ),
        MissingRule("pool", "'default'", "assumed", "fill the pool column"),
        MissingRule("group", "the server's pool", "assumed", "fill the group column"),
        MissingRule("migrate", "yes (planned)", "assumed", "fill the migrate column"),
        MissingRule(
            "redundant_with",
            "no partner (なし/none/- mean no partner here)",
            "given",
            "name the partner",
        ),
        *(
            MissingRule(f, "left empty; the plan does not use it", "none", "-")
            for f in ("mem_used_gib", "disk_gib", "disk_used_gib", "rack_u", "model",
                      "os", "rank", "load_rank", "pin_host")
        ),
    )
}


@dataclass(frozen=True)
class PeakFactor:
    """A peak-to-average CPU factor and where it comes from.

    ``servers`` is the number of servers of the file it was measured on
    (0 for the published default); ``note`` says so in words.
    """

    value: float
    servers: int
    note: str


def fleet_peak_factor(avg: Any, peak: Any) -> PeakFactor:
    """The file's own peak-to-average CPU factor, or the published default.

    Parameters
    ----------
    avg, peak : array-like of float
        Average and peak CPU utilization per server [fraction]; NaN = missing.

    Returns
    -------
    PeakFactor
        The median of ``peak / avg`` (rounded to 3 decimals) over the servers
        with both, ``avg > 0``
        and ``peak >= avg`` (an inconsistent pair says nothing about the
        ratio), when there are at least :data:`MIN_FLEET_SERVERS`; else
        :data:`DEFAULT_PEAK_TO_AVERAGE`.

    Examples
    --------
    Average/peak 10/20, 20/30, 30/60, 40/40 %: ratios 2, 1.5, 2, 1, median 1.75.
    """
    a = np.asarray(avg, dtype=float)
    p = np.asarray(peak, dtype=float)
    with np.errstate(invalid="ignore"):
        ok = ~np.isnan(a) & ~np.isnan(p) & (a > 0) & (p >= a)
    n = int(ok.sum())
    if n >= MIN_FLEET_SERVERS:
        # Rounded to 3 decimals: the factor used is the factor shown in notes.
        with np.errstate(over="ignore"):  # a tiny average: an infinite ratio
            value = round(float(np.median(p[ok] / a[ok])), 3)
        return PeakFactor(
            value, n, f"median peak/average of the {n} servers of this file that "
            "give both",
        )
    value = float(DEFAULT_PEAK_TO_AVERAGE["value"])
    return PeakFactor(
        value, 0, f"{n} server(s) of this file give both, fewer than "
        f"{MIN_FLEET_SERVERS}: {DEFAULT_PEAK_TO_AVERAGE['source']}",
    )


@dataclass(frozen=True)
class UtilFill:
    """CPU utilization with the single gaps filled (:func:`fill_cpu_util`)."""

    avg: np.ndarray
    peak: np.ndarray
    avg_estimated: np.ndarray
    peak_estimated: np.ndarray
    peak_capped: np.ndarray
    factor: PeakFactor

    def notes(self) -> dict[str, str]:
        """Quality notes of estimated values: ``cpu_avg_util``, ``cpu_peak_util``
        and ``cpu_peak_util_capped`` (a peak the factor would put above 100 %)."""
        f, why = f"{self.factor.value:g}", self.factor.note
        return {
            "cpu_avg_util": f"peak / {f} ({why})",
            "cpu_peak_util": f"average x {f} ({why})",
            "cpu_peak_util_capped": f"average x {f}, capped at 100 % ({why})",
        }

    def note(self, field_name: str, i: int) -> str:
        """The quality note of server ``i``'s estimated ``field_name``."""
        key = field_name
        if field_name == "cpu_peak_util" and self.peak_capped[i]:
            key = "cpu_peak_util_capped"
        return self.notes()[key]


def fill_cpu_util(avg: Any, peak: Any) -> UtilFill:
    """Fill a missing average from the peak, or a missing peak from the average.

    Parameters
    ----------
    avg, peak : array-like of float
        Per server [fraction]; NaN = missing.

    Returns
    -------
    UtilFill
        ``peak = min(avg x factor, 1)`` where only the peak is missing,
        ``avg = peak / factor`` where only the average is; servers missing both
        are left NaN (the ``--assume-util`` rule, applied by
        :func:`vsizer.catalogs.normalize.normalize_cpu`). The factor is
        :func:`fleet_peak_factor` of the given pairs.
    """
    a = np.asarray(avg, dtype=float).copy()
    p = np.asarray(peak, dtype=float).copy()
    factor = fleet_peak_factor(a, p)
    est_peak = np.isnan(p) & ~np.isnan(a)
    est_avg = np.isnan(a) & ~np.isnan(p)
    raw_peak = a * factor.value
    capped = est_peak & (raw_peak > 1.0)
    p = np.where(est_peak, np.minimum(raw_peak, 1.0), p)
    a = np.where(est_avg, p / factor.value, a)
    return UtilFill(a, p, est_avg, est_peak, capped, factor)


def record_unchecked(
    names: list[str], values: dict[str, list[Any]], quality: QualityReport
) -> None:
    """Record missing IOPS / throughput / network values and warn about them.

    For each field of :data:`UNCHECKED_FIELDS` that some servers give and
    others do not, the others get status ``missing`` and one warning
    ``unchecked_<field>`` names them: the plan counts them as 0 there, so the
    dimension is not checked for them. A field no server gives is left alone:
    the plan has no such dimension at all (it constrains only dimensions that
    some server gives and the host model states).
    """
    for f in UNCHECKED_FIELDS:
        column = values.get(f, [])
        lacking = [n for n, v in zip(names, column, strict=True) if v is None]
        if not lacking:
            continue
        if len(lacking) == len(names):
            continue  # no column: the plan has no such dimension at all
        for n in lacking:
            quality.record(n, f, "missing", "blank: counted as 0, not checked")
        quality.warn(
            f"unchecked_{f}",
            f"{f} missing for {len(lacking)} of {len(names)} servers: they count "
            "as 0 in that dimension, so it is not checked for them; fill the "
            "column or give a series.",
            lacking,
        )
