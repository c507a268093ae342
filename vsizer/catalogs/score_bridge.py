"""Bridges between CPU score bases, and the plausible range of each basis.

Synopsis
--------
A server list scored in an older SPEC suite can be planned on a host scored in
SPEC CPU2017 only through CPUs measured in both suites. For each such CPU the
ratio ``to / from`` of its per-core medians is one estimate of the conversion
factor; the bridge factor is the **median of the ratios** and its stated
error is the largest relative deviation of a ratio from that median::

    score_to = score_from x factor          (error: +- max |ratio / factor - 1|)

Where no CPU was measured in both suites, two bridges that share a basis are
**chained**: ``factor = factor_1 x factor_2`` and the errors compound,
``error = (1 + error_1)(1 + error_2) - 1`` (worst case: both ratios off in the
same direction).

Data
----
``vsizer/catalogs/data/score_bridge.csv`` (built by
``scripts/build_catalogs.py``): one row per CPU pair with both per-core
medians, their sources and the ratio. Shipped:

* **SPECint_rate2006 -> SPECrate2017_int_base** over the 8 CPUs found in both
  published result sets (Xeon E5-2620, E5-2620 v2, E5-2670, E5-2670 v2,
  E5-2620 v3, E5-2680 v3, E3-1240L v5, E3-1260L v5): factor 0.1086, ratios
  0.0997 to 0.1317, error +-21.2 %. Sandy Bridge / Ivy Bridge pairs give
  0.100-0.110, Haswell 0.123-0.132, Skylake E3 0.108-0.110: the error is
  mostly the generation. Valid for Intel Xeons of 2012-2015; others are
  extrapolation.
* **SPECint2000 -> SPECint_rate2006** over the 2 CPUs of the design method's
  SPECint2000 table with CINT2006rate results (Xeon 5110, Xeon 5160; per-core
  SPECint2000 = chip figure / cores): factor 0.009839, ratios 0.009339 and
  0.01034, error +-5.1 %. The SPECint2000 figures are the design method's
  table (SPEC CPU2000 results as tabulated there; no result page of them was
  found in reachable data). Both CPUs are Core-microarchitecture
  (Woodcrest, 2006); NetBurst Xeons and Opterons are extrapolation.
* Chained, **SPECint2000 -> SPECrate2017_int_base**: factor 0.009839 x
  0.1086 = 0.001069, error (1.051 x 1.212) - 1 = +-27.4 %. A Xeon 5160
  (3,025 SPECint2000 per 2-core chip, 1,512.5 per core) is 1.62
  SPECrate2017_int_base per core.

``vsizer/catalogs/data/score_ranges.csv``: per basis, the lowest and highest
per-core median of the published results the catalogs are built from. A score
is *plausible* in a basis within a factor :data:`RANGE_TOLERANCE` of that
range (CPUs newer or older than the data still pass; a score of another suite,
10 to 1000 times off, does not).

References
----------
.. [1] SPEC, "SPEC CPU2017 results," https://www.spec.org/cpu2017/results/
   (CINT2017rate, base).
.. [2] SPEC, "SPEC CPU2006 results," https://www.spec.org/cpu2006/results/
   (CINT2006rate, base).
.. [3] SPEC, "SPEC CPU2000 results," https://www.spec.org/cpu2000/results/
   (CINT2000).
.. [4] CINT2006rate results as redistributed in github.com/karlarao/
   specint_cpu_explorer @0cf1b84 (dump of March 2014) and
   github.com/satoshi-s-suzuki/tools @b19eb2a (``SPECint/js``, results up to
   2016 Q1 with their result URLs); see ``scripts/data/README.md``.
.. [5] MHz / SPECint2000 of the Xeon 3.0-3.6 GHz, 5110 and 5160 (1.87-2.10),
   from their CINT2000 results [3]_.
"""

from __future__ import annotations

import csv
import math
import statistics
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from vsizer.catalogs._csv import shipped_path

__all__ = [
    "HEADER_EXAMPLE",
    "RANGE_TOLERANCE",
    "Bridge",
    "BridgePair",
    "ScoreRange",
    "bridge",
    "bridge_scores",
    "likely_bases",
    "read_bridge_pairs",
    "read_score_ranges",
    "score_range_problems",
]

#: File names in ``vsizer/catalogs/data``.
SHIPPED_BRIDGE = "score_bridge.csv"
SHIPPED_RANGES = "score_ranges.csv"

#: A score within [low / 2, high x 2] of its basis' published range is plausible.
RANGE_TOLERANCE = 2.0

#: Where each basis' results are published, for bridge notes.
RESULTS_PAGES: dict[str, str] = {
    "SPECint2000": "SPECint2000 as tabulated in the vsizer design method "
    "(https://www.spec.org/cpu2000/results/)",
    "SPECint_rate2006": "https://www.spec.org/cpu2006/results/",
    "SPECrate2017_int_base": "https://www.spec.org/cpu2017/results/",
}

