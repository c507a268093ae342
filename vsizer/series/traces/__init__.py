"""Readers of public utilization traces, one module per dataset.

* :mod:`.planetlab` -- CloudSim's PlanetLab CPU traces (one file per VM).
* :mod:`.bitbrains` -- Bitbrains GWA-T-12 per-VM files.
* :mod:`.alibaba` -- Alibaba cluster-trace-v2018 machine usage and meta.
* :mod:`.azure` -- Azure Public Dataset VM traces (vmtable and CPU readings,
  CSV or Parquet), read file by file on an engine straight onto the step grid
  (:func:`read_azure` returns an ``AlignedSeries``, not a tidy frame).
* :mod:`.gcd` -- two-column CPU %/memory % VM traces derived from the Google
  cluster data.

Each returns a :class:`~vsizer.series.model.SeriesSet` whose ``data`` is tidy
(UTC, canonical units, sorted by server, metric, timestamp) and whose
``quality`` counts every row that was clipped, dropped or duplicated and every
step longer than 1.5 x the server's median step. Bad cells raise one
:class:`~vsizer.errors.SeriesError` listing them, the first 20 of a kind then
"… and N more like it":
``{file} line {n}, column '{c}': expected {what}, got '{value}'.``
"""

from __future__ import annotations

from vsizer.series.traces.alibaba import (
    ALIBABA_MACHINE_META_COLUMNS,
    ALIBABA_MACHINE_USAGE_COLUMNS,
    read_alibaba_machine_meta,
    read_alibaba_machine_usage,
)
from vsizer.series.traces.azure import (
    AZURE_READINGS_COLUMNS,
    AZURE_VMTABLE_COLUMNS,
    read_azure,
    read_azure_series,
)
from vsizer.series.traces.bitbrains import BITBRAINS_VARIABLE_MAP, read_bitbrains
from vsizer.series.traces.gcd import GCD_START, GCD_STEP_S, read_gcd
from vsizer.series.traces.planetlab import PLANETLAB_STEP_S, read_planetlab

__all__ = [
    "ALIBABA_MACHINE_META_COLUMNS",
    "ALIBABA_MACHINE_USAGE_COLUMNS",
    "AZURE_READINGS_COLUMNS",
    "AZURE_VMTABLE_COLUMNS",
    "BITBRAINS_VARIABLE_MAP",
    "GCD_START",
    "GCD_STEP_S",
    "PLANETLAB_STEP_S",
    "read_alibaba_machine_meta",
    "read_alibaba_machine_usage",
    "read_azure",
    "read_azure_series",
    "read_bitbrains",
    "read_gcd",
    "read_planetlab",
]
