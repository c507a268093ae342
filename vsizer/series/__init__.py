"""Utilization time series: readers, alignment, the series store and the collector.

Every reader returns a :class:`~vsizer.series.model.SeriesSet` of tidy rows
(server, timestamp UTC, metric, value, unit). :func:`load_series` reads stores
or files for ``vsizer plan --series``; :class:`SeriesStore` is the Parquet
store that ``vsizer import`` fills and ``vsizer collect`` appends to.

Only pandas/numpy are imported here; pyarrow (store) and psutil (collector)
are imported when used and come with ``pip install 'vsizer[series]'``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from vsizer._lazy import lazy_getattr

# The functions named as their modules, imported here: once a module is imported
# its name on the package is the module, and a lazy name would stay hidden.
from vsizer.series.align import AlignedSeries, align
from vsizer.series.collect import collect

if TYPE_CHECKING:
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

#: Loaded on first use (:mod:`vsizer._lazy`): a plan without series does not
#: import every reader.
__getattr__ = lazy_getattr(__name__, {
    "METRICS": "vsizer.series.model",
    "SERIES_COLUMNS": "vsizer.series.model",
    "SeriesQuality": "vsizer.series.model",
    "SeriesSet": "vsizer.series.model",
    "read_perfmon": "vsizer.series.perfmon",
    "read_node_exporter": "vsizer.series.prometheus",
    "read_query_range": "vsizer.series.prometheus",
    "FORMATS": "vsizer.series.sources",
    "load_series": "vsizer.series.sources",
    "merge_series": "vsizer.series.sources",
    "SeriesStore": "vsizer.series.store",
    "read_sysstat": "vsizer.series.sysstat",
    "read_long": "vsizer.series.tabular",
    "read_alibaba_machine_usage": "vsizer.series.traces",
    "read_bitbrains": "vsizer.series.traces",
    "read_gcd": "vsizer.series.traces",
    "read_planetlab": "vsizer.series.traces",
    "read_wide": "vsizer.series.wide",
})

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
