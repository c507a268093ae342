"""The smallest plotly.js bundle for a report's charts (issue 27: reports under 1.5 MB)."""

from __future__ import annotations

from vsizer.reporting._plotly_bundle import bundle_for, plotly_js


def test_bundle_is_the_smallest_that_draws_every_trace() -> None:
    assert bundle_for([]) == "basic"
    assert bundle_for([{"data": [{"type": "bar"}, {"x": [1]}]}]) == "basic"
    assert bundle_for([{"data": [{"type": "bar"}]}, {"data": [{"type": "heatmap"}]}]) == "cartesian"
    assert bundle_for([{"data": [{"type": "scatter3d"}]}]) == "full"


def test_shipped_bundles_are_plotly_4_1_1_partial_bundles() -> None:
    basic, cartesian = plotly_js("basic"), plotly_js("cartesian")
    assert basic.startswith("/**\n* plotly.js (basic - minified) v4.1.1")
    assert cartesian.startswith("/**\n* plotly.js (cartesian - minified) v4.1.1")
    assert 1_100_000 < len(basic) < 1_250_000 < len(cartesian) < 1_550_000
    assert "</script" not in basic and "</script" not in cartesian