#: An inventory header that states each basis (see vsizer.inventory.headers).
HEADER_EXAMPLE: dict[str, str] = {
    "SPECint2000": "SPEC CPU2000",
    "SPECint_rate2006": "SPEC CPU2006",
    "SPECrate2017_int_base": "SPECrate2017",
}


@dataclass(frozen=True)
class BridgePair:
    """One CPU measured in two suites (per-core medians of published results)."""

    from_basis: str
    to_basis: str
    cpu_name: str
    from_score: float
    to_score: float
    from_source: str
    to_source: str

    @property
    def ratio(self) -> float:
        return self.to_score / self.from_score


@dataclass(frozen=True)
class Bridge:
    """Conversion ``from_basis -> to_basis``: factor and error from its pairs.

    A chained bridge (``legs`` set) converts through a shared basis: its
    factor is the product of the legs' factors, its pairs are theirs.
    """

    from_basis: str
    to_basis: str
    factor: float
    pairs: tuple[BridgePair, ...]
    inverted: bool = False
    legs: tuple[Bridge, ...] = ()

    @property
    def ratios(self) -> list[float]:
        r = [p.ratio for p in self.pairs]
        return [1 / x for x in r] if self.inverted else r

    @property
    def error(self) -> float:
        """Largest relative deviation of a pair's ratio from the factor; for a
        chained bridge, the legs' errors compounded: prod(1 + e_i) - 1."""
        if self.legs:
            return math.prod(1 + leg.error for leg in self.legs) - 1
        return max(abs(r / self.factor - 1) for r in self.ratios)

    def _detail(self) -> str:
        cpus = ", ".join(p.cpu_name for p in self.pairs)
        return (
            f"{self.from_basis} x {self.factor:.4g} = {self.to_basis}: median ratio "
            f"over {len(self.pairs)} CPUs measured in both suites ({cpus}; ratios "
            f"{min(self.ratios):.4g} to {max(self.ratios):.4g}, error "
            f"+-{self.error * 100:.1f} %)"
        )

    def _pages(self) -> str:
        bases = dict.fromkeys(
            b
            for leg in (self.legs or (self,))
            for b in (leg.from_basis, leg.to_basis)
        )
        return " and ".join(RESULTS_PAGES.get(b, b) for b in bases)

    def note(self) -> str:
        """How a value was converted, for quality notes and warnings."""
        if not self.legs:
            return f"{self._detail()}, SPEC published results {self._pages()}"
        return (
            f"{self.from_basis} x {self.factor:.4g} = {self.to_basis}, chained "
            f"through {self.legs[0].to_basis} (error +-{self.error * 100:.1f} % "
            f"compounded): "
            + "; then ".join(leg._detail() for leg in self.legs)
            + f"; SPEC published results {self._pages()}"
        )


@dataclass(frozen=True)
class ScoreRange:
    """Lowest and highest per-core median of a basis' published results."""

    basis: str
    low: float
    high: float
    cpus: int
    source: str

    def accepts(self, value: float) -> bool:
        return self.low / RANGE_TOLERANCE <= value <= self.high * RANGE_TOLERANCE


def _rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


@lru_cache(maxsize=4)
def read_bridge_pairs(path: str | None = None) -> tuple[BridgePair, ...]:
    """The CPU pairs of ``score_bridge.csv`` (None: the shipped file)."""
    rows = _rows(Path(path) if path else shipped_path(SHIPPED_BRIDGE))
    return tuple(
        BridgePair(
            r["from_basis"],
            r["to_basis"],
            r["cpu_name"],
            float(r["from_score_per_core"]),
            float(r["to_score_per_core"]),
            r["from_source"],
            r["to_source"],
        )
        for r in rows
    )


@lru_cache(maxsize=4)
def read_score_ranges(path: str | None = None) -> dict[str, ScoreRange]:
    """Plausible range per basis from ``score_ranges.csv`` (None: shipped)."""
    rows = _rows(Path(path) if path else shipped_path(SHIPPED_RANGES))
    return {
        r["basis"]: ScoreRange(
            r["basis"], float(r["low"]), float(r["high"]), int(r["cpus"]), r["source"]
        )
        for r in rows
    }


def _direct(
    pairs: tuple[BridgePair, ...], from_basis: str, to_basis: str
) -> Bridge | None:
    """The bridge from the pairs measured in both bases (either direction)."""
    direct = tuple(
        p for p in pairs if (p.from_basis, p.to_basis) == (from_basis, to_basis)
    )
    if direct:
        factor = statistics.median(p.ratio for p in direct)
        return Bridge(from_basis, to_basis, factor, direct)
    back = tuple(
        p for p in pairs if (p.from_basis, p.to_basis) == (to_basis, from_basis)
    )
    if back:
        factor = statistics.median(1 / p.ratio for p in back)
        return Bridge(from_basis, to_basis, factor, back, inverted=True)
    return None


