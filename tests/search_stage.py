"""The local search stage a plan on curves names in its strategy: the compiled breakout
search (numba installed) starts from first-fit; without numba, ``improve.py`` runs
first (``vsizer.placement.curve_sizing._starting_candidates``)."""

from vsizer.placement import _breakout

#: "breakout" with numba, "improve" without.
SEARCH = "breakout" if _breakout.available() else "improve"
