"""Utilization time series: readers, alignment, store (issue 3, in progress)."""