def bridge(from_basis: str, to_basis: str) -> Bridge | None:
    """The shipped bridge between two bases (either direction), or None.

    A direct bridge (CPUs measured in both bases) first; else two bridges
    chained through a third basis, the one with the smallest compounded error.

    >>> round(bridge("SPECint_rate2006", "SPECrate2017_int_base").factor, 4)
    0.1086
    >>> b = bridge("SPECint2000", "SPECrate2017_int_base")
    >>> round(b.factor, 6), round(b.error, 3), b.legs[0].to_basis
    (0.001069, 0.274, 'SPECint_rate2006')
    >>> bridge("SPECint2000", "MHz") is None
    True
    """
    if from_basis == to_basis:
        return None
    pairs = read_bridge_pairs()
    found = _direct(pairs, from_basis, to_basis)
    if found is not None:
        return found
    bases = sorted({b for p in pairs for b in (p.from_basis, p.to_basis)})
    chains = []
    for mid in bases:
        if mid in (from_basis, to_basis):
            continue
        first, second = _direct(pairs, from_basis, mid), _direct(pairs, mid, to_basis)
        if first is not None and second is not None:
            chains.append(
                Bridge(
                    from_basis,
                    to_basis,
                    first.factor * second.factor,
                    first.pairs + second.pairs,
                    legs=(first, second),
                )
            )
    return min(chains, key=lambda b: b.error) if chains else None


def bridge_scores(
    score: np.ndarray, basis: np.ndarray, unit: str
) -> tuple[np.ndarray, np.ndarray]:
    """Scores converted to ``unit`` where a bridge from their basis exists.

    Returns
    -------
    converted : ndarray
        ``score x factor``; NaN where the score is missing, already in
        ``unit``, or has no bridge.
    notes : ndarray of str
        :meth:`Bridge.note` of each converted value, else ``''``.
    """
    converted = np.full(len(score), np.nan)
    notes = np.full(len(score), "", dtype=object)
    for b in set(str(x) for x in basis):
        found = bridge(b, unit) if b and b != unit else None
        if found is None:
            continue
        rows = (basis == b) & ~np.isnan(score)
        converted[rows] = score[rows] * found.factor
        notes[rows] = found.note()
    return converted, notes


def likely_bases(value: float, exclude: str = "") -> list[str]:
    """Bases whose plausible range holds ``value`` (other than ``exclude``),
    those whose published range itself holds it first.

    >>> likely_bases(5.0)
    ['SPECrate2017_int_base', 'SPECint_rate2006']
    """
    hits = [
        r for b, r in read_score_ranges().items() if b != exclude and r.accepts(value)
    ]
    hits.sort(key=lambda r: not r.low <= value <= r.high)
    return [r.basis for r in hits]


def _fmt(x: float) -> str:
    return f"{x:.3g}" if x < 100 else f"{x:.0f}"


def score_range_problems(
    names: np.ndarray, score: np.ndarray, basis: np.ndarray, unit: str
) -> list[str]:
    """One message per score outside the plausible range of its basis.

    A score whose basis is unstated (``''`` or ``'unstated'``) is taken in
    ``unit`` (the host's basis). Bases without a shipped range are not checked.

    Examples
    --------
    >>> import numpy as np
    >>> score_range_problems(np.array(["web01"]), np.array([1440.0]),
    ...                      np.array(["unstated"]), "SPECrate2017_int_base")[0][:60]
    "server 'web01', column 'cpu_score_per_core': 1440 is outside"
    """
    ranges = read_score_ranges()
    out: list[str] = []
    for i, value in enumerate(score):
        if math.isnan(value):
            continue
        stated = str(basis[i]) not in ("", "unstated")
        b = str(basis[i]) if stated else unit
        r = ranges.get(b)
        if r is None or r.accepts(value):
            continue
        others = likely_bases(value, exclude=b)
        hint = (
            f"it looks like a {' or '.join(others)} score: name the basis in the "
            f"header, e.g. '{HEADER_EXAMPLE.get(others[0], others[0])}'"
            if others
            else "it fits no known basis: is it a per-chip or per-server score? "
            "Give a per-core score"
        )
        out.append(
            f"server '{names[i]}', column 'cpu_score_per_core': {value:g} is "
            f"outside the range of {b} per core (≈ {_fmt(r.low)}–{_fmt(r.high)} "
            f"in {r.cpus} CPUs' published results; {r.source})"
            + ("" if stated else ", the host's basis, taken because none is stated")
            + f"; {hint}."
        )
    return out
