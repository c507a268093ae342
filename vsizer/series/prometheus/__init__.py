"""Prometheus series: node_exporter text scrapes and HTTP API ``query_range`` responses.

node_exporter scrapes (:mod:`vsizer.series.prometheus.scrape`)
    Files holding the text exposition format of ``/metrics`` (format 0.0.4 [1]_),
    two or more per server. Counters become rates between consecutive scrapes
    of a server; gauges are read at every scrape. One way to take them::

        while sleep 300; do
          { echo "# scrape_time $(date -u +%Y-%m-%dT%H:%M:%SZ)"
            curl -s http://web01:9100/metrics; } > web01-$(date +%s).prom
        done

query_range responses (:mod:`vsizer.series.prometheus.api`)
    The JSON of ``GET /api/v1/query_range`` [2]_ (``resultType: matrix``), one
    series per server, for a query that already yields one metric per server,
    e.g. ``1 - avg by (instance) (rate(node_cpu_seconds_total{mode="idle"}[5m]))``.

References
----------
.. [1] Prometheus authors, "Exposition formats," prometheus.io/docs/instrumenting/
   exposition_formats/ (text format 0.0.4).
.. [2] Prometheus authors, "HTTP API: Range queries," prometheus.io/docs/prometheus/
   latest/querying/api/ (response envelope, ``matrix`` result type, values as
   ``[<unix time>, "<sample value>"]``).
"""

from __future__ import annotations

from vsizer.series.prometheus.api import read_query_range
from vsizer.series.prometheus.scrape import (
    DEFAULT_DISK_EXCLUDE,
    DEFAULT_NET_EXCLUDE,
    NODE_EXPORTER_METRICS,
    VARIABLE_MAP,
    read_node_exporter,
)

__all__ = [
    "DEFAULT_DISK_EXCLUDE",
    "DEFAULT_NET_EXCLUDE",
    "NODE_EXPORTER_METRICS",
    "VARIABLE_MAP",
    "read_node_exporter",
    "read_query_range",
]
