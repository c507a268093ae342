"""Utilization time series: readers, alignment, the series store and the collector.

Every reader returns a :class:`~vsizer.series.model.SeriesSet` of tidy rows
(server, timestamp UTC, metric, value, unit). :func:`load_series` reads stores
or files for ``vsizer plan --series``; :class:`SeriesStore` is the Parquet
store that ``vsizer import`` fills and ``vsizer collect`` appends to.

Only pandas/numpy are imported here; pyarrow (store) and psutil (collector)
are imported when used and come with ``pip install 'vsizer[series]'``.
"""

from __future__ import annotations

from vsizer.series.align import AlignedSeries, align
from vsizer.series.collect import collect
from vsizer.series.model import METRICS, SERIES_COLUMNS, SeriesQuality, SeriesSet
from vsizer.series.perfmon import read_perfmon
from vsizer.series.prometheus import read_node_exporter, read_query_range
from vsizer.series.sources import FORMATS, load_series, merge_series
from vsizer.series.store import SeriesStore
from vsizer.series.sysstat import read_sysstat
from vsizer.series.tabular import read_long
from vsizer.series.traces import (
    read_alibaba_machine_usage,
    read_bitbrains,
    read_gcd,
    read_planetlab,
)
from vsizer.series.wide import read_wide

__all__ = [
    "FORMATS",
    "METRICS",
    "SERIES_COLUMNS",
    "AlignedSeries",
    "SeriesQuality",
    "SeriesSet",
    "SeriesStore",
    "align",
    "collect",
    "load_series",
    "merge_series",
    "read_alibaba_machine_usage",
    "read_bitbrains",
    "read_gcd",
    "read_long",
    "read_node_exporter",
    "read_perfmon",
    "read_planetlab",
    "read_query_range",
    "read_sysstat",
    "read_wide",
]
